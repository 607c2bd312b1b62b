//! `parse-error`: a file that could not be read as Rust is a finding, not an abort.

use crate::catalog::Rule;

use crate::finding::Finding;
use crate::index::Index;

pub(crate) fn check(index: &Index) -> Vec<Finding> {
    index
        .files
        .iter()
        .filter_map(|f| f.parse_error.as_ref())
        .map(|e| {
            super::finding(
                Rule::ParseError,
                e.loc.clone(),
                format!("{}; the file was skipped", e.message),
                "here".to_string(),
            )
        })
        .collect()
}
