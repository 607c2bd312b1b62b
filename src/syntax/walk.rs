//! The one syntax walk. Every analysis of a parsed file (the index's facts, the fixture
//! collector, the code model, the mutation operators) is a [`Collector`] fed by this walk, so
//! scope, test depth, impl/trait entry, item-macro expansion and macro-argument re-parsing have
//! one owner and every analysis sees the same code the same way.
//!
//! The walk visits every item and expression once, outer before inner. A macro's body is parsed
//! once (as a comma-separated expression list, else as items, a `select!`'s arms or statements)
//! and its contents are walked like any other code; formatting and logging macros (`format!`,
//! `debug!`, ...) are parsed only when a collector asks for them (`Walk::format_macros`), and
//! are marked so that collectors which ignore them can.

use syn::visit::{self, Visit};
use syn::{Expr, Macro};

use crate::syntax::scope::Scope;
use crate::syntax::{is_cfg_test, is_test_fn, last_segment, macro_args};

/// Formatting and logging macros: their arguments never define a capacity.
pub(crate) const FORMAT_MACROS: &[&str] = &[
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

/// A function with a body, as the walk enters it.
pub(crate) struct FnItem<'a> {
    pub(crate) attrs: &'a [syn::Attribute],
    pub(crate) sig: &'a syn::Signature,
    pub(crate) block: &'a syn::Block,
    /// `crate::module::Type::name` (the trait for a default method).
    pub(crate) site: String,
    /// Its visibility as written (`None`: a trait's default method, public with its trait).
    pub(crate) vis: Option<&'a syn::Visibility>,
}

/// A `const` or `static` item (or an associated `const` of an impl).
pub(crate) struct ConstItem<'a> {
    pub(crate) vis: &'a syn::Visibility,
    pub(crate) ident: &'a syn::Ident,
    pub(crate) expr: &'a Expr,
    /// The declared type (`u32`, `Duration`).
    pub(crate) ty: &'a syn::Type,
    pub(crate) is_static: bool,
    /// An associated constant of an impl block.
    pub(crate) in_impl: bool,
}

/// Where the walk stands, as collectors see it.
pub(crate) struct View<'a> {
    pub(crate) rel: &'a str,
    /// The text the tree was parsed from: byte ranges of spans index it.
    pub(crate) text: &'a str,
    pub(crate) scope: Scope,
    /// The enclosing functions, outermost first: `(name, site)`.
    pub(crate) fns: Vec<(String, String)>,
    /// Greater than zero inside a formatting or logging macro.
    pub(crate) format_depth: usize,
    /// Greater than zero inside any macro's re-parsed body.
    pub(crate) macro_depth: usize,
}

impl View<'_> {
    pub(crate) fn in_test(&self) -> bool {
        self.scope.in_test()
    }

    /// Inside a formatting or logging macro (whose arguments define nothing).
    pub(crate) fn in_format(&self) -> bool {
        self.format_depth > 0
    }

    /// The innermost enclosing function's name.
    pub(crate) fn function(&self) -> Option<&str> {
        self.fns.last().map(|(n, _)| n.as_str())
    }

    /// The innermost enclosing function's site, or `crate::module::<item>` outside functions.
    pub(crate) fn function_site(&self) -> String {
        match self.fns.last() {
            Some((_, site)) => site.clone(),
            None => self.scope.site("<item>"),
        }
    }
}

/// What an analysis does at each point of the walk. Every hook has an empty default; hooks
/// get the syntax node for the duration of the call (macro bodies are temporaries), so a
/// collector keeps plain data, never references into the tree.
#[allow(unused_variables)]
pub(crate) trait Collector {
    /// Once, before anything else, with the whole file.
    fn file(&mut self, v: &View, file: &syn::File) {}
    /// Every item (also those inside item macros), before its contents.
    fn item(&mut self, v: &View, item: &syn::Item) {}
    /// A function with a body, after its test-ness has been entered, before its body.
    fn enter_fn(&mut self, v: &View, f: &FnItem) {}
    fn leave_fn(&mut self, v: &View, f: &FnItem) {}
    fn enter_const(&mut self, v: &View, c: &ConstItem) {}
    fn leave_const(&mut self, v: &View, c: &ConstItem) {}
    fn local(&mut self, v: &View, l: &syn::Local) {}
    /// Every expression, outer before inner.
    fn expr(&mut self, v: &View, e: &Expr) {}
    /// Every path expression, also those written as patterns (`MAX => ..`).
    fn path(&mut self, v: &View, p: &syn::ExprPath) {}
    /// Every macro call, with its body parsed as expressions when it is a list of them (`None`
    /// for a formatting macro nobody asked for, or a body of another grammar).
    fn macro_call(&mut self, v: &View, mac: &Macro, name: &str, args: Option<&[Expr]>) {}
}

