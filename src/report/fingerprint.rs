//! Finding identity: the one definition of "the same finding" across runs, for SARIF
//! `partialFingerprints` (and anything else that must recognise a finding after unrelated edits).
//!
//! A finding's identity is its rule (or report kind, or operator), its file (workspace-relative),
//! its enclosing item or site (`crate::module::ITEM`, never a line number), its expression text
//! with all whitespace removed (so re-indenting or re-wrapping keeps it), and an occurrence
//! counter among findings whose four parts are equal, counted in report order (file position).
//! Adding or removing lines elsewhere, even in the same file, changes none of these. Mutants
//! already carry this identity in their id (`mutate::fnv1a` over operator, file, item, texts and
//! an occurrence counter over the whole file, so a shard agrees with a full run); their
//! fingerprint is that id's, through [`Fingerprints::mutant`].

use std::collections::HashMap;

/// Hands out identities in report order, counting repeats.
#[derive(Debug, Default)]
pub struct Fingerprints {
    seen: HashMap<String, usize>,
}

/// Whitespace removed: the text of an expression as identity sees it.
pub fn normalise(text: &str) -> String {
    text.split_whitespace().collect()
}

impl Fingerprints {
    /// The identity of the next finding of `rule` at `item` in `file` whose span reads `text`:
    /// 16 hex digits of FNV-1a.
    pub fn next(&mut self, rule: &str, file: &str, item: &str, text: &str) -> String {
        let key = format!("{rule}\0{file}\0{item}\0{}", normalise(text));
        let n = self.seen.entry(key.clone()).or_insert(0);
        *n += 1;
        hex(&format!("{key}\0{n}"))
    }

    /// A mutant's identity: its stable id, which already counts occurrences over its file.
    pub fn mutant(id: &str) -> String {
        hex(id)
    }
}

fn hex(key: &str) -> String {
    format!("{:016x}", crate::mutate::fnv1a(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_ignores_whitespace_and_counts_repeats() {
        let mut a = Fingerprints::default();
        let first = a.next("per-unit-cap", "src/lib.rs", "x::f", "healthy * 8");
        let second = a.next("per-unit-cap", "src/lib.rs", "x::f", "healthy*8");
        assert_ne!(first, second, "the second occurrence is another finding");
        let mut b = Fingerprints::default();
        assert_eq!(
            first,
            b.next("per-unit-cap", "src/lib.rs", "x::f", "healthy\n  * 8")
        );
        assert_ne!(
            first,
            b.next("per-unit-cap", "src/lib.rs", "x::g", "healthy * 8")
        );
    }
}
