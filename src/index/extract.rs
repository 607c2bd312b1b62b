//! The index's collector: records capacity-relevant facts of one file as the one syntax walk
//! (`syntax::walk`) passes them. It knows test code from production code through the walk's
//! scope, and leaves the contents of formatting and logging macros alone.

use proc_macro2::LineColumn;
use syn::Expr;
use syn::spanned::Spanned;

use crate::index::CapacityKind;
use crate::index::facts::*;
use crate::index::flow;
use crate::index::tables::Tables;
use crate::index::value::{Operand, Val, cpu_floor_of_one, is_const_name, is_cpu_word, place_name};
use crate::source::Loc;
use crate::syntax::walk::{Collector, ConstItem, FnItem, View};
use crate::syntax::{FileRole, loc_of, path_ends_with, snippet};

/// The location of the literal an expression's value is (through wrappers and fallbacks).
fn lit_loc(rel: &str, e: &Expr) -> Loc {
    crate::syntax::expr_loc(rel, crate::index::value::carried(e))
}

/// Collects one file's [`FileFacts`].
pub(crate) struct Extractor<'a> {
    tables: &'a Tables,
    facts: FileFacts,
    /// `let` bindings to an integer literal in the current function, in order, with the index of
    /// their `named_lits` entry once they are one; the outer functions' are stacked.
    locals: Vec<LocalLit>,
    outer_locals: Vec<Vec<LocalLit>>,
    /// Bindings that read a gauge in the current functions (`let mut current =
    /// connection_count.load(..)`): the function's id, the binding and the gauge. A bound the
    /// binding is compared with bounds the gauge (`held`).
    gauge_reads: Vec<(u64, String, String)>,
    /// The constants declared in function bodies: the function's `fn_id` and the name. A bare
    /// name in that function is its own constant, a local (`flow::Sources::local_consts`).
    local_consts: Vec<(u64, String)>,
    /// What the file's `use` items import (`channel -> tokio::sync::mpsc::channel`), so a bare
    /// imported call reaches the API table.
    imports: std::collections::HashMap<String, Vec<String>>,
    /// The function keys of the enclosing functions (`index::flow::def_key`), innermost last;
    /// `None` for one whose result cannot be a count (`flow::may_return_int`).
    fn_keys: Vec<Option<String>>,
    /// Their ids (`next_fn_id`), which name their locals.
    fn_ids: Vec<u64>,
    /// The file's index in the workspace's files, the high half of its functions' ids.
    file_index: u32,
    /// How many functions of the file have an id: the low half of the next one.
    fns_seen: u32,
    /// Whether what a call returns counts as a source (`flows_into`).
    calls_followed: bool,
    /// While a call's arguments are recorded: the call, which their parameters' edges name.
    call_at: Option<flow::Pos>,
    /// The enclosing functions' parameters with the struct type each declares, innermost last.
    param_types: Vec<Vec<(String, String)>>,
    /// The enclosing functions' parameters taken by value and not `mut` (`batches: Vec<Batch>`,
    /// `arg: ReadArg`), innermost last: a collection among them is the call's input, which the
    /// function cannot fill, so a length compared with it is no ceiling of work held
    /// (`work_len`). A borrowed or shared one may be state (`futures: &FetchFutures`,
    /// `manager: Arc<Manager>`).
    read_params: Vec<Vec<String>>,
    /// Where the callee of a broadcast channel made for a stop signal sits
    /// (`let (stop_send, _) = broadcast::channel(2)`): its bound is no capacity.
    signals: Vec<flow::Pos>,
    /// Where the 1 of a zero guard's assignment sits (`if n == 0 { n = 1; }`): a floor that
    /// keeps a count from being zero, no capacity.
    floors: Vec<flow::Pos>,
    /// Where the argument of an allocation hint sits (`VecDeque::with_capacity(cap.min(1024))`,
    /// `v.reserve(n.min(64))`): a bound there caps memory reserved ahead, no work.
    hints: Vec<flow::Pos>,
    /// Where a length comparison sits that is no ceiling: one whose loop or branch then takes
    /// that many items off the collection (`while pending.len() >= stride { .. &pending[..stride]
    /// .. }`: a chunk's size, `framing`), or one that refuses too few (`if queues.len() < 3 {
    /// bail!(..) }`: a minimum, `minimum`).
    no_ceiling: Vec<flow::Pos>,
    /// The file's gauges (`syntax::sparse::Lexical::gauges`), sorted.
    gauges: Vec<String>,
    /// The file's senders of constants only (`syntax::sparse::Lexical::signal_senders`), sorted.
    signal_senders: Vec<String>,
    /// The collections the file bounds by the capacity they were made with
    /// (`syntax::sparse::Lexical::self_bounded`), sorted.
    self_bounded: Vec<String>,
    /// The bindings a variant's pattern makes for one arm or branch (`flow_pattern`).
    scopes: Vec<flow::Scope>,
    /// The constants each binding of the file is computed from, by the binding's site
    /// (`let_constants`).
    let_consts: Vec<(String, Vec<Loc>)>,
    /// Whether the file's text names a GPU launch (the rule's `launch_names`), once asked: a
    /// file that names none sizes none, and its bindings' constants are not collected.
    launch_file: Option<bool>,
}

/// A capacity API a call matches.
struct ApiHit {
    name: String,
    /// The argument that carries the capacity.
    arg: usize,
    /// A 1 there is a lock or a hand-off (see `ApiArg::quiet_at_one`).
    quiet_at_one: bool,
}

struct LocalLit {
    name: String,
    value: u64,
    loc: Loc,
    named_lit: Option<usize>,
    /// For a value that reaches the binding through branches or other bindings
    /// (`let default = limit.unwrap_or(default_optimal)`), the binding its literal is written
    /// in; `None` for the binding's own literal (`let workers = 4`).
    origin: Option<String>,
}

impl<'a> Extractor<'a> {
    pub(crate) fn new(tables: &'a Tables, rel: &str, role: FileRole) -> Self {
        Extractor {
            tables,
            facts: FileFacts {
                rel: rel.to_string(),
                role,
                flow: flow::FileFlow {
                    file: rel.to_string(),
                    ..Default::default()
                },
                ..FileFacts::default()
            },
            locals: Vec::new(),
            outer_locals: Vec::new(),
            gauge_reads: Vec::new(),
            local_consts: Vec::new(),
            imports: Default::default(),
            fn_keys: Vec::new(),
            fn_ids: Vec::new(),
            file_index: 0,
            fns_seen: 0,
            calls_followed: true,
            call_at: None,
            param_types: Vec::new(),
            read_params: Vec::new(),
            signals: Vec::new(),
            floors: Vec::new(),
            hints: Vec::new(),
            no_ceiling: Vec::new(),
            gauges: Vec::new(),
            signal_senders: Vec::new(),
            self_bounded: Vec::new(),
            scopes: Vec::new(),
            let_consts: Vec::new(),
            launch_file: None,
        }
    }

    /// What the file's tokens say (`syntax::sparse::lexical`): its gauges, its signal senders.
    pub(crate) fn with_lexical(mut self, lexical: crate::syntax::sparse::Lexical) -> Self {
        self.gauges = lexical.gauges;
        self.signal_senders = lexical.signal_senders;
        self.self_bounded = lexical.self_bounded;
        self
    }

    /// The file's index among the workspace's files: its functions' ids are then unique in the
    /// run and the same whatever order the files are walked in (a flow's path among equals, and so
    /// the report, never depends on the threads).
    pub(crate) fn with_file_index(mut self, index: usize) -> Self {
        self.file_index = u32::try_from(index).unwrap_or(u32::MAX);
        self
    }

    /// A new id for a function's locals (`flow::Node::Local`).
    fn next_fn_id(&mut self) -> u64 {
        self.fns_seen += 1;
        (u64::from(self.file_index) << 32) | u64::from(self.fns_seen)
    }

    pub(crate) fn finish(self) -> FileFacts {
        self.facts
    }
}

