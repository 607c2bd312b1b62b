//! Integer values as the index sees them: literals, references to constants and fields, and the
//! little arithmetic that joins them. Plain data (syn's trees are not `Send`), folded later once
//! every file's constants are known.

use rustc_hash::FxHashMap as HashMap;

use serde::Serialize;

use crate::index::names::words;
use crate::source::Loc;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    /// `1 << 17`: a power of two written as a shift.
    Shl,
}

/// An integer-valued expression, reduced to what capacity analysis needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) enum Val {
    Lit(u64),
    /// A path whose last segment names a constant (`PER_BACKEND`, `cfg::PER_BACKEND`).
    Const(String),
    /// A field access (`self.cfg.per_backend` -> `per_backend`).
    Field(String),
    Bin(Op, Box<Val>, Box<Val>),
    Min(Box<Val>, Box<Val>),
    Max(Box<Val>, Box<Val>),
    /// Anything else (a call, a local variable, a method chain).
    Other,
}

impl Val {
    /// Reduce a syn expression; wrappers are see-through (see [`carried`]).
    pub(crate) fn of(expr: &syn::Expr) -> Val {
        use syn::Expr;
        match carried(expr) {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<u64>().map(Val::Lit).unwrap_or(Val::Other),
                // `cpus.clamp(1., 4.) as usize`, `cores * 10.0`: a whole number of 2 or more
                // written as a float counts as that number; a fraction (`0.75`) is a share and
                // `1.0` an identity factor or a floor, none.
                syn::Lit::Float(f) => whole_float(f).map_or(Val::Other, Val::Lit),
                _ => Val::Other,
            },
            // `nonzero!(16)` (the `nonzero_ext` crate and its kin): a literal checked at compile
            // time, as `NonZeroU16::new(16).unwrap()` is at run time.
            Expr::Macro(m)
                if crate::syntax::last_segment(&m.mac.path).as_deref() == Some("nonzero") =>
            {
                m.mac
                    .parse_body::<syn::LitInt>()
                    .ok()
                    .and_then(|i| i.base10_parse::<u64>().ok())
                    .map_or(Val::Other, Val::Lit)
            }
            Expr::Path(p) if p.qself.is_none() => {
                let last = crate::syntax::last_segment(&p.path).unwrap_or_default();
                if is_const_name(&last) {
                    Val::Const(last)
                } else {
                    Val::Other
                }
            }
            Expr::Field(f) => match &f.member {
                syn::Member::Named(n) => Val::Field(n.to_string()),
                syn::Member::Unnamed(_) => Val::Other,
            },
            Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => Op::Add,
                    syn::BinOp::Sub(_) => Op::Sub,
                    syn::BinOp::Mul(_) => Op::Mul,
                    syn::BinOp::Div(_) => Op::Div,
                    syn::BinOp::Shl(_) => Op::Shl,
                    _ => return Val::Other,
                };
                Val::Bin(op, Box::new(Val::of(&b.left)), Box::new(Val::of(&b.right)))
            }
            Expr::Call(c) if c.args.len() == 2 => {
                let (a, b) = (Box::new(Val::of(&c.args[0])), Box::new(Val::of(&c.args[1])));
                match &*c.func {
                    Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "min") => {
                        Val::Min(a, b)
                    }
                    Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "max") => {
                        Val::Max(a, b)
                    }
                    _ => Val::Other,
                }
            }
            Expr::MethodCall(m)
                if m.args.len() == 1 && (m.method == "min" || m.method == "max") =>
            {
                let (a, b) = (
                    Box::new(Val::of(&m.receiver)),
                    Box::new(Val::of(&m.args[0])),
                );
                if m.method == "min" {
                    Val::Min(a, b)
                } else {
                    Val::Max(a, b)
                }
            }
            _ => Val::Other,
        }
    }

    /// The value, given the known constants and field defaults; `None` when anything is unknown.
    pub(crate) fn eval(
        &self,
        consts: &HashMap<String, u64>,
        fields: &HashMap<String, u64>,
    ) -> Option<u64> {
        match self {
            Val::Lit(v) => Some(*v),
            Val::Const(n) => consts.get(n).copied(),
            Val::Field(n) => fields.get(n).copied(),
            Val::Bin(op, a, b) => {
                let (a, b) = (a.eval(consts, fields)?, b.eval(consts, fields)?);
                match op {
                    Op::Add => a.checked_add(b),
                    Op::Sub => a.checked_sub(b),
                    Op::Mul => a.checked_mul(b),
                    Op::Div => a.checked_div(b),
                    Op::Shl => u32::try_from(b)
                        .ok()
                        .and_then(|b| 1u64.checked_shl(b))
                        .and_then(|p| a.checked_mul(p)),
                }
            }
            Val::Min(a, b) => Some(a.eval(consts, fields)?.min(b.eval(consts, fields)?)),
            Val::Max(a, b) => Some(a.eval(consts, fields)?.max(b.eval(consts, fields)?)),
            Val::Other => None,
        }
    }

    /// The value a place is given: as [`Val::of`], but a bare float literal (`min_idle: 3.0`,
    /// `const UNIT: f64 = 8.0`) gives a float place, which no name makes a count.
    pub(crate) fn of_place(expr: &syn::Expr) -> Val {
        if is_float_lit(expr) {
            Val::Other
        } else {
            Val::of(expr)
        }
    }

    /// The value when it is made of literals alone (`2 * 8`).
    pub(crate) fn literal(&self) -> Option<u64> {
        self.eval(&HashMap::default(), &HashMap::default())
    }

    /// Whether arithmetic of literals multiplies by 1024 or a power of it, or by 1000 twice, or
    /// shifts by a multiple of 10 (`64 * 1024`, `4 * 1000 * 1000`, `1 << 20`): the way a size
    /// in KiB or MB is written.
    pub(crate) fn has_kib_factor(&self) -> bool {
        fn factors(v: &Val, out: &mut Vec<u64>) {
            match v {
                Val::Bin(Op::Mul, a, b) => {
                    factors(a, out);
                    factors(b, out);
                }
                Val::Lit(n) => out.push(*n),
                _ => {}
            }
        }
        if let Val::Bin(Op::Shl, _, b) = self {
            return matches!(**b, Val::Lit(n) if n >= 10 && n % 10 == 0);
        }
        let mut fs = Vec::new();
        factors(self, &mut fs);
        let binary = |n: &u64| *n >= 1024 && n.is_power_of_two() && n.trailing_zeros() % 10 == 0;
        fs.iter().any(binary) || fs.iter().filter(|n| **n == 1000).count() >= 2
    }

    /// Whether the expression is a bare literal (possibly cast or wrapped).
    pub(crate) fn is_lit(&self) -> bool {
        matches!(self, Val::Lit(_))
    }
}

