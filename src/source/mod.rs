//! Source text as data: a location in a workspace file (`Loc`), the one line index (`lines`),
//! and the one file-text cache (`Texts`): texts of workspace files by their workspace-relative
//! path, filled by the project load (the files it kept) and read on demand by renderers. A file
//! that cannot be read is empty text: renderers degrade, they never fail.

pub(crate) mod lines;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// A 1-based location range in a workspace file, `file` relative to the workspace root with '/'.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub(crate) struct Loc {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
}

impl Loc {
    /// Whether `other` lies within this range, in the same file.
    pub(crate) fn contains(&self, other: &Loc) -> bool {
        self.file == other.file
            && (self.line, self.column) <= (other.line, other.column)
            && (other.end_line, other.end_column) <= (self.end_line, self.end_column)
    }
}

#[derive(Debug, Default)]
pub(crate) struct Texts {
    root: PathBuf,
    cache: HashMap<String, String>,
}

impl Texts {
    pub(crate) fn new(root: &Path) -> Self {
        Texts {
            root: root.to_path_buf(),
            cache: HashMap::new(),
        }
    }

    pub(crate) fn insert(&mut self, rel: &str, text: String) {
        self.cache.insert(rel.to_string(), text);
    }

    /// The text of `rel` (relative to the workspace root), read once.
    pub(crate) fn get(&mut self, rel: &str) -> &str {
        let root = &self.root;
        self.cache
            .entry(rel.to_string())
            .or_insert_with(|| crate::sys::fs::read_text(&root.join(rel)).unwrap_or_default())
    }

    /// The text of `rel` when it is cached already.
    pub(crate) fn cached(&self, rel: &str) -> Option<&str> {
        self.cache.get(rel).map(String::as_str)
    }
}

/// FNV-1a, 64 bits: stable across Rust versions and platforms, unlike `DefaultHasher`. Finding
/// fingerprints and mutant ids are made with it.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
