//! `--write`: create or update the capacity manifest with toml_edit, in place. The user's
//! comments, key order and unrelated entries stay; `[[capacity]]` entries are never touched.
//! The format is described in docs/manifest.md.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

use super::logs::LimitSource;
use super::model::{Measurement, Settings};
use crate::diag::{InputError, Problem, line_col};

/// Where `--write` writes, and the folder the paths it writes are relative to.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) path: PathBuf,
    /// The workspace root; for `--write PATH`, the folder that holds PATH.
    pub(crate) base: PathBuf,
}

/// The manifest path: as given, or the one `check` and `init` read (`manifest = ..` in the
/// workspace's or the root package's capcheck config, else `capacity.toml` at the workspace root,
/// as `cargo metadata` finds it from `manifest_path`, the `--manifest-path` given, if any).
pub(crate) fn target(given: Option<&Path>, manifest_path: Option<&Path>) -> anyhow::Result<Target> {
    if let Some(given) = given {
        let base = match given.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        return Ok(Target {
            path: given.to_path_buf(),
            base,
        });
    }
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(p) = manifest_path {
        cmd.manifest_path(p);
    }
    let meta = crate::workspace::run_metadata(&cmd)
        .context("`--write` without a path writes at the workspace root: pass --write PATH")?;
    let config = crate::config::Config::from_metadata(&crate::workspace::config(&meta))?;
    let root = meta.workspace_root.into_std_path_buf();
    Ok(Target {
        path: crate::manifest::locate(&root, None, config.manifest.as_deref()),
        base: root,
    })
}

/// A source citation (`PATH:LINES`) with PATH relative to `base` when the file lies under it;
/// `inputs` are the paths as the command line gave them, which the citations begin with. A file
/// outside `base` keeps the path it was given.
pub(crate) fn relative_source(source: &str, base: &Path, inputs: &[PathBuf]) -> String {
    let Ok(base) = base.canonicalize() else {
        return source.to_string();
    };
    for input in inputs {
        let shown = input.display().to_string();
        let Some(rest) = source.strip_prefix(&shown) else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(':')) {
            continue;
        }
        let rel = input
            .canonicalize()
            .ok()
            .and_then(|p| p.strip_prefix(&base).ok().map(Path::to_path_buf));
        if let Some(rel) = rel {
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            return format!("{}{rest}", rel.join("/"));
        }
    }
    source.to_string()
}

/// RFC 3339 UTC, to the second, from the system clock.
pub(crate) fn now_rfc3339() -> String {
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

/// The tables `update` writes into: each must be a `[table]`, and `backend` an array of
/// `[[backend]]` tables, or the file is refused with every misplaced key located.
const TABLES: [&str; 3] = ["workload", "prompt", "derived"];

/// Parse the existing manifest, keeping its format, and check the shapes `update` relies on.
fn read_doc(file: &str, text: &str) -> Result<DocumentMut, InputError> {
    let refuse = |problems| InputError {
        file: file.to_string(),
        problems,
    };
    let at = |span: Option<std::ops::Range<usize>>, message: String| {
        let (line, column) = line_col(text, span.map_or(0, |s| s.start));
        Problem::new(line, column, message)
    };
    let doc = crate::manifest::toml_guarded(|| toml_edit::Document::parse(text))
        .map_err(|m| refuse(vec![Problem::new(1, 1, m)]))?
        .map_err(|e| refuse(vec![at(e.span(), e.message().trim().to_string())]))?;
    let mut problems = Vec::new();
    for key in TABLES {
        if let Some(item) = doc.get(key).filter(|i| !i.is_table()) {
            problems.push(at(
                item.span(),
                format!("`{key}` must be a table ([{key}])"),
            ));
        }
    }
    if let Some(item) = doc.get("backend").filter(|i| !i.is_array_of_tables()) {
        problems.push(at(
            item.span(),
            "`backend` must be an array of tables ([[backend]])".to_string(),
        ));
    }
    if problems.is_empty() {
        Ok(doc.into_mut())
    } else {
        Err(refuse(problems))
    }
}

/// One of [`TABLES`], created when absent; `read_doc` already refused any other shape.
fn table<'a>(doc: &'a mut DocumentMut, key: &str) -> anyhow::Result<&'a mut Table> {
    doc.entry(key)
        .or_insert(toml_edit::table())
        .as_table_mut()
        .with_context(|| format!("`{key}` is not a table"))
}

/// What `update` did: the path written, why it left values out, and the entries it bound.
#[derive(Debug)]
pub(crate) struct Written {
    pub(crate) path: PathBuf,
    pub(crate) warnings: Vec<String>,
    pub(crate) bindings: crate::manifest::bind::Outcome,
}