/// The expression a wrapper carries, through any number of wrappers: parentheses, casts,
/// references and derefs, `Some(..)`, `NonZeroUsize::new(..)` (and `new_unchecked`), a shared
/// cell that starts at a literal (`Arc::new(AtomicU32::new(512))`), `.unwrap()`,
/// `.expect(..)`, `.ok_or(..)`, `?` and `unsafe { .. }` around one expression, and the fallback of an `Option` or
/// `Result` (`opt.unwrap_or(16)`, `.unwrap_or_else(|| 16)`, `.map_or(16, ..)`): the value a
/// setting takes when nobody set it. `NonZeroUsize::new(100).unwrap()` is how a capacity that
/// must not be zero is often written.
/// Whether a call's function is a lazy cell's constructor (`Lazy::new`, `LazyLock::new`,
/// `LazyCell::new`, with any path before them).
pub(crate) fn lazy_new(func: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = func else {
        return false;
    };
    let segs = &p.path.segments;
    let n = segs.len();
    n >= 2
        && segs[n - 1].ident == "new"
        && matches!(
            segs[n - 2].ident.to_string().as_str(),
            "Lazy" | "LazyLock" | "LazyCell"
        )
}

/// The string literal an owned string is made of (`"4096".into()`, `"8".to_string()`).
pub(crate) fn owned_str_lit(m: &syn::ExprMethodCall) -> Option<&syn::Expr> {
    let owned = m.args.is_empty()
        && matches!(
            m.method.to_string().as_str(),
            "into" | "to_string" | "to_owned"
        );
    match &*m.receiver {
        lit @ syn::Expr::Lit(l) if owned && matches!(l.lit, syn::Lit::Str(_)) => Some(lit),
        _ => None,
    }
}

pub(crate) fn carried(expr: &syn::Expr) -> &syn::Expr {
    let mut e = expr;
    while let Some(inner) = carried_once(e) {
        e = inner;
    }
    e
}

/// `expr` and each expression it carries in turn, down to the value [`carried`] gives.
fn carried_steps(expr: &syn::Expr) -> impl Iterator<Item = &syn::Expr> {
    std::iter::successors(Some(expr), |e| carried_once(e))
}

