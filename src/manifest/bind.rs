//! Binding `[[capacity]]` entries to the quantities `measure` derives: which quantity measures
//! a site ([`fit`]), and the edit that binds an entry ([`apply`]: `expr`, `method = "measured"`,
//! the evidence). `measure --write` binds the unmeasured entries it can and `--bind SITE=EXPR`
//! the rest; `check` suggests the same binding on an unmeasured site. One rule for both, so the
//! suggestion is what `measure --write` does.

use serde::Serialize;
use toml_edit::{DocumentMut, Item, TableLike, Value};

use super::model::{Manifest, Method, Role};

/// The words after `per` that name one box of the fleet (`PER_BACKEND`, `max_per_node`).
const UNIT_WORDS: &[&str] = &[
    "backend", "box", "node", "host", "server", "replica", "instance", "machine", "engine", "gpu",
    "pod", "upstream",
];

/// The words that name the whole fleet (`FLEET_CAP`, `total_in_flight`, `GLOBAL_LIMIT`).
const FLEET_WORDS: &[&str] = &["fleet", "total", "global", "cluster"];

/// The quantity that measures a site, and what kind of capacity made it fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fit {
    /// A `[derived]` key.
    pub(crate) quantity: &'static str,
    /// `a per-box cap`, `a fleet cap`, `a per-box floor`.
    pub(crate) kind: &'static str,
    /// The value holds per box (`per = "backend"` is written with it).
    pub(crate) per_backend: bool,
}

/// Whether the site's own name says it holds per box: `per` followed by a unit word.
fn per_unit_name(words: &[String]) -> bool {
    words
        .windows(2)
        .any(|w| w[0] == "per" && UNIT_WORDS.contains(&w[1].as_str()))
}

/// The `[derived]` quantity that measures a site of this role, or why there is none. A site is
/// per box when its entry says `per = "backend"` or its name says `per` + a unit (`PER_BACKEND`,
/// `per_node_limit`); fleet-wide when its name says fleet, total, global or cluster.
pub(crate) fn fit(site: &str, role: Role, per_backend: bool) -> Result<Fit, String> {
    let item = site.rsplit("::").next().unwrap_or(site);
    let words = crate::index::names::words(item);
    let per_box = per_backend || per_unit_name(&words);
    let fleet = !per_box && words.iter().any(|w| FLEET_WORDS.contains(&w.as_str()));
    match role {
        Role::Cap if per_box => Ok(Fit {
            quantity: "per_box_capacity",
            kind: "a per-box cap",
            per_backend: true,
        }),
        Role::Cap if fleet => Ok(Fit {
            quantity: "fleet_capacity",
            kind: "a fleet cap",
            per_backend: false,
        }),
        Role::Floor if per_box => Ok(Fit {
            quantity: "pessimistic_floor",
            kind: "a per-box floor",
            per_backend: true,
        }),
        Role::Cap => Err(
            "a cap that neither its name nor `per = \"backend\"` says is per box or fleet-wide"
                .into(),
        ),
        Role::Floor => {
            Err("a floor that is not per box (measure derives only a per-box floor)".into())
        }
        Role::Queue => Err("a queue bound: the evidence measures no queue".into()),
        Role::Fuse => Err("a fuse: a runaway limit is not a measured capacity".into()),
    }
}

/// One entry bound, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Bound {
    pub(crate) site: String,
    pub(crate) expr: String,
    /// What the expression evaluates to in the written manifest.
    pub(crate) value: Option<u64>,
    /// The number the entry held before (the code's, from `init`).
    pub(crate) was: Option<u64>,
    /// `a per-box cap`, or `named by --bind`.
    pub(crate) how: String,
}

/// One unmeasured entry left unbound, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Unbound {
    pub(crate) site: String,
    pub(crate) reason: String,
}

/// What [`apply`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Outcome {
    pub(crate) bound: Vec<Bound>,
    pub(crate) unbound: Vec<Unbound>,
}

