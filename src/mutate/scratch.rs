//! The scratch copy: the workspace copied to a temporary folder outside the user's tree,
//! gitignore-aware, without `target/` or `.git/`. Mutants are spliced into the copy, never into
//! the user's files; the folder is removed when the copy is dropped (also after a signal).
//!
//! Nothing in the copy leads back into the user's tree: every symlink that resolves inside the
//! workspace (absolute or relative, dangling or not) points at the same place in the copy, and a
//! link to a folder that holds the workspace is refused. Special files (FIFOs, sockets, devices)
//! are skipped, so no open can block, and so is a link to one, wherever it leads
//! (`tests/zero.rs -> /dev/zero` would have a build read without end): each such link is named
//! in [`Scratch::left_out`] for the run to say. Each copy names its owner (pid and start time) in
//! [`OWNER`], so a later run can remove a copy whose run was killed, with its processes.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::sys::process;

/// Every scratch folder's name starts with this.
pub(crate) const PREFIX: &str = "capcheck-mutants-";
/// In each scratch folder: `pid start-time` of the run that made it.
pub(crate) const OWNER: &str = ".capcheck-owner";

/// A copy of the workspace. Dropping it deletes the folder.
pub(crate) struct Scratch {
    dir: tempfile::TempDir,
    /// The links left out of the copy, each with why (`tests/zero.rs: a link to /dev/zero, a
    /// device`), in walk order.
    pub(crate) left_out: Vec<String>,
}

impl Scratch {
    /// Copy `root` (the workspace root) into a new folder under `parent` (the system temp folder
    /// when `None`). `target_dir` is the user's build folder, left out wherever it is.
    pub(crate) fn copy(
        root: &Path,
        target_dir: &Path,
        parent: Option<&Path>,
    ) -> anyhow::Result<Scratch> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(PREFIX);
        let dir = match parent {
            Some(p) => {
                std::fs::create_dir_all(p)
                    .with_context(|| format!("cannot create {}", p.display()))?;
                builder.tempdir_in(p)
            }
            None => builder.tempdir(),
        }
        .context("cannot create a scratch folder")?;
        let me = std::process::id();
        std::fs::write(
            dir.path().join(OWNER),
            format!("{me} {}\n", process::start_time(me).unwrap_or(0)),
        )
        .context("cannot write the scratch folder's owner file")?;
        let left_out = copy_tree(root, target_dir, dir.path())?;
        Ok(Scratch { dir, left_out })
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }
}

/// A scratch copy whose run is gone (killed before it could clean up), now removed.
#[derive(Debug)]
pub(crate) struct Stale {
    pub(crate) dir: PathBuf,
    pub(crate) pid: u32,
    /// Processes of that run still running in the copy, killed with their process groups.
    pub(crate) killed: usize,
}

/// Remove the scratch copies under `parent` (the system temp folder when `None`) whose owner no
/// longer runs, after killing the processes still working in them. A copy without an owner
/// file, or whose owner runs, is left alone.
pub(crate) fn clean_stale(parent: Option<&Path>) -> Vec<Stale> {
    let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut cleaned = Vec::new();
    for e in entries.flatten() {
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if !is_dir || !e.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let dir = e.path();
        let Some((pid, started)) = std::fs::read_to_string(dir.join(OWNER))
            .ok()
            .and_then(|t| parse_owner(&t))
        else {
            continue;
        };
        if process::alive(pid, started) {
            continue;
        }
        let killed = process::kill_groups_working_in(&dir);
        if std::fs::remove_dir_all(&dir).is_ok() || !dir.exists() {
            cleaned.push(Stale { dir, pid, killed });
        }
    }
    cleaned
}

