//! `unmeasured-capacity`: a hard-coded capacity the manifest does not cover, once, with where it
//! flows. Which capacities are covered is decided in `lint::manifest`.

use crate::catalog::Rule;

use crate::finding::{Finding, Related};
use crate::index::{Capacity, CapacityKind};

/// The finding for one capacity (the manifest rules reuse it for sites the manifest lacks).
pub(crate) fn finding(c: &Capacity) -> Finding {
    let what = match c.kind {
        CapacityKind::Const | CapacityKind::Static => format!("`{} = {}`", c.item, c.value),
        CapacityKind::Field => format!("field `{}: {}`", c.item, c.value),
        CapacityKind::Let => format!("`let {} = {}`", c.item, c.value),
        CapacityKind::Fn => format!("`fn {}()` returning {}", c.item, c.value),
        CapacityKind::ApiArg => format!("`{}` with {}", c.item, c.value),
        CapacityKind::Arg => format!("`{}` given {}", c.item, c.value),
        CapacityKind::Ceiling => format!("the ceiling `{} > {}`", c.item, c.value),
        CapacityKind::Attr => format!("attribute argument `{} = {}`", c.item, c.value),
        CapacityKind::Env => format!("`${}` falling back to {}", c.item, c.value),
        CapacityKind::Setting => format!("setting `{}` given {}", c.item, c.value),
    };
    // A factor is shown in its product: the item alone would read as if the value were it.
    let what = match &c.factor {
        Some(product) if c.offset_op() == Some('-') => {
            format!("the reserve {} in `{product}`", c.value)
        }
        Some(product) if c.offset_op() == Some('+') => {
            format!("the headroom {} in `{product}`", c.value)
        }
        Some(product) => format!("the factor {} in `{product}`", c.value),
        None => what,
    };
    let mut message = format!("{what} is a capacity nobody measured");
    let named = c.kind == CapacityKind::ApiArg && c.factor.is_none();
    if let Some(api) = c.api.as_ref().filter(|_| !named) {
        message.push_str(&format!(" (it sizes {api})"));
    }
    let mut f = super::finding(
        Rule::UnmeasuredCapacity,
        c.loc.clone(),
        message,
        format!("typed by hand: {}", c.value),
    );
    f.item = Some(c.item.clone());
    f.value = Some(c.value);
    f.related = c
        .uses
        .iter()
        .map(|u| Related::new(&u.loc, &u.note))
        .collect();
    f.path = c
        .path
        .iter()
        .map(|u| Related::new(&u.loc, &u.note))
        .collect();
    f
}
