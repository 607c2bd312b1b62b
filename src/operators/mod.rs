//! Mutation operators, one module each. An operator reads one parsed source file and the shared
//! index and returns `Draft`s (plain data); `mutate::finish` gives them ids and locations. No
//! operator builds, runs tests or writes anything; `history` alone reads `git log -p`.

pub(crate) mod boundary_shift;
pub(crate) mod drop_all_down_guard;
pub(crate) mod drop_clamp;
pub(crate) mod guard;
pub(crate) mod history;
pub(crate) mod mutant;
pub(crate) mod perturb_capacity;
pub(crate) mod reinstate_cap;
pub(crate) mod swap_min_max;
pub(crate) mod uses;

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::PathBuf;

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use crate::catalog::Operator;
use crate::config::Guard;
use crate::index::names::words;
use crate::index::{Index, Tables};
use crate::syntax::walk::{Collector, FnItem, View};
use mutant::{Draft, Mutant, MutationContext};

/// What every operator may read once every file is walked: computed once per run.
pub(crate) struct Shared<'a> {
    pub(crate) index: &'a Index,
    pub(crate) ctx: MutationContext,
    pub(crate) from_history: bool,
    pub(crate) ws_root: PathBuf,
    /// Per-unit values K for `reinstate-cap`.
    pub(crate) ks: Vec<u64>,
    /// Names of the capacities `check` found.
    pub(crate) capacity_items: BTreeSet<String>,
}

impl<'a> Shared<'a> {
    pub(crate) fn new(
        index: &'a Index,
        ctx: MutationContext,
        from_history: bool,
        ws_root: PathBuf,
    ) -> Self {
        let ks = reinstate_cap::per_unit_values(index, &ctx);
        Shared {
            index,
            ctx,
            from_history,
            ws_root,
            ks,
            capacity_items: index.capacities.iter().map(|c| c.item.clone()).collect(),
        }
    }

    pub(crate) fn tables(&self) -> &Tables {
        self.index.tables()
    }

    /// Whether an identifier names a capacity or a limit: a capacity `check` found, or a name
    /// in the capacity or ceiling tables.
    pub(crate) fn is_capacity_name(&self, ident: &str) -> bool {
        let t = self.tables();
        self.capacity_items.contains(ident)
            || t.capacity_names.matches(ident)
            || t.ceiling_names.matches(ident)
    }
}

/// One production function as operators see it during the walk.
pub(crate) struct FnCx<'a, 'f> {
    pub(crate) text: &'a str,
    pub(crate) f: &'a FnItem<'f>,
    pub(crate) tables: &'a Tables,
    pub(crate) guards: &'a [Guard],
    /// What the file's `use` items import (`min -> std::cmp::min`).
    pub(crate) imports: &'a std::collections::HashMap<String, Vec<String>>,
}

impl FnCx<'_, '_> {
    pub(crate) fn text_of(&self, r: &Range<usize>) -> &str {
        self.text.get(r.clone()).unwrap_or("")
    }
}

/// A draft made during the walk, kept once every file is indexed when its condition holds.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) draft: Draft,
    /// Kept only when one of these identifiers names a capacity (`Shared::is_capacity_name`);
    /// `None`: always kept.
    pub(crate) if_capacity: Option<Vec<String>>,
}

impl Pending {
    pub(crate) fn always(draft: Draft) -> Pending {
        Pending {
            draft,
            if_capacity: None,
        }
    }
}

/// A production function that computes a ceiling from a count (`fleet_ceiling(&self, healthy:
/// usize)`), as `reinstate-cap` and `history-revert` need it.
#[derive(Debug, Clone)]
pub(crate) struct CeilingSite {
    pub(crate) site: String,
    /// The expression the function returns last, and its text.
    pub(crate) result: Range<usize>,
    pub(crate) original: String,
    /// The count parameter (`healthy`), and the count as the result's type (`(healthy as u64)`).
    pub(crate) count_param: String,
    pub(crate) count_expr: String,
}

/// What the walk of one file leaves for the operators.
#[derive(Debug, Default)]
pub(crate) struct FileSites {
    pub(crate) pending: Vec<Pending>,
    pub(crate) ceilings: Vec<CeilingSite>,
    /// Bodies of production functions that run at run time (not `const fn`).
    pub(crate) runtime: Vec<Range<usize>>,
    /// Parts of those bodies, or of the file, the compile-once engine cannot switch: const
    /// items and blocks, array lengths, patterns, types and generic arguments, attributes,
    /// and bodies of macros other than formatting ones.
    pub(crate) fixed: Vec<Range<usize>>,
    /// Constants, expression paths and imports, for switching a `const` at its uses.
    pub(crate) uses: uses::FileUses,
}