fn parse_owner(text: &str) -> Option<(u32, u64)> {
    let mut it = text.split_whitespace();
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// Copy the tree; returns the links left out, each with why.
fn copy_tree(root: &Path, target_dir: &Path, dest: &Path) -> anyhow::Result<Vec<String>> {
    let mut left_out = Vec::new();
    let target_dir = target_dir.to_path_buf();
    let top = root.to_path_buf();
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    // A scratch folder placed inside the workspace (`--scratch-dir`) must not copy itself.
    let own = dest.to_path_buf();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            let p = e.path();
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && (e.file_name() == ".git"
                    || p == own
                    || p == target_dir
                    || (p.parent() == Some(top.as_path()) && e.file_name() == "target")))
        })
        .build();
    for entry in walker {
        if process::interrupted() {
            bail!("interrupted while copying the workspace");
        }
        let entry = entry.with_context(|| format!("walking {}", root.display()))?;
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        if rel.as_os_str().is_empty() {
            continue;
        }
        let to = dest.join(rel);
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            std::fs::create_dir_all(&to)?;
        } else if kind.is_symlink() {
            let link = link_in_copy(root, &real_root, dest, entry.path())?;
            // What the link leads to, followed: a FIFO, socket or device is never linked to.
            if let Ok(m) = std::fs::metadata(entry.path())
                && !m.is_file()
                && !m.is_dir()
            {
                left_out.push(format!(
                    "{}: a link to {}, a {}",
                    rel.display(),
                    std::fs::read_link(entry.path())
                        .unwrap_or_default()
                        .display(),
                    crate::sys::fs::kind_of(&m)
                ));
                continue;
            }
            std::os::unix::fs::symlink(link, &to)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &to)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        }
        // FIFOs, sockets and devices are skipped: opening a FIFO would block the copy, and no
        // build reads them.
    }
    // A library often ignores its lock file; the copy needs it to resolve the same versions
    // without the network.
    let lock = root.join("Cargo.lock");
    if std::fs::metadata(&lock).is_ok_and(|m| m.is_file()) && !dest.join("Cargo.lock").exists() {
        std::fs::copy(&lock, dest.join("Cargo.lock"))?;
    }
    for manifest in walkdir::WalkDir::new(dest)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() == "Cargo.toml")
    {
        let rel = manifest
            .path()
            .strip_prefix(dest)
            .unwrap_or(manifest.path());
        anchor_outside_paths(root, &root.join(rel), manifest.path())?;
    }
    Ok(left_out)
}

/// Point the path dependencies of the copied manifest `copy` (a copy of `original`) that lead
/// outside the workspace `root` (`shared = { path = "../shared" }`) at their real place, with an
/// absolute path: the copy lives elsewhere, where `../shared` does not exist. Paths inside the
/// workspace stay relative, so they resolve inside the copy.
fn anchor_outside_paths(root: &Path, original: &Path, copy: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(copy)?;
    let Ok(Ok(mut doc)) = crate::manifest::toml_guarded(|| text.parse::<toml_edit::DocumentMut>())
    else {
        return Ok(()); // cargo reports a broken manifest itself, with its location
    };
    let dir = original.parent().unwrap_or(root);
    let mut changed = false;
    let mut fix = |deps: &mut toml_edit::Item| {
        let Some(deps) = deps.as_table_like_mut() else {
            return;
        };
        for (_, dep) in deps.iter_mut() {
            let Some(dep) = dep.as_table_like_mut() else {
                continue;
            };
            let Some(path) = dep.get("path").and_then(|p| p.as_str()) else {
                continue;
            };
            let real = normalize(&dir.join(path));
            if !real.starts_with(normalize(root)) {
                dep.insert("path", toml_edit::value(real.display().to_string()));
                changed = true;
            }
        }
    };
    const DEPS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    for key in DEPS {
        if let Some(deps) = doc.get_mut(key) {
            fix(deps);
        }
    }
    if let Some(deps) = doc
        .get_mut("workspace")
        .and_then(|w| w.get_mut("dependencies"))
    {
        fix(deps);
    }
    if let Some(targets) = doc.get_mut("target").and_then(|t| t.as_table_like_mut()) {
        for (_, target) in targets.iter_mut() {
            for key in DEPS {
                if let Some(deps) = target.get_mut(key) {
                    fix(deps);
                }
            }
        }
    }
    if let Some(patches) = doc.get_mut("patch").and_then(|p| p.as_table_like_mut()) {
        for (_, source) in patches.iter_mut() {
            fix(source);
        }
    }
    if changed {
        std::fs::write(copy, doc.to_string())
            .with_context(|| format!("cannot write {}", copy.display()))?;
    }
    Ok(())
}

