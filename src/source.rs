//! The one file-text cache: texts of workspace files by their workspace-relative path, filled by
//! the project load (the files it kept) and read on demand by renderers. A file that cannot be
//! read is empty text: renderers degrade, they never fail.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub struct Texts {
    root: PathBuf,
    cache: HashMap<String, String>,
}

impl Texts {
    pub fn new(root: &Path) -> Self {
        Texts {
            root: root.to_path_buf(),
            cache: HashMap::new(),
        }
    }

    pub fn insert(&mut self, rel: &str, text: String) {
        self.cache.insert(rel.to_string(), text);
    }

    /// The text of `rel` (relative to the workspace root), read once.
    pub fn get(&mut self, rel: &str) -> &str {
        let root = &self.root;
        self.cache
            .entry(rel.to_string())
            .or_insert_with(|| std::fs::read_to_string(root.join(rel)).unwrap_or_default())
    }

    /// The text of `rel` when it is cached already.
    pub fn cached(&self, rel: &str) -> Option<&str> {
        self.cache.get(rel).map(String::as_str)
    }
}