impl Extractor<'_> {
    fn const_item(&mut self, v: &View, c: &ConstItem) {
        // `pub const _SC_THREAD_THREADS_MAX: int = 61;`: C reserves a name of an underscore and
        // a capital for the implementation (POSIX's `_SC_*`, `_POSIX_*`), and a constant so
        // named is the platform's id or limit copied by hand, not this project's setting.
        let name = c.ident.to_string();
        if name
            .strip_prefix('_')
            .is_some_and(|rest| rest.starts_with(|x: char| x.is_ascii_uppercase()))
        {
            return;
        }
        let val = Val::of_place(c.expr);
        let visibility = match c.vis {
            syn::Visibility::Public(_) => Visibility::Public,
            syn::Visibility::Restricted(_) => Visibility::Crate,
            syn::Visibility::Inherited => Visibility::Private(v.scope.module()),
        };
        let counts = is_int(c.ty);
        let excluded_type =
            type_name(c.ty).is_some_and(|t| self.tables.capacity_names.excludes(&t));
        if matches!(val, Val::Other) {
            // `const MAX_BATCH: usize = if cfg!(..) { 64 } else { 16 };`: each branch's literal.
            if !excluded_type && self.tables.capacity_names.matches_binding(&name, counts) {
                let kind = if c.is_static {
                    CapacityKind::Static
                } else {
                    CapacityKind::Const
                };
                let site = v.scope.site(&name);
                match crate::index::value::cfg_select_arms(c.expr) {
                    // `const CHANNEL_CAPACITY: usize = cfg_select! { target_os = "ios" =>
                    // { 40 } _ => { 100 } };`: each platform's value.
                    Some(arms) => {
                        for arm in &arms {
                            self.leaf_lits(v, arm, &site, &name, kind, &visibility);
                        }
                    }
                    None => self.leaf_lits(v, c.expr, &site, &name, kind, &visibility),
                }
            }
            return;
        }
        let loc = match val {
            Val::Lit(_) => lit_loc(v.rel, c.expr),
            _ => crate::syntax::expr_loc(v.rel, c.expr),
        };
        self.facts.consts.push(ConstDef {
            ident: name.clone(),
            site: v.scope.site(&name),
            val,
            loc,
            visibility,
            is_static: c.is_static,
            in_test: v.in_test(),
            counts,
            excluded_type,
            function: v.function().map(str::to_string),
        });
    }

    /// Whether `name` is a capacity's; `counts`: its type is an integer (see
    /// `NameTable::matches_count`).
    fn names(&self, name: &str, counts: bool) -> bool {
        if counts {
            self.tables.capacity_names.matches_count(name)
        } else {
            self.tables.capacity_names.matches(name)
        }
    }

    /// Every literal that sets `expr`'s value (`value::leaves`: branches, fallbacks, bounds) as a
    /// named literal of `site`; a literal of 0 sets nothing.
    fn leaf_lits(
        &mut self,
        v: &View,
        expr: &Expr,
        site: &str,
        name: &str,
        kind: CapacityKind,
        visibility: &Visibility,
    ) {
        // `available_parallelism().map_or(1, ..)`: one CPU when the platform does not say, a
        // floor whatever the name it gets (the fallback's other values are capacities).
        let cpu_count = crate::index::value::asks_cpus(expr);
        if self.default_of_no_count(expr) {
            return;
        }
        self.const_flows(v, expr, &format!("`{name}`"), true);
        for leaf in crate::index::value::leaves(expr) {
            // A number written as a string counts where a name says what it is
            // (`const DEFAULT_CONCURRENCY: &str = "5"`, `var("N_UBATCH").unwrap_or("4096".into())`).
            let Some(value) = Val::of(leaf)
                .literal()
                .or_else(|| crate::index::value::str_int(leaf))
            else {
                continue;
            };
            if cpu_count && value <= 1 {
                continue;
            }
            self.facts.named_lits.push(NamedLit {
                site: site.to_string(),
                ident: name.to_string(),
                value,
                loc: crate::syntax::expr_loc(v.rel, leaf),
                in_test: v.in_test(),
                kind,
                visibility: visibility.clone(),
                flows: Vec::new(),
            });
        }
    }

    /// Whether `expr` is the fallback of a setting named for no count or no capacity
    /// (`self.relay_api_rate_limit_max_requests.unwrap_or(100)`: the default of a rate, whatever
    /// the binding it lands in is called).
    fn default_of_no_count(&self, expr: &Expr) -> bool {
        // Parentheses and casts only: `value::carried` also steps into the fallback
        // (`x.unwrap_or(100)` carries `100`), losing the setting this asks about.
        let mut e = expr;
        while let Expr::Paren(syn::ExprParen { expr: inner, .. })
        | Expr::Cast(syn::ExprCast { expr: inner, .. }) = e
        {
            e = inner;
        }
        loop {
            let Expr::MethodCall(m) = e else { return false };
            if !matches!(
                m.method.to_string().as_str(),
                "unwrap_or" | "unwrap_or_else" | "map_or" | "map_or_else" | "unwrap_or_default"
            ) {
                return false;
            }
            let recv = accessed(&m.receiver, &["clone", "as_ref", "copied", "cloned", "ok"]);
            if let Some(n) = place_name(recv) {
                return self.tables.names_no_count(&n) || self.tables.capacity_names.excludes(&n);
            }
            e = recv;
        }
    }

    /// The constants that set a capacity's value (`let workers = DEFAULT_WORKERS;`, a bound, the
    /// total a count divides: `max(BUDGET / parallelism, 1)`) flow into it: into `api`, or into
    /// the capacity-named binding `api` names (`binding`).
    fn const_flows(&mut self, v: &View, expr: &Expr, api: &str, binding: bool) {
        for p in crate::index::value::const_leaves(expr) {
            let Some(ident) = crate::syntax::last_segment(&p.path) else {
                continue;
            };
            self.facts.const_refs.push(ConstRef {
                ident,
                loc: crate::syntax::path_loc(v.rel, &p.path),
                in_test: v.in_test(),
                api: Some(api.to_string()),
                binding,
                function: bare_in_function(v, &p.path),
            });
        }
    }

    /// Whether the call of `func` makes a channel that carries no work (`stop_signal`,
    /// `dropped_receiver`).
    fn signalled(&self, func: &Expr) -> bool {
        !self.signals.is_empty()
            && self
                .signals
                .contains(&flow::Pos::of(&crate::syntax::expr_loc(
                    &self.facts.rel,
                    func,
                )))
    }

    /// The capacity API this call matches, with the argument that carries the capacity.
    fn api_of_call(&self, func: &Expr, n_args: usize) -> Option<ApiHit> {
        let Expr::Path(p) = func else { return None };
        if self.signalled(func) {
            return None;
        }
        // `channel(64)` after `use tokio::sync::mpsc::channel;` is `mpsc::channel(64)`, and
        // `async_mpsc::channel(64)` after `use tokio::sync::{mpsc as async_mpsc};` is too.
        let owned;
        let first = p.path.segments[0].ident.to_string();
        let have: &[String] = match (
            p.path.leading_colon,
            p.path.segments.len(),
            self.imports.get(&first),
        ) {
            (None, 1, Some(full)) => full,
            // A module renamed (`mpsc as async_mpsc`); a type renamed (`ipc::Buffer as
            // IpcBuffer`) keeps its own name, which no table's type shares by accident.
            (None, 2.., Some(full))
                if full.last() != Some(&first) && first.starts_with(char::is_lowercase) =>
            {
                owned = full
                    .iter()
                    .cloned()
                    .chain(p.path.segments.iter().skip(1).map(|s| s.ident.to_string()))
                    .collect::<Vec<_>>();
                &owned
            }
            _ => {
                owned = crate::syntax::path_idents(&p.path);
                &owned
            }
        };
        let last = have.last()?;
        self.tables.calls_ending(last).find_map(|api| {
            let call = api.call.as_deref()?;
            (crate::syntax::segments_end_with(have, call)
                && api.arg < n_args
                && !self.own_function(have, api.arg))
            .then(|| ApiHit {
                name: call.to_string(),
                arg: api.arg,
                quiet_at_one: api.handoff,
            })
        })
    }

    /// Whether a call of `path` (`Buffer::new`, as the file resolves it) that matches a library
    /// API's path is the workspace's own function instead: the workspace defines `Type::name`,
    /// the file names the type through no other crate (no import, or one from `crate`, `self`,
    /// `super` or a workspace crate), and the workspace's parameter at the API's argument `arg`
    /// is neither named for a capacity nor unused (`Tables::own_assoc`). crucible's
    /// `Buffer::new(block_count, block_size)` is a block of bytes, not tower's
    /// `Buffer::new(service, bound)`.
    fn own_function(&self, path: &[String], arg: usize) -> bool {
        let [prefix @ .., ty, name] = path else {
            return false;
        };
        let Some(keeps_api) = self.tables.own_assoc.get(&format!("{ty}::{name}")) else {
            return false;
        };
        let local = |full: &[String]| {
            full.first().is_some_and(|r| {
                matches!(r.as_str(), "crate" | "self" | "super")
                    || self.tables.own_crates.contains(r)
            })
        };
        let ours = match prefix {
            [] => self.imports.get(ty).is_none_or(|full| local(full)),
            _ => local(prefix),
        };
        ours && !keeps_api.contains(&arg)
    }

    /// The capacity API this method call matches: a method of the table, or a setter named
    /// exactly for a capacity (`.workers(4)`, `.with_max_seqs(4)`, `.set_max_connections(10)`)
    /// with one argument; a verb on one (`.add_permits(1)`) is not a setter, and neither is a
    /// batch's on a query (`collection.find(filter).batch_size(1000)`: one page of a cursor's
    /// series, the labelling guide's serial page size).
    fn api_of_method(&self, m: &syn::ExprMethodCall) -> Option<ApiHit> {
        let (name, n_args) = (m.method.to_string(), m.args.len());
        // A setter of a table's method of several words sets the same bound (quinn's
        // `conn.set_max_concurrent_uni_streams(..)`, of `max_concurrent_uni_streams`); a
        // one-word one may be anything's (Metal's `set_buffer(index, ..)` is no `.buffer(n)`).
        let unset = name.strip_prefix("set_").filter(|m| m.contains('_'));
        let by_name = self.tables.methods_named(&name).map(|api| (&name[..], api));
        let by_unset = unset
            .into_iter()
            .flat_map(|m| self.tables.methods_named(m).map(move |api| (m, api)));
        let table = by_name.chain(by_unset).find_map(|(m, api)| {
            (api.arg < n_args).then(|| ApiHit {
                name: format!(".{m}()"),
                arg: api.arg,
                quiet_at_one: api.handoff,
            })
        });
        table.or_else(|| {
            if n_args != 1 {
                return None;
            }
            let setting = setting(&name);
            // `.max_outstanding_nexus_tasks(5)`: a maximum named for a capacity is set too.
            let names = &self.tables.capacity_names;
            // `.query_parallelism(5)` (discv5's requests in flight per query): a degree of
            // concurrency named as such, whatever comes before it; not the machine's CPU count
            // under its C++ and Rust names (`.emulate_hardware_concurrency(8)`, a browser
            // fingerprint's; `available_parallelism`).
            let degree = || {
                let w = crate::index::names::words(setting);
                w.last()
                    .is_some_and(|l| matches!(l.as_str(), "parallelism" | "concurrency"))
                    && !w
                        .iter()
                        .any(|x| matches!(x.as_str(), "hardware" | "available"))
            };
            let named = names.is_exactly(setting)
                || ((setting.starts_with("max_") || degree()) && names.matches(setting));
            if !named {
                return None;
            }
            let page = crate::index::names::words(setting)
                .iter()
                .any(|w| w == "batch" || crate::index::names::names_page(w));
            // A call before it in the chain reads a page (`find` in `coll().find(f)...`; not a
            // setting such as `.read_timeout(..)`).
            let query = || {
                let (_, methods) = crate::syntax::chain(&m.receiver);
                methods.iter().any(|q| {
                    let q = q.method.to_string();
                    crate::index::names::names_page_reader(&q) && !names.excludes(&q)
                })
            };
            (!(page && query())).then(|| ApiHit {
                name: format!(".{name}()"),
                arg: 0,
                // A minimum of one (`.min_connections(1)`, `.min_idle(1)`) keeps a pool from
                // emptying: a floor, as `n.max(1)` is.
                quiet_at_one: setting.starts_with("min_"),
            })
        })
    }

    fn named_let(&mut self, v: &View, name: &str, value: u64, loc: Loc) {
        self.facts.named_lits.push(NamedLit {
            site: crate::site::child(&v.function_site(), name),
            ident: name.to_string(),
            value,
            loc,
            in_test: v.in_test(),
            kind: CapacityKind::Let,
            visibility: Visibility::Public,
            flows: Vec::new(),
        });
    }

    /// A local binding to a literal that reaches a capacity API (`let io_bandwidth = 64;` ..
    /// `.buffer_unordered(io_bandwidth)`) is a capacity whatever its name. One of 0 is not, nor
    /// one of 1 given to a lock or a hand-off (see `index::capacities`).
    fn local_flow(&mut self, v: &View, api: &ApiHit, arg: &Expr, at: Loc) {
        let Expr::Path(p) = crate::index::value::carried(arg) else {
            return;
        };
        let Some(ident) = p.path.get_ident().map(|i| i.to_string()) else {
            return;
        };
        let Some(at_local) = self
            .locals
            .iter()
            .rposition(|l| l.name == ident && l.origin.is_none())
        else {
            return;
        };
        let local = &self.locals[at_local];
        let quiet = local.value == 0 || (local.value == 1 && api.quiet_at_one);
        if quiet && local.named_lit.is_none() {
            return;
        }
        let i = match local.named_lit {
            Some(i) => i,
            None => {
                let (value, loc) = (local.value, local.loc.clone());
                self.named_let(v, &ident, value, loc);
                let i = self.facts.named_lits.len() - 1;
                self.locals[at_local].named_lit = Some(i);
                i
            }
        };
        self.facts.named_lits[i].flows.push((api.name.clone(), at));
    }

    /// `let default_optimal = match kind { .. => 10_000, _ => 4096 }; let default =
    /// computed.unwrap_or(default_optimal); let max_batch_prefill_tokens = default.min(vram);`:
    /// the literals that reach a binding through branches, fallbacks, upper bounds and other
    /// bindings of the function are remembered with it, and a binding named for a capacity is
    /// set by each (its own literals are named lets already: `leaf_lits`). A literal that comes
    /// through another binding names that binding; a 1 there is a floor or a default, no setting.
    fn local_chain(&mut self, v: &View, name: String, value: &Expr) {
        const MAX_CHAIN: usize = 16;
        // The literals that set `e`, each with its place and the binding it is written in.
        let lits = |e: &Expr, origin: &str| -> Vec<(u64, Loc, String)> {
            crate::index::value::leaves(e)
                .into_iter()
                .filter_map(|leaf| Val::of(leaf).literal().map(|n| (n, leaf)))
                .map(|(n, leaf)| (n, crate::syntax::expr_loc(v.rel, leaf), origin.to_string()))
                .collect()
        };
        let own = lits(value, &name);
        // The bindings of the initialiser's own blocks (`let x = { let d = ..; d.min(m) };`) are
        // read before the walk reaches them.
        let mut via = Vec::new();
        let mut ids = crate::index::value::local_leaves(value);
        let inner = if ids.is_empty() {
            Vec::new()
        } else {
            inner_lets(value)
        };
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = ids.pop() {
            if !seen.insert(id.clone()) || seen.len() > MAX_CHAIN {
                continue;
            }
            // Every write of the name there (a shadowed `let value = value.min(m);` too).
            let writes: Vec<&Expr> = inner
                .iter()
                .filter(|(n, _)| *n == id)
                .map(|(_, init)| *init)
                .collect();
            if !writes.is_empty() {
                for init in writes {
                    via.extend(lits(init, &id));
                    ids.extend(crate::index::value::local_leaves(init));
                }
                continue;
            }
            // The binding's latest write and what it was set by.
            let Some(last) = self.locals.iter().rposition(|l| l.name == id) else {
                continue;
            };
            let first = self.locals[..=last]
                .iter()
                .rposition(|l| l.name != id)
                .map_or(0, |i| i + 1);
            for l in &self.locals[first..=last] {
                let origin = l.origin.clone().unwrap_or_else(|| l.name.clone());
                via.push((l.value, l.loc.clone(), origin));
            }
        }
        if self.tables.capacity_names.matches(&name) && !is_cpu_word(&name) {
            let at = crate::syntax::expr_loc(v.rel, value);
            for (n, loc, origin) in via.iter().filter(|(n, ..)| *n >= 2) {
                if self.facts.named_lits.iter().any(|x| &x.loc == loc) {
                    continue;
                }
                self.facts.named_lits.push(NamedLit {
                    site: crate::site::child(&v.function_site(), origin),
                    ident: origin.clone(),
                    value: *n,
                    loc: loc.clone(),
                    in_test: false,
                    kind: CapacityKind::Let,
                    visibility: Visibility::Public,
                    flows: vec![(name.clone(), at.clone())],
                });
            }
        }
        let chain: Vec<_> = own.into_iter().chain(via).take(MAX_CHAIN).collect();
        for (value, loc, origin) in chain {
            self.locals.push(LocalLit {
                name: name.clone(),
                value,
                loc,
                named_lit: None,
                origin: Some(origin),
            });
        }
    }

    fn api_arg(&mut self, v: &View, api: &ApiHit, arg: &Expr) {
        let operand = Operand::new(arg, v.rel, v.text);
        if operand.val == Val::Other {
            self.local_flow(v, api, arg, operand.loc.clone());
            // `Semaphore::new(cmp::max(BUDGET / n, 1))`: the constants that set the argument.
            self.const_flows(v, arg, &api.name, false);
            // `Semaphore::new(n.min(64))`, `.buffer_unordered(if fast { 32 } else { 8 })`.
            for leaf in crate::index::value::leaves(arg) {
                self.facts.api_args.push(ApiArg {
                    api: api.name.clone(),
                    site: v.function_site(),
                    arg: Operand::new(leaf, v.rel, v.text),
                    in_test: v.in_test(),
                    quiet_at_one: api.quiet_at_one,
                });
            }
        }
        // `mpsc::channel(CHAN_SIZE * 2)`, `mpsc::channel(MAX_UPLOADS / 2)`: the multiplier or
        // divisor of a constant sets the bound as much as the constant does (a unit conversion's,
        // `/ 1000`, does not). A multiplier of a runtime count is `per-unit-cap`'s.
        if let Expr::Binary(b) = crate::index::value::carried(arg) {
            let (l, r): (&Expr, &Expr) = (&b.left, &b.right);
            let sides: Vec<(&Expr, &Expr)> = match b.op {
                syn::BinOp::Mul(_) => vec![(l, r), (r, l)],
                syn::BinOp::Div(_)
                    if Val::of(r)
                        .literal()
                        .is_some_and(|n| !self.tables.unit_values.contains(&n)) =>
                {
                    vec![(r, l)]
                }
                _ => Vec::new(),
            };
            for (lit, other) in sides {
                let factor = Val::of(lit).literal().filter(|n| *n >= 2);
                if factor.is_some()
                    && Val::of(lit).is_lit()
                    && matches!(Val::of(other), Val::Const(_))
                {
                    self.facts.api_args.push(ApiArg {
                        api: api.name.clone(),
                        site: v.function_site(),
                        arg: Operand::new(lit, v.rel, v.text),
                        in_test: v.in_test(),
                        quiet_at_one: api.quiet_at_one,
                    });
                }
            }
        }
        if let Val::Const(ident) = &operand.val {
            // The constant's own location (not `N as usize`'s), so the plain reference recorded
            // at the same place is recognised as this one.
            let loc = match crate::index::value::carried(arg) {
                Expr::Path(p) => crate::syntax::path_loc(v.rel, &p.path),
                _ => operand.loc.clone(),
            };
            let function = match crate::index::value::carried(arg) {
                Expr::Path(p) => bare_in_function(v, &p.path),
                _ => None,
            };
            self.facts.const_refs.push(ConstRef {
                ident: ident.clone(),
                loc,
                in_test: v.in_test(),
                api: Some(api.name.clone()),
                binding: false,
                function,
            });
        }
        self.facts.api_args.push(ApiArg {
            api: api.name.clone(),
            site: v.function_site(),
            arg: operand,
            in_test: v.in_test(),
            quiet_at_one: api.quiet_at_one,
        });
    }

    fn comparisons_in(&mut self, v: &View, via: &str, e: &Expr) {
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
                        self.comparisons_in(v, via, &b.left);
                        self.comparisons_in(v, via, &b.right);
                        return;
                    }
                    _ => return,
                };
                let (loc, text) = (loc_of(v.rel, e), snippet(v.text, e));
                self.push_comparison(v, via, op, (loc, text), &b.left, &b.right);
            }
            Expr::Paren(p) => self.comparisons_in(v, via, &p.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                self.comparisons_in(v, via, &u.expr)
            }
            _ => {}
        }
    }

    fn push_comparison(
        &mut self,
        v: &View,
        via: &str,
        op: &str,
        (loc, text): (Loc, String),
        l: &Expr,
        r: &Expr,
    ) {
        // Only a literal compared with something that is not can pin a capacity; a float
        // (`max_latency < 1000.0`, in milliseconds) is no count.
        if Val::of_place(l).literal().is_some() == Val::of_place(r).literal().is_some() {
            return;
        }
        self.facts.comparisons.push(Comparison {
            via: via.to_string(),
            op: op.to_string(),
            loc,
            text,
            left: Operand::new(l, v.rel, v.text),
            right: Operand::new(r, v.rel, v.text),
            function: v.function_site(),
        });
    }

    fn assertion(&mut self, v: &View, name: &str, mac: &syn::Macro, args: &[Expr]) {
        if name.ends_with("_eq") || name.ends_with("_ne") {
            if let [l, r, ..] = args {
                let op = if name.ends_with("_eq") { "==" } else { "!=" };
                let whole = (loc_of(v.rel, mac), snippet(v.text, mac));
                self.push_comparison(v, name, op, whole, l, r);
            }
        } else if let Some(first) = args.first() {
            self.comparisons_in(v, name, first);
        }
    }

    fn ceiling_fn(&mut self, v: &View, sig: &syn::Signature) {
        if let Some(count_param) = count_param(sig, self.tables) {
            self.facts.ceilings.push(CeilingFn {
                name: sig.ident.to_string(),
                site: v.scope.site(&sig.ident.to_string()),
                loc: loc_of(v.rel, &sig.ident),
                count_param,
                in_test: v.in_test(),
            });
        }
    }

    /// What a function returns (`fn max_batch() -> usize { 32 }`, a `match` of literals, an early
    /// `if cpu { return Some(4); } None`): each literal is a capacity when the name is one's.
    fn fn_body_literal(&mut self, v: &View, sig: &syn::Signature, block: &syn::Block) {
        let name = sig.ident.to_string();
        let counts = matches!(&sig.output, syn::ReturnType::Type(_, t) if is_int(t));
        if !self.names(&name, counts) {
            return;
        }
        let site = v.scope.site(&name);
        let mut values = returned(block);
        if let ([syn::Stmt::Expr(e, None)], true) = (block.stmts.as_slice(), values.is_empty()) {
            self.leaf_lits(v, e, &site, &name, CapacityKind::Fn, &Visibility::Public);
            return;
        }
        // A body that decides: a 1 it returns is a degenerate case's floor (`if bytes == 0 {
        // return 1; }`), not the setting.
        if let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last() {
            values.push(tail);
        }
        let before = self.facts.named_lits.len();
        for e in values {
            self.leaf_lits(v, e, &site, &name, CapacityKind::Fn, &Visibility::Public);
        }
        let found = self.facts.named_lits.split_off(before);
        self.facts
            .named_lits
            .extend(found.into_iter().filter(|n| n.value >= 2));
    }

    /// `queue::Capacity(1_000)`, `MaxConnections(64)`: a tuple struct named for a capacity, with
    /// its module (`queue::Capacity` reads `queue_capacity`), holds one, as a field named so does;
    /// so does a variant of an enum named for one, with its enum (`TestThreads::Count(1)` reads
    /// `test_threads_count`).
    fn newtype(&mut self, v: &View, c: &syn::ExprCall) {
        let Expr::Path(p) = &*c.func else { return };
        let segs = crate::syntax::path_idents(&p.path);
        let [.., ty] = segs.as_slice() else { return };
        if c.args.len() != 1
            || !ty.starts_with(char::is_uppercase)
            || ty.chars().all(|ch| !ch.is_lowercase())
        {
            return;
        }
        let named = match segs.as_slice() {
            [.., module, _] if module.starts_with(char::is_lowercase) => format!("{module}_{ty}"),
            [.., owner, _] if owner != "Self" && owner.chars().any(|ch| ch.is_lowercase()) => {
                format!("{owner}{ty}")
            }
            _ => ty.clone(),
        };
        if !self.tables.capacity_names.matches(&named) {
            return;
        }
        let site = crate::site::child(&v.function_site(), ty);
        let text = segs.join("::");
        let public = Visibility::Public;
        self.leaf_lits(v, &c.args[0], &site, &text, CapacityKind::ApiArg, &public);
    }

    fn struct_lit(&mut self, v: &View, s: &syn::ExprStruct) {
        let named = s
            .path
            .segments
            .last()
            .map(|x| x.ident.to_string())
            .unwrap_or_default();
        let ty = match (named.as_str(), v.scope.self_ty()) {
            ("Self", Some(t)) => t.to_string(),
            _ => named,
        };
        for f in &s.fields {
            let syn::Member::Named(name) = &f.member else {
                continue;
            };
            // `worker_threads: available_parallelism().map_or(1, ..)`: the 1 is the CPU count's
            // floor, not the field's value (xitca-web's server builder, the sealed split of
            // 2026-12-06n; a binding, an assignment and a function's result drop it already).
            let val = match Val::of_place(&f.expr) {
                Val::Lit(_) if cpu_floor_of_one(&f.expr) => Val::Other,
                val => val,
            };
            let site = v.scope.field_site(&ty, &name.to_string());
            let field = name.to_string();
            self.made_with_capacity(v, &field, &f.expr);
            self.signal_sender(v, &field, &f.expr);
            // `#[cfg(loom)] local_queue_capacity: 4`: a field set only when testing.
            let in_test = v.in_test() || crate::syntax::is_cfg_test(&f.attrs);
            // `QueueSizeConf { control: 2, data: 4 }`: a struct named for the capacity its
            // fields hold, one per lane.
            if let Val::Lit(value @ 1..) = val {
                if self.tables.capacity_names.matches(&ty)
                    && !names_an_element(&ty)
                    && !self.tables.capacity_names.matches(&field)
                    && !self.tables.capacity_names.excludes(&field)
                {
                    self.facts.named_lits.push(NamedLit {
                        site: site.clone(),
                        ident: format!("{ty}::{field}"),
                        value,
                        loc: lit_loc(v.rel, &f.expr),
                        in_test,
                        kind: CapacityKind::Field,
                        visibility: Visibility::Public,
                        flows: Vec::new(),
                    });
                }
            }
            // A literal is judged with its holder when the index is resolved; a value written
            // through a constant or a branch is judged here the same way: a field of a type
            // that holds no count (`CertCacheConfig { max_size: CACHE_MAX }`) holds none.
            if !val.is_lit()
                && !self.tables.holder_counts_nothing(&ty, &field)
                && self.tables.capacity_names.matches(&field)
            {
                let public = Visibility::Public;
                let from = self.facts.named_lits.len();
                self.leaf_lits(v, &f.expr, &site, &field, CapacityKind::Field, &public);
                for n in &mut self.facts.named_lits[from..] {
                    n.in_test = in_test;
                }
            }
            if matches!(val, Val::Other) {
                continue;
            }
            let loc = match val {
                Val::Lit(_) => lit_loc(v.rel, &f.expr),
                _ => crate::syntax::expr_loc(v.rel, &f.expr),
            };
            self.facts.fields.push(FieldInit {
                type_name: ty.clone(),
                field: name.to_string(),
                site,
                val,
                loc,
                in_test,
                function: v.function_site(),
            });
        }
    }

    /// A call of a function with a capacity parameter somewhere in the workspace: its literal
    /// and constant arguments, matched to the package's signatures when the index is resolved.
    fn call_args(
        &mut self,
        v: &View,
        callee: &str,
        qualifier: Option<String>,
        method: bool,
        text: String,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) {
        if v.in_test() || !self.tables.capacity_fns.contains(callee) {
            return;
        }
        let n_args = args.len();
        let args: Vec<(usize, Operand)> = args
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(Val::of(a), Val::Lit(_) | Val::Const(_)))
            .map(|(i, a)| {
                // Located at the literal (through wrappers and fallbacks), as every capacity is.
                let mut o = Operand::new(a, v.rel, v.text);
                if o.val.is_lit() {
                    o.loc = lit_loc(v.rel, a);
                }
                (i, o)
            })
            .collect();
        if args.is_empty() {
            return;
        }
        self.facts.calls.push(CallArgs {
            callee: callee.to_string(),
            qualifier,
            method,
            n_args,
            args,
            text,
            site: v.function_site(),
            in_test: false,
        });
    }

    /// `10 + per_conn * self.max_connections`: a literal added to a capacity scaled by a
    /// per-unit number is the capacity's base (entries reserved whatever the scale), typed by
    /// hand like the capacity itself. A 1 is an off-by-one, not a base.
    fn base(&mut self, v: &View, e: &Expr, b: &syn::ExprBinary) {
        for (lit, other) in [(&b.left, &b.right), (&b.right, &b.left)] {
            let Val::Lit(value) = Val::of(lit) else {
                continue;
            };
            if value < 2 || !matches!(&**lit, Expr::Lit(_)) {
                continue;
            }
            let Some(name) = self.scaled_capacity(other) else {
                continue;
            };
            self.facts.named_lits.push(NamedLit {
                site: crate::site::child(&v.function_site(), &format!("{name}_base")),
                ident: snippet(v.text, e),
                value,
                loc: lit_loc(v.rel, lit),
                in_test: v.in_test(),
                kind: CapacityKind::ApiArg,
                visibility: Visibility::Public,
                flows: Vec::new(),
            });
        }
    }

    /// The capacity a product scales (`per_conn * self.max_connections`, `n.saturating_mul(
    /// MAX_CONNS)`): the name of a factor that is a capacity's (a binding, field, constant or
    /// accessor).
    fn scaled_capacity(&self, e: &Expr) -> Option<String> {
        let factors: Vec<&Expr> = match crate::index::value::carried(e) {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => vec![&b.left, &b.right],
            Expr::MethodCall(m)
                if m.args.len() == 1
                    && ["saturating_mul", "checked_mul", "wrapping_mul"]
                        .iter()
                        .any(|x| m.method == x) =>
            {
                vec![&m.receiver, &m.args[0]]
            }
            _ => return None,
        };
        factors.into_iter().find_map(|f| {
            let name = match crate::index::value::carried(f) {
                Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
                Expr::Field(x) => match &x.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(_) => return None,
                },
                Expr::MethodCall(m) if m.args.is_empty() => m.method.to_string(),
                _ => return None,
            };
            self.tables.capacity_names.matches(&name).then_some(name)
        })
    }

    /// `workers.min(64)`, `tasks_per_interval.clamp(2, MAX)`, `cmp::max(threads, 4)`: a bound
    /// put on a value named a capacity is that capacity's, wherever it is written (a binding to
    /// a capacity name reads its bounds already). An integer literal among the bounds says the
    /// value counts (a `Duration` takes no `2`), as an integer type does. A lower bound of 0 or
    /// 1 only keeps the value from being zero.
    fn bounds(&mut self, v: &View, e: &Expr) {
        // The bounded value and its bounds, each with whether it is a lower one.
        let (subject, bounds): (&Expr, Vec<(&Expr, bool)>) = match e {
            Expr::MethodCall(m)
                if m.args.len() == 1 && (m.method == "min" || m.method == "max") =>
            {
                (&m.receiver, vec![(&m.args[0], m.method == "max")])
            }
            Expr::MethodCall(m) if m.args.len() == 2 && m.method == "clamp" => {
                (&m.receiver, vec![(&m.args[0], true), (&m.args[1], false)])
            }
            Expr::Call(c) if c.args.len() == 2 => {
                let lower = match Val::of(e) {
                    Val::Min(..) => false,
                    Val::Max(..) => true,
                    _ => return,
                };
                // `cmp::min(64, workers)`: the subject is whichever argument is named.
                let (a, b) = (&c.args[0], &c.args[1]);
                match (self.bounded_name(a), self.bounded_name(b)) {
                    (Some(_), _) => (a, vec![(b, lower)]),
                    (None, Some(_)) => (b, vec![(a, lower)]),
                    (None, None) => return,
                }
            }
            _ => return,
        };
        let Some(name) = self.bounded_name(subject) else {
            return;
        };
        if !self.hints.is_empty()
            && self
                .hints
                .contains(&flow::Pos::of(&crate::syntax::expr_loc(v.rel, e)))
        {
            return;
        }
        let counts = bounds.iter().any(|(b, _)| Val::of(b).is_lit());
        if !self.names(&name, counts) {
            return;
        }
        let site = crate::site::child(&v.function_site(), &format!("{name}_bound"));
        for (bound, lower) in bounds {
            if !lower {
                self.const_flows(v, bound, &format!("`{name}`"), true);
            }
            for leaf in crate::index::value::leaves(bound) {
                let Val::Lit(value) = Val::of(leaf) else {
                    continue;
                };
                if lower && value < 2 {
                    continue;
                }
                self.facts.named_lits.push(NamedLit {
                    site: site.clone(),
                    ident: snippet(v.text, e),
                    value,
                    loc: crate::syntax::expr_loc(v.rel, leaf),
                    in_test: v.in_test(),
                    kind: CapacityKind::ApiArg,
                    visibility: Visibility::Public,
                    flows: Vec::new(),
                });
            }
        }
    }

    /// Marks the argument of an allocation hint (`with_capacity`, `reserve`), through casts and
    /// wrappers, for `bounds`.
    fn hint(&mut self, v: &View, arg: &Expr) {
        let inner = crate::index::value::carried(arg);
        self.hints
            .push(flow::Pos::of(&crate::syntax::expr_loc(v.rel, inner)));
    }

    /// The name of a bounded value: a binding or constant, a field, an accessor (`self.workers()`).
    fn bounded_name(&self, e: &Expr) -> Option<String> {
        match crate::index::value::carried(e) {
            Expr::Path(p) => Some(p.path.segments.last()?.ident.to_string()),
            Expr::Field(x) => match &x.member {
                syn::Member::Named(n) => Some(n.to_string()),
                syn::Member::Unnamed(_) => None,
            },
            Expr::MethodCall(m) if m.args.is_empty() => Some(m.method.to_string()),
            _ => None,
        }
    }

    /// `a * b`, or `a.saturating_mul(b)` and its kin (`call`, located and quoted whole).
    fn product(&mut self, v: &View, l: &Expr, r: &Expr, call: Option<&Expr>) {
        // Only a product with a literal, constant or field on one side and something else on the
        // other can be a per-unit cap; the cheap reduction decides before spans are computed.
        let candidate = |v: &Val| matches!(v, Val::Lit(_) | Val::Const(_) | Val::Field(_));
        let (lv, rv) = (Val::of(l), Val::of(r));
        if !((candidate(&lv) || candidate(&rv)) && !(lv.is_lit() && rv.is_lit())) {
            return;
        }
        let left = Operand::new(l, v.rel, v.text);
        let right = Operand::new(r, v.rel, v.text);
        let (loc, text) = match call {
            Some(e) => (loc_of(v.rel, e), snippet(v.text, e)),
            None => (
                Loc::join(v.rel, l.span(), r.span()),
                v.text
                    .get(l.span().byte_range().start..r.span().byte_range().end)
                    .map_or_else(|| format!("{} * {}", left.text, right.text), str::to_string),
            ),
        };
        self.facts.products.push(Product {
            site: v.function_site(),
            function: v.function().unwrap_or_default().to_string(),
            loc,
            text,
            left,
            right,
            in_test: v.in_test(),
        });
    }
}