/// How to walk.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Walk {
    /// Parse and walk the bodies of formatting and logging macros too.
    pub(crate) format_macros: bool,
}

/// What the walk itself learns about a file.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// Out-of-line modules declared in test code (`#[cfg(test)] mod tests;`), as
    /// `crate::module::name`: their files are test code.
    pub(crate) test_modules: Vec<String>,
}

impl Walk {
    /// Walk `file` (parsed from `text`, at `rel`) from `scope`, feeding every collector.
    pub(crate) fn run(
        self,
        rel: &str,
        text: &str,
        scope: Scope,
        file: &syn::File,
        collectors: &mut [&mut dyn Collector],
    ) -> Walked {
        let mut w = Walker {
            opts: self,
            view: View {
                rel,
                text,
                scope,
                fns: Vec::new(),
                format_depth: 0,
                macro_depth: 0,
            },
            collectors,
            out: Walked::default(),
        };
        for c in w.collectors.iter_mut() {
            c.file(&w.view, file);
        }
        w.visit_file(file);
        w.out
    }
}

struct Walker<'v, 'c, 'd> {
    opts: Walk,
    view: View<'v>,
    collectors: &'c mut [&'d mut dyn Collector],
    out: Walked,
}

impl Walker<'_, '_, '_> {
    fn each(&mut self, mut f: impl FnMut(&mut dyn Collector, &View)) {
        for c in self.collectors.iter_mut() {
            f(&mut **c, &self.view);
        }
    }

    fn function(&mut self, f: FnItem, body: impl FnOnce(&mut Self)) {
        // A function named for tests (`new_for_test`, `mock_pool`) is their set-up, wherever it
        // is declared, as a constant so named is; not a trait's method, whose name is the
        // trait's (a connector's `fn test_profile`, the "test connection" of a UI).
        let name = f.sig.ident.to_string();
        let test = is_test_fn(f.attrs)
            || is_cfg_test(f.attrs)
            || (crate::syntax::names_test_value(&name) && !self.view.scope.in_trait());
        self.view.scope.push_test(test);
        self.view.fns.push((name, f.site.clone()));
        self.each(|c, v| c.enter_fn(v, &f));
        body(self);
        self.each(|c, v| c.leave_fn(v, &f));
        self.view.fns.pop();
        self.view.scope.pop_test(test);
    }

    fn fn_item<'a>(
        &self,
        attrs: &'a [syn::Attribute],
        sig: &'a syn::Signature,
        block: &'a syn::Block,
        vis: Option<&'a syn::Visibility>,
    ) -> FnItem<'a> {
        FnItem {
            attrs,
            sig,
            block,
            site: self.view.scope.site(&sig.ident.to_string()),
            vis,
        }
    }

    fn constant(&mut self, attrs: &[syn::Attribute], c: ConstItem, body: impl FnOnce(&mut Self)) {
        // A constant named for tests (`TEST_PAGE_CACHE_SIZE`, `MOCK_WORKERS`) is their set-up,
        // wherever it is declared.
        let test = is_cfg_test(attrs) || crate::syntax::names_test_value(&c.ident.to_string());
        self.view.scope.push_test(test);
        self.each(|col, v| col.enter_const(v, &c));
        body(self);
        self.each(|col, v| col.leave_const(v, &c));
        self.view.scope.pop_test(test);
    }
}

