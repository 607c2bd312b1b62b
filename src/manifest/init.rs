//! What `cargo capcheck init` writes: a `[[capacity]]` entry with `method = "unmeasured"` for
//! every capacity the manifest does not cover yet; existing entries, comments and tables are
//! kept as they are. The job around it is `crate::init`.

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::{Bindings, Role};
use crate::index::{Capacity, CapacityKind};

/// The role `init` proposes: a floor for minimums, a queue for channel and buffer bounds.
pub(crate) fn role(cap: &Capacity) -> Role {
    let words = crate::index::names::words(&cap.item);
    let api = cap.api.as_deref().unwrap_or("");
    if words.iter().any(|w| w == "min") {
        Role::Floor
    } else if words
        .iter()
        .any(|w| ["queue", "channel", "buffer", "backlog", "bound"].contains(&w.as_str()))
        || api.contains("channel")
        || api.contains("bounded")
        || api.contains("buffer")
    {
        Role::Queue
    } else {
        Role::Cap
    }
}

/// The manifest text with an entry added for every capacity not yet covered; also returns how
/// many were added. `existing` is the current text (empty for a new file).
pub(crate) fn add_unmeasured(existing: &str, caps: &[Capacity]) -> anyhow::Result<(String, usize)> {
    let mut doc: DocumentMut = crate::manifest::toml_guarded(|| existing.parse::<DocumentMut>())
        .map_err(|m| anyhow::anyhow!("{m}"))?
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if doc.get("capacity").is_none() {
        doc.insert("capacity", Item::ArrayOfTables(ArrayOfTables::new()));
    }
    // `[[capacity]]` tables, or `capacity = [{ .. }, ..]`, whose new entries are inline too.
    let mut entries = match doc.get_mut("capacity") {
        Some(Item::ArrayOfTables(a)) => Entries::Tables(a),
        Some(Item::Value(toml_edit::Value::Array(a)))
            if a.iter().all(toml_edit::Value::is_inline_table) =>
        {
            Entries::Inline(a)
        }
        _ => anyhow::bail!("`capacity` must be an array of tables, [[capacity]]"),
    };
    let covered: Vec<String> = match &entries {
        Entries::Tables(a) => a.iter().filter_map(|t| site_of(t)).collect(),
        Entries::Inline(a) => a
            .iter()
            .filter_map(|v| site_of(v.as_inline_table()?))
            .collect(),
    };
    let mut added = 0;
    let covered = Bindings::new(covered.iter().map(String::as_str));
    let mut seen: std::collections::HashSet<&str> = Default::default();
    for cap in caps {
        if covered.first(&cap.site).is_some() || !seen.insert(&cap.site) {
            continue;
        }
        let mut t = Table::new();
        t.insert("site", value(cap.site.clone()));
        t.insert("value", value(cap.value as i64));
        t.insert("role", value(role(cap).as_str()));
        t.insert("method", value("unmeasured"));
        let what = match cap.kind {
            CapacityKind::ApiArg | CapacityKind::Arg => format!("argument of {}", cap.item),
            CapacityKind::Env => format!("fallback of ${}", cap.item),
            CapacityKind::Setting => format!("setting {}", cap.item),
            _ => cap.item.clone(),
        };
        t.insert(
            "reason",
            value(format!(
                "written by `cargo capcheck init` for {what} at {}:{}: measure it",
                cap.loc.file, cap.loc.line
            )),
        );
        match &mut entries {
            Entries::Tables(a) => a.push(t),
            Entries::Inline(a) => {
                let mut t = t.into_inline_table();
                // Indented as the entries already there.
                let indent = a
                    .iter()
                    .find_map(|v| v.decor().prefix()?.as_str()?.rsplit_once('\n'))
                    .map_or("    ", |(_, indent)| indent);
                let indent = format!("\n{indent}");
                t.decor_mut().set_prefix(indent);
                a.push_formatted(toml_edit::Value::InlineTable(t));
                // Comments before `]` stay; the closing bracket goes on a line of its own.
                if !a.trailing().as_str().is_some_and(|t| t.contains('\n')) {
                    a.set_trailing("\n");
                }
                a.set_trailing_comma(true);
            }
        }
        added += 1;
    }
    let mut text = doc.to_string();
    if existing.trim().is_empty() {
        text = format!("{HEADER}{text}");
    }
    Ok((text, added))
}

enum Entries<'a> {
    Tables(&'a mut ArrayOfTables),
    Inline(&'a mut toml_edit::Array),
}

fn site_of(t: &dyn toml_edit::TableLike) -> Option<String> {
    t.get("site")?.as_str().map(String::from)
}

const HEADER: &str = "\
# Measured capacities for `cargo capcheck` (see docs/manifest.md).
# `init` listed every capacity in the code as unmeasured: measure each one, then set
# `method = \"measured\"` (or \"derived\", \"vendor-limit\") and the measured value or `expr`.
#
# [workload]
# natural_bound = 32   # e.g. the roster: concurrency never exceeds it

";
