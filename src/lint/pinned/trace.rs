//! Whether a test's code reaches a capacity, and by which path: the asserted expression names
//! it, or a function the test calls reads it (following the call graph's nodes, by name, a few
//! calls deep). A capacity of the right value that the test cannot reach is a coincidence, never
//! a pin.

use std::collections::{BTreeSet, HashMap};

use crate::index::facts::{Comparison, FieldInit, FnNode};
use crate::index::value::Operand;
use crate::index::{Capacity, Index};

/// How many calls deep a test's reach is followed.
const DEPTH: usize = 4;

/// Method names so common that a call of one says nothing about its type: such a method is
/// only followed when its type is named too (`Config::default()`, not any `default`).
const COMMON: &[&str] = &[
    "default",
    "new",
    "from",
    "into",
    "clone",
    "fmt",
    "eq",
    "ne",
    "cmp",
    "partial_cmp",
    "hash",
    "drop",
    "deref",
    "deref_mut",
    "as_ref",
    "borrow",
    "build",
    "builder",
    "get",
    "len",
    "iter",
    "next",
    "poll",
    "call",
    "run",
    "try_from",
    "to_string",
    "with_capacity",
];

/// What tracing reads, gathered once per `check`: the call graph's nodes, each function by its
/// site, and the production field initialisers by field name.
pub struct Graph<'a> {
    nodes: Vec<&'a FnNode>,
    by_site: HashMap<&'a str, &'a FnNode>,
    sets: HashMap<&'a str, Vec<&'a FieldInit>>,
    /// Each function's package, by site.
    package: HashMap<&'a str, &'a str>,
    /// The integer literals of every assertion of a function, by its site.
    asserted: HashMap<&'a str, Vec<u64>>,
}

impl<'a> Graph<'a> {
    pub fn new(index: &'a Index) -> Self {
        let nodes: Vec<&FnNode> = index.files.iter().flat_map(|f| &f.fns).collect();
        let package = index
            .files
            .iter()
            .flat_map(|f| f.fns.iter().map(|n| (n.site.as_str(), f.package.as_str())))
            .collect();
        let by_site = nodes.iter().map(|n| (n.site.as_str(), *n)).rev().collect();
        let mut sets: HashMap<&str, Vec<&FieldInit>> = HashMap::new();
        for x in index
            .files
            .iter()
            .flat_map(|f| &f.fields)
            .filter(|x| !x.in_test)
        {
            sets.entry(x.field.as_str()).or_default().push(x);
        }
        let mut asserted: HashMap<&str, Vec<u64>> = HashMap::new();
        for c in index.files.iter().flat_map(|f| &f.comparisons) {
            asserted
                .entry(c.function.as_str())
                .or_default()
                .extend(FnNode::literals(&c.text));
        }
        Graph {
            nodes,
            by_site,
            sets,
            package,
            asserted,
        }
    }
}