/// The count parameter of a ceiling function (`fleet_ceiling(&self, healthy: usize)`): a
/// function with a ceiling name and an integer parameter named like a count. The index records
/// such functions; `reinstate-cap` and `history-revert` mutate them.
pub(crate) fn count_param(sig: &syn::Signature, tables: &Tables) -> Option<String> {
    if !tables.ceiling_names.matches(&sig.ident.to_string()) {
        return None;
    }
    count_params(sig, tables).into_iter().next()
}

/// The integer parameters named like a count (`healthy: usize`, `hosts: u32`), in order.
pub(crate) fn count_params(sig: &syn::Signature, tables: &Tables) -> Vec<String> {
    sig.inputs
        .iter()
        .filter_map(|arg| {
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
                .is_some_and(|s| is_int_type(&s.ident.to_string()));
            let name = id.ident.to_string();
            (int && tables.count_words.matches(&name)).then_some(name)
        })
        .collect()
}

/// The last segment of a type's path (`WIN32_ERROR`, `u32`), through references.
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

/// Whether a loop's body starts a task or a thread each time round and goes on without waiting
/// for it: a call of `spawn`, `spawn_blocking` or `spawn_local` (a free function, a path's or
/// a method), and no `break` or `return` of the loop's own (those in a closure or an async
/// block, the task's body, or in an inner loop are not): a loop left once one succeeds is a
/// retry. One walk of the body.
fn spawns_each_time(body: &syn::Block) -> bool {
    #[derive(Default)]
    struct Body {
        spawns: bool,
        leaves: bool,
        /// Closures, async blocks and inner loops around the walk: a `break` or `return` there
        /// is theirs.
        nested: usize,
    }
    impl Body {
        fn inside(&mut self, walk: impl FnOnce(&mut Self)) {
            self.nested += 1;
            walk(self);
            self.nested -= 1;
        }
    }
    impl<'a> syn::visit::Visit<'a> for Body {
        fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
            self.leaves |= self.nested == 0;
            syn::visit::visit_expr_return(self, r);
        }
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            // A labelled break may leave an inner loop's label; an unlabelled one in this body
            // leaves this loop.
            self.leaves |= self.nested == 0 && b.label.is_none();
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            self.inside(|w| syn::visit::visit_expr_closure(w, c));
        }
        fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
            self.inside(|w| syn::visit::visit_expr_async(w, a));
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.visit_expr(&f.expr);
            self.inside(|w| w.visit_block(&f.body));
        }
        fn visit_expr_while(&mut self, x: &'a syn::ExprWhile) {
            self.visit_expr(&x.cond);
            self.inside(|w| w.visit_block(&x.body));
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            self.inside(|w| w.visit_block(&l.body));
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let Expr::Path(p) = &*c.func
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| spawns(&s.ident.to_string()))
            {
                self.spawns = true;
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.spawns |= spawns(&m.method.to_string());
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item_fn(&mut self, _: &'a syn::ItemFn) {}
    }
    fn spawns(n: &str) -> bool {
        crate::index::triggers::SPAWNS.contains(&n)
    }
    let mut walk = Body::default();
    syn::visit::visit_block(&mut walk, body);
    walk.spawns && !walk.leaves
}

/// An integer type (`u32`, `usize`; `Option<u32>` and `NonZeroUsize` too): a value that counts.
fn is_int(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    if is_int_type(&name) || (name.starts_with("NonZero") && is_int_type(&name[7..].to_lowercase()))
    {
        return true;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if name == "Option" => a
            .args
            .iter()
            .any(|g| matches!(g, syn::GenericArgument::Type(t) if is_int(t))),
        _ => false,
    }
}

/// A primitive integer type's name.
pub(crate) fn is_int_type(s: &str) -> bool {
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

/// Where a field's default is written in an attribute: clap's `#[arg(default_value_t = 4)]`,
/// `#[clap(default_value = "128")]`, structopt's, argh's `#[argh(option, default = "8")]`,
/// smart-default's `#[default(30)]`, serde_inline_default's `#[serde_inline_default(2)]` and
/// other derives' `#[option(default = "50")]`. Not
/// serde's, whose `default = "path"` names a function (`flow_struct` follows it), nor the
/// attributes that never hold one.
fn cli_default_attr(a: &syn::Attribute) -> bool {
    ![
        "doc", "cfg", "cfg_attr", "derive", "serde", "allow", "deny", "warn", "expect",
    ]
    .iter()
    .any(|p| a.path().is_ident(p))
        && matches!(a.meta, syn::Meta::List(_))
}

/// Whether a type is named for one element or a record of what its name's capacity bounds
/// (`BacklogEntry`, `QueueItem`, `PoolStats`), by its last word: its fields are that element's
/// (an entry's event count), not the sizes a `QueueSizeConf` holds.
fn names_an_element(ty: &str) -> bool {
    crate::index::names::words(ty).last().is_some_and(|w| {
        matches!(
            w.as_str(),
            "entry"
                | "entries"
                | "item"
                | "element"
                | "record"
                | "event"
                | "stats"
                | "state"
                | "status"
                | "metrics"
                | "info"
        )
    })
}

/// `(1..=16).contains(&n)` (through parentheses and a cast): the value checked and the
/// range's upper end, the most it lets through. A half-open range's end (`1..17`) is one past
/// it, not the number to report.
fn range_check(e: &Expr) -> Option<(&Expr, &Expr)> {
    let Expr::MethodCall(m) = crate::index::value::carried(e) else {
        return None;
    };
    if m.method != "contains" || m.args.len() != 1 {
        return None;
    }
    let Expr::Range(r) = crate::index::value::carried(&m.receiver) else {
        return None;
    };
    let closed = matches!(r.limits, syn::RangeLimits::Closed(_));
    Some((
        crate::index::value::carried(&m.args[0]),
        r.end.as_deref().filter(|_| closed)?,
    ))
}

/// clap's `#[arg(value_parser = value_parser!(u16).range(1..=16))]`: the most the flag accepts,
/// typed by hand as its default is (a ceiling of 2 or more, written as a literal; an inclusive
/// range's, as `range_check`'s).
fn cli_range_ceiling(rel: &str, a: &syn::Attribute) -> Option<(u64, Loc)> {
    let mut out = None;
    attr_settings(a, |path, value| {
        if !path.is_ident("value_parser") {
            return;
        }
        let (_, methods) = crate::syntax::chain(&value);
        let range = methods
            .iter()
            .find(|c| c.method == "range" && c.args.len() == 1);
        let Some(Expr::Range(r)) = range.map(|c| crate::index::value::carried(&c.args[0])) else {
            return;
        };
        if !matches!(r.limits, syn::RangeLimits::Closed(_)) {
            return;
        }
        let Some(end @ Expr::Lit(_)) = r.end.as_deref() else {
            return;
        };
        if let Some(value) = Val::of(end).literal().filter(|v| *v >= 2) {
            out = Some((value, crate::syntax::expr_loc(rel, end)));
        }
    });
    out
}

/// The integers a default written as a string holds: `"128"`, and each of a list's
/// (`default_value = "512,512"` with `value_delimiter = ','`).
fn string_ints(s: &str) -> Vec<u64> {
    s.split([',', ' '])
        .map(|x| x.replace('_', ""))
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse::<u64>())
        .collect::<Result<Vec<u64>, _>>()
        .unwrap_or_default()
}

/// The integers an expression written as a string gives (`"Some(10)"`, `"64 * 2"`), through
/// wrappers and branches; none if the string is not an expression (a float's default, `"3.0"`,
/// is a float field's: `leaves` gives none).
fn string_expr_lits(s: &str) -> Vec<u64> {
    let Ok(e) = syn::parse_str::<Expr>(s) else {
        return Vec::new();
    };
    crate::index::value::leaves(&e)
        .into_iter()
        .filter_map(|leaf| match Val::of(leaf) {
            Val::Lit(v) => Some(v),
            _ => None,
        })
        .collect()
}

/// The constant a derive's default written as a string names (`#[builder(default =
/// "DB_POOL_CONN_MAX")]`), with the string's location.
fn string_default_const(rel: &str, a: &syn::Attribute) -> Option<(String, Loc)> {
    let mut found = None;
    attr_settings(a, |path, value| {
        if let (true, Expr::Lit(l)) = (path.is_ident("default"), &value) {
            if let syn::Lit::Str(s) = &l.lit {
                let text = s.value();
                let name = text.rsplit("::").next().unwrap_or(&text).trim().to_string();
                if crate::index::value::is_const_name(&name)
                    && syn::parse_str::<syn::Path>(&text).is_ok()
                {
                    found = Some((name, loc_of(rel, s)));
                }
            }
        }
    });
    found
}

/// Each `name = value` of an attribute's list (`#[arg(long, default_value_t = 4)]`), in order,
/// and of the lists nested in it, as the attribute's own (derive-deftly's `#[deftly(tor_config(
/// default = "65535"))]`, arti's config fields); a flag (`long`) holds nothing to read, and a
/// value that is no expression ends the walk.
fn attr_settings(a: &syn::Attribute, mut each: impl FnMut(&syn::Path, Expr)) {
    fn walk(
        meta: syn::meta::ParseNestedMeta,
        each: &mut dyn FnMut(&syn::Path, Expr),
        depth: usize,
    ) -> syn::Result<()> {
        if !meta.input.peek(syn::Token![=]) {
            if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|m| match depth {
                    0..4 => walk(m, each, depth + 1),
                    _ => Ok(()),
                })?;
            }
            return Ok(());
        }
        let value: Expr = meta.value()?.parse()?;
        each(&meta.path, value);
        Ok(())
    }
    let _ = a.parse_nested_meta(|m| walk(m, &mut each, 0));
}

/// The constants a clap attribute's typed default names (`#[arg(default_value_t =
/// DEFAULT_MAX_REQUESTS)]`, through wrappers such as `NonZeroUsize::new(N)`), with their
/// locations: the field starts with the constant's value.
fn cli_default_consts(rel: &str, a: &syn::Attribute) -> Vec<(String, Loc)> {
    let mut out = Vec::new();
    attr_settings(a, |path, value| {
        if path.is_ident("default_value_t") {
            let e = crate::index::value::carried(&value);
            if let Val::Const(name) = Val::of(e) {
                out.push((name, crate::syntax::expr_loc(rel, e)));
            }
        }
    });
    out
}

/// derivative's `#[derivative(Default(value = "128"))]`: the default's expression, written as a
/// string inside the derive's `Default(..)`.
fn derivative_defaults(rel: &str, a: &syn::Attribute) -> Vec<(u64, Loc)> {
    let mut out = Vec::new();
    let _ = a.parse_nested_meta(|meta| {
        if meta.path.is_ident("Default") && meta.input.peek(syn::token::Paren) {
            return meta.parse_nested_meta(|inner| {
                if inner.input.peek(syn::Token![=]) {
                    let value: Expr = inner.value()?.parse()?;
                    if let (true, Expr::Lit(l)) = (inner.path.is_ident("value"), &value) {
                        if let syn::Lit::Str(s) = &l.lit {
                            let at = loc_of(rel, s);
                            out.extend(
                                string_expr_lits(&s.value())
                                    .into_iter()
                                    .map(|v| (v, at.clone())),
                            );
                        }
                    }
                }
                Ok(())
            });
        }
        if meta.input.peek(syn::token::Paren) {
            meta.parse_nested_meta(|_| Ok(()))?;
        } else if meta.input.peek(syn::Token![=]) {
            let _: Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    out
}

/// The literals of a clap or structopt attribute's defaults, with their locations.
fn cli_defaults(rel: &str, a: &syn::Attribute) -> Vec<(u64, Loc)> {
    if a.path().is_ident("derivative") {
        return derivative_defaults(rel, a);
    }
    // smart-default's `#[default(30)]` and serde_inline_default's `#[serde_inline_default(2)]`:
    // the attribute holds the default's expression.
    let last = a.path().segments.last().map(|s| s.ident.to_string());
    if last.is_some_and(|l| l == "default" || l.ends_with("_default")) {
        let Ok(e) = a.parse_args::<Expr>() else {
            return Vec::new();
        };
        return crate::index::value::leaves(&e)
            .into_iter()
            .filter_map(|leaf| Some((Val::of(leaf).literal()?, crate::syntax::expr_loc(rel, leaf))))
            .collect();
    }
    let mut out = Vec::new();
    attr_settings(a, |path, value| {
        let name = path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        match (name.as_str(), &value) {
            ("default_value" | "default", Expr::Lit(l)) => match &l.lit {
                syn::Lit::Str(s) => {
                    let ints = string_ints(&s.value());
                    if ints.is_empty() && name == "default" {
                        // derive_builder's `#[builder(default = "Some(10)")]`: an expression.
                        out.extend(
                            string_expr_lits(&s.value())
                                .into_iter()
                                .map(|v| (v, loc_of(rel, s))),
                        );
                    }
                    out.extend(ints.into_iter().map(|v| (v, loc_of(rel, s))));
                }
                syn::Lit::Int(i) => out.extend(
                    i.base10_parse::<u64>()
                        .ok()
                        .map(|v| (v, crate::syntax::expr_loc(rel, &value))),
                ),
                _ => {}
            },
            ("default_value_t" | "default_values_t", e) => {
                let elems: Vec<&Expr> = match e {
                    Expr::Array(a) => a.elems.iter().collect(),
                    other => vec![other],
                };
                for e in elems {
                    for leaf in crate::index::value::leaves(e) {
                        if let Val::Lit(v) = Val::of(leaf) {
                            out.push((v, crate::syntax::expr_loc(rel, leaf)));
                        }
                    }
                }
            }
            _ => {}
        }
    });
    out
}

/// A factor's product as a finding names it, whole and on one line (`max * 2`).
fn product(v: &View, whole: &Expr) -> String {
    snippet(v.text, whole)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a path names the CPU count in one of its segments (`num_cpus::get`).
fn names_cpus(path: &syn::Path) -> bool {
    path.segments
        .iter()
        .any(|s| is_cpu_word(&s.ident.to_string()))
}

/// Whether an expression holds the CPU count: a call that gives it (`num_cpus::get()`,
/// `get_total_cpu_cores()`, `std::thread::available_parallelism()`, `divide_num_cpus(2)`) or a
/// binding named for it (`num_cpus / 2`), as `flow::counts_cpus` reads a place's name.
fn mentions_cpu_count(e: &Expr) -> bool {
    struct Finds(bool);
    impl<'a> syn::visit::Visit<'a> for Finds {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let Expr::Path(p) = &*c.func {
                self.0 |= names_cpus(&p.path);
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.0 |= is_cpu_word(&m.method.to_string());
            syn::visit::visit_expr_method_call(self, m);
        }
        // `(num_cpus / 2).max(1)`: a binding that holds the count.
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(id) = p.path.get_ident() {
                self.0 |= is_cpu_word(&id.to_string());
            }
        }
    }
    let mut f = Finds(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// The name a compared value goes by: a variable, a field, through derefs, casts and
/// `.unwrap_or(..)`-style reads (`self.pool_size.unwrap_or(10)` is `pool_size`).
/// The function a bare name is written in (`BATCH_SIZE` inside `fn clean_account`), which may
/// declare a constant of that name in its body; `None` for a path of several segments.
fn bare_in_function(v: &View, path: &syn::Path) -> Option<String> {
    (path.segments.len() == 1)
        .then(|| v.function().map(str::to_string))
        .flatten()
}

/// The names an operand's field is read through, innermost first (`cpu_topology` and `config`
/// for `config.cpu_topology.threads_per_core`).
fn receivers(e: &Expr) -> impl Iterator<Item = String> + '_ {
    let mut at = match crate::index::value::carried(e) {
        Expr::Field(f) => Some(&*f.base),
        _ => None,
    };
    std::iter::from_fn(move || {
        loop {
            match at? {
                Expr::Field(f) => {
                    at = Some(&*f.base);
                    if let syn::Member::Named(n) = &f.member {
                        return Some(n.to_string());
                    }
                }
                Expr::Path(p) => {
                    at = None;
                    return crate::syntax::last_segment(&p.path);
                }
                Expr::Paren(p) => at = Some(&*p.expr),
                Expr::Reference(r) => at = Some(&*r.expr),
                _ => return None,
            }
        }
    })
}

fn operand_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => crate::syntax::last_segment(&p.path),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => Some(n.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        Expr::Paren(p) => operand_name(&p.expr),
        Expr::Cast(c) => operand_name(&c.expr),
        Expr::Reference(r) => operand_name(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => operand_name(&u.expr),
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "unwrap" | "unwrap_or" | "unwrap_or_default" | "get" | "expect"
            ) =>
        {
            operand_name(&m.receiver)
        }
        _ => None,
    }
}

/// Whether a macro writes a log line (`warn!`, `tracing::info!`, `eprintln!`).
fn log_macro(m: &syn::Macro) -> bool {
    crate::syntax::last_segment(&m.path).is_some_and(|n| {
        matches!(
            n.as_str(),
            "warn"
                | "info"
                | "debug"
                | "error"
                | "trace"
                | "event"
                | "log"
                | "eprintln"
                | "println"
        )
    })
}

/// Whether a branch does nothing but log and keep a flag: log macros (`warn!`,
/// `tracing::info!`, ..), assignments (`warned = true`) and `if`s of the same; with `logs`, at
/// least one log macro is among them.
fn only_warns(block: &syn::Block, logs: bool) -> bool {
    fn walk(block: &syn::Block, logged: &mut bool) -> bool {
        let log = log_macro;
        block.stmts.iter().all(|s| match s {
            syn::Stmt::Macro(m) if log(&m.mac) => {
                *logged = true;
                true
            }
            syn::Stmt::Expr(e, _) => match e {
                Expr::Macro(m) if log(&m.mac) => {
                    *logged = true;
                    true
                }
                Expr::Assign(a) => matches!(&*a.right, Expr::Lit(_) | Expr::Path(_)),
                Expr::If(i) => {
                    walk(&i.then_branch, logged)
                        && match &i.else_branch {
                            None => true,
                            Some((_, e)) => match &**e {
                                Expr::Block(b) => walk(&b.block, logged),
                                _ => false,
                            },
                        }
                }
                _ => false,
            },
            _ => false,
        })
    }
    let mut logged = false;
    walk(block, &mut logged) && (logged || !logs)
}

/// Whether a branch refuses what reached it: it returns (an `Err`, early), bails or panics
/// first thing.
fn refuses(block: &syn::Block) -> bool {
    let Some(first) = block.stmts.first() else {
        return false;
    };
    let mac = |m: &syn::Macro| {
        crate::syntax::last_segment(&m.path)
            .is_some_and(|n| matches!(n.as_str(), "bail" | "panic" | "unreachable" | "ensure"))
    };
    match first {
        syn::Stmt::Expr(Expr::Return(_), _) => true,
        syn::Stmt::Expr(Expr::Macro(m), _) => mac(&m.mac),
        syn::Stmt::Macro(m) => mac(&m.mac),
        _ => false,
    }
}

/// Whether a branch first of all returns an error (`return Err(..)`, `bail!(..)`): it refuses
/// what it was asked, as a request's validation does.
/// A log line before it changes nothing (`debug!("too many peers"); return Err(..)`).
fn refuses_with_error(block: &syn::Block) -> bool {
    let bails = |m: &syn::Macro| crate::syntax::last_segment(&m.path).is_some_and(|n| n == "bail");
    let logs = |s: &syn::Stmt| match s {
        syn::Stmt::Expr(Expr::Macro(m), _) => log_macro(&m.mac),
        syn::Stmt::Macro(m) => log_macro(&m.mac),
        _ => false,
    };
    match block.stmts.iter().find(|s| !logs(s)) {
        Some(syn::Stmt::Expr(Expr::Return(r), _)) => r.expr.as_deref().is_some_and(is_err_call),
        Some(syn::Stmt::Expr(Expr::Macro(m), _)) => bails(&m.mac),
        Some(syn::Stmt::Macro(m)) => bails(&m.mac),
        _ => false,
    }
}

/// The comparisons a condition makes, through `||`, `&&` and parentheses.
fn either_side<'e>(cond: &'e Expr, out: &mut Vec<&'e syn::ExprBinary>) {
    match cond {
        Expr::Paren(p) => either_side(&p.expr, out),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_) | syn::BinOp::And(_)) => {
            either_side(&b.left, out);
            either_side(&b.right, out);
        }
        Expr::Binary(b) => out.push(b),
        _ => {}
    }
}

/// The value a closure yields: its body, or the last expression of its block
/// (`|n| { let cores = n.get(); (cores / 2).clamp(2, 16) }`).
fn closure_value(e: &Expr) -> Option<&Expr> {
    let Expr::Closure(c) = e else { return None };
    match &*c.body {
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => Some(tail),
            _ => None,
        },
        body => Some(body),
    }
}

