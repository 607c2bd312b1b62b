//! What code reads: the workspace's types and their fields, and for every function the fields it
//! reads, the functions it calls and the min/max selections it makes. Explanations follow calls a
//! few levels deep (`per_box` calls `BoxSpec::capacity`, which reads `kv_cache_tokens`,
//! `p90_prompt_tokens` and `max_num_seqs`). Plain data per file; merged into a `CodeModel`.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;
use syn::Expr;
use syn::visit::{self, Visit};

use crate::diversity::collect::chain;
use crate::diversity::literal::normalize;
use crate::diversity::{FieldValue, Instance};
use crate::syntax::macro_args;
use crate::syntax::scope::Scope;
use crate::syntax::{is_cfg_test, is_test_fn};

/// A struct (with its fields and the type names in each field's type) or an enum.
#[derive(Debug, Clone, Default)]
pub struct TypeDef {
    pub name: String,
    pub fields: Vec<(String, Vec<String>)>,
}

/// A function body's value when it is a struct literal built from literals and parameters:
/// `fn spec(kv: u64) -> BoxSpec { BoxSpec { kv_cache_tokens: kv, max_num_seqs: 160, .. } }`.
#[derive(Debug, Clone)]
pub struct Template {
    pub type_name: String,
    pub fields: BTreeMap<String, TemplateValue>,
}

#[derive(Debug, Clone)]
pub enum TemplateValue {
    Lit(String),
    Param(usize),
    Opaque,
}

/// Where a min/max selection's items come from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Root {
    /// `self.boxes.iter()...` or `cfg.boxes.iter()...`: a field, and whether it is `self`'s.
    Field(String, bool),
    /// `boxes.iter()...`: a local or parameter.
    Local(String),
    Other,
}

/// What a body (or one expression) reads and calls.
#[derive(Debug, Clone, Default)]
pub struct BodyFacts {
    pub self_fields: BTreeSet<String>,
    pub other_fields: BTreeSet<String>,
    pub method_calls: BTreeSet<String>,
    /// `T::f` (as a call or a value, `map(BoxSpec::capacity)`) and plain `f(..)` calls.
    pub path_calls: BTreeSet<(Option<String>, String)>,
    /// `.min()`, `.max_by_key(..)`: the method and where its items come from.
    pub selections: Vec<(String, Root)>,
}

/// One function of the workspace.
#[derive(Debug, Clone)]
pub struct FnInfo {
    /// `crate::module::Type::name`, as the index names sites.
    pub site: String,
    pub name: String,
    pub file: String,
    pub self_ty: Option<String>,
    /// Parameter names (without `self`) and the type names in each parameter's type.
    pub params: Vec<(String, Vec<String>)>,
    /// Type names in the return type (`Self` replaced by the impl's type).
    pub ret: Vec<String>,
    pub in_test: bool,
    pub body: BodyFacts,
    pub template: Option<Template>,
}

/// What one file defines.
#[derive(Debug, Default)]
pub struct FileCode {
    pub types: Vec<TypeDef>,
    pub fns: Vec<FnInfo>,
}

/// Types and functions of the whole workspace.
#[derive(Debug, Default)]
pub struct CodeModel {
    pub types: BTreeMap<String, TypeDef>,
    pub fns: Vec<FnInfo>,
}

/// Type -> fields a function depends on.
pub type Deps = BTreeMap<String, BTreeSet<String>>;

/// Every capitalised name in a type: `Vec<BoxSpec>` -> `Vec`, `BoxSpec`.
fn type_names(ty: &impl ToTokens) -> Vec<String> {
    fn walk(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => {
                    let s = i.to_string();
                    if s.starts_with(|c: char| c.is_ascii_uppercase()) {
                        out.push(s);
                    }
                }
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(ty.to_token_stream(), &mut out);
    out
}

/// Extract the types and functions of one parsed file.
pub fn extract(rel: &str, ast: &syn::File, test_file: bool, path: &[String]) -> FileCode {
    let mut x = CodeVisitor {
        rel,
        scope: Scope::at(path, test_file, ast),
        out: FileCode::default(),
    };
    x.visit_file(ast);
    x.out
}

struct CodeVisitor<'a> {
    rel: &'a str,
    scope: Scope,
    out: FileCode,
}