impl<'ast> Visit<'ast> for Walker<'_, '_, '_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        self.each(|c, v| c.item(v, i));
        visit::visit_item(self, i);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_none() && (is_cfg_test(&m.attrs) || self.view.in_test()) {
            self.out.test_modules.push(crate::site::child(
                &self.view.scope.module(),
                &m.ident.to_string(),
            ));
            // `#[cfg(test)] #[path = "native_tests.rs"] mod native_tests;`: the file is named by
            // its path (relative to the declaring file's folder), not by the module's.
            if let Some(file) = path_attr(&m.attrs) {
                let dir = std::path::Path::new(self.view.rel)
                    .parent()
                    .unwrap_or(std::path::Path::new(""));
                self.out
                    .test_modules
                    .push(format!("{TEST_FILE}{}", normalize(&dir.join(file))));
            }
        }
        let entered = self.view.scope.enter_mod(m);
        visit::visit_item_mod(self, m);
        self.view.scope.leave(entered);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let entered = self.view.scope.enter_impl(i);
        // An impl of a trait named for tests (`impl TestDefault for Config`) is their set-up.
        let for_tests = i.trait_.as_ref().is_some_and(|(_, path, _)| {
            last_segment(path).is_some_and(|t| crate::syntax::names_test_type(&t))
        });
        self.view.scope.push_test(for_tests);
        visit::visit_item_impl(self, i);
        self.view.scope.pop_test(for_tests);
        self.view.scope.leave(entered);
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        let entered = self.view.scope.enter_trait(t);
        visit::visit_item_trait(self, t);
        self.view.scope.leave(entered);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let item = self.fn_item(&f.attrs, &f.sig, &f.block, Some(&f.vis));
        self.function(item, |w| visit::visit_item_fn(w, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let item = self.fn_item(&f.attrs, &f.sig, &f.block, Some(&f.vis));
        self.function(item, |w| visit::visit_impl_item_fn(w, f));
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        // A default method is code like any other; a bare signature has nothing to walk.
        if let Some(block) = &f.default {
            let item = self.fn_item(&f.attrs, &f.sig, block, None);
            self.function(item, |w| visit::visit_trait_item_fn(w, f));
        }
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let item = ConstItem {
            vis: &c.vis,
            ident: &c.ident,
            expr: &c.expr,
            ty: &c.ty,
            is_static: false,
            in_impl: false,
        };
        self.constant(&c.attrs, item, |w| visit::visit_item_const(w, c));
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        let item = ConstItem {
            vis: &s.vis,
            ident: &s.ident,
            expr: &s.expr,
            ty: &s.ty,
            is_static: true,
            in_impl: false,
        };
        self.constant(&s.attrs, item, |w| visit::visit_item_static(w, s));
    }

    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        let item = ConstItem {
            vis: &c.vis,
            ident: &c.ident,
            expr: &c.expr,
            ty: &c.ty,
            is_static: false,
            in_impl: true,
        };
        self.constant(&[], item, |w| visit::visit_impl_item_const(w, c));
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        // `#[cfg(loom)] let workers = 2;`: a binding only a testing build makes.
        let test = is_cfg_test(&l.attrs);
        self.view.scope.push_test(test);
        self.each(|c, v| c.local(v, l));
        visit::visit_local(self, l);
        self.view.scope.pop_test(test);
    }

    fn visit_field_value(&mut self, f: &'ast syn::FieldValue) {
        // `#[cfg(loom)] queue: Queue::with_capacity(4)`: a field only a testing build sets.
        let test = is_cfg_test(&f.attrs);
        self.view.scope.push_test(test);
        visit::visit_field_value(self, f);
        self.view.scope.pop_test(test);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        self.each(|c, v| c.expr(v, e));
        visit::visit_expr(self, e);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        self.each(|c, v| c.path(v, p));
        visit::visit_expr_path(self, p);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        let name = last_segment(&mac.path).unwrap_or_default();
        let format = FORMAT_MACROS.contains(&name.as_str());
        if format && !self.opts.format_macros {
            self.each(|c, v| c.macro_call(v, mac, &name, None));
            return;
        }
        let args = macro_args(mac);
        self.each(|c, v| c.macro_call(v, mac, &name, args.as_deref()));
        self.view.format_depth += usize::from(format);
        self.view.macro_depth += 1;
        if let Some(args) = &args {
            for a in args {
                self.visit_expr(a);
            }
        } else if let Some(items) = macro_items(mac) {
            // Items wrapped in a macro (`cfg_rt! { pub(crate) struct Builder { .. } }`, `cfg_if!`) are
            // code like any other.
            for item in &items.items {
                self.visit_item(item);
            }
        } else if let Some(exprs) = select_arms(mac, &name) {
            // `tokio::select! { n = rx.recv_many(&mut buf, 1000) => { .. } }`: each arm's future,
            // precondition and handler is code like any other.
            for e in &exprs {
                self.visit_expr(e);
            }
        } else if let Some(stmts) = macro_stmts(mac) {
            // A body of statements (`stream! { let (tx, rx) = mpsc::channel(32); .. }`) is code
            // like any other.
            for stmt in &stmts {
                self.visit_stmt(stmt);
            }
        } else if let Some(body) = wrapped_body(mac) {
            // A scope macro's body (`log::scope!(agent: a, channel: "acp", => async move { .. })`)
            // is code like any other.
            self.visit_expr(&body);
        }
        self.view.macro_depth -= 1;
        self.view.format_depth -= usize::from(format);
    }
}

