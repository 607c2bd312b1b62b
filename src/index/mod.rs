//! The shared index: built once per run from the facts the walk collects (`project` loads it),
//! read by every job. `check`
//! reports from it, the manifest binds its sites to measurements, `mutants` picks sites from it.

pub(crate) mod extract;
pub(crate) mod facts;
pub(crate) mod flow;
pub(crate) mod graph;
pub(crate) mod names;
pub(crate) mod params;
pub(crate) mod per_unit;
pub(crate) mod pins;
pub(crate) mod tables;
pub(crate) mod triggers;
pub(crate) mod value;

use rustc_hash::FxHashMap as HashMap;

use serde::Serialize;

use crate::source::Loc;
use crate::workspace::Deps;
pub(crate) use facts::FileFacts;
pub(crate) use tables::Tables;
pub(crate) use triggers::Triggers;

/// How a capacity is written in the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CapacityKind {
    #[default]
    Const,
    Static,
    Field,
    Let,
    Fn,
    ApiArg,
    /// The fallback of a setting read from an environment variable (`$MAX_CONNECTIONS`).
    Env,
    /// An attribute's argument (`#[tokio::main(worker_threads = 4)]`).
    Attr,
    /// A value handed on under a string key: an environment preset, a keyed setting, a command
    /// line's flag (`("MAX_NUM_SEQS", "32")`, `.arg("--max-num-seqs").arg("64")`).
    Setting,
    /// A ceiling a value is checked against (`if pool_size > 100 { return Err(..) }`).
    Ceiling,
    /// An argument of one of the workspace's own functions (`Limits::new(outbox)`), whose value
    /// reaches a capacity API through it (`index::flow`).
    Arg,
}

/// Where a capacity flows: a related location with a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Use {
    pub(crate) loc: Loc,
    pub(crate) note: String,
}

/// A hard-coded capacity: one literal, named by its site.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Capacity {
    /// `crate::module::ITEM`, `crate::module::Type::field` or `crate::module::function::binding`.
    pub(crate) site: String,
    /// The constant, field or binding name; the API for a bare API argument.
    pub(crate) item: String,
    pub(crate) value: u64,
    pub(crate) kind: CapacityKind,
    /// The literal.
    pub(crate) loc: Loc,
    /// The capacity API it reaches, when known.
    pub(crate) api: Option<String>,
    pub(crate) uses: Vec<Use>,
    /// The path its value takes to the capacity API, when the flow found it (`index::flow`):
    /// each place it goes, in order; empty for a capacity its name or API found.
    pub(crate) path: Vec<Use>,
    /// The package it is defined in.
    pub(crate) package: String,
    /// Who can name it (fields, functions and API arguments count as public).
    pub(crate) visibility: facts::Visibility,
    /// A literal factor or divisor of a run-time value (`index::flow`'s `Source::Factor`): the
    /// product or quotient it is in, on one line (`max * 2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) factor: Option<String>,
}

impl Capacity {
    /// Whether it is a reserve held back from a count or a headroom added to one (`num_cpus -
    /// 2`, `5 + cpus`, as `index::flow` takes a literal subtracted from a place or added to the
    /// CPU count): its product is a difference or a sum.
    pub(crate) fn is_offset(&self) -> bool {
        self.offset_op().is_some()
    }

    /// The operator of an offset's sum or difference (see `is_offset`): `-` or `+`.
    pub(crate) fn offset_op(&self) -> Option<char> {
        let text = self.factor.as_deref()?;
        match syn::parse_str::<syn::Expr>(text) {
            Ok(syn::Expr::Binary(b)) => match b.op {
                syn::BinOp::Sub(_) => Some('-'),
                syn::BinOp::Add(_) => Some('+'),
                _ => None,
            },
            _ => None,
        }
    }

    /// A `const` or `static` whose initialiser is a literal, or arithmetic of literals alone
    /// (`1 << 16`, `8 * 1024`: one number typed by hand).
    /// A size so written with a factor of 1024 (`DEFAULT_WRITE_BATCH_SIZE = 64 * 1024`) is
    /// one in bytes, as sizes in KiB are written; a count is not (`MAX_BACKLOG = 128 * 1024`).
    fn from_const(d: &facts::ConstDef, package: &str) -> Option<Capacity> {
        let value = d.val.literal()?;
        if !d.val.is_lit()
            && d.val.has_kib_factor()
            && names::words(&d.ident).iter().any(|w| w == "size")
        {
            return None;
        }
        Some(Capacity {
            site: d.site.clone(),
            item: d.ident.clone(),
            value,
            kind: if d.is_static {
                CapacityKind::Static
            } else {
                CapacityKind::Const
            },
            loc: d.loc.clone(),
            api: None,
            uses: Vec::new(),
            path: Vec::new(),
            package: package.to_string(),
            visibility: d.visibility.clone(),
            factor: None,
        })
    }

