//! Compile once: every runtime mutant is written into one instrumented copy of its file, behind
//! a `match` on the mutant the environment names, so one build serves every mutant.
//!
//! A site (one byte range, with every mutant of that range) becomes
//! `match crate::__capcheck_mutants::id(SITE) { K1 => REPLACEMENT1, .., _ => ORIGINAL }`, where
//! `K` is the mutant's number (`CAPCHECK_MUTANT=K` selects it; 0 or unset is the baseline) and
//! sites nested inside the original are instrumented the same way. `id` also records the first
//! time each site is reached when `CAPCHECK_HITS` names a file: that is how the traced baseline
//! learns which tests reach which sites. Every target root of the selected packages gets the
//! small `__capcheck_mutants` module appended; the user's crate gets no dependency.
//!
//! rustc decides what the instrumentation cannot: `attribute` maps the errors of an instrumented
//! build back to the mutants whose arm they fall in (those are unviable) and to the sites whose
//! scaffolding they fall in (those go back to the rebuild path).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::operators::mutant::{Context, Mutant};

/// The environment variable that selects the active mutant (its number, 1-based; 0: none).
pub(crate) const ENV: &str = "CAPCHECK_MUTANT";
/// The environment variable naming the file where reached sites are appended, one per line.
pub(crate) const HITS_ENV: &str = "CAPCHECK_HITS";
/// The module appended to every target root.
pub(crate) const MODULE: &str = "__capcheck_mutants";

/// The switch of one mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Switch {
    /// The sites whose reach decides which tests run the mutant: one, or one per use of a
    /// switched constant.
    pub(crate) sites: Vec<u32>,
    /// `CAPCHECK_MUTANT=number` turns it on.
    pub(crate) number: u32,
}

/// One instrumented file.
#[derive(Debug, Clone)]
pub(crate) struct FilePlan {
    pub(crate) text: String,
    /// Each mutant's arm in the instrumented text.
    arms: Vec<(Range<usize>, usize)>,
    /// Each site's whole rendering in the instrumented text, with its mutants.
    scaffolds: Vec<(Range<usize>, Vec<usize>)>,
}

/// The instrumentation of a run: which mutants are switched, and the files that do it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    pub(crate) files: BTreeMap<String, FilePlan>,
    /// By mutant index: its switch, or `None` for the rebuild path.
    pub(crate) switches: Vec<Option<Switch>>,
    pub(crate) sites: usize,
}

impl Plan {
    pub(crate) fn switched(&self) -> usize {
        self.switches.iter().flatten().count()
    }
}

/// One arm to write: mutant `mutant` replaces `range` of its file with `arm` when active.
struct Entry<'m> {
    range: Range<usize>,
    mutant: usize,
    arm: &'m str,
}

