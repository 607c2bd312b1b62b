//! The fixture collector: one syn visitor per file that records collections of fixture values
//! (`vec![..]`, arrays, slices of struct literals, constructor or builder calls, and the same
//! constructor written several times in one function) and every fixture instance in test code, as
//! plain data (syn trees are not `Send`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use syn::Expr;
use syn::visit::{self, Visit};

use crate::diversity::literal::normalize;
use crate::diversity::reads;
use crate::diversity::{CollectionKind, FieldValue, FixtureCollection, Instance, LooseInstance};
use crate::syntax::scope::Scope;
use crate::syntax::{Loc, loc_of, macro_args};
use crate::syntax::{is_cfg_test, is_test_fn};

/// What one file contributes to the fixture analysis.
#[derive(Debug, Default)]
pub struct FileFixtures {
    pub lines: usize,
    pub collections: Vec<FixtureCollection>,
    pub test_instances: Vec<LooseInstance>,
    /// Names of the functions and methods test code calls (to find production fixture helpers).
    pub test_calls: BTreeSet<String>,
    pub code: reads::FileCode,
}

/// Collect the fixtures of one parsed file. `test_file` is true for files under `tests/`.
pub fn collect(
    rel: &str,
    text: &str,
    ast: &syn::File,
    test_file: bool,
    path: &[String],
) -> FileFixtures {
    let mut c = Collector {
        rel,
        imports: imports(&ast.items),
        scope: Scope::at(path, test_file, ast),
        fns: Vec::new(),
        claimed: HashSet::new(),
        out: FileFixtures {
            lines: text.lines().count(),
            code: reads::extract(rel, ast, test_file, path),
            ..FileFixtures::default()
        },
    };
    c.visit_file(ast);
    c.out
}

struct FnCtx {
    name: String,
    site: String,
    line: usize,
    /// Start of the expression the function returns, to credit a returned collection to the
    /// fixture function's own line.
    tail: Option<(usize, usize)>,
    loose: Vec<Instance>,
}

struct Collector<'a> {
    rel: &'a str,
    /// Imported name -> the last module of its path (`PoolConfig` -> `unmanaged`).
    imports: HashMap<String, String>,
    scope: Scope,
    fns: Vec<FnCtx>,
    /// Starts of instances already counted as elements of a collection.
    claimed: HashSet<(usize, usize)>,
    out: FileFixtures,
}

fn start(loc: &Loc) -> (usize, usize) {
    (loc.line, loc.column)
}

fn is_camel(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_lowercase())
}

/// The tail expression of a block: its start, whether written as an expression or a macro.
fn tail_start(rel: &str, block: &syn::Block) -> Option<(usize, usize)> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(start(&loc_of(rel, e))),
        syn::Stmt::Macro(m) if m.semi_token.is_none() => Some(start(&loc_of(rel, &m.mac))),
        _ => None,
    }
}

