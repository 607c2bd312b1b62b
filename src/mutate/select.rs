//! Choosing which mutants run: by operator, by the lines a patch changed (`--in-diff`), and by
//! shard (`--shard k/n`, mutant i of the canonical order goes to shard i mod n).

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use crate::mutate::Mutant;

/// `k/n`: this run takes shard k (0-based) of n.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parsed = s
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((k, n)) if n > 0 && k < n => Ok(Shard { k, n }),
            _ => Err(format!(
                "expected K/N with 0 <= K < N (e.g. 0/2), got `{s}`"
            )),
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

pub fn shard(mutants: Vec<Mutant>, shard: Shard) -> Vec<Mutant> {
    mutants
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % shard.n == shard.k)
        .map(|(_, m)| m)
        .collect()
}

/// Lines added or changed by a unified diff, by file path as the diff names it (`b/` dropped).
/// An empty patch changes nothing; text with no `+++ ` file header, or a hunk header without a
/// new-side start, is not a unified diff: a located problem.
pub fn changed_lines(
    patch: &str,
) -> Result<BTreeMap<String, BTreeSet<usize>>, crate::diag::Problem> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut line = 0usize;
    let mut headers = 0;
    for (n, l) in patch.lines().enumerate() {
        if let Some(path) = l.strip_prefix("+++ ") {
            headers += 1;
            let path = path.split('\t').next().unwrap_or(path).trim();
            file =
                (path != "/dev/null").then(|| path.strip_prefix("b/").unwrap_or(path).to_string());
        } else if let Some(hunk) = l.strip_prefix("@@ ") {
            // @@ -a,b +c,d @@: new-side lines start at c.
            line = hunk
                .split_whitespace()
                .find_map(|w| w.strip_prefix('+'))
                .and_then(|w| w.split(',').next()?.parse().ok())
                .ok_or_else(|| {
                    crate::diag::Problem::new(
                        n + 1,
                        1,
                        "expected a hunk header `@@ -a,b +c,d @@` with the new side's start",
                    )
                })?;
        } else if let Some(f) = &file {
            if l.starts_with('+') {
                out.entry(f.clone()).or_default().insert(line);
                line += 1;
            } else if l.starts_with(' ') || l.is_empty() {
                line += 1;
            }
        }
    }
    if headers == 0 && !patch.trim().is_empty() {
        return Err(crate::diag::Problem::new(
            1,
            1,
            "not a unified diff: expected a `+++ b/<file>` header (the output of `git diff` or \
             `diff -u`)",
        ));
    }
    Ok(out)
}

/// Mutants whose span touches a changed line. Paths match when one ends with the other, so a
/// patch made at the repository root selects in a workspace below it.
pub fn in_diff(mutants: Vec<Mutant>, changed: &BTreeMap<String, BTreeSet<usize>>) -> Vec<Mutant> {
    mutants
        .into_iter()
        .filter(|m| {
            changed.iter().any(|(path, lines)| {
                same_file(path, &m.file) && lines.range(m.line..=m.end_line).next().is_some()
            })
        })
        .collect()
}

/// Whether two '/'-separated paths name the same file, one relative to a folder above the other.
fn same_file(a: &str, b: &str) -> bool {
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_reject_nonsense() {
        assert_eq!("1/2".parse::<Shard>(), Ok(Shard { k: 1, n: 2 }));
        assert!("2/2".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn changed_lines_follow_hunks() {
        let patch = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n\
                     @@ -10,3 +10,4 @@ impl X {\n     a\n-    b\n+    c\n+    d\n     e\n";
        let changed = changed_lines(patch).unwrap();
        assert_eq!(changed["src/lib.rs"], BTreeSet::from([11, 12]));
    }
}