/// Plan the instrumentation of `mutants`. `text` gives each file's text (by relative path);
/// `rebuild` holds mutants that must not be switched (rustc rejected their switch before);
/// `roots` are the target roots that get the module. A runtime mutant is switched where it is
/// written; a mutant of a constant (`Context::Uses`), at every use of the constant.
pub(crate) fn plan(
    mutants: &[Mutant],
    text: &dyn Fn(&str) -> Option<String>,
    rebuild: &BTreeSet<usize>,
    roots: &[String],
) -> Plan {
    let mut by_file: BTreeMap<&str, Vec<Entry>> = BTreeMap::new();
    for (i, m) in mutants.iter().enumerate() {
        if rebuild.contains(&i) {
            continue;
        }
        match (&m.context, &m.at_uses) {
            (Context::Runtime, _) if inside(&m.file) => {
                by_file.entry(m.file.as_str()).or_default().push(Entry {
                    range: m.range(),
                    mutant: i,
                    arm: &m.replacement,
                })
            }
            (Context::Uses, Some(at)) if at.uses.iter().all(|u| inside(&u.file)) => {
                for u in &at.uses {
                    by_file.entry(u.file.as_str()).or_default().push(Entry {
                        range: u.byte_range.0..u.byte_range.1,
                        mutant: i,
                        arm: &at.arm,
                    });
                }
            }
            _ => {}
        }
    }
    let mut plan = Plan {
        switches: vec![None; mutants.len()],
        ..Plan::default()
    };
    let mut next_site = 0u32;
    let mut files = Vec::new();
    for (file, entries) in by_file {
        let Some(src) = text(file) else { continue };
        files.push((file, src, entries));
    }
    // A constant is switched at all its uses or none: one that lost a use (a file that could not
    // be read, an overlapping site) keeps the rebuild path.
    let mut placed = vec![0usize; mutants.len()];
    let mut kept: Vec<(&str, &String, Vec<Node>)> = Vec::new();
    for (file, src, entries) in &files {
        let nodes = tree(mutants, entries, src);
        count(&nodes, &mut placed);
        kept.push((file, src, nodes));
    }
    let whole = |i: usize| match &mutants[i].at_uses {
        Some(at) if mutants[i].context == Context::Uses => placed[i] == at.uses.len(),
        _ => placed[i] == 1,
    };
    for (file, src, mut nodes) in kept {
        prune(&mut nodes, &whole);
        if nodes.is_empty() {
            continue;
        }
        let mut r = Render {
            src,
            out: String::with_capacity(src.len() * 2),
            arms: Vec::new(),
            scaffolds: Vec::new(),
            plan: &mut plan,
            next_site: &mut next_site,
        };
        r.span(0..src.len(), &nodes);
        let (text, arms, scaffolds) = (r.out, r.arms, r.scaffolds);
        plan.files.insert(
            file.to_string(),
            FilePlan {
                text,
                arms,
                scaffolds,
            },
        );
    }
    plan.sites = next_site as usize;
    if plan.switched() == 0 {
        return Plan {
            switches: vec![None; mutants.len()],
            ..Plan::default()
        };
    }
    let module = module_source(plan.sites);
    for root in roots.iter().filter(|r| inside(r)) {
        let entry = match plan.files.remove(root) {
            Some(f) => f,
            None => match text(root) {
                Some(t) => FilePlan {
                    text: t,
                    arms: Vec::new(),
                    scaffolds: Vec::new(),
                },
                None => continue,
            },
        };
        let mut entry = entry;
        entry.text.push_str(&module);
        plan.files.insert(root.clone(), entry);
    }
    plan
}

/// How many sites each mutant has in `nodes`.
fn count(nodes: &[Node], placed: &mut [usize]) {
    for n in nodes {
        for (i, _) in &n.arms {
            placed[*i] += 1;
        }
        count(&n.children, placed);
    }
}

/// Drop the arms of mutants that are not placed whole, and sites left with no arm (their
/// children take their place).
fn prune(nodes: &mut Vec<Node>, whole: &dyn Fn(usize) -> bool) {
    let mut out = Vec::with_capacity(nodes.len());
    for mut n in nodes.drain(..) {
        prune(&mut n.children, whole);
        n.arms.retain(|(i, _)| whole(*i));
        if n.arms.is_empty() {
            out.append(&mut n.children);
        } else {
            out.push(n);
        }
    }
    *nodes = out;
}

