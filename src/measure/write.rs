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

/// The manifest path: as given, or `capacity.toml` at the workspace root when `--write` has no
/// value. The root is the directory of `--manifest-path`, or of the nearest Cargo.toml above
/// the current directory, or of a Cargo.toml further up whose `[workspace]` holds it.
pub fn target(given: Option<&Path>, ws: &WorkspaceArgs) -> anyhow::Result<PathBuf> {
    if let Some(given) = given {
        return Ok(given.to_path_buf());
    }
    if let Some(m) = &ws.manifest_path {
        let dir = m
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        return Ok(dir.join("capacity.toml"));
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut manifests = cwd.ancestors().filter(|d| d.join("Cargo.toml").is_file());
    let Some(nearest) = manifests.next() else {
        bail!(
            "no Cargo.toml in {} or above it: pass --write PATH",
            cwd.display()
        );
    };
    let is_workspace = |d: &Path| {
        std::fs::read_to_string(d.join("Cargo.toml"))
            .ok()
            .and_then(|t| t.parse::<toml::Table>().ok())
            .is_some_and(|t| t.contains_key("workspace"))
    };
    let root = if is_workspace(nearest) {
        nearest
    } else {
        manifests.find(|d| is_workspace(d)).unwrap_or(nearest)
    };
    Ok(root.join("capacity.toml"))
}

/// RFC 3339 UTC, to the second, from the system clock.
pub fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Howard Hinnant's `civil_from_days`, for seconds since the Unix epoch.
fn rfc3339(secs: u64) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
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
    std::fs::write(path, doc.to_string())
        .with_context(|| format!("{}: cannot write", path.display()))?;
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
