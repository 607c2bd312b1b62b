//! `swap-min-max`: every way Rust selects the smallest or the largest, turned the other way.
//! "Take the narrowest box" and "take the widest box" must not pass the same tests.
//!
//! Forms: `.min(x)` <-> `.max(x)`, `Iterator::min()` <-> `max()` and the `_by_key`/`_by`
//! variants, `cmp::min(a, b)` <-> `cmp::max(a, b)` (a bare `min(a, b)` imported from `cmp` is
//! written back by its full path, `std::cmp::max`, so the mutant compiles), `f64::min` and kin,
//! swapped `clamp` bounds, selection by comparison (`if a < b { a } else { b }` with `<`, `<=`,
//! `>`, `>=`, when the branches are the compared values or what they were read from), a reversed
//! comparator (`a.cmp(&b)` -> `b.cmp(&a)`, also `partial_cmp` and `total_cmp`), `Reverse(..)`
//! removed, `sort_by_key(|x| k)` -> `sort_by_key(|x| std::cmp::Reverse(k))`, and after a sort
//! `v.first()` <-> `v.last()`, `v[0]` -> `v[v.len() - 1]`.

use std::collections::BTreeSet;

use syn::Expr;

use super::{FnCx, Pending, exprs, range};
use crate::catalog::Operator;
use crate::operators::mutant::Draft;

const ID: Operator = Operator::SwapMinMax;

fn swapped(name: &str) -> Option<&'static str> {
    Some(match name {
        "min" => "max",
        "max" => "min",
        "min_by_key" => "max_by_key",
        "max_by_key" => "min_by_key",
        "min_by" => "max_by",
        "max_by" => "min_by",
        _ => return None,
    })
}

const SORTS: &[&str] = &[
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "sort_unstable_by_key",
    "sort_by_cached_key",
];

pub(crate) fn drafts(cx: &FnCx) -> Vec<Pending> {
    let f = cx.f;
    let all = exprs(f.block);
    let sorted = sorted_receivers(cx, &all);
    let mut out = Vec::new();
    let mut push = |range: std::ops::Range<usize>, replacement: String, description: String| {
        out.push(Pending::always(Draft {
            operator: ID,
            function: f.site.clone(),
            range,
            replacement,
            description,
            guard: false,
        }))
    };
    for e in all {
        let whole = range(e);
        match e {
            Expr::MethodCall(m) if m.method == "clamp" && m.args.len() == 2 => {
                let (a, b) = (range(&m.args[0]), range(&m.args[1]));
                let replacement = format!(
                    "{}{}{}{}{}",
                    cx.text_of(&(whole.start..a.start)),
                    cx.text_of(&b),
                    cx.text_of(&(a.end..b.start)),
                    cx.text_of(&a),
                    cx.text_of(&(b.end..whole.end)),
                );
                push(whole, replacement, "swap the bounds of `clamp`".into());
            }
            Expr::MethodCall(m)
                if ["cmp", "partial_cmp", "total_cmp"].contains(&m.method.to_string().as_str())
                    && m.args.len() == 1 =>
            {
                // `a.cmp(&b)` -> `b.cmp(&a)`; `a.partial_cmp(b)` (references) -> `b.partial_cmp(a)`.
                let recv = cx.text_of(&range(&*m.receiver));
                let replacement = match &m.args[0] {
                    Expr::Reference(r) if r.mutability.is_none() => {
                        format!("{}.{}(&{recv})", cx.text_of(&range(&*r.expr)), m.method)
                    }
                    other => format!("{}.{}({recv})", cx.text_of(&range(other)), m.method),
                };
                push(
                    whole,
                    replacement,
                    format!("reverse the comparator: `{}` the other way round", m.method),
                );
            }
            Expr::MethodCall(m)
                if (m.method == "first" || m.method == "last")
                    && m.args.is_empty()
                    && sorted.contains(cx.text_of(&range(&*m.receiver))) =>
            {
                let other = if m.method == "first" { "last" } else { "first" };
                let name = range(&m.method);
                let replacement = format!(
                    "{}{other}{}",
                    cx.text_of(&(whole.start..name.start)),
                    cx.text_of(&(name.end..whole.end)),
                );
                push(
                    whole,
                    replacement,
                    format!("`{}()` -> `{other}()` of the sorted items", m.method),
                );
            }
            Expr::MethodCall(m)
                if ["sort_by_key", "sort_unstable_by_key"]
                    .contains(&m.method.to_string().as_str())
                    && m.args.len() == 1 =>
            {
                if let Expr::Closure(c) = &m.args[0] {
                    if !is_reverse(&c.body) {
                        let body = range(&*c.body);
                        let replacement = format!(
                            "{}std::cmp::Reverse({}){}",
                            cx.text_of(&(whole.start..body.start)),
                            cx.text_of(&body),
                            cx.text_of(&(body.end..whole.end)),
                        );
                        push(
                            whole,
                            replacement,
                            "sort the other way: wrap the key in `Reverse`".into(),
                        );
                    }
                }
            }
            Expr::MethodCall(m) if m.args.len() <= 1 => {
                if let Some(other) = swapped(&m.method.to_string()) {
                    let name = range(&m.method);
                    let replacement = format!(
                        "{}{other}{}",
                        cx.text_of(&(whole.start..name.start)),
                        cx.text_of(&(name.end..whole.end)),
                    );
                    push(whole, replacement, describe(&m.method.to_string(), other));
                }
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { continue };
                let Some(seg) = p.path.segments.last() else {
                    continue;
                };
                let name = seg.ident.to_string();
                if name == "Reverse" && c.args.len() == 1 {
                    let inner = cx.text_of(&range(&c.args[0])).to_string();
                    push(whole, inner, "remove `Reverse`: order the other way".into());
                    continue;
                }
                let (Some(other), 2) = (swapped(&name), c.args.len()) else {
                    continue;
                };
                let args = range(&c.args);
                let args_text = cx.text_of(&(args.start..whole.end));
                let replacement = if p.path.segments.len() == 1 {
                    // A bare `min(a, b)` is only `cmp::min` when imported from there; it is
                    // written back by its full path, which is in scope everywhere.
                    match cx.imports.get(&name).map(|p| p.as_slice()) {
                        Some([root, .., m, _])
                            if m == "cmp" && (root == "std" || root == "core") =>
                        {
                            let open = cx.text_of(&(range(&*c.func).end..args.start));
                            format!("{root}::cmp::{other}{open}{args_text}")
                        }
                        _ => continue,
                    }
                } else {
                    let name_range = range(&seg.ident);
                    format!(
                        "{}{other}{}",
                        cx.text_of(&(whole.start..name_range.start)),
                        cx.text_of(&(name_range.end..whole.end)),
                    )
                };
                push(whole, replacement, describe(&name, other));
            }
            Expr::If(i) => {
                if let Some((replacement, op, new)) = flipped_selection(cx, i) {
                    push(
                        whole,
                        replacement,
                        format!("select by `{new}` instead of `{op}`: take the other one"),
                    );
                }
            }
            Expr::Index(ix) => {
                let base = cx.text_of(&range(&*ix.expr)).to_string();
                let first = matches!(&*ix.index, Expr::Lit(l) if matches!(&l.lit, syn::Lit::Int(i) if i.base10_digits() == "0"));
                if first && sorted.contains(base.as_str()) {
                    push(
                        whole,
                        format!("{base}[{base}.len() - 1]"),
                        "`[0]` -> the last of the sorted items".into(),
                    );
                }
            }
            _ => {}
        }
    }
    out
}

