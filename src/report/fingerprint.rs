//! Finding identity: the one definition of "the same finding" across runs, for SARIF
//! `partialFingerprints` (and anything else that must recognise a finding after unrelated edits).
//!
//! A finding's identity is its rule (or report kind, or operator), its file (workspace-relative),
//! its enclosing item or site (the finding's own `item` when the rule names one, else
//! [`enclosing_item`]: the Rust items around it, read with rustc's lexer, or the capacity.toml
//! table's `site`; never a line number), its expression text
//! with all whitespace removed (so re-indenting or re-wrapping keeps it), and an occurrence
//! counter among findings whose four parts are equal, counted in report order (file position).
//! Adding or removing lines elsewhere, even in the same file, changes none of these. Mutants
//! already carry this identity in their id (`mutate::fnv1a` over operator, file, item, texts and
//! an occurrence counter over the whole file, so a shard agrees with a full run); their
//! fingerprint is that id's, through [`Fingerprints::mutant`].

use std::collections::HashMap;

/// Hands out identities in report order, counting repeats.
#[derive(Debug, Default)]
pub(crate) struct Fingerprints {
    seen: HashMap<String, usize>,
}

/// Whitespace removed: the text of an expression as identity sees it.
pub(crate) fn normalise(text: &str) -> String {
    text.split_whitespace().collect()
}

impl Fingerprints {
    /// The identity of the next finding of `rule` at `item` in `file` whose span reads `text`:
    /// 16 hex digits of FNV-1a.
    pub(crate) fn next(&mut self, rule: &str, file: &str, item: &str, text: &str) -> String {
        let key = format!("{rule}\0{file}\0{item}\0{}", normalise(text));
        let n = self.seen.entry(key.clone()).or_insert(0);
        *n += 1;
        hex(&format!("{key}\0{n}"))
    }

    /// A mutant's identity: its stable id, which already counts occurrences over its file.
    pub(crate) fn mutant(id: &str) -> String {
        hex(id)
    }
}

/// The items around byte `offset` of `file`'s `text`, outermost first (`impl Pool/fn size`), or,
/// in a TOML file, the `site` (else the header) of the table holding it (the tests' one-offset
/// form of `enclosing_items`).
#[cfg(test)]
pub(crate) fn enclosing_item(file: &str, text: &str, offset: usize) -> String {
    enclosing_items(file, text, &[offset]).remove(0)
}

/// `enclosing_item` of each of `offsets` (in any order), with one pass of the lexer over the
/// file: a file with many findings costs one read, not one per finding.
pub(crate) fn enclosing_items(file: &str, text: &str, offsets: &[usize]) -> Vec<String> {
    if file.ends_with(".toml") {
        return offsets.iter().map(|&o| toml_table(text, o)).collect();
    }
    use ra_ap_rustc_lexer::{FrontmatterAllowed, TokenKind, tokenize};
    const KEYWORDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "union",
        "trait",
        "impl",
        "mod",
        "const",
        "static",
        "type",
        "macro_rules",
    ];
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![String::new(); offsets.len()];
    let mut next = 0;
    // Each open brace and the item it opens (`None`: a block that is not an item's).
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut pending: Option<String> = None;
    let name = |stack: &[Option<String>], pending: &Option<String>| {
        let mut names: Vec<&str> = stack.iter().flatten().map(String::as_str).collect();
        names.extend(pending.as_deref());
        names.join("/")
    };
    let mut pos = 0;
    for t in tokenize(text, FrontmatterAllowed::No) {
        let (start, end) = (pos, pos + t.len as usize);
        pos = end;
        while next < order.len() && offsets[order[next]] <= start {
            out[order[next]] = name(&stack, &pending);
            next += 1;
        }
        if next == order.len() {
            break;
        }
        let word = &text[start..end];
        match t.kind {
            TokenKind::Ident if KEYWORDS.contains(&word) => pending = Some(word.to_string()),
            TokenKind::Ident => {
                if let Some(p) = &mut pending {
                    // `impl<T> Trait for Type`: every name until the brace; others: the first.
                    if p == "impl" || p.starts_with("impl ") || !p.contains(' ') {
                        p.push(' ');
                        p.push_str(word);
                    }
                }
            }
            TokenKind::OpenBrace => stack.push(pending.take()),
            TokenKind::CloseBrace => {
                stack.pop();
            }
            TokenKind::Semi => pending = None,
            _ => {}
        }
    }
    for &i in &order[next..] {
        out[i] = name(&stack, &pending);
    }
    out
}

fn toml_table(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let table_start = before
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .rfind(|&i| text[i..].trim_start().starts_with('['))
        .unwrap_or(0);
    let table = &text[table_start..];
    let table = match table.find("\n[") {
        Some(end) => &table[..end],
        None => table,
    };
    table
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("site")
                .map(|v| v.trim_start_matches([' ', '=']))
        })
        .or_else(|| table.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn hex(key: &str) -> String {
    format!("{:016x}", crate::source::fnv1a(key.as_bytes()))
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

    #[test]
    fn the_enclosing_item_is_read_from_the_code_around_the_finding() {
        let text = "mod a {\n    impl<T> Pool<T> for X {\n        fn size(&self) { let x = { 8 }; }\n    }\n}\nconst B: usize = 9;\n";
        let at = |needle: &str| text.find(needle).unwrap();
        assert_eq!(
            enclosing_item("src/a.rs", text, at("8 }")),
            "mod a/impl T Pool T for X/fn size"
        );
        assert_eq!(enclosing_item("src/a.rs", text, at("9")), "const B");
        let toml = "[workload]\nn = 1\n\n[[capacity]]\nsite = \"m::A\"\nvalue = 4\n";
        assert_eq!(
            enclosing_item("capacity.toml", toml, toml.find("4").unwrap()),
            "\"m::A\""
        );
        assert_eq!(
            enclosing_item("capacity.toml", toml, toml.find("1").unwrap()),
            "[workload]"
        );
    }
}
