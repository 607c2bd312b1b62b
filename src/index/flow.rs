//! Capacity by flow: a literal is a capacity when its value reaches something that bounds
//! concurrent work (a capacity API's argument: a semaphore's permits, a channel's bound, a pool's
//! size), whatever it is called on the way.
//!
//! The walk records, per file, where values go ([`Edge`]: from a value's source to the place it
//! is stored) and which literals start somewhere ([`Seed`]). Places are keyed by name, across
//! the workspace: a constant by its identifier, a field by its name, a function's parameter by
//! the function's key and position, its result by its key, a local by its function's site.
//! [`Graph`] joins every file's edges, walks back from the capacity APIs once, and keeps, for
//! each place that reaches one, the next step towards it, which is the path a finding shows.
//!
//! The keys make the analysis monotone: more parsed code only adds edges, so the places that
//! reach an API only grow. The sparse parse relies on it (`project::flow_pass`): the identifiers
//! of those places ([`Graph::idents`]) name the cut items that must be read too, until no new
//! one appears, and the result is what a full parse gives.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use serde::Serialize;
use syn::Expr;

use crate::source::Loc;

/// A place a value can be stored in, by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub(crate) enum Node {
    /// A `const` or `static`, by identifier.
    Const(String),
    /// A struct field: its type when the code says it (`Limits { fetches: .. }`,
    /// `self.fetches` in `impl Limits`, `cfg.queue` for a parameter `cfg: &Config`), and its name.
    /// Without a type, it is what a write to an unknown struct's field stores (`x.queue = ..`):
    /// that may be any type's.
    Field(Option<String>, String),
    /// A read of an unknown struct's field (`cfg.queue`): any type's field of that name, in the
    /// package, may be what it reads. Kept apart from an untyped write, so that two types' fields
    /// never meet through it.
    FieldRead(String),
    /// Parameter `.1` (0-based, `self` not counted) of the function keyed `.0` (see [`fn_key`]).
    Param(String, usize),
    /// What the function keyed so returns.
    Ret(String),
    /// A local binding or parameter: its function (a number unique in the run and the same in
    /// every run: `Extractor::next_fn_id`), then its name.
    Local(u64, String),
    /// A capacity API's argument.
    Sink(String),
}

impl Node {
    /// The identifier code must mention to store into this place, if any: a constant's, a
    /// field's, a function's name (or its type's, for an associated function such as `new`).
    pub(crate) fn ident(&self) -> Option<&str> {
        match self {
            Node::Const(n) | Node::Field(_, n) | Node::FieldRead(n) => Some(n),
            Node::Param(key, _) | Node::Ret(key) => Some(key_ident(key)),
            Node::Local(..) | Node::Sink(_) => None,
        }
    }

    /// The name a place is written by: a constant's, a field's, a local's, a function's for its
    /// result (`Limits::fetches` -> `fetches`); none for a parameter or a sink.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Node::Const(n) | Node::Field(_, n) | Node::FieldRead(n) | Node::Local(_, n) => Some(n),
            Node::Ret(key) => key.rsplit("::").next(),
            Node::Param(..) | Node::Sink(_) => None,
        }
    }

    /// Every identifier code that stores into this place mentions: `Limits::new` is called as
    /// `Limits::new(..)` (or `Self::new(..)` in an impl whose header names `Limits`), so both.
    fn mentions(&self) -> Vec<&str> {
        match self {
            Node::Param(key, _) | Node::Ret(key) => match key.split_once("::") {
                Some((ty, name)) => vec![ty, name],
                None => vec![key_ident(key)],
            },
            other => other.ident().into_iter().collect(),
        }
    }

    /// Whether the place is the same in every package that names it: a constant, a typed
    /// field, an associated or free function's parameter or result, a method's parameter when
    /// the method has two words or more, its result when three or more
    /// (`.rocksdb_max_sub_compactions()`: one type's, as a field of such a name is). A one-word
    /// method's (`.resize`) or an untyped field's (`.capacity`) name alone says nothing outside
    /// its package.
    fn shared(&self) -> bool {
        match self {
            Node::Const(_) | Node::Field(Some(_), _) => true,
            // What a call gives a method of two words or more is followed into the packages
            // the caller depends on that define it (`storage_manager.create_pool(8)`).
            Node::Param(key, _) => match key.strip_prefix('.') {
                Some(method) => word_count(method) >= 2,
                None => true,
            },
            Node::Ret(key) => match key.strip_prefix('.') {
                Some(method) => distinctive(method),
                None => true,
            },
            Node::Field(None, _) | Node::FieldRead(_) | Node::Local(..) | Node::Sink(_) => false,
        }
    }

    /// How a path names the place: `DEFAULT_FETCHES`, `.fetches`, `Limits::new(#0)`, `n`.
    fn shown(&self, params: &std::collections::HashMap<(String, usize), String>) -> String {
        match self {
            Node::Const(n) => n.clone(),
            Node::Field(Some(ty), f) => format!("{ty}.{f}"),
            Node::Field(None, f) | Node::FieldRead(f) => format!(".{f}"),
            Node::Param(key, i) => match params.get(&(key.clone(), *i)) {
                Some(p) => format!("{key}({p})"),
                None => format!("{key}(#{i})"),
            },
            Node::Ret(key) => format!("{key}()"),
            Node::Local(_, n) => n.clone(),
            Node::Sink(api) => api.clone(),
        }
    }
}

/// The identifier a function key is reached by: `Limits::new` by `Limits` (every call names the
/// type, `new` is everyone's), `.fetches`, `spawn_workers` and a macro's `new_channel!` by their
/// name.
fn key_ident(key: &str) -> &str {
    match key.split_once("::") {
        Some((ty, _)) => ty,
        None => key.trim_start_matches('.').trim_end_matches('!'),
    }
}

/// A span in the file a flow belongs to (1-based lines, columns in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub(crate) struct Pos {
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) end_line: u32,
    pub(crate) end_column: u32,
}

impl Pos {
    pub(crate) fn of(loc: &Loc) -> Pos {
        Pos {
            line: loc.line as u32,
            column: loc.column as u32,
            end_line: loc.end_line as u32,
            end_column: loc.end_column as u32,
        }
    }

    fn loc(self, file: &str) -> Loc {
        Loc {
            file: file.to_string(),
            line: self.line as usize,
            column: self.column as usize,
            end_line: self.end_line as usize,
            end_column: self.end_column as usize,
        }
    }
}

/// A flow from a value's source to a place: `DEFAULT_FETCHES` into `Limits::new`'s first
/// parameter, at the argument.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Edge {
    pub(crate) from: Node,
    pub(crate) to: Node,
    pub(crate) at: Pos,
    /// The call whose result (`from`, a `Node::Ret`) this edge takes, and the call whose
    /// parameter (`to`, a `Node::Param`) it goes into. A value that goes into a function at one
    /// call comes out at that call only (see [`Graph`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from_call: Option<Pos>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) to_call: Option<Pos>,
}

/// A literal stored into a place: where a capacity may start.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Seed {
    pub(crate) value: u64,
    pub(crate) loc: Loc,
    pub(crate) to: Node,
    /// The site the literal is named by when it is a capacity (`crate::m::Limits::fetches`,
    /// `crate::m::f::new(fetches)`), and the item (`fetches`).
    pub(crate) site: String,
    pub(crate) item: String,
    pub(crate) kind: crate::index::CapacityKind,
    /// A literal argument: the call it is passed to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) call: Option<Pos>,
    /// A factor or divisor of a run-time value ([`Source::Factor`]): the product, on one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) factor: Option<String>,
}

/// A parameter's name, for paths: `Limits::new`'s parameter 0 is `fetches`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ParamName {
    pub(crate) key: String,
    pub(crate) index: usize,
    pub(crate) name: String,
    /// Its function may be called from other packages: `pub`, or a trait's method. A
    /// `pub(crate)` or private function's callers are all in its own package.
    pub(crate) exported: bool,
}

/// What one file contributes to the flow graph.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct FileFlow {
    /// The file, workspace-relative: where its edges are.
    pub(crate) file: String,
    pub(crate) edges: Vec<Edge>,
    pub(crate) seeds: Vec<Seed>,
    pub(crate) params: Vec<ParamName>,
    /// The capacity APIs where a 1 is a lock or a hand-off (`Semaphore::new(1)`).
    pub(crate) handoff: Vec<String>,
    /// Methods this file defines in a trait's impl (`.queue_size`): code in a package the impl's
    /// package depends on calls them through the trait.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) trait_methods: Vec<String>,
    /// Sinks that are the workspace's own functions' capacity parameters, each with its
    /// function's key and its position: a place that reaches a library's API too is that
    /// API's (walked from those first), and a parameter two functions of one key name
    /// differently is no sink (`a::start(threads)` and `b::start(port)`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) own_sinks: Vec<(String, String, usize)>,
}

