//! `per-unit-cap`: a ceiling computed as a count times a typed per-unit number (`healthy * 8`);
//! `index::per_unit` finds them.

use crate::catalog::Rule;
use crate::finding::{Finding, Related};
use crate::index::Index;

pub(crate) fn check(index: &Index) -> Vec<Finding> {
    crate::index::per_unit::find(index)
        .into_iter()
        .map(|u| {
            let per = u.per();
            let mut f = super::finding(
                Rule::PerUnitCap,
                u.unit_at.clone(),
                format!(
                    "`{}` caps by {} x a typed per-unit number ({per}); the error grows with the fleet",
                    // A product written over several lines is quoted on one.
                    u.product.text.split_whitespace().collect::<Vec<_>>().join(" "),
                    u.count
                ),
                format!("{} x {per}", u.count),
            );
            f.item = u.origin;
            f.value = u.value;
            f.related
                .extend(u.defined.map(|(loc, note)| Related::new(&loc, note)));
            f
        })
        .collect()
}
