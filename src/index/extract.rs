//! The extractor: one syn visitor per file that records capacity-relevant facts. It knows test
//! code from production code (`#[cfg(test)]`, `#[test]`, files under `tests/`), and re-parses
//! macro bodies, where assertions and fixture `vec![..]`s hide.

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, ItemFn};

use crate::index::facts::*;
use crate::index::tables::Tables;
use crate::index::value::{Operand, Val, is_const_name};
use crate::syntax::scope::Scope;
use crate::syntax::{
    FileRole, Loc, is_cfg_test, is_test_fn, loc_of, macro_args, path_ends_with, snippet,
};

/// Extract the facts of one parsed file.
pub fn extract(
    tables: &Tables,
    rel: &str,
    text: &str,
    ast: &syn::File,
    role: FileRole,
    crate_name: &str,
    module: &[String],
) -> FileFacts {
    let mut x = Extractor {
        tables,
        rel,
        text,
        scope: Scope::file(crate_name, module, role, ast),
        function: Vec::new(),
        locals: Vec::new(),
        facts: FileFacts {
            rel: rel.to_string(),
            lines: text.lines().count(),
            role,
            ..FileFacts::default()
        },
    };
    x.visit_file(ast);
    x.facts
}

struct Extractor<'a> {
    tables: &'a Tables,
    rel: &'a str,
    text: &'a str,
    scope: Scope,
    function: Vec<String>,
    facts: FileFacts,
    /// `let` bindings to an integer literal in the current function, in order, with the index of
    /// their `named_lits` entry once they are one.
    locals: Vec<LocalLit>,
}

struct LocalLit {
    name: String,
    value: u64,
    loc: Loc,
    named_lit: Option<usize>,
}