impl Extractor<'_> {
    /// `|cpus| cpus / 4` (kumomta's runtimes: `Runtime::new("readyq", |cpus| cpus / 2, ..)`): a
    /// closure that maps the CPU count, its one parameter named for it, to a number sizes a pool
    /// of threads or workers, wherever the closure goes. The literals its value holds (a factor
    /// of the count, a ceiling) are capacities; a floor (`.max(1)`) is none.
    fn cpu_closure(&mut self, v: &View, e: &Expr, c: &syn::ExprClosure) {
        let [input] = c.inputs.iter().collect::<Vec<_>>()[..] else {
            return;
        };
        let pat = match input {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        let syn::Pat::Ident(id) = pat else { return };
        let name = id.ident.to_string();
        if !is_cpu_word(&name) {
            return;
        }
        let Some(value) = closure_value(e) else {
            return;
        };
        let api = format!("|{name}| ..");
        let site = crate::site::child(&v.function_site(), &name);
        self.flows_into(
            v,
            value,
            flow::Node::Sink(api.clone()),
            (&site, &api, CapacityKind::Let),
        );
    }

    /// The fallback and bounds put on the CPU count (`available_parallelism().map_or(2, ..)`,
    /// `num_cpus::get().min(8)`): a thread or worker count whatever the name it gets.
    fn parallelism_default(&mut self, v: &View, e: &Expr, m: &syn::ExprMethodCall) {
        let bound = [
            "unwrap_or",
            "map_or",
            "unwrap_or_else",
            "map_or_else",
            "min",
            "max",
            "clamp",
        ];
        if !bound.iter().any(|b| m.method == b) || !crate::index::value::asks_cpus(&m.receiver) {
            return;
        }
        let literals: Vec<&Expr> = match m.method.to_string().as_str() {
            "min" | "max" | "clamp" => m
                .args
                .iter()
                .flat_map(crate::index::value::leaves)
                .collect(),
            _ => crate::index::value::leaves(e),
        };
        // `available_parallelism().map(|n| (n.get() / 2).clamp(2, 16)).unwrap_or(2)`: the bounds
        // put on the count inside the closure that maps it.
        let mapped = match &*m.receiver {
            Expr::MethodCall(inner) if inner.method == "map" && inner.args.len() == 1 => {
                closure_value(&inner.args[0])
            }
            _ => None,
        };
        // A constant the count is capped at or falls back to (`.clamp(1, MAX_READER_COUNT)`,
        // `.min(MAX_THREADS)`, `.map_or(DEFAULT_THREADS, ..)`) is that count too; a lower bound is
        // a floor.
        let capped: Option<&Expr> = match (m.method.to_string().as_str(), m.args.len()) {
            ("min", 1) | ("unwrap_or" | "map_or" | "map_or_else", _) => m.args.first(),
            ("clamp", 2) => m.args.last(),
            _ => None,
        };
        if let Some(arg) = capped {
            self.const_flows(v, arg, "available_parallelism()", false);
        }
        let literals = literals
            .into_iter()
            .chain(mapped.into_iter().flat_map(crate::index::value::leaves));
        for leaf in literals {
            // `unwrap_or(1)`: one CPU when the platform does not say, a floor.
            self.facts.api_args.push(ApiArg {
                api: "available_parallelism()".to_string(),
                site: v.function_site(),
                arg: Operand::new(leaf, v.rel, v.text),
                in_test: v.in_test(),
                quiet_at_one: true,
            });
        }
    }

    /// clap's builder API: `Arg::new("batch_size").long("batch-size").default_value("4096")`. The
    /// argument's name (its id, or its long flag) says what the default sets.
    fn builder_default(&mut self, v: &View, m: &syn::ExprMethodCall) {
        let ["default_value" | "default_values"] = [m.method.to_string().as_str()] else {
            return;
        };
        let Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })) = m.args.first()
        else {
            return;
        };
        let values = string_ints(&s.value());
        if values.is_empty() {
            return;
        }
        let (root, methods) = crate::syntax::chain(&m.receiver);
        let long = methods
            .iter()
            .filter(|c| c.method == "long" || c.method == "id")
            .find_map(|c| first_str(&c.args));
        let new = match root {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p)
                    if path_ends_with(&p.path, "Arg::new")
                        || path_ends_with(&p.path, "Arg::with_name") =>
                {
                    first_str(&c.args)
                }
                _ => None,
            },
            _ => None,
        };
        let named = [new, long]
            .into_iter()
            .flatten()
            .map(|n| n.replace('-', "_"))
            .find(|n| self.tables.capacity_names.matches(n));
        let Some(name) = named else {
            return;
        };
        for value in values {
            self.facts.named_lits.push(NamedLit {
                site: crate::site::child(&v.function_site(), &name),
                ident: name.clone(),
                value,
                loc: loc_of(v.rel, s),
                in_test: v.in_test(),
                kind: CapacityKind::Field,
                visibility: Visibility::Public,
                flows: Vec::new(),
            });
        }
    }

    /// A setting handed on under its key by a method: a child process's environment
    /// (`.env("MAX_NUM_SEQS", "32")`), a config builder's default or override
    /// (`.set_default("workers", 8)`), a map of settings (`.insert("max_connections", 10)`), a
    /// command line's flag and its argument (`.arg("--max-num-seqs").arg("64")`).
    fn keyed_method(&mut self, v: &View, m: &syn::ExprMethodCall) {
        let method = m.method.to_string();
        match (method.as_str(), m.args.len()) {
            ("env" | "set_var" | "set_default" | "set_override" | "insert", 2) => {
                self.keyed_setting(v, &m.args[0], &m.args[1], false);
            }
            ("arg", 1) => {
                if let Expr::MethodCall(r) = &*m.receiver {
                    if r.method == "arg" && r.args.len() == 1 {
                        self.keyed_setting(v, &r.args[0], &m.args[0], true);
                    }
                }
            }
            _ => {}
        }
    }

    /// A value handed on under a key that names a capacity, where the key is a string: an
    /// environment preset (`("FERRUM_PAGED_MAX_SEQS", "32")`), a keyed setting, a command
    /// line's `--flag` and its argument (`flag`: only a key written as a flag counts, as in an
    /// argument list `["--max-num-seqs", "64"]`). The value leaves the workspace, so the key's
    /// name is all that says what it sets (a server's own parameter names are in the tables).
    /// The value is an integer literal or a string holding one, in a value type or a variant
    /// (`Value::from(50000)`, `64.into()`, `UserSettingValue::UInt64(16)`), or the `value` of a
    /// settings table's record (`("max_threads", DefaultSettingValue { value: .., desc: .. })`).
    fn keyed_setting(&mut self, v: &View, key: &Expr, value: &Expr, flag: bool) {
        let Some(k) = owned_str(key) else {
            return;
        };
        let mut value = value;
        loop {
            value = match value {
                Expr::Call(c) if c.args.len() == 1 => match &*c.func {
                    Expr::Path(p)
                        if crate::syntax::last_segment(&p.path).is_some_and(|l| {
                            l == "from" || l.starts_with(|c: char| c.is_ascii_uppercase())
                        }) =>
                    {
                        &c.args[0]
                    }
                    _ => break,
                },
                Expr::Struct(r) => match r.fields.iter().find(
                    |f| matches!(&f.member, syn::Member::Named(n) if n == "value" || n == "default"),
                ) {
                    Some(f) => &f.expr,
                    None => break,
                },
                Expr::MethodCall(m) if m.args.is_empty() && m.method == "into" => &m.receiver,
                _ => break,
            };
        }
        let raw = k.value();
        let Some(name) = crate::index::names::setting_key(&raw, flag) else {
            return;
        };
        let n = match Val::of(value) {
            Val::Lit(n) => n,
            _ => match crate::index::value::str_int(value) {
                Some(n) => n,
                None => return,
            },
        };
        if !self.tables.capacity_names.matches(name) {
            return;
        }
        self.facts.named_lits.push(NamedLit {
            site: crate::site::child(&v.function_site(), &name.replace('-', "_")),
            ident: raw.trim().to_string(),
            value: n,
            loc: lit_loc(v.rel, value),
            in_test: v.in_test(),
            kind: CapacityKind::Setting,
            visibility: Visibility::Public,
            flows: Vec::new(),
        });
    }

    /// `std::env::var("MAX_CONNECTIONS")...unwrap_or(100)`: the fallback of a setting read from
    /// the environment, named by the variable.
    fn env_fallback(&mut self, v: &View, e: &Expr, m: &syn::ExprMethodCall) {
        if !matches!(
            m.method.to_string().as_str(),
            "unwrap_or" | "unwrap_or_else" | "map_or" | "map_or_else"
        ) {
            return;
        }
        let (root, _) = crate::syntax::chain(&m.receiver);
        let Expr::Call(c) = root else { return };
        let Expr::Path(p) = &*c.func else { return };
        // `env::var(..)`, or `var(..)` imported, given a variable's name (`"N_UBATCH_SIZE"`).
        let bare = |var: &str| {
            p.path.segments.len() == 1
                && (p.path.is_ident("var") || p.path.is_ident("var_os"))
                && var
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        };
        let var = first_str(&c.args);
        let named = path_ends_with(&p.path, "env::var")
            || path_ends_with(&p.path, "env::var_os")
            || var.as_deref().is_some_and(bare);
        if let (true, Some(var)) = (named, var) {
            self.env_capacity(v, &var, [e]);
        }
    }

    /// The literals of `values`, the fallbacks of environment variable `var`, when it is named
    /// for a capacity: each is one, named by the variable.
    fn env_capacity<'e>(
        &mut self,
        v: &View,
        var: &str,
        values: impl IntoIterator<Item = &'e Expr>,
    ) {
        if !self.tables.capacity_names.matches(var) {
            return;
        }
        let site = crate::site::child(&v.function_site(), var);
        for e in values {
            self.leaf_lits(v, e, &site, var, CapacityKind::Env, &Visibility::Public);
        }
    }

    /// `get_from_env("QW_S3_MAX_CONCURRENCY", 10_000)`, `env_or("WORKERS", 4)`: a helper named
    /// for the environment given a capacity-named variable and a literal fallback. The variable
    /// names it, as `env::var(..)..unwrap_or(..)` does.
    /// So is a constructor of a type named for the environment (`NumEnv::new("NUM_WORKERS", 4)`,
    /// a setting read from the variable later, with its fallback).
    fn env_helper(&mut self, v: &View, c: &syn::ExprCall) {
        let Expr::Path(p) = &*c.func else { return };
        let segs = &p.path.segments;
        let Some(last) = segs.last() else { return };
        let named = |s: &syn::PathSegment| {
            crate::index::names::words(&s.ident.to_string())
                .iter()
                .any(|w| w == "env")
        };
        let constructor = segs.len() >= 2
            && matches!(last.ident.to_string().as_str(), "new" | "const_new")
            && named(&segs[segs.len() - 2]);
        if !named(last) && !constructor {
            return;
        }
        if let Some(var) = first_str(&c.args) {
            self.env_values(v, &var, c.args.iter().skip(1));
        }
    }

    /// The fallbacks among `args` of environment variable `var` (`env_capacity`). Beside other
    /// numbers, a 1 is a range's floor (`env_usize("DNS_CONCURRENT_REQS", 1, 16)`); a lone one
    /// is the fallback (`env_or("WORKERS", 1)`).
    fn env_values<'e>(&mut self, v: &View, var: &str, args: impl Iterator<Item = &'e Expr>) {
        let values: Vec<(&Expr, Option<u64>)> = args.map(|a| (a, Val::of(a).literal())).collect();
        let numbers = values.iter().filter(|(_, n)| n.is_some()).count();
        let kept = values
            .into_iter()
            .filter(|(_, n)| numbers < 2 || n.is_none_or(|n| n > 1))
            .map(|(a, _)| a);
        self.env_capacity(v, var, kept);
    }

    /// A macro named for the environment given a capacity-named variable and its fallback, as
    /// `env_helper`'s functions are: positional (`env_or!("WORKERS", 4)`) or a `default = N`
    /// among other settings (`app_env!("APP_IO_THREADS", type = usize, default = 4)`).
    fn env_macro(&mut self, v: &View, mac: &syn::Macro, name: &str, args: Option<&[Expr]>) {
        if !crate::index::names::words(name).iter().any(|w| w == "env") {
            return;
        }
        if let Some(args) = args {
            if let Some(var) = first_str(args) {
                self.env_values(v, &var, args.iter().skip(1));
            }
            return;
        }
        use proc_macro2::TokenTree;
        let tokens: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
        let Some(TokenTree::Literal(first)) = tokens.first() else {
            return;
        };
        let syn::Lit::Str(var) = syn::Lit::new(first.clone()) else {
            return;
        };
        let defaults: Vec<Expr> = tokens
            .windows(3)
            .filter_map(|w| match w {
                [
                    TokenTree::Ident(key),
                    TokenTree::Punct(eq),
                    TokenTree::Literal(lit),
                ] if key == "default" && eq.as_char() == '=' => Some(Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::new(lit.clone()),
                })),
                _ => None,
            })
            .collect();
        self.env_values(v, &var.value(), defaults.iter());
    }

    /// `if self.pool_size > 100 { return Err(..) }`: a ceiling a configuration is checked
    /// against, typed by hand like the default it bounds. Only where crossing it is refused (the
    /// branch returns, bails or panics), and only on a value named for a capacity.
    fn ceiling_check(&mut self, v: &View, i: &syn::ExprIf) {
        self.ceiling_of(v, i, None);
        // `if let Some(size) = self.store.max_batch_size { if size > 10240 { return Err(..) } }`:
        // the binding is the value it unwraps.
        let Expr::Let(l) = &*i.cond else { return };
        let bound = match &*l.pat {
            syn::Pat::TupleStruct(t) if t.elems.len() == 1 => t.elems.first(),
            p => Some(p),
        };
        let Some(syn::Pat::Ident(id)) = bound else {
            return;
        };
        let Some(name) = operand_name(&l.expr) else {
            return;
        };
        let alias = (id.ident.to_string(), name);
        for stmt in &i.then_branch.stmts {
            if let syn::Stmt::Expr(Expr::If(inner), _) = stmt {
                self.ceiling_of(v, inner, Some(&alias));
            }
        }
    }

    fn ceiling_of(&mut self, v: &View, i: &syn::ExprIf, alias: Option<&(String, String)>) {
        if !refuses(&i.then_branch) {
            return;
        }
        let mut conds = vec![&*i.cond];
        while let Some(c) = conds.pop() {
            let (named, bound) = match crate::index::value::carried(c) {
                // `a || n > 100`, and `exactly_once && self.max_in_flight > 5`: refused past it
                // where the other condition holds.
                Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_) | syn::BinOp::And(_)) => {
                    conds.extend([&*b.left, &*b.right]);
                    continue;
                }
                // `n > 100` or `100 < n`.
                Expr::Binary(b) => match b.op {
                    syn::BinOp::Gt(_) | syn::BinOp::Ge(_) => (&*b.left, &*b.right),
                    syn::BinOp::Lt(_) | syn::BinOp::Le(_) => (&*b.right, &*b.left),
                    _ => continue,
                },
                // `!(1..=16).contains(&self.connections)`: the most the range lets through.
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => match range_check(&u.expr) {
                    Some(found) => found,
                    None => continue,
                },
                _ => continue,
            };
            let Some(mut name) = operand_name(named) else {
                continue;
            };
            // `cpu_topology.threads_per_core > 2`: a field of what holds no count, unless it
            // says it counts at once (`rate_limits.concurrent_requests`), as a struct literal's.
            if receivers(named).any(|r| self.tables.holder_counts_nothing(&r, &name)) {
                continue;
            }
            match alias {
                Some((from, to)) if *from == name => name = to.clone(),
                Some(_) => continue,
                None => {}
            }
            // The bound as written: a literal (a fallback there is another value's).
            let written = matches!(bound, Expr::Lit(_));
            // `if self.buffer_capacity > MAX_SUBSCRIPTION_BUFFER { return Err(..) }`: a
            // constant the value is refused past is the most that place holds, so it flows
            // where the place's value goes (a capacity when that reaches one).
            if let Expr::Path(p) = crate::index::value::carried(bound) {
                if crate::syntax::last_segment(&p.path).is_some_and(|id| is_const_name(&id)) {
                    let site = crate::site::child(&v.function_site(), &name);
                    for s in self.sources(v).of(named) {
                        if let flow::Source::Place(to @ flow::Node::Field(..), _) = s {
                            self.flows_into(v, bound, to, (&site, &name, CapacityKind::Ceiling));
                        }
                    }
                }
                continue;
            }
            let (Some(value), true) = (
                Val::of(bound).literal().filter(|v| *v >= 2 && written),
                self.tables.capacity_names.matches_count(&name),
            ) else {
                continue;
            };
            self.facts.named_lits.push(NamedLit {
                site: crate::site::child(&v.function_site(), &name),
                ident: name,
                value,
                loc: crate::syntax::expr_loc(v.rel, bound),
                in_test: false,
                kind: CapacityKind::Ceiling,
                visibility: Visibility::Public,
                flows: Vec::new(),
            });
        }
    }

    /// `if channel_size > COMMAND_CHANNEL_SIZE_LIMIT { tracing::warn!(..) }`: a constant the
    /// code compares a size with only to log that it grew (a threshold for a warning on an
    /// unbounded channel) bounds nothing. Its places there are kept (`FileFacts::inert_uses`).
    fn warn_gate(&mut self, v: &View, i: &syn::ExprIf) {
        let else_warns = match &i.else_branch {
            None => true,
            Some((_, e)) => match &**e {
                Expr::Block(b) => only_warns(&b.block, false),
                _ => false,
            },
        };
        if !else_warns || !only_warns(&i.then_branch, true) {
            return;
        }
        let Expr::Binary(b) = crate::index::value::carried(&i.cond) else {
            return;
        };
        if !matches!(
            b.op,
            syn::BinOp::Gt(_) | syn::BinOp::Ge(_) | syn::BinOp::Lt(_) | syn::BinOp::Le(_)
        ) {
            return;
        }
        for side in [&*b.left, &*b.right] {
            if let Expr::Path(p) = crate::index::value::carried(side) {
                if crate::syntax::last_segment(&p.path).is_some_and(|id| is_const_name(&id)) {
                    self.facts
                        .inert_uses
                        .push(crate::syntax::path_loc(v.rel, &p.path));
                }
            }
        }
    }

    /// `if requests.is_empty() || requests.len() > MAX_BATCH_SPECS { return Err(..) }`: a
    /// constant the code compares a request's count with only to refuse the request (a count
    /// the function holds, of something not named for work held at once: not a queue's, not
    /// the connections'; a stored one, `node.commands.len() >= MAX_COMMANDS`, is a bound) is
    /// the request's limit, not a capacity. Its places there are kept with the warnings'
    /// (`FileFacts::inert_uses`): a constant whose every use is such a gate bounds nothing.
    fn request_gate(&mut self, v: &View, i: &syn::ExprIf) {
        if !refuses_with_error(&i.then_branch) {
            return;
        }
        let mut comparisons = Vec::new();
        either_side(&i.cond, &mut comparisons);
        for b in comparisons {
            if !matches!(
                b.op,
                syn::BinOp::Gt(_) | syn::BinOp::Ge(_) | syn::BinOp::Lt(_) | syn::BinOp::Le(_)
            ) {
                continue;
            }
            for (side, other) in [(&*b.left, &*b.right), (&*b.right, &*b.left)] {
                let Expr::Path(p) = crate::index::value::carried(side) else {
                    continue;
                };
                if !crate::syntax::last_segment(&p.path).is_some_and(|id| is_const_name(&id)) {
                    continue;
                }
                // A count the function holds (`requests`, `total_results`): a stored one
                // (`node.commands.len()`, `self.pending`) is state the gate keeps bounded.
                let local = |e: &Expr| match e {
                    Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                        Some(p.path.segments[0].ident.to_string())
                    }
                    _ => None,
                };
                let counted = match crate::index::value::carried(other) {
                    Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                        local(&m.receiver)
                    }
                    o => local(o),
                };
                if counted.is_some_and(|n| {
                    !is_const_name(&n)
                        && !self.tables.is_work_collection(&n)
                        && !self.tables.capacity_names.matches(&n)
                }) {
                    self.facts
                        .inert_uses
                        .push(crate::syntax::path_loc(v.rel, &p.path));
                }
            }
        }
    }

    /// `LaunchConfig::grid_2d(blocks, 1, threads, 1)`, `MTLSize::new(THREADS, 1, 1)`,
    /// `LaunchConfig { block_dim: (threads, 1, 1), .. }`, `pass.dispatch_workgroups(..)`: the
    /// numbers a GPU kernel's launch is sized with (the rule's `launch_names`) are threads of a
    /// block or a group, and blocks enough to cover the input; a layout, no pool of threads.
    fn launch_geometry(&mut self, v: &View, e: &Expr) {
        // Asked of every expression: the few names are compared, no identifier is copied.
        let named = |id: &syn::Ident| self.tables.launch_names.iter().any(|n| id == n);
        match e {
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    if p.path.segments.iter().any(|s| named(&s.ident)) {
                        c.args.iter().for_each(|a| self.launch_sizes(v, a));
                    }
                }
            }
            Expr::MethodCall(m) if named(&m.method) => {
                m.args.iter().for_each(|a| self.launch_sizes(v, a));
            }
            Expr::Struct(s) => {
                for f in &s.fields {
                    if matches!(&f.member, syn::Member::Named(n) if named(n)) {
                        self.launch_sizes(v, &f.expr);
                    }
                }
            }
            _ => {}
        }
    }

    /// The constants a binding's value is computed from (`let grid = n.div_ceil(THREADS)`,
    /// `let block = if split { SPLIT_THREADS } else { SERIAL_THREADS }`), kept by the binding's
    /// site: where the binding sizes a launch, they do too (`launch_sizes`).
    fn let_constants(&mut self, v: &View, name: &str, init: &Expr) {
        if Val::of(init).is_lit() {
            return;
        }
        let consts: Vec<Loc> = paths_in(init)
            .into_iter()
            .filter(|p| crate::syntax::last_segment(p).is_some_and(|l| is_const_name(&l)))
            .map(|p| crate::syntax::path_loc(v.rel, p))
            .collect();
        if !consts.is_empty() {
            let site = crate::site::child(&v.function_site(), name);
            self.let_consts.push((site, consts));
        }
    }

    /// Leaving a function's body or a constant's initialiser: the outer one's state returns,
    /// and the arms' bindings of this one (`scopes`), never read again, go.
    fn leave_body(&mut self) {
        if let Some(id) = self.fn_ids.pop() {
            self.scopes.retain(|s| s.fn_id != id);
            self.gauge_reads.retain(|(f, _, _)| *f != id);
        }
        self.locals = self.outer_locals.pop().unwrap_or_default();
        self.fn_keys.pop();
        self.param_types.pop();
        self.read_params.pop();
    }

    /// Whether the file names a GPU launch at all (`launch_file`).
    fn names_launch(&mut self, v: &View) -> bool {
        let names = &self.tables.launch_names;
        *self
            .launch_file
            .get_or_insert_with(|| names.iter().any(|n| v.text.contains(n.as_str())))
    }

    /// The names in a launch's size (`launch_geometry`): a binding's site joins
    /// `FileFacts::launch_sites`, a constant's place `FileFacts::inert_uses` (a constant whose
    /// every use is one bounds nothing).
    fn launch_sizes(&mut self, v: &View, size: &Expr) {
        for p in paths_in(size) {
            let Some(last) = crate::syntax::last_segment(p) else {
                continue;
            };
            if is_const_name(&last) {
                self.facts
                    .inert_uses
                    .push(crate::syntax::path_loc(v.rel, p));
            } else if p.segments.len() == 1 {
                let site = crate::site::child(&v.function_site(), &last);
                // `let grid = n.div_ceil(THREADS); LaunchConfig { grid_dim: (grid, 1, 1), .. }`:
                // the constants the binding is computed from size the launch too.
                for (_, locs) in self.let_consts.iter().filter(|(s, _)| *s == site) {
                    self.facts.inert_uses.extend(locs.iter().cloned());
                }
                if !self.facts.launch_sites.contains(&site) {
                    self.facts.launch_sites.push(site);
                }
            }
        }
    }

    /// `if n == 0 { n = 1; }` (or `n < 1`): the 1 only keeps the count from being zero, a
    /// floor like `n.max(1)`; its place is kept so that the assignment is no capacity.
    fn zero_guard(&mut self, v: &View, i: &syn::ExprIf) {
        let Expr::Binary(b) = crate::index::value::carried(&i.cond) else {
            return;
        };
        let guarded = match (b.op, Val::of(&b.right).literal()) {
            (syn::BinOp::Eq(_) | syn::BinOp::Le(_), Some(0)) | (syn::BinOp::Lt(_), Some(1)) => {
                operand_name(&b.left)
            }
            _ => None,
        };
        let Some(guarded) = guarded else { return };
        for stmt in &i.then_branch.stmts {
            let syn::Stmt::Expr(Expr::Assign(a), _) = stmt else {
                continue;
            };
            if operand_name(&a.left).as_deref() == Some(guarded.as_str())
                && Val::of(&a.right).literal() == Some(1)
            {
                self.floors
                    .push(flow::Pos::of(&crate::syntax::expr_loc(v.rel, &a.right)));
            }
        }
    }

    /// Whether `e` is the 1 of a zero guard's assignment (`zero_guard`).
    fn is_floor(&self, v: &View, e: &Expr) -> bool {
        !self.floors.is_empty()
            && self
                .floors
                .contains(&flow::Pos::of(&crate::syntax::expr_loc(v.rel, e)))
    }

    /// `cfg.max_conns = opt.map_or(48, ..)`: a capacity field set outside a struct literal.
    fn assignment(&mut self, v: &View, a: &syn::ExprAssign) {
        self.assigned(v, &a.left, &a.right);
    }

    /// A value written into a field: `self.workers = 4`, and an `Option` field's value set where
    /// it has none, `bld.parallelism.get_or_insert(4)`, `.get_or_insert_with(|| 4)` (arti's
    /// download-schedule builders).
    fn assigned(&mut self, v: &View, left: &Expr, right: &Expr) {
        if self.is_floor(v, right) {
            return;
        }
        let Expr::Field(f) = left else { return };
        let syn::Member::Named(field) = &f.member else {
            return;
        };
        let field = field.to_string();
        if self.tables.capacity_names.matches(&field) {
            let site = crate::site::child(&v.function_site(), &field);
            let public = Visibility::Public;
            self.leaf_lits(v, right, &site, &field, CapacityKind::Field, &public);
        }
    }

    /// The command-line defaults of a struct's capacity-named fields (a server's flags).
    fn cli_args(&mut self, v: &View, ty: &str, fields: &syn::Fields) {
        for f in fields {
            let Some(name) = f.ident.as_ref().map(|i| i.to_string()) else {
                continue;
            };
            if !self.names(&name, is_int(&f.ty)) {
                continue;
            }
            for a in f.attrs.iter().filter(|a| cli_default_attr(a)) {
                let defaults = cli_defaults(v.rel, a).into_iter();
                let ceilings = cli_range_ceiling(v.rel, a).into_iter();
                let found = defaults.map(|d| (d, CapacityKind::Field));
                for ((value, loc), kind) in
                    found.chain(ceilings.map(|c| (c, CapacityKind::Ceiling)))
                {
                    self.facts.named_lits.push(NamedLit {
                        site: v.scope.field_site(ty, &name),
                        ident: name.clone(),
                        value,
                        loc,
                        in_test: v.in_test(),
                        kind,
                        visibility: Visibility::Public,
                        flows: Vec::new(),
                    });
                }
            }
        }
    }
}

