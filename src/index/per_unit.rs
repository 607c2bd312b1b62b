//! Per-unit caps: a ceiling computed as a count times a typed per-unit number (`healthy * 8`).
//! The `per-unit-cap` rule reports them; `reinstate-cap` takes their per-unit numbers as the K it
//! puts back.

use crate::index::facts::Product;
use crate::index::value::{Operand, Val};
use crate::index::{Index, names};
use crate::source::Loc;

/// One `count * unit` product outside test code.
#[derive(Debug, Clone)]
pub(crate) struct PerUnit<'a> {
    pub(crate) product: &'a Product,
    /// The count's text (`healthy`).
    pub(crate) count: &'a str,
    /// The constant or field the unit comes from, when it is not a literal.
    pub(crate) origin: Option<String>,
    /// The unit's value, when known.
    pub(crate) value: Option<u64>,
    /// Where the unit's constant or field default is defined, and what to say there.
    pub(crate) defined: Option<(Loc, String)>,
    /// Where the unit is written in the product: the number to measure, on its own line when
    /// the product spans several (`available_parallelism()\n.saturating_mul(4)`).
    pub(crate) unit_at: Loc,
}

impl PerUnit<'_> {
    /// The unit as a finding names it: `PER_BOX = 8`, `PER_BOX`, or `8`.
    pub(crate) fn per(&self) -> String {
        match (&self.origin, self.value) {
            (Some(name), Some(v)) => format!("{name} = {v}"),
            (Some(name), None) => name.clone(),
            (None, Some(v)) => v.to_string(),
            (None, None) => String::new(),
        }
    }
}

/// Every per-unit cap of the index, in file order.
pub(crate) fn find(index: &Index) -> Vec<PerUnit<'_>> {
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
fn classify<'a>(
    index: &Index,
    p: &'a Product,
    count: &'a Operand,
    unit: &Operand,
) -> Option<PerUnit<'a>> {
    let t = index.tables();
    // A count per unit is itself a per-unit number (`cores_per_die` in `threads_per_core *
    // cores_per_die`, a guest CPU's layout): no count of the fleet.
    let per_unit = match &count.val {
        Val::Field(name) | Val::Const(name) => names::words(name).iter().any(|w| w == "per"),
        _ => false,
    };
    if count.val.is_lit() || per_unit || !t.count_words.matches_words(&count.words) {
        return None;
    }
    let (value, origin, defined) = match &unit.val {
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
                def.map(|d| (d.loc.clone(), format!("{name} is defined here"))),
            )
        }
        Val::Field(name) if t.capacity_names.matches(name) => {
            let d = index.field_defaults.get(name);
            (
                d.map(|d| d.0),
                Some(name.clone()),
                d.map(|(v, loc)| (loc.clone(), format!("{name} defaults to {v} here"))),
            )
        }
        _ => return None,
    };
    if origin.is_none() && value.is_none() {
        return None;
    }
    Some(PerUnit {
        product: p,
        count: &count.text,
        origin,
        value,
        defined,
        unit_at: unit.loc.clone(),
    })
}
