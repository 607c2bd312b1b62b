//! `--write`: create or update the capacity manifest with toml_edit, in place. The user's
//! comments, key order and unrelated entries stay; `[[capacity]]` entries are never touched.
//! The format is described in docs/manifest.md.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

use super::EvidenceError;
use super::model::{Measurement, Options};
use crate::cli::WorkspaceArgs;

/// The manifest path: as given, or the one `check` and `init` read (`manifest = ..` in the
/// workspace's or the root package's capcheck config, else `capacity.toml` at the workspace root,
/// as `cargo metadata` finds it).
pub fn target(given: Option<&Path>, ws: &WorkspaceArgs) -> anyhow::Result<PathBuf> {
    if let Some(given) = given {
        return Ok(given.to_path_buf());
    }
    let meta = crate::workspace::metadata(ws)
        .context("`--write` without a path writes at the workspace root: pass --write PATH")?;
    let config = crate::config::Config::from_metadata(&crate::workspace::config(&meta))?;
    let root = meta.workspace_root.into_std_path_buf();
    Ok(crate::manifest::locate(
        &root,
        None,
        config.manifest.as_deref(),
    ))
}

/// RFC 3339 UTC, to the second, from the system clock.
pub fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

fn rfc3339(secs: u64) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let date = crate::manifest::model::Date::from_days(days);
    format!(
        "{date}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Replace a value, keeping the decor (the comment after it) of the one it replaces.
fn set(t: &mut Table, key: &str, v: impl Into<Value>) {
    let mut v: Value = v.into();
    if let Some(old) = t.get(key).and_then(Item::as_value) {
        *v.decor_mut() = old.decor().clone();
    }
    t[key] = Item::Value(v);
}

fn int(v: u64) -> Value {
    Value::from(i64::try_from(v).unwrap_or(i64::MAX))
}

/// Whole numbers as integers, others as floats to a thousandth.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        Value::from(v as i64)
    } else {
        Value::from((v * 1000.0).round() / 1000.0)
    }
}

fn table<'a>(doc: &'a mut DocumentMut, key: &str, path: &Path) -> anyhow::Result<&'a mut Table> {
    let item = doc.entry(key).or_insert(toml_edit::table());
    item.as_table_mut().ok_or_else(|| {
        EvidenceError(vec![format!(
            "{}: `{key}` must be a table ([{key}])",
            path.display()
        )])
        .into()
    })
}

/// Create or update the manifest at `path`; returns the path written.
pub fn update(path: &Path, m: &Measurement, opts: &Options) -> anyhow::Result<PathBuf> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => bail!("{}: cannot read: {e}", path.display()),
    };
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let line = e.span().map_or(1, |s| {
            text.get(..s.start).unwrap_or(&text).matches('\n').count() + 1
        });
        EvidenceError(vec![format!("{}:{line}: {}", path.display(), e.message())])
    })?;
    let now = now_rfc3339();

    if let Some(roster) = opts.roster {
        let w = table(&mut doc, "workload", path)?;
        set(w, "natural_bound", int(roster));
        set(w, "source", "cargo capcheck measure --roster");
    }
    if !m.boxes.is_empty() {
        let item = doc
            .entry("backend")
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let Some(backends) = item.as_array_of_tables_mut() else {
            bail!(EvidenceError(vec![format!(
                "{}: `backend` must be an array of tables ([[backend]])",
                path.display()
            )]));
        };
        for b in &m.boxes {
            let found = backends
                .iter()
                .position(|t| t.get("name").and_then(Item::as_str) == Some(&b.name));
            let t = match found {
                Some(i) => backends.get_mut(i).context("backend index")?,
                None => {
                    let mut t = Table::new();
                    set(&mut t, "name", b.name.as_str());
                    backends.push(t);
                    backends.iter_mut().last().context("backend just pushed")?
                }
            };
            set(t, "engines", int(b.engines as u64));
            set(t, "kv_cache_tokens", int(b.kv_cache_tokens));
            if let Some(s) = b.max_num_seqs {
                set(t, "max_num_seqs", int(s));
                set(t, "max_num_seqs_measured", b.max_num_seqs_measured);
            }
            if let Some(l) = b.max_model_len {
                set(t, "max_model_len", int(l));
            }
            if let Some(l) = b.max_num_batched_tokens {
                set(t, "max_num_batched_tokens", int(l));
            }
            set(t, "source", b.source.as_str());
            set(t, "measured_at", now.as_str());
        }
    }
    if let Some(p90) = m.p90_prompt_tokens {
        let t = table(&mut doc, "prompt", path)?;
        set(t, "p90_tokens", number(p90));
        set(t, "lower_bound", m.p90_prompt_is_lower_bound);
        if let Some(w) = m.window_s {
            set(t, "window_s", number(w));
        }
        if let Some(r) = m.requests {
            set(t, "requests", number(r));
        }
        set(
            t,
            "source",
            m.sources
                .get("p90_prompt_tokens")
                .map_or("", String::as_str),
        );
        set(t, "measured_at", now.as_str());
    }
    let derived = [
        ("per_box_capacity", m.per_box_capacity),
        ("fleet_capacity", m.fleet_capacity),
        ("pessimistic_floor", m.pessimistic_floor),
    ];
    if derived.iter().any(|(_, v)| v.is_some()) {
        let t = table(&mut doc, "derived", path)?;
        for (k, v) in derived {
            if let Some(v) = v {
                set(t, k, int(v));
            }
        }
        set(t, "measured_at", now.as_str());
    }
    crate::manifest::write_atomic(path, &doc.to_string())?;
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_029_200), "2026-11-30T09:00:00Z");
    }
}