impl FileSites {
    /// Where a mutant of `range` sits: inside a runtime body and inside no fixed part of it.
    pub(crate) fn context(&self, range: &Range<usize>) -> mutant::Context {
        // A fixed part inside the mutated text is fine: the switch keeps it verbatim.
        let within = |r: &Range<usize>| r.start <= range.start && range.end <= r.end;
        if self.runtime.iter().any(within) && !self.fixed.iter().any(within) {
            mutant::Context::Runtime
        } else {
            mutant::Context::Fixed
        }
    }
}

/// The operators' collector: every production function that is not nested in another (trait
/// default methods and functions inside item macros included) goes through each operator that
/// reads syntax, while the tree is there.
pub(crate) struct SiteCollector<'a> {
    tables: &'a Tables,
    guards: &'a [Guard],
    imports: std::collections::HashMap<String, Vec<String>>,
    out: FileSites,
}

impl<'a> SiteCollector<'a> {
    pub(crate) fn new(tables: &'a Tables, guards: &'a [Guard]) -> Self {
        SiteCollector {
            tables,
            guards,
            imports: Default::default(),
            out: FileSites::default(),
        }
    }

    pub(crate) fn finish(self) -> FileSites {
        self.out
    }
}

impl Collector for SiteCollector<'_> {
    fn file(&mut self, _: &View, file: &syn::File) {
        self.imports = crate::syntax::use_paths(&file.items);
    }

    fn enter_const(&mut self, v: &View, c: &crate::syntax::walk::ConstItem) {
        self.out.fixed.push(range(c.expr));
        if !c.is_static && !v.in_test() {
            let ty = range(c.ty);
            self.out.uses.consts.push(uses::ConstSite {
                name: c.ident.to_string(),
                ident_at: range(c.ident).start,
                expr: range(c.expr),
                ty: v.text.get(ty).unwrap_or_default().to_string(),
                self_ty: c
                    .in_impl
                    .then(|| v.scope.self_ty().map(str::to_string))
                    .flatten(),
            });
        }
    }

    fn item(&mut self, _: &View, item: &syn::Item) {
        match item {
            syn::Item::Mod(m) => self.out.uses.modules.push(m.ident.to_string()),
            syn::Item::Use(u) => {
                let first = if u.leading_colon.is_some() {
                    "::".to_string()
                } else {
                    String::new()
                };
                imports(&u.tree, first, &mut self.out.uses.imports);
            }
            _ => {}
        }
    }

    fn path(&mut self, _: &View, p: &syn::ExprPath) {
        self.out.uses.paths.push(uses::PathSite {
            range: range(p),
            segments: p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect(),
            qualified: p.qself.is_some() || p.path.leading_colon.is_some(),
        });
    }

    fn local(&mut self, _: &View, l: &syn::Local) {
        self.out.fixed.push(range(&l.pat));
        self.out.fixed.extend(l.attrs.iter().map(range));
    }

    fn expr(&mut self, _: &View, e: &syn::Expr) {
        use syn::Expr;
        let fixed = &mut self.out.fixed;
        match e {
            Expr::Repeat(r) => fixed.push(range(&r.len)),
            Expr::Const(c) => fixed.push(range(c)),
            Expr::Match(m) => fixed.extend(m.arms.iter().map(|a| range(&a.pat))),
            Expr::Let(l) => fixed.push(range(&l.pat)),
            Expr::Cast(c) => fixed.push(range(&c.ty)),
            Expr::Closure(c) => fixed.extend(c.inputs.iter().map(range)),
            Expr::Path(p) => fixed.extend(turbofish(&p.path)),
            Expr::MethodCall(m) => fixed.extend(m.turbofish.iter().map(range)),
            _ => {}
        }
        // Attributes on expressions and statements (`#[cfg(..)]`, `#[allow(..)]`).
        fixed.extend(crate::syntax::span::attrs(e).iter().map(range));
    }

    fn macro_call(&mut self, v: &View, mac: &syn::Macro, name: &str, args: Option<&[syn::Expr]>) {
        if !v.in_format() && !crate::syntax::walk::FORMAT_MACROS.contains(&name) {
            self.out.fixed.push(range(mac));
            if args.is_some() && uses::EXPR_MACROS.contains(&name) {
                self.out.uses.expr_macros.push(range(mac));
            }
        }
    }

    fn enter_fn(&mut self, v: &View, f: &FnItem) {
        if v.in_test() {
            if f.sig.constness.is_none() && v.fns.len() == 1 {
                self.out.uses.test_bodies.push(range(f.block));
            }
            return;
        }
        if f.sig.constness.is_some() {
            self.out.fixed.push(range(f.block));
        } else if v.fns.len() == 1 {
            self.out.runtime.push(range(f.block));
        }
        f.attrs.iter().for_each(|a| self.out.fixed.push(range(a)));
        if v.fns.len() != 1 {
            return;
        }
        let cx = FnCx {
            text: v.text,
            f,
            tables: self.tables,
            guards: self.guards,
            imports: &self.imports,
        };
        // Every operator, in catalog order; the match makes a new operator a compile error
        // until it is dispatched here or in `discover`.
        for op in Operator::ALL {
            let pending = match op {
                Operator::SwapMinMax => swap_min_max::drafts(&cx),
                Operator::DropClamp => drop_clamp::drafts(&cx),
                Operator::DropAllDownGuard => drop_all_down_guard::drafts(&cx),
                Operator::BoundaryShift => boundary_shift::drafts(&cx),
                Operator::Guard => guard::drafts(&cx),
                Operator::ReinstateCap => {
                    self.out.ceilings.extend(reinstate_cap::ceilings(&cx));
                    Vec::new()
                }
                // These read the index and the file's text, not its syntax (see `discover`).
                Operator::PerturbCapacity | Operator::HistoryRevert => Vec::new(),
            };
            self.out.pending.extend(pending);
        }
    }
}

