//! Mutation operators, one module each. An operator reads one parsed source file and the shared
//! index and returns `Draft`s (plain data); `mutate::finish` gives them ids and locations. No
//! operator builds, runs tests or writes anything; `history` alone reads `git log -p`.

pub mod boundary_shift;
pub mod drop_all_down_guard;
pub mod drop_clamp;
pub mod guard;
pub mod history;
pub mod perturb_capacity;
pub mod reinstate_cap;
pub mod swap_min_max;

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::path::PathBuf;

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use crate::config::Guard;
use crate::index::facts::FileFacts;
use crate::index::names::words;
use crate::index::{Index, Tables};
use crate::mutate::{Mutant, MutationContext};
use crate::syntax::scope::Scope;
use crate::syntax::{FileRole, parse_file};
use crate::syntax::{is_cfg_test, is_test_fn};
use crate::workspace::Workspace;

/// Every operator id, in the order operators run. Each has `rules/<id>.toml` (kind "operator").
pub const OPERATORS: &[&str] = &[
    "swap-min-max",
    "reinstate-cap",
    "perturb-capacity",
    "drop-clamp",
    "drop-all-down-guard",
    "boundary-shift",
    "guard",
    "history-revert",
];

/// What every operator may read besides the file: computed once per run.
pub struct Shared<'a> {
    pub index: &'a Index,
    pub ctx: MutationContext,
    pub guards: &'a [Guard],
    pub from_history: bool,
    pub ws_root: PathBuf,
    /// Per-unit values K for `reinstate-cap`.
    pub ks: Vec<u64>,
    /// Names of the capacities `check` found.
    pub capacity_items: BTreeSet<String>,
}

impl<'a> Shared<'a> {
    pub fn new(
        index: &'a Index,
        ctx: MutationContext,
        guards: &'a [Guard],
        from_history: bool,
        ws_root: PathBuf,
    ) -> Self {
        let ks = reinstate_cap::per_unit_values(index, &ctx);
        Shared {
            index,
            ctx,
            guards,
            from_history,
            ws_root,
            ks,
            capacity_items: index.capacities.iter().map(|c| c.item.clone()).collect(),
        }
    }

    pub fn tables(&self) -> &Tables {
        self.index.tables()
    }
}

/// A production function: its site, signature and body.
pub struct FnItem<'a> {
    /// Named as the index names it (`crate::module::Type::f`), except that a trait's default
    /// method is `crate::module::Trait::f`, which the index does not record.
    pub site: String,
    pub sig: &'a syn::Signature,
    pub block: &'a syn::Block,
    /// A default method in a trait definition.
    pub in_trait: bool,
}

/// A function that computes a ceiling from a count, with the count parameter.
pub struct Ceiling<'f, 'a> {
    pub f: &'f FnItem<'a>,
    pub count_param: String,
}

/// One source file as operators see it.
pub struct Cx<'a> {
    pub rel: &'a str,
    pub text: &'a str,
    pub fns: Vec<FnItem<'a>>,
    pub facts: &'a FileFacts,
    pub shared: &'a Shared<'a>,
}

impl Cx<'_> {
    pub fn text_of(&self, r: &Range<usize>) -> &str {
        self.text.get(r.clone()).unwrap_or("")
    }

    /// Whether an identifier names a capacity or a limit: a capacity `check` found, or a name
    /// in the capacity or ceiling tables.
    pub fn is_capacity_name(&self, ident: &str) -> bool {
        let t = self.shared.tables();
        self.shared.capacity_items.contains(ident)
            || t.capacity_names.matches(ident)
            || t.ceiling_names.matches(ident)
    }

    pub fn mentions_capacity<T: quote::ToTokens>(&self, node: &T) -> bool {
        idents(node.to_token_stream())
            .iter()
            .any(|i| self.is_capacity_name(i))
    }

    /// The production ceiling functions of this file: the index's, plus trait default methods,
    /// which the index does not visit; those are recognised here by the same test (a ceiling
    /// name and an integer count parameter). The index's are matched by where the function's
    /// name is, not by site: an inherent method and a trait impl's method of one type share a
    /// site.
    pub fn ceilings(&self) -> Vec<Ceiling<'_, '_>> {
        let at = |f: &FnItem| {
            let l = crate::syntax::loc_of(self.rel, &f.sig.ident);
            (l.line, l.column)
        };
        let mut out: Vec<Ceiling> = self
            .facts
            .ceilings
            .iter()
            .filter(|c| !c.in_test)
            .filter_map(|c| {
                Some(Ceiling {
                    f: self
                        .fns
                        .iter()
                        .find(|f| at(f) == (c.loc.line, c.loc.column))?,
                    count_param: c.count_param.clone(),
                })
            })
            .collect();
        for f in self.fns.iter().filter(|f| f.in_trait) {
            if out.iter().any(|c| std::ptr::eq(c.f, f)) {
                continue;
            }
            if let Some(count_param) = count_param(f.sig, self.shared.tables()) {
                out.push(Ceiling { f, count_param });
            }
        }
        out
    }
}

