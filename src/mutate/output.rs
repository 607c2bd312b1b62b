//! The output folder of `mutants`. The tool writes only into a folder it created or claimed
//! (marked with `.capcheck-mutants`), and clears only the files it writes there, so an
//! `--output` the user names never loses a file the tool did not write.

use std::path::Path;

use anyhow::{Context, bail};

pub const REPORT_JSON: &str = "mutants.json";
pub const ELEMENTS_JSON: &str = "mutation-report.json";
pub const SARIF: &str = "survivors.sarif";
/// Marks a folder this tool writes; without it a non-empty folder is refused.
pub const MARKER: &str = ".capcheck-mutants";
/// Per-mutant logs and `baseline.log`, in the output folder.
pub const LOGS: &str = "logs";

const MARKER_TEXT: &str = "This folder is written by `cargo capcheck mutants`. A new run replaces \
                           mutants.json, mutation-report.json, survivors.sarif and logs/*.log \
                           here, and touches nothing else.\n";

/// Make `dir` the tool's own: create and mark it when it is missing, mark it when it is empty,
/// accept it when it is marked; refuse a folder that holds anything else.
pub fn claim(dir: &Path) -> anyhow::Result<()> {
    if dir.join(MARKER).is_file() {
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
    std::fs::write(dir.join(MARKER), MARKER_TEXT)
        .with_context(|| format!("cannot write {}", dir.join(MARKER).display()))
}

/// Claim `dir`, then remove what an earlier run wrote there: the three reports and the
/// `logs/*.log` files. Anything else, in `logs/` or beside it, stays.
pub fn clear(dir: &Path) -> anyhow::Result<()> {
    claim(dir)?;
    for f in [REPORT_JSON, ELEMENTS_JSON, SARIF] {
        remove_file(&dir.join(f))?;
    }
    let logs = dir.join(LOGS);
    if let Ok(entries) = std::fs::read_dir(&logs) {
        for e in entries.flatten() {
            let path = e.path();
            let is_log = path.extension().is_some_and(|x| x == "log");
            if is_log && e.file_type().is_ok_and(|t| t.is_file()) {
                remove_file(&path)?;
            }
        }
    }
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))
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

    #[test]
    fn a_marked_folder_loses_only_what_the_tool_writes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        clear(dir).unwrap();
        for f in [
            REPORT_JSON,
            ELEMENTS_JSON,
            SARIF,
            "logs/baseline.log",
            "logs/x.log",
        ] {
            write(&dir.join(f), "old run");
        }
        write(&dir.join("notes.txt"), "keep");
        write(&dir.join("logs/notes.txt"), "keep");
        clear(dir).unwrap();
        let mut left: Vec<String> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
            .collect();
        left.sort();
        assert_eq!(left, [MARKER, "logs/notes.txt", "notes.txt"]);
    }
}
