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
}

impl<'a> Graph<'a> {
    pub fn new(index: &'a Index) -> Self {
        let nodes: Vec<&FnNode> = index.files.iter().flat_map(|f| &f.fns).collect();
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
        Graph {
            nodes,
            by_site,
            sets,
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
    let nodes = &graph.nodes;
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
    let mut paths = Vec::new();
    let mut ints: BTreeSet<u64> = test.ints.clone();
    // Read by the assertion itself, the arithmetic is the assertion's own (`n * 2 <= 128`).
    let mut direct = true;
    for cap in factors {
        if asserted.contains(&cap.item) {
            paths.push(format!("the assertion reads `{}`", cap.item));
            continue;
        }
        direct = false;
        if test.idents.contains(&cap.item) {
            paths.push(format!("the test reads `{}`", cap.item));
            continue;
        }
        let (path, seen) = search(nodes, test, &cap.item)?;
        ints.extend(seen);
        paths.push(path);
    }
    if multiplier > 1 && !direct && !ints.contains(&multiplier) {
        return None;
    }
    let mut out = paths.join("; ");
    if multiplier > 1 {
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
fn search(nodes: &[&FnNode], test: &FnNode, item: &str) -> Option<(String, BTreeSet<u64>)> {
    let mut parent: HashMap<&str, Option<&FnNode>> = HashMap::new();
    parent.insert(test.site.as_str(), None);
    let mut frontier: Vec<&FnNode> = vec![test];
    for _ in 0..DEPTH {
        let mut next = Vec::new();
        for from in &frontier {
            for n in nodes.iter().copied().filter(|n| calls(from, n)) {
                if parent.contains_key(n.site.as_str()) {
                    continue;
                }
                parent.insert(n.site.as_str(), Some(from));
                if n.idents.contains(item) {
                    return Some(path(&parent, n, item));
                }
                next.push(n);
            }
        }
        frontier = next;
    }
    None
}

/// Whether `from` names `to` as something it calls.
fn calls(from: &FnNode, to: &FnNode) -> bool {
    from.idents.contains(&to.name)
        && (to.self_ty.is_none()
            || !COMMON.contains(&to.name.as_str())
            || to.self_ty.as_ref().is_some_and(|t| from.idents.contains(t)))
}

fn path(
    parent: &HashMap<&str, Option<&FnNode>>,
    last: &FnNode,
    item: &str,
) -> (String, BTreeSet<u64>) {
    let mut chain = vec![last];
    let mut at = last;
    while let Some(Some(p)) = parent.get(at.site.as_str()) {
        chain.push(p);
        at = p;
    }
    chain.reverse();
    let ints = chain.iter().flat_map(|n| n.ints.iter().copied()).collect();
    let names: Vec<String> = chain
        .iter()
        .map(|n| match &n.self_ty {
            Some(t) => format!("`{t}::{}`", n.name),
            None => format!("`{}`", n.name),
        })
        .collect();
    (
        format!("{}, which reads `{item}`", names.join(" -> ")),
        ints,
    )
}