/// One step of [`carried`]: the expression `e` wraps, or `None` where `e` is the value.
fn carried_once(e: &syn::Expr) -> Option<&syn::Expr> {
    use syn::Expr;
    Some(match e {
        Expr::Paren(p) => &p.expr,
        Expr::Group(g) => &g.expr,
        Expr::Cast(c) => &c.expr,
        Expr::Reference(r) => &r.expr,
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
        // `Lazy::new(|| ..)`, `LazyLock::new(|| ..)`: a lazily built value is what its
        // closure gives.
        Expr::Call(c) if c.args.len() == 1 && lazy_new(&c.func) => match &c.args[0] {
            Expr::Closure(cl) if cl.inputs.is_empty() => &cl.body,
            _ => return None,
        },
        // `*CELL.get_or_init(|| ..)` (`OnceLock`, `OnceCell`), `opt.get_or_insert_with(|| ..)`:
        // a value computed once is what its closure gives, as `Lazy::new`'s is.
        Expr::MethodCall(m)
            if m.args.len() == 1
                && (m.method == "get_or_init" || m.method == "get_or_insert_with") =>
        {
            match &m.args[0] {
                Expr::Closure(cl) if cl.inputs.is_empty() => &cl.body,
                _ => return None,
            }
        }
        Expr::Call(c) if c.args.len() == 1 => match wrapper(&c.func) {
            Some(Wrapper::Value) => &c.args[0],
            // A cell that starts at a literal (`Arc::new(AtomicU32::new(512))`); one given a
            // constant is most often a state word's flag (`AtomicUsize::new(Self::CLOSED)`).
            Some(Wrapper::Cell) => match carried(&c.args[0]) {
                lit @ Expr::Lit(_) => return Some(lit),
                _ => return None,
            },
            None => return None,
        },
        Expr::MethodCall(m)
            if (m.method == "unwrap" && m.args.is_empty())
                || (m.method == "expect" && m.args.len() == 1) =>
        {
            &m.receiver
        }
        // `match NonZeroU32::new(8) { Some(v) => v, None => NonZeroU32::MIN }`: `unwrap` written
        // for a `const` (ironclaw's run caps), the value the `NonZero` holds.
        Expr::Match(m) if unwrapped_in_const(m) => &m.expr,
        // `NonZeroUsize::new(n).ok_or("thread_number")?` (undermoon's settings): the `?` and
        // the `Option` made a `Result` carry the value; the error is not it.
        Expr::Try(t) => &t.expr,
        Expr::MethodCall(m)
            if (m.method == "ok_or" || m.method == "ok_or_else") && m.args.len() == 1 =>
        {
            &m.receiver
        }
        Expr::MethodCall(m)
            if (m.method == "unwrap_or" || m.method == "or") && m.args.len() == 1 =>
        {
            &m.args[0]
        }
        Expr::MethodCall(m) if m.method == "map_or" && m.args.len() == 2 => &m.args[0],
        Expr::MethodCall(m)
            if ((m.method == "unwrap_or_else" || m.method == "or_else") && m.args.len() == 1)
                || (m.method == "map_or_else" && m.args.len() == 2) =>
        {
            match &m.args[0] {
                // `|| 8`, and `|_| 8` or `|_e| 8`: the error is dropped, the value is the
                // fallback's.
                Expr::Closure(c) if c.inputs.iter().all(ignored) => &c.body,
                _ => return None,
            }
        }
        // `"4096".into()`, `"8".to_string()`: a number written as a string (an argument to
        // a server's command line, an environment variable's fallback).
        Expr::MethodCall(m) if owned_str_lit(m).is_some() => &m.receiver,
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => inner,
            _ => return None,
        },
        // `unsafe { .. }`, and an inline const (`const { NonZeroUsize::new(512).unwrap() }`).
        Expr::Unsafe(syn::ExprUnsafe { block, .. }) | Expr::Const(syn::ExprConst { block, .. }) => {
            match block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, None)] => inner,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// A closure parameter whose value is dropped: `_`, `_e`.
fn ignored(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(i) => i.ident.to_string().starts_with('_'),
        syn::Pat::Type(t) => ignored(&t.pat),
        _ => false,
    }
}

/// The integer a string literal holds, when it holds exactly one (`"4096"`, `"1_000"`): a
/// number a program hands on as text (a command line's argument, a setting's default).
pub(crate) fn str_int(expr: &syn::Expr) -> Option<u64> {
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = carried(expr)
    else {
        return None;
    };
    let v = s.value().replace('_', "");
    let t = v.trim();
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse::<u64>().ok())
        .flatten()
}

