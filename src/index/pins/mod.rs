//! Pins: a test assertion whose literal equals a capacity constant, or a product of capacity
//! constants and small counts, so raising the constant turns the test red. The
//! `pinned-capacity-assertion` rule reports them; `mutants` knows which tests hold one.

use crate::index::facts::Comparison;
use crate::index::names::words;
use crate::index::value::Operand;
use crate::index::{Capacity, Index};

mod callers;
mod trace;

pub(crate) use callers::Source;

/// One assertion that pins capacities: `16 = 2 x PER_BACKEND`.
#[derive(Debug, Clone)]
pub(crate) struct Pin<'a> {
    pub(crate) comparison: &'a Comparison,
    /// The literal the assertion compares with.
    pub(crate) value: u64,
    /// The capacities whose product, times `multiplier`, is the literal.
    pub(crate) factors: Vec<&'a Capacity>,
    pub(crate) multiplier: u64,
    /// What the code divides the capacity by to get the literal (`3 = MAX_NODES / 3`); 1 when
    /// it does not.
    pub(crate) divisor: u64,
    /// How the test's code reaches them (`trace`).
    pub(crate) path: String,
}

/// Every pin of the index, in file order.
pub(crate) fn find(index: &Index) -> Vec<Pin<'_>> {
    let graph = trace::Graph::new(index);
    // A value set in a function only tests call (a `test_config()` helper outside `cfg(test)`)
    // is test set-up: an assertion on it pins nothing.
    let test_only = graph.test_only();
    let within = Within::new(index);
    let all: Vec<&Capacity> = named_capacities(index)
        .into_iter()
        .filter(|cap| within.of(cap).is_none_or(|f| !test_only.contains(f)))
        .collect();
    let mut out = Vec::new();
    let mut packages: rustc_hash::FxHashMap<&str, Caps<'_>> = Default::default();
    for f in &index.files {
        let own = packages
            .entry(f.package.as_str())
            .or_insert_with(|| Caps::new(index, of_package(&all, &f.package)));
        for c in &f.comparisons {
            // A test can only pin what it can reach: its own package's capacities, and of those
            // the ones visible from the test (a private constant only from its own module down).
            let visible = |cap: &Capacity| visible(cap, &c.function);
            // The literal on the left, then on the right (`lit_right`).
            let sides = [(&c.left, &c.right, false), (&c.right, &c.left, true)];
            let found = sides
                .into_iter()
                .filter(|&(_, _, lit_right)| !only_floors(&c.op, lit_right))
                .find_map(|(lit, subject, _)| pin(index, &graph, own, &visible, c, lit, subject));
            if let Some(found) = found {
                out.push(found);
            }
        }
    }
    out
}

/// Whether comparison `op`, with the literal on its right (`lit_right`) or its left, holds
/// whatever the subject rises to: a floor (`config.max_batch >= 32`, `32 <= n`) or an
/// inequality (`assert_ne!(n, 16)`). Raising the capacity never turns such an assertion red, so
/// it pins nothing.
fn only_floors(op: &str, lit_right: bool) -> bool {
    match op {
        "!=" => true,
        ">" | ">=" => lit_right,
        "<" | "<=" => !lit_right,
        _ => false,
    }
}

/// One package's capacities (named, one per item, ascending by value then item) indexed for
/// `explain`: by value, by item, the distinct values, and the package's splits. Built once per
/// package, so each comparison looks its candidates up instead of going through them all.
struct Caps<'a> {
    caps: Vec<&'a Capacity>,
    by_value: rustc_hash::FxHashMap<u64, Vec<usize>>,
    by_item: rustc_hash::FxHashMap<&'a str, Vec<usize>>,
    values: Vec<u64>,
    /// The package's splits (`MAX_NODES / 3`): the capacity's item and the divisor.
    splits: Vec<(String, u64)>,
}