/// How `update` writes: the target, the `--bind SITE=EXPR` pairs, and the evidence files as
/// given (their citations are written relative to the target's base).
#[derive(Debug, Clone)]
pub(crate) struct Plan<'a> {
    pub(crate) target: &'a Target,
    pub(crate) binds: &'a [(String, String)],
    pub(crate) inputs: &'a [PathBuf],
}

/// Create or update the manifest at the plan's target, then bind its entries.
pub(crate) fn update(plan: &Plan, m: &Measurement, opts: &Settings) -> anyhow::Result<Written> {
    let path = plan.target.path.as_path();
    let cite = |s: &str| relative_source(s, &plan.target.base, plan.inputs);
    let mut evidence: Vec<String> = Vec::new();
    crate::sys::fs::check_writable(path)?;
    let text = match crate::sys::fs::read_text(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => bail!("{}: cannot read: {e}", path.display()),
    };
    let mut doc = read_doc(&path.display().to_string(), &text)?;
    let now = now_rfc3339();
    let mut warnings = Vec::new();

    if let Some(roster) = opts.roster {
        let w = table(&mut doc, "workload")?;
        set(w, "natural_bound", int(roster));
        set(w, "source", "cargo capcheck measure --roster");
    }
    if !m.boxes.is_empty() {
        let item = doc
            .entry("backend")
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let backends = item
            .as_array_of_tables_mut()
            .context("`backend` is not an array of tables")?;
        for b in &m.boxes {
            let Some(kv) = b.kv_cache_tokens.filter(|_| b.started) else {
                warnings.push(format!(
                    "[[backend]] `{}` not written: its log shows no started engine",
                    b.name
                ));
                continue;
            };
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
            set(t, "kv_cache_tokens", int(kv));
            if let Some(s) = b.max_num_seqs {
                set(t, "max_num_seqs", int(s));
                set(t, "max_num_seqs_measured", b.max_num_seqs_measured);
            }
            if let Some(c) = b.max_concurrent_requests {
                set(t, "max_concurrent_requests", int(c));
                set(
                    t,
                    "max_concurrent_requests_measured",
                    b.max_concurrent_requests_source != Some(LimitSource::Default),
                );
            }
            if let Some(l) = b.max_model_len {
                set(t, "max_model_len", int(l));
            }
            if let Some(l) = b.max_num_batched_tokens {
                set(t, "max_num_batched_tokens", int(l));
            }
            let source = cite(&b.source);
            evidence.push(format!("{} {source}", b.name));
            set(t, "source", source.as_str());
            set(t, "measured_at", now.as_str());
        }
    }
    if let Some(p90) = m.p90_prompt_tokens {
        let t = table(&mut doc, "prompt")?;
        set(t, "p90_tokens", number(p90));
        set(t, "lower_bound", m.p90_prompt_is_lower_bound);
        if m.p90_prompt_is_estimate {
            set(t, "estimated_from_mean", true);
        }
        if let Some(w) = m.window_s {
            set(t, "window_s", number(w));
        }
        if let Some(r) = m.requests {
            set(t, "requests", number(r));
        }
        let source = cite(
            m.sources
                .get("p90_prompt_tokens")
                .map_or("", String::as_str),
        );
        evidence.push(format!("prompt {source}"));
        set(t, "source", source.as_str());
        set(t, "measured_at", now.as_str());
    }
    warnings.extend(write_derived(&mut doc, m, &now)?);
    let file = path.display().to_string();
    let evidence = if evidence.is_empty() {
        format!("[derived] of {file}")
    } else {
        evidence.join(", ")
    };
    let (text, bindings) = bind(doc, &file, plan.binds, &evidence, &now, &mut warnings)?;
    crate::sys::fs::write_atomic(path, &text)?;
    Ok(Written {
        path: path.to_path_buf(),
        warnings,
        bindings,
    })
}

/// Before any evidence is read: each `--bind SITE` must name an entry of the manifest as it is
/// now (a scrape window is not waited out for a typo). The quantities are checked after the
/// measurement, which may write them.
pub(crate) fn check_binds(path: &Path, binds: &[(String, String)]) -> anyhow::Result<()> {
    if binds.is_empty() {
        return Ok(());
    }
    let file = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => bail!("{file}: cannot read: {e}"),
    };
    let manifest = crate::manifest::parse::parse(&file, &text)?;
    let unlocated: Vec<String> = binds
        .iter()
        .filter_map(|(site, _)| crate::manifest::bind::named(&manifest, site).err())
        .collect();
    crate::diag::InputErrors {
        unlocated,
        files: Vec::new(),
    }
    .into_result()
}