    /// A struct-literal field set to a literal.
    fn from_field(x: &facts::FieldInit, package: &str) -> Option<Capacity> {
        let value::Val::Lit(value) = x.val else {
            return None;
        };
        Some(Capacity {
            site: x.site.clone(),
            item: x.field.clone(),
            value,
            kind: CapacityKind::Field,
            loc: x.loc.clone(),
            api: None,
            uses: Vec::new(),
            path: Vec::new(),
            package: package.to_string(),
            visibility: facts::Visibility::Public,
            factor: None,
        })
    }
}

/// The index of one run.
#[derive(Debug)]
pub(crate) struct Index {
    pub(crate) files: Vec<FileFacts>,
    pub(crate) capacities: Vec<Capacity>,
    /// Values of every integer constant, by identifier (capacity or not), for arithmetic.
    pub(crate) consts: HashMap<String, u64>,
    /// Literal defaults of struct fields in production code, by field name.
    pub(crate) field_defaults: HashMap<String, (u64, Loc)>,
    pub(crate) tables: Tables,
    /// The identifiers of every place whose value reaches a capacity API, with the packages whose
    /// code could store into it (`flow::Graph::idents`): the sparse parse reads the cut items
    /// there that mention one.
    pub(crate) flow_idents: Vec<flow::Wanted>,
    /// Which packages values pass between (the workspace's dependency graph).
    pub(crate) deps: Deps,
}

impl Index {
    /// Resolve per-file facts into capacities.
    pub(crate) fn from_facts(files: Vec<FileFacts>, tables: Tables, deps: Deps) -> Index {
        let consts = resolve_consts(&files);
        let mut field_defaults = HashMap::default();
        // A field written in a type whose name says it holds no count (`CpuTopology {
        // threads_per_core: 1 }`) is no per-unit number's default.
        let fields = files.iter().flat_map(|f| &f.fields);
        for f in
            fields.filter(|f| !f.in_test && !tables.holder_counts_nothing(&f.type_name, &f.field))
        {
            if let Some(v) = f.val.eval(&consts, &HashMap::default()) {
                field_defaults
                    .entry(f.field.clone())
                    .or_insert((v, f.loc.clone()));
            }
        }
        let (capacities, flow_idents) = capacities(&files, &tables, &deps);
        let mut index = Index {
            files,
            capacities,
            consts,
            field_defaults,
            tables,
            flow_idents,
            deps,
        };
        // A count's factor (`healthy * 8`) is a per-unit cap, which `per-unit-cap` reports. The
        // late pass builds the index several times: the products are classified only when a
        // factor is there to drop.
        if index.capacities.iter().any(|c| c.factor.is_some()) {
            let per_unit: Vec<Loc> = per_unit::find(&index)
                .iter()
                .map(|p| p.product.loc.clone())
                .collect();
            index
                .capacities
                .retain(|c| c.factor.is_none() || !per_unit.iter().any(|p| p.contains(&c.loc)));
        }
        index
    }

    pub(crate) fn tables(&self) -> &Tables {
        &self.tables
    }

    /// A constant or struct-field literal of production code named by `site` (or a `::`-suffix of
    /// it), capacity-named or not: a manifest entry makes any such literal a capacity.
    pub(crate) fn literal_site(&self, site: &str) -> Option<Capacity> {
        let matches = |full: &str| crate::site::matches(full, site);
        self.files.iter().find_map(|f| {
            let consts = f.consts.iter().filter(|d| !d.in_test && matches(&d.site));
            let fields = f.fields.iter().filter(|x| !x.in_test && matches(&x.site));
            consts
                .filter_map(|d| Capacity::from_const(d, &f.package))
                .chain(fields.filter_map(|x| Capacity::from_field(x, &f.package)))
                .next()
        })
    }

    /// Total lines scanned.
    pub(crate) fn lines(&self) -> usize {
        self.files.iter().map(|f| f.lines).sum()
    }
}