impl CodeVisitor<'_> {
    fn function(&mut self, attrs: &[syn::Attribute], sig: &syn::Signature, block: &syn::Block) {
        let self_ty = self.scope.self_ty().map(String::from);
        let site = self.scope.site(&sig.ident.to_string());
        let params: Vec<(String, Vec<String>)> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(match &*t.pat {
                    syn::Pat::Ident(id) => (id.ident.to_string(), type_names(&t.ty)),
                    _ => ("_".to_string(), type_names(&t.ty)),
                }),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let ret: Vec<String> = match &sig.output {
            syn::ReturnType::Type(_, ty) => type_names(ty)
                .into_iter()
                .map(|t| match (&*t, &self_ty) {
                    ("Self", Some(s)) => s.clone(),
                    _ => t,
                })
                .collect(),
            syn::ReturnType::Default => Vec::new(),
        };
        let template = template(block, &params, self_ty.as_deref());
        self.out.fns.push(FnInfo {
            site,
            name: sig.ident.to_string(),
            file: self.rel.to_string(),
            self_ty,
            params,
            ret,
            in_test: self.scope.in_test() || is_test_fn(attrs) || is_cfg_test(attrs),
            body: BodyFacts::of_block(block),
            template,
        });
    }
}

fn template(
    block: &syn::Block,
    params: &[(String, Vec<String>)],
    self_ty: Option<&str>,
) -> Option<Template> {
    let Some(syn::Stmt::Expr(Expr::Struct(s), None)) = block.stmts.last() else {
        return None;
    };
    let mut type_name = s.path.segments.last()?.ident.to_string();
    if type_name == "Self" {
        type_name = self_ty?.to_string();
    }
    let fields = s
        .fields
        .iter()
        .filter_map(|f| {
            let syn::Member::Named(n) = &f.member else {
                return None;
            };
            let param = match &f.expr {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .and_then(|id| params.iter().position(|(name, _)| id == name)),
                _ => None,
            };
            let v = match (param, normalize(&f.expr)) {
                (Some(i), _) => TemplateValue::Param(i),
                (None, Some(text)) => TemplateValue::Lit(text),
                (None, None) => TemplateValue::Opaque,
            };
            Some((n.to_string(), v))
        })
        .collect();
    Some(Template { type_name, fields })
}

impl<'ast> Visit<'ast> for CodeVisitor<'_> {
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

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let fields = s
            .fields
            .iter()
            .filter_map(|f| Some((f.ident.as_ref()?.to_string(), type_names(&f.ty))))
            .collect();
        self.out.types.push(TypeDef {
            name: s.ident.to_string(),
            fields,
        });
        visit::visit_item_struct(self, s);
    }

    fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
        self.out.types.push(TypeDef {
            name: e.ident.to_string(),
            fields: Vec::new(),
        });
        visit::visit_item_enum(self, e);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(&f.attrs, &f.sig, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.attrs, &f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }
}

const SELECTIONS: &[&str] = &["min", "max", "min_by_key", "max_by_key", "min_by", "max_by"];

impl BodyFacts {
    pub fn of_block(block: &syn::Block) -> BodyFacts {
        let mut b = BodyFacts::default();
        b.visit_block(block);
        b
    }

    pub fn of_expr(e: &Expr) -> BodyFacts {
        let mut b = BodyFacts::default();
        b.visit_expr(e);
        b
    }

    pub fn is_empty(&self) -> bool {
        self.self_fields.is_empty()
            && self.other_fields.is_empty()
            && self.method_calls.is_empty()
            && self.path_calls.is_empty()
    }
}