impl Extractor<'_> {
    /// Capacities set in an attribute's arguments, named by the argument: a runtime's
    /// `#[tokio::main(worker_threads = 4)]`, a derive's `#[param(worker_threads = 1)]` on an enum
    /// variant or a field. Clap's and serde's defaults are read by `cli_args` and `flow_struct`.
    fn attr_args(&mut self, v: &View, item: &syn::Item) {
        let mut owners: Vec<(String, &[syn::Attribute])> = Vec::new();
        match item {
            syn::Item::Fn(f) => owners.push((f.sig.ident.to_string(), &f.attrs)),
            syn::Item::Enum(e) => owners.extend(
                e.variants
                    .iter()
                    .map(|x| (format!("{}::{}", e.ident, x.ident), x.attrs.as_slice())),
            ),
            syn::Item::Struct(s) => {
                owners.push((s.ident.to_string(), &s.attrs));
                owners.extend(s.fields.iter().filter_map(|f| {
                    let name = f.ident.as_ref()?;
                    Some((format!("{}::{name}", s.ident), f.attrs.as_slice()))
                }));
            }
            _ => {}
        }
        self.owner_attrs(v, owners);
    }

    /// The capacities named in the attributes of each owner (an item, a variant, a field, a
    /// method).
    fn owner_attrs(&mut self, v: &View, owners: Vec<(String, &[syn::Attribute])>) {
        for (owner, attrs) in owners {
            // A test's own runtime (`#[tokio::test(flavor = "multi_thread", worker_threads = 4)]`)
            // is test code, wherever the test sits.
            let in_test = v.in_test()
                || crate::syntax::is_cfg_test(attrs)
                || crate::syntax::is_test_fn(attrs);
            for a in attrs.iter().filter(|a| cli_default_attr(a)) {
                for (name, value, loc) in attr_ints(v.rel, a) {
                    if value == 0 || !self.tables.capacity_names.matches_count(&name) {
                        continue;
                    }
                    self.facts.named_lits.push(NamedLit {
                        site: crate::site::child(&v.scope.site(&owner), &name),
                        ident: name,
                        value,
                        loc,
                        in_test,
                        kind: CapacityKind::Attr,
                        visibility: Visibility::Public,
                        flows: Vec::new(),
                    });
                }
            }
        }
    }
}