impl Extractor<'_> {
    fn in_test(&self) -> bool {
        self.scope.in_test()
    }

    fn site(&self, item: &str) -> String {
        self.scope.site(item)
    }

    fn function_site(&self) -> String {
        match self.function.last() {
            Some(f) => self.site(f),
            None => self.site("<item>"),
        }
    }

    fn loc<T: syn::spanned::Spanned>(&self, node: &T) -> Loc {
        loc_of(self.rel, node)
    }

    fn operand(&self, e: &Expr) -> Operand {
        Operand::new(e, self.rel, self.text)
    }

    fn with_test<F: FnOnce(&mut Self)>(&mut self, test: bool, f: F) {
        self.scope.push_test(test);
        f(self);
        self.scope.pop_test(test);
    }

    fn const_item(
        &mut self,
        vis: &syn::Visibility,
        ident: &syn::Ident,
        expr: &Expr,
        is_static: bool,
    ) {
        let val = Val::of(expr);
        if matches!(val, Val::Other) {
            return;
        }
        let visibility = match vis {
            syn::Visibility::Public(_) => Visibility::Public,
            syn::Visibility::Restricted(_) => Visibility::Crate,
            syn::Visibility::Inherited => Visibility::Private(self.scope.module()),
        };
        self.facts.consts.push(ConstDef {
            ident: ident.to_string(),
            site: self.site(&ident.to_string()),
            val,
            loc: crate::syntax::expr_loc(self.rel, expr),
            visibility,
            is_static,
            in_test: self.in_test(),
        });
    }

    /// The capacity API this call matches, with the argument that carries the capacity.
    fn api_of_call(&self, func: &Expr, n_args: usize) -> Option<(String, usize)> {
        let Expr::Path(p) = func else { return None };
        self.tables.apis.iter().find_map(|api| {
            let call = api.call.as_deref()?;
            (path_ends_with(&p.path, call) && api.arg < n_args).then(|| (call.to_string(), api.arg))
        })
    }

    fn api_of_method(&self, method: &syn::Ident, n_args: usize) -> Option<(String, usize)> {
        self.tables.apis.iter().find_map(|api| {
            let m = api.method.as_deref()?;
            (method == m && api.arg < n_args).then(|| (format!(".{m}()"), api.arg))
        })
    }

    fn named_let(&mut self, name: &str, value: u64, loc: Loc) {
        self.facts.named_lits.push(NamedLit {
            site: format!("{}::{name}", self.function_site()),
            ident: name.to_string(),
            value,
            loc,
            in_test: self.in_test(),
            is_fn: false,
            flows: Vec::new(),
        });
    }

    /// A local binding to a literal that reaches a capacity API (`let io_bandwidth = 64;` ..
    /// `.buffer_unordered(io_bandwidth)`) is a capacity whatever its name. One of 1 is not (see
    /// `index::capacities`).
    fn local_flow(&mut self, api: &str, arg: &Expr, at: Loc) {
        let Expr::Path(p) = crate::index::value::carried(arg) else {
            return;
        };
        let Some(ident) = p.path.get_ident().map(|i| i.to_string()) else {
            return;
        };
        let Some(at_local) = self.locals.iter().rposition(|l| l.name == ident) else {
            return;
        };
        let local = &self.locals[at_local];
        if local.value <= 1 && local.named_lit.is_none() {
            return;
        }
        let i = match local.named_lit {
            Some(i) => i,
            None => {
                let (value, loc) = (local.value, local.loc.clone());
                self.named_let(&ident, value, loc);
                let i = self.facts.named_lits.len() - 1;
                self.locals[at_local].named_lit = Some(i);
                i
            }
        };
        self.facts.named_lits[i].flows.push((api.to_string(), at));
    }

    fn api_arg(&mut self, api: String, arg: &Expr) {
        let operand = self.operand(arg);
        if operand.val == Val::Other {
            self.local_flow(&api, arg, operand.loc.clone());
        }
        if let Val::Const(ident) = &operand.val {
            // The constant's own location (not `N as usize`'s), so the plain reference recorded
            // at the same place is recognised as this one.
            let loc = match crate::index::value::carried(arg) {
                Expr::Path(p) => crate::syntax::path_loc(self.rel, &p.path),
                _ => operand.loc.clone(),
            };
            self.facts.const_refs.push(ConstRef {
                ident: ident.clone(),
                loc,
                in_test: self.in_test(),
                api: Some(api.clone()),
            });
        }
        self.facts.api_args.push(ApiArg {
            api,
            site: self.function_site(),
            arg: operand,
            in_test: self.in_test(),
        });
    }

    fn comparisons_in(&mut self, via: &str, e: &Expr) {
        match e {
            Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Lt(_) => "<",
                    syn::BinOp::Le(_) => "<=",
                    syn::BinOp::Gt(_) => ">",
                    syn::BinOp::Ge(_) => ">=",
                    syn::BinOp::Eq(_) => "==",
                    syn::BinOp::Ne(_) => "!=",
                    syn::BinOp::And(_) | syn::BinOp::Or(_) => {
                        self.comparisons_in(via, &b.left);
                        self.comparisons_in(via, &b.right);
                        return;
                    }
                    _ => return,
                };
                self.push_comparison(via, op, e, &b.left, &b.right);
            }
            Expr::Paren(p) => self.comparisons_in(via, &p.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                self.comparisons_in(via, &u.expr)
            }
            _ => {}
        }
    }

    fn push_comparison(&mut self, via: &str, op: &str, whole: &dyn ToSpanned, l: &Expr, r: &Expr) {
        // Only a literal compared with something that is not can pin a capacity.
        if Val::of(l).literal().is_some() == Val::of(r).literal().is_some() {
            return;
        }
        let (loc, text) = whole.loc_text(self.rel, self.text);
        self.facts.comparisons.push(Comparison {
            via: via.to_string(),
            op: op.to_string(),
            loc,
            text,
            left: self.operand(l),
            right: self.operand(r),
            function: self.function_site(),
        });
    }

    fn assertion(&mut self, name: &str, mac: &syn::Macro) {
        let Some(args) = macro_args(mac) else { return };
        if name.ends_with("_eq") || name.ends_with("_ne") {
            if let [l, r, ..] = args.as_slice() {
                let op = if name.ends_with("_eq") { "==" } else { "!=" };
                self.push_comparison(name, op, mac, l, r);
            }
        } else if let Some(first) = args.first() {
            self.comparisons_in(name, first);
        }
        for a in &args {
            self.visit_expr(a);
        }
    }

    fn ceiling_fn(&mut self, sig: &syn::Signature) {
        if !self.tables.ceiling_names.matches(&sig.ident.to_string()) {
            return;
        }
        let count = sig.inputs.iter().find_map(|arg| match arg {
            syn::FnArg::Typed(t) => match (&*t.pat, &*t.ty) {
                (syn::Pat::Ident(id), syn::Type::Path(ty))
                    if ty
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| is_int_type(&s.ident.to_string()))
                        && self.tables.count_words.matches(&id.ident.to_string()) =>
                {
                    Some(id.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        });
        if let Some(count_param) = count {
            self.facts.ceilings.push(CeilingFn {
                name: sig.ident.to_string(),
                site: self.site(&sig.ident.to_string()),
                loc: self.loc(&sig.ident),
                count_param,
                in_test: self.in_test(),
            });
        }
    }

    fn fn_body_literal(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let [syn::Stmt::Expr(e, None)] = block.stmts.as_slice() else {
            return;
        };
        if let Val::Lit(value) = Val::of(e) {
            let name = sig.ident.to_string();
            if self.tables.capacity_names.matches(&name) {
                self.facts.named_lits.push(NamedLit {
                    site: self.site(&name),
                    ident: name,
                    value,
                    loc: crate::syntax::expr_loc(self.rel, e),
                    in_test: self.in_test(),
                    is_fn: true,
                    flows: Vec::new(),
                });
            }
        }
    }

    fn function<F: FnOnce(&mut Self)>(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        body: F,
    ) {
        let test = is_test_fn(attrs) || is_cfg_test(attrs);
        self.ceiling_fn(sig);
        self.function.push(sig.ident.to_string());
        let outer = std::mem::take(&mut self.locals);
        self.with_test(test, body);
        self.locals = outer;
        self.function.pop();
    }
}

/// Formatting and logging macros: their arguments never define a capacity, so their bodies are
/// not re-parsed (they are most of a crate's macro calls).
const FORMAT_MACROS: &[&str] = &[
    "format",
    "format_args",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "log",
    "concat",
    "stringify",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "cfg",
];

fn is_int_type(s: &str) -> bool {
    matches!(
        s,
        "usize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "isize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
    )
}

/// Something with a span whose location and text a comparison records.
trait ToSpanned {
    fn loc_text(&self, rel: &str, src: &str) -> (Loc, String);
}

impl ToSpanned for Expr {
    fn loc_text(&self, rel: &str, src: &str) -> (Loc, String) {
        (loc_of(rel, self), snippet(src, self))
    }
}

impl ToSpanned for syn::Macro {
    fn loc_text(&self, rel: &str, src: &str) -> (Loc, String) {
        (loc_of(rel, self), snippet(src, self))
    }
}

impl<'ast> Visit<'ast> for Extractor<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_cfg_test(&m.attrs);
        if m.content.is_none() && (test || self.in_test()) {
            // `#[cfg(test)] mod tests;`: the module's own file is test code too.
            self.facts
                .test_modules
                .push(format!("{}::{}", self.scope.module(), m.ident));
        }
        let entered = self.scope.enter_mod(m);
        visit::visit_item_mod(self, m);
        self.scope.leave(entered);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let entered = self.scope.enter_impl(i);
        visit::visit_item_impl(self, i);
        self.scope.leave(entered);
    }

    fn visit_item_fn(&mut self, f: &'ast ItemFn) {
        self.function(&f.attrs, &f.sig, |x| {
            x.fn_body_literal(&f.sig, &f.block);
            visit::visit_item_fn(x, f);
        });
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        let test = is_cfg_test(&t.attrs);
        self.scope.push_type(t.ident.to_string());
        self.with_test(test, |x| visit::visit_item_trait(x, t));
        self.scope.pop_type();
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        // A default method is code like any other; a bare signature has nothing to record.
        if let Some(block) = &f.default {
            self.function(&f.attrs, &f.sig, |x| {
                x.fn_body_literal(&f.sig, block);
                visit::visit_trait_item_fn(x, f);
            });
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.attrs, &f.sig, |x| {
            x.fn_body_literal(&f.sig, &f.block);
            visit::visit_impl_item_fn(x, f);
        });
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let test = is_cfg_test(&c.attrs);
        self.with_test(test, |x| {
            x.const_item(&c.vis, &c.ident, &c.expr, false);
            visit::visit_item_const(x, c);
        });
    }

    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        self.const_item(&c.vis, &c.ident, &c.expr, false);
        visit::visit_impl_item_const(self, c);
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        let test = is_cfg_test(&s.attrs);
        self.with_test(test, |x| {
            x.const_item(&s.vis, &s.ident, &s.expr, true);
            visit::visit_item_static(x, s);
        });
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        let ident = match &l.pat {
            syn::Pat::Ident(id) => Some(&id.ident),
            syn::Pat::Type(t) => match &*t.pat {
                syn::Pat::Ident(id) => Some(&id.ident),
                _ => None,
            },
            _ => None,
        };
        if let (Some(ident), Some(init)) = (ident, &l.init) {
            let name = ident.to_string();
            if let Val::Lit(value) = Val::of(&init.expr) {
                let loc = crate::syntax::expr_loc(self.rel, &init.expr);
                let mut named_lit = None;
                if self.tables.capacity_names.matches(&name) {
                    named_lit = Some(self.facts.named_lits.len());
                    self.named_let(&name, value, loc.clone());
                }
                self.locals.push(LocalLit {
                    name,
                    value,
                    loc,
                    named_lit,
                });
            }
        }
        visit::visit_local(self, l);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        let named = s
            .path
            .segments
            .last()
            .map(|x| x.ident.to_string())
            .unwrap_or_default();
        let ty = match (named.as_str(), self.scope.self_ty()) {
            ("Self", Some(t)) => t.to_string(),
            _ => named,
        };
        for f in &s.fields {
            let syn::Member::Named(name) = &f.member else {
                continue;
            };
            let val = Val::of(&f.expr);
            if matches!(val, Val::Other) {
                continue;
            }
            self.facts.fields.push(FieldInit {
                type_name: ty.clone(),
                field: name.to_string(),
                site: self.scope.field_site(&ty, &name.to_string()),
                val,
                loc: crate::syntax::expr_loc(self.rel, &f.expr),
                in_test: self.in_test(),
                function: self.function_site(),
            });
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Some((api, arg)) = self.api_of_call(&c.func, c.args.len()) {
            self.api_arg(api, &c.args[arg]);
        }
        if self.in_test() {
            let via = match &*c.func {
                Expr::Path(p) => crate::syntax::last_segment(&p.path),
                _ => None,
            }
            .unwrap_or_else(|| "call".to_string());
            for a in &c.args {
                self.comparisons_in(&via, a);
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if let Some((api, arg)) = self.api_of_method(&m.method, m.args.len()) {
            self.api_arg(api, &m.args[arg]);
        }
        if self.in_test() {
            for a in &m.args {
                self.comparisons_in(&m.method.to_string(), a);
            }
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        // Only a product with a literal, constant or field on one side and something else on the
        // other can be a per-unit cap; the cheap reduction decides before spans are computed.
        let candidate = |v: &Val| matches!(v, Val::Lit(_) | Val::Const(_) | Val::Field(_));
        let (lv, rv) = (Val::of(&b.left), Val::of(&b.right));
        if matches!(b.op, syn::BinOp::Mul(_))
            && (candidate(&lv) || candidate(&rv))
            && !(lv.is_lit() && rv.is_lit())
        {
            let left = self.operand(&b.left);
            let right = self.operand(&b.right);
            {
                let loc = Loc::join(self.rel, b.left.span(), b.right.span());
                let text = self
                    .text
                    .get(b.left.span().byte_range().start..b.right.span().byte_range().end)
                    .map_or_else(|| format!("{} * {}", left.text, right.text), str::to_string);
                self.facts.products.push(Product {
                    site: self.function_site(),
                    function: self.function.last().cloned().unwrap_or_default(),
                    loc,
                    text,
                    left,
                    right,
                    in_test: self.in_test(),
                });
            }
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(last) = p.path.segments.last() {
            let id = last.ident.to_string();
            if is_const_name(&id) && p.path.segments.len() <= 4 {
                self.facts.const_refs.push(ConstRef {
                    ident: id,
                    loc: crate::syntax::path_loc(self.rel, &p.path),
                    in_test: self.in_test(),
                    api: None,
                });
            }
        }
        visit::visit_expr_path(self, p);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = crate::syntax::last_segment(&mac.path).unwrap_or_default();
        if FORMAT_MACROS.contains(&name.as_str()) {
            return;
        }
        if self.in_test() && self.tables.assert_macros.contains(&name) {
            self.assertion(&name, mac);
            return;
        }
        if let Some(args) = macro_args(mac) {
            for a in &args {
                self.visit_expr(a);
            }
        } else if let Ok(items) = mac.parse_body::<syn::File>() {
            // Items wrapped in a macro (`cfg_rt! { pub struct Builder { .. } }`, `cfg_if!`) are
            // code like any other.
            for item in &items.items {
                self.visit_item(item);
            }
        }
    }
}