/// The values of a `cfg_select!` (std's, and the `cfg_select` crate's), one per arm:
/// `cfg_select! { target_os = "ios" => { 32 } _ => { 100 } }` gives `32` and `100`. `None` for
/// any other macro, or arms it cannot read.
pub(crate) fn cfg_select_arms(e: &syn::Expr) -> Option<Vec<syn::Expr>> {
    use syn::parse::Parser;
    let syn::Expr::Macro(m) = e else { return None };
    if crate::syntax::last_segment(&m.mac.path).as_deref() != Some("cfg_select") {
        return None;
    }
    let arms = |input: syn::parse::ParseStream| -> syn::Result<Vec<syn::Expr>> {
        let mut out = Vec::new();
        while !input.is_empty() {
            // The predicate: any tokens up to the arm's `=>`.
            while !input.peek(syn::Token![=>]) {
                input.parse::<proc_macro2::TokenTree>()?;
            }
            input.parse::<syn::Token![=>]>()?;
            let value = if input.peek(syn::token::Brace) {
                let block: syn::Block = input.parse()?;
                match block.stmts.last() {
                    Some(syn::Stmt::Expr(e, None)) => Some(e.clone()),
                    _ => None,
                }
            } else {
                Some(input.parse::<syn::Expr>()?)
            };
            out.extend(value);
            if input.peek(syn::Token![,]) {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(out)
    };
    arms.parse2(m.mac.tokens.clone()).ok()
}

/// The integer literals that set an expression's value, each with its own expression: through
/// the wrappers [`carried`] sees through, every arm of a `match` and every branch of an `if`
/// (`match kind { A => 10_000, _ => 4096 }`), and the bounds put on it (`n.min(8)`,
/// `n.clamp(1, 4)`, `cmp::max(2, n)`). Arithmetic is not looked into: a product is a per-unit
/// cap, not a setting.
pub(crate) fn leaves(expr: &syn::Expr) -> Vec<&syn::Expr> {
    let mut out = Vec::new();
    leaves_into(expr, &mut out, 0);
    out
}

fn leaves_into<'a>(expr: &'a syn::Expr, out: &mut Vec<&'a syn::Expr>, depth: usize) {
    use syn::Expr;
    if depth > 16 {
        return;
    }
    // What `expr` carries, step by step: a CPU count's fallback on the way is a floor.
    let mut e = expr;
    for step in carried_steps(expr) {
        if let Some(fallback) = cpu_fallback(step) {
            return floor_into(fallback, out, depth + 1);
        }
        if let Some(body) = mapped(step) {
            leaves_into(body, out, depth + 1);
        }
        e = step;
    }
    if let Some(branches) = branches(e) {
        // `if n > 0 { n } else { 1 }`, `if n == 0 { 1 } else { n }`: the 1 only keeps the count
        // from being zero, a floor like `n.max(1)`.
        let zero_test = matches!(e, Expr::If(i) if tests_zero(&i.cond));
        for b in branches {
            if zero_test {
                floor_into(b, out, depth + 1);
            } else {
                leaves_into(b, out, depth + 1);
            }
        }
        return;
    }
    match e {
        // A bare float is a float place's value (`min_idle: 3.0`); one in a bound or a branch
        // (`cpus.clamp(1., 4.)`) bounds a count the code casts.
        Expr::Lit(_) if depth == 0 && is_float_lit(e) => {}
        Expr::Lit(_) if Val::of(e).is_lit() || str_int(e).is_some() => out.push(e),
        // `nonzero!(32_usize)`: a literal checked at compile time is one too.
        Expr::Macro(_) if Val::of(e).is_lit() => out.push(e),
        Expr::MethodCall(m) if m.method == "min" && m.args.len() == 1 => {
            leaves_into(&m.receiver, out, depth + 1);
            leaves_into(&m.args[0], out, depth + 1);
        }
        // A lower bound of 0 or 1 (`n.max(1)`, `clamp(1, 8)`) only keeps the value from being
        // zero; the upper bound is the capacity.
        Expr::MethodCall(m) if m.method == "max" && m.args.len() == 1 => {
            leaves_into(&m.receiver, out, depth + 1);
            floor_into(&m.args[0], out, depth + 1);
        }
        Expr::MethodCall(m) if m.method == "clamp" && m.args.len() == 2 => {
            leaves_into(&m.receiver, out, depth + 1);
            floor_into(&m.args[0], out, depth + 1);
            leaves_into(&m.args[1], out, depth + 1);
        }
        Expr::Call(c) if c.args.len() == 2 && matches!(Val::of(e), Val::Min(..)) => {
            for a in &c.args {
                leaves_into(a, out, depth + 1);
            }
        }
        // `cmp::max(n, 1)` is `n.max(1)`: either argument may be the floor.
        Expr::Call(c) if c.args.len() == 2 && matches!(Val::of(e), Val::Max(..)) => {
            for a in &c.args {
                floor_into(a, out, depth + 1);
            }
        }
        // `x.unwrap_or(8).clamp(..)` and such: the receiver of any other call is not the value.
        _ => {}
    }
}

/// The constants that set an expression's value, as [`leaves`] finds its literals (branches,
/// fallbacks, upper bounds), and the total a runtime count divides (`BUDGET / workers`: a
/// capacity split across units, the inverse of a per-unit cap). A constant lower bound is a
/// floor and is left out, except that `cmp::max(BUDGET / n, 1)` bounds its first argument (the
/// literal is the floor).
pub(crate) fn const_leaves(expr: &syn::Expr) -> Vec<&syn::ExprPath> {
    let mut out = Vec::new();
    const_leaves_into(expr, &mut out, 0);
    out
}

fn const_leaves_into<'a>(expr: &'a syn::Expr, out: &mut Vec<&'a syn::ExprPath>, depth: usize) {
    use syn::Expr;
    if depth > 16 {
        return;
    }
    let e = carried(expr);
    let go =
        |x: &'a syn::Expr, out: &mut Vec<&'a syn::ExprPath>| const_leaves_into(x, out, depth + 1);
    if let Some(branches) = branches(e) {
        branches.into_iter().for_each(|b| go(b, out));
        return;
    }
    match e {
        Expr::Path(p) if matches!(Val::of(e), Val::Const(_)) => out.push(p),
        Expr::MethodCall(m) if m.method == "min" && m.args.len() == 1 => {
            go(&m.receiver, out);
            go(&m.args[0], out);
        }
        Expr::MethodCall(m) if m.method == "max" && m.args.len() == 1 => go(&m.receiver, out),
        Expr::MethodCall(m) if m.method == "clamp" && m.args.len() == 2 => {
            go(&m.receiver, out);
            go(&m.args[1], out);
        }
        Expr::Call(c) if c.args.len() == 2 && matches!(Val::of(e), Val::Min(..)) => {
            c.args.iter().for_each(|a| go(a, out));
        }
        Expr::Call(c) if c.args.len() == 2 && matches!(Val::of(e), Val::Max(..)) => {
            match (Val::of(&c.args[0]).is_lit(), Val::of(&c.args[1]).is_lit()) {
                (false, true) => go(&c.args[0], out),
                (true, false) => go(&c.args[1], out),
                _ => {}
            }
        }
        Expr::Binary(b)
            if matches!(b.op, syn::BinOp::Div(_))
                && !matches!(Val::of(&b.right), Val::Lit(_) | Val::Const(_)) =>
        {
            go(&b.left, out)
        }
        _ => {}
    }
}

