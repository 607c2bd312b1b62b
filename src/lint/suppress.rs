//! Suppressions with reasons.
//!
//! A suppression is a comment whose text starts with `capcheck:`:
//!
//! - `// capcheck: allow(<rule>, .., reason = "...")` alone on its line silences the named rules
//!   from that line to the end of the item or statement that follows it (the next `;` or `,` at
//!   bracket depth 0, or the `}` that closes its first block; attributes and comments between
//!   are skipped), so it sits on the line above a finding or above the enclosing `fn`, `const`,
//!   `impl` or field. After code on the same line it silences only that line.
//! - `// capcheck: allow-file(<rule>, .., reason = "...")` anywhere in a file silences the rules
//!   in the whole file.
//! - In capacity.toml the same words follow `#`; a comment alone above a table header
//!   (`[[capacity]]`) covers the whole table, up to the next header.
//!
//! Only real comments count: Rust files are read with rustc's lexer, so the words inside a string
//! literal are text, and doc comments (`///`, `//!`) are documentation, never suppressions;
//! TOML comments are found outside strings. Problems are findings of their own, located at the
//! comment: `invalid-suppression` (no reason, an empty reason, an unknown or misspelled rule,
//! a malformed list, an unknown directive; the bare `// capcheck: allow` of earlier versions
//! still silences every rule where it stands, but is an error until it names rules and gives a
//! reason) and `unused-suppression` (a named rule, or a bare allow, that silenced nothing). These
//! two are not themselves suppressible; their levels are configurable like any rule's.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::catalog::Rule;
use crate::finding::Finding;
use crate::source::Loc;
use crate::source::lines::Lines;
use crate::syntax::comments::{Comment, MARKER, rust_comments, rust_extent};

/// What a suppression covers in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    /// 1-based lines, inclusive.
    Lines(usize, usize),
    File,
}

/// One suppression comment.
#[derive(Debug, Clone)]
struct Suppression {
    loc: Loc,
    span: Span,
    /// The rules it names and whether each silenced something; empty for a bare allow.
    rules: Vec<(Rule, bool)>,
    /// A bare `capcheck: allow` silences every rule; `used` says whether it silenced one.
    bare: Option<bool>,
    /// Why it is invalid, when it is.
    problems: Vec<String>,
}

impl Suppression {
    fn covers(&self, line: usize) -> bool {
        match self.span {
            Span::File => true,
            Span::Lines(a, b) => (a..=b).contains(&line),
        }
    }

    /// Mark and report whether it silences a finding of `rule` on `line`.
    fn silence(&mut self, rule: Rule, line: usize) -> bool {
        if !self.covers(line) {
            return false;
        }
        if let Some(used) = &mut self.bare {
            *used = true;
            return true;
        }
        match self.rules.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, used)) => {
                *used = true;
                true
            }
            None => false,
        }
    }
}

/// What `apply` did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// Findings a suppression silenced.
    pub(crate) suppressed: usize,
    /// `invalid-suppression` and `unused-suppression` findings, at their default levels.
    pub(crate) findings: Vec<Finding>,
}

