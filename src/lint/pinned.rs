//! `pinned-capacity-assertion`: a test assertion whose literal equals a capacity constant, or a
//! product of capacity constants and small counts, so raising the constant turns the test red;
//! `index::pins` finds them.

use crate::catalog::Rule;
use crate::finding::{Finding, Related};
use crate::index::Index;

pub(crate) fn check(index: &Index) -> Vec<Finding> {
    crate::index::pins::find(index)
        .into_iter()
        .map(|p| {
            let c = p.comparison;
            let v = p.value;
            let mut terms: Vec<String> = p.factors.iter().map(|c| c.item.clone()).collect();
            if p.multiplier > 1 {
                terms.insert(0, p.multiplier.to_string());
            }
            let arithmetic = match (terms.len(), p.divisor) {
                (1, 1) => format!("{v} = {}", terms[0]),
                (_, 1) => format!("{v} = {}", terms.join(" x ")),
                (_, k) => format!("{v} = {} / {k}", terms.join(" x ")),
            };
            let names: Vec<&str> = p.factors.iter().map(|c| c.item.as_str()).collect();
            let mut f = super::finding(
                Rule::PinnedCapacityAssertion,
                c.loc.clone(),
                format!(
                    "`{}` pins {arithmetic} ({}): anyone who raises {} gets a red test first",
                    c.text,
                    p.path,
                    names.join(" or ")
                ),
                format!("pins {arithmetic}"),
            );
            f.item = Some(names.join(" x "));
            f.value = Some(v);
            f.related = p
                .factors
                .iter()
                .map(|cap| {
                    Related::new(
                        &cap.loc,
                        format!("{} = {} is defined here", cap.item, cap.value),
                    )
                })
                .collect();
            f
        })
        .collect()
}