/// Fold every constant's value, following references between constants until nothing changes.
fn resolve_consts(files: &[FileFacts]) -> HashMap<String, u64> {
    let defs: Vec<_> = files.iter().flat_map(|f| &f.consts).collect();
    let mut values: HashMap<String, u64> = HashMap::default();
    loop {
        let before = values.len();
        for d in &defs {
            if values.contains_key(&d.ident) {
                continue;
            }
            if let Some(v) = d.val.eval(&values, &HashMap::default()) {
                values.insert(d.ident.clone(), v);
            }
        }
        if values.len() == before {
            return values;
        }
    }
}

const MAX_USES: usize = 12;

/// What a call sets: for each argument at a capacity parameter of the function it calls, the
/// argument and `callee(param)`. The callee is looked up among the signatures of the caller's
/// own package by name and shape (a method, an associated function of the type it names, a free
/// function; the number of arguments); every signature that fits must take a capacity there.
/// An associated function of a type the call names (`AsyncLru::new(rt, size, 8, 200, ..)`) is
/// also looked up in the packages the caller depends on: the type names one.
fn capacity_args<'f>(
    files: &'f [FileFacts],
    deps: &Deps,
    tables: &Tables,
) -> Vec<(
    &'f FileFacts,
    &'f facts::CallArgs,
    &'f value::Operand,
    String,
)> {
    let mut sigs: HashMap<(&str, &str), Vec<&params::Sig>> = HashMap::default();
    for f in files {
        for s in &f.sigs {
            sigs.entry((f.package.as_str(), s.name.as_str()))
                .or_default()
                .push(s);
        }
    }
    let packages: Vec<&str> = {
        let mut p: Vec<&str> = files.iter().map(|f| f.package.as_str()).collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    // A type named for a rate or a size (`RateLimit::new(max_requests)`) counts per window, as
    // its fields do (`Capacity::from_field`), unless the name says at once.
    let per_window = |s: &params::Sig, n: &str| {
        s.self_ty
            .as_deref()
            .is_some_and(|t| tables.names_no_count(t))
            && !names_at_once(n)
    };
    let mut out = Vec::new();
    for f in files {
        for c in f.calls.iter().filter(|c| !c.in_test) {
            let typed = !c.method
                && c.qualifier
                    .as_deref()
                    .is_some_and(|q| q.starts_with(char::is_uppercase));
            let mut all: Vec<&params::Sig> = sigs
                .get(&(f.package.as_str(), c.callee.as_str()))
                .into_iter()
                .flatten()
                .copied()
                .collect();
            if typed {
                all.extend(
                    packages
                        .iter()
                        .filter(|p| deps.depends(&f.package, p))
                        .filter_map(|p| sigs.get(&(*p, c.callee.as_str())))
                        .flatten()
                        .copied(),
                );
            }
            if all.is_empty() {
                continue;
            }
            let fits = |s: &&&params::Sig| {
                s.arity == c.n_args
                    && match (&c.qualifier, c.method) {
                        (_, true) => s.has_self,
                        (None, false) => !s.has_self && s.self_ty.is_none(),
                        (Some(q), false) if q.starts_with(char::is_uppercase) => {
                            !s.has_self && s.self_ty.as_deref() == Some(q.as_str())
                        }
                        (Some(_), false) => !s.has_self && s.self_ty.is_none(),
                    }
            };
            let fit: Vec<&&params::Sig> = all.iter().filter(fits).collect();
            if fit.is_empty() {
                continue;
            }
            for (pos, arg) in &c.args {
                let names: Vec<Option<&String>> = fit
                    .iter()
                    .map(|s| {
                        s.caps
                            .iter()
                            .find(|(p, n)| p == pos && !per_window(s, n))
                            .map(|(_, n)| n)
                    })
                    .collect();
                if let Some(Some(param)) = names.first() {
                    // A 1 given to a minimum (`min_limit`, `min_thread_count`) is a floor.
                    let floor = matches!(arg.val, value::Val::Lit(0 | 1))
                        && crate::index::names::names_minimum(param);
                    if names.iter().all(Option::is_some) && !floor {
                        out.push((f, c, arg, format!("{}({param})", c.text)));
                    }
                }
            }
        }
    }
    out
}

/// What the sparse parse must read for the flow (`flow::Wanted`).
type FlowIdents = Vec<flow::Wanted>;

/// The capacities a value's flow finds (`index::flow`): each literal whose value reaches a
/// capacity API, with the path it takes; and the identifiers of the places on such paths.
fn flow_capacities(
    files: &[FileFacts],
    deps: &Deps,
    defined: &rustc_hash::FxHashSet<String>,
) -> (Vec<Capacity>, FlowIdents) {
    let graph = flow::Graph::new(
        files.iter().map(|f| (&f.flow, f.package.as_str())),
        &|a, b| deps.depends(a, b),
    );
    let package: HashMap<&str, &str> = files
        .iter()
        .map(|f| (f.rel.as_str(), f.package.as_str()))
        .collect();
    let caps = graph
        .capacities()
        .into_iter()
        .map(|found| {
            let s = found.seed;
            Capacity {
                site: s.site.clone(),
                // An argument is named by the parameter it is given to.
                item: match s.to {
                    flow::Node::Param(..) => graph.shown(&s.to),
                    _ => s.item.clone(),
                },
                value: s.value,
                kind: s.kind,
                loc: s.loc.clone(),
                api: Some(found.api),
                uses: Vec::new(),
                path: found
                    .path
                    .into_iter()
                    .map(|step| Use {
                        loc: step.loc,
                        note: step.note,
                    })
                    .collect(),
                package: package
                    .get(s.loc.file.as_str())
                    .map_or_else(String::new, |p| p.to_string()),
                visibility: facts::Visibility::Public,
                factor: s.factor.clone(),
            }
        })
        .collect();
    (caps, graph.idents(defined))
}

/// `max_size` is a pool's size and a size in bytes alike (the rule's whole-name pattern): set to
/// a whole number of KiB, 100 KiB or more (a log file's `max_size: 4294967296`, a blob's
/// `max_size: 104857600`), it is the second. No pool or queue of a hundred thousand entries is
/// written in KiB.
///
/// Any value that is a whole number of MiB is a size in bytes too, whatever names it or wherever
/// it flows (`STORAGE_MAX_BATCH_SIZE = 2097152`, a RAM budget of 256 MiB whose KiB are a
/// semaphore's permits, `size_limit_bytes` turned into an event limit): nobody counts a million
/// tasks or queue slots in powers of two.
fn written_in_bytes(c: &Capacity) -> bool {
    const MIB: u64 = 1024 * 1024;
    let name = c.item.trim_start_matches('.').trim_end_matches("()");
    let name = name.rsplit("::").next().unwrap_or(name);
    let max_size = extract::setting(name).eq_ignore_ascii_case("max_size")
        && c.value >= 100 * 1024
        && c.value % 1024 == 0;
    max_size || (c.value >= MIB && c.value % MIB == 0)
}

/// Whether a literal the names, APIs or flow found still counts as a capacity: not a size in
/// bytes, not "no limit", not a housekeeping batch (`Tables::is_chore_batch`) unless it sizes a
/// channel or a semaphore (one of `handoff`: `mpsc::channel(INSERT_PENDING_BATCH_NUM)` bounds
/// the batches in flight, whatever the batch is for), not a minimum's floor.
fn counts(
    c: &Capacity,
    tables: &Tables,
    handoff: &std::collections::HashSet<&str>,
    declared_in: &HashMap<&Loc, &str>,
) -> bool {
    let bounds = c.api.as_deref().is_some_and(|a| handoff.contains(a));
    // The function a constant or a binding is declared in: a binding's site is its function's.
    let function = match c.kind {
        CapacityKind::Let | CapacityKind::Env => c.site.rsplit("::").nth(1),
        _ => declared_in.get(&c.loc).copied(),
    };
    !written_in_bytes(c)
        && !no_limit(c)
        && (bounds || !tables.is_chore_batch(&c.item, c.api.as_deref(), function))
        && !floor_of_minimum(c)
        && !initial_allocation(c)
}

/// A queue's or a channel's initial size, found by its name alone (`INITIAL_QUEUE_CAPACITY =
/// 128`, `TASK_QUEUE_INITIAL_SIZE = 64`), is how much room is allocated up front, not a bound:
/// the collection grows past it. One that reaches a capacity API bounds it (zebra's
/// `DEFAULT_PEERSET_INITIAL_TARGET_SIZE` in `mpsc::channel`), and an initial concurrency or
/// worker count is where an adaptive limit starts, a capacity.
fn initial_allocation(c: &Capacity) -> bool {
    if c.api.is_some() {
        return false;
    }
    let words = names::words(c.item.trim_start_matches('.').trim_end_matches("()"));
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    has(&["initial"]) && has(&["capacity", "size", "len"]) && has(&["queue", "channel"])
}

/// A minimum of 1 of a pool's or a scaler's members (`min_connections: 1`, `.min_idle(Some(1))`,
/// `min_workers: 1`) only keeps it from emptying: a floor, as `n.max(1)` is. A larger minimum
/// holds that many at all times and is a capacity (`min_connections: 5`). The minimum of a limit
/// (an adaptive limiter's `min_limit: 1`) is how far it throttles when it backs off: a bound on
/// work at once in that state, kept.
fn floor_of_minimum(c: &Capacity) -> bool {
    let name = c.item.trim_start_matches('.').trim_end_matches("()");
    c.value <= 1
        && names::names_minimum(name)
        && !names::words(name)
            .iter()
            .any(|w| matches!(w.as_str(), "limit" | "cap" | "ceiling"))
}

/// A count of 2^40 (about 10^12) or more is "no limit" written as a number (golem's
/// `max_concurrent_agents_per_executor: 1_000_000_000_000_000_000`, an "unlimited sentinel"):
/// no machine holds that much work at once, and nobody measures it.
fn no_limit(c: &Capacity) -> bool {
    c.value >= 1 << 40
}

/// The literals of `named` (capacities found by their name alone: a constant, a `let` or an
/// environment variable's fallback, no API)
/// whose value only ever sizes one page of a series: every place it flows to, through constants
/// and locals, is a page argument (`.limit(BATCH_SIZE)`, `.bind(batch)`, `lpop(queue,
/// NonZeroUsize::new(batch_size))`), and there is one. Such a batch is fetched or sent one
/// request at a time, not held at once: the labelling guide's serial page size. A value that
/// also goes anywhere else (a field, a function of the workspace, a capacity API: `by_flow`)
/// keeps its finding. The places followed are those of the items that mention the name, which
/// the sparse parse keeps, so it agrees with a full one.
fn serial_pages(
    files: &[FileFacts],
    tables: &Tables,
    named: &[Capacity],
    by_flow: &[Capacity],
) -> std::collections::HashSet<Loc> {
    let mut out = std::collections::HashSet::new();
    let candidates: Vec<&Capacity> = named
        .iter()
        .filter(|c| c.api.is_none())
        .filter(|c| {
            matches!(
                c.kind,
                CapacityKind::Const | CapacityKind::Static | CapacityKind::Let | CapacityKind::Env
            )
        })
        .collect();
    if candidates.is_empty() || tables.page_sinks.is_empty() {
        return out;
    }
    let flowed: std::collections::HashSet<&Loc> = by_flow.iter().map(|c| &c.loc).collect();
    let wanted: std::collections::HashSet<&Loc> = candidates.iter().map(|c| &c.loc).collect();
    let mut starts: HashMap<&Loc, Vec<&flow::Node>> = HashMap::default();
    let mut next: HashMap<&flow::Node, Vec<&flow::Node>> = HashMap::default();
    // The workspace's own page parameters: a `limit` of `list_devices(app_id, limit, cursor)`.
    let own_pages: std::collections::HashSet<(&str, usize)> = files
        .iter()
        .flat_map(|f| &f.page_params)
        .map(|(k, i)| (k.as_str(), *i))
        .collect();
    let own_page = |key: &str, i: usize| own_pages.contains(&(key, i));
    for f in files {
        for s in f.flow.seeds.iter().filter(|s| wanted.contains(&s.loc)) {
            starts.entry(&s.loc).or_default().push(&s.to);
        }
        for e in &f.flow.edges {
            if matches!(e.from, flow::Node::Const(_) | flow::Node::Local(..)) {
                next.entry(&e.from).or_default().push(&e.to);
            }
        }
    }
    for c in candidates {
        if flowed.contains(&c.loc) {
            continue;
        }
        let Some(from) = starts.get(&c.loc) else {
            continue;
        };
        let mut seen: std::collections::HashSet<&flow::Node> = from.iter().copied().collect();
        let mut todo: Vec<&flow::Node> = from.clone();
        let (mut pages, mut elsewhere) = (0, false);
        while let Some(n) = todo.pop() {
            match n {
                flow::Node::Const(_) | flow::Node::Local(..) => {
                    for m in next.get(n).into_iter().flatten() {
                        if seen.insert(m) {
                            todo.push(m);
                        }
                    }
                }
                flow::Node::Param(key, i) if tables.page_sinks.contains(&(key.clone(), *i)) => {
                    pages += 1
                }
                flow::Node::Param(key, i) if own_page(key, *i) => pages += 1,
                // `GetSiteUrlsQuery { offset, limit: BATCH }`: a request's page.
                flow::Node::Field(Some(ty), field) if request_page(ty, field) => pages += 1,
                // `NonZeroUsize::new(batch)`, `Some(batch)`: the wrapper's argument goes on to
                // where the wrapper goes.
                flow::Node::Param(key, _)
                    if key.starts_with("NonZero") || matches!(key.as_str(), "Some" | "Ok") => {}
                _ => {
                    elsewhere = true;
                    break;
                }
            }
        }
        if pages > 0 && !elsewhere {
            out.insert(c.loc.clone());
        }
    }
    out
}

/// Whether a name says its count is of work at once (`concurrent_requests`, `max_in_flight`,
/// `parallel_uploads`), not of work per unit of time.
fn names_at_once(name: &str) -> bool {
    let words = names::words(name);
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "concurrent" | "concurrency" | "inflight" | "parallel" | "parallelism" | "simultaneous"
        )
    }) || words.windows(2).any(|p| p[0] == "in" && p[1] == "flight")
}