/// The local bindings that set an expression's value, as [`leaves`] finds its literals
/// (branches, fallbacks, upper bounds): `compute.unwrap_or(default_optimal)` is set by
/// `default_optimal`, `value.min(vram_maximum)` by both. A lower bound is a floor and is left out.
pub(crate) fn local_leaves(expr: &syn::Expr) -> Vec<String> {
    let mut out = Vec::new();
    local_leaves_into(expr, &mut out, 0);
    out
}

fn local_leaves_into(expr: &syn::Expr, out: &mut Vec<String>, depth: usize) {
    use syn::Expr;
    if depth > 16 {
        return;
    }
    let e = carried(expr);
    let mut go = |x: &syn::Expr| local_leaves_into(x, out, depth + 1);
    if let Some(branches) = branches(e) {
        branches.into_iter().for_each(go);
        return;
    }
    match e {
        Expr::Path(p) if p.qself.is_none() && !matches!(Val::of(e), Val::Const(_)) => {
            if let Some(id) = p.path.get_ident() {
                out.push(id.to_string());
            }
        }
        Expr::MethodCall(m) if m.method == "min" && m.args.len() == 1 => {
            go(&m.receiver);
            go(&m.args[0]);
        }
        Expr::MethodCall(m) if m.method == "max" && m.args.len() == 1 => go(&m.receiver),
        Expr::MethodCall(m) if m.method == "clamp" && m.args.len() == 2 => {
            go(&m.receiver);
            go(&m.args[1]);
        }
        Expr::Call(c) if c.args.len() == 2 && matches!(Val::of(e), Val::Min(..)) => {
            c.args.iter().for_each(go);
        }
        _ => {}
    }
}

/// The expressions whose value `e` takes, when it is a choice among them: every arm of a
/// `match`, the tails of an `if`'s branches, a block's tail.
fn branches(e: &syn::Expr) -> Option<Vec<&syn::Expr>> {
    fn tail(b: &syn::Block) -> Option<&syn::Expr> {
        match b.stmts.last() {
            Some(syn::Stmt::Expr(x, None)) => Some(x),
            _ => None,
        }
    }
    match e {
        syn::Expr::Match(m) => Some(m.arms.iter().map(|arm| &*arm.body).collect()),
        syn::Expr::If(i) => Some(
            tail(&i.then_branch)
                .into_iter()
                .chain(i.else_branch.as_ref().map(|(_, els)| &**els))
                .collect(),
        ),
        syn::Expr::Block(syn::ExprBlock { block, .. })
        | syn::Expr::Const(syn::ExprConst { block, .. }) => Some(tail(block).into_iter().collect()),
        _ => None,
    }
}