impl Collector<'_> {
    fn in_test(&self) -> bool {
        self.scope.in_test()
    }

    fn site(&self, item: &str) -> String {
        self.scope.site(item)
    }

    fn enter<F: FnOnce(&mut Self)>(
        &mut self,
        name: String,
        line: usize,
        tail: Option<(usize, usize)>,
        test: bool,
        body: F,
    ) {
        let site = self.site(&name);
        self.fns.push(FnCtx {
            name,
            site,
            line,
            tail,
            loose: Vec::new(),
        });
        self.scope.push_test(test);
        body(self);
        let ctx = self.fns.pop().expect("pushed above");
        if self.in_test() {
            self.repeated(ctx);
        }
        self.scope.pop_test(test);
    }

    /// Instances of one key written at least twice in one function form a collection.
    fn repeated(&mut self, ctx: FnCtx) {
        let mut by_key: BTreeMap<String, Vec<Instance>> = BTreeMap::new();
        for i in ctx.loose {
            by_key.entry(i.key.clone()).or_default().push(i);
        }
        for (_, instances) in by_key {
            if instances.len() < 2 {
                continue;
            }
            let loc = instances[0].loc.clone();
            self.out.collections.push(FixtureCollection {
                file: self.rel.to_string(),
                line: loc.line,
                loc,
                function: ctx.name.clone(),
                function_site: ctx.site.clone(),
                kind: CollectionKind::Repeated,
                instances,
                in_test: true,
            });
        }
    }

    /// A fixture instance: a struct literal, a constructor call with a literal argument, a
    /// builder chain with a literal argument, or a call of a helper with a literal argument.
    fn instance(&self, e: &Expr) -> Option<Instance> {
        let loc = loc_of(self.rel, e);
        match e {
            Expr::Paren(p) => self.instance(&p.expr),
            Expr::Reference(r) => self.instance(&r.expr),
            Expr::Struct(s) => {
                let segs = crate::syntax::path_idents(&s.path);
                let mut ty = segs.last()?.clone();
                if ty == "Self" {
                    ty = self.scope.self_ty()?.to_string();
                }
                // An enum's struct variant (`Event::Open { .. }`) is keyed by enum and variant.
                let (key, type_name) = match segs.as_slice() {
                    [.., e, v] if is_camel(e) && is_camel(v) => (format!("{e}::{v}"), e.clone()),
                    _ => (ty.clone(), ty),
                };
                let fields = s
                    .fields
                    .iter()
                    .filter_map(|f| match &f.member {
                        syn::Member::Named(n) => Some((n.to_string(), self.value(&f.expr))),
                        syn::Member::Unnamed(_) => None,
                    })
                    .collect();
                let origin = match segs.as_slice() {
                    [.., m, _] if !is_camel(m) => m.clone(),
                    _ => self.origin(&type_name),
                };
                Some(Instance {
                    key,
                    origin,
                    type_name,
                    loc,
                    fields,
                    positional: false,
                })
            }
            Expr::Call(c) => {
                let Expr::Path(f) = &*c.func else { return None };
                let (key, type_name) = callee(&f.path)?;
                let fields = positional(c.args.iter(), |e| self.value(e));
                has_literal(&fields).then(|| Instance {
                    origin: self.origin(&type_name),
                    key,
                    type_name,
                    loc,
                    fields,
                    positional: true,
                })
            }
            Expr::MethodCall(_) | Expr::Await(_) | Expr::Try(_) => self.builder(e, loc),
            _ => None,
        }
    }

    /// `Pool::builder().max_size(4).build(m).await`: fields are the methods given arguments.
    fn builder(&self, e: &Expr, loc: Loc) -> Option<Instance> {
        let (root, methods) = chain(e);
        let Expr::Call(call) = root else { return None };
        let Expr::Path(f) = &*call.func else {
            return None;
        };
        let (key, type_name) = callee(&f.path)?;
        if !key.contains("::") {
            return None;
        }
        let mut fields = positional(call.args.iter(), |e| self.value(e));
        for m in methods.iter().rev().filter(|m| !m.args.is_empty()) {
            let values: Vec<FieldValue> = m.args.iter().map(|a| self.value(a)).collect();
            let text = values
                .iter()
                .map(|v| v.text.clone())
                .collect::<Option<Vec<_>>>()
                .map(|t| t.join(", "));
            let mut loc = values[0].loc.clone();
            let last = &values[values.len() - 1].loc;
            (loc.end_line, loc.end_column) = (last.end_line, last.end_column);
            fields.insert(m.method.to_string(), FieldValue { text, loc });
        }
        let any_method = methods.iter().any(|m| !m.args.is_empty());
        (any_method && has_literal(&fields)).then(|| Instance {
            origin: self.origin(&type_name),
            key,
            type_name,
            loc,
            fields,
            positional: false,
        })
    }

    fn origin(&self, type_name: &str) -> String {
        self.imports.get(type_name).cloned().unwrap_or_default()
    }

    fn value(&self, e: &Expr) -> FieldValue {
        FieldValue {
            text: normalize(e),
            loc: loc_of(self.rel, e),
        }
    }

    /// Record a collection when its elements are instances of one key.
    fn collection(&mut self, kind: CollectionKind, loc: Loc, elems: Vec<&Expr>) {
        let Some(instances) = elems
            .into_iter()
            .map(|x| self.instance(x))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let Some(first) = instances.first() else {
            return;
        };
        if instances.iter().any(|i| i.key != first.key) {
            return;
        }
        let Some(ctx) = self.fns.last() else { return };
        let line = if ctx.tail == Some(start(&loc)) {
            ctx.line
        } else {
            loc.line
        };
        for i in &instances {
            self.claimed.insert(start(&i.loc));
            if self.in_test() {
                self.out.test_instances.push(LooseInstance {
                    function: ctx.name.clone(),
                    function_site: ctx.site.clone(),
                    instance: i.clone(),
                });
            }
        }
        self.out.collections.push(FixtureCollection {
            file: self.rel.to_string(),
            line,
            loc,
            function: ctx.name.clone(),
            function_site: ctx.site.clone(),
            kind,
            instances,
            in_test: self.in_test(),
        });
    }

    fn vec_macro(&mut self, mac: &syn::Macro) {
        if mac.path.is_ident("vec") {
            if let Some(args) = macro_args(mac) {
                self.collection(
                    CollectionKind::Vec,
                    loc_of(self.rel, mac),
                    args.iter().collect(),
                );
            }
        }
    }

    fn loose(&mut self, e: &Expr) {
        if !self.in_test() || self.claimed.contains(&start(&loc_of(self.rel, e))) {
            return;
        }
        let Some(i) = self.instance(e) else { return };
        let Some(ctx) = self.fns.last_mut() else {
            return;
        };
        self.claimed.insert(start(&i.loc));
        self.out.test_instances.push(LooseInstance {
            function: ctx.name.clone(),
            function_site: ctx.site.clone(),
            instance: i.clone(),
        });
        ctx.loose.push(i);
    }
}

