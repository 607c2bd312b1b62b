//! Reading `capacity.toml`: every problem is collected and reported at once, each at its line and
//! column, never just the first.

use std::collections::BTreeMap;
use std::ops::Range;

use toml_edit::{Item, Table, TableLike, Value};

use super::eval::{self, Num};
use super::model::*;
use crate::diag::{InputError, Problem, line_col};
use crate::source::Loc;

const ENTRY_KEYS: &[&str] = &[
    "site",
    "value",
    "expr",
    "role",
    "method",
    "per",
    "backend",
    "reason",
    "source",
    "measured_at",
    "re_measure_after",
];
const TOP_TABLES: &[&str] = &["workload", "backend", "prompt", "derived", "capacity"];

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    /// The text's line index, built once: a location per entry stays linear in the manifest.
    lines: crate::source::lines::Lines<'a>,
    problems: Vec<Problem>,
}

impl Reader<'_> {
    fn loc(&self, span: Option<Range<usize>>) -> Loc {
        let span = span.unwrap_or(0..0);
        let (line, column) = self.lines.position(span.start);
        let (end_line, end_column) = self.lines.position(span.end);
        Loc {
            file: self.file.to_string(),
            line,
            column,
            end_line,
            end_column,
        }
    }

    fn problem(&mut self, span: Option<Range<usize>>, message: String) {
        let (line, column) = self.lines.position(span.map_or(0, |s| s.start));
        self.problems.push(Problem {
            line,
            column,
            message,
        });
    }

    fn string(&mut self, t: &dyn TableLike, key: &str, ctx: &str) -> Option<String> {
        let item = t.get(key)?;
        match item.as_str() {
            Some(s) => Some(s.to_string()),
            None => {
                self.problem(
                    item.span(),
                    format!(
                        "{ctx}: `{key}` must be a string, found {}",
                        item.type_name()
                    ),
                );
                None
            }
        }
    }

    fn date(&mut self, t: &dyn TableLike, key: &str, ctx: &str) -> Option<Date> {
        let item = t.get(key)?;
        let parsed = match item.as_value() {
            Some(Value::String(s)) => Date::parse(s.value()),
            Some(Value::Datetime(d)) => d
                .value()
                .date
                .and_then(|d| Date::new(i32::from(d.year), u32::from(d.month), u32::from(d.day))),
            _ => None,
        };
        if parsed.is_none() {
            self.problem(
                item.span(),
                format!("{ctx}: `{key}` must be a real date such as 2027-02-28"),
            );
        }
        parsed
    }

    /// Numeric keys of a data table (but `skip`) become quantities; each must be a finite number
    /// from 0 to 2^53 (past that an f64 no longer holds the integer that was written).
    fn quantities(
        &mut self,
        t: &dyn TableLike,
        ctx: &str,
        skip: &[&str],
        out: &mut BTreeMap<String, Num>,
    ) {
        const MAX: f64 = 9_007_199_254_740_992.0;
        for (k, item) in t.iter() {
            let n = match item.as_value() {
                Some(Value::Integer(i)) if *i.value() >= 0 => Num::int(*i.value()),
                Some(Value::Float(f)) if (0.0..=MAX).contains(f.value()) => Num::float(*f.value()),
                Some(Value::Integer(_) | Value::Float(_)) => {
                    if !skip.contains(&k) {
                        let written = item
                            .span()
                            .and_then(|s| self.text.get(s))
                            .map_or(String::new(), |t| {
                                format!(", found {}", t.chars().take(24).collect::<String>())
                            });
                        self.problem(
                            item.span(),
                            format!("{ctx}: `{k}` must be a number at least 0 (a float at most 2^53){written}"),
                        );
                    }
                    continue;
                }
                _ => continue,
            };
            out.insert(k.to_string(), n);
        }
    }
}