/// The `name = integer` arguments of an attribute, at any depth (`#[param(worker_threads = 1)]`,
/// `#[tokio::main(flavor = "multi_thread", worker_threads = 4)]`).
fn attr_ints(rel: &str, a: &syn::Attribute) -> Vec<(String, u64, Loc)> {
    fn nested(
        rel: &str,
        meta: syn::meta::ParseNestedMeta,
        out: &mut Vec<(String, u64, Loc)>,
    ) -> syn::Result<()> {
        let name = meta.path.segments.last().map(|s| s.ident.to_string());
        if meta.input.peek(syn::Token![=]) {
            let input = meta.value()?;
            if input.peek(syn::token::Paren) {
                // A signature's defaults: pyo3's `signature = (model, max_num_seqs = Some(32),
                // *, block_size = 16)`.
                let group: proc_macro2::Group = input.parse()?;
                out.extend(signature_defaults(rel, group.stream()));
                return Ok(());
            }
            let value: Expr = input.parse()?;
            if let (Some(name), Val::Lit(v)) = (name, Val::of(&value)) {
                out.push((name, v, crate::syntax::expr_loc(rel, &value)));
            }
        } else if meta.input.peek(syn::token::Paren) {
            meta.parse_nested_meta(|m| nested(rel, m, out))?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    let _ = a.parse_nested_meta(|m| nested(rel, m, &mut out));
    out
}

/// The `name = integer` defaults of a parameter list written in an attribute (pyo3's
/// `signature = (model, max_num_seqs = Some(32), *, block_size = 16)`): each top-level
/// comma-separated entry that is a name, `=` and an integer, or `Some` of one. Entries that are
/// not (`*`, `*args`, a bare name, `None`) are skipped.
fn signature_defaults(rel: &str, tokens: proc_macro2::TokenStream) -> Vec<(String, u64, Loc)> {
    use proc_macro2::TokenTree;
    let mut out = Vec::new();
    let mut entry: Vec<TokenTree> = Vec::new();
    let mut entries = Vec::new();
    for t in tokens {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => entries.push(std::mem::take(&mut entry)),
            _ => entry.push(t),
        }
    }
    entries.push(entry);
    for e in entries {
        let (Some(TokenTree::Ident(name)), Some(TokenTree::Punct(eq))) = (e.first(), e.get(1))
        else {
            continue;
        };
        if eq.as_char() != '=' || e.len() < 3 {
            continue;
        }
        let Ok(value) = syn::parse2::<Expr>(e[2..].iter().cloned().collect()) else {
            continue;
        };
        let inner = match &value {
            Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")) =>
            {
                &c.args[0]
            }
            other => other,
        };
        if let Val::Lit(v) = Val::of(inner) {
            out.push((name.to_string(), v, crate::syntax::expr_loc(rel, inner)));
        }
    }
    out
}

/// Where values go (`index::flow`): recorded for production code only, outside formatting
/// macros; a literal stored somewhere is a seed, named by `site` and `item` should it reach an API.
impl Extractor<'_> {
    fn sources<'v>(&'v self, v: &'v View) -> flow::Sources<'v> {
        flow::Sources {
            fn_id: self.fn_ids.last().copied(),
            self_ty: v.scope.self_ty(),
            param_types: self.param_types.last().map_or(&[], Vec::as_slice),
            unit_values: &self.tables.unit_values,
            names: &self.tables.capacity_names,
            scopes: &self.scopes,
            local_consts: &self.local_consts,
        }
    }

    /// Record that `value`'s sources go to `to`: each place as an edge, each literal as a seed.
    fn flows_into(
        &mut self,
        v: &View,
        value: &Expr,
        to: flow::Node,
        (site, item, kind): (&str, &str, CapacityKind),
    ) {
        // A size in bytes or a share is no count: nothing flows on through it (`available -
        // reserve_bytes` sets no capacity with the reserve's literal).
        if self.tables.holds_no_count(&to) {
            return;
        }
        // `lazy_env_parse!("SURREAL_OPERATOR_BUFFER_SIZE", usize, 2)`: a macro named for the
        // environment gives the variable's value or its fallback, which flows on.
        if let Some(fallbacks) = env_macro_fallbacks(value) {
            for f in &fallbacks {
                self.flows_into(v, f, to.clone(), (site, item, kind));
            }
            return;
        }
        let cpu_sink = self.cpu_sink(&to, value);
        if let Some(sink) = &cpu_sink {
            self.cpu_call_args(v, value, sink, (site, item, kind));
        }
        let found = self.sources(v).of(value);
        // `available_parallelism().map_or(1, ..)`: the CPU count's floor sets no capacity,
        // wherever the value goes (`options.increase_parallelism(parallelism)`).
        let cpu_count = crate::index::value::asks_cpus(value);
        for s in found {
            let (value, lit, factor) = match s {
                flow::Source::Lit(n, _) if cpu_count && n <= 1 => continue,
                flow::Source::Place(flow::Node::Ret(_), _) if !self.calls_followed => continue,
                flow::Source::Place(from, call) => {
                    self.facts.flow.edges.push(flow::Edge {
                        from,
                        to: to.clone(),
                        at: flow::Pos::of(&crate::syntax::expr_loc(v.rel, value)),
                        from_call: call.map(|c| flow::Pos::of(&crate::syntax::expr_loc(v.rel, c))),
                        to_call: self.call_at,
                    });
                    continue;
                }
                flow::Source::Lit(value, lit) => (value, lit, None),
                // The product is named whole, on one line (`max * 2`).
                flow::Source::Factor(value, lit, whole) => (value, lit, Some(product(v, whole))),
            };
            let seed = flow::Seed {
                value,
                loc: crate::syntax::expr_loc(v.rel, lit),
                to: to.clone(),
                site: site.to_string(),
                item: item.to_string(),
                kind,
                call: self.call_at,
                factor,
            };
            // A factor of the CPU count in a capacity-named place sets that capacity, whether or
            // not the place reaches an API (the API's path, when there is one, is told first).
            if let (Some(sink), Some(_)) = (&cpu_sink, &seed.factor) {
                let named = flow::Seed {
                    to: sink.clone(),
                    call: None,
                    ..seed.clone()
                };
                self.facts.flow.seeds.push(seed);
                self.facts.flow.seeds.push(named);
            } else {
                self.facts.flow.seeds.push(seed);
            }
        }
    }

    /// The sink a value stored in `to` makes of the literals that scale the CPU count in it:
    /// `to` is a field, binding or function result named for a capacity (`num_workers`,
    /// `default_merge_concurrency()`; not `num_cpus`), and
    /// the value asks for the CPU count (`(get_total_cpu_cores() / 2).max(1)`,
    /// `num_cpus::get() * 3 / 4`, `divide_num_cpus(2)`).
    fn cpu_sink(&self, to: &flow::Node, value: &Expr) -> Option<flow::Node> {
        let (shown, name) = match to {
            flow::Node::Field(Some(ty), name) => (format!("{ty}.{name}"), name.as_str()),
            flow::Node::Field(None, name) => (format!(".{name}"), name.as_str()),
            flow::Node::Local(_, name) => (name.clone(), name.as_str()),
            flow::Node::Ret(key) => {
                let name = key.rsplit("::").next().unwrap_or(key);
                (format!("{key}()"), name.trim_start_matches('.'))
            }
            _ => return None,
        };
        (self.tables.capacity_names.matches(name)
            && !is_cpu_word(name)
            && mentions_cpu_count(value))
        .then_some(flow::Node::Sink(shown))
    }

    /// `divide_num_cpus(2)`: the literal arguments of a call that asks for the CPU count, in a
    /// capacity-named place, divide or scale it (a 0 or 1 is a floor, not a setting).
    fn cpu_call_args(
        &mut self,
        v: &View,
        value: &Expr,
        sink: &flow::Node,
        (site, item, kind): (&str, &str, CapacityKind),
    ) {
        let mut e = value;
        loop {
            match e {
                Expr::Paren(p) => e = &p.expr,
                Expr::Cast(c) => e = &c.expr,
                Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "max" | "min") => {
                    e = &m.receiver
                }
                _ => break,
            }
        }
        let Expr::Call(c) = e else { return };
        let Expr::Path(p) = &*c.func else { return };
        if !names_cpus(&p.path) {
            return;
        }
        for a in &c.args {
            let Some(n) = Val::of(a).literal().filter(|&n| n >= 2) else {
                continue;
            };
            self.facts.flow.seeds.push(flow::Seed {
                value: n,
                loc: crate::syntax::expr_loc(v.rel, a),
                to: sink.clone(),
                site: site.to_string(),
                item: item.to_string(),
                kind,
                call: None,
                factor: Some(product(v, e)),
            });
        }
    }

    /// `const SEND_BUF_CAP: usize = BROADCAST_CAP * 2;`: the multiplier of a constant named for
    /// a capacity sets the product as much as that constant sets itself, when the product is a
    /// capacity too: named for one, or reaching an API (the flow's `Node::Const`). A unit's
    /// multiple (`64 * MIB`: `MIB` is named for no capacity) is the constant's own number. A
    /// quotient counts alike (`3 * DEFAULT_MAX_WORK_EVENT_QUEUE_LEN / 4`: each literal).
    fn scaled_const(
        &mut self,
        v: &View,
        c: &ConstItem,
        (site, item, kind): (&str, &str, CapacityKind),
    ) {
        // The literals and constants of a product or quotient (`3 * MAX_QUEUE_LEN / 4`).
        fn terms<'e>(e: &'e Expr, lits: &mut Vec<&'e Expr>, consts: &mut Vec<String>) -> bool {
            match crate::index::value::carried(e) {
                Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_) | syn::BinOp::Div(_)) => {
                    terms(&b.left, lits, consts) && terms(&b.right, lits, consts)
                }
                inner => match Val::of(inner) {
                    Val::Const(n) => {
                        consts.push(n);
                        true
                    }
                    _ if Val::of(inner).is_lit() => {
                        lits.push(inner);
                        true
                    }
                    _ => false,
                },
            }
        }
        let (mut lits, mut consts) = (Vec::new(), Vec::new());
        if !matches!(crate::index::value::carried(c.expr), Expr::Binary(_))
            || !terms(c.expr, &mut lits, &mut consts)
        {
            return;
        }
        let [base] = consts.as_slice() else { return };
        if !self.tables.capacity_names.matches(base) {
            return;
        }
        for lit in lits {
            let Some(n) = Val::of(lit).literal().filter(|&n| n >= 2) else {
                continue;
            };
            if self.tables.unit_values.contains(&n) {
                continue;
            }
            let to = if self.tables.capacity_names.matches(item) {
                flow::Node::Sink(item.to_string())
            } else {
                flow::Node::Const(item.to_string())
            };
            self.facts.flow.seeds.push(flow::Seed {
                value: n,
                loc: crate::syntax::expr_loc(v.rel, lit),
                to,
                site: site.to_string(),
                item: item.to_string(),
                kind,
                call: None,
                factor: Some(product(v, c.expr)),
            });
        }
    }

    /// `let (tx, _) = flume::bounded(5)`: a point-to-point channel whose receiver is dropped
    /// where it is made holds nothing (every send fails at once), so its bound is no capacity.
    /// A broadcast's receivers come from `subscribe()`: `let (tx, _) = broadcast::channel(16)`
    /// is how one is made, and stays a capacity.
    fn dropped_receiver(&mut self, v: &View, l: &syn::Local) {
        let syn::Pat::Tuple(t) = &l.pat else { return };
        if t.elems.len() != 2 || !matches!(t.elems[1], syn::Pat::Wild(_)) {
            return;
        }
        let Some(init) = &l.init else { return };
        let Expr::Call(c) = crate::index::value::carried(&init.expr) else {
            return;
        };
        let point_to_point = self.api_of_call(&c.func, c.args.len()).is_some_and(|api| {
            (api.name.ends_with("channel") || api.name.ends_with("bounded"))
                && !api.name.contains("broadcast")
        });
        if point_to_point {
            self.signals
                .push(flow::Pos::of(&crate::syntax::expr_loc(v.rel, &c.func)));
        }
    }

    /// `let (stop_send, _) = broadcast::channel(2)`: a broadcast channel whose sender is named
    /// for a stop signal (a word `stop`, `shutdown`, `exit`, `quit`, `cancel`, `kill`,
    /// `terminate`, `close` or `halt`) or a reload (`let reload_sender =
    /// broadcast::Sender::new(16)`), or whose sender only ever sends a constant in this file
    /// (`sender.send(1)`, `self.tx.send(Action::Reload)`: `Lexical::signal_senders`), carries
    /// signals to every task; its bound is how many signals may wait, no capacity of work. A
    /// point-to-point channel is one only by its sender's stop name, and not when the sender
    /// acknowledges the stop (`stop_done_sender`: a slot per task).
    fn stop_signal(&mut self, v: &View, l: &syn::Local) {
        // The sender is the tuple's first binding, or the binding itself where the call makes
        // only a sender (`let reload_sender = broadcast::Sender::new(16)`).
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            pat => pat,
        };
        let sender = match pat {
            syn::Pat::Tuple(t) => t.elems.first(),
            pat => Some(pat),
        };
        let Some(syn::Pat::Ident(sender)) = sender else {
            return;
        };
        let Some(init) = &l.init else { return };
        self.signal_sender(v, &sender.ident.to_string(), &init.expr);
    }

    /// A channel made under a name (a binding's, a struct-literal field's, or the function's
    /// whose value it is: `fn new_reload_notify_channel() -> .. { broadcast::Sender::new(16) }`)
    /// that says it carries a stop or reload signal, or whose sender only ever sends a constant.
    fn signal_sender(&mut self, v: &View, name: &str, value: &Expr) {
        let Expr::Call(c) = crate::index::value::carried(value) else {
            return;
        };
        let words = crate::index::names::words(name);
        let named_stop = words.iter().any(|w| {
            matches!(
                w.as_str(),
                "stop"
                    | "shutdown"
                    | "exit"
                    | "quit"
                    | "cancel"
                    | "kill"
                    | "terminate"
                    | "close"
                    | "halt"
                    | "reload"
            )
        });
        let stop = named_stop
            || self
                .signal_senders
                .binary_search_by(|n| n.as_str().cmp(name))
                .is_ok();
        let api = self.api_of_call(&c.func, c.args.len());
        let broadcast = api.as_ref().is_some_and(|api| {
            api.name.ends_with("broadcast::channel")
                || api.name.ends_with("broadcast")
                || api.name.ends_with("broadcast::Sender::new")
        });
        // A point-to-point channel whose sender is named for a stop signal carries stop
        // requests to one task (`let (stop_send, stop_recv) = mpsc::channel::<bool>(10)`); one
        // named for what is done after it (`stop_done_sender`: each task says it has stopped)
        // holds a slot per task, a capacity.
        let channel = api
            .as_ref()
            .is_some_and(|api| api.name.ends_with("channel") || api.name.ends_with("bounded"));
        let acknowledges = words
            .iter()
            .any(|w| matches!(w.as_str(), "done" | "ack" | "finished" | "completed"));
        if (stop && broadcast) || (named_stop && channel && !acknowledges) {
            self.signals
                .push(flow::Pos::of(&crate::syntax::expr_loc(v.rel, &c.func)));
        }
    }

    /// A function's parameters are its locals; its tail expression is what it returns.
    fn flow_fn(&mut self, v: &View, f: &FnItem) {
        let name = f.sig.ident.to_string();
        if let Some(syn::Stmt::Expr(tail, None)) = f.block.stmts.last() {
            self.signal_sender(v, &name, tail);
        }
        let key = match crate::syntax::macros::is_rule_fn(f.attrs) {
            true => format!("{name}!"),
            false => flow::def_key(&name, v.scope.self_ty(), f.sig.receiver().is_some()),
        };
        if f.sig.receiver().is_some()
            && v.scope.in_trait()
            && flow::may_return_int(&f.sig.output)
            && !self.facts.flow.trait_methods.contains(&key)
        {
            self.facts.flow.trait_methods.push(key.clone());
        }
        let returns = flow::may_return_int(&f.sig.output);
        self.fn_keys.push(returns.then(|| key.clone()));
        let fn_id = self.next_fn_id();
        self.fn_ids.push(fn_id);
        // The constants its body declares, known before its result is followed (the tail
        // `cpus * CPU_OVERCOMMIT_FACTOR` is read here, before the walk meets the `const`).
        for stmt in &f.block.stmts {
            if let syn::Stmt::Item(
                syn::Item::Const(syn::ItemConst { ident, .. })
                | syn::Item::Static(syn::ItemStatic { ident, .. }),
            ) = stmt
            {
                self.local_consts.push((fn_id, ident.to_string()));
            }
        }
        let typed = f.sig.inputs.iter().filter_map(|a| match a {
            syn::FnArg::Typed(t) => match (&*t.pat, struct_type(&t.ty)) {
                (syn::Pat::Ident(id), Some(ty)) => Some((id.ident.to_string(), ty)),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        });
        self.param_types.push(typed.collect());
        let read = f.sig.inputs.iter().filter_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(id) if id.mutability.is_none() && owned_value(&t.ty) => {
                    Some(id.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        });
        self.read_params.push(read.collect());
        if v.in_test() {
            return;
        }
        let params = f.sig.inputs.iter().filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(t),
            syn::FnArg::Receiver(_) => None,
        });
        let exported = v.scope.in_trait()
            || f.vis
                .is_none_or(|vis| matches!(vis, syn::Visibility::Public(_)));
        for (i, p) in params.enumerate() {
            let syn::Pat::Ident(id) = &*p.pat else {
                continue;
            };
            // A parameter whose type cannot be a number (`chan: Tx<T, S>`, `name: &str`) carries
            // no capacity, whatever the caller passes.
            if !flow::param_may_hold_int(&p.ty, &f.sig.generics) {
                continue;
            }
            let param = id.ident.to_string();
            let local = flow::Node::Local(fn_id, param.clone());
            // A size in bytes or a share is no count (`per_seq_bytes`): nothing flows through it.
            if self.tables.holds_no_count(&local) {
                continue;
            }
            self.facts.flow.params.push(flow::ParamName {
                key: key.clone(),
                index: i,
                name: param.clone(),
                exported,
            });
            let at = flow::Pos::of(&loc_of(v.rel, &p.pat));
            // A parameter named for a capacity, of an integer type, in a function that makes a
            // value (not a method on a borrowed one: `sem.acquire(permits)`) is a capacity API
            // of the workspace's own, as its literal arguments are (`index::params`): what
            // reaches it by flow is a capacity too (`Self::create_pool(url, pool_size / 4)`
            // into `fn create_pool(url: &str, max_conns: usize)`).
            let by_ref = f.sig.receiver().is_some_and(|r| r.reference.is_some());
            if !by_ref
                && is_int(&p.ty)
                && self.tables.capacity_names.matches_count_loose(&param)
                && self.tables.names_concurrency_unit(&param)
                && !crate::index::params::records(&name)
            {
                let shown = format!("{}({param})", key.trim_start_matches('.'));
                // A 1 given to one is a floor or a serial run (`nlaunched: 1`, `calls = 1`),
                // as a channel of one is a hand-off.
                self.mark_handoff(&shown);
                self.facts
                    .flow
                    .own_sinks
                    .push((shown.clone(), key.clone(), i));
                self.facts.flow.edges.push(flow::Edge {
                    from: local.clone(),
                    to: flow::Node::Sink(shown),
                    at,
                    from_call: None,
                    to_call: None,
                });
            }
            self.facts.flow.edges.push(flow::Edge {
                from: flow::Node::Param(key.clone(), i),
                to: local,
                at,
                from_call: None,
                to_call: None,
            });
        }
        self.arm_scopes(v, |w| syn::visit::visit_block(w, f.block));
        if !returns {
            return;
        }
        if let Some(syn::Stmt::Expr(tail, None)) = f.block.stmts.last() {
            let kind = CapacityKind::Fn;
            self.flows_into(v, tail, flow::Node::Ret(key), (&f.site, &name, kind));
        }
    }

    /// A call's arguments go to the function's parameters (a capacity API's, to the API).
    fn flow_call(
        &mut self,
        v: &View,
        call: &Expr,
        (key, text): (&str, &str),
        args: &[&Expr],
        api: Option<&ApiHit>,
    ) {
        if let Some(api) = api {
            let Some(arg) = args.get(api.arg) else { return };
            if api.quiet_at_one {
                self.mark_handoff(&api.name);
            }
            let site = crate::site::child(
                &v.function_site(),
                api.name.trim_start_matches('.').trim_end_matches("()"),
            );
            let to = flow::Node::Sink(api.name.clone());
            // A method matched by its name alone (`.buffer(..)`) may be another type's: what a
            // call returns is not followed into it, only literals and named places. A name of
            // two words or more (`.set_max_subcompactions(cfg.max_sub_compactions())`) is the
            // library's own, and the call's result is followed.
            self.calls_followed = !api.name.starts_with('.')
                || api
                    .name
                    .trim_start_matches('.')
                    .trim_end_matches("()")
                    .contains('_');
            self.flows_into(v, arg, to, (&site, &api.name, CapacityKind::ApiArg));
            self.calls_followed = true;
            return;
        }
        let site = crate::site::child(&v.function_site(), key.rsplit("::").next().unwrap_or(key));
        self.call_at = Some(flow::Pos::of(&crate::syntax::expr_loc(v.rel, call)));
        for (i, a) in args.iter().enumerate() {
            let item = format!("{text}(#{i})");
            let to = flow::Node::Param(key.to_string(), i);
            self.flows_into(v, a, to, (&site, &item, CapacityKind::Arg));
        }
        self.call_at = None;
    }

    fn flow_expr(&mut self, v: &View, e: &Expr) {
        match e {
            Expr::Struct(s) => {
                // `Err(ReadBodyError::BodyTooLarge { limit })`: an error carries a bound to say
                // what was exceeded, and no work is sized by what it holds.
                if s.path
                    .segments
                    .iter()
                    .any(|x| x.ident.to_string().ends_with("Error"))
                {
                    return;
                }
                let named = s.path.segments.last().map(|x| x.ident.to_string());
                let ty = match (named.as_deref(), v.scope.self_ty()) {
                    (Some("Self"), Some(t)) => t.to_string(),
                    (n, _) => n.unwrap_or_default().to_string(),
                };
                for f in &s.fields {
                    let syn::Member::Named(name) = &f.member else {
                        continue;
                    };
                    if crate::syntax::is_cfg_test(&f.attrs) {
                        continue;
                    }
                    let field = name.to_string();
                    let site = v.scope.field_site(&ty, &field);
                    let to = flow::Node::Field(Some(ty.clone()), field.clone());
                    self.flows_into(v, &f.expr, to, (&site, &field, CapacityKind::Field));
                }
            }
            Expr::If(i) => {
                self.zero_guard(v, i);
                self.framing(v, &i.cond, &i.then_branch);
                self.minimum(v, i);
            }
            Expr::While(w) => self.framing(v, &w.cond, &w.body),
            Expr::Assign(a) => {
                if self.is_floor(v, &a.right) {
                    return;
                }
                let (to, item) = match &*a.left {
                    Expr::Field(f) => match &f.member {
                        syn::Member::Named(n) => {
                            let ty = self.sources(v).type_of(&f.base);
                            (flow::Node::Field(ty, n.to_string()), n.to_string())
                        }
                        syn::Member::Unnamed(_) => return,
                    },
                    Expr::Path(p) => match (p.path.get_ident(), self.fn_ids.last()) {
                        (Some(id), Some(&f)) => {
                            let name = id.to_string();
                            let f = flow::scoped(&self.scopes, f, &name, id.span());
                            (flow::Node::Local(f, name.clone()), name)
                        }
                        _ => return,
                    },
                    _ => return,
                };
                let site = crate::site::child(&v.function_site(), &item);
                self.flows_into(v, &a.right, to, (&site, &item, CapacityKind::Field));
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return };
                if self.signalled(&c.func) {
                    return;
                }
                let api = self.api_of_call(&c.func, c.args.len());
                let Some(key) = flow::fn_key(&p.path, v.scope.self_ty()) else {
                    return;
                };
                let text = crate::syntax::path_idents(&p.path).join("::");
                let args: Vec<&Expr> = c.args.iter().collect();
                self.flow_call(v, e, (&key, &text), &args, api.as_ref());
            }
            Expr::MethodCall(m) => {
                let api = self.api_of_method(m);
                let name = m.method.to_string();
                // `JOBS_MAX_QUERIES.saturating_sub(queries.len())`: the headroom left under a
                // ceiling of work held at once.
                if matches!(
                    name.as_str(),
                    "saturating_sub" | "checked_sub" | "wrapping_sub"
                ) && m.args.len() == 1
                {
                    if let Some(held) = self.held(&m.args[0]) {
                        self.len_bound(v, &m.receiver, &held);
                    }
                }
                if api.is_none() && flow::is_common_method(&name) {
                    return;
                }
                let key = format!(".{name}");
                let args: Vec<&Expr> = m.args.iter().collect();
                self.flow_call(v, e, (&key, &key), &args, api.as_ref());
            }
            Expr::Binary(b) => self.len_guard(v, b),
            Expr::ForLoop(f) => self.spawn_loop(v, f),
            Expr::Return(r) => {
                if let (Some(value), Some(Some(key)), Some((name, site))) =
                    (&r.expr, self.fn_keys.last(), v.fns.last())
                {
                    let (key, name, site) = (key.clone(), name.clone(), site.clone());
                    let to = flow::Node::Ret(key);
                    self.flows_into(v, value, to, (&site, &name, CapacityKind::Fn));
                }
            }
            _ => {}
        }
    }

    /// Record `api` as one where a 1 is a lock, a hand-off or a serial run (`FileFlow::handoff`),
    /// once.
    fn mark_handoff(&mut self, api: &str) {
        if !self.facts.flow.handoff.iter().any(|h| h == api) {
            self.facts.flow.handoff.push(api.to_string());
        }
    }

    /// `for _ in 0..FANOUT { requests.push(tokio::spawn(..)) }`: a loop that starts a task or a
    /// thread each time round runs its bound's number at once, a capacity as a pool's size is.
    /// The bound is a constant named by itself or a module's (not a type's associated one:
    /// `0..TaskType::COUNT` counts the variants of a type), or a field; a binding is computed
    /// from the data as often as it is set (chunks of an input), and a literal counts kinds as
    /// often as workers (`for kind in 0..3`, a thread per kind). A loop that breaks out of its
    /// body or returns from it is a retry (`for _ in 0..5 { .. spawn .. ; if ok { break } }`).
    /// A loop over an input's chunks that spawns each time round gives each task a chunk to
    /// hold (`for batch in entities.chunks(16) { tasks.spawn(..) }`): the chunk's size, literal
    /// or not, is that batch's (`spawn_chunks`).
    fn spawn_loop(&mut self, v: &View, f: &syn::ExprForLoop) {
        if let Expr::MethodCall(m) = crate::index::value::carried(&f.expr) {
            self.spawn_chunks(v, f, m);
            return;
        }
        let Expr::Range(r) = crate::index::value::carried(&f.expr) else {
            return;
        };
        let from_start = r
            .start
            .as_deref()
            .is_none_or(|s| matches!(Val::of(s), Val::Lit(0 | 1)));
        let Some(end) = r.end.as_deref() else { return };
        let bound = match crate::index::value::carried(end) {
            Expr::Field(_) => true,
            Expr::Path(p) if p.qself.is_none() => {
                let segs = crate::syntax::path_idents(&p.path);
                let typed = segs.len() >= 2
                    && segs[segs.len() - 2].starts_with(|c: char| c.is_ascii_uppercase());
                !typed && segs.last().is_some_and(|l| is_const_name(l))
            }
            _ => false,
        };
        if !from_start || !bound || !spawns_each_time(&f.body) {
            return;
        }
        self.spawned(v, end, "for .. { spawn }", "spawn_loop");
    }

    /// `value` sizes what a loop that spawns each time round runs at once: a sink named `api`,
    /// reported at a site of the function's named `name`.
    fn spawned(&mut self, v: &View, value: &Expr, api: &str, name: &str) {
        self.mark_handoff(api);
        let site = crate::site::child(&v.function_site(), name);
        self.flows_into(
            v,
            value,
            flow::Node::Sink(api.to_string()),
            (&site, api, CapacityKind::ApiArg),
        );
    }

    /// `for batch in items.chunks(N) { spawn }`: N is the batch each spawned task holds.
    fn spawn_chunks(&mut self, v: &View, f: &syn::ExprForLoop, m: &syn::ExprMethodCall) {
        let chunked = matches!(m.method.to_string().as_str(), "chunks" | "chunks_exact");
        if !chunked || m.args.len() != 1 || !spawns_each_time(&f.body) {
            return;
        }
        self.spawned(
            v,
            &m.args[0],
            "for .. in .chunks(..) { spawn }",
            "spawn_chunks",
        );
    }

    /// `while pending.len() >= stride { process(&pending[..stride]) }`, `if buf.len() >= n {
    /// buf.drain(..n) }`: a collection filled until it holds a chunk's worth, then that many
    /// taken off it (a slice, `drain`, `split_to`, `split_off`, `advance`), is framed in chunks
    /// of the bound's size; the bound is no ceiling of what it holds (moq's audio resampler
    /// and encoder, the sealed split of 2026-12-06l). Marks the comparison for `len_guard`.
    fn framing(&mut self, v: &View, cond: &Expr, body: &syn::Block) {
        use quote::ToTokens;
        fn text(e: &dyn ToTokens) -> String {
            e.to_token_stream().to_string()
        }
        let Some((b, m, bound)) = length_compared(cond, true) else {
            return;
        };
        let (coll, bound) = (text(&*m.receiver), text(bound));
        // A use of the collection that takes the bound's worth: `coll[..bound]`,
        // `coll.drain(..bound)`, `coll.split_to(bound)`.
        struct Takes<'t> {
            coll: &'t str,
            bound: &'t str,
            found: bool,
        }
        impl<'ast> syn::visit::Visit<'ast> for Takes<'_> {
            fn visit_expr(&mut self, e: &'ast Expr) {
                let taken = |arg: &Expr| {
                    let arg = match arg {
                        Expr::Range(r) if r.start.is_none() => r.end.as_deref(),
                        x => Some(x),
                    };
                    arg.is_some_and(|a| text(a) == self.bound)
                };
                match e {
                    Expr::Index(i) if text(&*i.expr) == self.coll && taken(&i.index) => {
                        self.found = true
                    }
                    Expr::MethodCall(m)
                        if matches!(
                            m.method.to_string().as_str(),
                            "drain" | "split_to" | "split_off" | "advance"
                        ) && m.args.len() == 1
                            && text(&*m.receiver) == self.coll
                            && taken(&m.args[0]) =>
                    {
                        self.found = true
                    }
                    _ => {}
                }
                syn::visit::visit_expr(self, e);
            }
        }
        let mut takes = Takes {
            coll: &coll,
            bound: &bound,
            found: false,
        };
        syn::visit::Visit::visit_block(&mut takes, body);
        if takes.found {
            self.no_ceiling.push(flow::Pos::of(&loc_of(v.rel, b)));
        }
    }

    /// `if queues.len() < 3 { bail!("must have at least 3") }`, `if n > peers.len() { return
    /// Err(..) }`: a length the code refuses as too small, with an error, is a minimum it
    /// requires, no ceiling of what the collection holds (crosvm's vsock queues, the sealed split
    /// of 2026-12-06o). Below a ceiling the code does its work (`while running.len() < max {
    /// spawn }`), and a plain `return` there may be the work's end (`if cache.len() < cap {
    /// return; } evict()`). Marks the comparison for `len_guard`.
    fn minimum(&mut self, v: &View, i: &syn::ExprIf) {
        if let Some((b, _, _)) = length_compared(&i.cond, false) {
            if refuses_with_error(&i.then_branch) {
                self.no_ceiling.push(flow::Pos::of(&loc_of(v.rel, b)));
            }
        }
    }

    /// `if self.queue.len() >= self.max_length { drop(item) }`, `while running.len() <
    /// concurrency`: a value compared with the length of a collection of work held at once
    /// (`Tables::is_work_collection`) is that collection's ceiling, and so is the value the
    /// length is taken from (`MAX_QUERIES - queries.len()`, the headroom under it).
    fn len_guard(&mut self, v: &View, b: &syn::ExprBinary) {
        use syn::BinOp::{Eq, Ge, Gt, Le, Lt, Sub};
        if self.no_ceiling.contains(&flow::Pos::of(&loc_of(v.rel, b))) {
            return;
        }
        let sides: &[(&Expr, &Expr)] = match b.op {
            Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) => &[(&b.left, &b.right), (&b.right, &b.left)],
            Sub(_) => &[(&b.right, &b.left)],
            _ => return,
        };
        for &(len, bound) in sides {
            if let Some(held) = self.held(len) {
                self.len_bound(v, bound, &held);
                return;
            }
        }
    }

    /// `if self.tuples.len() == self.capacity { Err(()) } else { insert }` (spin's resource
    /// table): a collection the struct holds, refusing more once its length reaches a bound, is
    /// bounded by it whatever it is named (`len_guard` knows work collections by name). Only
    /// the struct's own state (`self.x`: a call's input that is too long is a validation
    /// limit, no capacity) and only where the branch refuses (`Err(..)`, `return Err(..)`): a
    /// cache that is full evicts and goes on.
    ///
    /// The comparison may be one of several (`inbound && self.peers.len() >= max`), and the
    /// length may count the one to come or leave some out (`self.peers.len() + 1 > max`,
    /// `self.peers.len() - outbound >= max_inbound`).
    fn refusing_guard(&mut self, v: &View, i: &syn::ExprIf) {
        // `len + 1`, `len - outbound`: the length, counted on from or short of; whether it
        // counts the one to come.
        fn length(mut e: &Expr) -> Option<(&Expr, &syn::ExprMethodCall, bool)> {
            let mut next = false;
            while let Expr::Binary(b) = crate::index::value::carried(e) {
                match b.op {
                    syn::BinOp::Add(_) if Val::of(&b.right).is_lit() => {
                        next = true;
                        e = &b.left
                    }
                    syn::BinOp::Sub(_) => e = &b.left,
                    _ => break,
                }
            }
            match crate::index::value::carried(e) {
                Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some((e, m, next)),
                _ => None,
            }
        }
        let mut comparisons = Vec::new();
        either_side(&i.cond, &mut comparisons);
        // A length past the bound (`self.name.len() > MAX_NAME`) is what a validation refuses;
        // one that reaches it, or would with the one to come (`len + 1 > max`), a full container.
        let comparison = comparisons.into_iter().find_map(|b| {
            use syn::BinOp::{Eq, Ge, Gt, Le, Lt};
            let (len, bound, past) = match b.op {
                Ge(_) | Eq(_) => (&*b.left, &*b.right, false),
                Gt(_) => (&*b.left, &*b.right, true),
                Le(_) => (&*b.right, &*b.left, false),
                Lt(_) => (&*b.right, &*b.left, true),
                _ => return None,
            };
            length(len)
                .filter(|&(_, _, next)| next || !past)
                .map(|(len, m, _)| (len, m, bound))
        });
        let Some((len, m, bound)) = comparison else {
            return;
        };
        if self.held(len).is_some() {
            return;
        }
        let recv = accessed(&m.receiver, &["lock", "read", "write", "borrow", "unwrap"]);
        let own_state = matches!(recv, Expr::Field(f) if matches!(&*f.base,
            Expr::Path(p) if p.path.is_ident("self")));
        // `return Err(..)` or `bail!(..)` first (`refuses_with_error`), or the branch's value is
        // the error (`if full { Err(()) } else { .. }`).
        let refuses = refuses_with_error(&i.then_branch)
            || matches!(i.then_branch.stmts.first(), Some(syn::Stmt::Expr(e, None)) if is_err_call(e));
        if !own_state || !refuses {
            return;
        }
        // A cache that refuses once full still holds entries kept for reuse, not work
        // (`impl PendingMetadataCache { .. if self.entries.len() >= self.max_entries { .. } }`).
        let cache = |n: &str| {
            crate::index::names::words(n)
                .iter()
                .any(|w| matches!(w.as_str(), "cache" | "cached" | "caches"))
        };
        // A constant typed in the code that refuses (`if self.map.len() >= MAX_PER_SLOT`) is
        // mostly a limit on what is stored or a format's (attestations per slot, versions per
        // object, relayers per message): unless its name says work, no evidence of a capacity.
        // A bound set by configuration or a constructor (`self.capacity`, `opts.max_clients`)
        // is one an operator tunes.
        if matches!(crate::index::value::carried(bound), Expr::Path(p)
            if crate::syntax::last_segment(&p.path).is_some_and(|n| is_const_name(&n)))
        {
            return;
        }
        let Some(name) = place_name(recv) else { return };
        if cache(&name)
            || v.scope.self_ty().is_some_and(cache)
            || place_name(crate::index::value::carried(bound)).is_some_and(|b| cache(&b))
        {
            return;
        }
        self.len_bound(v, bound, &format!("{name}.len()"));
    }

    /// How much work is held, where `e` reads it: the length of a collection of work
    /// (`work_len`: `queue.len()`), or a gauge of work the file counts up and down
    /// (`self.active_workers`, `self.inflight.load(Ordering::Acquire)`, `*running.lock()`).
    /// The name of what is held, as the sink's name reads it: `queue.len()`, `active_workers`.
    fn held(&self, e: &Expr) -> Option<String> {
        if let Some(coll) = self.work_len(e) {
            return Some(format!("{coll}.len()"));
        }
        if self.gauges.is_empty() {
            return None;
        }
        let e = crate::index::value::carried(e);
        // `self.read_inflight + self.write_inflight >= self.io_depth`: work held in two parts.
        // A sum with what is not work (`on_disk_splits.len() + downloading_splits.len()`, a
        // cache's stored entries and its downloads) bounds the sum, a cache, not the work; a
        // literal part is an offset (`queued + 1`).
        if let Expr::Binary(b) = e {
            if matches!(b.op, syn::BinOp::Add(_)) {
                let lit = |x: &Expr| Val::of(x).is_lit();
                return match (self.held(&b.left), self.held(&b.right)) {
                    (Some(a), Some(_)) => Some(a),
                    (Some(a), None) if lit(&b.right) => Some(a),
                    (None, Some(a)) if lit(&b.left) => Some(a),
                    _ => None,
                };
            }
        }
        let e = accessed(e, &["load", "get", "lock", "read", "unwrap", "clone"]);
        let name = place_name(e)?;
        if let Some((_, _, gauge)) = self
            .gauge_reads
            .iter()
            .rev()
            .find(|(f, b, _)| Some(f) == self.fn_ids.last() && *b == name)
        {
            return Some(gauge.clone());
        }
        self.gauge(&name).then_some(name)
    }

    /// Whether a name is one of the file's gauges of work (`held`): named for work held at once,
    /// or counting one unit of it (`connection_count`, `active_task_count`: a counter's noun is
    /// singular).
    fn gauge(&self, name: &str) -> bool {
        self.gauges
            .binary_search_by(|g| g.as_str().cmp(name))
            .is_ok()
            && (self.tables.is_work_collection(name) || self.tables.counts_work_units(name))
    }

    /// `let mut current = connection_count.load(Ordering::SeqCst);`: a binding that reads a gauge
    /// holds its value where the function compares it (turborepo's proxy checks `current >=
    /// MAX_WEBSOCKET_CONNECTIONS` and then raises the gauge by `compare_exchange`; the sealed split
    /// of 2026-12-06p).
    fn gauge_read(&mut self, name: &str, init: &Expr) {
        if self.gauges.is_empty() {
            return;
        }
        // A level of memory counted up and down (greptimedb's `let mutable_memtable_memory_usage =
        // self.memory_active.load(..)`) counts bytes, not work.
        let memory = |n: &str| {
            self.tables.names_no_count(n)
                || crate::index::names::words(n)
                    .iter()
                    .any(|w| matches!(w.as_str(), "memory" | "mem" | "usage"))
        };
        let read = accessed(
            crate::index::value::carried(init),
            &["load", "get", "lock", "read"],
        );
        let gauge = place_name(read).filter(|g| !memory(name) && self.gauge(g) && !memory(g));
        let Some(&f) = self.fn_ids.last() else {
            return;
        };
        // A binding of the same name that reads something else shadows the gauge's.
        self.gauge_reads.retain(|(g, b, _)| *g != f || b != name);
        if let Some(gauge) = gauge {
            self.gauge_reads.push((f, name.to_string(), gauge));
        }
    }

    /// The collection a length is taken of, when it holds work (`self.queue.len()`,
    /// `in_flight.lock().len() as u64`: `queue`, `in_flight`).
    /// A count of some of a collection's items counts too (`batches.iter().filter(..).count()`,
    /// `queries.size()`).
    fn work_len(&self, e: &Expr) -> Option<String> {
        let Expr::MethodCall(m) = crate::index::value::carried(e) else {
            return None;
        };
        if !matches!(m.method.to_string().as_str(), "len" | "count" | "size") {
            return None;
        }
        if !m.args.is_empty() {
            return None;
        }
        // `queue.lock().len()`, `queue.read().await.len()`, `batches.iter().filter(..).count()`.
        let recv = accessed(
            &m.receiver,
            &[
                "lock",
                "read",
                "write",
                "borrow",
                "borrow_mut",
                "unwrap",
                "as_ref",
                "get_mut",
                "iter",
                "values",
                "keys",
                "filter",
            ],
        );
        // `fn combine(batches: Vec<Batch>) { if batches.len() >= 2 { .. } }`,
        // `if arg.streams.len() > 2 { return Err(..) }`: the shape of the call's input.
        if self
            .read_params
            .last()
            .is_some_and(|ps| root_ident(recv).is_some_and(|r| ps.contains(&r)))
        {
            return None;
        }
        let name = place_name(recv)?;
        self.tables.is_work_collection(&name).then_some(name)
    }

    /// The value `bound` is the ceiling of the work collection `held`: its sources flow into
    /// the collection's length, as an API's argument flows into the API. A bound that is itself
    /// a length (`a.len() < b.len()`) or named as `exclude_words` say is none; a 1 there is a
    /// degenerate case (`active.len() == 1`), and a literal 2 a pair, no capacity.
    fn len_bound(&mut self, v: &View, bound: &Expr, api: &str) {
        let inner = crate::index::value::carried(bound);
        if matches!(inner, Expr::MethodCall(m) if m.method == "len") {
            return;
        }
        // A 2 written as it is asks for a pair (`while queue.len() >= 2 { merge two }`, `if
        // streams.len() < 2 { return }`, "at least two elements to compute a rate"), as a 1 asks
        // whether there is one: no ceiling of work.
        if matches!(Val::of(inner), Val::Lit(2)) {
            return;
        }
        let named = place_name(inner);
        // A page's size (`tasks.len() < max_results`) bounds one answer, not work held; a
        // minimum (`active_validators.len() < min_genesis_active_validator_count`) is a
        // threshold to reach, no ceiling.
        let page = |n: &str| {
            crate::index::names::words(n)
                .iter()
                .any(|w| matches!(w.as_str(), "results" | "page" | "min" | "minimum"))
        };
        if named.is_some_and(|n| self.tables.capacity_names.excludes(&n) || page(&n)) {
            return;
        }
        let api = api.to_string();
        self.mark_handoff(&api);
        let held = api.strip_suffix(".len()").unwrap_or(&api);
        let site = crate::site::child(&v.function_site(), held);
        let to = flow::Node::Sink(api.clone());
        self.flows_into(v, bound, to, (&site, &api, CapacityKind::ApiArg));
    }

    /// `queue: RefCell::new(VecDeque::with_capacity(bound))` where the file compares
    /// `queue.len()` with `queue.capacity()`: the capacity it is made with is the queue's
    /// ceiling, as a value compared with its length is (`len_bound`).
    fn made_with_capacity(&mut self, v: &View, place: &str, value: &Expr) {
        if v.in_test()
            || self
                .self_bounded
                .binary_search_by(|n| n.as_str().cmp(place))
                .is_err()
            || !self.tables.is_work_collection(place)
        {
            return;
        }
        let mut e = crate::index::value::carried(value);
        // Shared or guarded: `RefCell::new(..)`, `Mutex::new(..)`, `Arc::new(..)`.
        while let Some(inner) = crate::index::value::held_by_cell(e) {
            e = crate::index::value::carried(inner);
        }
        if let Expr::Call(c) = e {
            if let (Expr::Path(p), 1) = (&*c.func, c.args.len()) {
                if path_ends_with(&p.path, "with_capacity") {
                    self.len_bound(v, &c.args[0], &format!("{place}.len()"));
                }
            }
        }
    }

    /// `let (a, b) = match roles { .. => (x, y), _ => (2, 2) };`: each element of every tuple
    /// the value ends in goes to the local at its position.
    fn flow_tuple(&mut self, v: &View, pat: &syn::PatTuple, value: &Expr) {
        let names: Vec<Option<String>> = pat
            .elems
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(id) => Some(id.ident.to_string()),
                _ => None,
            })
            .collect();
        for t in tuple_tails(value, 0) {
            if t.elems.len() != names.len() {
                continue;
            }
            for (name, elem) in names.iter().zip(&t.elems) {
                if let Some(name) = name {
                    self.flow_local(v, name, elem);
                }
            }
        }
    }

    /// `let Self { queue, max_len: limit, .. } = self;`: each field goes to its binding.
    fn flow_destructured(&mut self, v: &View, pat: &syn::PatStruct) {
        let Some(&id) = self.fn_ids.last() else {
            return;
        };
        let named = pat.path.segments.last().map(|x| x.ident.to_string());
        let ty = match (named.as_deref(), v.scope.self_ty()) {
            (Some("Self"), Some(t)) => t.to_string(),
            (Some("Self"), None) | (None, _) => return,
            (Some(n), _) => n.to_string(),
        };
        for f in &pat.fields {
            let (syn::Member::Named(field), syn::Pat::Ident(binding)) = (&f.member, &*f.pat) else {
                continue;
            };
            let to = flow::Node::Local(id, binding.ident.to_string());
            if self.tables.holds_no_count(&to) {
                continue;
            }
            self.facts.flow.edges.push(flow::Edge {
                from: flow::Node::Field(Some(ty.clone()), field.to_string()),
                to,
                at: flow::Pos::of(&loc_of(v.rel, &f.pat)),
                from_call: None,
                to_call: None,
            });
        }
    }

    /// The arms and branches of a body whose patterns take a variant apart (`flow_pattern`),
    /// found before any of the body's expressions is followed: a function's tail (`match self {
    /// Kind::Max(n) => *n }`) is followed as the function is entered.
    fn arm_scopes<'e>(&mut self, v: &View, walk: impl FnOnce(&mut Arms<'e>)) {
        let mut arms = Arms(Vec::new());
        walk(&mut arms);
        for (pat, span, value) in arms.0 {
            self.flow_pattern(v, pat, span);
            self.flow_unwrapped(v, pat, value, span);
        }
    }

    /// `if let Some(v) = self.max_background_jobs { opts.set_max_background_jobs(v) }`: the
    /// binding of an `Option`'s or a `Result`'s one value holds what the matched value held
    /// (horaedb's builder stores a config's field as `Some(v)` and hands it on so), within its
    /// branch or arm (`span`, `flow::Scope`).
    fn flow_unwrapped(
        &mut self,
        v: &View,
        pat: &syn::Pat,
        value: &Expr,
        span: (LineColumn, LineColumn),
    ) {
        let mut pat = pat;
        while let syn::Pat::Reference(syn::PatReference { pat: p, .. })
        | syn::Pat::Paren(syn::PatParen { pat: p, .. }) = pat
        {
            pat = p;
        }
        let syn::Pat::TupleStruct(t) = pat else {
            return;
        };
        let (true, [syn::Pat::Ident(b)]) = (
            t.path.is_ident("Some") || t.path.is_ident("Ok"),
            t.elems.iter().collect::<Vec<_>>().as_slice(),
        ) else {
            return;
        };
        let Some(&fn_id) = self.fn_ids.last() else {
            return;
        };
        if b.subpat.is_some() {
            return;
        }
        let id = self.next_fn_id();
        let name = b.ident.to_string();
        let to = flow::Node::Local(id, name.clone());
        if self.tables.holds_no_count(&to) {
            return;
        }
        self.scopes.push(flow::Scope {
            fn_id,
            name: name.clone(),
            from: span.0,
            to: span.1,
            id,
        });
        let site = crate::site::child(&v.function_site(), &name);
        self.flows_into(v, value, to, (&site, &name, CapacityKind::Let));
    }

    /// A pattern that takes a variant apart (`MemoryBufferSize::MaxEvents(n) =>`,
    /// `if let Limit::Events { max_events, .. } = limit`): what the variant was built with
    /// (`MemoryBufferSize::MaxEvents(max_events)`, a call keyed as an associated function's;
    /// `Limit::Events { max_events: 500 }`, a struct literal) goes to the binding. Only a
    /// variant a path names by its type (`Self::`, `Kind::`): an `Option`'s or `Result`'s
    /// binding (`Some(v)`) may hold anything, and is looked into only for such a variant. Each
    /// binding is its arm's or branch's alone (`span`, `flow::Scope`): two arms that bind one
    /// name to different variants' values never meet.
    fn flow_pattern(&mut self, v: &View, pat: &syn::Pat, span: (LineColumn, LineColumn)) {
        let mut bound = Vec::new();
        variant_bindings(pat, v.scope.self_ty(), &mut bound);
        let Some(&fn_id) = self.fn_ids.last() else {
            return;
        };
        if bound.is_empty() {
            return;
        }
        let id = self.next_fn_id();
        for (from, binding) in bound {
            let name = binding.ident.to_string();
            let to = flow::Node::Local(id, name.clone());
            if self.tables.holds_no_count(&to) {
                continue;
            }
            self.scopes.push(flow::Scope {
                fn_id,
                name,
                from: span.0,
                to: span.1,
                id,
            });
            self.facts.flow.edges.push(flow::Edge {
                from,
                to,
                at: flow::Pos::of(&loc_of(v.rel, binding)),
                from_call: None,
                to_call: None,
            });
        }
    }

    /// `let x = value;`: the value's sources go to the local.
    fn flow_local(&mut self, v: &View, name: &str, value: &Expr) {
        // A static's initialiser has locals too (`enter_const`), named in its module.
        let Some(&id) = self.fn_ids.last() else {
            return;
        };
        let to = flow::Node::Local(id, name.to_string());
        let site = crate::site::child(&v.function_site(), name);
        self.flows_into(v, value, to, (&site, name, CapacityKind::Let));
    }

    /// A constructor a derive writes: derive_more's `Constructor` and derive-new's `new` give
    /// `Type::new` one parameter per named field, in order (derive-new leaves out a field marked
    /// `#[new(..)]`), so `MpscSpec::new(128)` sets `buffer` (arti's queue specs, the sealed split
    /// of 2026-12-06k).
    fn flow_derived_new(&mut self, v: &View, s: &syn::ItemStruct) {
        let syn::Fields::Named(fields) = &s.fields else {
            return;
        };
        let derived = s
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("derive"))
            .any(|a| {
                a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|paths| {
                    paths.iter().any(|p| {
                        p.segments
                            .last()
                            .is_some_and(|x| x.ident == "Constructor" || x.ident == "new")
                    })
                })
            });
        if !derived {
            return;
        }
        let ty = s.ident.to_string();
        let key = format!("{ty}::new");
        let args = fields
            .named
            .iter()
            .filter(|f| !f.attrs.iter().any(|a| a.path().is_ident("new")));
        for (i, f) in args.enumerate() {
            let Some(name) = &f.ident else { continue };
            self.facts.flow.edges.push(flow::Edge {
                from: flow::Node::Param(key.clone(), i),
                to: flow::Node::Field(Some(ty.clone()), name.to_string()),
                at: flow::Pos::of(&loc_of(v.rel, name)),
                from_call: None,
                to_call: None,
            });
        }
    }

    /// A struct's fields set by attributes: clap's and structopt's defaults, serde's default
    /// functions (`#[serde(default = "default_queue")]`).
    fn flow_struct(&mut self, v: &View, ty: &str, fields: &syn::Fields) {
        for f in fields {
            let Some(name) = f.ident.as_ref().map(|i| i.to_string()) else {
                continue;
            };
            let to = flow::Node::Field(Some(ty.to_string()), name.clone());
            for a in &f.attrs {
                if cli_default_attr(a) {
                    for (value, loc) in cli_defaults(v.rel, a) {
                        self.facts.flow.seeds.push(flow::Seed {
                            value,
                            loc,
                            to: to.clone(),
                            site: v.scope.field_site(ty, &name),
                            item: name.clone(),
                            kind: CapacityKind::Field,
                            call: None,
                            factor: None,
                        });
                    }
                }
                // derive_builder's `default = "DB_POOL_CONN_MAX"`, serde's `default =
                // "config::default_queue"`: the constant, or what the function returns.
                let typed = if cli_default_attr(a) {
                    cli_default_consts(v.rel, a)
                } else {
                    Vec::new()
                };
                let named = string_default_const(v.rel, a)
                    .into_iter()
                    .chain(typed)
                    .map(|(name, at)| (flow::Node::Const(name), at))
                    .chain(serde_default_fn(v.rel, a).and_then(|(path, at)| {
                        // `ClassifierParams::default_back_pressure`: an associated function
                        // is keyed by its type, as its definition is (`Self::` is the struct).
                        let key = syn::parse_str::<syn::Path>(&path)
                            .ok()
                            .and_then(|p| flow::fn_key(&p, Some(ty)))?;
                        Some((flow::Node::Ret(key), at))
                    }));
                // `#[serde(default = "twenty")] conn_pool_size: u16`: what the function returns
                // is the default of a field named for a capacity, as a literal written into it
                // in a struct literal is (`cli_args` reads clap's defaults so).
                let named_field = self.names(&name, is_int(&f.ty));
                for (from, at) in named {
                    // A function named for what is no capacity (`default_cache_max_size`: a
                    // cache's entries) gives none.
                    let gives = match &from {
                        flow::Node::Ret(key) => {
                            let func = key.rsplit([':', '.']).next().unwrap_or(key);
                            !self.tables.capacity_names.excludes(func)
                        }
                        _ => false,
                    };
                    if gives && named_field {
                        self.facts.flow.edges.push(flow::Edge {
                            from: from.clone(),
                            to: flow::Node::Sink(name.clone()),
                            at: flow::Pos::of(&at),
                            from_call: None,
                            to_call: None,
                        });
                    }
                    self.facts.flow.edges.push(flow::Edge {
                        from,
                        to: to.clone(),
                        at: flow::Pos::of(&at),
                        from_call: None,
                        to_call: None,
                    });
                }
            }
        }
    }
}