/// Method names every type has, or that only pass a value on: a call of one on an unknown
/// receiver is not followed into the workspace's methods of that name.
const COMMON_METHODS: &[&str] = &[
    "new",
    "default",
    "clone",
    "into",
    "from",
    "len",
    "get",
    "iter",
    "unwrap",
    "expect",
    "as_ref",
    "to_owned",
    "to_string",
    "build",
    "map",
    "and_then",
    "parse",
    "try_from",
    "try_into",
    "is_empty",
    "min",
    "max",
    "clamp",
    "count",
    "next",
    "insert",
    "push",
    "with_capacity",
    "unwrap_or",
    "unwrap_or_default",
    "ok",
    "lock",
    "read",
    "write",
    "load",
    "store",
    "call",
    "send",
    "recv",
    "fmt",
    "eq",
    "cmp",
    "hash",
    "deref",
    "drop",
    "take",
    "run",
    "start",
    "spawn",
];

/// Whether a method call of this name is not followed into the workspace's methods.
pub(crate) fn is_common_method(name: &str) -> bool {
    COMMON_METHODS.contains(&name) || CARRYING_METHODS.contains(&name)
}

/// Methods that scale their receiver by their argument (`n.saturating_mul(2)`, `n.div_ceil(3)`):
/// sources as a product's ([`Sources::scaled`]).
const SCALING_METHODS: &[&str] = &[
    "saturating_mul",
    "saturating_div",
    "checked_mul",
    "checked_div",
    "wrapping_mul",
    "div_ceil",
];

/// Methods that carry their receiver's value on (wrappers, conversions, arithmetic): both the
/// receiver and the arguments set the result.
const CARRYING_METHODS: &[&str] = &[
    "unwrap",
    "expect",
    "into",
    "try_into",
    "to_owned",
    "clone",
    "get",
    "min",
    "max",
    "clamp",
    "saturating_mul",
    "saturating_add",
    "saturating_sub",
    "saturating_div",
    "checked_mul",
    "checked_add",
    "checked_sub",
    "checked_div",
    "wrapping_mul",
    "wrapping_add",
    "div_ceil",
    "next_power_of_two",
    "pow",
    "unwrap_or",
    "unwrap_or_default",
    "map_or",
    "unwrap_or_else",
    "map_or_else",
    "or",
    "or_else",
    "copied",
    "cloned",
    // A number read from text: `env_var_or("S3_PARALLEL_MAX", 32).parse::<usize>()?` is the
    // variable's value or its fallback.
    "parse",
    // An atomic's value (`QSIZE.load(Ordering::Relaxed)`, a cell that starts at a literal).
    "load",
];

/// Types whose associated functions are the language's or a trait's, never the workspace's own
/// (`Default::default()`, `Vec::with_capacity(n)`, `Arc::new(x)`): a call of one is not followed.
const FOREIGN_TYPES: &[&str] = &[
    "Default",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Clone",
    "Iterator",
    "IntoIterator",
    "FromIterator",
    "FromStr",
    "ToString",
    "AsRef",
    "Self",
    "Vec",
    "VecDeque",
    "String",
    "Box",
    "Arc",
    "Rc",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "Option",
    "Result",
    "Some",
    "Ok",
    "Err",
    "Duration",
    "Instant",
    "SystemTime",
    "PathBuf",
    "Path",
    "Cow",
    "Pin",
    "PhantomData",
    "Wrapping",
    "Ordering",
    "Error",
    "Bytes",
    "BytesMut",
];

/// Whether `ty` names a type whose associated functions the workspace may define: not a
/// generic parameter (`T::new`) nor one of `FOREIGN_TYPES`.
fn own_type(ty: &str) -> bool {
    ty.len() > 1 && ty.chars().any(|c| c.is_ascii_lowercase()) && !FOREIGN_TYPES.contains(&ty)
}

/// The first generic argument of a path's segment, when it is a type (`usize` of
/// `Option<usize>`, of `Result<usize, E>`).
fn first_type_arg(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a value of this declared type can be a count: an integer, an `Option`, `NonZero*`
/// or `Wrapping` of one, or a type whose name says nothing (an alias such as `Permits` may be an
/// integer). A reference is its referent's. Strings, collections, generic parameters (`T`) and
/// types (`Tx<T, Semaphore>`), tuples, closures and trait objects cannot.
pub(crate) fn may_hold_int(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => may_hold_int(&r.elem),
        syn::Type::Paren(p) => may_hold_int(&p.elem),
        syn::Type::Group(g) => may_hold_int(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return true;
            };
            let name = last.ident.to_string();
            if is_int_name(&name) {
                return true;
            }
            let first_arg = || first_type_arg(last).is_none_or(may_hold_int);
            match name.as_str() {
                "Option" | "Wrapping" | "Saturating" | "Cell" | "Atomic" => first_arg(),
                n if n.starts_with("NonZero") || n.starts_with("Atomic") => true,
                "String" | "str" | "bool" | "char" | "f32" | "f64" | "Vec" | "VecDeque"
                | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" | "Duration" | "Instant"
                | "SystemTime" | "PathBuf" | "Path" | "Bytes" | "BytesMut" | "Box" | "Arc"
                | "Rc" | "Mutex" | "RwLock" | "Sender" | "Receiver" | "Result" | "Cow" => false,
                // `T`, `S`: a generic parameter, whatever the caller's type.
                n if n.len() == 1 => false,
                _ => matches!(last.arguments, syn::PathArguments::None),
            }
        }
        syn::Type::Infer(_) | syn::Type::Macro(_) | syn::Type::Verbatim(_) => true,
        _ => false,
    }
}

/// Whether a parameter of this type can carry a count: one that may hold an integer
/// (`may_hold_int`), or a generic or `impl` type bound to convert into one (`n: N` with
/// `N: Into<Option<usize>>`, `n: impl Into<u32>`, `T: TryInto<usize>` in a `where` clause): the
/// body reads it through `.into()`, which carries its value.
pub(crate) fn param_may_hold_int(ty: &syn::Type, generics: &syn::Generics) -> bool {
    if may_hold_int(ty) {
        return true;
    }
    let converts = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().any(|b| {
            let syn::TypeParamBound::Trait(t) = b else {
                return false;
            };
            t.path.segments.last().is_some_and(|s| {
                (s.ident == "Into" || s.ident == "TryInto")
                    && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                        if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if may_hold_int(t))))
            })
        })
    };
    match ty {
        syn::Type::Reference(r) => param_may_hold_int(&r.elem, generics),
        syn::Type::ImplTrait(i) => converts(&i.bounds),
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let name = &p.path.segments[0].ident;
            generics
                .type_params()
                .any(|tp| tp.ident == *name && converts(&tp.bounds))
                || generics
                    .where_clause
                    .iter()
                    .flat_map(|w| &w.predicates)
                    .any(|pred| {
                        matches!(pred, syn::WherePredicate::Type(pt)
                        if matches!(&pt.bounded_ty, syn::Type::Path(b) if b.path.is_ident(name))
                            && converts(&pt.bounds))
                    })
        }
        _ => false,
    }
}

/// Whether a function declaring this result can return a count: an integer, or an `Option` of
/// one. A named type is taken for a struct here (`fn new(..) -> Self`, `-> Reset`): constructors
/// are what most functions returning a plain name are.
pub(crate) fn may_return_int(output: &syn::ReturnType) -> bool {
    let syn::ReturnType::Type(_, ty) = output else {
        return false;
    };
    let mut t: &syn::Type = ty;
    while let syn::Type::Reference(r) = t {
        t = &r.elem;
    }
    match t {
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            is_int_name(&name)
                || name.starts_with("NonZero")
                || (matches!(name.as_str(), "Option" | "Wrapping") && may_hold_int(t))
                // `Result<usize, E>`, `io::Result<usize>`: what `Ok` wraps, which `?` takes.
                || name == "Result" && first_type_arg(last).is_some_and(may_hold_int)
        }
        _ => false,
    }
}

/// The function key of a definition: `Type::name` for an associated function, `.name` for a
/// method (a call names no type), `name` for a free function.
pub(crate) fn def_key(name: &str, self_ty: Option<&str>, has_self: bool) -> String {
    match (has_self, self_ty) {
        (true, _) => format!(".{name}"),
        (false, Some(ty)) => format!("{ty}::{name}"),
        (false, None) => name.to_string(),
    }
}

