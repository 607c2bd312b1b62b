//! Choosing which mutants run: by operator, by file and name (`--file`, `--re`), by the lines
//! a patch changed (`--in-diff`, whose new side must be the source's text), by the user's skips and exclusions (`--mutant`, `--skip-mutant`, `--exclude-file`, `--exclude-re`,
//! the config's `[workspace.metadata.capcheck.mutants]` and `capcheck: skip-mutants(..)`
//! comments), and by shard (`--shard k/n`, mutant i of the canonical order goes to shard i mod n).

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::catalog::Operator;
use crate::config::{MutantsConfig, glob, regex};
use crate::operators::mutant::Mutant;

/// `k/n`: this run takes shard k (0-based) of n.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    pub(crate) k: usize,
    pub(crate) n: usize,
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

// A shard is written `k/n` in reports, as on the command line.
impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

pub(crate) fn shard(mutants: Vec<Mutant>, shard: Shard) -> Vec<Mutant> {
    mutants
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % shard.n == shard.k)
        .map(|(_, m)| m)
        .collect()
}

/// One line of a patch's new side (a context or an added line): where the patch has it, and its
/// text, which must be the file's at that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewLine {
    /// The line in the new file.
    pub(crate) line: usize,
    /// The line in the patch (1-based).
    pub(crate) patch_line: usize,
    pub(crate) text: String,
}

/// A unified diff as data: per file (as the diff names it, `b/` dropped), the lines it adds or
/// changes and every new-side line with its text.
#[derive(Debug, Clone, Default)]
pub(crate) struct Patch {
    pub(crate) changed: BTreeMap<String, BTreeSet<usize>>,
    pub(crate) new_side: BTreeMap<String, Vec<NewLine>>,
}