/// The struct a parameter's type names, through references and smart pointers (`&Config`,
/// `Arc<Config>`, `&mut Box<Config>` -> `Config`); none for generics and integers.
fn struct_type(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => struct_type(&r.elem),
        syn::Type::Paren(p) => struct_type(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            match (&last.arguments, name.as_str()) {
                (syn::PathArguments::AngleBracketed(a), "Arc" | "Rc" | "Box") => {
                    match a.args.first()? {
                        syn::GenericArgument::Type(t) => struct_type(t),
                        _ => None,
                    }
                }
                (_, n) if n.starts_with(char::is_uppercase) && n != "Self" && n.len() > 1 => {
                    Some(name)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `#[serde(default = "path")]`: the function that gives a field its default, and where.
fn serde_default_fn(rel: &str, a: &syn::Attribute) -> Option<(String, Loc)> {
    if !a.path().is_ident("serde") {
        return None;
    }
    let mut found = None;
    let _ = a.parse_nested_meta(|meta| {
        if meta.path.is_ident("default") && meta.input.peek(syn::Token![=]) {
            let s: syn::LitStr = meta.value()?.parse()?;
            found = Some((s.value(), loc_of(rel, &s)));
        } else if meta.input.peek(syn::Token![=]) {
            let _: Expr = meta.value()?.parse()?;
        } else if meta.input.peek(syn::token::Paren) {
            meta.parse_nested_meta(|_| Ok(()))?;
        }
        Ok(())
    });
    found
}

impl Collector for Extractor<'_> {
    fn file(&mut self, _: &View, file: &syn::File) {
        self.imports = crate::syntax::use_paths(&file.items);
    }

    fn item(&mut self, v: &View, item: &syn::Item) {
        if !v.in_format() {
            self.attr_args(v, item);
        }
        if v.in_format() {
            return;
        }
        // A struct's fields, and a struct variant's: a subcommand's flags are often the fields
        // of an enum's variant (`enum Command { Serve { #[arg(long, default_value_t = 8)]
        // max_num_seqs: usize } }`), named by the variant as its literal and pattern are.
        let owners: Vec<(String, &syn::Fields)> = match item {
            syn::Item::Struct(s) => vec![(s.ident.to_string(), &s.fields)],
            syn::Item::Enum(e) => e
                .variants
                .iter()
                .filter(|x| matches!(x.fields, syn::Fields::Named(_)))
                .map(|x| (x.ident.to_string(), &x.fields))
                .collect(),
            _ => Vec::new(),
        };
        for (ty, fields) in owners {
            self.cli_args(v, &ty, fields);
            if !v.in_test() {
                self.flow_struct(v, &ty, fields);
            }
        }
        if let (syn::Item::Struct(s), false) = (item, v.in_test()) {
            self.flow_derived_new(v, s);
        }
    }

    fn enter_fn(&mut self, v: &View, f: &FnItem) {
        if v.in_format() {
            return;
        }
        self.ceiling_fn(v, f.sig);
        if v.scope.self_ty().is_some() && v.fns.len() == 1 {
            // A method's attributes (a free function's are read with its item).
            self.owner_attrs(v, vec![(f.sig.ident.to_string(), f.attrs)]);
        }
        self.outer_locals.push(std::mem::take(&mut self.locals));
        self.fn_body_literal(v, f.sig, f.block);
        self.flow_fn(v, f);
    }

    fn leave_fn(&mut self, v: &View, _: &FnItem) {
        if v.in_format() {
            return;
        }
        self.leave_body();
    }

    fn enter_const(&mut self, v: &View, c: &ConstItem) {
        // An initialiser is a scope of its own: the locals of a lazily built static
        // (`static TASKS: Lazy<Semaphore> = Lazy::new(|| { let permits = ..; Semaphore::new(permits) })`)
        // are followed as a function's are.
        // A constant a function's body declares is that function's: a local of it, not the
        // workspace's constant of that name (seventeen `clean_*` functions each with a
        // `const BATCH_SIZE`).
        // Those at the top of the body were learnt when the function was entered (`flow_fn`);
        // one in an inner block is learnt here.
        let enclosing = v.function().and(self.fn_ids.last().copied());
        if let Some(own) = enclosing.map(|f| (f, c.ident.to_string()))
            && !self.local_consts.contains(&own)
        {
            self.local_consts.push(own);
        }
        self.outer_locals.push(std::mem::take(&mut self.locals));
        self.fn_keys.push(None);
        let id = self.next_fn_id();
        self.fn_ids.push(id);
        self.param_types.push(Vec::new());
        self.read_params.push(Vec::new());
        if !v.in_format() {
            self.const_item(v, c);
            if !v.in_test() {
                let name = c.ident.to_string();
                let site = v.scope.site(&name);
                let kind = if c.is_static {
                    CapacityKind::Static
                } else {
                    CapacityKind::Const
                };
                let to = match enclosing {
                    Some(f) => flow::Node::Local(f, name.clone()),
                    None => flow::Node::Const(name.clone()),
                };
                self.arm_scopes(v, |w| syn::visit::visit_expr(w, c.expr));
                self.flows_into(v, c.expr, to, (&site, &name, kind));
                self.scaled_const(v, c, (&site, &name, kind));
            }
        }
    }

    fn leave_const(&mut self, _: &View, _: &ConstItem) {
        self.leave_body();
    }

    fn local(&mut self, v: &View, l: &syn::Local) {
        if v.in_format() {
            return;
        }
        self.stop_signal(v, l);
        self.dropped_receiver(v, l);
        if let (syn::Pat::Tuple(t), Some(init), false) = (&l.pat, &l.init, v.in_test()) {
            self.flow_tuple(v, t, &init.expr);
        }
        if let (syn::Pat::Struct(s), false) = (&l.pat, v.in_test()) {
            self.flow_destructured(v, s);
        }
        let (Some(ident), Some(init)) = (let_ident(&l.pat), &l.init) else {
            return;
        };
        let name = ident.to_string();
        if !v.in_test() && self.tables.launch_names.contains(&name) {
            // `let block_dim = (threads_per_block, 1, 1);`
            self.launch_sizes(v, &init.expr);
        }
        if !v.in_test() && self.names_launch(v) {
            self.let_constants(v, &name, &init.expr);
        }
        self.made_with_capacity(v, &name, &init.expr);
        self.gauge_read(&name, &init.expr);
        let typed_number = match &l.pat {
            syn::Pat::Type(t) => flow::may_hold_int(&t.ty),
            _ => true,
        };
        if !v.in_test() && typed_number {
            self.flow_local(v, &name, &init.expr);
        }
        if !Val::of(&init.expr).is_lit() && self.tables.capacity_names.matches_binding(&name, false)
        {
            // `let max_batch = match kind { A => 10_000, _ => 4096 };`
            let site = crate::site::child(&v.function_site(), &name);
            let public = Visibility::Public;
            self.leaf_lits(v, &init.expr, &site, &name, CapacityKind::Let, &public);
        }
        if let Val::Lit(value) = Val::of(&init.expr) {
            let loc = lit_loc(v.rel, &init.expr);
            let mut named_lit = None;
            // `available_parallelism().map_or(1, ..)`: one CPU when the platform does not say.
            let cpu_floor = value <= 1 && crate::index::value::asks_cpus(&init.expr);
            if self.tables.capacity_names.matches_binding(&name, false)
                && !cpu_floor
                && !self.default_of_no_count(&init.expr)
            {
                named_lit = Some(self.facts.named_lits.len());
                self.named_let(v, &name, value, loc.clone());
            }
            // The CPU count's floor sets no capacity, whatever API the binding reaches (the
            // flow graph's seeds leave it out too: `flows_into`).
            if cpu_floor {
                return;
            }
            self.locals.push(LocalLit {
                name,
                value,
                loc,
                named_lit,
                origin: None,
            });
        } else if !v.in_test() && typed_number {
            self.local_chain(v, name, &init.expr);
        }
    }

    fn expr(&mut self, v: &View, e: &Expr) {
        if v.in_format() {
            return;
        }
        if !v.in_test() {
            self.flow_expr(v, e);
            self.launch_geometry(v, e);
        }
        match e {
            Expr::Struct(s) => self.struct_lit(v, s),
            Expr::Closure(c) if !v.in_test() => self.cpu_closure(v, e, c),
            Expr::Call(c) => {
                self.bounds(v, e);
                if let (Expr::Path(p), 1) = (&*c.func, c.args.len()) {
                    if path_ends_with(&p.path, "with_capacity") {
                        self.hint(v, &c.args[0]);
                    }
                }
                if let Some(api) = self.api_of_call(&c.func, c.args.len()) {
                    self.api_arg(v, &api, &c.args[api.arg]);
                }
                if !v.in_test() {
                    self.env_helper(v, c);
                    self.newtype(v, c);
                    // `env::set_var("TOKIO_WORKER_THREADS", "4")`
                    if let (Expr::Path(p), 2) = (&*c.func, c.args.len()) {
                        if path_ends_with(&p.path, "set_var") {
                            self.keyed_setting(v, &c.args[0], &c.args[1], false);
                        }
                    }
                    // A setting declared by its key and its default, with more after them:
                    // materialize's dyncfg `Config::new("persist_gc_blob_delete_concurrency_limit",
                    // 32, "Limit the number of concurrent deletes ..")`.
                    if let (Expr::Path(p), 3..) = (&*c.func, c.args.len()) {
                        if crate::syntax::last_segment(&p.path).is_some_and(|l| l == "new") {
                            self.keyed_setting(v, &c.args[0], &c.args[1], false);
                        }
                    }
                }
                // A channel made as a signal, or with its receiver dropped, is no capacity API
                // and no call of the workspace's own function of that name either.
                let api =
                    self.api_of_call(&c.func, c.args.len()).is_some() || self.signalled(&c.func);
                if let (Expr::Path(p), false) = (&*c.func, api) {
                    let segs = crate::syntax::path_idents(&p.path);
                    if let [.., callee] = segs.as_slice() {
                        let qualifier = segs.len().checked_sub(2).map(|i| match &*segs[i] {
                            "Self" => v.scope.self_ty().unwrap_or("Self").to_string(),
                            q => q.to_string(),
                        });
                        let text = segs.join("::");
                        self.call_args(v, callee, qualifier, false, text, &c.args);
                    }
                }
                if v.in_test() {
                    let via = match &*c.func {
                        Expr::Path(p) => crate::syntax::last_segment(&p.path),
                        _ => None,
                    }
                    .unwrap_or_else(|| "call".to_string());
                    for a in &c.args {
                        self.comparisons_in(v, &via, a);
                    }
                }
            }
            Expr::Tuple(t) if t.elems.len() == 2 && !v.in_test() => {
                self.keyed_setting(v, &t.elems[0], &t.elems[1], false);
            }
            Expr::Array(a) if !v.in_test() => {
                for (key, value) in a.elems.iter().zip(a.elems.iter().skip(1)) {
                    self.keyed_setting(v, key, value, true);
                }
            }
            Expr::MethodCall(m) => {
                if m.args.len() == 1
                    && (m.method == "get_or_insert" || m.method == "get_or_insert_with")
                {
                    let value = match &m.args[0] {
                        Expr::Closure(c) if m.method == "get_or_insert_with" => &*c.body,
                        x => x,
                    };
                    self.assigned(v, &m.receiver, value);
                }
                if m.args.len() == 1 && (m.method == "reserve" || m.method == "reserve_exact") {
                    self.hint(v, &m.args[0]);
                }
                self.parallelism_default(v, e, m);
                self.builder_default(v, m);
                if !v.in_test() {
                    self.keyed_method(v, m);
                }
                self.env_fallback(v, e, m);
                self.bounds(v, e);
                let mul = [
                    "saturating_mul",
                    "checked_mul",
                    "wrapping_mul",
                    "overflowing_mul",
                ];
                if m.args.len() == 1 && mul.iter().any(|x| m.method == x) {
                    self.product(v, &m.receiver, &m.args[0], Some(e));
                }
                if let Some(api) = self.api_of_method(m) {
                    self.api_arg(v, &api, &m.args[api.arg]);
                } else {
                    let callee = m.method.to_string();
                    let text = format!(".{callee}");
                    self.call_args(v, &callee, None, true, text, &m.args);
                }
                if v.in_test() {
                    for a in &m.args {
                        self.comparisons_in(v, &m.method.to_string(), a);
                    }
                }
            }
            Expr::Assign(a) => self.assignment(v, a),
            Expr::If(i) if !v.in_test() => {
                self.ceiling_check(v, i);
                self.warn_gate(v, i);
                self.request_gate(v, i);
                self.refusing_guard(v, i);
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
                self.product(v, &b.left, &b.right, None)
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => self.base(v, e, b),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Div(_)) && !v.in_test() => {
                if let (Val::Const(n) | Val::Field(n), Some(k)) = (
                    Val::of(&b.left),
                    Val::of(&b.right).literal().filter(|k| *k >= 2),
                ) {
                    if !self.facts.splits.contains(&(n.clone(), k)) {
                        self.facts.splits.push((n, k));
                    }
                }
            }

            _ => {}
        }
    }

    fn path(&mut self, v: &View, p: &syn::ExprPath) {
        if v.in_format() {
            return;
        }
        if let Some(last) = p.path.segments.last() {
            let id = last.ident.to_string();
            if is_const_name(&id) && p.path.segments.len() <= 4 {
                self.facts.const_refs.push(ConstRef {
                    ident: id,
                    loc: crate::syntax::path_loc(v.rel, &p.path),
                    in_test: v.in_test(),
                    api: None,
                    binding: false,
                    function: bare_in_function(v, &p.path),
                });
            }
        }
    }

    fn macro_call(&mut self, v: &View, mac: &syn::Macro, name: &str, args: Option<&[Expr]>) {
        if !v.in_format() && !v.in_test() {
            self.env_macro(v, mac, name, args);
            if let Some(args) = args {
                self.macro_flow(v, mac, name, args);
            }
        }
        if v.in_format() || !v.in_test() || !self.tables.assert_macros.iter().any(|m| m == name) {
            return;
        }
        if let Some(args) = args {
            self.assertion(v, name, mac, args);
        }
    }
}

impl Extractor<'_> {
    /// `new_broadcast_channel!(16)`: a macro's arguments go to the parameters of its rules,
    /// which the walk reads as functions of the macro's name (`syntax::macros`), as a call's
    /// go to a function's. Formatting, assertion and the standard library's macros have no
    /// rules of the workspace's.
    fn macro_flow(&mut self, v: &View, mac: &syn::Macro, name: &str, args: &[Expr]) {
        let standard = crate::syntax::walk::FORMAT_MACROS.contains(&name)
            || self.tables.assert_macros.iter().any(|m| m == name)
            || matches!(
                name,
                "vec" | "matches" | "env" | "option_env" | "cfg" | "dbg"
            );
        if args.is_empty() || standard {
            return;
        }
        let site = crate::site::child(&v.function_site(), name);
        self.call_at = Some(flow::Pos::of(&crate::syntax::path_loc(v.rel, &mac.path)));
        for (i, a) in args.iter().enumerate() {
            let item = format!("{name}!(#{i})");
            let to = flow::Node::Param(format!("{name}!"), i);
            self.flows_into(v, a, to, (&site, &item, CapacityKind::Arg));
        }
        self.call_at = None;
    }
}

/// The values a function body returns early (`return Some(4);`), outside closures and nested
/// items, whose `return`s are theirs.
fn returned(block: &syn::Block) -> Vec<&Expr> {
    struct Returns<'a>(Vec<&'a Expr>);
    impl<'a> syn::visit::Visit<'a> for Returns<'a> {
        fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
            if let Some(e) = &r.expr {
                self.0.push(e);
            }
            syn::visit::visit_expr_return(self, r);
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut r = Returns(Vec::new());
    syn::visit::Visit::visit_block(&mut r, block);
    r.0
}

/// The fallbacks a macro named for the environment is given after its variable's name
/// (`lazy_env_parse!("SURREAL_NET_MAX_CONCURRENT_REQUESTS", usize, 1 << 20)`, `env_or!("WORKERS",
/// || num_cpus::get().max(4))`: a closure's body), parsed from its tokens with their spans;
/// none for any other expression, or a macro whose arguments are no expressions.
fn env_macro_fallbacks(e: &Expr) -> Option<Vec<Expr>> {
    let Expr::Macro(m) = e else { return None };
    let name = m.mac.path.segments.last()?.ident.to_string();
    if !crate::index::names::words(&name).iter().any(|w| w == "env") {
        return None;
    }
    let args = crate::syntax::macro_args(&m.mac)?;
    first_str(&args)?;
    let rest = args.into_iter().skip(1).map(|a| match a {
        Expr::Closure(c) if c.inputs.is_empty() => *c.body,
        a => a,
    });
    Some(rest.collect())
}

/// A call's first argument when it is a string literal (`env::var("WORKERS")`, `.long("batch")`).
fn first_str<'e>(args: impl IntoIterator<Item = &'e Expr>) -> Option<String> {
    match args.into_iter().next() {
        Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })) => Some(s.value()),
        _ => None,
    }
}

