//! Inline suppressions: a `capcheck: allow` comment on a finding's line or the line above it
//! silences that finding (`// capcheck: allow(per-unit-cap)` names rules; a bare
//! `// capcheck: allow` silences every rule there). The same words work after `#` in
//! capacity.toml. The job hands in each file's text; rules never read files themselves.

use crate::finding::Finding;

const MARKER: &str = "capcheck: allow";

/// Whether `line` allows `rule`.
fn allows(line: &str, rule: &str) -> bool {
    let Some(at) = line.find(MARKER) else {
        return false;
    };
    let rest = line[at + MARKER.len()..].trim_start();
    match rest.strip_prefix('(') {
        None => true,
        Some(list) => list
            .split(')')
            .next()
            .unwrap_or_default()
            .split(',')
            .any(|r| r.trim() == rule),
    }
}

/// Drop the findings an inline comment allows; returns how many were dropped.
pub fn apply(
    findings: &mut Vec<Finding>,
    text_of: &mut dyn FnMut(&str) -> Option<String>,
) -> usize {
    let before = findings.len();
    let mut cache: std::collections::HashMap<String, Option<Vec<String>>> = Default::default();
    findings.retain(|f| {
        let lines = cache
            .entry(f.loc.file.clone())
            .or_insert_with(|| text_of(&f.loc.file).map(|t| t.lines().map(String::from).collect()));
        let Some(lines) = lines else { return true };
        let here = lines.get(f.loc.line.wrapping_sub(1));
        let above = f.loc.line.checked_sub(2).and_then(|i| lines.get(i));
        ![here, above]
            .into_iter()
            .flatten()
            .any(|l| allows(l, &f.rule))
    });
    before - findings.len()
}

#[cfg(test)]
mod tests {
    use super::allows;

    #[test]
    fn reads_rule_lists_and_bare_allows() {
        assert!(allows(
            "x * 8 // capcheck: allow(per-unit-cap)",
            "per-unit-cap"
        ));
        assert!(allows(
            "// capcheck: allow(a, per-unit-cap)",
            "per-unit-cap"
        ));
        assert!(!allows(
            "// capcheck: allow(unmeasured-capacity)",
            "per-unit-cap"
        ));
        assert!(allows("# capcheck: allow", "stale-measurement"));
        assert!(!allows("// capcheck allow", "per-unit-cap"));
    }
}