fn root_of(e: &Expr) -> Root {
    let (root, _) = chain(e);
    match root {
        Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => {
                let is_self = matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self"));
                Root::Field(n.to_string(), is_self)
            }
            syn::Member::Unnamed(_) => Root::Other,
        },
        Expr::Path(p) => p
            .path
            .get_ident()
            .map_or(Root::Other, |i| Root::Local(i.to_string())),
        Expr::Reference(r) => root_of(&r.expr),
        _ => Root::Other,
    }
}

impl<'ast> Visit<'ast> for BodyFacts {
    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let syn::Member::Named(n) = &f.member {
            if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self")) {
                self.self_fields.insert(n.to_string());
            } else {
                self.other_fields.insert(n.to_string());
            }
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        let arity = if name == "min" || name == "max" { 0 } else { 1 };
        if SELECTIONS.contains(&name.as_str()) && m.args.len() == arity {
            self.selections.push((name.clone(), root_of(&m.receiver)));
        }
        self.method_calls.insert(name);
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            if let Some(id) = p.path.get_ident() {
                self.path_calls.insert((None, id.to_string()));
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        let segs = crate::syntax::path_idents(&p.path);
        if let [.., t, f] = segs.as_slice() {
            if t.starts_with(|c: char| c.is_ascii_uppercase())
                && f.starts_with(|c: char| c.is_ascii_lowercase())
            {
                self.path_calls.insert((Some(t.clone()), f.clone()));
            }
        }
        visit::visit_expr_path(self, p);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(args) = macro_args(mac) {
            for a in &args {
                self.visit_expr(a);
            }
        }
    }
}

/// How many calls deep dependencies are followed.
const DEPTH: usize = 3;

impl CodeModel {
    pub fn add(&mut self, f: FileCode) {
        for t in f.types {
            self.types.entry(t.name.clone()).or_insert(t);
        }
        self.fns.extend(f.fns);
    }

    /// A type defined in the workspace: only those make fixture values.
    pub fn is_fixture_type(&self, t: &str) -> bool {
        self.types.contains_key(t)
    }

    fn helper(&self, key: &str) -> Option<&FnInfo> {
        match key.split_once("::") {
            Some((t, f)) => self
                .fns
                .iter()
                .find(|x| x.name == f && x.self_ty.as_deref() == Some(t)),
            // A helper in test code wins over a production function of the same name.
            None => self
                .fns
                .iter()
                .filter(|x| x.name == key && x.self_ty.is_none())
                .max_by_key(|x| x.in_test),
        }
    }

    /// Give a call instance its type and field names: a helper's or constructor's template
    /// (`Self { kv_cache_tokens: kv, max_num_seqs: 160 }`) turns arguments into fields; else
    /// positions are named after the parameters.
    pub fn resolve_instance(&self, i: &mut Instance) {
        if !i.positional {
            return;
        }
        let Some(f) = self.helper(&i.key) else { return };
        // A free helper is a fixture only when it builds a struct literal from its arguments
        // (`fn spec(kv) -> Spec { Spec { kv, seqs: 160 } }`); `analysis(src)` is not one.
        if i.type_name.is_empty() && f.template.is_some() {
            i.type_name = f
                .ret
                .iter()
                .find(|t| self.is_fixture_type(t))
                .cloned()
                .unwrap_or_default();
        }
        if f.params.len() != i.fields.len() {
            return;
        }
        let named = |k: &String| {
            k.parse::<usize>()
                .ok()
                .and_then(|n| f.params.get(n))
                .map(|(p, _)| p.clone())
                .filter(|p| p != "_")
                .unwrap_or_else(|| k.clone())
        };
        let args = std::mem::take(&mut i.fields);
        if let Some(t) = &f.template {
            // Arguments become the fields they initialise; the rest keep their parameter's name.
            // The literals a test helper writes are the test's choice; those of a production
            // constructor are not, and no test can vary them.
            let mut used = BTreeSet::new();
            for (name, v) in &t.fields {
                match v {
                    TemplateValue::Param(k) => {
                        used.insert(k.to_string());
                        i.fields.insert(name.clone(), args[&k.to_string()].clone());
                    }
                    TemplateValue::Lit(text) if f.in_test => {
                        let value = FieldValue {
                            text: Some(text.clone()),
                            loc: i.loc.clone(),
                        };
                        i.fields.insert(name.clone(), value);
                    }
                    TemplateValue::Lit(_) | TemplateValue::Opaque => {}
                }
            }
            for (k, v) in args.into_iter().filter(|(k, _)| !used.contains(k)) {
                i.fields.entry(named(&k)).or_insert(v);
            }
            i.type_name = t.type_name.clone();
        } else {
            i.fields = args.into_iter().map(|(k, v)| (named(&k), v)).collect();
        }
        i.positional = false;
    }