/// Drop the findings a suppression silences, and report the suppressions that are invalid or
/// silence nothing. `files` are the files to read suppressions from (every file of the check
/// and the manifest); `text_of` gives a file's text.
pub(crate) fn apply(
    findings: &mut Vec<Finding>,
    files: &[String],
    text_of: &mut dyn FnMut(&str) -> Option<String>,
) -> Applied {
    let mut all: Vec<String> = files.to_vec();
    all.extend(findings.iter().map(|f| f.loc.file.clone()));
    all.sort();
    all.dedup();
    let mut by_file: HashMap<String, Vec<Suppression>> = HashMap::new();
    for file in all {
        let Some(text) = text_of(&file) else { continue };
        if !text.contains(MARKER) {
            continue;
        }
        let found = if file.ends_with(".toml") {
            read(&file, &text, &toml_comments(&text), toml_extent)
        } else {
            read(&file, &text, &rust_comments(&text), rust_extent)
        };
        if !found.is_empty() {
            by_file.insert(file, found);
        }
    }
    // Each file's findings as the lines and rules they sit at, each once: findings of one rule
    // on one line are silenced alike, so thousands on one line cost one lookup.
    let mut wanted: HashMap<&str, BTreeMap<usize, BTreeSet<Rule>>> = HashMap::new();
    for f in findings.iter() {
        if by_file.contains_key(&f.loc.file) {
            wanted
                .entry(&f.loc.file)
                .or_default()
                .entry(f.loc.line)
                .or_default()
                .insert(f.rule);
        }
    }
    let mut silenced: HashSet<(String, usize, Rule)> = HashSet::new();
    for (file, lines) in wanted {
        let list = by_file.get_mut(file).expect("only files with suppressions");
        for (line, rule) in silenced_in(list, &lines) {
            silenced.insert((file.to_string(), line, rule));
        }
    }
    let before = findings.len();
    findings.retain(|f| !silenced.contains(&(f.loc.file.clone(), f.loc.line, f.rule)));
    let mut out = Applied {
        suppressed: before - findings.len(),
        findings: Vec::new(),
    };
    for s in by_file.into_values().flatten() {
        let label = "this suppression".to_string();
        for p in &s.problems {
            out.findings.push(crate::lint::finding(
                Rule::InvalidSuppression,
                s.loc.clone(),
                p.clone(),
                label.clone(),
            ));
        }
        // What silenced nothing: a bare allow (any rule), or each rule it names.
        let unused: Vec<String> = match s.bare {
            Some(false) => vec!["any rule".to_string()],
            Some(true) => vec![],
            None => s
                .rules
                .iter()
                .filter(|(_, used)| !used)
                .map(|(r, _)| format!("`{r}`"))
                .collect(),
        };
        for rule in unused {
            out.findings.push(crate::lint::finding(
                Rule::UnusedSuppression,
                s.loc.clone(),
                format!("this suppression of {rule} silences nothing: remove it"),
                label.clone(),
            ));
        }
    }
    out
}

/// Which of `wanted` (findings' lines, each with its rules) the suppressions of one file
/// silence, marking every suppression that covers a finding as used. One sweep down the lines:
/// a suppression joins when its first line is reached and leaves after its last, so a line
/// meets only the suppressions that cover it.
fn silenced_in(
    list: &mut [Suppression],
    wanted: &BTreeMap<usize, BTreeSet<Rule>>,
) -> Vec<(usize, Rule)> {
    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    let mut file_wide = Vec::new();
    for (i, s) in list.iter().enumerate() {
        match s.span {
            Span::File => file_wide.push(i),
            Span::Lines(a, b) => spans.push((a, b, i)),
        }
    }
    spans.sort_unstable();
    let mut next = 0;
    let mut active: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for (&line, rules) in wanted {
        while next < spans.len() && spans[next].0 <= line {
            active.push((spans[next].1, spans[next].2));
            next += 1;
        }
        active.retain(|&(last, _)| last >= line);
        for &rule in rules {
            let mut hit = false;
            for i in file_wide
                .iter()
                .copied()
                .chain(active.iter().map(|&(_, i)| i))
            {
                // Every suppression that covers the finding is used, so none reads as unused.
                hit |= list[i].silence(rule, line);
            }
            if hit {
                out.push((line, rule));
            }
        }
    }
    out
}

/// The suppressions among a file's comments; `extent` gives the last line a comment alone on
/// its line covers.
fn read(
    file: &str,
    text: &str,
    comments: &[Comment],
    extent: fn(&str, &Lines, usize) -> usize,
) -> Vec<Suppression> {
    let lines = Lines::new(text);
    let mut out = Vec::new();
    for c in comments {
        let Some(rest) = c.body.trim_start().strip_prefix(MARKER) else {
            continue;
        };
        // `capcheck: skip-mutants(..)` is `mutants`' (read by `mutate::select`), not a
        // suppression.
        if rest.trim_start().starts_with("skip-mutants") {
            continue;
        }
        let (line, column) = lines.position(c.start);
        let (end_line, end_column) = lines.position(c.end);
        let loc = Loc {
            file: file.to_string(),
            line,
            column,
            end_line,
            end_column,
        };
        let span = |file_wide: bool| {
            if file_wide {
                Span::File
            } else if c.alone {
                Span::Lines(line, extent(text, &lines, c.end).max(line))
            } else {
                Span::Lines(line, line)
            }
        };
        out.push(parse(rest, loc, span));
    }
    out
}