/// Whether a condition asks whether a count is zero (`n > 0`, `n == 0`, `0 < n`, `n >= 1`,
/// `n < 1`): its branches' 1 is a floor.
fn tests_zero(cond: &syn::Expr) -> bool {
    use syn::BinOp::{Eq, Ge, Gt, Le, Lt, Ne};
    let syn::Expr::Binary(b) = carried(cond) else {
        return false;
    };
    let (l, r) = (Val::of(&b.left).literal(), Val::of(&b.right).literal());
    match (l, r) {
        (None, Some(0)) => matches!(b.op, Gt(_) | Ne(_) | Eq(_) | Le(_)),
        (None, Some(1)) => matches!(b.op, Ge(_) | Lt(_)),
        (Some(0), None) => matches!(b.op, Lt(_) | Ne(_) | Eq(_) | Ge(_)),
        (Some(1), None) => matches!(b.op, Le(_) | Gt(_)),
        _ => false,
    }
}

/// A lower bound's literals, when they are more than a guard against zero.
fn floor_into<'a>(expr: &'a syn::Expr, out: &mut Vec<&'a syn::Expr>, depth: usize) {
    let mut found = Vec::new();
    leaves_into(expr, &mut found, depth);
    out.extend(
        found
            .into_iter()
            .filter(|e| Val::of(e).literal() >= Some(2)),
    );
}

/// Whether a `match` takes a `NonZero*` number out of its constructor's `Option`, as `unwrap`
/// does where a `const` cannot call it (`match NonZeroUsize::new(N) { Some(v) => v, None =>
/// panic!("..") }`, or `None => NonZeroUsize::MIN`: an arm a literal never reaches).
fn unwrapped_in_const(m: &syn::ExprMatch) -> bool {
    let syn::Expr::Call(c) = &*m.expr else {
        return false;
    };
    // The constructor `wrapper` knows carries its argument (`NonZeroU32::new`).
    if !matches!(wrapper(&c.func), Some(Wrapper::Value)) || m.arms.len() != 2 {
        return false;
    }
    // `Some(v) => v`: the arm gives back what the `Option` holds.
    let yields_binding = |arm: &syn::Arm| match &arm.pat {
        syn::Pat::TupleStruct(p)
            if p.elems.len() == 1 && p.path.segments.last().is_some_and(|s| s.ident == "Some") =>
        {
            matches!((p.elems.first(), &*arm.body),
                (Some(syn::Pat::Ident(id)), syn::Expr::Path(e)) if e.path.is_ident(&id.ident))
        }
        _ => false,
    };
    m.arms.iter().any(yields_binding)
}

/// What a one-argument call that wraps a value is.
enum Wrapper {
    /// `Some` or a `NonZero*` constructor: the value itself.
    Value,
    /// A shared cell's constructor (`Arc::new`, `AtomicU32::new`): the value it starts at.
    Cell,
}

fn wrapper(func: &syn::Expr) -> Option<Wrapper> {
    let syn::Expr::Path(p) = func else {
        return None;
    };
    match crate::syntax::path_idents(&p.path).as_slice() {
        [only] if only == "Some" => Some(Wrapper::Value),
        [.., ty, ctor]
            if ty.starts_with("NonZero") && (ctor == "new" || ctor == "new_unchecked") =>
        {
            Some(Wrapper::Value)
        }
        [.., ty, ctor] if is_cell(ty) && ctor == "new" => Some(Wrapper::Cell),
        // quinn's `VarInt::from_u32(3)`: the same number in another integer type.
        [.., _, ctor]
            if matches!(
                ctor.as_str(),
                "from_u8" | "from_u16" | "from_u32" | "from_u64" | "from_usize"
            ) =>
        {
            Some(Wrapper::Value)
        }
        _ => None,
    }
}

/// What a holder is made with (`RefCell::new(x)`, `Arc::new(x)`, `Mutex::new(x)`: `x`), whatever
/// `x` is; `None` for any other expression.
pub(crate) fn held_by_cell(e: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::Call(c) = e else { return None };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    match (crate::syntax::path_idents(&p.path).as_slice(), c.args.len()) {
        ([.., ty, ctor], 1) if is_cell(ty) && ctor == "new" => c.args.first(),
        _ => None,
    }
}

/// A type that holds one value to share or to change in place: `Arc`, `Rc`, `Box`, an atomic
/// integer, `Cell`, `RefCell`, `Mutex`, `RwLock` (std's, tokio's, parking_lot's alike). What it
/// is given is the value the holder starts with: `max_streams: Arc::new(AtomicU32::new(512))`
/// sets 512 streams as much as `max_streams: 512` does.
fn is_cell(ty: &str) -> bool {
    matches!(
        ty,
        "Arc" | "Rc" | "Box" | "Cell" | "RefCell" | "Mutex" | "RwLock"
    ) || ty.strip_prefix("Atomic").is_some_and(|rest| {
        matches!(
            rest,
            "U8" | "U16" | "U32" | "U64" | "Usize" | "I32" | "I64" | "Isize"
        )
    })
}

