//! `per-unit-cap`: a ceiling computed as a count times a typed per-unit number (`healthy * 8`).

use crate::catalog::Rule;

use crate::finding::{Finding, Related};
use crate::index::Index;
use crate::index::facts::Product;
use crate::index::value::{Operand, Val};

pub fn check(index: &Index) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in &index.files {
        for p in f.products.iter().filter(|p| !p.in_test) {
            if let Some(found) = classify(index, p, &p.left, &p.right)
                .or_else(|| classify(index, p, &p.right, &p.left))
            {
                out.push(found);
            }
        }
    }
    out
}

/// `count * unit` where `count` names a count and `unit` is a typed per-unit number.
fn classify(index: &Index, p: &Product, count: &Operand, unit: &Operand) -> Option<Finding> {
    let t = index.tables();
    if count.val.is_lit() || !t.count_words.matches_words(&count.words) {
        return None;
    }
    let (value, origin, related) = match &unit.val {
        Val::Lit(v) if *v >= 2 && !t.unit_values.contains(v) => (Some(*v), None, None),
        Val::Const(name) if t.capacity_names.matches(name) => {
            // Constants resolve by name; one of the product's own crate wins over a namesake.
            let krate = p.site.split("::").next();
            let def = index
                .capacities
                .iter()
                .filter(|c| &c.item == name)
                .min_by_key(|c| c.site.split("::").next() != krate);
            let v = def
                .map(|d| d.value)
                .or_else(|| index.consts.get(name).copied());
            (
                v,
                Some(name.clone()),
                def.map(|d| Related::new(&d.loc, format!("{name} is defined here"))),
            )
        }
        Val::Field(name) if t.capacity_names.matches(name) => {
            let d = index.field_defaults.get(name);
            (
                d.map(|d| d.0),
                Some(name.clone()),
                d.map(|(v, loc)| Related::new(loc, format!("{name} defaults to {v} here"))),
            )
        }
        _ => return None,
    };
    let per = match (&origin, value) {
        (Some(name), Some(v)) => format!("{name} = {v}"),
        (Some(name), None) => name.clone(),
        (None, Some(v)) => v.to_string(),
        (None, None) => return None,
    };
    let mut f = super::finding(
        Rule::PerUnitCap,
        p.loc.clone(),
        format!(
            "`{}` caps by {} x a typed per-unit number ({per}); the error grows with the fleet",
            p.text, count.text
        ),
        format!("{} x {per}", count.text),
    );
    f.item = origin;
    f.value = value;
    f.related.extend(related);
    Some(f)
}