/// Parse what follows `capcheck:`.
fn parse(rest: &str, loc: Loc, span: impl Fn(bool) -> Span) -> Suppression {
    let rest = rest.trim_start();
    let word_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    let (word, args) = rest.split_at(word_end);
    let mut s = Suppression {
        loc,
        span: span(word == "allow-file"),
        rules: Vec::new(),
        bare: None,
        problems: Vec::new(),
    };
    if word != "allow" && word != "allow-file" {
        s.problems.push(format!(
            "`capcheck: {word}` is not a suppression: write `capcheck: allow(<rule>, reason = \"...\")` \
             or `capcheck: allow-file(..)`"
        ));
        return s;
    }
    let Some(list) = args.trim_start().strip_prefix('(') else {
        s.bare = Some(false);
        s.problems.push(format!(
            "`capcheck: {word}` needs the rules it silences and a reason: \
             `capcheck: {word}(<rule>, reason = \"...\")`"
        ));
        return s;
    };
    let (entries, closed) = split_list(list);
    if !closed {
        s.problems
            .push("the rule list is not closed with `)`".to_string());
    }
    let mut reason = None;
    for entry in entries {
        let entry = entry.trim();
        if let Some(value) = entry.strip_prefix("reason") {
            let value = value.trim_start();
            match value
                .strip_prefix('=')
                .map(str::trim)
                .and_then(|v| v.strip_prefix('"')?.strip_suffix('"'))
            {
                Some(v) => reason = Some(v.replace("\\\"", "\"")),
                None => s
                    .problems
                    .push(format!("`{entry}`: write the reason as `reason = \"...\"`")),
            }
        } else if entry.is_empty() {
            continue;
        } else if let Some(rule) = Rule::from_id(entry) {
            s.rules.push((rule, false));
        } else {
            s.problems.push(unknown_rule(entry));
        }
    }
    if s.rules.is_empty() && s.problems.is_empty() {
        s.problems
            .push(format!("`capcheck: {word}(..)` names no rule"));
    }
    match reason {
        None => s.problems.push(
            "a suppression needs a reason: add `reason = \"...\"` (why this is not a finding)"
                .to_string(),
        ),
        Some(r) if r.trim().is_empty() => s
            .problems
            .push("the suppression's reason is empty: say why this is not a finding".to_string()),
        Some(_) => {}
    }
    s
}

/// The entries of `a, b, reason = "x, y")`: commas inside the quoted reason do not split.
fn split_list(list: &str) -> (Vec<&str>, bool) {
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in list.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&list[start..i]);
                start = i + 1;
            }
            ')' if !quoted => {
                out.push(&list[start..i]);
                return (out, true);
            }
            _ => {}
        }
    }
    out.push(&list[start..]);
    (out, false)
}

fn unknown_rule(name: &str) -> String {
    let known: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    let near = known
        .iter()
        .map(|k| (distance(name, k), *k))
        .min()
        .filter(|(d, _)| *d <= 3);
    match near {
        Some((_, k)) => format!("unknown rule `{name}`: did you mean `{k}`?"),
        None => format!("unknown rule `{name}` (known: {})", known.join(", ")),
    }
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The comments of a TOML file: `#` outside strings (basic, literal and multi-line).
fn toml_comments(text: &str) -> Vec<Comment<'_>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line_start = 0;
    let mut in_str: Option<&str> = None;
    while i < bytes.len() {
        let rest = &text[i..];
        match in_str {
            Some(close) => {
                if rest.starts_with('\\') && close.starts_with('"') {
                    i += 2;
                    continue;
                }
                if rest.starts_with(close) {
                    i += close.len();
                    in_str = None;
                    continue;
                }
                if bytes[i] == b'\n' && close.len() == 1 {
                    in_str = None;
                }
            }
            None => {
                for q in ["\"\"\"", "'''", "\"", "'"] {
                    if rest.starts_with(q) {
                        in_str = Some(q);
                        i += q.len();
                        break;
                    }
                }
                if in_str.is_some() {
                    continue;
                }
                if bytes[i] == b'#' {
                    let end = rest.find('\n').map_or(text.len(), |n| i + n);
                    out.push(Comment {
                        body: &text[i + 1..end],
                        start: i,
                        end,
                        alone: text[line_start..i].trim().is_empty(),
                    });
                    i = end;
                    continue;
                }
            }
        }
        if bytes[i] == b'\n' {
            line_start = i + 1;
        }
        i += 1;
    }
    out
}

