//! The scratch copy: the workspace copied to a temporary folder outside the user's tree,
//! gitignore-aware, without `target/` or `.git/`. Mutants are spliced into the copy, never into
//! the user's files; the folder is removed when the copy is dropped (also after Ctrl-C).

use std::path::{Path, PathBuf};

use anyhow::Context;

/// A copy of the workspace. Dropping it deletes the folder.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// Copy `root` (the workspace root) into a new folder under `parent` (the system temp folder
    /// when `None`). `target_dir` is the user's build folder, left out wherever it is.
    pub fn copy(root: &Path, target_dir: &Path, parent: Option<&Path>) -> anyhow::Result<Scratch> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("capcheck-mutants-");
        let dir = match parent {
            Some(p) => {
                std::fs::create_dir_all(p)
                    .with_context(|| format!("cannot create {}", p.display()))?;
                builder.tempdir_in(p)
            }
            None => builder.tempdir(),
        }
        .context("cannot create a scratch folder")?;
        copy_tree(root, target_dir, dir.path())?;
        Ok(Scratch { dir })
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }
}

fn copy_tree(root: &Path, target_dir: &Path, dest: &Path) -> anyhow::Result<()> {
    let target_dir = target_dir.to_path_buf();
    let top = root.to_path_buf();
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
            // A relative link that leaves the workspace would dangle in the copy: make it absolute.
            let link = std::fs::read_link(entry.path())?;
            let real = normalize(&entry.path().parent().unwrap_or(root).join(&link));
            let link = if link.is_relative() && !real.starts_with(normalize(root)) {
                real
            } else {
                link
            };
            std::os::unix::fs::symlink(link, &to)?;
        } else {
            std::fs::copy(entry.path(), &to)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        }
    }
    // A library often ignores its lock file; the copy needs it to resolve the same versions
    // without the network.
    let lock = root.join("Cargo.lock");
    if lock.exists() && !dest.join("Cargo.lock").exists() {
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
    Ok(())
}

/// Point the path dependencies of the copied manifest `copy` (a copy of `original`) that lead
/// outside the workspace `root` (`shared = { path = "../shared" }`) at their real place, with an
/// absolute path: the copy lives elsewhere, where `../shared` does not exist. Paths inside the
/// workspace stay relative, so they resolve inside the copy.
fn anchor_outside_paths(root: &Path, original: &Path, copy: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(copy)?;
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else {
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

/// Copy a folder recursively (a warm build folder for another job). Symlinks are recreated.
pub fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry?;
        let rel = entry.path().strip_prefix(from)?;
        let dest: PathBuf = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}
