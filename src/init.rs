//! `cargo capcheck init`: adopt the tool on a legacy codebase with a green CI and a to-do list.
//! Loads the project (creating a named manifest that does not exist yet), adds an unmeasured
//! entry for every capacity the manifest does not cover (`manifest::init`), and writes the
//! manifest once. Returns what it did; `cli` says so.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::project::{Needs, Project, ProjectOptions};

/// What `init` did.
#[derive(Debug)]
pub(crate) struct Inited {
    pub(crate) path: PathBuf,
    /// Entries added (the manifest is not written when none is).
    pub(crate) added: usize,
}

/// Run `init`. A manifest that does not read is refused by the load: the user's file is never
/// half-written.
pub(crate) fn run(opts: &ProjectOptions) -> anyhow::Result<Inited> {
    let front = front(opts)?;
    let path = front.manifest_path;
    let existing = if front.manifest.is_some() {
        crate::sys::fs::read_text(&path)
            .map_err(|e| anyhow::anyhow!("cannot read `{}`: {e}", path.display()))?
    } else {
        String::new()
    };
    let (text, added) = crate::manifest::init::add_unmeasured(&existing, &front.index.capacities)?;
    if added > 0 {
        crate::sys::fs::write_atomic(&path, &text)?;
    }
    Ok(Inited { path, added })
}

/// `Project::load` for `init`: a manifest that is named (by `--capacity` or the config) and does
/// not exist yet is created (empty), as the flag's help says, and removed again when reading the
/// workspace fails.
fn front(opts: &ProjectOptions) -> anyhow::Result<Project> {
    let flag = opts.capacity.as_deref();
    let needs = Needs {
        manifest: true,
        ..Default::default()
    };
    let create = |p: &Path| {
        std::fs::File::create_new(p)
            .map(|_| p.to_path_buf())
            .with_context(|| format!("cannot create the capacity manifest `{}`", p.display()))
    };
    let mut created = match flag {
        Some(p) if std::fs::symlink_metadata(p).is_err() => Some(create(p)?),
        _ => None,
    };
    let mut front = Project::load(opts, needs);
    if let (None, Some(crate::manifest::Missing(p))) = (
        &created,
        front.as_ref().err().and_then(|e| e.downcast_ref()),
    ) {
        created = Some(create(&p.clone())?);
        front = Project::load(opts, needs);
    }
    if let (Err(_), Some(p)) = (&front, created) {
        let _ = std::fs::remove_file(p);
    }
    front
}