/// The last line a TOML comment alone on its line covers: the next line with content, or, when
/// that is a table header, the table up to the next header.
fn toml_extent(text: &str, index: &Lines, from: usize) -> usize {
    let first = index.position(from).0;
    let Some(next) = index.offset(first + 1, 1) else {
        return first;
    };
    let mut lines = text[next..]
        .lines()
        .enumerate()
        .map(|(i, l)| (first + 1 + i, l.trim()));
    let Some((n, l)) = lines.find(|(_, l)| !l.is_empty() && !l.starts_with('#')) else {
        return first;
    };
    if !l.starts_with('[') {
        return n;
    }
    let mut end = n;
    for (m, l) in lines {
        if l.starts_with('[') {
            break;
        }
        if !l.is_empty() {
            end = m;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(comment: &str) -> Suppression {
        let text = format!("{comment}\nconst A: usize = 1;\n");
        read("src/a.rs", &text, &rust_comments(&text), rust_extent)
            .pop()
            .unwrap()
    }

    #[test]
    fn reads_rules_and_reasons_and_says_what_is_wrong() {
        let s = parsed(r#"// capcheck: allow(per-unit-cap, reason = "bits, not units")"#);
        assert_eq!(s.rules, vec![(Rule::PerUnitCap, false)]);
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!(s.span, Span::Lines(1, 2));
        let s = parsed("// capcheck: allow(per-unit-cap)");
        assert!(s.problems[0].contains("needs a reason"), "{:?}", s.problems);
        let s = parsed(r#"// capcheck: allow(unmeasured-capacty, reason = "x")"#);
        assert!(
            s.problems[0].contains("did you mean `unmeasured-capacity`"),
            "{:?}",
            s.problems
        );
        let s = parsed("// capcheck: allow");
        assert_eq!(s.bare, Some(false));
        assert!(s.problems[0].contains("needs the rules"));
        let s = parsed(r#"// capcheck: allow-file(parse-error, reason = "a, b")"#);
        assert_eq!(s.span, Span::File);
        assert!(s.problems.is_empty());
    }

    #[test]
    fn only_plain_comments_are_suppressions() {
        let text = "/// capcheck: allow\nconst S: &str = \"// capcheck: allow(per-unit-cap)\";\n/* capcheck: allow */\n";
        let found: Vec<&str> = rust_comments(text)
            .iter()
            .map(|c| c.body)
            .filter(|b| b.contains(MARKER))
            .collect();
        assert_eq!(found, [" capcheck: allow "]);
    }

    #[test]
    fn a_comment_above_an_item_covers_the_item() {
        let text = "// c\n#[inline]\npub fn f(a: usize) -> usize {\n    let b = a * 8;\n    b\n}\nfn g() {}\n";
        assert_eq!(rust_extent(text, &Lines::new(text), 4), 6);
        let text = "// c\nimpl<A, B> X<A, B> {\n    fn f() {}\n}\n";
        assert_eq!(rust_extent(text, &Lines::new(text), 4), 4);
        let text = "fn f() {\n    // c\n    let x = if a { 1 } else { 2 };\n    x\n}\n";
        assert_eq!(rust_extent(text, &Lines::new(text), 16), 3);
        let text = "S {\n    // c\n    workers: 8,\n    other: 1,\n}\n";
        assert_eq!(rust_extent(text, &Lines::new(text), 11), 3);
    }

    #[test]
    fn toml_comments_skip_strings_and_cover_a_table() {
        let text = "a = \"# capcheck: allow\"\n# capcheck: allow(x)\n[[capacity]]\nsite = \"s\"\n\nvalue = 1\n[[capacity]]\n";
        let c = toml_comments(text);
        assert_eq!(c.len(), 1);
        assert_eq!(toml_extent(text, &Lines::new(text), c[0].end), 6);
    }
}