/// The function key of a call `path(..)`: `Type::name` when the path names a type (`Self`
/// meaning the impl's), else the function's own name.
pub(crate) fn fn_key(path: &syn::Path, self_ty: Option<&str>) -> Option<String> {
    let segs = crate::syntax::path_idents(path);
    let name = segs.last()?;
    match segs.len().checked_sub(2).map(|i| segs[i].as_str()) {
        Some("Self") => Some(format!("{}::{name}", self_ty.filter(|t| own_type(t))?)),
        Some(q) if q.starts_with(char::is_uppercase) => own_type(q).then(|| format!("{q}::{name}")),
        _ => Some(name.clone()),
    }
}

/// Where an expression's value comes from, in the function at `fn_site` (locals are its).
pub(crate) struct Sources<'a> {
    /// The enclosing function's `fn_id`, for its locals.
    pub(crate) fn_id: Option<u64>,
    pub(crate) self_ty: Option<&'a str>,
    /// The types the function's parameters declare (`cfg: &Config` -> `Config`).
    pub(crate) param_types: &'a [(String, String)],
    /// Factors that convert units (`* 1024`, `/ 1000`): never a capacity's factor.
    pub(crate) unit_values: &'a [u64],
    /// The capacity names: a constant whose name they exclude (`MIB`, `SECOND_MS`) is a unit.
    pub(crate) names: &'a crate::index::names::NameTable,
    /// The bindings of arms and branches (`Scope`).
    pub(crate) scopes: &'a [Scope],
    /// The constants declared in function bodies, by the function's `fn_id` and name: a bare
    /// name there is the function's own constant, a local.
    pub(crate) local_consts: &'a [(u64, String)],
}

/// A binding a pattern makes for one match arm or `if let` branch (`Extractor::flow_pattern`):
/// in the function `fn_id`, `name` between `from` and `to` is the local of the id `id`.
pub(crate) struct Scope {
    pub(crate) fn_id: u64,
    pub(crate) name: String,
    pub(crate) from: proc_macro2::LineColumn,
    pub(crate) to: proc_macro2::LineColumn,
    pub(crate) id: u64,
}

/// The id of the local a name at `at` in the function `fn_id` reads or writes: the innermost
/// arm's or branch's that binds it there, else the function's.
pub(crate) fn scoped(scopes: &[Scope], fn_id: u64, name: &str, at: proc_macro2::Span) -> u64 {
    if scopes.is_empty() {
        return fn_id;
    }
    let at = at.start();
    let key = |c: proc_macro2::LineColumn| (c.line, c.column);
    scopes
        .iter()
        .filter(|s| s.fn_id == fn_id && s.name == name)
        .filter(|s| key(s.from) <= key(at) && key(at) < key(s.to))
        .max_by_key(|s| key(s.from))
        .map_or(fn_id, |s| s.id)
}