/// Parse and validate a manifest's text. `file` is how reports name it.
pub(crate) fn parse(file: &str, text: &str) -> Result<Manifest, InputError> {
    let mut r = Reader {
        file,
        text,
        lines: crate::source::lines::Lines::new(text),
        problems: Vec::new(),
    };
    let parsed = crate::manifest::toml_guarded(|| toml_edit::Document::parse(text));
    let Ok(parsed) = parsed else {
        return Err(InputError {
            file: file.into(),
            problems: vec![Problem::new(1, 1, crate::manifest::TOML_PANIC)],
        });
    };
    let doc = match parsed {
        Ok(d) => d,
        Err(e) => {
            let (line, column) = line_col(text, e.span().map_or(0, |s| s.start));
            let message = e.message().trim().to_string();
            return Err(InputError {
                file: file.into(),
                problems: vec![Problem {
                    line,
                    column,
                    message,
                }],
            });
        }
    };
    let root: &Table = doc.as_table();
    let mut m = Manifest {
        file: file.to_string(),
        ..Manifest::default()
    };
    for (k, item) in root.iter() {
        if !TOP_TABLES.contains(&k) {
            let span = root.key(k).and_then(|key| key.span()).or(item.span());
            r.problem(
                span,
                format!(
                    "unknown table `{k}` (expected one of: {})",
                    TOP_TABLES.join(", ")
                ),
            );
        }
    }
    read_data_tables(&mut r, root, &mut m);
    read_backends(&mut r, root, &mut m);
    read_entries(&mut r, root, &mut m);
    if r.problems.is_empty() {
        Ok(m)
    } else {
        r.problems.sort_by_key(|p| (p.line, p.column));
        Err(InputError {
            file: file.into(),
            problems: r.problems,
        })
    }
}

/// `[key]` or `key = { .. }`.
fn table<'t>(r: &mut Reader, root: &'t Table, key: &str) -> Option<&'t dyn TableLike> {
    let item = root.get(key)?;
    match item.as_table_like() {
        Some(t) => Some(t),
        None => {
            r.problem(item.span(), format!("`{key}` must be a table, [{key}]"));
            None
        }
    }
}

/// `[[key]]`, or `key = [{ .. }, ..]`: each table with its span.
fn tables<'t>(
    r: &mut Reader,
    root: &'t Table,
    key: &str,
) -> Vec<(&'t dyn TableLike, Option<Range<usize>>)> {
    let Some(item) = root.get(key) else {
        return Vec::new();
    };
    if let Some(arr) = item.as_array_of_tables() {
        return arr
            .iter()
            .map(|t| (t as &dyn TableLike, t.span()))
            .collect();
    }
    let mut out = Vec::new();
    match item.as_array() {
        Some(arr) if arr.iter().all(Value::is_inline_table) => {
            for v in arr.iter() {
                if let Some(t) = v.as_inline_table() {
                    out.push((t as &dyn TableLike, t.span()));
                }
            }
        }
        _ => r.problem(
            item.span(),
            format!("`{key}` must be an array of tables, [[{key}]]"),
        ),
    }
    out
}

fn read_data_tables(r: &mut Reader, root: &Table, m: &mut Manifest) {
    if let Some(w) = table(r, root, "workload") {
        if let Some(item) = w.get("natural_bound") {
            match item.as_integer() {
                Some(n) if n > 0 => {
                    m.natural_bound = Some(n as u64);
                    m.natural_bound_loc = Some(r.loc(item.span()));
                }
                _ => r.problem(
                    item.span(),
                    "[workload]: `natural_bound` must be a positive integer".into(),
                ),
            }
        }
        r.quantities(w, "[workload]", &["natural_bound"], &mut m.quantities);
    }
    if let Some(p) = table(r, root, "prompt") {
        let mut q = BTreeMap::new();
        r.quantities(p, "[prompt]", &[], &mut q);
        if let Some(v) = q.remove("p90_tokens") {
            m.quantities.insert("p90_prompt_tokens".into(), v);
        }
        m.quantities
            .extend(q.into_iter().map(|(k, v)| (format!("prompt_{k}"), v)));
    }
    if let Some(d) = table(r, root, "derived") {
        r.quantities(d, "[derived]", &[], &mut m.quantities);
    }
}