/// Bind the manifest's entries (`manifest::bind`), and give back the text to write. The text
/// is read as `check` reads it before and after: a manifest that does not read binds nothing
/// (an explicit `--bind` is then an error, as is a binding that would leave it unreadable).
fn bind(
    mut doc: DocumentMut,
    file: &str,
    binds: &[(String, String)],
    evidence: &str,
    now: &str,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(String, crate::manifest::bind::Outcome)> {
    use crate::manifest::bind::{Outcome, apply};
    let before = doc.to_string();
    let manifest = match crate::manifest::parse::parse(file, &before) {
        Ok(m) => m,
        Err(e) if binds.is_empty() => {
            warnings.push(format!(
                "no [[capacity]] entry bound: {file} does not read ({} problem{}; `cargo capcheck check` shows them)",
                e.problems.len(),
                crate::diag::plural(e.problems.len())
            ));
            return Ok((before, Outcome::default()));
        }
        Err(e) => return Err(e.into()),
    };
    let mut outcome = apply(&mut doc, &manifest, binds, evidence, now).map_err(|unlocated| {
        crate::diag::InputErrors {
            unlocated,
            files: Vec::new(),
        }
    })?;
    if outcome.bound.is_empty() {
        return Ok((before, outcome));
    }
    let text = doc.to_string();
    let after = crate::manifest::parse::parse(file, &text).map_err(|e| {
        anyhow::anyhow!("nothing written: binding would leave the manifest unreadable:\n{e}")
    })?;
    for b in &mut outcome.bound {
        b.value = after
            .entries
            .iter()
            .find(|e| e.site == b.site)
            .and_then(|e| e.expected);
    }
    Ok((text, outcome))
}

/// `[derived]`, without the values an assumed default decided: a number the log never stated
/// must not pass for a measurement (`check` and `mutants` read these keys as measured). A value
/// left out also replaces an earlier one, which would otherwise look current. Returns why each
/// was left out.
fn write_derived(doc: &mut DocumentMut, m: &Measurement, now: &str) -> anyhow::Result<Vec<String>> {
    let derived = [
        (
            "per_box_capacity",
            m.per_box_capacity,
            m.per_box_capacity_assumed,
        ),
        ("fleet_capacity", m.fleet_capacity, m.fleet_capacity_assumed),
        ("pessimistic_floor", m.pessimistic_floor, false),
    ];
    let guessed: Vec<&str> = m
        .boxes
        .iter()
        .filter(|b| b.capacity_assumed)
        .map(|b| b.name.as_str())
        .collect();
    let mut warnings = Vec::new();
    let estimate = m.p90_prompt_is_estimate;
    let derived = derived.map(|(k, v, assumed)| {
        // The pessimistic floor needs no prompt length; the capacities rest on the estimate.
        let estimated = estimate && k != "pessimistic_floor";
        if estimated && let Some(v) = v {
            let earlier = doc
                .get_mut("derived")
                .and_then(Item::as_table_mut)
                .and_then(|t| t.remove(k))
                .and_then(|i| i.as_integer());
            warnings.push(format!(
                "[derived] {k} not written{}: {v} rests on the mean prompt, an estimate of the p90 (no prompt histogram in the window)",
                earlier.map_or_else(String::new, |e| format!(" (its earlier value {e} removed)")),
            ));
        }
        (k, v, assumed || estimated)
    });
    for (key, value, assumed) in derived {
        let (Some(v), true) = (value, assumed) else {
            continue;
        };
        if estimate && key != "pessimistic_floor" {
            continue;
        }
        let earlier = doc
            .get_mut("derived")
            .and_then(Item::as_table_mut)
            .and_then(|t| t.remove(key))
            .and_then(|i| i.as_integer());
        warnings.push(format!(
            "[derived] {key} not written{}: {v} is bound by max_num_seqs, which the log of {} does not state (the server's default was assumed); start the server with an explicit limit (vLLM --max-num-seqs, TGI --max-concurrent-requests) and measure again",
            earlier.map_or_else(String::new, |e| format!(" (its earlier value {e} removed)")),
            guessed
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    let measured: Vec<(&str, u64)> = derived
        .iter()
        .filter(|(_, _, assumed)| !assumed)
        .filter_map(|(k, v, _)| v.map(|v| (*k, v)))
        .collect();
    if !measured.is_empty() {
        let t = table(doc, "derived")?;
        for (k, v) in measured {
            set(t, k, int(v));
        }
        set(t, "measured_at", now);
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misshapen_manifest_is_refused_with_every_problem_located() {
        let err = read_doc(
            "capacity.toml",
            "# header\nworkload = 3\n[derived]\nx = 1\n[backend]\nname = \"a\"\n",
        )
        .unwrap_err();
        let at: Vec<(usize, usize)> = err.problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(at, [(2, 12), (5, 1)]);
        assert!(
            err.problems[0]
                .message
                .contains("`workload` must be a table")
        );
        assert!(err.problems[1].message.contains("[[backend]]"));
        let syntax = read_doc("capacity.toml", "[workload]\nnatural_bound = \n").unwrap_err();
        assert_eq!(syntax.problems[0].line, 2);
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_029_200), "2026-11-30T09:00:00Z");
    }
}