/// One source of a value: a literal or a place.
#[derive(Debug, Clone)]
pub(crate) enum Source<'e> {
    Lit(u64, &'e Expr),
    /// A literal factor or divisor (`.1`) of a run-time value, in the product or quotient `.2`
    /// (`max * 2`, `n.div_ceil(3)`).
    Factor(u64, &'e Expr, &'e Expr),
    /// A place; for a function's result, with the call that gives it.
    Place(Node, Option<&'e Expr>),
}

impl Sources<'_> {
    /// Every source of `e`'s value: literals and places, through wrappers, arithmetic (its places
    /// only), bounds, fallbacks, branches and the calls whose result the workspace defines. A
    /// lower bound of 0 or 1 only keeps a value from being zero: its literal is no source.
    pub(crate) fn of<'e>(&self, e: &'e Expr) -> Vec<Source<'e>> {
        let mut out = Vec::new();
        self.into(e, &mut out, 0, false);
        out
    }

    fn into<'e>(&self, e: &'e Expr, out: &mut Vec<Source<'e>>, depth: usize, floor: bool) {
        if depth > 24 {
            return;
        }
        let go = |x: &'e Expr, out: &mut Vec<Source<'e>>| self.into(x, out, depth + 1, false);
        let floor_of = |x: &'e Expr, out: &mut Vec<Source<'e>>| self.into(x, out, depth + 1, true);
        match e {
            Expr::Lit(l) => {
                // A number written as a string reaches a count only through a parse
                // (`env::var("REDIS_CONNECTIONS").unwrap_or("2".to_string()).parse()`): no
                // string is stored in a count's place otherwise.
                let v = match (crate::index::value::Val::of(e), &l.lit) {
                    (crate::index::value::Val::Lit(v), _) => Some(v),
                    (_, syn::Lit::Str(s)) => s.value().trim().replace('_', "").parse().ok(),
                    _ => None,
                };
                if let Some(v) = v.filter(|&v| !floor || v >= 2) {
                    out.push(Source::Lit(v, e));
                }
            }
            // `"2".to_string()`, `"2".into()`: the string's text, as above.
            Expr::MethodCall(m) if crate::index::value::owned_str_lit(m).is_some() => {
                self.into(&m.receiver, out, depth + 1, floor)
            }
            Expr::Paren(p) => self.into(&p.expr, out, depth + 1, floor),
            Expr::Group(g) => self.into(&g.expr, out, depth + 1, floor),
            // `env_var_or("S3_PARALLEL_MAX", 32).parse::<usize>()?`: what `?` lets through.
            Expr::Try(t) => self.into(&t.expr, out, depth + 1, floor),
            Expr::Cast(c) => self.into(&c.expr, out, depth + 1, floor),
            Expr::Reference(r) => self.into(&r.expr, out, depth + 1, floor),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.into(&u.expr, out, depth + 1, floor)
            }
            Expr::Path(p) if p.qself.is_none() => {
                let segs = crate::syntax::path_idents(&p.path);
                let Some(last) = segs.last() else { return };
                // `u32::MAX`, `std::usize::MAX`: the language's, not the workspace's.
                let primitive = segs.iter().rev().skip(1).any(|s| is_int_name(s));
                let own = |id: u64| self.local_consts.iter().any(|(f, n)| *f == id && n == last);
                if let (1, Some(id)) = (segs.len(), self.fn_id.filter(|&id| own(id))) {
                    out.push(Source::Place(Node::Local(id, last.clone()), None));
                } else if crate::index::value::is_const_name(last) && !primitive {
                    out.push(Source::Place(Node::Const(last.clone()), None));
                } else if let (1, Some(id)) = (segs.len(), self.fn_id) {
                    let id = scoped(self.scopes, id, last, p.path.segments[0].ident.span());
                    out.push(Source::Place(Node::Local(id, last.clone()), None));
                }
            }
            Expr::Field(f) => match &f.member {
                syn::Member::Named(n) => {
                    let n = n.to_string();
                    let node = match self.type_of(&f.base) {
                        Some(ty) => Node::Field(Some(ty), n),
                        None => Node::FieldRead(n),
                    };
                    out.push(Source::Place(node, None));
                }
                // `max_threads().expect(..).0`: an element of a tuple a call gives is that
                // call's value (a literal tuple's elements are no source: `(1, 4096).1`).
                syn::Member::Unnamed(_) => {
                    let mut found = Vec::new();
                    go(&f.base, &mut found);
                    out.extend(found.into_iter().filter(|s| !matches!(s, Source::Lit(..))));
                }
            },
            // `1024 * 64`: arithmetic of literals alone is one literal, typed by hand (not a
            // fallback's, `cpus.unwrap_or(1) * 8`, which folds to one too).
            Expr::Binary(_)
                if literals_alone(e) && crate::index::value::Val::of(e).literal().is_some() =>
            {
                let v = crate::index::value::Val::of(e)
                    .literal()
                    .unwrap_or_default();
                if !floor || v >= 2 {
                    out.push(Source::Lit(v, e));
                }
            }
            Expr::Binary(b) => match b.op {
                syn::BinOp::Mul(_)
                | syn::BinOp::Div(_)
                | syn::BinOp::Shl(_)
                | syn::BinOp::Shr(_) => self.scaled(e, [&b.left, &b.right], out, depth),
                // `cpus - 2`, `pool_size - 1`: a literal held back from a run-time count is a
                // reserve, typed by hand like a factor.
                syn::BinOp::Sub(_) if self.offset(e, &b.left, &b.right, true, out, depth) => {}
                // `5 + available_parallelism.get()`: a literal added to the CPU count is a
                // headroom typed by hand, as a reserve held back from it is.
                syn::BinOp::Add(_) if self.offset(e, &b.left, &b.right, false, out, depth) => {}
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Rem(_) => {
                    // A literal offset (`n + 1`, `cpus - 2`) is no setting: the places on
                    // either side are followed (`DEFAULT_MAX_NODES + 1`), and a factor in them
                    // (`workers * 2 + 1`).
                    for side in [&b.left, &b.right] {
                        let mut found = Vec::new();
                        go(side, &mut found);
                        out.extend(found.into_iter().filter(|s| !matches!(s, Source::Lit(..))));
                    }
                }
                _ => {}
            },
            // `if n == 0 { 1 } else { n }`: the 1 only keeps a count from being zero, a floor
            // like `n.max(1)` (a default of 2 or more there is still one).
            Expr::If(i) if zero_test(&i.cond) => {
                let mut branches = tails(e).into_iter();
                if let Some(then) = branches.next() {
                    floor_of(then, out);
                }
                for b in branches {
                    self.into(b, out, depth + 1, floor);
                }
            }
            Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Unsafe(_) | Expr::Const(_) => {
                for b in tails(e) {
                    self.into(b, out, depth + 1, floor);
                }
            }
            Expr::Call(c) => self.call(e, c, out, depth, floor),
            // `available_parallelism().map_or(1, NonZeroUsize::get)`: the fallback of a CPU
            // count when the platform does not say is a floor, as `n.max(1)` is.
            Expr::MethodCall(m)
                if crate::index::value::FALLBACK_METHODS
                    .iter()
                    .any(|f| m.method == f)
                    && crate::index::value::asks_cpus(&m.receiver) =>
            {
                go(&m.receiver, out);
                for a in m.args.iter().take(1) {
                    match a {
                        Expr::Closure(c) if c.inputs.is_empty() => floor_of(&c.body, out),
                        _ => floor_of(a, out),
                    }
                }
            }
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                match name.as_str() {
                    // `n.max(1)`, `n.clamp(1, 64)`: the lower bound is a floor.
                    "max" => {
                        go(&m.receiver, out);
                        m.args.iter().for_each(|a| floor_of(a, out));
                    }
                    "clamp" if m.args.len() == 2 => {
                        go(&m.receiver, out);
                        floor_of(&m.args[0], out);
                        go(&m.args[1], out);
                    }
                    "unwrap_or_else" | "map_or_else" | "or_else" => {
                        go(&m.receiver, out);
                        if let Some(Expr::Closure(c)) = m.args.first() {
                            if c.inputs.is_empty() {
                                go(&c.body, out);
                            }
                        }
                    }
                    "map_or" => {
                        go(&m.receiver, out);
                        if let Some(a) = m.args.first() {
                            go(a, out);
                        }
                    }
                    // `loader.get_with_default(RUNTIME, "workers", 2)?`: a configuration read
                    // whose last argument is the value when the setting is absent.
                    n if (n.ends_with("_with_default") || n == "get_or_default")
                        && m.args.len() >= 2 =>
                    {
                        if let Some(a) = m.args.last() {
                            go(a, out);
                        }
                    }
                    // `segments.saturating_sub(1)`, `n.checked_add(2)`: an offset as `n - 1`
                    // is, by the same rule (a literal beside the count is no value of it).
                    n @ ("saturating_sub" | "checked_sub" | "wrapping_sub" | "saturating_add"
                    | "checked_add" | "wrapping_add")
                        if m.args.len() == 1 =>
                    {
                        let sub = n.ends_with("sub");
                        if !self.offset(e, &m.receiver, &m.args[0], sub, out, depth) {
                            for side in [&*m.receiver, &m.args[0]] {
                                let mut found = Vec::new();
                                go(side, &mut found);
                                out.extend(
                                    found.into_iter().filter(|s| !matches!(s, Source::Lit(..))),
                                );
                            }
                        }
                    }
                    n if SCALING_METHODS.contains(&n) && m.args.len() == 1 => {
                        self.scaled(e, [&m.receiver, &m.args[0]], out, depth)
                    }
                    n if CARRYING_METHODS.contains(&n) => {
                        go(&m.receiver, out);
                        m.args.iter().for_each(|a| go(a, out));
                    }
                    n if !COMMON_METHODS.contains(&n) => {
                        out.push(Source::Place(Node::Ret(format!(".{n}")), Some(e)));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// A product or quotient's sources (`max * 2`, `total / 3`, `n.div_ceil(3)`): the places on
    /// either side, and a literal factor of a run-time value or of a count constant, which sets
    /// the bound as much as the value does (`DEFAULT_MAX_PEERS * 2`, `LIMIT / 2`). A factor of a
    /// unit is not one (`64 * MIB`, `5 * SECOND_MS`: a constant whose name the capacity names
    /// exclude), nor is a unit conversion's (`* 1024`), nor a 0 or 1.
    fn scaled<'e>(
        &self,
        whole: &'e Expr,
        sides: [&'e Expr; 2],
        out: &mut Vec<Source<'e>>,
        depth: usize,
    ) {
        let mut found = Vec::new();
        for side in sides {
            self.into(side, &mut found, depth + 1, false);
        }
        // The CPU count is a run-time value even where no place holds it
        // (`available_parallelism().map(..).unwrap_or(1) * 8`).
        let cpus = sides.iter().any(|s| crate::index::value::asks_cpus(s));
        let scales = cpus || self.holds_place(&found);
        for s in found {
            match s {
                Source::Lit(v, lit) if scales && v >= 2 && !self.unit_values.contains(&v) => {
                    out.push(Source::Factor(v, lit, whole));
                }
                Source::Lit(..) => {}
                other => out.push(other),
            }
        }
    }

    /// Whether sources hold a run-time value a literal can scale or be held back from: a place
    /// (a constant only when not named for a unit, `MIB`) or a factor of one.
    fn holds_place(&self, found: &[Source]) -> bool {
        found.iter().any(|s| match s {
            Source::Place(Node::Const(c), _) => !self.names.excludes(c),
            Source::Place(..) | Source::Factor(..) => true,
            Source::Lit(..) => false,
        })
    }

    /// A literal offset typed by hand as a setting: a reserve held back from a count (`count -
    /// N`, `sub`) or a headroom added to the CPU count (`cpus + N`, `N + cpus`). Pushes the
    /// count's sources and `N` as a factor of the difference or sum, and says so; false (nothing
    /// pushed) where the expression is no such offset.
    fn offset<'e>(
        &self,
        whole: &'e Expr,
        left: &'e Expr,
        right: &'e Expr,
        sub: bool,
        out: &mut Vec<Source<'e>>,
        depth: usize,
    ) -> bool {
        let lit = |x: &Expr| crate::index::value::Val::of(x).literal();
        let (count, v, n) = match (lit(left), lit(right)) {
            (_, Some(v)) if sub => (left, v, right),
            (Some(v), None) if !sub && counts_cpus(right) => (right, v, left),
            (None, Some(v)) if !sub && counts_cpus(left) => (left, v, right),
            _ => return false,
        };
        let mut found = Vec::new();
        self.into(count, &mut found, depth + 1, false);
        // A reserve of 1 is as often a step (`threads - 1` when scaling in): only 2 or more is
        // typed as one, except the one CPU held back from a CPU count (`num_cpus::get() - 1`,
        // `cpus - 1`), a setting of how many run at once. Any headroom on the CPU count is one.
        let typed = if sub {
            self.holds_place(&found) && (v >= 2 || (v == 1 && counts_cpus(left)))
        } else {
            v >= 1
        };
        if !typed {
            return false;
        }
        out.extend(found.into_iter().filter(|s| !matches!(s, Source::Lit(..))));
        out.push(Source::Factor(v, n, whole));
        true
    }

    /// A call's value: a wrapper's argument (`Some(x)`, `NonZeroUsize::new(x)`, `u32::from(x)`),
    /// both sides of a free `min`/`max`, or what the workspace's function of that key returns.
    fn call<'e>(
        &self,
        call: &'e Expr,
        c: &'e syn::ExprCall,
        out: &mut Vec<Source<'e>>,
        depth: usize,
        floor: bool,
    ) {
        let Expr::Path(p) = &*c.func else { return };
        let segs = crate::syntax::path_idents(&p.path);
        let Some(last) = segs.last().map(String::as_str) else {
            return;
        };
        let ty = segs.len().checked_sub(2).map(|i| segs[i].as_str());
        // `VarInt::from(n)`, `Limit::try_from(n)`: a conversion of one value carries it, whatever
        // the type (a library's integer newtype).
        let wrapper = last == "Some"
            || last == "Ok"
            || ty.is_some() && matches!(last, "from" | "try_from") && c.args.len() == 1
            || ty.is_some_and(|t| t.starts_with("NonZero") || is_int_name(t))
                && matches!(last, "new" | "new_unchecked");
        if wrapper {
            if let Some(a) = c.args.first() {
                self.into(a, out, depth + 1, floor);
            }
            return;
        }
        // `AtomicUsize::new(128)`: an atomic starts at a literal, which `.load(..)` reads (one
        // given a constant is most often a state word's flag, as `value::carried` says).
        if ty.is_some_and(|t| t.starts_with("Atomic")) && last == "new" && c.args.len() == 1 {
            if matches!(crate::index::value::carried(&c.args[0]), Expr::Lit(_)) {
                self.into(&c.args[0], out, depth + 1, floor);
            }
            return;
        }
        // `LazyLock::new(|| env_config("PIPELINE_QUERIES", 16))`: a lazily built value is what
        // its closure gives.
        if crate::index::value::lazy_new(&c.func) {
            if let Some(Expr::Closure(cl)) = c.args.first() {
                if cl.inputs.is_empty() {
                    self.into(&cl.body, out, depth + 1, floor);
                }
            }
            return;
        }
        // `env_config("PIPELINE_QUERIES", 16)`, `get_from_env("WORKERS", 4)`: a helper named
        // for the environment gives the variable's value or its fallback (and what it returns).
        let env_helper = crate::index::names::words(last).iter().any(|w| w == "env");
        if env_helper
            && c.args.len() == 2
            && matches!(&c.args[0], Expr::Lit(l) if matches!(l.lit, syn::Lit::Str(_)))
        {
            self.into(&c.args[1], out, depth + 1, floor);
        }
        if matches!(last, "min" | "max") && c.args.len() == 2 {
            for a in &c.args {
                // `cmp::max(n, 1)`: either side may be the floor.
                self.into(a, out, depth + 1, last == "max");
            }
            return;
        }
        // `Reset::new(..)`, `Config::default()`, `Frame::with_id(..)`: a constructor gives a
        // struct, not a count.
        let constructor = ty.is_some_and(|t| t.starts_with(char::is_uppercase))
            && (matches!(last, "new" | "default" | "builder" | "build")
                || last.starts_with("with_")
                || last.starts_with("from_"));
        if constructor {
            return;
        }
        if let Some(key) = fn_key(&p.path, self.self_ty) {
            out.push(Source::Place(Node::Ret(key), Some(call)));
        }
    }

    /// The type of a field's owner, when the code says it: `self` in an impl, a parameter whose
    /// type names a struct.
    pub(crate) fn type_of(&self, base: &Expr) -> Option<String> {
        let Expr::Path(p) = base else { return None };
        let id = p.path.get_ident()?.to_string();
        if id == "self" {
            return self.self_ty.map(str::to_string);
        }
        self.param_types
            .iter()
            .find(|(n, _)| *n == id)
            .map(|(_, t)| t.clone())
    }
}