/// The mutants of one file.
pub(crate) struct Discovered {
    pub(crate) mutants: Vec<Mutant>,
    /// Why the file's history could not be searched (`--from-history`), when it could not.
    pub(crate) unread: Option<String>,
}

/// The mutants of one file: the walk's drafts whose condition holds, and the drafts of the
/// operators that need the whole index, in canonical order by `mutate::sort` later.
pub(crate) fn discover(
    rel: &str,
    text: &str,
    crate_name: &str,
    sites: &FileSites,
    shared: &Shared,
) -> Discovered {
    let mut unread = None;
    let kept = sites.pending.iter().filter(|p| match &p.if_capacity {
        None => true,
        Some(idents) => idents.iter().any(|i| shared.is_capacity_name(i)),
    });
    let mut drafts: Vec<Draft> = Vec::new();
    for op in Operator::ALL {
        match op {
            Operator::PerturbCapacity => {
                drafts.extend(perturb_capacity::drafts(rel, text, shared));
            }
            Operator::ReinstateCap => {
                drafts.extend(reinstate_cap::drafts(&sites.ceilings, &shared.ks));
            }
            Operator::HistoryRevert => match history::drafts(rel, text, &sites.ceilings, shared) {
                Ok(found) => drafts.extend(found),
                Err(why) => unread = Some(why),
            },
            Operator::SwapMinMax
            | Operator::DropClamp
            | Operator::DropAllDownGuard
            | Operator::BoundaryShift
            | Operator::Guard => drafts.extend(
                kept.clone()
                    .filter(|p| p.draft.operator == *op)
                    .map(|p| p.draft.clone()),
            ),
        }
    }
    let mut mutants = mutant::finish(rel, text, drafts, crate_name);
    for m in &mut mutants {
        m.context = sites.context(&m.range());
    }
    Discovered { mutants, unread }
}

/// The names a `use` tree imports, each with the first segment of its path.
fn imports(tree: &syn::UseTree, first: String, out: &mut Vec<uses::Import>) {
    let root = |first: &str, seg: &syn::Ident| {
        if first.is_empty() {
            seg.to_string()
        } else {
            first.to_string()
        }
    };
    match tree {
        syn::UseTree::Path(p) => imports(&p.tree, root(&first, &p.ident), out),
        syn::UseTree::Name(n) => out.push(uses::Import {
            at: range(&n.ident).start,
            name: n.ident.to_string(),
            first: root(&first, &n.ident),
            renamed: false,
        }),
        syn::UseTree::Rename(r) => out.push(uses::Import {
            at: range(&r.ident).start,
            name: r.ident.to_string(),
            first: root(&first, &r.ident),
            renamed: true,
        }),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| imports(t, first.clone(), out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// The generic arguments of a path (`Vec::<u8>::new`, `f::<8>`): types and consts.
fn turbofish(path: &syn::Path) -> Vec<Range<usize>> {
    path.segments
        .iter()
        .filter_map(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => Some(range(a)),
            _ => None,
        })
        .collect()
}

/// Every expression of a function body, outer before inner; nested items are not entered.
pub(crate) fn exprs(block: &syn::Block) -> Vec<&syn::Expr> {
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
pub(crate) fn range<T: Spanned + 'static>(node: &T) -> Range<usize> {
    crate::syntax::span::of(node).byte_range()
}

/// The identifiers in a token stream, macro bodies included.
pub(crate) fn idents(tokens: TokenStream) -> Vec<String> {
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
pub(crate) fn result_expr(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(syn::Expr::Return(r), _) => r.expr.as_deref(),
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}

/// Whether an identifier has a word `w`.
pub(crate) fn has_word(ident: &str, w: &str) -> bool {
    words(ident).iter().any(|x| x == w)
}