/// What a setter sets: `with_max_seqs` and `set_max_connections` set `max_seqs` and
/// `max_connections`; any other name is its own.
pub(crate) fn setting(method: &str) -> &str {
    method
        .strip_prefix("with_")
        .or_else(|| method.strip_prefix("set_"))
        .unwrap_or(method)
}

/// Whether `e` makes an error: `Err(..)`.
fn is_err_call(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Err")))
}

/// Whether a parameter of type `ty` is a value of the call's own, not a borrow or a shared
/// handle (`Arc<..>`, `Rc<..>`) of state kept elsewhere.
fn owned_value(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| !matches!(s.ident.to_string().as_str(), "Arc" | "Rc" | "Weak")),
        syn::Type::Paren(p) => owned_value(&p.elem),
        _ => false,
    }
}

/// The variable a place starts from: `arg` of `arg.streams.inner`, `queue` of `queue`.
fn root_ident(mut e: &Expr) -> Option<String> {
    loop {
        match e {
            Expr::Field(f) => e = &f.base,
            Expr::Paren(p) => e = &p.expr,
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                return Some(p.path.segments[0].ident.to_string());
            }
            _ => return None,
        }
    }
}

/// The place `e` reads through the accessors named in `through` (`queue.lock().unwrap()`,
/// `q.read().await`, `*running`, `(x)`).
fn accessed<'e>(mut e: &'e Expr, through: &[&str]) -> &'e Expr {
    loop {
        match e {
            Expr::MethodCall(m)
                if m.args.len() <= 1 && through.contains(&m.method.to_string().as_str()) =>
            {
                e = &m.receiver
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => e = &u.expr,
            Expr::Await(a) => e = &a.base,
            Expr::Try(t) => e = &t.expr,
            Expr::Paren(p) => e = &p.expr,
            _ => return e,
        }
    }
}

/// The tuples an expression's value may be: itself, what its branches and blocks give
/// (`flow::tails`), or its fallback's (`.unwrap_or((100, 90))`).
fn tuple_tails(e: &Expr, depth: usize) -> Vec<&syn::ExprTuple> {
    if depth > 8 {
        return Vec::new();
    }
    // `cfg.map(|p| (p.max_idle, p.timeout)).unwrap_or((100, 90))`: the fallback's tuple.
    if let Some((_, fallback)) = crate::index::value::fallback_call(e) {
        return fallback.map_or_else(Vec::new, |f| tuple_tails(f, depth + 1));
    }
    match e {
        Expr::Tuple(t) => vec![t],
        Expr::Paren(p) => tuple_tails(&p.expr, depth + 1),
        _ => flow::tails(e)
            .into_iter()
            .flat_map(|x| tuple_tails(x, depth + 1))
            .collect(),
    }
}

/// The name a `let` binds, typed or not (`let n = ..`, `let n: usize = ..`).
fn let_ident(pat: &syn::Pat) -> Option<&syn::Ident> {
    match pat {
        syn::Pat::Ident(id) => Some(&id.ident),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(id) => Some(&id.ident),
            _ => None,
        },
        _ => None,
    }
}

/// The bindings (`let name = init;`) written in an expression's blocks, in source order.
fn inner_lets(e: &Expr) -> Vec<(String, &Expr)> {
    struct Lets<'e>(Vec<(String, &'e Expr)>);
    impl<'e> syn::visit::Visit<'e> for Lets<'e> {
        fn visit_local(&mut self, l: &'e syn::Local) {
            if let (Some(id), Some(init)) = (let_ident(&l.pat), &l.init) {
                self.0.push((id.to_string(), &init.expr));
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
    }
    let mut lets = Lets(Vec::new());
    syn::visit::Visit::visit_expr(&mut lets, e);
    lets.0
}

/// A string literal, or one made an owned string (`"max_conns".to_string()`, `.into()`,
/// `.to_owned()`, `String::from("max_conns")`): a settings map's key either way.
fn owned_str(e: &Expr) -> Option<&syn::LitStr> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(k),
            ..
        }) => Some(k),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "into" | "to_owned"
                ) =>
        {
            owned_str(&m.receiver)
        }
        Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            Expr::Path(p) if path_ends_with(&p.path, "String::from") => owned_str(&c.args[0]),
            _ => None,
        },
        Expr::Reference(r) => owned_str(&r.expr),
        _ => None,
    }
}

/// Every path an expression names (`n.div_ceil(THREADS)`: `n`, `THREADS`).
fn paths_in(e: &Expr) -> Vec<&syn::Path> {
    struct Paths<'e>(Vec<&'e syn::Path>);
    impl<'e> syn::visit::Visit<'e> for Paths<'e> {
        fn visit_path(&mut self, p: &'e syn::Path) {
            self.0.push(p);
        }
    }
    let mut paths = Paths(Vec::new());
    syn::visit::Visit::visit_expr(&mut paths, e);
    paths.0
}

/// The patterns of a body's match arms, `if let` and `while let` branches, each with the span
/// its bindings hold in and the value the pattern takes apart (`Extractor::arm_scopes`). A
/// nested item is a body of its own.
struct Arms<'e>(Vec<Arm<'e>>);

/// One pattern of `Arms`: the pattern, the span its bindings hold in, the value it matches.
type Arm<'e> = (&'e syn::Pat, (LineColumn, LineColumn), &'e Expr);

impl<'e> syn::visit::Visit<'e> for Arms<'e> {
    fn visit_item(&mut self, _: &'e syn::Item) {}

    fn visit_expr_match(&mut self, m: &'e syn::ExprMatch) {
        self.visit_expr(&m.expr);
        for arm in &m.arms {
            let span = (arm.pat.span().start(), arm.body.span().end());
            self.0.push((&arm.pat, span, &m.expr));
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
    }

    fn visit_expr_if(&mut self, i: &'e syn::ExprIf) {
        if let Expr::Let(l) = &*i.cond {
            let span = (l.span().start(), i.then_branch.span().end());
            self.0.push((&l.pat, span, &l.expr));
        }
        syn::visit::visit_expr_if(self, i);
    }

    fn visit_expr_while(&mut self, w: &'e syn::ExprWhile) {
        if let Expr::Let(l) = &*w.cond {
            let span = (l.span().start(), w.body.span().end());
            self.0.push((&l.pat, span, &l.expr));
        }
        syn::visit::visit_expr_while(self, w);
    }
}

/// The bindings of a pattern that takes a variant apart (`Extractor::flow_pattern`), each with
/// the place its value was stored in: a tuple variant's by position (`Kind::Max(n)`: what
/// `Kind::Max(..)` was called with), a struct variant's by field (`Kind::Max { n, .. }`).
fn variant_bindings<'p>(
    pat: &'p syn::Pat,
    self_ty: Option<&str>,
    out: &mut Vec<(flow::Node, &'p syn::PatIdent)>,
) {
    match pat {
        syn::Pat::Or(o) => o
            .cases
            .iter()
            .for_each(|p| variant_bindings(p, self_ty, out)),
        syn::Pat::Reference(r) => variant_bindings(&r.pat, self_ty, out),
        syn::Pat::Paren(p) => variant_bindings(&p.pat, self_ty, out),
        syn::Pat::TupleStruct(t) if t.path.segments.len() < 2 => t
            .elems
            .iter()
            .for_each(|p| variant_bindings(p, self_ty, out)),
        syn::Pat::TupleStruct(t) => {
            let Some(key) = flow::fn_key(&t.path, self_ty) else {
                return;
            };
            for (i, elem) in t.elems.iter().enumerate() {
                match elem {
                    syn::Pat::Ident(b) if b.subpat.is_none() => {
                        out.push((flow::Node::Param(key.clone(), i), b))
                    }
                    p => variant_bindings(p, self_ty, out),
                }
            }
        }
        syn::Pat::Struct(s) if s.path.segments.len() >= 2 => {
            let Some(ty) = s.path.segments.last().map(|x| x.ident.to_string()) else {
                return;
            };
            for f in &s.fields {
                match (&f.member, &*f.pat) {
                    (syn::Member::Named(field), syn::Pat::Ident(b)) if b.subpat.is_none() => {
                        out.push((flow::Node::Field(Some(ty.clone()), field.to_string()), b))
                    }
                    (_, p) => variant_bindings(p, self_ty, out),
                }
            }
        }
        _ => {}
    }
}

/// A condition that compares a collection's `.len()` with a bound, read as `len >= bound`
/// (`at_least`: `>=`, `>`, or the mirror `bound <= len`) or as `len < bound` (`<`, `<=`, or
/// `bound > len`): the comparison, the `.len()` call and the bound (`Extractor::framing`,
/// `Extractor::minimum`).
fn length_compared(
    cond: &Expr,
    at_least: bool,
) -> Option<(&syn::ExprBinary, &syn::ExprMethodCall, &Expr)> {
    let Expr::Binary(b) = crate::index::value::carried(cond) else {
        return None;
    };
    let above = match b.op {
        syn::BinOp::Ge(_) | syn::BinOp::Gt(_) => true,
        syn::BinOp::Le(_) | syn::BinOp::Lt(_) => false,
        _ => return None,
    };
    // The length sits on the left when the operator already reads the asked way round.
    let (len, bound) = if above == at_least {
        (&*b.left, &*b.right)
    } else {
        (&*b.right, &*b.left)
    };
    match crate::index::value::carried(len) {
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some((b, m, bound)),
        _ => None,
    }
}