/// Whether a path is relative and stays below the workspace root: only such files are written
/// (into the scratch copy); a target root elsewhere (`[lib] path = "../x.rs"`) is never touched.
fn inside(rel: &str) -> bool {
    let p = std::path::Path::new(rel);
    p.is_relative()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// A site: one byte range, its mutants with their arms, the sites nested in it.
struct Node {
    range: Range<usize>,
    arms: Vec<(usize, String)>,
    children: Vec<Node>,
}

/// Sites by start, outer first: (start, reversed end).
type SiteKey = (usize, std::cmp::Reverse<usize>);

/// The sites of one file as a tree by containment. A site that overlaps another without
/// containing it, or that is not valid text, keeps the rebuild path.
fn tree(mutants: &[Mutant], entries: &[Entry], src: &str) -> Vec<Node> {
    let mut sites: BTreeMap<SiteKey, Vec<(usize, String)>> = BTreeMap::new();
    for e in entries {
        let m = &mutants[e.mutant];
        let Some(original) = src.get(e.range.clone()) else {
            continue;
        };
        let valid = match m.context {
            // A path naming the constant (`PER_BACKEND`, `crate::config::PER_BACKEND`).
            Context::Uses => original
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':'),
            _ => original == m.original,
        };
        if !valid || e.range.is_empty() {
            continue;
        }
        sites
            .entry((e.range.start, std::cmp::Reverse(e.range.end)))
            .or_default()
            .push((e.mutant, e.arm.to_string()));
    }
    // Outer before inner: a stack of open sites.
    let mut roots: Vec<Node> = Vec::new();
    let mut stack: Vec<Node> = Vec::new();
    for ((start, std::cmp::Reverse(end)), arms) in sites {
        let node = Node {
            range: start..end,
            arms,
            children: Vec::new(),
        };
        while let Some(top) = stack.last() {
            if top.range.end <= start {
                let done = stack.pop().expect("non-empty");
                push(&mut stack, &mut roots, done);
            } else {
                break;
            }
        }
        if let Some(top) = stack.last()
            && end > top.range.end
        {
            // Overlaps the open site without being inside it: not switchable here.
            continue;
        }
        stack.push(node);
    }
    while let Some(done) = stack.pop() {
        push(&mut stack, &mut roots, done);
    }
    roots
}

fn push(stack: &mut [Node], roots: &mut Vec<Node>, node: Node) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None => roots.push(node),
    }
}

struct Render<'a> {
    src: &'a str,
    out: String,
    arms: Vec<(Range<usize>, usize)>,
    scaffolds: Vec<(Range<usize>, Vec<usize>)>,
    plan: &'a mut Plan,
    next_site: &'a mut u32,
}

impl Render<'_> {
    /// Copy `range` of the source, rendering the sites in it.
    fn span(&mut self, range: Range<usize>, nodes: &[Node]) {
        let mut at = range.start;
        for n in nodes {
            self.out.push_str(&self.src[at..n.range.start]);
            // What follows the site inside what encloses it (nothing: the enclosing arm ends).
            let next = self.src[n.range.end..range.end].trim_start().chars().next();
            self.node(n, next);
            at = n.range.end;
        }
        self.out.push_str(&self.src[at..range.end]);
    }

    /// `next`: the first character after the site, within what encloses it.
    fn node(&mut self, n: &Node, next: Option<char>) {
        let site = *self.next_site;
        *self.next_site += 1;
        let original = &self.src[n.range.clone()];
        let replacements: Vec<&str> = n.arms.iter().map(|(_, a)| a.as_str()).collect();
        let form = Form::of(original, &replacements, next);
        let start = self.out.len();
        self.out.push_str(form.open());
        self.out
            .push_str(&format!("match crate::{MODULE}::id({site}) {{ "));
        for (i, replacement) in &n.arms {
            let i = *i;
            let number = i as u32 + 1;
            let switch = self.plan.switches[i].get_or_insert_with(|| Switch {
                sites: Vec::new(),
                number,
            });
            switch.sites.push(site);
            self.out.push_str(&format!("{number} => "));
            let arm = self.out.len();
            if form == Form::Statement {
                self.out.push_str(&format!("{{ {replacement} }}"));
            } else {
                self.out.push_str(replacement);
            }
            self.arms.push((arm..self.out.len(), i));
            self.out.push_str(", ");
        }
        self.out.push_str("_ => ");
        if form == Form::Statement {
            self.out.push_str("{ ");
        }
        self.span(n.range.clone(), &n.children);
        if form == Form::Statement {
            self.out.push_str(" }");
        }
        self.out.push_str(" }");
        self.out.push_str(form.close());
        self.scaffolds.push((
            start..self.out.len(),
            n.arms.iter().map(|(i, _)| *i).collect(),
        ));
    }
}

/// How a site's `match` is written so it parses where the original stood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// An expression: bare, or in parentheses at the start of a statement it does not end.
    Expr { parens: bool },
    /// A block (a function body, a block the mutant replaces): the `match` inside braces.
    Block,
    /// A statement some mutant deletes: every arm a block.
    Statement,
}