/// The count parameter of a ceiling function (`fleet_ceiling(&self, healthy: usize)`): a
/// function with a ceiling name and an integer parameter named like a count. Mirrors the
/// index's test, which trait default methods never reach.
fn count_param(sig: &syn::Signature, tables: &Tables) -> Option<String> {
    const INTS: &[&str] = &[
        "usize", "u8", "u16", "u32", "u64", "u128", "isize", "i8", "i16", "i32", "i64", "i128",
    ];
    if !tables.ceiling_names.matches(&sig.ident.to_string()) {
        return None;
    }
    sig.inputs.iter().find_map(|arg| {
        let syn::FnArg::Typed(t) = arg else {
            return None;
        };
        let (syn::Pat::Ident(id), syn::Type::Path(ty)) = (&*t.pat, &*t.ty) else {
            return None;
        };
        let int = ty
            .path
            .segments
            .last()
            .is_some_and(|s| INTS.contains(&s.ident.to_string().as_str()));
        let name = id.ident.to_string();
        (int && tables.count_words.matches(&name)).then_some(name)
    })
}

/// Every mutant of the selected workspace, in canonical order.
pub fn discover(ws: &Workspace, shared: &Shared) -> Vec<Mutant> {
    let mut out = Vec::new();
    let facts_of: HashMap<&str, &FileFacts> = shared
        .index
        .files
        .iter()
        .map(|f| (f.rel.as_str(), f))
        .collect();
    for file in ws.files.iter().filter(|f| f.role == FileRole::Source) {
        let Some(&facts) = facts_of.get(file.rel.as_str()) else {
            continue;
        };
        let Ok((text, ast)) = parse_file(&file.abs, &file.rel) else {
            continue;
        };
        let mut walker = Walker {
            scope: Scope::file(&file.crate_name, &file.module, file.role, &ast),
            fns: Vec::new(),
        };
        walker.visit_file(&ast);
        let cx = Cx {
            rel: &file.rel,
            text: &text,
            fns: walker.fns,
            facts,
            shared,
        };
        let mut drafts = Vec::new();
        drafts.extend(swap_min_max::drafts(&cx));
        drafts.extend(reinstate_cap::drafts(&cx));
        drafts.extend(perturb_capacity::drafts(&cx));
        drafts.extend(drop_clamp::drafts(&cx));
        drafts.extend(drop_all_down_guard::drafts(&cx));
        drafts.extend(boundary_shift::drafts(&cx));
        drafts.extend(guard::drafts(&cx));
        drafts.extend(history::drafts(&cx));
        out.extend(crate::mutate::finish(
            &file.rel,
            &text,
            drafts,
            &file.crate_name,
        ));
    }
    crate::mutate::sort(&mut out);
    out
}

/// Collects production functions with their sites; test code and nested items are skipped.
struct Walker<'a> {
    scope: Scope,
    fns: Vec<FnItem<'a>>,
}

impl<'a> Walker<'a> {
    fn push(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &'a syn::Signature,
        block: &'a syn::Block,
        in_trait: bool,
    ) {
        if self.scope.in_test() || is_test_fn(attrs) || is_cfg_test(attrs) {
            return;
        }
        self.fns.push(FnItem {
            site: self.scope.site(&sig.ident.to_string()),
            sig,
            block,
            in_trait,
        });
    }
}

impl<'a> Visit<'a> for Walker<'a> {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if is_cfg_test(&m.attrs) {
            return;
        }
        let entered = self.scope.enter_mod(m);
        visit::visit_item_mod(self, m);
        self.scope.leave(entered);
    }

    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        if is_cfg_test(&i.attrs) {
            return;
        }
        // As the index names it: the self type's last segment, for trait impls too.
        let entered = self.scope.enter_impl(i);
        visit::visit_item_impl(self, i);
        self.scope.leave(entered);
    }

    fn visit_item_trait(&mut self, t: &'a syn::ItemTrait) {
        if is_cfg_test(&t.attrs) {
            return;
        }
        self.scope.push_type(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.scope.pop_type();
    }

    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.push(&f.attrs, &f.sig, &f.block, false);
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.push(&f.attrs, &f.sig, &f.block, false);
    }

    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.push(&f.attrs, &f.sig, block, true);
        }
    }
}

/// Every expression of a function body, outer before inner; nested items are not entered.
pub fn exprs(block: &syn::Block) -> Vec<&syn::Expr> {
    struct Collect<'a>(Vec<&'a syn::Expr>);
    impl<'a> Visit<'a> for Collect<'a> {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            self.0.push(e);
            visit::visit_expr(self, e);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut c = Collect(Vec::new());
    c.visit_block(block);
    c.0
}

/// Byte range of a syntax node in its file.
pub fn range<T: Spanned>(node: &T) -> Range<usize> {
    node.span().byte_range()
}

/// The identifiers in a token stream, macro bodies included.
pub fn idents(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => out.extend(idents(g.stream())),
            _ => {}
        }
    }
    out
}

/// The expression a function returns last: its tail, or a final `return EXPR;`.
pub fn result_expr(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(syn::Expr::Return(r), _) => r.expr.as_deref(),
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}

/// Whether an identifier has a word `w`.
pub fn has_word(ident: &str, w: &str) -> bool {
    words(ident).iter().any(|x| x == w)
}