impl<'a> Caps<'a> {
    fn new(index: &Index, caps: Vec<&'a Capacity>) -> Caps<'a> {
        let mut by_value: rustc_hash::FxHashMap<u64, Vec<usize>> = Default::default();
        let mut by_item: rustc_hash::FxHashMap<&'a str, Vec<usize>> = Default::default();
        for (i, c) in caps.iter().enumerate() {
            by_value.entry(c.value).or_default().push(i);
            by_item.entry(c.item.as_str()).or_default().push(i);
        }
        let mut values: Vec<u64> = by_value.keys().copied().collect();
        values.sort_unstable();
        let package = caps.first().map(|c| c.package.as_str());
        let splits = index
            .files
            .iter()
            .filter(|f| Some(f.package.as_str()) == package)
            .flat_map(|f| f.splits.iter().cloned())
            .collect();
        Caps {
            caps,
            by_value,
            by_item,
            values,
            splits,
        }
    }

    /// The indices of the capacities of value `v`, ascending.
    fn of_value(&self, v: u64) -> &[usize] {
        self.by_value.get(&v).map_or(&[][..], Vec::as_slice)
    }

    /// The distinct values that divide `v` (each with its cofactor), ascending: by the divisors of
    /// `v` up to its square root, or by the values there are, whichever is fewer.
    fn divisors_of(&self, v: u64) -> Vec<u64> {
        if v == 0 {
            return Vec::new();
        }
        let root = v.isqrt();
        if (root as usize) < self.values.len() {
            let mut out: Vec<u64> = (1..=root)
                .filter(|d| v % d == 0)
                .flat_map(|d| [d, v / d])
                .filter(|d| self.by_value.contains_key(d))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        } else {
            self.values
                .iter()
                .copied()
                .filter(|&d| d != 0 && v % d == 0)
                .collect()
        }
    }
}

/// The function a capacity's literal is written in, where its site does not say it: a function
/// returning it, or the one building the struct literal that sets the field. The field writes
/// are indexed by location once.
struct Within<'a>(rustc_hash::FxHashMap<&'a crate::source::Loc, &'a str>);

impl<'a> Within<'a> {
    fn new(index: &'a Index) -> Within<'a> {
        Within(
            index
                .files
                .iter()
                .flat_map(|f| &f.fields)
                .map(|x| (&x.loc, x.function.as_str()))
                .collect(),
        )
    }

    fn of(&self, cap: &'a Capacity) -> Option<&'a str> {
        match cap.kind {
            crate::index::CapacityKind::Fn => Some(cap.site.as_str()),
            crate::index::CapacityKind::Field => self.0.get(&cap.loc).copied(),
            _ => None,
        }
    }

    /// Whether the capacity is set in, or below, something named for tests (`TestServer::start`
    /// building a `Config { workers: 4 }`, a `test_config()`): maybe test set-up.
    fn named_for_tests(&self, cap: &'a Capacity) -> bool {
        trace::named_for_tests(&cap.site) || self.of(cap).is_some_and(trace::named_for_tests)
    }
}

/// The index without the capacities set in test helpers outside test code
/// (`Graph::test_only`: a `TestServer::new` only tests and benches call, a `test_config()`):
/// their values are test set-up, as a `#[cfg(test)]` module's are, and nobody measures them.
pub(crate) fn drop_test_support(mut index: Index) -> Index {
    let keep: Vec<bool> = {
        let within = Within::new(&index);
        if !index.capacities.iter().any(|c| within.named_for_tests(c)) {
            return index;
        }
        let graph = trace::Graph::new(&index);
        let test_only = graph.test_only();
        index
            .capacities
            .iter()
            .map(|c| {
                let inside = |f: &str| {
                    c.site == f
                        || c.site
                            .strip_prefix(f)
                            .is_some_and(|rest| rest.starts_with("::"))
                };
                match within.of(c) {
                    Some(f) if c.kind == crate::index::CapacityKind::Field => {
                        !test_only.contains(f)
                    }
                    _ => !test_only.iter().any(|f| inside(f)),
                }
            })
            .collect()
    };
    let mut keep = keep.into_iter();
    index.capacities.retain(|_| keep.next().unwrap_or(true));
    index
}

/// The index without the capacities written in functions only tests call, whatever their name
/// (`callers::only_tests_call`: a server's `RuntimeConfig::high_throughput()` preset that only
/// its tests build): their values are test set-up, as a `#[cfg(test)]` module's are. `source(i)`
/// reads file `i` of the index: the capacities' files, for the functions they sit in, and those
/// where a candidate's name is written.
pub(crate) fn drop_only_tests_call<'s>(
    mut index: Index,
    source: impl Fn(usize) -> Option<Source<'s>> + Sync,
) -> Index {
    use crate::index::CapacityKind as K;
    let file_of: rustc_hash::FxHashMap<&str, usize> = index
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.rel.as_str(), i))
        .collect();
    // Items (`const`, `static`) and attributes sit in no function. A library no binary of
    // the workspace runs is there for its users to call, presets and all (pingora's
    // `Server::new_with_opt_and_conf`, litellm's `presets::prod_server()`).
    // Each capacity asked about, by its index, with its file and place.
    let (asked, at): (Vec<usize>, Vec<(usize, usize, usize)>) = index
        .capacities
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            !matches!(c.kind, K::Const | K::Static | K::Attr) && index.deps.linked(&c.package)
        })
        .filter_map(|(k, c)| {
            let file = *file_of.get(c.loc.file.as_str())?;
            Some((k, (file, c.loc.line, c.loc.column)))
        })
        .unzip();
    if at.is_empty() {
        return index;
    }
    let only = callers::only_tests_call(&at, index.files.len(), source);
    let dropped: rustc_hash::FxHashSet<usize> = asked
        .into_iter()
        .zip(only)
        .filter_map(|(k, o)| o.map(|_| k))
        .collect();
    let mut k = 0;
    index.capacities.retain(|_| {
        k += 1;
        !dropped.contains(&(k - 1))
    });
    index
}