impl Form {
    /// A `match` that anything but a separator or a closing bracket follows goes in parentheses:
    /// a statement or a match arm that starts with one ends at its `}` (`match .. {}.min(c)`,
    /// `=> match .. {} + 1`, `let .. = match .. {} else`), and parentheses before `, ; ) ] }` or
    /// an `if` condition's `{` would draw `unused_parens`.
    fn of(original: &str, replacements: &[&str], next: Option<char>) -> Form {
        let block = |t: &str| t.starts_with('{') && t.ends_with('}');
        if replacements.iter().any(|r| r.trim().is_empty()) {
            Form::Statement
        } else if block(original) && replacements.iter().all(|r| block(r)) {
            Form::Block
        } else {
            Form::Expr {
                parens: !matches!(next, None | Some(',' | ';' | ')' | ']' | '}' | '{')),
            }
        }
    }

    fn open(self) -> &'static str {
        match self {
            Form::Expr { parens: true } => "(",
            Form::Block => "{ ",
            _ => "",
        }
    }

    fn close(self) -> &'static str {
        match self {
            Form::Expr { parens: true } => ")",
            Form::Block => " }",
            _ => "",
        }
    }
}

/// The module every target root gets: the active mutant, read once, and the reach record.
pub(crate) fn module_source(sites: usize) -> String {
    format!(
        r#"

#[doc(hidden)]
#[allow(dead_code)]
pub(crate) mod {MODULE} {{
    use ::std::sync::atomic::{{AtomicBool, AtomicU32, Ordering}};
    const SITES: usize = {sites};
    const UNREACHED: AtomicBool = AtomicBool::new(false);
    static REACHED: [AtomicBool; SITES] = [UNREACHED; SITES];
    static ACTIVE: AtomicU32 = AtomicU32::new(u32::MAX);

    /// The active mutant (0: none), read from {ENV} once; records the first reach of `site`.
    #[inline(never)]
    pub(crate) fn id(site: u32) -> u32 {{
        let mut active = ACTIVE.load(Ordering::Relaxed);
        if active == u32::MAX {{
            active = ::std::env::var("{ENV}")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            ACTIVE.store(active, Ordering::Relaxed);
        }}
        if let Some(reached) = REACHED.get(site as usize) {{
            if !reached.load(Ordering::Relaxed) && !reached.swap(true, Ordering::Relaxed) {{
                record(site);
            }}
        }}
        active
    }}

    fn record(site: u32) {{
        use ::std::io::Write;
        if let Some(path) = ::std::env::var_os("{HITS_ENV}") {{
            if let Ok(mut f) = ::std::fs::OpenOptions::new().create(true).append(true).open(path) {{
                let _ = f.write_all(::std::format!("{{}}\n", site).as_bytes());
            }}
        }}
    }}
}}
"#
    )
}

/// What an instrumented build's errors say about the plan.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Attribution {
    /// Mutants rustc rejected in their own arm, at a site whose scaffolding it accepted:
    /// unviable.
    pub(crate) unviable: BTreeSet<usize>,
    /// Mutants whose site's scaffolding rustc rejected: they go back to the rebuild path.
    pub(crate) rebuild: BTreeSet<usize>,
    /// Errors in no site (or in the module): the instrumentation as a whole failed.
    pub(crate) elsewhere: bool,
}

/// One error span of rustc's JSON diagnostics: the file as rustc names it, and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ErrorSpan {
    pub(crate) file: String,
    pub(crate) bytes: Range<usize>,
}