/// `SCREAMING_CASE` names are constants by Rust convention.
pub(crate) fn is_const_name(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_uppercase()) && !s.chars().any(|c| c.is_ascii_lowercase())
}

/// One side of a product or comparison: its value, the words of its names, its text.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Operand {
    pub(crate) val: Val,
    pub(crate) words: Vec<String>,
    pub(crate) text: String,
    pub(crate) loc: Loc,
}

impl Operand {
    pub(crate) fn new(expr: &syn::Expr, file: &str, src: &str) -> Operand {
        Operand {
            val: Val::of(expr),
            words: expr_words(expr),
            text: crate::syntax::snippet(src, expr),
            // A literal the expression carries (`cpus().unwrap_or(2)`, `NonZero::new(8)`) is
            // where its value is written: a finding of it points there, as every other finding
            // of that literal does.
            loc: match carried(expr) {
                lit @ syn::Expr::Lit(_) => crate::syntax::expr_loc(file, lit),
                _ => crate::syntax::expr_loc(file, expr),
            },
        }
    }
}

/// The words of every identifier in an expression (`backends.len()` -> `backends len`).
pub(crate) fn expr_words(expr: &syn::Expr) -> Vec<String> {
    struct Idents(Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Idents {
        fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
            self.0.extend(words(&i.to_string()));
        }
    }
    let mut v = Idents(Vec::new());
    syn::visit::Visit::visit_expr(&mut v, expr);
    v.0
}

/// A float literal's value when it is a whole number of 2 or more that fits a `u64` (`4.`,
/// `8.0`, `2f64`).
fn whole_float(f: &syn::LitFloat) -> Option<u64> {
    let v = f.base10_parse::<f64>().ok()?;
    (v.fract() == 0.0 && (2.0..=u64::MAX as f64).contains(&v)).then_some(v as u64)
}

/// Whether the expression is a float literal (through wrappers).
fn is_float_lit(expr: &syn::Expr) -> bool {
    matches!(carried(expr), syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)))
}

/// The closure body that bounds an optional value before its fallback is taken: `|n| n.clamp(1,
/// 16)` in `var.map(|n| n.clamp(1, 16)).unwrap_or(2)` and in `var.map_or(2, |n| n.min(16))`.
fn mapped(e: &syn::Expr) -> Option<&syn::Expr> {
    let (m, _) = fallback_call(e)?;
    let closure = if m.args.len() == 2 {
        &m.args[1]
    } else {
        match &*m.receiver {
            syn::Expr::MethodCall(r) if r.method == "map" && r.args.len() == 1 => &r.args[0],
            _ => return None,
        }
    };
    match closure {
        syn::Expr::Closure(c) if c.inputs.len() == 1 => Some(&c.body),
        _ => None,
    }
}

/// The methods that give a fallback when their receiver has no value (their first argument).
pub(crate) const FALLBACK_METHODS: &[&str] = &[
    "unwrap_or",
    "unwrap_or_else",
    "map_or",
    "map_or_else",
    // An option's fallback that stays an option: `kf.num_workers.or(Some(2))`.
    "or",
    "or_else",
];

/// A call of one of [`FALLBACK_METHODS`] with its arguments (one; two for `map_or*`), and the
/// fallback it gives: its first argument, a closure's body for the `*_else` forms.
pub(crate) fn fallback_call(e: &syn::Expr) -> Option<(&syn::ExprMethodCall, Option<&syn::Expr>)> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    let arity = if m.method == "map_or" || m.method == "map_or_else" {
        2
    } else {
        1
    };
    if m.args.len() != arity || !FALLBACK_METHODS.iter().any(|f| m.method == f) {
        return None;
    }
    let lazy = matches!(
        m.method.to_string().as_str(),
        "unwrap_or_else" | "map_or_else" | "or_else"
    );
    let fallback = match &m.args[0] {
        syn::Expr::Closure(c) if lazy => Some(&*c.body),
        _ if lazy => None,
        a => Some(a),
    };
    Some((m, fallback))
}

/// Whether an expression carries a CPU count whose fallback is a floor of one
/// (`available_parallelism().map(|n| n.get()).unwrap_or(1)`, through any wrapper
/// [`carried`] sees through): the 1 is what [`leaves`] drops, and no value it is set to.
pub(crate) fn cpu_floor_of_one(expr: &syn::Expr) -> bool {
    carried_steps(expr)
        .find_map(cpu_fallback)
        .is_some_and(|fallback| Val::of(fallback).literal().is_some_and(|n| n < 2))
}