/// What the copy of the symlink at `link` (in the workspace `root`, whose real path is
/// `real_root`) points at: the same place in the copy `dest` when the link resolves inside the
/// workspace (by its text, or by its real path when it exists), else its real place, absolute, so
/// it resolves from the copy too. A link to a folder that holds the workspace is refused: through
/// it a mutant's tests would reach the user's tree.
fn link_in_copy(
    root: &Path,
    real_root: &Path,
    dest: &Path,
    link: &Path,
) -> anyhow::Result<PathBuf> {
    let text = std::fs::read_link(link)
        .with_context(|| format!("cannot read the link {}", link.display()))?;
    let lexical = normalize(&link.parent().unwrap_or(root).join(&text));
    let real = std::fs::canonicalize(link).ok();
    let inside = [root, real_root]
        .into_iter()
        .find_map(|base| lexical.strip_prefix(base).ok())
        .or_else(|| real.as_deref()?.strip_prefix(real_root).ok());
    if let Some(rel) = inside {
        return Ok(dest.join(rel));
    }
    let outside = real.unwrap_or(lexical);
    if root.starts_with(&outside) || real_root.starts_with(&outside) {
        bail!(
            "{} is a link to {}, a folder that holds the workspace: a mutant's tests could write \
             into your files through it, so nothing was copied; remove the link or list it in \
             .gitignore",
            link.display(),
            outside.display()
        );
    }
    Ok(outside)
}

/// `a/b/../c` as `a/c`, without touching the filesystem (the folder may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Copy a folder recursively (a warm build folder for another job). Symlinks are recreated;
/// special files are skipped.
pub(crate) fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry?;
        let rel = entry.path().strip_prefix(from)?;
        let dest: PathBuf = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn links_into_the_workspace_point_into_the_copy_and_special_files_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let (ws, out) = (tmp.path().join("ws"), tmp.path().join("scratch"));
        write(&ws.join("snapshots/a.snap"), "snap");
        write(&tmp.path().join("shared/data.txt"), "shared");
        let link = |to: &Path, at: &str| std::os::unix::fs::symlink(to, ws.join(at)).unwrap();
        std::fs::create_dir_all(ws.join("tests")).unwrap();
        link(&ws.join("snapshots"), "tests/abs");
        link(Path::new("../snapshots"), "tests/rel");
        link(&ws.join("snapshots/new.snap"), "tests/dangling");
        link(Path::new("../shared"), "outside");
        mkfifo(&ws.join("pipe"));
        let copy = Scratch::copy(&ws, &ws.join("target"), Some(&out)).unwrap();
        let root = std::fs::canonicalize(copy.root()).unwrap();
        for (at, expect) in [
            ("tests/abs", "snapshots"),
            ("tests/rel", "snapshots"),
            ("tests/dangling", "snapshots/new.snap"),
        ] {
            let to = std::fs::read_link(root.join(at)).unwrap();
            let to = std::fs::canonicalize(to.parent().unwrap())
                .unwrap()
                .join(to.file_name().unwrap());
            assert_eq!(to, root.join(expect), "{at}");
        }
        assert_eq!(
            std::fs::read_link(root.join("outside")).unwrap(),
            std::fs::canonicalize(tmp.path().join("shared")).unwrap()
        );
        assert!(!root.join("pipe").exists(), "the FIFO was not skipped");
        assert!(root.join(OWNER).is_file());
    }

    #[test]
    fn a_link_to_a_folder_holding_the_workspace_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        write(&ws.join("Cargo.toml"), "");
        std::os::unix::fs::symlink("..", ws.join("up")).unwrap();
        let err = Scratch::copy(&ws, &ws.join("target"), Some(&tmp.path().join("s")))
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("holds the workspace"), "{err}");
    }

    #[test]
    fn only_a_copy_whose_owner_is_gone_is_cleaned() {
        let tmp = tempfile::tempdir().unwrap();
        let live = Scratch::copy(
            tmp.path(),
            &tmp.path().join("t"),
            Some(&tmp.path().join("p")),
        )
        .unwrap();
        let dead = tmp.path().join("p").join(format!("{PREFIX}dead"));
        // pid_max is at most 2^22: this pid cannot run.
        write(&dead.join(OWNER), "4194305 1\n");
        let unowned = tmp.path().join("p").join(format!("{PREFIX}unowned"));
        std::fs::create_dir_all(&unowned).unwrap();
        let cleaned = clean_stale(Some(&tmp.path().join("p")));
        assert_eq!(cleaned.len(), 1, "{cleaned:?}");
        assert_eq!(
            (cleaned[0].dir.as_path(), cleaned[0].pid),
            (dead.as_path(), 4194305)
        );
        assert!(!dead.exists() && unowned.exists() && live.root().exists());
    }
}