/// Whether code in `from` (a site, `crate::module::fn`) can name the capacity.
fn visible(cap: &Capacity, from: &str) -> bool {
    use crate::index::facts::Visibility;
    let within = |scope: &str| from == scope || from.starts_with(&format!("{scope}::"));
    match &cap.visibility {
        Visibility::Public => true,
        Visibility::Crate => within(cap.site.split("::").next().unwrap_or_default()),
        Visibility::Private(module) => within(module),
    }
}

/// Capacities with a name a test could pin, one per distinct item: not bare API arguments and
/// not `let` bindings (local to their function).
fn named_capacities(index: &Index) -> Vec<&Capacity> {
    use crate::index::CapacityKind;
    let mut caps: Vec<&Capacity> = index
        .capacities
        .iter()
        .filter(|c| {
            !matches!(
                c.kind,
                CapacityKind::ApiArg | CapacityKind::Arg | CapacityKind::Let
            ) && c.value >= 2
                // A reserve (`cpus - 2`) is neither what its item is worth nor a factor of it.
                && !c.is_offset()
        })
        .collect();
    caps.sort_by(|a, b| (a.value, &a.item).cmp(&(b.value, &b.item)));
    caps.dedup_by(|a, b| a.item == b.item && a.value == b.value && a.package == b.package);
    caps
}

/// How a literal is explained by the capacities: `16 = 2 x PER_BACKEND`.
struct Explanation<'a> {
    factors: Vec<&'a Capacity>,
    multiplier: u64,
    /// The share the code splits the capacity into (`MAX_NODES / 3`): 1 when it does not.
    divisor: u64,
}

/// Where an explanation ranks: words shared with the subject (more first), multiplier, phase,
/// capacity index, split index.
type Rank = (std::cmp::Reverse<usize>, u64, u8, usize, usize);

/// The explanations of `v`, best first: the constant whose name shares most words with the
/// compared expression first, then an exact match, then the smallest multiple, then a product of
/// two. Only the capacities `visible` takes count. Candidates are looked up by value (the
/// multiples `v / k`, the divisors of `v`), never searched for among all capacities, so a
/// package with tens of thousands of them costs each comparison little.
fn explain<'a>(
    v: u64,
    own: &Caps<'a>,
    visible: &dyn Fn(&Capacity) -> bool,
    max_k: u64,
    subject: &[String],
) -> Vec<Explanation<'a>> {
    // (words shared, rank, phase, capacity index, split index): the order the candidates were
    // once pushed in (multiples, splits, products, each in capacity order), kept as a sort key.
    let mut candidates: Vec<(Rank, Explanation<'a>)> = Vec::new();
    let related = |c: &Capacity| {
        words(&c.item)
            .iter()
            .filter(|w| w.len() > 2 && subject.contains(w))
            .count()
    };
    let caps = &own.caps;
    // A capacity times k, the smallest k: for a value that divides `v`, k is `v / value`.
    for k in (1..=max_k).filter(|k| v % k == 0) {
        for &i in own.of_value(v / k) {
            let c = caps[i];
            // A 2 is in too many assertions (`num_columns() == 2`): it pins a capacity only
            // when the compared expression shares a word with it.
            if visible(c) && (v > 2 || related(c) > 0) {
                candidates.push((
                    (std::cmp::Reverse(related(c)), k, 0, i, 0),
                    Explanation {
                        factors: vec![c],
                        multiplier: k,
                        divisor: 1,
                    },
                ));
            }
        }
    }
    // The share of a capacity the code splits it into (`MAX_NODES / 3`).
    for (s, (name, k)) in own.splits.iter().enumerate() {
        let Some(v_split) = v.checked_mul(*k) else {
            continue;
        };
        for &i in own
            .by_item
            .get(name.as_str())
            .map_or(&[][..], Vec::as_slice)
        {
            let c = caps[i];
            if c.value == v_split && visible(c) {
                candidates.push((
                    (std::cmp::Reverse(related(c)), max_k + 2, 1, i, s),
                    Explanation {
                        factors: vec![c],
                        multiplier: 1,
                        divisor: *k,
                    },
                ));
            }
        }
    }
    // Products of two: for each capacity `a` whose value divides `v`, the first capacity after
    // it with the cofactor's value. Two different capacities: a square of one constant is a
    // coincidence, not a design.
    for d in own.divisors_of(v) {
        let partners = own.of_value(v / d);
        for &i in own.of_value(d) {
            let a = caps[i];
            if !visible(a) {
                continue;
            }
            let after = partners.partition_point(|&j| j <= i);
            if let Some(b) = partners[after..]
                .iter()
                .map(|&j| caps[j])
                .find(|b| b.item != a.item && visible(b))
            {
                candidates.push((
                    (
                        std::cmp::Reverse(related(a) + related(b)),
                        max_k + 1,
                        2,
                        i,
                        0,
                    ),
                    Explanation {
                        factors: vec![a, b],
                        multiplier: 1,
                        divisor: 1,
                    },
                ));
            }
        }
    }
    candidates.sort_by_key(|(key, _)| *key);
    candidates.into_iter().map(|(_, e)| e).collect()
}