/// The fallback of a CPU count (`available_parallelism().map_or(1, |n| n.get())`), the value
/// where the count could not be read: a floor, as the flow takes it.
fn cpu_fallback(expr: &syn::Expr) -> Option<&syn::Expr> {
    let (m, fallback) = fallback_call(expr)?;
    asks_cpus(&m.receiver).then_some(fallback).flatten()
}

/// The name a place is read by: a field's (`self.queue` -> `queue`), a path's last segment
/// (`MAXIMUM_QUEUED_BLOCKS`, `cfg::LIMIT` -> `LIMIT`).
pub(crate) fn place_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => Some(n.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether an identifier names the CPU count (`num_cpus`, `get_total_cpu_cores`,
/// `available_parallelism`): a word `cpu`, `cpus`, `cores` or `parallelism`.
pub(crate) fn is_cpu_word(ident: &str) -> bool {
    crate::index::names::words(ident)
        .iter()
        .any(|w| matches!(w.as_str(), "cpu" | "cpus" | "cores" | "parallelism"))
}

/// The number of CPUs, as code asks for it.
pub(crate) fn asks_cpus(mut e: &syn::Expr) -> bool {
    // `available_parallelism().map_or(1, ..) as f64` asks the same.
    while let syn::Expr::Cast(syn::ExprCast { expr, .. })
    | syn::Expr::Paren(syn::ExprParen { expr, .. }) = e
    {
        e = expr;
    }
    // `n.or_else(|| NonZeroUsize::new(num_cpus::get()))`: a setting whose fallback is the
    // CPU count asks it too, and a further fallback after it is the count's floor.
    if let Some((m, fallback)) = fallback_call(e) {
        if fallback.is_some_and(|f| asks_cpus(carried(f))) || asks_cpus(&m.receiver) {
            return true;
        }
    }
    let (root, _) = crate::syntax::chain(e);
    let syn::Expr::Call(c) = root else {
        return false;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return false;
    };
    let segs = crate::syntax::path_idents(&p.path);
    matches!(
        segs.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        [.., "available_parallelism"] | [.., "num_cpus", "get" | "get_physical"]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(src: &str) -> Val {
        Val::of(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn reduces_expressions_and_evaluates_them() {
        let consts: HashMap<String, u64> = [("PER_BACKEND".to_string(), 8)].into_iter().collect();
        let fields: HashMap<String, u64> = [("per_backend".to_string(), 8)].into_iter().collect();
        for (src, expect) in [
            ("16", Some(16)),
            ("2 * 8", Some(16)),
            ("(8usize as u32)", Some(8)),
            ("2 * PER_BACKEND", Some(16)),
            ("healthy * self.cfg.per_backend", None),
            ("self.cfg.per_backend", Some(8)),
            ("std::cmp::min(14, 160)", Some(14)),
            ("(1490818 / 100000).min(160)", Some(14)),
            ("Some(4)", Some(4)),
            ("(4. * 2.0) as usize", Some(8)),
            ("0.75 * 8", None),
            ("1.0 * 8", None),
        ] {
            assert_eq!(val(src).eval(&consts, &fields), expect, "{src}");
        }
        // A place given a bare float holds a float, no count.
        assert_eq!(
            Val::of_place(&syn::parse_str("3.0").unwrap()).literal(),
            None
        );
        assert_eq!(val("3.0").literal(), Some(3));
    }

    #[test]
    fn leaves_keep_upper_bounds_and_fallbacks_but_no_floor() {
        let lits = |src: &str| -> Vec<u64> {
            let e: syn::Expr = syn::parse_str(src).unwrap();
            leaves(&e)
                .into_iter()
                .filter_map(|l| Val::of(l).literal())
                .collect()
        };
        for (src, expect) in [
            ("n.clamp(1, 128)", vec![128]),
            ("n.unwrap_or(16).min(64)", vec![16, 64]),
            // A CPU count's fallback is a floor, also as another value's fallback.
            ("available_parallelism().map_or(1, |n| n.get())", vec![]),
            (
                "w.unwrap_or_else(|| available_parallelism().map_or(1, |n| n.get()))",
                vec![],
            ),
            ("num_cpus::get().max(4)", vec![4]),
            // A value computed once is what its closure gives.
            (
                "*CELL.get_or_init(|| var().unwrap_or(8).clamp(1, 32))",
                vec![8, 32],
            ),
            // A bound put on the value before its fallback is taken.
            ("var.map(|n| n.clamp(1, 16)).unwrap_or(2)", vec![16, 2]),
            ("var.map_or(2, |n| n.min(16))", vec![16, 2]),
            ("var.map(|n| n * 2).unwrap_or(4)", vec![4]),
        ] {
            assert_eq!(lits(src), expect, "{src}");
        }
    }
}
