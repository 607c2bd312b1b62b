//! The functions only tests call, found by every place their name is written: a server's
//! `RuntimeConfig::high_throughput()` preset that nothing but its tests builds sets values nobody
//! runs with, as a `#[cfg(test)]` helper's are. Unlike `trace::Graph::test_only` (helpers named
//! for tests, judged by the call graph of their package), this asks of every function that sets
//! a capacity, whatever its name, so it cannot trust a call graph that misses callers: a name
//! written anywhere outside a test (another crate's call, an attribute's
//! `default_value_t = preset()`, a string naming it for serde, a `const` initialiser) keeps the
//! function the product's.

use std::collections::{BTreeMap, BTreeSet};

use ra_ap_rustc_lexer::{LiteralKind, TokenKind};
use rayon::prelude::*;

use super::trace::in_test_module;
use crate::index::facts::FnNode;
use crate::index::graph::{offset, significant};
use crate::syntax::FileRole;

/// One file as this pass reads it: its text, its module path (crate first) and its role.
pub(crate) struct Source<'a> {
    pub(crate) text: std::borrow::Cow<'a, str>,
    pub(crate) path: Vec<String>,
    pub(crate) role: FileRole,
}

/// One place where a candidate's name is written.
struct Place {
    name: String,
    /// The site of the function it sits in; `None` outside any function.
    within: Option<String>,
    /// It is test code.
    test: bool,
}

/// For each of `at` (a file's index and a 1-based line and char column in it, where a capacity's
/// literal is written), the function it sits in when only test code calls that function: every
/// place the function's name is written in the workspace (`source`, read where the name occurs)
/// but its definition is a test, a test module, test code's file, or another such function; and
/// there is at least one such place. A name two functions share is judged by both's places
/// together. Functions named as every type's are (`default`, `new`: `trace::COMMON`), `main`
/// and a trait impl's methods (called through the trait, by operators, by derives) are never
/// asked about.
pub(crate) fn only_tests_call<'s>(
    at: &[(usize, usize, usize)],
    count: usize,
    source: impl Fn(usize) -> Option<Source<'s>> + Sync,
) -> Vec<Option<String>> {
    let mut by_file: BTreeMap<usize, Vec<(usize, usize, usize)>> = BTreeMap::new();
    for (k, &(file, line, column)) in at.iter().enumerate() {
        by_file.entry(file).or_default().push((k, line, column));
    }
    // Each capacity's function, from its file's functions.
    let within: Vec<(usize, String)> = by_file
        .into_par_iter()
        .flat_map_iter(|(file, caps)| {
            let found: Vec<(usize, String)> = match source(file) {
                None => Vec::new(),
                Some(src) => {
                    let fns = crate::index::graph::nodes(&src.text, &src.path);
                    let starts = line_starts(&src.text);
                    caps.into_iter()
                        .filter_map(|(k, line, column)| {
                            let pos = byte_at(&src.text, &starts, line, column)?;
                            let f = innermost(&fns, pos)?;
                            let asked = f.trait_name.is_none()
                                && !super::trace::COMMON.contains(&f.name.as_str())
                                && f.name != "main"
                                && !f.is_test;
                            asked.then(|| (k, f.site.clone()))
                        })
                        .collect()
                }
            };
            found
        })
        .collect();
    let candidates: BTreeSet<&str> = within.iter().map(|(_, s)| s.as_str()).collect();
    let only = judge(&candidates, count, &source);
    let mut out = vec![None; at.len()];
    for (k, site) in within {
        if only.contains(&site) {
            out[k] = Some(site);
        }
    }
    out
}

/// Of `candidates` (function sites, `crate::module::Type::function`), the ones only test code
/// names (`only_tests_call`).
fn judge<'s>(
    candidates: &BTreeSet<&str>,
    count: usize,
    source: &(impl Fn(usize) -> Option<Source<'s>> + Sync),
) -> BTreeSet<String> {
    let names: BTreeSet<&str> = candidates
        .iter()
        .map(|s| s.rsplit("::").next().unwrap_or(s))
        .collect();
    if names.is_empty() {
        return BTreeSet::new();
    }
    let uses: Vec<Vec<Place>> = (0..count)
        .into_par_iter()
        .filter_map(|i| {
            let src = source(i)?;
            names
                .iter()
                .any(|n| memchr::memmem::find(src.text.as_bytes(), n.as_bytes()).is_some())
                .then(|| uses_in(&src, &names))
        })
        .collect();
    let mut by_name: BTreeMap<&str, Vec<&Place>> = BTreeMap::new();
    for u in uses.iter().flatten() {
        by_name.entry(u.name.as_str()).or_default().push(u);
    }
    // Least fixpoint: a place inside a candidate counts as test code once that candidate is
    // known to be called only by tests.
    let mut out: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = out.len();
        for site in candidates {
            let name = site.rsplit("::").next().unwrap_or(site);
            let places = by_name.get(name).map(Vec::as_slice).unwrap_or_default();
            let test = |p: &&Place| {
                p.test
                    || p.within
                        .as_ref()
                        .is_some_and(|w| out.contains(w) && w != site)
            };
            if !places.is_empty() && places.iter().all(test) {
                out.insert(site.to_string());
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// Every place in one file where one of `names` is written, but a definition (`fn name`): as an
/// identifier, or inside a string (serde's `default = "Config::preset"`, which names it for a
/// caller no graph sees).
fn uses_in(src: &Source, names: &BTreeSet<&str>) -> Vec<Place> {
    let text: &str = &src.text;
    let toks = significant(text);
    let mut at: Vec<(&str, usize)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenKind::Ident | TokenKind::RawIdent => {
                let name = t.text.trim_start_matches("r#");
                if let Some(n) = names.get(name)
                    && !(i > 0 && toks[i - 1].text == "fn")
                    && !field(&toks, i)
                {
                    at.push((n, offset(text, t)));
                }
            }
            TokenKind::Literal {
                kind: LiteralKind::Str { .. } | LiteralKind::RawStr { .. },
                ..
            } => {
                for n in names.iter().filter(|n| names_in_string(t.text, n)) {
                    at.push((n, offset(text, t)));
                }
            }
            _ => {}
        }
    }
    if at.is_empty() {
        return Vec::new();
    }
    let fns = crate::index::graph::nodes_of(text, &toks, &src.path);
    let whole = src.role == FileRole::Test;
    at.into_iter()
        .map(|(name, pos)| {
            // The innermost function holding it: the one that starts last.
            let within = innermost(&fns, pos);
            let test = whole || within.is_some_and(|f| f.is_test || in_test_module(&f.site));
            Place {
                name: name.to_string(),
                within: within.map(|f| f.site.clone()),
                test,
            }
        })
        .collect()
}

/// Whether the identifier at `i` names a field, not a function: declared or set (`name: ..`,
/// not `name::..`), or read (`.name` with no call after it).
fn field(toks: &[crate::index::graph::Tok], i: usize) -> bool {
    let text = |k: usize| toks.get(k).map_or("", |t| t.text);
    let declared = text(i + 1) == ":" && text(i + 2) != ":";
    let read = i > 0 && text(i - 1) == "." && !matches!(text(i + 1), "(" | ":");
    declared || read
}

/// The byte offset of each line's start in `text`.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect()
}