fn describe(name: &str, other: &str) -> String {
    let (from, to) = if name.starts_with("min") {
        ("smallest", "largest")
    } else {
        ("largest", "smallest")
    };
    format!("`{name}` -> `{other}`: take the {to} instead of the {from}")
}

/// A value named, not computed: `a`, `a.field`, `&a`.
fn is_plain(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none(),
        Expr::Field(f) => is_plain(&f.base),
        Expr::Reference(r) => is_plain(&r.expr),
        _ => false,
    }
}

fn is_reverse(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Reverse")))
}

/// The receivers the function sorts in place (`boxes.sort_by_key(..)` -> `boxes`).
fn sorted_receivers<'a>(cx: &'a FnCx, all: &[&Expr]) -> BTreeSet<&'a str> {
    all.iter()
        .filter_map(|e| match e {
            Expr::MethodCall(m) if SORTS.contains(&m.method.to_string().as_str()) => {
                Some(cx.text_of(&range(&*m.receiver)))
            }
            _ => None,
        })
        .collect()
}

/// `if a < b { a } else { b }` (or `if a.load <= b.load { a } else { b }`): the same `if` with
/// the comparison turned around, when its branches are the compared values or what they were
/// read from, or two plain values it chooses between.
fn flipped_selection(cx: &FnCx, i: &syn::ExprIf) -> Option<(String, &'static str, &'static str)> {
    let Expr::Binary(b) = &*i.cond else {
        return None;
    };
    let (op, new) = match b.op {
        syn::BinOp::Lt(_) => ("<", ">"),
        syn::BinOp::Le(_) => ("<=", ">="),
        syn::BinOp::Gt(_) => (">", "<"),
        syn::BinOp::Ge(_) => (">=", "<="),
        _ => return None,
    };
    let tail = |blk: &syn::Block| match blk.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(cx.text_of(&range(e)).trim().to_string()),
        _ => None,
    };
    let then = tail(&i.then_branch)?;
    let els = match i.else_branch.as_ref().map(|(_, e)| &**e)? {
        Expr::Block(blk) => tail(&blk.block)?,
        _ => return None,
    };
    let names = |e: &Expr| {
        let mut out = vec![cx.text_of(&range(e)).trim().to_string()];
        let (root, _) = crate::syntax::chain(e);
        let mut root = root;
        while let Expr::Field(f) = root {
            root = &f.base;
        }
        out.push(cx.text_of(&range(root)).trim().to_string());
        out
    };
    let (l, r) = (names(&b.left), names(&b.right));
    let selects =
        (l.contains(&then) && r.contains(&els)) || (r.contains(&then) && l.contains(&els));
    // Or a choice between two plain values decided by the comparison (tower's p2c balancer:
    // `if aload <= bload { aidx } else { bidx }`).
    let plain = |blk: &syn::Block| matches!(blk.stmts.as_slice(), [syn::Stmt::Expr(e, None)] if is_plain(e));
    let chooses = plain(&i.then_branch)
        && matches!(i.else_branch.as_ref().map(|(_, e)| &**e), Some(Expr::Block(blk)) if plain(&blk.block));
    if !(selects || chooses) || then == els {
        return None;
    }
    let whole = range(i);
    let (lr, rr) = (range(&*b.left), range(&*b.right));
    let between = cx.text_of(&(lr.end..rr.start));
    let at = lr.end + between.find(op)?;
    Some((
        format!(
            "{}{new}{}",
            cx.text_of(&(whole.start..at)),
            cx.text_of(&(at + op.len()..whole.end)),
        ),
        op,
        new,
    ))
}