/// The path from the test to every factor, or `None` when the test cannot reach one of them.
/// A multiplier (`16 = 2 x PER_BACKEND`) must be a count the test passes in or the reached code
/// holds.
pub fn reach(
    graph: &Graph,
    c: &Comparison,
    subject: &Operand,
    factors: &[&Capacity],
    multiplier: u64,
) -> Option<String> {
    let test = *graph.by_site.get(c.function.as_str())?;
    let (asserted, _) = FnNode::mentions(&subject.text);
    // `cfg.max_conns == 10`: when the code sets the asserted field, the capacity must be what it
    // sets it to, not another number of the same value nearby.
    if let Some(field) = last_ident(&subject.text) {
        let sets = graph
            .sets
            .get(field.as_str())
            .map_or(&[][..], Vec::as_slice);
        if !sets.is_empty()
            && !factors
                .iter()
                .any(|cap| sets.iter().any(|x| sets_to(x, cap)))
        {
            return None;
        }
    }
    // A number the test writes itself besides in its assertions (`config.events_per_second =
    // 1000`, `SlotPool::new(64)`, `.workers(2)`) may be where the asserted value comes from: the
    // value is the test's own, whatever constant shares it.
    let value = factors.iter().map(|f| f.value).product::<u64>() * multiplier;
    let in_assertions = graph
        .asserted
        .get(c.function.as_str())
        .map_or(&[][..], Vec::as_slice);
    let own = |x: u64| {
        let count = |lits: &[u64]| lits.iter().filter(|&&y| y == x).count();
        count(&test.lits) > count(in_assertions)
    };
    if own(value) || factors.iter().any(|f| own(f.value)) {
        return None;
    }
    let mut paths = Vec::new();
    let mut ints: BTreeSet<u64> = test.ints.clone();
    // Read by the assertion itself, the arithmetic is the assertion's own (`n * 2 <= 128`).
    let mut direct = true;
    // Where each factor is read: a product of two constants is a design only where one
    // function reads both (`workers * per_worker`), not two far-apart numbers that multiply
    // to the literal.
    let mut readers = BTreeSet::new();
    for cap in factors {
        if asserted.contains(&cap.item) {
            paths.push(format!("the assertion reads `{}`", cap.item));
            readers.insert(c.function.clone());
            continue;
        }
        direct = false;
        if test.idents.contains(&cap.item) {
            paths.push(format!("the test reads `{}`", cap.item));
            readers.insert(c.function.clone());
            continue;
        }
        let (path, seen, reader) = search(graph, test, &cap.item)?;
        // The reached code yields the asserted number itself (`if n <= 2 { 16 } else { 8 }`):
        // the value may be that literal's, whichever branch reads the constant.
        if seen.values.contains(&value) {
            return None;
        }
        ints.extend(seen.ints);
        paths.push(path);
        readers.insert(reader);
    }
    if readers.len() > 1 {
        return None;
    }
    // The count is one the test passes or the reached code holds, and not the capacity's own
    // literal met on the way (`64 = 8 x batch_size` where `batch_size: 8` is the 8).
    let own_literal = factors.iter().any(|f| f.value == multiplier);
    if multiplier > 1
        && !direct
        && (!ints.contains(&multiplier) || (own_literal && !test.ints.contains(&multiplier)))
    {
        return None;
    }
    let mut out = paths.join("; ");
    if multiplier > 1 && !direct {
        out.push_str(&format!("; {multiplier} is a count the test's code passes"));
    }
    Some(out)
}

/// The last identifier of an expression's text (`ServerConfig::from(&set).max_conns` ->
/// `max_conns`).
fn last_ident(text: &str) -> Option<String> {
    use ra_ap_rustc_lexer::{FrontmatterAllowed, TokenKind, tokenize};
    let mut at = 0;
    let mut last = None;
    for t in tokenize(text, FrontmatterAllowed::No) {
        if t.kind == TokenKind::Ident {
            last = Some(text[at..at + t.len as usize].to_string());
        }
        at += t.len as usize;
    }
    last
}

/// Whether a field initialiser sets the field to the capacity: its literal, or an expression
/// naming it.
fn sets_to(x: &FieldInit, cap: &Capacity) -> bool {
    use crate::index::value::Val;
    fn names(v: &Val, item: &str) -> bool {
        match v {
            Val::Const(n) | Val::Field(n) => n == item,
            Val::Bin(_, a, b) | Val::Min(a, b) | Val::Max(a, b) => names(a, item) || names(b, item),
            Val::Lit(_) | Val::Other => false,
        }
    }
    x.loc == cap.loc || names(&x.val, &cap.item)
}