/// Every name a `use` item of the file imports, with the last module of its path.
fn imports(items: &[syn::Item]) -> HashMap<String, String> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut HashMap<String, String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                if let Some(m) = prefix.last() {
                    out.insert(n.ident.to_string(), m.clone());
                }
            }
            syn::UseTree::Rename(r) => {
                if let Some(m) = prefix.last() {
                    out.insert(r.rename.to_string(), m.clone());
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    walk(t, prefix, out);
                }
            }
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = HashMap::new();
    for item in items {
        match item {
            syn::Item::Use(u) => walk(&u.tree, &mut Vec::new(), &mut out),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    out.extend(imports(inner));
                }
            }
            _ => {}
        }
    }
    out
}

/// `T::f` (a constructor of `T`) or a lone lowercase `f` (a helper whose type is resolved later).
fn callee(p: &syn::Path) -> Option<(String, String)> {
    let segs = crate::syntax::path_idents(p);
    match segs.as_slice() {
        [.., t, f] if is_camel(t) && !is_camel(f) => Some((format!("{t}::{f}"), t.clone())),
        [f] if f.chars().next().is_some_and(|c| c.is_ascii_lowercase()) => {
            Some((f.clone(), String::new()))
        }
        _ => None,
    }
}

fn positional<'a>(
    args: impl Iterator<Item = &'a Expr>,
    value: impl Fn(&Expr) -> FieldValue,
) -> BTreeMap<String, FieldValue> {
    args.enumerate()
        .map(|(i, a)| (i.to_string(), value(a)))
        .collect()
}

fn has_literal(fields: &BTreeMap<String, FieldValue>) -> bool {
    fields.values().any(|v| v.text.is_some())
}

/// Unroll a method chain (through `.await` and `?`) to its root, methods outermost first.
pub fn chain(mut e: &Expr) -> (&Expr, Vec<&syn::ExprMethodCall>) {
    let mut methods = Vec::new();
    loop {
        match e {
            Expr::MethodCall(m) => {
                methods.push(m);
                e = &m.receiver;
            }
            Expr::Await(a) => e = &a.base,
            Expr::Try(t) => e = &t.expr,
            _ => return (e, methods),
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let entered = self.scope.enter_mod(m);
        visit::visit_item_mod(self, m);
        self.scope.leave(entered);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let entered = self.scope.enter_impl(i);
        visit::visit_item_impl(self, i);
        self.scope.leave(entered);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let test = is_test_fn(&f.attrs) || is_cfg_test(&f.attrs);
        let line = loc_of(self.rel, &f.sig.ident).line;
        let tail = tail_start(self.rel, &f.block);
        self.enter(f.sig.ident.to_string(), line, tail, test, |x| {
            visit::visit_item_fn(x, f)
        });
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let test = is_test_fn(&f.attrs) || is_cfg_test(&f.attrs);
        let line = loc_of(self.rel, &f.sig.ident).line;
        let tail = tail_start(self.rel, &f.block);
        self.enter(f.sig.ident.to_string(), line, tail, test, |x| {
            visit::visit_impl_item_fn(x, f)
        });
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let line = loc_of(self.rel, &c.ident).line;
        let tail = Some(start(&loc_of(self.rel, &c.expr)));
        let test = is_cfg_test(&c.attrs);
        self.enter(c.ident.to_string(), line, tail, test, |x| {
            visit::visit_item_const(x, c)
        });
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        let line = loc_of(self.rel, &s.ident).line;
        let tail = Some(start(&loc_of(self.rel, &s.expr)));
        let test = is_cfg_test(&s.attrs);
        self.enter(s.ident.to_string(), line, tail, test, |x| {
            visit::visit_item_static(x, s)
        });
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Array(a) => self.collection(
                CollectionKind::Array,
                loc_of(self.rel, e),
                a.elems.iter().collect(),
            ),
            Expr::Reference(r) => {
                if let Expr::Array(a) = &*r.expr {
                    self.collection(
                        CollectionKind::Slice,
                        loc_of(self.rel, e),
                        a.elems.iter().collect(),
                    );
                    // The array inside is the same collection.
                    for x in &a.elems {
                        self.visit_expr(x);
                    }
                    return;
                }
            }
            Expr::Macro(m) => self.vec_macro(&m.mac),
            _ => {}
        }
        self.loose(e);
        if self.in_test() {
            match e {
                Expr::Call(c) => {
                    if let Expr::Path(p) = &*c.func {
                        if let Some(last) = p.path.segments.last() {
                            self.out.test_calls.insert(last.ident.to_string());
                        }
                    }
                }
                Expr::MethodCall(m) => {
                    self.out.test_calls.insert(m.method.to_string());
                }
                _ => {}
            }
        }
        // A builder chain is one instance: visit the arguments, not each shorter chain.
        if matches!(e, Expr::MethodCall(_) | Expr::Await(_) | Expr::Try(_))
            && self.builder(e, loc_of(self.rel, e)).is_some()
        {
            let (root, methods) = chain(e);
            self.visit_expr(root);
            for m in methods {
                if self.in_test() {
                    self.out.test_calls.insert(m.method.to_string());
                }
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
            return;
        }
        visit::visit_expr(self, e);
    }

    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        self.vec_macro(&m.mac);
        self.visit_macro(&m.mac);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(args) = macro_args(mac) {
            for a in &args {
                self.visit_expr(a);
            }
        }
    }
}