/// An integer type's name (`usize`, `u32`): `usize::from(x)` carries `x`.
fn is_int_name(t: &str) -> bool {
    matches!(
        t,
        "u8" | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
    )
}

/// Whether a condition asks if a count is zero (`n == 0`, `n <= 0`, `n < 1`).
fn zero_test(cond: &Expr) -> bool {
    let Expr::Binary(b) = crate::index::value::carried(cond) else {
        return false;
    };
    matches!(
        (b.op, crate::index::value::Val::of(&b.right).literal()),
        (syn::BinOp::Eq(_) | syn::BinOp::Le(_), Some(0)) | (syn::BinOp::Lt(_), Some(1))
    )
}

/// The expressions whose value a branching expression takes: every `match` arm, an `if`'s
/// branches, a block's tail (through `return` too).
pub(crate) fn tails(e: &Expr) -> Vec<&Expr> {
    fn tail(b: &syn::Block) -> Option<&Expr> {
        match b.stmts.last() {
            Some(syn::Stmt::Expr(x, None)) => Some(x),
            _ => None,
        }
    }
    match e {
        Expr::Match(m) => m.arms.iter().map(|a| &*a.body).collect(),
        Expr::If(i) => tail(&i.then_branch)
            .into_iter()
            .chain(i.else_branch.as_ref().map(|(_, els)| &**els))
            .collect(),
        // A block's value is its tail's; so is an inline const's
        // (`const { NonZeroUsize::new(512).unwrap() }`).
        Expr::Block(syn::ExprBlock { block, .. })
        | Expr::Unsafe(syn::ExprUnsafe { block, .. })
        | Expr::Const(syn::ExprConst { block, .. }) => tail(block).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// One step of a path: the place a value went next, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) loc: Loc,
    pub(crate) note: String,
}

/// A capacity the flow found: a seed whose place reaches a capacity API.
#[derive(Debug, Clone)]
pub(crate) struct Found<'f> {
    pub(crate) seed: &'f Seed,
    /// The API the value reaches.
    pub(crate) api: String,
    /// The places it passes, in order, ending at the API's argument.
    pub(crate) path: Vec<Step>,
}

/// What the sparse parse must read to see every store into the places a value reaches an API
/// through: the cut items of `packages` that mention `key` (the identifier kept from then on)
/// and every one of `also` (`new`, for `Limits::new`: a file that never says it calls nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wanted {
    pub(crate) key: String,
    pub(crate) also: Vec<String>,
    pub(crate) packages: Vec<String>,
}

/// A place in one package: places are joined across packages only where one depends on the
/// other (`workspace::Deps`), so two unrelated crates' `.resize` or `.capacity` never meet.
type At<'f> = (u32, &'f Node);

/// Where a step happens: a file and a span in it.
type Where<'f> = (&'f str, Pos);

/// One call, by its file and span.
type Call<'f> = (&'f str, Pos);

/// The call a value is followed into a function through, while the walk back from an API is
/// inside that function's body: what its result gave at that call came in through that call's
/// arguments only. `None` outside any body, or when the way in is not known (every call).
type Ctx<'f> = Option<(&'f str, Call<'f>)>;

/// A place as the walk back from the APIs reaches it: the place and the call it is inside.
type State<'f> = (At<'f>, Ctx<'f>);

/// An edge as the walk back follows it: where the value came from, where the step is, and the
/// calls whose result it leaves and whose parameter it enters.
struct Back<'f> {
    from: At<'f>,
    at: Where<'f>,
    from_call: Option<Call<'f>>,
    to_call: Option<Call<'f>>,
}

/// Every file's flow, joined.
pub(crate) struct Graph<'f> {
    /// For each place that reaches an API (with the call it is reached inside): the next place
    /// towards it and where the value goes (`None` for the step from a package's place to the
    /// same place in a related package).
    next: HashMap<State<'f>, (State<'f>, Option<Where<'f>>)>,
    /// The calls each place is reached inside (`None`: whatever the call).
    reached: HashMap<At<'f>, Vec<Ctx<'f>>>,
    seeds: Vec<(u32, &'f Seed, &'f str)>,
    /// The parameters some function of their key names for a minimum (`thread_count(
    /// min_thread_count, ..)`, even where another `thread_count(thread_count)` is defined too).
    minimums: HashSet<(String, usize)>,
    /// The parameter names paths show: `params` less the places that functions of one key name
    /// differently (two free `init`s, `init(size)` and `init(log_format)`), shown by position.
    shown_params: std::collections::HashMap<(String, usize), String>,
    handoff: HashSet<&'f str>,
    packages: Vec<&'f str>,
    /// `deps[a][b]`: package `a` depends on package `b`, directly or not.
    deps: Vec<Vec<bool>>,
    /// The functions (by package and key) no other package can call: every definition of the
    /// key in its package is private or `pub(crate)`. A call of that key elsewhere is another
    /// function's.
    confined: HashSet<(u32, &'f str)>,
}

/// A field name of three words or more (`request_buffer_size`): one type's field, not anyone's
/// (`size`, `max_size`, `capacity`), when read from another package without its type.
fn distinctive(name: &str) -> bool {
    word_count(name) >= 3
}

/// How many words a snake-case name has (`create_pool`: 2).
fn word_count(name: &str) -> usize {
    name.split('_').filter(|w| !w.is_empty()).count()
}