/// A breadth-first search from the test's own names to a function that mentions `item`: the
/// path (`test` -> `observe` -> `Config::default`, which reads `PER_BACKEND`) and the integer
/// literals of the functions on it.
fn search(graph: &Graph, test: &FnNode, item: &str) -> Option<(String, Seen, String)> {
    let mut parent: HashMap<&str, Option<&FnNode>> = HashMap::new();
    parent.insert(test.site.as_str(), None);
    let mut frontier: Vec<&FnNode> = vec![test];
    for _ in 0..DEPTH {
        let mut next = Vec::new();
        for from in &frontier {
            for n in graph
                .nodes
                .iter()
                .copied()
                .filter(|n| calls(graph, from, n))
            {
                if parent.contains_key(n.site.as_str()) {
                    continue;
                }
                parent.insert(n.site.as_str(), Some(from));
                if n.idents.contains(item) {
                    let (p, ints) = path(&parent, n, item);
                    return Some((p, ints, n.site.clone()));
                }
                next.push(n);
            }
        }
        frontier = next;
    }
    None
}

/// Whether `from` calls `to`, as far as names tell: a method call (`.f(`) only reaches a method,
/// an unqualified call (`f(`) only a free function, and a qualified one (`Q::f(`) an associated
/// function of `Q` (or `Self`'s) or a free function of a module `Q`. A test function is called
/// by no code, and a library's code calls no other target of its package (benches, tests,
/// examples, binaries).
fn calls(graph: &Graph, from: &FnNode, to: &FnNode) -> bool {
    if to.is_test || !linked(graph, from, to) {
        return false;
    }
    let name = to.name.as_str();
    match &to.self_ty {
        Some(ty) => {
            let named_type = from.idents.contains(ty);
            let method = to.has_self
                && from.methods.contains(name)
                && (!COMMON.contains(&name) || named_type);
            let own = |q: &str| q == ty || (q == "Self" && from.self_ty.as_ref() == Some(ty));
            let qualified = from.calls.iter().any(|c| {
                c.strip_suffix(name)
                    .and_then(|q| q.strip_suffix("::"))
                    .is_some_and(|q| own(q) || (q.is_empty() && !COMMON.contains(&name)))
            });
            method || qualified
        }
        None => {
            let module = to.site.rsplit("::").nth(1).unwrap_or_default();
            [module, "super", "self", "crate"]
                .iter()
                .any(|q| from.calls.contains(&format!("{q}::{name}")))
                || from.calls.contains(name)
        }
    }
}

/// Whether code of `from`'s crate can call into `to`'s: the same crate, the package's library,
/// or (from a test, bench, example or binary) another of the package's targets.
fn linked(graph: &Graph, from: &FnNode, to: &FnNode) -> bool {
    let krate = |n: &FnNode| n.site.split("::").next().unwrap_or_default().to_string();
    let (a, b) = (krate(from), krate(to));
    if a == b {
        return true;
    }
    let (Some(pa), Some(pb)) = (
        graph.package.get(from.site.as_str()),
        graph.package.get(to.site.as_str()),
    ) else {
        return false;
    };
    let lib = pa.replace('-', "_");
    pa == pb && (b == lib || a != lib)
}

/// The literals of the functions on a path, the test's own left out of `values`.
struct Seen {
    ints: BTreeSet<u64>,
    values: BTreeSet<u64>,
}

fn path(parent: &HashMap<&str, Option<&FnNode>>, last: &FnNode, item: &str) -> (String, Seen) {
    let mut chain = vec![last];
    let mut at = last;
    while let Some(Some(p)) = parent.get(at.site.as_str()) {
        chain.push(p);
        at = p;
    }
    chain.reverse();
    let ints = chain.iter().flat_map(|n| n.ints.iter().copied()).collect();
    let values = chain[1..]
        .iter()
        .flat_map(|n| n.values.iter().copied())
        .collect();
    let names: Vec<String> = chain
        .iter()
        .map(|n| match &n.self_ty {
            Some(t) => format!("`{t}::{}`", n.name),
            None => format!("`{}`", n.name),
        })
        .collect();
    (
        format!("{}, which reads `{item}`", names.join(" -> ")),
        Seen { ints, values },
    )
}