/// The expressions of a `select!` body (tokio's and futures', `select_biased!`): each arm's
/// future, its `if` precondition and its handler, in order (`biased;`, `else =>`, futures'
/// `complete =>` and `default =>` are read past), and crossbeam's (`recv(rx) -> msg => ..`:
/// the operation's arguments). `None` for another macro or a body of another grammar.
fn select_arms(mac: &Macro, name: &str) -> Option<Vec<Expr>> {
    use syn::parse::{Parse, ParseStream, Parser};
    if !matches!(name, "select" | "select_biased") {
        return None;
    }
    let arms = |input: ParseStream| -> syn::Result<Vec<Expr>> {
        let mut out = Vec::new();
        if input.peek(syn::Ident) && input.peek2(syn::Token![;]) {
            input.parse::<syn::Ident>()?;
            input.parse::<syn::Token![;]>()?;
        }
        while !input.is_empty() {
            if input.peek(syn::Token![else]) {
                input.parse::<syn::Token![else]>()?;
            } else if input.peek(syn::Ident) && input.peek2(syn::Token![=>]) {
                input.parse::<syn::Ident>()?;
            } else if crossbeam_op(input) {
                // crossbeam's `recv(rx) -> msg =>`, `send(tx, v) -> res =>`, `default(t) =>`.
                input.parse::<syn::Ident>()?;
                let args;
                syn::parenthesized!(args in input);
                out.extend(args.parse_terminated(Expr::parse, syn::Token![,])?);
                if input.peek(syn::Token![->]) {
                    input.parse::<syn::Token![->]>()?;
                    syn::Pat::parse_single(input)?;
                }
            } else {
                syn::Pat::parse_multi_with_leading_vert(input)?;
                input.parse::<syn::Token![=]>()?;
                out.push(input.parse::<Expr>()?);
                if input.peek(syn::Token![,]) && input.peek2(syn::Token![if]) {
                    input.parse::<syn::Token![,]>()?;
                    input.parse::<syn::Token![if]>()?;
                    out.push(input.parse::<Expr>()?);
                }
            }
            input.parse::<syn::Token![=>]>()?;
            // A braced handler ends at its brace, as a match arm's does: `{ .. } (a, b) = f =>`
            // is no call of the block.
            if input.peek(syn::token::Brace) {
                let block: syn::Block = input.parse()?;
                out.push(Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block,
                }));
            } else {
                out.push(input.parse::<Expr>()?);
            }
            if input.peek(syn::Token![,]) {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(out)
    };
    arms.parse2(without_for_await(mac.tokens.clone())).ok()
}

/// The body a macro wraps after its settings: what follows its one top-level `=>`
/// (`scope!(key: value, .. => async move { .. })`), when that is an expression. `None` for a
/// body with no `=>` or several (a `match`-like grammar).
fn wrapped_body(mac: &Macro) -> Option<Expr> {
    use proc_macro2::{Spacing, TokenTree};
    let toks: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
    let arrows: Vec<usize> = toks
        .windows(2)
        .enumerate()
        .filter(|(_, w)| {
            matches!((&w[0], &w[1]), (TokenTree::Punct(a), TokenTree::Punct(b))
                if a.as_char() == '=' && a.spacing() == Spacing::Joint && b.as_char() == '>')
        })
        .map(|(i, _)| i)
        .collect();
    let [at] = arrows.as_slice() else {
        return None;
    };
    let mut tail: Vec<TokenTree> = toks[at + 2..].to_vec();
    if matches!(tail.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
        tail.pop();
    }
    syn::parse2::<Expr>(tail.into_iter().collect()).ok()
}