/// Whether an expression is arithmetic of literals alone (`1024 * 64`, `(1 << 20) / 4`).
fn literals_alone(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Paren(p) => literals_alone(&p.expr),
        Expr::Group(g) => literals_alone(&g.expr),
        Expr::Cast(c) => literals_alone(&c.expr),
        Expr::Unary(u) => literals_alone(&u.expr),
        Expr::Binary(b) => literals_alone(&b.left) && literals_alone(&b.right),
        _ => false,
    }
}

/// The function a place belongs to the body of, by key: its parameters and result. A local's
/// function is the one the walk is inside.
fn body_of(n: &Node) -> Option<&str> {
    match n {
        Node::Param(key, _) | Node::Ret(key) => Some(key),
        _ => None,
    }
}

impl<'f> Graph<'f> {
    /// Join the files' flows, each with its package; `depends(a, b)` says whether package `a`
    /// depends on package `b` (values pass between a package and those it depends on).
    ///
    /// The walk goes back from the APIs, breadth first. A function's result reached at one call
    /// (`let permits = get_env_usize(ENV, DEFAULT_PERMITS)`) is followed into the function with
    /// that call as its context, and out of its parameters to that call's arguments only: the
    /// other calls' arguments (`get_env_usize(ENV_TIMEOUT, DEFAULT_TIMEOUT)`) never reach the
    /// semaphore through it. One level: a call inside that function takes its own context, and
    /// what reaches that function's parameters from there is followed to every caller.
    pub(crate) fn new(
        flows: impl IntoIterator<Item = (&'f FileFlow, &'f str)>,
        depends: &dyn Fn(&str, &str) -> bool,
    ) -> Graph<'f> {
        let mut packages: Vec<&str> = Vec::new();
        let mut id_of: HashMap<&str, u32> = HashMap::default();
        let mut back: HashMap<At, Vec<Back>> = HashMap::default();
        // Which packages hold each place that is the same across packages.
        let mut held: HashMap<&Node, Vec<u32>> = HashMap::default();
        // Each package's fields by name: an untyped read joins every field of that name in its
        // package, typed or not.
        let mut fields: HashMap<(u32, &str), Vec<&Node>> = HashMap::default();
        // The constants each package defines: its own `MAX` is the one its code means.
        let mut defines: HashSet<At> = HashSet::default();
        // The places a seed stores into (with `back`'s keys: every place something is written).
        let mut seeded: HashSet<At> = HashSet::default();
        let mut sinks: Vec<At> = Vec::new();
        let mut params = std::collections::HashMap::new();
        let mut named_twice: HashSet<(String, usize)> = HashSet::default();
        let mut minimums: HashSet<(String, usize)> = HashSet::default();
        let mut handoff = HashSet::default();
        let mut exported: HashSet<(u32, &str)> = HashSet::default();
        let mut confined: HashSet<(u32, &str)> = HashSet::default();
        let mut own_sinks: HashMap<&str, (&String, usize)> = HashMap::default();
        let mut seeds = Vec::new();
        // The packages whose trait impls define each method.
        let mut dispatched: HashMap<&str, Vec<u32>> = HashMap::default();
        for (flow, package) in flows {
            let p = *id_of.entry(package).or_insert_with(|| {
                packages.push(package);
                packages.len() as u32 - 1
            });
            let file = flow.file.as_str();
            let mut hold = |n: &'f Node| {
                if n.shared() {
                    let ps = held.entry(n).or_default();
                    if !ps.contains(&p) {
                        ps.push(p);
                    }
                }
                if let Node::Field(_, name) | Node::FieldRead(name) = n {
                    let same = fields.entry((p, name.as_str())).or_default();
                    if !same.contains(&n) {
                        same.push(n);
                    }
                }
            };
            for e in &flow.edges {
                if matches!(e.to, Node::Const(_)) {
                    defines.insert((p, &e.to));
                }
                back.entry((p, &e.to)).or_default().push(Back {
                    from: (p, &e.from),
                    at: (file, e.at),
                    from_call: e.from_call.map(|c| (file, c)),
                    to_call: e.to_call.map(|c| (file, c)),
                });
                hold(&e.to);
                hold(&e.from);
                if matches!(e.to, Node::Sink(_)) {
                    sinks.push((p, &e.to));
                }
            }
            for s in &flow.seeds {
                if matches!(s.to, Node::Sink(_)) {
                    sinks.push((p, &s.to));
                }
                if matches!(s.to, Node::Const(_)) {
                    defines.insert((p, &s.to));
                }
                seeded.insert((p, &s.to));
                hold(&s.to);
                seeds.push((p, s, file));
            }
            for n in &flow.params {
                if n.exported {
                    exported.insert((p, n.key.as_str()));
                } else {
                    confined.insert((p, n.key.as_str()));
                }
                let name = params
                    .entry((n.key.clone(), n.index))
                    .or_insert_with(|| n.name.clone());
                if *name != n.name {
                    named_twice.insert((n.key.clone(), n.index));
                }
                if crate::index::names::names_minimum(&n.name) {
                    minimums.insert((n.key.clone(), n.index));
                }
            }
            handoff.extend(flow.handoff.iter().map(String::as_str));
            own_sinks.extend(flow.own_sinks.iter().map(|(s, k, i)| (s.as_str(), (k, *i))));
            for key in &flow.trait_methods {
                let ps = dispatched.entry(key.as_str()).or_default();
                if !ps.contains(&p) {
                    ps.push(p);
                }
            }
        }
        confined.retain(|k| !exported.contains(k));
        let n = packages.len();
        let deps: Vec<Vec<bool>> = (0..n)
            .map(|a| (0..n).map(|b| depends(packages[a], packages[b])).collect())
            .collect();
        // Breadth first from the APIs, so each place's next step is on a shortest path.
        let mut next: HashMap<State, (State, Option<Where>)> = HashMap::default();
        sinks.sort();
        sinks.dedup();
        // The libraries' APIs first, then the workspace's own capacity parameters: a place that
        // reaches both is the API's (its 1 may set a named thread count that a parameter's
        // floor rule would quiet).
        let own_sink = |n: &Node| match n {
            Node::Sink(api) => own_sinks.get(api.as_str()).copied(),
            _ => None,
        };
        sinks.retain(|(_, n)| {
            own_sink(n).is_none_or(|(k, i)| !named_twice.contains(&(k.clone(), i)))
        });
        let (own, apis): (Vec<At>, Vec<At>) =
            sinks.into_iter().partition(|(_, n)| own_sink(n).is_some());
        let mut seen: HashSet<State> = apis.iter().map(|&s| (s, None)).collect();
        let mut queue: VecDeque<State> = apis.into_iter().map(|s| (s, None)).collect();
        let mut later = own;
        loop {
            let Some(state) = queue.pop_front() else {
                if later.is_empty() {
                    break;
                }
                for s in later.drain(..) {
                    if seen.insert((s, None)) {
                        queue.push_back((s, None));
                    }
                }
                continue;
            };
            let (at, ctx) = state;
            let (p, node) = at;
            for b in back.get(&at).into_iter().flatten() {
                // Into this function's parameter at another call than the one its result was
                // reached at: not this value's way in.
                if let (Some((f, call)), Some(c)) = (ctx, b.to_call) {
                    if body_of(node) == Some(f) && c != call {
                        continue;
                    }
                }
                let inside = match (b.from.1, b.from_call) {
                    // Out of a call's result: into that function, at that call.
                    (Node::Ret(key), Some(c)) => Some((key.as_str(), c)),
                    // Out of the caller's code, whose own caller is not known.
                    _ if b.to_call.is_some() => None,
                    // Within the function's body.
                    (Node::Local(..), _) => ctx,
                    (from, _) if body_of(from).is_some() && body_of(from) == ctx.map(|c| c.0) => {
                        ctx
                    }
                    _ => None,
                };
                let from = (b.from, inside);
                if seen.insert(from) {
                    next.insert(from, (state, Some(b.at)));
                    queue.push_back(from);
                }
            }
            for &q in held.get(node).into_iter().flatten() {
                let from = (q, node);
                // Which way a value crosses between packages: into a function's parameter from
                // the packages that call it (they depend on its own); out of its result, or out
                // of a constant from the package that defines it, into those that depend on it;
                // a typed field either way.
                let (uq, up) = (q as usize, p as usize);
                let crosses = match node {
                    Node::Param(key, _) => deps[uq][up] && !confined.contains(&(p, key.as_str())),
                    Node::Ret(_) => deps[up][uq],
                    Node::Const(_) => {
                        deps[up][uq] && defines.contains(&from) && !defines.contains(&at)
                    }
                    _ => deps[uq][up] || deps[up][uq],
                };
                if q != p && crosses && seen.insert((from, ctx)) {
                    next.insert((from, ctx), (state, None));
                    queue.push_back((from, ctx));
                }
            }
            // A method called through a trait (`component.queue_size()` in the package that
            // defines the trait) gives what the impls in the packages that depend on it return.
            if let Node::Ret(key) = node {
                for &q in dispatched.get(key.as_str()).into_iter().flatten() {
                    let from = ((q, node), ctx);
                    if q != p && deps[q as usize][p as usize] && seen.insert(from) {
                        next.insert(from, (state, None));
                        queue.push_back(from);
                    }
                }
            }
            // Within a package: a typed field may hold what an untyped write stored; an untyped
            // read may read any field of its name, typed or not.
            let field = match node {
                Node::Field(Some(_), name) | Node::FieldRead(name) => Some(name),
                _ => None,
            };
            if let Some(name) = field {
                let same = fields.get(&(p, name.as_str()));
                // An untyped read of a short name two of the package's types define (`max_tokens`
                // of a request and of a rate limit) may be either's: it is followed into neither.
                // A field written from another type's field of its name is that one's copy, no
                // second meaning (`num_clients: self.num_clients.unwrap_or(..)`, a config file's
                // optional setting taken into the options the code reads).
                let typed_fields = || {
                    same.into_iter()
                        .flatten()
                        .filter(|o| matches!(o, Node::Field(Some(_), _)))
                };
                let typed = typed_fields().count();
                let copy = |o: &Node| {
                    back.get(&(p, o)).is_some_and(|bs| {
                        bs.iter().any(|b| {
                            b.from.0 == p
                                && b.from.1 != o
                                && matches!(b.from.1, Node::Field(Some(_), f) if f == name)
                        })
                    })
                };
                // A field of the name already known to reach a capacity (the constructor's
                // `self.broadcast_capacity` this read is handed to) adds no second meaning:
                // whichever the read reads, what it passes on is a capacity's.
                let meanings = typed_fields()
                    .filter(|o| !copy(o) && !seen.contains(&((p, *o), None)))
                    .count();
                let ambiguous = meanings > 1 && !distinctive(name);
                // A typed field nothing writes is read through another type
                // (`config.buffer_limit` where `Config` derefs to `InnerConfig`, whose
                // `Default` sets it): it is that field, when the package has one other of its
                // name.
                let unwritten = matches!(node, Node::Field(Some(_), _))
                    && !back.contains_key(&at)
                    && !seeded.contains(&at)
                    && typed == 2;
                for &other in same.into_iter().flatten() {
                    let joins = match (node, other) {
                        (Node::Field(Some(_), _), Node::Field(Some(_), _)) => {
                            unwritten && other != node
                        }
                        (Node::Field(Some(_), _), Node::Field(None, _)) => true,
                        (Node::FieldRead(_), Node::Field(None, _)) => true,
                        (Node::FieldRead(_), Node::Field(Some(_), _)) => !ambiguous,
                        _ => false,
                    };
                    let from = ((p, other), None);
                    if joins && seen.insert(from) {
                        next.insert(from, (state, None));
                        queue.push_back(from);
                    }
                }
            }
            // An untyped read of a field whose name says what it holds (`request_buffer_size`,
            // not `size`) may read a field the packages this one depends on define: a server
            // reads `config.download.server.request_buffer_size` from its config crate's struct.
            if let Node::FieldRead(name) = node
                && distinctive(name)
            {
                for q in (0..n as u32).filter(|&q| q != p && deps[p as usize][q as usize]) {
                    for &other in fields.get(&(q, name.as_str())).into_iter().flatten() {
                        let from = ((q, other), None);
                        if matches!(other, Node::Field(..)) && seen.insert(from) {
                            next.insert(from, (state, None));
                            queue.push_back(from);
                        }
                    }
                }
            }
        }
        let mut reached: HashMap<At, Vec<Ctx>> = HashMap::default();
        for &(at, ctx) in next.keys() {
            reached.entry(at).or_default().push(ctx);
        }
        let shown_params = params
            .iter()
            .filter(|(k, _)| !named_twice.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Graph {
            next,
            reached,
            seeds,
            minimums,
            shown_params,
            handoff,
            packages,
            deps,
            confined,
        }
    }

    /// How a path names a place (`Limits::new(outbox)`, `Settings.inbox`).
    pub(crate) fn shown(&self, n: &Node) -> String {
        n.shown(&self.shown_params)
    }

    /// The state a seed's value reaches an API from: its place, inside a call the seed fits (a
    /// literal argument, the call it is passed at; anything else, any call), the shortest way.
    fn reached_by(&self, p: u32, s: &'f Seed, file: &'f str) -> Option<State<'f>> {
        let at = (p, &s.to);
        if matches!(s.to, Node::Sink(_)) {
            return Some((at, None));
        }
        let fits = |ctx: &Ctx| match (ctx, s.call) {
            (None, _) | (_, None) => true,
            (Some((f, call)), Some(c)) => body_of(&s.to) != Some(f) || *call == (file, c),
        };
        self.reached
            .get(&at)?
            .iter()
            .filter(|c| fits(c))
            .min_by_key(|c| self.path_len((at, **c)))
            .map(|c| (at, *c))
    }

    fn path_len(&self, mut state: State<'f>) -> usize {
        let mut n = 0;
        while let Some(&(to, _)) = self.next.get(&state) {
            n += 1;
            state = to;
            if n > self.next.len() {
                break;
            }
        }
        n
    }

    /// The identifiers of every place that reaches an API, each with the packages whose code
    /// could store into it: its own package, and for a function's parameter the packages that
    /// depend on it (its callers), for its result those it depends on (its definer), for a
    /// method's result those that depend on it (a trait's impls there), for an untyped read of
    /// a distinctive field name those it depends on, for a typed field both. Code elsewhere, or that mentions none of them, stores nothing that reaches one.
    ///
    /// A function's result is wanted only where the workspace defines a function of its name
    /// (`defined`, the prescan's signatures; empty: every one): the late pass looks for the body
    /// that stores into it, and a library's method (`.map_err`) has none there to find.
    pub(crate) fn idents(&self, defined: &rustc_hash::FxHashSet<String>) -> Vec<Wanted> {
        let mut by_ident: HashMap<Vec<&str>, HashSet<u32>> = HashMap::default();
        let all = 0..self.packages.len();
        let undefined = |key: &str| {
            let name = key.rsplit(['.', ':']).next().unwrap_or(key);
            !defined.is_empty() && !defined.contains(name)
        };
        for &((p, n), _) in self.next.keys() {
            let mentions = n.mentions();
            if mentions.is_empty() || matches!(n, Node::Ret(key) if undefined(key)) {
                continue;
            }
            let at = by_ident.entry(mentions).or_default();
            at.insert(p);
            let p = p as usize;
            let also: Vec<usize> = match n {
                Node::Param(key, _) if n.shared() && !self.confined.contains(&(p as u32, key)) => {
                    all.clone().filter(|&q| self.deps[q][p]).collect()
                }
                Node::Ret(key) if !key.starts_with('.') => {
                    all.clone().filter(|&q| self.deps[p][q]).collect()
                }
                // A method may be a trait's, implemented in the packages that depend on this
                // one (`Graph::new` follows it there); one of three words or more is also the
                // packages' it depends on (`Node::shared`).
                Node::Ret(_) => all
                    .clone()
                    .filter(|&q| self.deps[q][p] || n.shared() && self.deps[p][q])
                    .collect(),
                // A distinctive field's untyped read may read the packages it depends on.
                Node::FieldRead(name) if distinctive(name) => {
                    all.clone().filter(|&q| self.deps[p][q]).collect()
                }
                Node::Field(Some(_), _) => all
                    .clone()
                    .filter(|&q| self.deps[p][q] || self.deps[q][p])
                    .collect(),
                _ => Vec::new(),
            };
            at.extend(also.into_iter().map(|q| q as u32));
        }
        let mut out: Vec<Wanted> = by_ident
            .into_iter()
            .map(|(mentions, ps)| {
                let mut packages: Vec<String> = ps
                    .into_iter()
                    .map(|p| self.packages[p as usize].to_string())
                    .collect();
                packages.sort();
                Wanted {
                    key: mentions[0].to_string(),
                    also: mentions[1..].iter().map(|m| m.to_string()).collect(),
                    packages,
                }
            })
            .collect();
        out.sort_by(|a, b| (&a.key, &a.also).cmp(&(&b.key, &b.also)));
        out
    }

    /// The steps from `state` to the API it reaches, and the API.
    fn path(&self, mut state: State<'f>) -> (Vec<Step>, String) {
        let mut steps = Vec::new();
        // Each step is one shorter than the last: the walk ends, at the latest after every place.
        for _ in 0..=self.next.len() {
            if let Node::Sink(api) = state.0.1 {
                return (steps, api.clone());
            }
            let Some(&(to, loc)) = self.next.get(&state) else {
                break;
            };
            if let Some((file, pos)) = loc {
                steps.push(Step {
                    loc: pos.loc(file),
                    note: match to.0.1 {
                        Node::Sink(api) => format!("flows into {api}"),
                        other => format!("flows into {}", other.shown(&self.shown_params)),
                    },
                });
            }
            state = to;
        }
        (steps, String::new())
    }

    /// The literals whose value reaches a capacity API, each with its path. A 0 sets nothing; a
    /// 1 given to a lock or a hand-off (`Semaphore::new(1)`) is no capacity.
    /// Whether `to` is a parameter named for a minimum (`thread_count_limits(min_thread_count,
    /// ..)`): a 1 given there is a floor.
    fn to_minimum(&self, to: &Node) -> bool {
        let Node::Param(key, i) = to else {
            return false;
        };
        self.minimums.contains(&(key.clone(), *i))
    }

    pub(crate) fn capacities(&self) -> Vec<Found<'f>> {
        let mut out = Vec::new();
        for &(p, s, file) in &self.seeds {
            if s.value == 0 {
                continue;
            }
            let Some(state) = self.reached_by(p, s, file) else {
                continue;
            };
            let (path, api) = self.path(state);
            if api.is_empty() || (s.value == 1 && self.handoff.contains(api.as_str())) {
                continue;
            }
            if s.value == 1 && self.to_minimum(&s.to) {
                continue;
            }
            out.push(Found { seed: s, api, path });
        }
        out
    }
}