fn read_backends(r: &mut Reader, root: &Table, m: &mut Manifest) {
    for (i, (t, span)) in tables(r, root, "backend").into_iter().enumerate() {
        let ctx = format!("[[backend]] #{}", i + 1);
        let name = r.string(t, "name", &ctx);
        if name.is_none() && t.get("name").is_none() {
            r.problem(span.clone(), format!("{ctx}: missing `name`"));
        }
        let mut quantities = BTreeMap::new();
        r.quantities(t, &ctx, &[], &mut quantities);
        let assumed = t
            .iter()
            .filter(|(_, v)| v.as_bool() == Some(false))
            .filter_map(|(k, _)| k.strip_suffix("_measured").map(String::from))
            .collect();
        m.backends.push(Backend {
            name: name.unwrap_or_default(),
            quantities,
            assumed,
            loc: r.loc(span),
        });
    }
    m.quantities
        .insert("backends".into(), Num::int(m.backends.len() as i64));
}

fn enum_key<T: Copy>(
    r: &mut Reader,
    t: &dyn TableLike,
    key: &str,
    ctx: &str,
    options: &[(&str, T)],
) -> Option<T> {
    let item = t.get(key)?;
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    match item
        .as_str()
        .and_then(|s| options.iter().find(|(n, _)| *n == s))
    {
        Some((_, v)) => Some(*v),
        None => {
            r.problem(
                item.span(),
                format!("{ctx}: `{key}` must be one of {}", names.join(", ")),
            );
            None
        }
    }
}

fn read_entries(r: &mut Reader, root: &Table, m: &mut Manifest) {
    // Each site's first entry: its `site` line.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (t, span)) in tables(r, root, "capacity").into_iter().enumerate() {
        let ctx = format!("[[capacity]] #{}", i + 1);
        for (k, _) in t.iter() {
            if !ENTRY_KEYS.contains(&k) {
                let span = t.key(k).and_then(|key| key.span());
                r.problem(
                    span,
                    format!(
                        "{ctx}: unknown key `{k}` (expected one of: {})",
                        ENTRY_KEYS.join(", ")
                    ),
                );
            }
        }
        let site = r.string(t, "site", &ctx);
        if let Some(s) = &site {
            let at = t.get("site").and_then(Item::span);
            let line = r.loc(at.clone()).line;
            if s.split("::").count() < 2 || s.split("::").any(|seg| seg.trim().is_empty()) {
                r.problem(
                    at,
                    format!(
                        "{ctx}: `site` must name a code site by its path, at least two `::` \
                         segments such as \"my_crate::PER_BACKEND\" or \"Config::max_limit\", \
                         found \"{s}\""
                    ),
                );
            } else if let Some(first) = seen.get(s) {
                r.problem(
                    at,
                    format!(
                        "{ctx}: site `{s}` is already bound by the entry at line {first}; \
                         one entry per site: remove one of them (lines {first} and {line})"
                    ),
                );
            } else {
                seen.insert(s.clone(), line);
            }
        }
        let role = enum_key(
            r,
            t,
            "role",
            &ctx,
            &[
                ("cap", Role::Cap),
                ("fuse", Role::Fuse),
                ("floor", Role::Floor),
                ("queue", Role::Queue),
            ],
        );
        let method = enum_key(
            r,
            t,
            "method",
            &ctx,
            &[
                ("measured", Method::Measured),
                ("derived", Method::Derived),
                ("vendor-limit", Method::VendorLimit),
                ("unmeasured", Method::Unmeasured),
            ],
        );
        for (key, what) in [
            ("site", "the code site, e.g. \"my_crate::PER_BACKEND\""),
            ("role", "cap, fuse, floor or queue"),
            ("method", "measured, derived, vendor-limit or unmeasured"),
        ] {
            if t.get(key).is_none() {
                r.problem(span.clone(), format!("{ctx}: missing `{key}` ({what})"));
            }
        }
        let per_backend = match t.get("per") {
            None => false,
            Some(item) if item.as_str() == Some("backend") => {
                // A cap per backend with no backend listed is a cap times zero: the fleet-wide
                // figure would be 0, silently.
                if m.backends.is_empty() {
                    r.problem(
                        item.span(),
                        format!(
                            "{ctx}: `per = \"backend\"` but the manifest lists no [[backend]] \
                             (the fleet-wide cap would be this value times zero): add the \
                             [[backend]] tables, or drop `per`"
                        ),
                    );
                }
                true
            }
            Some(item) => {
                r.problem(item.span(), format!("{ctx}: `per` must be \"backend\""));
                false
            }
        };
        let value = t.get("value").and_then(|item| match item.as_integer() {
            Some(n) if n >= 0 => Some(n as u64),
            _ => {
                r.problem(
                    item.span(),
                    format!("{ctx}: `value` must be a non-negative integer"),
                );
                None
            }
        });
        let expr = r.string(t, "expr", &ctx);
        let backend = r.string(t, "backend", &ctx);
        let value_item = t.get("value").or_else(|| t.get("expr"));
        if t.get("value").is_some() && t.get("expr").is_some() {
            r.problem(
                t.get("expr").and_then(Item::span),
                format!("{ctx}: give `value` or `expr`, not both"),
            );
        }
        if value_item.is_none() {
            r.problem(
                span.clone(),
                format!(
                    "{ctx}: missing `value` (a number) or `expr` (a formula over measured quantities)"
                ),
            );
        }
        let expected = match (&expr, value) {
            (_, Some(v)) => Some(v),
            (Some(src), None) => evaluate(
                r,
                m,
                t.get("expr").and_then(Item::span),
                src,
                backend.as_deref(),
                &ctx,
            ),
            (None, None) => None,
        };
        let re_measure_after = r.date(t, "re_measure_after", &ctx);
        let mut reads = Vec::new();
        if let Some(parsed) = expr.as_deref().and_then(|src| eval::parse(src).ok()) {
            let mut vars = Vec::new();
            eval::variables(&parsed, &mut vars);
            reads = vars.into_iter().map(|(v, _)| v).collect();
        }
        let entry = Entry {
            reads,
            site: site.unwrap_or_default(),
            value,
            expr,
            expected,
            role: role.unwrap_or(Role::Cap),
            method: method.unwrap_or(Method::Measured),
            per_backend,
            reason: r.string(t, "reason", &ctx),
            measured_at: r.date(t, "measured_at", &ctx),
            re_measure_after,
            loc: r.loc(t.get("site").and_then(Item::span).or(span.clone())),
            value_loc: r.loc(value_item.and_then(Item::span).or(span)),
            re_measure_loc: t.get("re_measure_after").map(|i| r.loc(i.span())),
        };
        m.entries.push(entry);
    }
}