/// Whether a `select!` arm starts as crossbeam's do, an operation and its arguments followed by
/// `->` or `=>` (tokio's `Some(x) = rx.recv()` has a pattern and `=` there).
fn crossbeam_op(input: syn::parse::ParseStream) -> bool {
    let fork = input.fork();
    let op = |fork: syn::parse::ParseStream| -> syn::Result<()> {
        fork.parse::<syn::Ident>()?;
        let _args;
        syn::parenthesized!(_args in fork);
        Ok(())
    };
    op(&fork).is_ok() && (fork.peek(syn::Token![->]) || fork.peek(syn::Token![=>]))
}

/// The items a macro's body declares: items as written (`cfg_if!`), the lazily initialised
/// statics of `lazy_static!` and its kin (`static ref CHANNEL_SIZE: usize = 256;`, read as
/// `static CHANNEL_SIZE: usize = 256;`), or the declarations of a configuration macro
/// (`config_group!({ ref max_uploads: usize = 8; })`, read as `static max_uploads: usize = 8;`,
/// a body in one pair of braces or without). The tokens keep their spans, so lines are the
/// source's.
fn macro_items(mac: &Macro) -> Option<syn::File> {
    use proc_macro2::{Delimiter, TokenTree};
    if let Ok(items) = mac.parse_body::<syn::File>() {
        return Some(items);
    }
    if let Some(items) = cfg_if_items(&mac.tokens) {
        return Some(items);
    }
    let mut body = mac.tokens.clone();
    let mut inner = body.clone().into_iter();
    if let (Some(TokenTree::Group(g)), None) = (inner.next(), inner.next()) {
        if g.delimiter() == Delimiter::Brace {
            body = g.stream();
        }
    }
    if let Some(items) = settings_struct(body.clone()) {
        return Some(items);
    }
    let mut changed = false;
    // `static ref` drops its `ref`; a `ref` that starts a declaration (at the start, after a
    // `;` or after an attribute) becomes `static`, and so does a name that starts one and is
    // given a type (`REDIS_MAX_CONNECTIONS: u32 = 2048;`, a macro of settings read from the
    // environment with their defaults).
    let mut after_static = false;
    let mut starts = true;
    let mut tokens = Vec::new();
    let body: Vec<TokenTree> = body.into_iter().collect();
    for (at, t) in body.iter().cloned().enumerate() {
        let is_ident = |w: &str| matches!(&t, TokenTree::Ident(i) if i == w);
        if after_static && is_ident("ref") {
            changed = true;
            after_static = false;
            continue;
        }
        let typed = matches!(body.get(at + 1), Some(TokenTree::Punct(p))
            if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Alone);
        let t = if starts && is_ident("ref") {
            changed = true;
            TokenTree::Ident(proc_macro2::Ident::new("static", t.span()))
        } else if starts && typed && matches!(&t, TokenTree::Ident(_)) {
            changed = true;
            tokens.push(TokenTree::Ident(proc_macro2::Ident::new(
                "static",
                t.span(),
            )));
            t
        } else {
            t
        };
        after_static = matches!(&t, TokenTree::Ident(i) if i == "static");
        starts = match &t {
            TokenTree::Punct(p) => p.as_char() == ';' || (starts && p.as_char() == '#'),
            TokenTree::Group(g) => starts && g.delimiter() == Delimiter::Bracket,
            _ => false,
        };
        tokens.push(t);
    }
    if !changed {
        return None;
    }
    syn::parse2::<syn::File>(tokens.into_iter().collect()).ok()
}

