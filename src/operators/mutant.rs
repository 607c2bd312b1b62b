//! A mutant as data: what an operator proposes (`Draft`), and the `Mutant` it becomes, with a
//! stable id, its location and the canonical order every list, shard and report shares.

use crate::catalog::Operator;
use std::ops::Range;

use serde::{Deserialize, Serialize};

/// What the manifest (capacity.toml) knows that shapes mutants. `job::list` fills it from the
/// manifest; `--natural-bound` and `--per-box` override it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MutationContext {
    /// The workload's own upper bound on concurrency (the roster of 32).
    pub(crate) natural_bound: Option<u64>,
    /// The measured per-box capacity (14 in the story).
    pub(crate) per_box: Option<u64>,
}

/// One mutation: replace `byte_range` of `file` with `replacement`. Operators make them, the
/// engine applies them to a scratch copy, reports render them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Mutant {
    /// Stable across runs: operator, file, enclosing item, original text and an occurrence
    /// counter, never line numbers.
    pub(crate) id: String,
    pub(crate) operator: Operator,
    /// Relative to the workspace root, '/'-separated.
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
    /// Byte offsets of the replaced text in the file.
    pub(crate) byte_range: (usize, usize),
    /// The enclosing item's site (`fleet_controller::Controller::per_box`).
    pub(crate) function: String,
    pub(crate) original: String,
    pub(crate) replacement: String,
    pub(crate) description: String,
    /// A user-declared guard (`expect = "killed"`): surviving fails the run.
    #[serde(default)]
    pub(crate) guard: bool,
    /// Whether the compile-once engine can switch it at run time, or it must be rebuilt.
    #[serde(default)]
    pub(crate) context: Context,
    /// Other operators that proposed this very mutation (same span, same replacement): it runs
    /// once, under the first operator, and the report names the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) also: Vec<Operator>,
    /// (`context: uses`) Where the compile-once engine switches this mutant of a `const`: at
    /// each use of the constant (`operators::uses`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) at_uses: Option<crate::operators::uses::AtUses>,
}

/// Where a mutant sits, as the engine sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Context {
    /// A runtime expression of a function body: one instrumented build switches it on by an
    /// environment variable (`mutate::switch`).
    Runtime,
    /// A const context (`const`, `static`, array lengths, patterns, types, `const fn`), an
    /// attribute, or the body of a macro other than a formatting one: rebuilt per mutant.
    #[default]
    Fixed,
    /// A `const` initialiser whose every use runs at run time: switched at its uses
    /// (`Mutant::at_uses`), in the one instrumented build.
    Uses,
}

impl Mutant {
    pub(crate) fn range(&self) -> Range<usize> {
        self.byte_range.0..self.byte_range.1
    }

    /// The file's text with this mutant applied.
    pub(crate) fn apply_to(&self, text: &str) -> Option<String> {
        let r = self.range();
        if text.get(r.clone())? != self.original {
            return None;
        }
        Some(format!(
            "{}{}{}",
            &text[..r.start],
            self.replacement,
            &text[r.end..]
        ))
    }
}

/// What an operator proposes, before it gets an id and a location.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    pub(crate) operator: Operator,
    pub(crate) function: String,
    pub(crate) range: Range<usize>,
    pub(crate) replacement: String,
    pub(crate) description: String,
    pub(crate) guard: bool,
}

/// Turn drafts of one file into mutants: text, location and a stable id each.
pub(crate) fn finish(rel: &str, text: &str, drafts: Vec<Draft>, crate_name: &str) -> Vec<Mutant> {
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let lines = crate::source::lines::Lines::new(text);
    let mut out: Vec<Mutant> = Vec::new();
    for d in drafts {
        let Some(original) = text.get(d.range.clone()) else {
            continue;
        };
        if original == d.replacement {
            continue;
        }
        if let Some(same) = out.iter_mut().find(|m| {
            m.byte_range == (d.range.start, d.range.end) && m.replacement == d.replacement
        }) {
            if same.operator != d.operator && !same.also.contains(&d.operator) {
                same.also.push(d.operator);
            }
            continue;
        }
        let key = format!(
            "{}\0{}\0{}\0{}\0{}",
            d.operator.id(),
            rel,
            d.function,
            original,
            d.replacement
        );
        let n = seen.entry(key.clone()).or_insert(0);
        *n += 1;
        let hash = crate::source::fnv1a(format!("{key}\0{n}").as_bytes());
        let item = d
            .function
            .strip_prefix(&format!("{crate_name}::"))
            .unwrap_or(&d.function);
        let (start, end) = (lines.position(d.range.start), lines.position(d.range.end));
        out.push(Mutant {
            id: format!("{}:{rel}:{item}:{:08x}", d.operator.id(), hash as u32),
            operator: d.operator,
            file: rel.to_string(),
            line: start.0,
            column: start.1,
            end_line: end.0,
            end_column: end.1,
            byte_range: (d.range.start, d.range.end),
            function: d.function,
            original: original.to_string(),
            replacement: d.replacement,
            description: d.description,
            guard: d.guard,
            context: Context::Fixed,
            also: Vec::new(),
            at_uses: None,
        });
    }
    out
}

/// The canonical order of mutants: every list, shard and report uses it.
pub(crate) fn sort(mutants: &mut [Mutant]) {
    mutants.sort_by(|a, b| order_key(a).cmp(&order_key(b)));
}

pub(crate) fn order_key(m: &Mutant) -> (&str, usize, &str, &str) {
    (&m.file, m.byte_range.0, m.operator.id(), &m.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutation_two_operators_propose_runs_once_and_names_both() {
        let draft = |operator: Operator| Draft {
            operator,
            function: "c::f".into(),
            range: 2..3,
            replacement: "<=".into(),
            description: String::new(),
            guard: false,
        };
        let text = "a < b";
        let out = finish(
            "src/lib.rs",
            text,
            vec![
                draft(Operator::BoundaryShift),
                draft(Operator::Guard),
                draft(Operator::BoundaryShift),
            ],
            "c",
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].operator, Operator::BoundaryShift);
        assert_eq!(out[0].also, [Operator::Guard]);
    }

    #[test]
    fn ids_do_not_depend_on_lines_and_count_repeats() {
        let draft = |range: Range<usize>| Draft {
            operator: Operator::SwapMinMax,
            function: "c::f".into(),
            range,
            replacement: "a.max(b)".into(),
            description: String::new(),
            guard: false,
        };
        let one = finish("src/lib.rs", "a.min(b)", vec![draft(0..8)], "c");
        let moved = finish("src/lib.rs", "\n\na.min(b)", vec![draft(2..10)], "c");
        assert_eq!(one[0].id, moved[0].id);
        assert!(one[0].id.starts_with("swap-min-max:src/lib.rs:f:"));
        let twice = finish(
            "src/lib.rs",
            "a.min(b) a.min(b)",
            vec![draft(0..8), draft(9..17)],
            "c",
        );
        assert_eq!(twice[0].id, one[0].id);
        assert_ne!(twice[0].id, twice[1].id);
    }
}
