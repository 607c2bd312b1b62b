//! The output folder of `mutants`. The tool writes only into a folder it created or claimed
//! (marked with `.capcheck-mutants`), and clears only the files it can tell it wrote there (by
//! name and by content: its reports' own fields, its logs' first line), so an `--output` the user
//! names never loses a file the tool did not write. Nothing here follows a symlink: a `logs/` that
//! is a link is refused, a link in the folder is never removed or written through, and a file in
//! the way that is not the tool's is an error, not overwritten.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, bail};

pub(crate) const REPORT_JSON: &str = "mutants.json";
pub(crate) const ELEMENTS_JSON: &str = "mutation-report.json";
pub(crate) const SARIF: &str = "survivors.sarif";
pub(crate) const HTML: &str = "report.html";
/// The tag the HTML report carries (`report::html` writes it), by which `clear` knows its own.
pub(crate) const HTML_GENERATOR: &str = r#"<meta name="generator" content="cargo-capcheck">"#;
/// One JSON line per finished mutant, appended as each finishes (kept when a run is stopped).
pub(crate) const VERDICTS: &str = "verdicts.jsonl";
/// Marks a folder this tool writes; without it a non-empty folder is refused.
pub(crate) const MARKER: &str = ".capcheck-mutants";
/// Per-mutant logs and `baseline.log`, in the output folder.
pub(crate) const LOGS: &str = "logs";
/// Per-mutant diffs (`diff/<id>.diff`, as cargo-mutants writes them), each headed by the
/// mutant's id line so `clear` knows its own.
pub(crate) const DIFFS: &str = "diff";
/// The mutant ids of each verdict, one a line, as cargo-mutants lists them (`caught.txt`:
/// killed; `missed.txt`: survived; `timeout.txt`; `unviable.txt`).
pub(crate) const LISTS: [&str; 4] = ["caught.txt", "missed.txt", "timeout.txt", "unviable.txt"];
/// How every log the tool writes begins: how `clear` tells its logs from the user's files.
pub(crate) const MUTANT_HEADER: &str = "mutant: ";
pub(crate) const BASELINE_HEADER: &str = "baseline: the unmutated scratch copy\n";

const MARKER_TEXT: &str = "This folder is written by `cargo capcheck mutants`. A new run replaces \
                           mutants.json, mutation-report.json, survivors.sarif, report.html, \
                           verdicts.jsonl, caught.txt, missed.txt, timeout.txt, unviable.txt \
                           and the logs/*.log and diff/*.diff it wrote here, and touches \
                           nothing else.\n";

/// Make `dir` the tool's own: create and mark it when it is missing, mark it when it is empty,
/// accept it when it is marked; refuse a folder that holds anything else.
pub(crate) fn claim(dir: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    if dir.exists() {
        if !dir.is_dir() {
            bail!("the output folder {} is not a folder", dir.display());
        }
        let mut entries = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read the output folder {}", dir.display()))?;
        if entries.next().is_some() {
            let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
            bail!(
                "the output folder {} is not empty and was not written by `cargo capcheck \
                 mutants` (it has no {MARKER} file); nothing was written: name a new or empty \
                 folder with --output",
                shown.display()
            );
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut f = create_new(&dir.join(MARKER))
        .with_context(|| format!("cannot write {}", dir.join(MARKER).display()))?;
    std::io::Write::write_all(&mut f, MARKER_TEXT.as_bytes())
        .with_context(|| format!("cannot write {}", dir.join(MARKER).display()))
}

/// Claim `dir`, then remove what an earlier run wrote there: the reports, the verdicts and the
/// `logs/*.log` files the tool wrote. Anything else, in `logs/` or beside it, stays.
pub(crate) fn clear(dir: &Path) -> anyhow::Result<()> {
    claim(dir)?;
    for f in [REPORT_JSON, ELEMENTS_JSON, SARIF, HTML, VERDICTS]
        .into_iter()
        .chain(LISTS)
    {
        remove_ours(&dir.join(f))?;
    }
    clear_folder(&dir.join(DIFFS), "diff")?;
    let logs = dir.join(LOGS);
    if !logs_folder(&logs)? {
        return std::fs::create_dir(&logs)
            .with_context(|| format!("cannot create {}", logs.display()));
    }
    clear_folder(&logs, "log")
}

/// Remove the `*.ext` files the tool wrote in `folder`, when it is there (a link or a file in
/// its place is refused).
fn clear_folder(folder: &Path, ext: &str) -> anyhow::Result<()> {
    if !logs_folder(folder)? {
        return Ok(());
    }
    let entries =
        std::fs::read_dir(folder).with_context(|| format!("cannot read {}", folder.display()))?;
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_some_and(|x| x == ext) && written_by_us(&path) {
            remove_file(&path)?;
        }
    }
    Ok(())
}

/// Write a mutant's diff as `diff/<name>` of the claimed folder `dir`, on the same terms as a
/// log: never through a link, over an earlier one only when the tool wrote it.
pub(crate) fn write_diff(dir: &Path, name: &str, text: &str) -> anyhow::Result<()> {
    let diffs = dir.join(DIFFS);
    if !logs_folder(&diffs)? {
        std::fs::create_dir(&diffs)
            .with_context(|| format!("cannot create {}", diffs.display()))?;
    }
    write_replacing(&diffs.join(name), text.as_bytes())
}

/// Whether `logs` is there as a real folder; an error when something else (a link, a file) is.
fn logs_folder(logs: &Path) -> anyhow::Result<bool> {
    match std::fs::symlink_metadata(logs) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => bail!(
            "{} is not a folder (a link or a file); nothing was removed or written: remove it or \
             name another --output",
            logs.display()
        ),
        Err(_) => Ok(false),
    }
}