    /// The production function a mutant names: by site, else by file and name.
    pub fn find_fn(&self, site: &str, file: &str, name: &str) -> Option<&FnInfo> {
        let prod = || self.fns.iter().filter(|f| !f.in_test);
        prod()
            .find(|f| f.site == site)
            .or_else(|| prod().find(|f| f.file == file && f.name == name))
    }

    fn callees<'a>(&'a self, body: &'a BodyFacts) -> impl Iterator<Item = &'a FnInfo> + 'a {
        self.fns.iter().filter(move |f| {
            !f.in_test
                && (match &f.self_ty {
                    Some(t) => {
                        body.method_calls.contains(&f.name)
                            || body.path_calls.contains(&(Some(t.clone()), f.name.clone()))
                    }
                    None => body.path_calls.contains(&(None, f.name.clone())),
                })
        })
    }

    /// The fields a body depends on, directly and through the functions it calls.
    pub fn deps(&self, body: &BodyFacts, self_ty: Option<&str>) -> Deps {
        let mut out = Deps::new();
        let mut seen = BTreeSet::new();
        self.deps_into(body, self_ty, DEPTH, &mut seen, &mut out);
        out
    }

    fn deps_into(
        &self,
        body: &BodyFacts,
        self_ty: Option<&str>,
        depth: usize,
        seen: &mut BTreeSet<String>,
        out: &mut Deps,
    ) {
        if let Some(t) = self_ty {
            for f in &body.self_fields {
                out.entry(t.to_string()).or_default().insert(f.clone());
            }
        }
        for f in &body.other_fields {
            for t in self.types.values() {
                if t.fields.iter().any(|(n, _)| n == f) {
                    out.entry(t.name.clone()).or_default().insert(f.clone());
                }
            }
        }
        if depth == 0 {
            return;
        }
        for callee in self.callees(body) {
            if seen.insert(callee.site.clone()) {
                self.deps_into(
                    &callee.body,
                    callee.self_ty.as_deref(),
                    depth - 1,
                    seen,
                    out,
                );
            }
        }
    }

    /// The workspace types a body's min/max selections range over: the element types of the
    /// field or parameter they start from.
    pub fn selection_types(&self, body: &BodyFacts, f: &FnInfo) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for (_, root) in &body.selections {
            let names: Vec<String> = match root {
                Root::Field(field, is_self) => self
                    .types
                    .values()
                    .filter(|t| !is_self || f.self_ty.as_deref() == Some(t.name.as_str()))
                    .flat_map(|t| t.fields.iter())
                    .filter(|(n, _)| n == field)
                    .flat_map(|(_, tys)| tys.clone())
                    .collect(),
                Root::Local(name) => f
                    .params
                    .iter()
                    .filter(|(p, _)| p == name)
                    .flat_map(|(_, tys)| tys.clone())
                    .collect(),
                Root::Other => Vec::new(),
            };
            out.extend(names.into_iter().filter(|t| self.is_fixture_type(t)));
        }
        out
    }

    /// Production functions that select the min or max over items of `type_name`.
    pub fn selectors_of(&self, type_name: &str) -> Vec<String> {
        self.fns
            .iter()
            .filter(|f| !f.in_test && self.selection_types(&f.body, f).contains(type_name))
            .map(|f| f.site.clone())
            .collect()
    }
}