/// The entry a `--bind SITE` names: the one whose site is SITE, or the only one SITE names by a
/// `::`-aligned suffix.
pub(crate) fn named(m: &Manifest, site: &str) -> Result<usize, String> {
    if let Some(i) = m.entries.iter().position(|e| e.site == site) {
        return Ok(i);
    }
    let found: Vec<usize> = (0..m.entries.len())
        .filter(|&i| crate::site::matches(&m.entries[i].site, site))
        .collect();
    match found.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "--bind {site}: no [[capacity]] entry in {} names `{site}` (`cargo capcheck init` lists the code's capacities)",
            m.file
        )),
        many => Err(format!(
            "--bind {site}: `{site}` names {} entries ({}); write the whole site",
            many.len(),
            many.iter()
                .map(|&i| format!("`{}`", m.entries[i].site))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Check a `--bind` expression against the manifest's quantities: every name it reads must be
/// one (`measure` writes them before binding).
fn check_expr(m: &Manifest, site: &str, expr: &str) -> Result<(), String> {
    let parsed = super::eval::parse(expr)
        .map_err(|e| format!("--bind {site}={expr}: at {}: {}", e.offset + 1, e.message))?;
    let mut vars = Vec::new();
    super::eval::variables(&parsed, &mut vars);
    let known = |v: &str| {
        m.quantities.contains_key(v) || m.backends.iter().any(|b| b.quantities.contains_key(v))
    };
    match vars.iter().find(|(v, _)| !known(v)) {
        None => Ok(()),
        Some((v, _)) => {
            let mut names: Vec<&str> = m.quantities.keys().map(String::as_str).collect();
            names.extend(
                m.backends
                    .iter()
                    .flat_map(|b| b.quantities.keys().map(String::as_str)),
            );
            names.sort_unstable();
            names.dedup();
            Err(format!(
                "--bind {site}={expr}: `{v}` is not a quantity of {} (it has: {})",
                m.file,
                names.join(", ")
            ))
        }
    }
}

/// The `[[capacity]]` tables of `doc`, in file order (as `parse` reads them).
fn entries_mut(doc: &mut DocumentMut) -> Vec<&mut dyn TableLike> {
    match doc.get_mut("capacity") {
        Some(Item::ArrayOfTables(a)) => a.iter_mut().map(|t| t as &mut dyn TableLike).collect(),
        Some(Item::Value(Value::Array(a))) => a
            .iter_mut()
            .filter_map(|v| v.as_inline_table_mut())
            .map(|t| t as &mut dyn TableLike)
            .collect(),
        _ => Vec::new(),
    }
}

/// Bind an entry in place: `expr` where `value` was (the other keys keep their order and
/// comments), `method = "measured"`, `per = "backend"` for a per-box quantity, the evidence in
/// `source`, `measured_at`; `init`'s "measure it" reason becomes what was done.
fn edit(
    t: &mut dyn TableLike,
    expr: &str,
    per_backend: bool,
    reason: &str,
    source: &str,
    now: &str,
) {
    let old: Vec<(String, Item)> = t.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let written_by_init = t
        .get("reason")
        .and_then(Item::as_str)
        .is_some_and(|r| r.starts_with("written by `cargo capcheck init`"));
    t.clear();
    let mut put_expr = false;
    for (k, v) in old {
        match k.as_str() {
            "value" | "expr" if !put_expr => {
                put_expr = true;
                t.insert("expr", toml_edit::value(expr));
            }
            "value" | "expr" => {}
            _ => {
                t.insert(&k, v);
            }
        }
    }
    if !put_expr {
        t.insert("expr", toml_edit::value(expr));
    }
    t.insert("method", toml_edit::value("measured"));
    if per_backend {
        t.insert("per", toml_edit::value("backend"));
    }
    if written_by_init || t.get("reason").is_none() {
        t.insert("reason", toml_edit::value(reason));
    }
    t.insert("source", toml_edit::value(source));
    t.insert("measured_at", toml_edit::value(now));
}

/// Bind entries of `doc`, whose parsed form is `m`: each `--bind SITE=EXPR` in `binds`, then
/// every other unmeasured entry that [`fit`]s a quantity the manifest holds. `source` is the
/// evidence (this run's inputs), `now` the timestamp. An explicit binding that names no entry,
/// or a quantity the manifest lacks, is an error and nothing is bound.
pub(crate) fn apply(
    doc: &mut DocumentMut,
    m: &Manifest,
    binds: &[(String, String)],
    source: &str,
    now: &str,
) -> Result<Outcome, Vec<String>> {
    let mut errors = Vec::new();
    let mut chosen: Vec<(usize, String, bool, String)> = Vec::new();
    for (site, expr) in binds {
        match named(m, site).and_then(|i| check_expr(m, site, expr).map(|()| i)) {
            Ok(i) if chosen.iter().any(|c| c.0 == i) => errors.push(format!(
                "--bind {site}: `{}` is bound twice on this command line",
                m.entries[i].site
            )),
            Ok(i) => chosen.push((i, expr.clone(), false, "named by --bind".into())),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut out = Outcome::default();
    for (i, e) in m.entries.iter().enumerate() {
        if e.method != Method::Unmeasured || chosen.iter().any(|c| c.0 == i) {
            continue;
        }
        match fit(&e.site, e.role, e.per_backend) {
            Ok(f) if m.quantities.contains_key(f.quantity) => {
                chosen.push((i, f.quantity.to_string(), f.per_backend, f.kind.to_string()));
            }
            Ok(f) => out.unbound.push(Unbound {
                site: e.site.clone(),
                reason: format!(
                    "{}, but [derived] {} is not in {} (not measured)",
                    f.kind, f.quantity, m.file
                ),
            }),
            Err(why) => out.unbound.push(Unbound {
                site: e.site.clone(),
                reason: why,
            }),
        }
    }
    chosen.sort_by_key(|c| c.0);
    let mut tables = entries_mut(doc);
    for (i, expr, per_backend, how) in chosen {
        let e = &m.entries[i];
        let reason = format!(
            "bound by `cargo capcheck measure` ({how}: {expr}); the code said {} when bound",
            e.value.map_or_else(|| "?".to_string(), |v| v.to_string())
        );
        if let Some(t) = tables.get_mut(i) {
            edit(&mut **t, &expr, per_backend, &reason, source, now);
        }
        out.bound.push(Bound {
            site: e.site.clone(),
            expr,
            value: None,
            was: e.value,
            how,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_and_role_say_which_quantity_fits() {
        let q = |site, role, per| fit(site, role, per).map(|f| f.quantity);
        assert_eq!(
            q("c::PER_BACKEND", Role::Cap, false),
            Ok("per_box_capacity")
        );
        assert_eq!(
            q("c::Config::max_per_node", Role::Cap, false),
            Ok("per_box_capacity")
        );
        assert_eq!(q("c::LIMIT", Role::Cap, true), Ok("per_box_capacity"));
        assert_eq!(q("c::FLEET_CAP", Role::Cap, false), Ok("fleet_capacity"));
        assert_eq!(
            q("c::total_in_flight", Role::Cap, false),
            Ok("fleet_capacity")
        );
        assert_eq!(
            q("c::MIN_PER_BOX", Role::Floor, false),
            Ok("pessimistic_floor")
        );
        assert!(q("c::Config::min_limit", Role::Floor, false).is_err());
        assert!(q("c::MAX_CONNS", Role::Cap, false).is_err());
        assert!(q("c::QUEUE_PER_BACKEND", Role::Queue, false).is_err());
        assert!(q("c::FLEET_FUSE", Role::Fuse, false).is_err());
        // `per` must be followed by the unit: `PERMITS`, `BACKEND_PER` are not per box.
        assert!(q("c::PERMITS_BACKEND", Role::Cap, false).is_err());
    }
}
