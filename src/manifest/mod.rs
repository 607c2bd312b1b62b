//! The measured-capacity manifest, `capacity.toml`: its model, reading with located errors,
//! expressions over measured quantities, binding entries to code sites, and `init`.

pub mod eval;
pub mod init;
pub mod model;
pub mod parse;

use std::path::{Path, PathBuf};

pub use model::{Entry, Manifest, Method, Role};

use crate::index::Capacity;

/// Where the manifest lives: `--capacity PATH`, else `manifest = ..` from the config, else
/// `capacity.toml` at the workspace root.
pub fn locate(root: &Path, flag: Option<&Path>, config: Option<&str>) -> PathBuf {
    match (flag, config) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(c)) => root.join(c),
        (None, None) => root.join("capacity.toml"),
    }
}

/// Read the manifest at `path` if it exists. A flag naming a missing file is an error; a missing
/// default manifest is simply absent.
pub fn load(root: &Path, path: &Path, required: bool) -> anyhow::Result<Option<Manifest>> {
    if !path.exists() {
        if required {
            anyhow::bail!("capacity manifest `{}` does not exist", path.display());
        }
        return Ok(None);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read capacity manifest `{}`: {e}", path.display()))?;
    let rel = crate::workspace::rel(root, path);
    Ok(Some(parse::parse(&rel, &text)?))
}

/// Whether an entry's site names this capacity, by the one site rule (`site::Site::matches`).
pub fn binds(entry_site: &str, cap: &Capacity) -> bool {
    crate::site::Site::matches(&cap.site, entry_site)
}

/// Replace `path` with `text` atomically (a temp file in the same folder, then a rename), so an
/// interrupted write never leaves a half-written manifest.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| anyhow::anyhow!("cannot write next to `{}`: {e}", path.display()))?;
    tmp.write_all(text.as_bytes())?;
    tmp.persist(path)
        .map_err(|e| anyhow::anyhow!("cannot write `{}`: {}", path.display(), e.error))?;
    Ok(())
}
