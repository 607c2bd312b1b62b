//! The measured-capacity manifest, `capacity.toml`: its model, reading with located errors,
//! expressions over measured quantities, binding entries to code sites, and `init`.

pub(crate) mod bind;
pub(crate) mod eval;
pub(crate) mod init;
pub(crate) mod model;
pub(crate) mod parse;

/// What every reader of TOML says when toml_edit itself fails (0.23 panics on `==\n.value = `,
/// found by `fuzz::the_manifest_reader_takes_any_text` at 10 million inputs).
pub(crate) const TOML_PANIC: &str =
    "not valid TOML (the TOML parser, toml_edit, gave up on this text)";

/// Run a toml_edit parse, turning a panic inside it into `Err` (and keeping the panic's message
/// off stderr: it is reported as the caller's located error instead).
pub(crate) fn toml_guarded<T>(parse: impl FnOnce() -> T) -> Result<T, &'static str> {
    use std::cell::Cell;
    thread_local!(static QUIET: Cell<bool> = const { Cell::new(false) });
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse));
    QUIET.with(|q| q.set(false));
    parsed.map_err(|_| TOML_PANIC)
}

use std::path::{Path, PathBuf};

pub(crate) use model::{Entry, Manifest, Method, Role};

/// Where the manifest lives: `--capacity PATH`, else `manifest = ..` from the config, else
/// `capacity.toml` at the workspace root.
pub(crate) fn locate(root: &Path, flag: Option<&Path>, config: Option<&str>) -> PathBuf {
    match (flag, config) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(c)) => root.join(c),
        (None, None) => root.join("capacity.toml"),
    }
}

/// A manifest that was named but does not exist (`init` creates it).
#[derive(Debug, thiserror::Error)]
#[error("capacity manifest `{}` does not exist", .0.display())]
pub(crate) struct Missing(pub(crate) PathBuf);

/// Read the manifest at `path` if it exists. A manifest that was named (`required`: by
/// `--capacity` or the config's `manifest`) and is missing is an error; a missing default manifest
/// is simply absent. Anything but a regular file (a FIFO would block the read) is refused.
pub(crate) fn load(root: &Path, path: &Path, required: bool) -> anyhow::Result<Option<Manifest>> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A link to nowhere is a manifest the user meant to have, not "no manifest".
            if let Ok(to) = std::fs::read_link(path) {
                anyhow::bail!(
                    "capacity manifest `{}` is a link to `{}`, which does not exist",
                    path.display(),
                    to.display()
                );
            }
            if required {
                return Err(Missing(path.to_path_buf()).into());
            }
            return Ok(None);
        }
        Ok(m) if !m.is_file() => anyhow::bail!(
            "capacity manifest `{}` is not a regular file (a folder, FIFO or device)",
            path.display()
        ),
        _ => {}
    }
    let text = crate::sys::fs::read_text(path)
        .map_err(|e| anyhow::anyhow!("cannot read capacity manifest `{}`: {e}", path.display()))?;
    let rel = crate::workspace::rel(root, path);
    Ok(Some(parse::parse(&rel, &text)?))
}

/// Every name that names `site` by the site rule: the site itself and each `::`-aligned suffix
/// with a `::` in it (`a::b::C` -> `a::b::C`, `b::C`). A pattern binds the site exactly when it
/// is one of these, so binding by lookup gives what `binds` gives, in time linear in the sites.
pub(crate) fn names_of(site: &str) -> impl Iterator<Item = &str> {
    let suffixes = (0..site.len())
        .filter(|&i| site[i..].starts_with("::"))
        .map(move |i| &site[i + 2..])
        .filter(|s| s.contains("::"));
    std::iter::once(site).chain(suffixes)
}

/// Entry sites indexed by name: the first entry that binds a site, without trying every entry.
pub(crate) struct Bindings<'a> {
    first: std::collections::HashMap<&'a str, usize>,
}

impl<'a> Bindings<'a> {
    /// Index the sites in order (an entry's position is its index).
    pub(crate) fn new(sites: impl IntoIterator<Item = &'a str>) -> Self {
        let mut first = std::collections::HashMap::new();
        for (i, s) in sites.into_iter().enumerate() {
            first.entry(s).or_insert(i);
        }
        Bindings { first }
    }

    /// The position of the first site that binds `site` (as `binds` would find it).
    pub(crate) fn first(&self, site: &str) -> Option<usize> {
        names_of(site)
            .filter_map(|n| self.first.get(n).copied())
            .min()
    }
}

#[cfg(test)]
mod binding_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The lookup finds what trying every entry with the site rule finds.
        #[test]
        fn bindings_agree_with_the_site_rule(
            sites in proptest::collection::vec("[ab:#2]{0,9}", 0..12),
            site in "[ab:#2]{0,12}",
        ) {
            let by_rule = sites.iter().position(|p| crate::site::matches(&site, p));
            let by_lookup = Bindings::new(sites.iter().map(String::as_str)).first(&site);
            prop_assert_eq!(by_rule, by_lookup);
        }
    }
}
