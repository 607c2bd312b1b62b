//! The manifest rules: the code held to `capacity.toml`. `capacity-mismatch`,
//! `cap-below-natural-bound`, `cap-never-reached`, `stale-measurement`,
//! `unmatched-manifest-entry`; and `unmeasured-capacity` for sites the manifest lacks.

use crate::catalog::Rule;

use crate::catalog::Level;
use crate::finding::{Finding, Related};
use crate::index::{Capacity, Index};
use crate::manifest::model::Date;
use crate::manifest::{Bindings, Entry, Manifest, Method, Role, names_of};

pub(crate) fn check(index: &Index, manifest: Option<&Manifest>, today: Date) -> Vec<Finding> {
    let Some(m) = manifest else {
        return index
            .capacities
            .iter()
            .map(super::unmeasured::finding)
            .collect();
    };
    let mut out = Vec::new();
    // Both directions by lookup, not entries x capacities: a 60,000-entry manifest stays linear.
    let entries = Bindings::new(m.entries.iter().map(|e| e.site.as_str()));
    for cap in &index.capacities {
        match entries.first(&cap.site).map(|i| &m.entries[i]) {
            None => {
                let mut f = super::unmeasured::finding(cap);
                f.help = suggest(m, &cap.site, crate::manifest::init::role(cap), false, false);
                out.push(f);
            }
            Some(e) => out.extend(bound(m, cap, e)),
        }
    }
    let named: std::collections::HashSet<&str> = index
        .capacities
        .iter()
        .flat_map(|c| names_of(&c.site))
        .collect();
    for e in &m.entries {
        if !named.contains(e.site.as_str()) {
            // Not detected by name or API, but the manifest says it is a capacity.
            match index.literal_site(&e.site) {
                Some(cap) => out.extend(bound(m, &cap, e)),
                None => out.push(unmatched(e)),
            }
        }
        if let Some(f) = stale(e, today) {
            out.push(f);
        }
    }
    out
}

/// Findings for a capacity the manifest covers.
fn bound(m: &Manifest, cap: &Capacity, e: &Entry) -> Vec<Finding> {
    let mut out = Vec::new();
    if e.method == Method::Unmeasured {
        let mut f = super::unmeasured::finding(cap);
        f.severity = Level::Note;
        f.message = format!(
            "{} (recorded as unmeasured in {}:{}: still to measure)",
            f.message, m.file, e.loc.line
        );
        f.related
            .push(Related::new(&e.loc, "listed as unmeasured here"));
        f.help = suggest(m, &e.site, e.role, e.per_backend, true);
        out.push(f);
    }
    if let Some(expected) = e.expected.filter(|v| *v != cap.value) {
        let how = match &e.expr {
            Some(expr) => format!("{expected} = {expr}"),
            None => expected.to_string(),
        };
        let mut f = super::finding(
            Rule::CapacityMismatch,
            cap.loc.clone(),
            format!(
                "`{}` is {} in the code but {} in {} ({})",
                cap.item,
                cap.value,
                expected,
                m.file,
                e.method.as_str()
            ),
            format!("the code says {}", cap.value),
        );
        f.item = Some(cap.item.clone());
        f.value = Some(cap.value);
        f.related.push(Related::new(
            &e.value_loc,
            format!("{} says {how} ({})", m.file, e.method.as_str()),
        ));
        out.push(f);
    }
    out.extend(bound_check(m, e, cap));
    out
}

/// `cap-below-natural-bound` / `cap-never-reached` for a `role = "cap"` entry.
fn bound_check(m: &Manifest, e: &Entry, cap: &Capacity) -> Option<Finding> {
    if e.role != Role::Cap {
        return None;
    }
    let bound = m.natural_bound?;
    let value = cap.value;
    let (fleet, how) = if e.per_backend {
        let n = m.backends.len() as u64;
        if n == 0 {
            return None;
        }
        (
            value.saturating_mul(n),
            format!(
                "{value} per backend x {n} backends = {}",
                value.saturating_mul(n)
            ),
        )
    } else {
        (value, value.to_string())
    };
    let loc = cap.loc.clone();
    let bound_note = m
        .natural_bound_loc
        .as_ref()
        .map(|l| Related::new(l, format!("natural bound {bound}")));
    let mut f = if fleet < bound {
        let waves = bound.div_ceil(fleet.max(1));
        super::finding(
            Rule::CapBelowNaturalBound,
            loc,
            format!(
                "a cap of {how} is below the natural bound {bound}: a burst of {bound} runs in ceil({bound} / {fleet}) = {waves} waves"
            ),
            format!("{waves} waves per burst of {bound}"),
        )
    } else {
        super::finding(
            Rule::CapNeverReached,
            loc,
            format!(
                "a cap of {how} is at or above the natural bound {bound}: it never throttles, so it is dead code unless it is a fuse (role = \"fuse\")"
            ),
            "never reached".to_string(),
        )
    };
    f.item = Some(cap.item.clone());
    f.value = Some(value);
    f.related.push(Related::new(
        &e.loc,
        format!("{} entry, role = \"cap\"", m.file),
    ));
    f.related.extend(bound_note);
    Some(f)
}

/// The binding `measure --write` would make for an unmeasured site, when the manifest holds the
/// quantity that fits it (`manifest::bind::fit`): the command, or the entry to write.
fn suggest(m: &Manifest, site: &str, role: Role, per_backend: bool, entry: bool) -> Option<String> {
    let fit = crate::manifest::bind::fit(site, role, per_backend).ok()?;
    let value = m.quantities.get(fit.quantity)?.floor_u64()?;
    let per = if fit.per_backend {
        ", per = \"backend\""
    } else {
        ""
    };
    let how = if entry {
        format!(
            "`cargo capcheck measure --write --bind {site}={}`",
            fit.quantity
        )
    } else {
        format!(
            "an entry `site = \"{site}\", expr = \"{}\", role = \"{}\", method = \"measured\"{per}`",
            fit.quantity,
            role.as_str()
        )
    };
    Some(format!(
        "{} measured {} = {value}, which fits {}: bind it with {how}",
        m.file, fit.quantity, fit.kind
    ))
}

fn unmatched(e: &Entry) -> Finding {
    super::finding(
        Rule::UnmatchedManifestEntry,
        e.loc.clone(),
        format!(
            "`{}` matches no capacity in the code: renamed, moved or deleted?",
            e.site
        ),
        "no such site".to_string(),
    )
}

fn stale(e: &Entry, today: Date) -> Option<Finding> {
    let due = e.re_measure_after?;
    if due >= today {
        return None;
    }
    let mut f = super::finding(
        Rule::StaleMeasurement,
        e.re_measure_loc.clone().unwrap_or(e.loc.clone()),
        format!(
            "`{}` was due for re-measurement on {due} (today is {today})",
            e.site
        ),
        format!("due {due}"),
    );
    f.item = Some(e.site.clone());
    Some(f)
}