/// The byte offset of a 1-based line and char column in `text`.
fn byte_at(text: &str, starts: &[usize], line: usize, column: usize) -> Option<usize> {
    let from = *starts.get(line.checked_sub(1)?)?;
    let rest = &text[from..];
    let by = rest
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(rest.len(), |(i, _)| i);
    Some(from + by)
}

/// The innermost function whose body holds byte `pos`: of those that do, the one that starts
/// last.
fn innermost(fns: &[FnNode], pos: usize) -> Option<&FnNode> {
    fns.iter()
        .filter(|f| f.body.contains(&pos))
        .max_by_key(|f| f.body.start)
}

/// Whether a string literal names function `name` as a path does (`"preset"`,
/// `"Config::preset"`, `"crate::defaults::preset"`): the form serde's `default = ".."` and
/// its kin take. A word in prose (`"production"` in a log line) names nothing.
fn names_in_string(lit: &str, name: &str) -> bool {
    let inner = lit
        .trim_start_matches('r')
        .trim_matches('#')
        .trim_matches('"');
    inner == name || inner.strip_suffix(name).is_some_and(|p| p.ends_with("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source<'a>(files: &'a [(&'a str, FileRole)]) -> impl Fn(usize) -> Option<Source<'a>> + Sync {
        |i| {
            Some(Source {
                text: files[i].0.into(),
                path: vec![format!("c{i}")],
                role: files[i].1,
            })
        }
    }

    fn judged(files: &[(&str, FileRole)], candidates: &[&str]) -> BTreeSet<String> {
        let candidates: BTreeSet<&str> = candidates.iter().copied().collect();
        judge(&candidates, files.len(), &source(files))
    }

    #[test]
    fn a_preset_only_tests_build_is_test_code_and_one_production_names_is_not() {
        let lib = "impl Config { pub fn fast() -> Self { Config { workers: 16 } }\n\
                   pub fn slow() -> Self { Config { workers: 2 } } }\n\
                   pub fn serve() { let c = Config::slow(); }\n\
                   #[cfg(test)] mod tests { #[test] fn t() { let c = super::Config::fast(); } }\n";
        let files = [(lib, FileRole::Source)];
        // The literals 16 and 2, on line 1 and line 2, and the `main`-less file's `serve`.
        let at = [(0, 1, 52), (0, 2, 53)];
        let found = only_tests_call(&at, files.len(), source(&files));
        assert_eq!(found, vec![Some("c0::Config::fast".to_string()), None]);
    }

    #[test]
    fn a_name_in_an_attribute_or_a_string_or_nowhere_keeps_the_function() {
        let lib = "impl Config { pub fn fast() -> Self { Config { workers: 16 } } }\n\
                   pub fn unused() -> Self { Config { workers: 2 } }\n\
                   pub fn sized() -> usize { 8 }\n\
                   #[derive(Parser)] struct Args { #[arg(default_value_t = sized())] n: usize }\n";
        let serde =
            "#[derive(Deserialize)] struct C { #[serde(default = \"Config::fast\")] n: u8 }\n";
        let tests = "#[test] fn t() { let c = Config::fast(); let n = sized(); }\n";
        let found = judged(
            &[
                (lib, FileRole::Source),
                (serde, FileRole::Source),
                (tests, FileRole::Test),
            ],
            &["c0::Config::fast", "c0::unused", "c0::sized"],
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_function_only_such_functions_call_is_test_code_too() {
        let lib = "fn base() -> Config { Config { workers: 16 } }\n\
                   fn tuned() -> Config { let mut c = base(); c.workers = 32; c }\n";
        let benches = "fn bench() { let c = tuned(); }\n";
        let found = judged(
            &[(lib, FileRole::Source), (benches, FileRole::Test)],
            &["c0::base", "c0::tuned"],
        );
        assert_eq!(found.len(), 2, "{found:?}");
    }
}