/// Read a unified diff: the lines it adds or changes and its new side's text, by file path as
/// the diff names it (`b/` dropped). An empty patch changes nothing; text with no `+++ ` file
/// header, or a hunk header without both sides, is not a unified diff: a located problem.
pub(crate) fn parse_patch(patch: &str) -> Result<Patch, crate::diag::Problem> {
    let mut out = Patch::default();
    let mut file: Option<String> = None;
    let mut line = 0usize;
    // Lines of the hunk still to come on each side (`@@ -a,b +c,d @@`: b and d): a line is read
    // as the hunk's only while they last, so text after it (a mail signature, a blank line) is
    // not taken for context, and an added `++ x` is not taken for a file header.
    let (mut old_left, mut new_left) = (0usize, 0usize);
    let mut headers = 0;
    for (n, l) in patch.lines().enumerate() {
        if old_left > 0 || new_left > 0 {
            let Some(f) = &file else { continue };
            let (text, old, new) = if let Some(added) = l.strip_prefix('+') {
                out.changed.entry(f.clone()).or_default().insert(line);
                (Some(added), 0, 1)
            } else if l.starts_with('-') {
                (None, 1, 0)
            } else if l.starts_with('\\') {
                // `\ No newline at end of file`
                continue;
            } else {
                // Context: ` x`, or an empty line whose one space an editor took away.
                (Some(l.strip_prefix(' ').unwrap_or(l)), 1, 1)
            };
            old_left = old_left.saturating_sub(old);
            new_left = new_left.saturating_sub(new);
            if let Some(text) = text {
                out.new_side.entry(f.clone()).or_default().push(NewLine {
                    line,
                    patch_line: n + 1,
                    text: text.trim_end_matches('\r').to_string(),
                });
                line += 1;
            }
        } else if let Some(path) = l.strip_prefix("+++ ") {
            headers += 1;
            let path = path.split('\t').next().unwrap_or(path).trim();
            file =
                (path != "/dev/null").then(|| path.strip_prefix("b/").unwrap_or(path).to_string());
        } else if let Some(hunk) = l.strip_prefix("@@ ") {
            // @@ -a,b +c,d @@: new-side lines start at c; b and d lines follow (1 when absent).
            let side = |sign: char| {
                let w = hunk.split_whitespace().find_map(|w| w.strip_prefix(sign))?;
                let mut parts = w.split(',');
                let start: usize = parts.next()?.parse().ok()?;
                let count: usize = match parts.next() {
                    Some(c) => c.parse().ok()?,
                    None => 1,
                };
                Some((start, count))
            };
            let (Some((_, old)), Some((start, new))) = (side('-'), side('+')) else {
                return Err(crate::diag::Problem::new(
                    n + 1,
                    1,
                    "expected a hunk header `@@ -a,b +c,d @@` with both sides' start and length",
                ));
            };
            (line, old_left, new_left) = (start, old, new);
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

/// The first line of the patch's new side that is not the file's text at that line, checked
/// for every file `text` gives (the workspace's files the diff names; a file the workspace does
/// not hold is not checked). `name` is how the patch is cited. A patch made against other code
/// would select mutants by lines that mean nothing here: a located problem (exit 2).
pub(crate) fn check_patch(
    patch: &Patch,
    text: &dyn Fn(&str) -> Option<(String, String)>,
) -> Result<(), crate::diag::Problem> {
    for (file, lines) in &patch.new_side {
        let Some((rel, source)) = text(file) else {
            continue;
        };
        let source: Vec<&str> = source.lines().collect();
        for l in lines {
            let found = source
                .get(l.line.wrapping_sub(1))
                .map(|s| s.trim_end_matches('\r'));
            if found != Some(l.text.as_str()) {
                let says = match found {
                    Some(f) => format!("`{}`", one_line(f)),
                    None => format!("nothing (it has {} lines)", source.len()),
                };
                return Err(crate::diag::Problem::new(
                    l.patch_line,
                    1,
                    format!(
                        "the diff does not match the source: it has `{}` at {rel}:{}, the file has {says} (a diff of other code, or the tree changed since)",
                        one_line(&l.text),
                        l.line
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Mutants whose span touches a changed line. Paths match when one ends with the other, so a
/// patch made at the repository root selects in a workspace below it.
pub(crate) fn in_diff(
    mutants: Vec<Mutant>,
    changed: &BTreeMap<String, BTreeSet<usize>>,
) -> Vec<Mutant> {
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
pub(crate) fn same_file(a: &str, b: &str) -> bool {
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

/// The command line's selection of mutants by id, file and name (`--mutant`, `--skip-mutant`,
/// `--exclude-file`, `--exclude-re`); the config's exclusions are added to it in [`skip`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Filters {
    /// Only these ids (all when empty).
    pub(crate) only: Vec<String>,
    pub(crate) skip: Vec<String>,
    pub(crate) exclude_files: Vec<String>,
    pub(crate) exclude_re: Vec<String>,
    /// `--file GLOB`: only mutants of files matching one (all when empty).
    pub(crate) files: Vec<String>,
    /// `--re REGEX`: only mutants whose id or name matches one (all when empty).
    pub(crate) res: Vec<String>,
}

/// Keep the mutants `--file` and `--re` include: a file matching one of the globs and an id or
/// name matching one of the regexes (each filter passes everything when it is not given).
pub(crate) fn include(mutants: Vec<Mutant>, filters: &Filters) -> anyhow::Result<Vec<Mutant>> {
    let globs = filters
        .files
        .iter()
        .map(|g| glob(g))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    let res = filters
        .res
        .iter()
        .map(|r| regex(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)?;
    Ok(mutants
        .into_iter()
        .filter(|m| globs.is_empty() || globs.iter().any(|g| g.is_match(&m.file)))
        .filter(|m| {
            res.is_empty() || {
                let name = name(m);
                res.iter().any(|r| r.is_match(&m.id) || r.is_match(&name))
            }
        })
        .collect())
}

/// A mutant the user's skips or exclusions kept from running: listed and counted, never built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Skipped {
    #[serde(flatten)]
    pub(crate) mutant: Mutant,
    /// What skipped it: `--skip-mutant`, `--exclude-file GLOB`, `--exclude-re REGEX`, the
    /// config's `skip-mutants` / `exclude-files` / `exclude-re`, or `comment FILE:LINE`.
    pub(crate) skipped_by: String,
    /// Why, where the user said why (a comment's or a config entry's `reason`).
    pub(crate) reason: Option<String>,
}

/// What [`skip`] kept and what it skipped.
#[derive(Debug, Clone, Default)]
pub(crate) struct Skips {
    pub(crate) skipped: Vec<Skipped>,
    /// Ids in the config's `skip-mutants` that name no mutant of the selected packages (a
    /// warning: another package's, or a mutant the code no longer has).
    pub(crate) stale: Vec<String>,
}

/// A mutant's name as `--list` prints it and `--exclude-re` matches it:
/// `FILE:LINE:COLUMN: DESCRIPTION: `ORIGINAL` -> `REPLACEMENT`` (texts on one line).
pub(crate) fn name(m: &Mutant) -> String {
    let also: Vec<&str> = m.also.iter().map(|o| o.id()).collect();
    format!(
        "{}:{}:{}: {}: `{}` -> `{}`{}",
        m.file,
        m.line,
        m.column,
        m.description,
        one_line(&m.original),
        one_line(&m.replacement),
        if also.is_empty() {
            String::new()
        } else {
            format!(" (also proposed by {})", also.join(", "))
        }
    )
}

/// Whitespace runs as one space, at most 80 characters.
pub(crate) fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 80 {
        format!("{}...", flat.chars().take(77).collect::<String>())
    } else {
        flat
    }
}

/// Whether a skip or exclusion takes a mutant.
type Matcher = Box<dyn Fn(&Mutant) -> bool>;

/// Apply `--mutant`, the skips and the exclusions. `known` holds every mutant id of the selected
/// packages (before any other filter), against which `--mutant` and `--skip-mutant` ids are
/// checked: an unknown one is an error naming it. `text` gives a file's source, where
/// `capcheck: skip-mutants(..)` comments are read (a malformed one is a located error).
pub(crate) fn skip(
    mutants: Vec<Mutant>,
    known: &BTreeSet<String>,
    cli: &Filters,
    config: &MutantsConfig,
    text: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<(Vec<Mutant>, Skips)> {
    for (flag, ids) in [("--mutant", &cli.only), ("--skip-mutant", &cli.skip)] {
        if let Some(id) = ids.iter().find(|id| !known.contains(*id)) {
            anyhow::bail!(
                "{flag} {id}: no such mutant in the selected packages (`cargo capcheck mutants --list` prints the ids)"
            );
        }
    }
    let stale = config
        .skip_mutants
        .iter()
        .filter(|s| !known.contains(&s.id))
        .map(|s| s.id.clone())
        .collect();
    let mut rules: Vec<(String, Option<String>, Matcher)> = Vec::new();
    for id in &cli.skip {
        let id = id.clone();
        rules.push(("--skip-mutant".into(), None, Box::new(move |m| m.id == id)));
    }
    for s in &config.skip_mutants {
        let id = s.id.clone();
        rules.push((
            "config skip-mutants".into(),
            Some(s.reason.clone()),
            Box::new(move |m| m.id == id),
        ));
    }
    let files = cli.exclude_files.iter().map(|g| ("--exclude-file", g));
    let config_files = config
        .exclude_files
        .iter()
        .map(|g| ("config exclude-files", g));
    for (by, pattern) in files.chain(config_files) {
        let g = glob(pattern).map_err(anyhow::Error::msg)?;
        rules.push((
            format!("{by} {pattern}"),
            None,
            Box::new(move |m| g.is_match(&m.file)),
        ));
    }
    let res = cli.exclude_re.iter().map(|r| ("--exclude-re", r));
    let config_res = config.exclude_re.iter().map(|r| ("config exclude-re", r));
    for (by, pattern) in res.chain(config_res) {
        let re = regex(pattern).map_err(anyhow::Error::msg)?;
        rules.push((
            format!("{by} {pattern}"),
            None,
            Box::new(move |m| re.is_match(&m.id) || re.is_match(&name(m))),
        ));
    }
    let mut comments: BTreeMap<String, Vec<SkipComment>> = BTreeMap::new();
    let mut problems = crate::diag::InputErrors::default();
    for file in mutants.iter().map(|m| &m.file).collect::<BTreeSet<_>>() {
        let Some(text) = text(file) else { continue };
        match skip_comments(&text) {
            Ok(found) => {
                comments.insert(file.clone(), found);
            }
            Err(p) => problems.files.push(crate::diag::InputError {
                file: file.clone(),
                problems: p,
            }),
        }
    }
    if !problems.files.is_empty() {
        return Err(problems.into());
    }
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for m in mutants {
        if !cli.only.is_empty() && !cli.only.contains(&m.id) {
            continue;
        }
        let by_comment = comments.get(&m.file).and_then(|cs| {
            cs.iter().find(|c| {
                (c.lines.0..=c.lines.1).contains(&m.line)
                    && (c.operators.is_empty() || c.operators.contains(&m.operator))
            })
        });
        let found = by_comment
            .map(|c| {
                (
                    format!("comment {}:{}", m.file, c.line),
                    Some(c.reason.clone()),
                )
            })
            .or_else(|| {
                rules
                    .iter()
                    .find(|(_, _, matches)| matches(&m))
                    .map(|(by, reason, _)| (by.clone(), reason.clone()))
            });
        match found {
            Some((skipped_by, reason)) => skipped.push(Skipped {
                mutant: m,
                skipped_by,
                reason,
            }),
            None => kept.push(m),
        }
    }
    Ok((kept, Skips { skipped, stale }))
}

/// A `capcheck: skip-mutants(..)` comment: the lines it covers and what it skips there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SkipComment {
    /// The comment's own line.
    line: usize,
    /// First and last line covered: the comment's line after code, else the item or statement
    /// below it (as a `capcheck: allow` there would cover).
    lines: (usize, usize),
    /// Operator ids; empty: every operator.
    operators: Vec<Operator>,
    reason: String,
}

const SKIP: &str = "skip-mutants";

/// The skip comments of a file; a malformed one (no reason, an unknown operator, no list) is a
/// located problem.
fn skip_comments(text: &str) -> Result<Vec<SkipComment>, Vec<crate::diag::Problem>> {
    use crate::syntax::comments;
    let lines = crate::source::lines::Lines::new(text);
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for c in comments::rust_comments(text) {
        let Some(rest) = c
            .body
            .trim_start()
            .strip_prefix("capcheck:")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix(SKIP))
        else {
            continue;
        };
        let (line, column) = lines.position(c.start);
        let covered = if c.alone {
            (line, comments::rust_extent(text, &lines, c.end).max(line))
        } else {
            (line, line)
        };
        match parse_skip(rest) {
            Ok((operators, reason)) => out.push(SkipComment {
                line,
                lines: covered,
                operators,
                reason,
            }),
            Err(why) => problems.push(crate::diag::Problem::new(line, column, why)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// `(op, .., reason = "...")` after `skip-mutants`: the operators and the reason.
fn parse_skip(rest: &str) -> Result<(Vec<Operator>, String), String> {
    let usage = format!(
        "write `capcheck: {SKIP}(reason = \"...\")`, or `capcheck: {SKIP}(<operator>, .., reason = \"...\")` to skip only some operators"
    );
    let list = rest
        .trim()
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .ok_or_else(|| format!("`capcheck: {SKIP}` needs a list and a reason: {usage}"))?;
    let (ops, reason) = match list.find("reason") {
        Some(i) => (&list[..i], &list[i + "reason".len()..]),
        None => {
            return Err(format!(
                "a skip needs a reason (why the mutant should not run): {usage}"
            ));
        }
    };
    let reason = reason
        .trim_start()
        .strip_prefix('=')
        .map(str::trim)
        .and_then(|v| v.strip_prefix('"')?.strip_suffix('"'))
        .map(|v| v.replace("\\\"", "\""))
        .ok_or_else(|| format!("write the reason as `reason = \"...\"`: {usage}"))?;
    if reason.trim().is_empty() {
        return Err("the skip's reason is empty: say why the mutant should not run".into());
    }
    let mut operators = Vec::new();
    for op in ops.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let Some(op) = Operator::from_id(op) else {
            let ids: Vec<&str> = Operator::ALL.iter().map(|o| o.id()).collect();
            return Err(format!(
                "`{op}` is not a mutation operator (known: {})",
                ids.join(", ")
            ));
        };
        operators.push(op);
    }
    Ok((operators, reason))
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
        let parsed = parse_patch(patch).unwrap();
        assert_eq!(parsed.changed["src/lib.rs"], BTreeSet::from([11, 12]));
        let new_side: Vec<(usize, usize, &str)> = parsed.new_side["src/lib.rs"]
            .iter()
            .map(|l| (l.line, l.patch_line, l.text.as_str()))
            .collect();
        assert_eq!(
            new_side,
            [
                (10, 5, "    a"),
                (11, 7, "    c"),
                (12, 8, "    d"),
                (13, 9, "    e")
            ]
        );
    }

    #[test]
    fn skip_comments_cover_their_line_or_the_item_below_and_need_a_reason() {
        let text = "fn a() {\n    x.min(y) // capcheck: skip-mutants(reason = \"equivalent\")\n}\n\
                    // capcheck: skip-mutants(swap-min-max, reason = \"b, c\")\n#[inline]\nfn b() {\n    y\n}\n";
        let found = skip_comments(text).unwrap();
        assert_eq!(found[0].lines, (2, 2));
        assert_eq!(found[1].lines, (4, 8));
        assert_eq!(found[1].operators, [Operator::SwapMinMax]);
        assert_eq!(found[1].reason, "b, c");
        for (bad, says) in [
            ("// capcheck: skip-mutants\n", "needs a list"),
            ("// capcheck: skip-mutants()\n", "needs a reason"),
            ("// capcheck: skip-mutants(reason = \"\")\n", "empty"),
            (
                "// capcheck: skip-mutants(swap-min-mux, reason = \"x\")\n",
                "not a mutation operator",
            ),
        ] {
            let p = skip_comments(bad).unwrap_err();
            assert!(p[0].message.contains(says), "{bad}: {}", p[0].message);
        }
        let in_string = "const S: &str = \"// capcheck: skip-mutants(reason = \\\"x\\\")\";\n";
        assert_eq!(skip_comments(in_string).unwrap(), []);
    }

    #[test]
    fn globs_stay_in_folders_and_bare_names_match_anywhere() {
        let g = glob("src/gen/*.rs").unwrap();
        assert!(g.is_match("src/gen/a.rs") && !g.is_match("src/gen/x/a.rs"));
        assert!(glob("src/**/*.rs").unwrap().is_match("src/gen/x/a.rs"));
        assert!(
            glob("*_generated.rs")
                .unwrap()
                .is_match("a/b/x_generated.rs")
        );
        assert!(glob("src/[").is_err());
    }
}