/// A struct of settings declared with their defaults in a configuration macro (DataFusion's
/// `config_namespace! { pub struct ExecutionOptions { /// doc \n pub batch_size: usize, default =
/// 8192 .. } }`, a field's type followed by `key = value` options, `default` last, and no comma
/// between fields), read as the struct and its `impl Default` setting each field to its
/// default. The tokens keep their spans, so lines are the source's. `None` for another grammar.
fn settings_struct(body: proc_macro2::TokenStream) -> Option<syn::File> {
    use syn::parse::{ParseStream, Parser};
    let parse = |input: ParseStream| -> syn::Result<syn::File> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        input.parse::<syn::Token![struct]>()?;
        let name: syn::Ident = input.parse()?;
        let content;
        syn::braced!(content in input);
        let mut fields: Vec<(
            Vec<syn::Attribute>,
            syn::Visibility,
            syn::Ident,
            syn::Type,
            Expr,
        )> = Vec::new();
        while !content.is_empty() {
            let attrs = content.call(syn::Attribute::parse_outer)?;
            let vis: syn::Visibility = content.parse()?;
            let field: syn::Ident = content.parse()?;
            content.parse::<syn::Token![:]>()?;
            let ty: syn::Type = content.parse()?;
            content.parse::<syn::Token![,]>()?;
            let default = loop {
                let key: syn::Ident = content.call(syn::ext::IdentExt::parse_any)?;
                content.parse::<syn::Token![=]>()?;
                let value: Expr = content.parse()?;
                if key == "default" {
                    break value;
                }
                content.parse::<syn::Token![,]>()?;
            };
            while content.peek(syn::Token![,]) {
                content.parse::<syn::Token![,]>()?;
            }
            fields.push((attrs, vis, field, ty, default));
        }
        if fields.is_empty() {
            return Err(input.error("no settings"));
        }
        let decls = fields
            .iter()
            .map(|(a, v, f, t, _)| quote::quote!(#(#a)* #v #f: #t));
        let inits = fields.iter().map(|(_, _, f, _, d)| quote::quote!(#f: #d));
        syn::parse2(quote::quote! {
            #(#attrs)* #vis struct #name { #(#decls,)* }
            impl Default for #name {
                fn default() -> Self { #name { #(#inits,)* } }
            }
        })
    };
    parse.parse2(body).ok()
}

/// The items of every branch of a `cfg_if!` body (`if #[cfg(feature = "k8")] { .. } else if
/// #[cfg(..)] { .. } else { .. }`): the tool reads every configuration, as it reads items under
/// `#[cfg(feature = ..)]`. A branch only tests compile (`#[cfg(test)]`) is left out. `None` for
/// another grammar, or a branch that is not items.
fn cfg_if_items(tokens: &proc_macro2::TokenStream) -> Option<syn::File> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut toks = tokens.clone().into_iter().peekable();
    if !matches!(toks.peek(), Some(TokenTree::Ident(i)) if i == "if") {
        return None;
    }
    let mut items = Vec::new();
    let mut test = false;
    for t in toks {
        match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                let pound = proc_macro2::Punct::new('#', proc_macro2::Spacing::Alone);
                let attr: proc_macro2::TokenStream = [TokenTree::Punct(pound), TokenTree::Group(g)]
                    .into_iter()
                    .collect();
                let parsed = syn::parse::Parser::parse2(syn::Attribute::parse_outer, attr).ok()?;
                test = crate::syntax::is_cfg_test(&parsed);
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let branch: syn::File = syn::parse2(g.stream()).ok()?;
                if !test {
                    items.extend(branch.items);
                }
                test = false;
            }
            TokenTree::Ident(i) if i == "if" || i == "else" => {}
            TokenTree::Punct(p) if p.as_char() == '#' => {}
            _ => return None,
        }
    }
    Some(syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    })
}

/// The statements a braced macro body holds (`async_stream::stream! { .. }`, `try_stream!`),
/// read with the stream macros' `for await x in s` as `for x in s` (syn knows no `for await`;
/// the tokens keep their spans, so lines are the source's). `None` for another grammar.
fn macro_stmts(mac: &Macro) -> Option<Vec<syn::Stmt>> {
    use syn::parse::Parser;
    if !matches!(mac.delimiter, syn::MacroDelimiter::Brace(_)) {
        return None;
    }
    syn::Block::parse_within
        .parse2(without_for_await(mac.tokens.clone()))
        .ok()
}

/// The tokens with each `await` that follows a `for` left out, in nested groups too.
fn without_for_await(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    let mut after_for = false;
    let mut out = Vec::new();
    for t in tokens {
        let is_ident = |w: &str| matches!(&t, TokenTree::Ident(i) if i == w);
        if after_for && is_ident("await") {
            after_for = false;
            continue;
        }
        after_for = is_ident("for");
        out.push(match t {
            TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), without_for_await(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        });
    }
    out.into_iter().collect()
}

/// How a test file named by `#[path]` is listed among the test modules: by its path.
pub(crate) const TEST_FILE: &str = "file:";

/// The file a `#[path = ".."]` attribute names.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// `a/b/../c.rs` as `a/c.rs`, '/'-separated, without touching the filesystem.
fn normalize(path: &std::path::Path) -> String {
    let mut out: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    out.join("/")
}
