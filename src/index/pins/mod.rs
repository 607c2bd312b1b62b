//! Pins: a test assertion whose literal equals a capacity constant, or a product of capacity
//! constants and small counts, so raising the constant turns the test red. The
//! `pinned-capacity-assertion` rule reports them; `mutants` knows which tests hold one.

use crate::index::facts::Comparison;
use crate::index::names::words;
use crate::index::value::Operand;
use crate::index::{Capacity, Index};

mod trace;

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
    let all: Vec<&Capacity> = named_capacities(index)
        .into_iter()
        .filter(|cap| within(index, cap).is_none_or(|f| !test_only.contains(f)))
        .collect();
    let mut out = Vec::new();
    for f in &index.files {
        let own = of_package(&all, &f.package);
        for c in &f.comparisons {
            // A test can only pin what it can reach: its own package's capacities, and of those
            // the ones visible from the test (a private constant only from its own module down).
            let caps: Vec<&Capacity> = own
                .iter()
                .copied()
                .filter(|cap| visible(cap, &c.function))
                .collect();
            if let Some(found) = pin(index, &graph, &caps, c, &c.left, &c.right)
                .or_else(|| pin(index, &graph, &caps, c, &c.right, &c.left))
            {
                out.push(found);
            }
        }
    }
    out
}

/// The function a capacity's literal is written in, where its site does not say it: a function
/// returning it, or the one building the struct literal that sets the field.
fn within<'a>(index: &'a Index, cap: &'a Capacity) -> Option<&'a str> {
    match cap.kind {
        crate::index::CapacityKind::Fn => Some(cap.site.as_str()),
        crate::index::CapacityKind::Field => index
            .files
            .iter()
            .flat_map(|f| &f.fields)
            .find(|x| x.loc == cap.loc)
            .map(|x| x.function.as_str()),
        _ => None,
    }
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

/// The explanations of `v`, best first: the constant whose name shares most words with the
/// compared expression first, then an exact match, then the smallest multiple, then a product of
/// two.
fn explain<'a>(
    v: u64,
    caps: &[&'a Capacity],
    (max_k, splits): (u64, &[(String, u64)]),
    subject: &[String],
) -> Vec<Explanation<'a>> {
    let mut candidates: Vec<(usize, u64, Explanation<'a>)> = Vec::new();
    let related = |c: &Capacity| {
        words(&c.item)
            .iter()
            .filter(|w| w.len() > 2 && subject.contains(w))
            .count()
    };
    for c in caps {
        if let Some(k) = (1..=max_k).find(|k| c.value.checked_mul(*k) == Some(v)) {
            candidates.push((
                related(c),
                k,
                Explanation {
                    factors: vec![c],
                    multiplier: k,
                    divisor: 1,
                },
            ));
        }
    }
    // The share of a capacity the code splits it into (`MAX_NODES / 3`).
    for c in caps {
        for (_, k) in splits.iter().filter(|(name, _)| *name == c.item) {
            if c.value % k == 0 && c.value / k == v {
                candidates.push((
                    related(c),
                    max_k + 2,
                    Explanation {
                        factors: vec![c],
                        multiplier: 1,
                        divisor: *k,
                    },
                ));
            }
        }
    }
    for (i, a) in caps.iter().enumerate() {
        // Two different capacities: a square of one constant is a coincidence, not a design.
        if let Some(b) = caps[i + 1..]
            .iter()
            .find(|b| b.item != a.item && a.value.checked_mul(b.value) == Some(v))
        {
            let rel = related(a) + related(b);
            candidates.push((
                rel,
                max_k + 1,
                Explanation {
                    factors: vec![a, b],
                    multiplier: 1,
                    divisor: 1,
                },
            ));
        }
    }
    candidates.sort_by_key(|(rel, k, _)| (std::cmp::Reverse(*rel), *k));
    candidates.into_iter().map(|(_, _, e)| e).collect()
}

fn pin<'a>(
    index: &Index,
    graph: &trace::Graph,
    caps: &[&'a Capacity],
    c: &'a Comparison,
    lit: &Operand,
    subject: &Operand,
) -> Option<Pin<'a>> {
    let v = lit.val.literal()?;
    // Of the capacities whose arithmetic gives the literal, the first the test's code reaches
    // (`trace`), with the path the value took; one the test cannot reach is never the answer.
    let (e, path) = explanations(index, caps, lit, subject)
        .into_iter()
        .find_map(|e| {
            Some((
                trace::reach(graph, c, subject, &e.factors, e.multiplier)?,
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
    caps: &[&'a Capacity],
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
            let package = caps.first().map(|c| c.package.as_str());
            let splits: Vec<(String, u64)> = index
                .files
                .iter()
                .filter(|f| Some(f.package.as_str()) == package)
                .flat_map(|f| f.splits.iter().cloned())
                .collect();
            explain(v, caps, (t.max_multiplier, &splits), &subject.words)
        }
        _ => Vec::new(),
    }
}

/// The packages with a comparison that some capacity's arithmetic explains: only their call
/// graph is needed to decide which of those are pins.
pub(crate) fn packages_to_trace(index: &Index) -> std::collections::BTreeSet<String> {
    let all: Vec<&Capacity> = named_capacities(index);
    let mut out = std::collections::BTreeSet::new();
    for f in &index.files {
        let caps = of_package(&all, &f.package);
        let explained = |a: &Operand, b: &Operand| !explanations(index, &caps, a, b).is_empty();
        if f.comparisons
            .iter()
            .any(|c| explained(&c.left, &c.right) || explained(&c.right, &c.left))
        {
            out.insert(f.package.clone());
        }
    }
    out
}