/// The page parameters of a file's signatures, by flow key and position: a `limit`,
/// `page_size` or `per_page` (`Sig::pages`) of a function named for reading a page
/// (`list_devices`, `scan_keys`, `scroll_points`), which one call of a cursor's loop passes. A
/// function named for a batch (`get_unfinished_task_batch(conn, job, limit)`) fetches work to
/// hold, not a page.
pub(crate) fn page_params(sigs: &[params::Sig]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for s in sigs.iter().filter(|s| !s.pages.is_empty()) {
        if names::names_page_reader(&s.name) {
            let key = flow::def_key(&s.name, s.self_ty.as_deref(), s.has_self);
            out.extend(s.pages.iter().map(|&i| (key.clone(), i)));
        }
    }
    out
}

/// Whether field `field` of type `ty` is the page size of one request: a `limit`, `page_size`
/// or `per_page` of a type named for a query or a request (`GetSiteUrlsQuery { limit }`,
/// `ListObjectsRequest { page_size }`).
fn request_page(ty: &str, field: &str) -> bool {
    let kind = names::words(ty).last().cloned().unwrap_or_default();
    names::names_page(field) && matches!(kind.as_str(), "query" | "request" | "req" | "params")
}

fn capacities(files: &[FileFacts], tables: &Tables, deps: &Deps) -> (Vec<Capacity>, FlowIdents) {
    let capacity_args = capacity_args(files, deps, tables);
    // The capacity APIs where a 1 is a lock or a hand-off (`Semaphore::new(1)`, `channel(1)`).
    let handoff: std::collections::HashSet<&str> = files
        .iter()
        .flat_map(|f| f.flow.handoff.iter().map(String::as_str))
        .collect();
    // A constant given to a capacity parameter flows into it as into a capacity API.
    let call_refs: Vec<(&str, facts::ConstRef)> = capacity_args
        .iter()
        .filter_map(|(f, _, arg, api)| match &arg.val {
            value::Val::Const(ident) => Some((
                f.package.as_str(),
                facts::ConstRef {
                    ident: ident.clone(),
                    loc: arg.loc.clone(),
                    in_test: false,
                    api: Some(api.clone()),
                    binding: false,
                    function: None,
                },
            )),
            _ => None,
        })
        .collect();
    // References grouped by constant name, with the package they are made in; an API argument
    // is recorded twice (as a path and as the API's argument), so the plain path reference at an
    // API argument's location is dropped.
    let mut refs: HashMap<&str, Vec<(&str, &facts::ConstRef)>> = HashMap::default();
    let made = files
        .iter()
        .flat_map(|f| f.const_refs.iter().map(move |r| (f.package.as_str(), r)));
    for (package, r) in made.chain(call_refs.iter().map(|(p, r)| (*p, r))) {
        refs.entry(r.ident.as_str()).or_default().push((package, r));
    }
    let api_locs: std::collections::HashSet<&Loc> = refs
        .values()
        .flatten()
        .filter(|(_, r)| r.api.is_some())
        .map(|(_, r)| &r.loc)
        .collect();
    // The constants functions declare in their bodies, by file, function and name: a bare name
    // written in such a function names its own (rustmailer's seventeen `clean_*` functions each
    // declare a `BATCH_SIZE`), and one declared so is named only there.
    let in_bodies: Vec<(&facts::ConstDef, &str)> = files
        .iter()
        .flat_map(|f| &f.consts)
        .filter_map(|d| Some((d, d.function.as_deref()?)))
        .collect();
    let local_consts: std::collections::HashSet<(&str, &str, &str)> = in_bodies
        .iter()
        .map(|(d, g)| (d.loc.file.as_str(), *g, d.ident.as_str()))
        .collect();
    let names_it = |d: &facts::ConstDef, r: &facts::ConstRef| match d.function.as_deref() {
        Some(g) => r.loc.file == d.loc.file && r.function.as_deref().is_none_or(|h| h == g),
        None => !r
            .function
            .as_deref()
            .is_some_and(|h| local_consts.contains(&(r.loc.file.as_str(), h, r.ident.as_str()))),
    };
    // The references that name a constant, with their packages.
    let refs_of = |d: &facts::ConstDef| -> Vec<(&str, &facts::ConstRef)> {
        refs.get(d.ident.as_str())
            .into_iter()
            .flatten()
            .filter(|(_, r)| names_it(d, r))
            .copied()
            .collect()
    };
    let inert_uses: std::collections::HashSet<&Loc> =
        files.iter().flat_map(|f| &f.inert_uses).collect();
    let mut out = Vec::new();
    for f in files {
        for d in f.consts.iter().filter(|d| !d.in_test) {
            let Some(mut cap) = Capacity::from_const(d, &f.package) else {
                continue;
            };
            // A binding's name is weaker evidence than an API: the constant's own words win.
            let excluded = d.excluded_type || tables.capacity_names.excludes(&d.ident);
            let counts = |package: &str, r: &facts::ConstRef| {
                !r.binding || (package == f.package && !excluded)
            };
            // The first API a constant reaches names it: a capacity API's before a capacity
            // parameter's, either before a capacity-named binding of its own package.
            let named_by = refs_of(d);
            let first_api = |binding: bool| {
                named_by
                    .iter()
                    .filter(|(package, r)| {
                        !r.in_test && r.binding == binding && (!binding || *package == f.package)
                    })
                    .find_map(|(_, r)| r.api.clone())
            };
            cap.api = first_api(false);
            let named =
                !d.excluded_type && tables.capacity_names.matches_binding(&d.ident, d.counts);
            // A constant no name or API makes a capacity is one when it sets a capacity-named
            // binding of its own package (`max(DEFAULT_BLOCKING_THREAD_BUDGET / n, 1)`).
            if cap.api.is_none() && !named && !excluded {
                cap.api = first_api(true);
            }
            if cap.value == 0 || !(cap.api.is_some() || named) {
                continue;
            }
            // A name with no API whose every use in production code bounds nothing (compares a
            // size with it only to log, `if len > COMMAND_CHANNEL_SIZE_LIMIT { warn!(..) }`:
            // `FileFacts::inert_uses`) is no capacity.
            if cap.api.is_none() {
                let mut plain = named_by
                    .iter()
                    .filter(|(package, r)| !r.in_test && *package == f.package.as_str())
                    .peekable();
                if plain.peek().is_some() && plain.all(|(_, r)| inert_uses.contains(&r.loc)) {
                    continue;
                }
            }
            // A 1 that only ever reaches a lock or a hand-off (`broadcast::channel(ONE)`) is one,
            // as the literal would be.
            let apis = || {
                named_by
                    .iter()
                    .filter(|(_, r)| !r.in_test)
                    .filter_map(|(_, r)| r.api.as_deref())
            };
            if cap.value == 1 && !named && apis().all(|a| handoff.contains(a)) {
                continue;
            }
            let mut uses: Vec<Use> = named_by
                .iter()
                .filter(|(_, r)| r.api.is_some() || !api_locs.contains(&r.loc))
                .map(|(package, r)| Use {
                    loc: r.loc.clone(),
                    note: match (r.api.as_ref().filter(|_| counts(package, r)), r.in_test) {
                        (Some(api), _) => format!("flows into {api}"),
                        (None, true) => "used in test code".to_string(),
                        (None, false) => "used here".to_string(),
                    },
                })
                .collect();
            uses.sort_by(|a, b| a.loc.cmp(&b.loc));
            uses.dedup();
            uses.truncate(MAX_USES);
            cap.uses = uses;
            out.push(cap);
        }
        for fi in f.fields.iter().filter(|x| !x.in_test) {
            match Capacity::from_field(fi, &f.package) {
                // `RateLimit { max_requests: 60, window_seconds: 60 }`: the fields of a struct
                // named for a rate (or a size in bytes, a share) count per window, not at once,
                // unless they say they count at once (`RateLimits { concurrent_requests: 10 }`).
                Some(cap)
                    if cap.value > 0
                        && tables.capacity_names.matches(&fi.field)
                        && !tables.holder_counts_nothing(&fi.type_name, &fi.field) =>
                {
                    out.push(cap)
                }
                _ => {}
            }
        }
        // `let threads = 256;` that sizes a GPU kernel's launch, and no capacity API: a block's
        // threads (`Extractor::launch_geometry`).
        let launch = |x: &facts::NamedLit| {
            x.kind == CapacityKind::Let && x.flows.is_empty() && f.launch_sites.contains(&x.site)
        };
        for n in f
            .named_lits
            .iter()
            .filter(|x| !x.in_test && x.value > 0 && !launch(x))
        {
            out.push(Capacity {
                site: n.site.clone(),
                item: n.ident.clone(),
                value: n.value,
                kind: n.kind,
                loc: n.loc.clone(),
                api: n.flows.first().map(|(api, _)| api.clone()),
                path: Vec::new(),
                uses: n
                    .flows
                    .iter()
                    .map(|(api, loc)| Use {
                        loc: loc.clone(),
                        note: format!("flows into {api}"),
                    })
                    .collect(),
                package: f.package.clone(),
                visibility: n.visibility.clone(),
                factor: None,
            });
        }
        for a in f.api_args.iter().filter(|x| !x.in_test) {
            let value::Val::Lit(v) = a.arg.val else {
                continue;
            };
            // 0 sets nothing (it is "unlimited", "automatic" or a closed gate); a semaphore or
            // channel of one is a lock or a hand-off, and a CPU count of one a floor. A 1 given
            // to any other capacity API (`.max_size(1)`, `.worker_threads(1)`) is a setting.
            if v == 0 || (v == 1 && a.quiet_at_one) {
                continue;
            }
            out.push(Capacity {
                site: crate::site::child(
                    &a.site,
                    a.api.trim_start_matches('.').trim_end_matches("()"),
                ),
                item: a.api.clone(),
                value: v,
                kind: CapacityKind::ApiArg,
                loc: a.arg.loc.clone(),
                api: Some(a.api.clone()),
                uses: Vec::new(),
                path: Vec::new(),
                package: f.package.clone(),
                visibility: facts::Visibility::Public,
                factor: None,
            });
        }
    }
    for (f, c, arg, api) in capacity_args {
        // A capacity parameter is named for what it sets: a 1 there is a setting (`threads: 1`).
        let value::Val::Lit(v) = arg.val else {
            continue;
        };
        if v == 0 {
            continue;
        }
        out.push(Capacity {
            site: crate::site::child(&c.site, &c.callee),
            item: api.clone(),
            value: v,
            kind: CapacityKind::ApiArg,
            loc: arg.loc.clone(),
            api: Some(api),
            uses: Vec::new(),
            path: Vec::new(),
            package: f.package.clone(),
            visibility: facts::Visibility::Public,
            factor: None,
        });
    }
    // The function each constant declared in a body is declared in (`counts`).
    let declared_in: HashMap<&Loc, &str> = in_bodies.iter().map(|(d, g)| (&d.loc, *g)).collect();
    out.retain(|c| counts(c, tables, &handoff, &declared_in));
    // What the names and APIs found comes first: a literal they found keeps their telling.
    let (by_flow, flow_idents) = flow_capacities(files, deps, &tables.defined_fns);
    let paged = serial_pages(files, tables, &out, &by_flow);
    out.retain(|c| !paged.contains(&c.loc));
    let within = |inner: &Loc, outer: &Loc| {
        inner.file == outer.file
            && (outer.line, outer.column) <= (inner.line, inner.column)
            && (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)
    };
    let mut by_file: HashMap<&str, Vec<Loc>> = HashMap::default();
    for c in &out {
        by_file
            .entry(c.loc.file.as_str())
            .or_default()
            .push(c.loc.clone());
    }
    let by_flow: Vec<Capacity> = by_flow
        .into_iter()
        .filter(|c| counts(c, tables, &handoff, &declared_in))
        .filter(|c| {
            let known = by_file.get(c.loc.file.as_str());
            !known.is_some_and(|locs| locs.iter().any(|l| within(&c.loc, l)))
        })
        .collect();
    out.extend(by_flow);
    out.sort_by(|a, b| a.loc.cmp(&b.loc));
    // One literal is one capacity, however many ways it was reached (a named `let` that is also
    // the CPU count's fallback).
    out.dedup_by(|b, a| a.loc == b.loc);
    // Two literals with one site (two `Semaphore::new(..)` in a function, a field set in two
    // constructors) get `#2`, `#3`... in source order, so a manifest entry names exactly one.
    let mut seen: HashMap<String, usize> = HashMap::default();
    for c in &mut out {
        let n = seen.entry(c.site.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            c.site = format!("{}#{n}", c.site);
        }
    }
    (out, flow_idents)
}