/// Write a report into the claimed folder `dir`: an earlier run's is replaced, anything else by
/// that name (a user's file, a link) is refused. Written atomically, as the manifest is: a kill
/// mid-write must not leave a half report that the next run could not tell for its own.
pub(crate) fn write_report(dir: &Path, name: &str, text: &str) -> anyhow::Result<()> {
    let path = dir.join(name);
    remove_ours(&path)?;
    crate::sys::fs::write_atomic(&path, text)
}

/// Copy a shard's log into `logs`, the claimed folder's log folder (`merge`), on the same terms
/// as a report: never through a link, and over an earlier copy only when the tool wrote it.
pub(crate) fn copy_log(from: &Path, logs: &Path) -> anyhow::Result<()> {
    if !logs_folder(logs)? {
        bail!("{} is missing", logs.display());
    }
    let bytes = std::fs::read(from).with_context(|| format!("cannot copy {}", from.display()))?;
    write_replacing(&logs.join(from.file_name().unwrap_or_default()), &bytes)
}

fn write_replacing(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    remove_ours(path)?;
    let mut f = create_new(path).with_context(|| format!("cannot write {}", path.display()))?;
    std::io::Write::write_all(&mut f, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Create a file of the output folder that must not exist yet, never through a symlink; a file
/// in the way is named in the error.
pub(crate) fn create_new(path: &Path) -> std::io::Result<File> {
    crate::sys::fs::create_new(path).map_err(|e| in_the_way(path, e))
}

fn in_the_way(path: &Path, e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        std::io::Error::new(
            e.kind(),
            format!(
                "{} is in the way and was not written by `cargo capcheck mutants`; it was left as \
                 it is: move it away or name another --output",
                path.display()
            ),
        )
    } else {
        e
    }
}

/// Remove `path` when it is a file this tool wrote; fine when it is missing; an error when
/// something else is there (it would be in the way of the new run's file).
fn remove_ours(path: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    if !written_by_us(path) {
        return Err(in_the_way(
            path,
            std::io::Error::from(std::io::ErrorKind::AlreadyExists),
        )
        .into());
    }
    remove_file(path)
}

/// Whether `path` is a regular file (not a link) with the content this tool writes under its
/// name.
fn written_by_us(path: &Path) -> bool {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let json = || serde_json::from_slice::<serde_json::Value>(&bytes).unwrap_or_default();
    match name {
        REPORT_JSON => {
            let v = json();
            v.get("summary").is_some() && v["mutants"].is_array()
        }
        ELEMENTS_JSON => json()["framework"]["name"] == "cargo-capcheck",
        SARIF => json()["runs"][0]["tool"]["driver"]["name"] == "cargo-capcheck",
        HTML => bytes
            .windows(HTML_GENERATOR.len())
            .any(|w| w == HTML_GENERATOR.as_bytes()),
        VERDICTS => {
            // The first line names the code (`{"tree": ..}`), each other line is one verdict;
            // the last may be cut short by a kill mid-append (the line and its newline go in one
            // write).
            let (lines, last) = match bytes.iter().rposition(|b| *b == b'\n') {
                Some(i) => (&bytes[..i], &bytes[i + 1..]),
                None => (&[][..], bytes.as_slice()),
            };
            (last.is_empty() || last.starts_with(br#"{"id":"#))
                && lines
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .all(|l| {
                        serde_json::from_slice::<serde_json::Value>(l).is_ok_and(|v| {
                            v.get("outcome").is_some()
                                || v.get(crate::mutate::engine::TREE_KEY).is_some()
                        })
                    })
        }
        _ if LISTS.contains(&name) => {
            // Mutant ids, one a line: `operator:file:item:hash`.
            std::str::from_utf8(&bytes).is_ok_and(|t| {
                t.lines().all(|l| {
                    l.split(':').next().is_some_and(|op| {
                        crate::catalog::Operator::ALL.iter().any(|o| o.id() == op)
                    })
                })
            })
        }
        // A log or diff starts with its header; a kill between creating the file and writing
        // the header leaves it empty or cut inside the header, which holds nothing to lose and
        // would otherwise stand in the next run's way.
        _ => [MUTANT_HEADER, BASELINE_HEADER]
            .iter()
            .any(|h| bytes.starts_with(h.as_bytes()) || h.as_bytes().starts_with(&bytes)),
    }
}

fn remove_file(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_new_or_empty_folder_is_created_and_marked() {
        let tmp = tempfile::tempdir().unwrap();
        let new = tmp.path().join("a/b");
        clear(&new).unwrap();
        assert!(new.join(MARKER).is_file() && new.join(LOGS).is_dir());
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        claim(&empty).unwrap();
        assert!(empty.join(MARKER).is_file());
    }

    #[test]
    fn a_foreign_folder_is_refused_and_left_untouched() {
        // Regression: `--output .` used to remove_dir_all the user's `./logs`.
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("logs/important.txt"), "precious");
        write(&tmp.path().join("mutants.json"), "mine");
        let err = clear(tmp.path()).unwrap_err().to_string();
        assert!(err.contains(&tmp.path().display().to_string()), "{err}");
        assert!(err.contains("not empty"), "{err}");
        let read = |p: &str| std::fs::read_to_string(tmp.path().join(p)).unwrap();
        assert_eq!(read("logs/important.txt"), "precious");
        assert_eq!(read("mutants.json"), "mine");
        assert!(!tmp.path().join(MARKER).exists());
    }

    /// What an earlier run left under each name the tool writes.
    fn earlier_run(dir: &Path) {
        for (f, text) in [
            (
                REPORT_JSON,
                r#"{"version": 1, "summary": {}, "mutants": []}"#,
            ),
            (
                ELEMENTS_JSON,
                r#"{"framework": {"name": "cargo-capcheck"}}"#,
            ),
            (
                SARIF,
                r#"{"runs": [{"tool": {"driver": {"name": "cargo-capcheck"}}}]}"#,
            ),
            // The code's line, a verdict, and the last line cut short by a kill mid-append.
            (
                VERDICTS,
                "{\"tree\": \"0123abcd\"}\n{\"outcome\": \"killed\"}\n{\"id\":\"perturb",
            ),
            ("logs/baseline.log", BASELINE_HEADER),
            ("logs/x.log", "mutant: x\n"),
            // Killed between creating a log and writing its header, or inside the header.
            ("logs/y.log", ""),
            ("logs/z.log", "muta"),
            ("missed.txt", "swap-min-max:src/lib.rs:f:1234abcd\n"),
            ("caught.txt", ""),
            ("diff/x.diff", "mutant: x\n--- a/src/lib.rs\n"),
        ] {
            write(&dir.join(f), text);
        }
    }

    fn files_left(dir: &Path) -> Vec<String> {
        let mut left: Vec<String> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| !e.file_type().is_dir())
            .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
            .collect();
        left.sort();
        left
    }

    #[test]
    fn a_marked_folder_loses_only_what_the_tool_writes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        clear(dir).unwrap();
        earlier_run(dir);
        write(&dir.join("notes.txt"), "keep");
        write(&dir.join("logs/notes.txt"), "keep");
        write(&dir.join("diff/mine.diff"), "--- a/my own patch\n");
        // A user's file named like a log, and a link named like one, are not the tool's.
        write(&dir.join("logs/mine.log"), "my own log");
        std::os::unix::fs::symlink(dir.join("notes.txt"), dir.join("logs/link.log")).unwrap();
        clear(dir).unwrap();
        assert_eq!(
            files_left(dir),
            [
                MARKER,
                "diff/mine.diff",
                "logs/link.log",
                "logs/mine.log",
                "logs/notes.txt",
                "notes.txt"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
            "keep"
        );
    }

    #[test]
    fn a_logs_folder_replaced_by_a_link_is_refused_and_nothing_is_removed() {
        // Regression: cleanup followed `logs -> elsewhere` and removed `*.log` files there.
        let tmp = tempfile::tempdir().unwrap();
        let (dir, elsewhere) = (tmp.path().join("out"), tmp.path().join("elsewhere"));
        clear(&dir).unwrap();
        earlier_run(&dir);
        std::fs::remove_dir_all(dir.join(LOGS)).unwrap();
        write(&elsewhere.join("precious.log"), "mutant: looks like ours\n");
        std::os::unix::fs::symlink(&elsewhere, dir.join(LOGS)).unwrap();
        let err = clear(&dir).unwrap_err().to_string();
        assert!(err.contains("not a folder (a link"), "{err}");
        assert_eq!(files_left(&elsewhere), ["precious.log"]);
    }

    #[test]
    fn a_foreign_file_under_a_report_name_is_refused_and_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        clear(dir).unwrap();
        write(&dir.join(SARIF), "my notes");
        let err = clear(dir).unwrap_err().to_string();
        assert!(err.contains("in the way"), "{err}");
        let err = write_report(dir, SARIF, "{}").unwrap_err();
        assert!(format!("{err:#}").contains("in the way"), "{err:#}");
        assert_eq!(
            std::fs::read_to_string(dir.join(SARIF)).unwrap(),
            "my notes"
        );
        // A link under a report's name is never written through.
        std::fs::remove_file(dir.join(SARIF)).unwrap();
        write(&tmp.path().join("target.txt"), "keep");
        std::os::unix::fs::symlink(dir.join("target.txt"), dir.join(REPORT_JSON)).unwrap();
        assert!(write_report(dir, REPORT_JSON, "{}").is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("target.txt")).unwrap(),
            "keep"
        );
    }

    #[test]
    fn merge_copies_logs_only_into_a_real_folder_and_never_through_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, shard) = (tmp.path().join("merged"), tmp.path().join("shard"));
        clear(&dir).unwrap();
        write(&shard.join("a.log"), "mutant: a\n");
        write(&shard.join("b.log"), "mutant: b\n");
        copy_log(&shard.join("a.log"), &dir.join(LOGS)).unwrap();
        // Again over the tool's own copy: replaced.
        copy_log(&shard.join("a.log"), &dir.join(LOGS)).unwrap();
        write(&tmp.path().join("precious.txt"), "keep");
        std::os::unix::fs::symlink(tmp.path().join("precious.txt"), dir.join("logs/b.log"))
            .unwrap();
        assert!(copy_log(&shard.join("b.log"), &dir.join(LOGS)).is_err());
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("precious.txt")).unwrap(),
            "keep"
        );
        std::fs::remove_dir_all(dir.join(LOGS)).unwrap();
        std::os::unix::fs::symlink(&shard, dir.join(LOGS)).unwrap();
        let err = copy_log(&shard.join("a.log"), &dir.join(LOGS)).unwrap_err();
        assert!(err.to_string().contains("not a folder"), "{err}");
    }
}