/// Evaluate an entry's `expr`. Backend quantities come from the named backend or, without one,
/// from every backend with the smallest result kept: the narrowest box decides.
fn evaluate(
    r: &mut Reader,
    m: &Manifest,
    span: Option<Range<usize>>,
    src: &str,
    backend: Option<&str>,
    ctx: &str,
) -> Option<u64> {
    // The string's first char is the opening quote.
    let at = |offset: usize| {
        span.clone()
            .map(|s| s.start + 1 + offset..s.start + 1 + offset)
    };
    let parsed = match eval::parse(src) {
        Ok(e) => e,
        Err(e) => {
            r.problem(at(e.offset), format!("{ctx}: in `expr`: {}", e.message));
            return None;
        }
    };
    let boxes: Vec<&Backend> = match backend {
        Some(name) => match m.backends.iter().find(|b| b.name == name) {
            Some(b) => vec![b],
            None => {
                r.problem(span, format!("{ctx}: no [[backend]] named `{name}`"));
                return None;
            }
        },
        None => m.backends.iter().collect(),
    };
    let results: Vec<Result<u64, eval::ExprError>> = if boxes.is_empty() {
        vec![eval::eval(&parsed, &m.quantities)]
    } else {
        boxes
            .iter()
            .map(|b| {
                let mut vars = m.quantities.clone();
                vars.extend(b.quantities.clone());
                eval::eval(&parsed, &vars)
            })
            .collect()
    };
    let mut best: Option<u64> = None;
    for res in results {
        match res {
            Ok(v) => best = Some(best.map_or(v, |b| b.min(v))),
            Err(e) => {
                r.problem(at(e.offset), format!("{ctx}: in `expr`: {}", e.message));
                return None;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_useful_manifest_reads() {
        let m = parse(
            "capacity.toml",
            "[workload]\nnatural_bound = 32\n\n[[capacity]]\nsite = \"fleet_controller::PER_BACKEND\"\nvalue = 14\nrole = \"cap\"\nmethod = \"measured\"\n",
        )
        .unwrap();
        assert_eq!(m.natural_bound, Some(32));
        assert_eq!(m.entries[0].expected, Some(14));
        assert_eq!(m.entries[0].value_loc.line, 6);
    }

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let err = parse(
            "capacity.toml",
            "[workload]\nnatural_bound = -1\n\n[[capacity]]\nsite = 3\nvalue = 14\nrole = \"ceiling\"\nmethod = \"guessed\"\ncolour = 1\n",
        )
        .unwrap_err();
        let lines: Vec<usize> = err.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [2, 5, 7, 8, 9], "{err}");
    }

    #[test]
    fn an_assumed_max_num_seqs_never_becomes_the_per_box_value() {
        let text = |measured: bool| {
            format!(
                "[prompt]\np90_tokens = 1000\n[[backend]]\nname = \"a\"\nkv_cache_tokens = 1000000\nmax_num_seqs = 300\nmax_num_seqs_measured = {measured}\n[[capacity]]\nsite = \"x::PER_BACKEND\"\nexpr = \"min(kv_cache_tokens / p90_prompt_tokens, max_num_seqs)\"\nper = \"backend\"\nrole = \"cap\"\nmethod = \"derived\"\n"
            )
        };
        assert_eq!(parse("c.toml", &text(true)).unwrap().per_box(), Some(300));
        assert_eq!(parse("c.toml", &text(false)).unwrap().per_box(), None);
    }

    #[test]
    fn expressions_take_the_narrowest_backend() {
        let m = parse(
            "capacity.toml",
            "[prompt]\np90_tokens = 100000\n[[backend]]\nname = \"a\"\nkv_cache_tokens = 1490818\nmax_num_seqs = 160\n[[backend]]\nname = \"b\"\nkv_cache_tokens = 745409\nmax_num_seqs = 160\n[[capacity]]\nsite = \"x::PER_BACKEND\"\nexpr = \"min(kv_cache_tokens / p90_prompt_tokens, max_num_seqs)\"\nrole = \"cap\"\nmethod = \"derived\"\n",
        )
        .unwrap();
        assert_eq!(m.entries[0].expected, Some(7));
    }

    mod props {
        use super::super::parse;
        use proptest::prelude::*;

        const VALID: &str = "[workload]\nnatural_bound = 32\n\n[[capacity]]\nsite = \"a::B\"\nvalue = 14\nrole = \"cap\"\nmethod = \"measured\"\n";

        proptest! {
            #[test]
            fn arbitrary_text_is_a_manifest_or_located_problems(text in "\\PC*") {
                if let Err(e) = parse("capacity.toml", &text) {
                    let lines = text.lines().count().max(1) + 1;
                    prop_assert!(!e.problems.is_empty());
                    prop_assert!(e.problems.iter().all(|p| p.line >= 1 && p.line <= lines && p.column >= 1));
                }
            }

            #[test]
            fn a_corrupted_valid_manifest_never_panics(at in 0usize..VALID.len(), junk in "[\\[\\]=\"a-z0-9 #\n.,(){}*/+-]{0,8}") {
                let mut text = VALID.to_string();
                let at = (0..=at).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
                text.insert_str(at, &junk);
                let _ = parse("capacity.toml", &text);
            }

            #[test]
            fn formulas_never_panic(src in "([a-z_0-9 ()+*/,.-]|\\PC){0,30}") {
                if let Ok(e) = super::super::eval::parse(&src) {
                    let _ = super::super::eval::eval(&e, &Default::default());
                }
            }
        }
    }
}
