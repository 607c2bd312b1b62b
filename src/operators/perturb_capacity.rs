//! `perturb-capacity`: each capacity literal `check` found (`const`, `static`, field default,
//! `let`, API argument) becomes half, one less, one more, the natural bound minus one, and 1.
//! A test suite that passes with any of them does not know what the number is for.

use super::Shared;
use crate::catalog::Operator;
use crate::operators::mutant::Draft;
use crate::source::lines::Lines;

const ID: Operator = Operator::PerturbCapacity;

pub(crate) fn drafts(rel: &str, text: &str, shared: &Shared) -> Vec<Draft> {
    let mut out = Vec::new();
    let lines = Lines::new(text);
    for c in shared.index.capacities.iter().filter(|c| c.loc.file == rel) {
        let (Some(start), Some(end)) = (
            lines.offset(c.loc.line, c.loc.column),
            lines.offset(c.loc.end_line, c.loc.end_column),
        ) else {
            continue;
        };
        let original = text.get(start..end).unwrap_or("");
        let digits: String = original
            .chars()
            .take_while(|ch| ch.is_ascii_digit() || *ch == '_')
            .collect();
        if digits.replace('_', "").parse::<u64>().ok() != Some(c.value) {
            continue;
        }
        let rest = &original[digits.len()..];
        let v = c.value;
        let mut values: Vec<(u64, String)> = vec![
            (v / 2, format!("halve `{}`: {v} -> {}", c.item, v / 2)),
            (v - 1, format!("`{}` - 1: {v} -> {}", c.item, v - 1)),
            (
                v.saturating_add(1),
                format!("`{}` + 1: {v} -> {}", c.item, v + 1),
            ),
        ];
        if let Some(b) = shared.ctx.natural_bound.filter(|b| *b >= 1) {
            values.push((
                b - 1,
                format!("`{}` = natural bound - 1: {v} -> {}", c.item, b - 1),
            ));
        }
        values.push((1, format!("`{}` = 1: {v} -> 1", c.item)));
        let mut seen = vec![v];
        for (new, description) in values {
            if seen.contains(&new) {
                continue;
            }
            seen.push(new);
            out.push(Draft {
                operator: ID,
                function: c.site.clone(),
                range: start..end,
                replacement: format!("{new}{rest}"),
                description,
                guard: false,
            });
        }
    }
    out
}