/// Whether `e` is the machine's CPU count: the call that asks it (`num_cpus::get()`,
/// `available_parallelism()`), or a local or field named for it (`cpus`, `num_cpus`, `cores`).
fn counts_cpus(e: &Expr) -> bool {
    use crate::index::value::{asks_cpus, carried, is_cpu_word, place_name};
    let mut e = carried(e);
    // `available_parallelism.get()`: a `NonZeroUsize` count's value.
    while let Expr::MethodCall(m) = e {
        if m.method != "get" || !m.args.is_empty() {
            break;
        }
        e = carried(&m.receiver);
    }
    asks_cpus(e) || place_name(e).is_some_and(|n| is_cpu_word(&n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(line: usize) -> Loc {
        Loc {
            file: "src/lib.rs".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
        }
    }

    #[test]
    fn a_literal_reaches_an_api_through_a_constant_a_parameter_and_a_field() {
        let c = Node::Const("DEFAULT_FETCHES".into());
        let p = Node::Param("Limits::new".into(), 0);
        let f = Node::Field(Some("Limits".into()), "fetches".into());
        let sink = Node::Sink("Semaphore::new".into());
        let flow = FileFlow {
            file: "src/lib.rs".into(),
            edges: vec![
                Edge {
                    from: c.clone(),
                    to: p.clone(),
                    at: Pos::of(&loc(2)),
                    from_call: None,
                    to_call: None,
                },
                Edge {
                    from: p.clone(),
                    to: Node::Local(7, "fetches".into()),
                    at: Pos::of(&loc(3)),
                    from_call: None,
                    to_call: None,
                },
                Edge {
                    from: Node::Local(7, "fetches".into()),
                    to: f.clone(),
                    at: Pos::of(&loc(4)),
                    from_call: None,
                    to_call: None,
                },
                Edge {
                    from: f.clone(),
                    to: sink.clone(),
                    at: Pos::of(&loc(5)),
                    from_call: None,
                    to_call: None,
                },
            ],
            seeds: vec![
                Seed {
                    value: 50,
                    loc: loc(1),
                    to: c,
                    site: "m::DEFAULT_FETCHES".into(),
                    item: "DEFAULT_FETCHES".into(),
                    kind: crate::index::CapacityKind::Const,
                    call: None,
                    factor: None,
                },
                Seed {
                    value: 7,
                    loc: loc(9),
                    to: Node::Field(None, "unrelated".into()),
                    site: "m::X::unrelated".into(),
                    item: "unrelated".into(),
                    kind: crate::index::CapacityKind::Field,
                    call: None,
                    factor: None,
                },
            ],
            params: vec![ParamName {
                key: "Limits::new".into(),
                index: 0,
                name: "fetches".into(),
                exported: true,
            }],
            handoff: Vec::new(),
            trait_methods: Vec::new(),
            own_sinks: Vec::new(),
        };
        let g = Graph::new([(&flow, "m")], &|_, _| false);
        let found = g.capacities();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].api, "Semaphore::new");
        let notes: Vec<&str> = found[0].path.iter().map(|s| s.note.as_str()).collect();
        assert_eq!(
            notes,
            [
                "flows into Limits::new(fetches)",
                "flows into fetches",
                "flows into Limits.fetches",
                "flows into Semaphore::new"
            ]
        );
        let wanted: Vec<(String, Vec<String>)> = g
            .idents(&Default::default())
            .into_iter()
            .map(|w| (w.key, w.also))
            .collect();
        let s = |x: &str| x.to_string();
        assert_eq!(
            wanted,
            [
                (s("DEFAULT_FETCHES"), vec![]),
                (s("Limits"), vec![s("new")]),
                (s("fetches"), vec![])
            ]
        );
    }

    #[test]
    fn a_parameter_two_functions_of_one_key_name_differently_is_shown_by_position() {
        // Two free `init`s of a package (`page_cache::init(size)`, `logging::init(log_format)`)
        // share the key `init`: the path cannot say which name is the one the value took.
        let p = Node::Param("init".into(), 0);
        let sink = Node::Sink("Semaphore::new".into());
        let flow = FileFlow {
            file: "src/lib.rs".into(),
            edges: vec![Edge {
                from: p.clone(),
                to: sink,
                at: Pos::of(&loc(3)),
                from_call: None,
                to_call: None,
            }],
            seeds: vec![Seed {
                value: 100,
                loc: loc(1),
                to: p.clone(),
                site: "m::main::init".into(),
                item: "init(#0)".into(),
                kind: crate::index::CapacityKind::Arg,
                call: None,
                factor: None,
            }],
            params: ["size", "log_format"]
                .into_iter()
                .map(|name| ParamName {
                    key: "init".into(),
                    index: 0,
                    name: name.into(),
                    exported: true,
                })
                .collect(),
            handoff: Vec::new(),
            trait_methods: Vec::new(),
            own_sinks: Vec::new(),
        };
        let g = Graph::new([(&flow, "m")], &|_, _| false);
        assert_eq!(g.shown(&p), "init(#0)");
    }

    #[test]
    fn a_private_functions_parameter_is_reached_from_its_own_package_only() {
        // Package `a` defines `Pool::new(workers)` into a semaphore; package `b`, which depends
        // on `a`, calls a `Pool::new(8)` of its own. Only a `pub fn` can be the one `b` calls.
        let param = Node::Param("Pool::new".into(), 0);
        let def = |exported: bool| FileFlow {
            file: "a/src/lib.rs".into(),
            edges: vec![Edge {
                from: param.clone(),
                to: Node::Sink("Semaphore::new".into()),
                at: Pos::of(&loc(3)),
                from_call: None,
                to_call: None,
            }],
            params: vec![ParamName {
                key: "Pool::new".into(),
                index: 0,
                name: "workers".into(),
                exported,
            }],
            ..FileFlow::default()
        };
        let caller = FileFlow {
            file: "b/src/lib.rs".into(),
            seeds: vec![Seed {
                value: 8,
                loc: loc(1),
                to: param.clone(),
                site: "b::main".into(),
                item: "Pool::new(#0)".into(),
                kind: crate::index::CapacityKind::Arg,
                call: None,
                factor: None,
            }],
            ..FileFlow::default()
        };
        let depends = |x: &str, y: &str| x == "b" && y == "a";
        for (exported, found) in [(true, 1), (false, 0)] {
            let a = def(exported);
            let g = Graph::new([(&a, "a"), (&caller, "b")], &depends);
            assert_eq!(g.capacities().len(), found, "exported: {exported}");
            let asked_in_b = g
                .idents(&Default::default())
                .iter()
                .any(|w| w.key == "Pool" && w.packages.iter().any(|p| p == "b"));
            assert_eq!(asked_in_b, exported, "exported: {exported}");
        }
    }
}