/// Map error spans (files workspace-relative) to mutants. An error without a span (rustc's
/// closing "aborting due to N previous errors") says nothing about where; it is skipped.
pub(crate) fn attribute(plan: &Plan, errors: &[Vec<ErrorSpan>]) -> Attribution {
    let mut a = Attribution::default();
    for spans in errors.iter().filter(|s| !s.is_empty()) {
        let mut placed = false;
        for s in spans {
            let Some(f) = plan.files.get(&s.file) else {
                continue;
            };
            let inside = |r: &Range<usize>| r.start <= s.bytes.start && s.bytes.end <= r.end;
            // The innermost arm, then the innermost scaffold.
            if let Some((_, i)) = f
                .arms
                .iter()
                .filter(|(r, _)| inside(r))
                .min_by_key(|(r, _)| r.len())
            {
                a.unviable.insert(*i);
                placed = true;
                break;
            }
            if let Some((_, ms)) = f
                .scaffolds
                .iter()
                .filter(|(r, _)| inside(r))
                .min_by_key(|(r, _)| r.len())
            {
                a.rebuild.extend(ms.iter().copied());
                placed = true;
                break;
            }
        }
        if !placed {
            a.elsewhere = true;
        }
    }
    // A site whose scaffolding fails may fail its arms too (a place expression moved by the
    // `match`): its mutants are rebuilt, where rustc judges each alone.
    a.unviable.retain(|i| !a.rebuild.contains(i));
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutant(text: &str, original: &str, replacement: &str, nth: usize) -> Mutant {
        let start = text
            .match_indices(original)
            .nth(nth)
            .map(|(i, _)| i)
            .expect("original in text");
        Mutant {
            id: format!("m{start}{replacement}"),
            operator: crate::catalog::Operator::SwapMinMax,
            file: "src/lib.rs".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            byte_range: (start, start + original.len()),
            function: "c::f".into(),
            original: original.into(),
            replacement: replacement.into(),
            description: String::new(),
            guard: false,
            context: Context::Runtime,
            also: Vec::new(),
            at_uses: None,
        }
    }

    fn instrument(text: &str, mutants: &[Mutant]) -> Plan {
        let t = text.to_string();
        plan(
            mutants,
            &|f| (f == "src/lib.rs").then(|| t.clone()),
            &BTreeSet::new(),
            &[],
        )
    }

    #[test]
    fn nested_sites_and_repeated_ranges_render_as_one_match_each() {
        let text =
            "fn f(a: u32, b: u32, c: u32) -> u32 {\n    let x = a.max(b).min(c);\n    x\n}\n";
        let ms = vec![
            mutant(text, "a.max(b).min(c)", "a.max(b).max(c)", 0),
            mutant(text, "a.max(b).min(c)", "a.max(b)", 0),
            mutant(text, "a.max(b)", "a.min(b)", 0),
        ];
        let p = instrument(text, &ms);
        assert_eq!(p.sites, 2);
        assert_eq!(
            p.switches,
            vec![
                Some(Switch {
                    sites: vec![0],
                    number: 1
                }),
                Some(Switch {
                    sites: vec![0],
                    number: 2
                }),
                Some(Switch {
                    sites: vec![1],
                    number: 3
                })
            ]
        );
        let out = &p.files["src/lib.rs"].text;
        assert!(out.contains(
            "let x = match crate::__capcheck_mutants::id(0) { 1 => a.max(b).max(c), 2 => a.max(b), \
             _ => (match crate::__capcheck_mutants::id(1) { 3 => a.min(b), _ => a.max(b) }).min(c) };"
        ), "{out}");
    }

    #[test]
    fn forms_follow_the_position() {
        let text = "fn f(v: &mut Vec<u32>) -> u32 {\n    if v.is_empty() { return 0; }\n    v.iter().min().copied().unwrap_or(0)\n}\n";
        let ms = vec![
            mutant(text, "if v.is_empty() { return 0; }", "", 0),
            mutant(text, "v.iter().min()", "v.iter().max()", 0),
        ];
        let out = instrument(text, &ms).files["src/lib.rs"].text.clone();
        assert!(out.contains("match crate::__capcheck_mutants::id(0) { 1 => {  }, _ => { if v.is_empty() { return 0; } } }"), "{out}");
        assert!(out.contains("(match crate::__capcheck_mutants::id(1) { 2 => v.iter().max(), _ => v.iter().min() }).copied()"), "{out}");
    }

    #[test]
    fn a_match_that_something_follows_is_parenthesised() {
        for (text, original, want) in [
            (
                "fn f(v: u32) -> u32 { match v { 0 => v.min(8) + 1, _ => 0 } }",
                "v.min(8)",
                "=> (match",
            ),
            (
                "fn f(v: u32) -> u64 { v.min(8) as u64 }",
                "v.min(8)",
                "{ (match",
            ),
            (
                "fn f(v: Option<u32>) { let Some(x) = v.map(|x| x.min(8)) else { return }; }",
                "v.map(|x| x.min(8))",
                "= (match",
            ),
            (
                "fn f(a: u32, b: u32) -> u32 { g(a.min(b), 1) }",
                "a.min(b)",
                "g(match",
            ),
            (
                "fn f(a: u32, b: u32) -> bool { if a < b { true } else { false } }",
                "a < b",
                "if match",
            ),
        ] {
            let ms = vec![mutant(text, original, "x", 0)];
            let out = instrument(text, &ms).files["src/lib.rs"].text.clone();
            assert!(out.contains(want), "{text}\n{out}");
        }
    }

    #[test]
    fn a_constant_is_switched_at_every_use_or_none() {
        let text = "const CAP: usize = 8;\nfn f(n: usize) -> usize { n.min(CAP) }\nfn g() -> Vec<u8> { Vec::with_capacity(CAP) }\n";
        let mut m = mutant(text, "8", "9", 0);
        m.context = Context::Uses;
        let uses: Vec<crate::operators::uses::UseSite> = text
            .match_indices("CAP")
            .skip(1)
            .map(|(at, _)| crate::operators::uses::UseSite {
                file: "src/lib.rs".into(),
                line: 2,
                byte_range: (at, at + 3),
            })
            .collect();
        let arm = "{ const CAPCHECK_VALUE: usize = 9; CAPCHECK_VALUE }";
        m.at_uses = Some(crate::operators::uses::AtUses {
            uses: uses.clone(),
            arm: arm.into(),
        });
        let p = instrument(text, std::slice::from_ref(&m));
        assert_eq!(
            p.switches,
            vec![Some(Switch {
                sites: vec![0, 1],
                number: 1
            })]
        );
        let out = &p.files["src/lib.rs"].text;
        assert!(out.starts_with("const CAP: usize = 8;"), "{out}");
        assert!(
            out.contains(&format!(
                "n.min(match crate::__capcheck_mutants::id(0) {{ 1 => {arm}, _ => CAP }})"
            )),
            "{out}"
        );
        assert!(out.contains("id(1) { 1 => "), "{out}");
        // A use whose text is not the constant's name any more: no use is switched.
        let mut stale = m.clone();
        stale.at_uses.as_mut().unwrap().uses[1].byte_range.0 -= 1;
        let p = instrument(text, &[stale]);
        assert_eq!(p.switches, vec![None]);
    }

    #[test]
    fn overlapping_sites_keep_the_rebuild_path() {
        let text = "fn f() -> u32 { let a = 1 + 2 + 3; a }";
        let mut ms = vec![mutant(text, "1 + 2", "1", 0), mutant(text, "2 + 3", "3", 0)];
        ms[1].byte_range = (ms[0].byte_range.0 + 4, ms[0].byte_range.0 + 9);
        let p = instrument(text, &ms);
        assert!(p.switches[0].is_some());
        assert_eq!(p.switches[1], None);
    }

    #[test]
    fn errors_in_an_arm_are_the_mutant_and_in_the_scaffold_are_the_site() {
        let text = "fn f(a: u32, b: u32) -> u32 { a.min(b) }";
        let ms = vec![mutant(text, "a.min(b)", "a.max(b)", 0)];
        let p = instrument(text, &ms);
        let f = &p.files["src/lib.rs"];
        let arm = f.arms[0].0.clone();
        let site = f.scaffolds[0].0.clone();
        let span = |bytes: Range<usize>| {
            vec![ErrorSpan {
                file: "src/lib.rs".into(),
                bytes,
            }]
        };
        let a = attribute(&p, &[span(arm.start..arm.start + 1)]);
        assert_eq!(a.unviable, BTreeSet::from([0]));
        let a = attribute(&p, &[span(site.start..site.start + 5)]);
        assert_eq!((a.rebuild, a.elsewhere), (BTreeSet::from([0]), false));
        let a = attribute(&p, &[span(0..2)]);
        assert!(a.elsewhere);
    }
}