fn pin<'a>(
    index: &Index,
    graph: &trace::Graph,
    caps: &Caps<'a>,
    visible: &dyn Fn(&Capacity) -> bool,
    c: &'a Comparison,
    lit: &Operand,
    subject: &Operand,
) -> Option<Pin<'a>> {
    let v = lit.val.literal()?;
    // Of the capacities whose arithmetic gives the literal, the first the test's code reaches
    // (`trace`), with the path the value took; one the test cannot reach is never the answer.
    let (e, path) = explanations(index, caps, visible, lit, subject)
        .into_iter()
        .find_map(|e| {
            Some((
                trace::reach(graph, c, subject, (&e.factors, e.multiplier), v)?,
                e,
            ))
        })
        .map(|(path, e)| (e, path))?;
    Some(Pin {
        comparison: c,
        value: v,
        factors: e.factors,
        multiplier: e.multiplier,
        divisor: e.divisor,
        path,
    })
}

/// The capacities of one package.
fn of_package<'a>(all: &[&'a Capacity], package: &str) -> Vec<&'a Capacity> {
    all.iter()
        .copied()
        .filter(|c| c.package == package)
        .collect()
}

/// The explanations of a literal compared with a capacity-speaking subject, best first; none
/// when the literal is under 2, the subject is a literal too or speaks of no capacity.
fn explanations<'a>(
    index: &Index,
    caps: &Caps<'a>,
    visible: &dyn Fn(&Capacity) -> bool,
    lit: &Operand,
    subject: &Operand,
) -> Vec<Explanation<'a>> {
    let t = index.tables();
    match lit.val.literal() {
        Some(v)
            if v >= 2
                && subject.val.literal().is_none()
                && t.subject_words.matches_words(&subject.words) =>
        {
            explain(v, caps, visible, t.max_multiplier, &subject.words)
        }
        _ => Vec::new(),
    }
}

/// A site's segment that names a type for tests (`DbmsMock`, `TestServer`): capitalised and
/// named so.
fn test_type_segment(seg: &str) -> bool {
    seg.starts_with(char::is_uppercase) && trace::segment_for_tests(seg)
}

/// The packages with a comparison that some capacity's arithmetic explains: only their call
/// graph is needed to decide which of those are pins.
pub(crate) fn packages_to_trace(index: &Index) -> std::collections::BTreeSet<String> {
    let all: Vec<&Capacity> = named_capacities(index);
    // A capacity set in a function named for tests may be test set-up (`drop_test_support`):
    // who calls it is in its package's call graph.
    let within = Within::new(index);
    let mut out: std::collections::BTreeSet<String> = index
        .capacities
        .iter()
        .filter(|c| within.named_for_tests(c))
        .map(|c| c.package.clone())
        .collect();
    // One set in a type named for tests (`DbmsMock::permits`) is test set-up when only test
    // code names the type (`trace::Graph::test_only`), and the packages that depend on its own
    // may name it.
    let typed: std::collections::BTreeSet<&str> = index
        .capacities
        .iter()
        .filter(|c| c.site.split("::").skip(1).any(test_type_segment))
        .map(|c| c.package.as_str())
        .collect();
    if !typed.is_empty() {
        let packages: std::collections::BTreeSet<&str> =
            index.files.iter().map(|f| f.package.as_str()).collect();
        out.extend(
            packages
                .into_iter()
                .filter(|p| typed.iter().any(|t| index.deps.depends(p, t)))
                .map(str::to_string),
        );
    }
    let mut packages: rustc_hash::FxHashMap<&str, Caps<'_>> = Default::default();
    for f in &index.files {
        if out.contains(&f.package) {
            continue;
        }
        let caps = packages
            .entry(f.package.as_str())
            .or_insert_with(|| Caps::new(index, of_package(&all, &f.package)));
        let any = |_: &Capacity| true;
        let explained =
            |a: &Operand, b: &Operand| !explanations(index, caps, &any, a, b).is_empty();
        if f.comparisons
            .iter()
            .any(|c| explained(&c.left, &c.right) || explained(&c.right, &c.left))
        {
            out.insert(f.package.clone());
        }
    }
    out
}
