//! A `const` switched at its uses. rustc evaluates a `const` at compile time, so a mutant of its
//! initialiser (`PER_BACKEND = 14` -> `15`) cannot be switched where it is written; when every
//! use of the constant is an expression that runs at run time, the compile-once engine switches
//! each use instead (`match id(site) { K => { const CAPCHECK_VALUE: usize = 15; CAPCHECK_VALUE },
//! _ => PER_BACKEND }`), and the mutant joins the one instrumented build.
//!
//! The uses are found by name, so the check is conservative: every token of the selected
//! packages that spells the constant's name must be its definition, a plain import of it, or an
//! expression path that names it in a function body (production or test) outside any const
//! context (array lengths, patterns, types, other constants' initialisers, `const fn`) and
//! outside every macro but the assertion ones and `vec!`. A mention in a doc comment or a string
//! (a doctest, an inline format argument), a path through anything the workspace does not
//! declare (`usize::MAX`, `other_crate::NAME`), a renaming import, a second item of that name,
//! a file the operators did not read (integration tests), or an initialiser that names anything
//! but literals and primitive types: the mutant keeps the rebuild path, where rustc judges it.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use ra_ap_rustc_lexer::TokenKind;
use serde::{Deserialize, Serialize};

use crate::index::graph::tokens;
use crate::operators::mutant::{Context, Mutant};

/// A `const` item as the walk met it.
#[derive(Debug, Clone)]
pub(crate) struct ConstSite {
    pub(crate) name: String,
    /// Where its name is written (its definition).
    pub(crate) ident_at: usize,
    pub(crate) expr: Range<usize>,
    /// The declared type, as written.
    pub(crate) ty: String,
    /// For an associated constant, the impl's type (`Self::NAME` and `Type::NAME` name it).
    pub(crate) self_ty: Option<String>,
}

/// An expression path (`PER_BACKEND`, `crate::config::PER_BACKEND`, `Self::MAX`).
#[derive(Debug, Clone)]
pub(crate) struct PathSite {
    pub(crate) range: Range<usize>,
    pub(crate) segments: Vec<String>,
    /// `<T as Trait>::NAME` or `::krate::NAME`: never a use this module resolves.
    pub(crate) qualified: bool,
}

/// A name a `use` item imports: the first segment of its path and whether it is renamed.
#[derive(Debug, Clone)]
pub(crate) struct Import {
    pub(crate) at: usize,
    pub(crate) name: String,
    pub(crate) first: String,
    pub(crate) renamed: bool,
}

/// What the walk of one file leaves for this module.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileUses {
    pub(crate) consts: Vec<ConstSite>,
    pub(crate) paths: Vec<PathSite>,
    pub(crate) imports: Vec<Import>,
    /// Bodies of test functions (production bodies are `FileSites::runtime`).
    pub(crate) test_bodies: Vec<Range<usize>>,
    /// Fixed ranges that are calls of macros whose arguments are plain expressions
    /// (`assert_eq!`, `vec!`): a use inside one is switched like any other.
    pub(crate) expr_macros: Vec<Range<usize>>,
    /// Modules the file declares (`mod config`): a path through one stays in the workspace.
    pub(crate) modules: Vec<String>,
}

/// Macros whose arguments are expressions evaluated at run time, where a switched use is fine.
pub(crate) const EXPR_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "vec",
];

/// Where a switched constant is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct UseSite {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) byte_range: (usize, usize),
}

/// How the compile-once engine switches a mutant of a constant: at each use, the arm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AtUses {
    pub(crate) uses: Vec<UseSite>,
    /// What each use becomes when the mutant is active: the mutated constant as a block.
    pub(crate) arm: String,
}

/// One file as this module reads it: its text, and what the walk left (`None` for a file the
/// operators did not walk: any mention of the name there keeps the rebuild path).
pub(crate) struct FileView<'a> {
    pub(crate) rel: &'a str,
    pub(crate) text: &'a str,
    pub(crate) runtime: &'a [Range<usize>],
    pub(crate) fixed: &'a [Range<usize>],
    pub(crate) uses: Option<&'a FileUses>,
}

/// Switch at their uses the mutants of `const` initialisers whose every use runs at run time;
/// `crates` are the selected packages' crate names (a path may start with one).
pub(crate) fn place(mutants: &mut [Mutant], files: &[FileView], crates: &BTreeSet<String>) {
    let modules: BTreeSet<&str> = files
        .iter()
        .filter_map(|f| f.uses)
        .flat_map(|u| u.modules.iter().map(String::as_str))
        .collect();
    let by_rel: BTreeMap<&str, &FileView> = files.iter().map(|f| (f.rel, f)).collect();
    let mut found: BTreeMap<(String, usize), Option<Vec<UseSite>>> = BTreeMap::new();
    for m in mutants.iter_mut().filter(|m| m.context == Context::Fixed) {
        let Some(file) = by_rel.get(m.file.as_str()) else {
            continue;
        };
        let Some(c) = file.uses.and_then(|u| {
            u.consts
                .iter()
                .find(|c| c.expr.start <= m.byte_range.0 && m.byte_range.1 <= c.expr.end)
        }) else {
            continue;
        };
        let Some(arm) = arm(file.text, c, m) else {
            continue;
        };
        let uses = found
            .entry((m.file.clone(), c.ident_at))
            .or_insert_with(|| uses_of(c, file.rel, files, crates, &modules));
        if let Some(uses) = uses {
            m.context = Context::Uses;
            m.at_uses = Some(AtUses {
                uses: uses.clone(),
                arm,
            });
        }
    }
}

/// The mutated constant as a block of its own (`{ const CAPCHECK_VALUE: usize = 15;
/// CAPCHECK_VALUE }`): rustc still evaluates it at compile time, and a value that no longer fits
/// its type is an error in the mutant's own arm (unviable, as a rebuild finds it). Only an
/// initialiser of literals and primitive types reads the same at every use.
fn arm(text: &str, c: &ConstSite, m: &Mutant) -> Option<String> {
    let (s, e) = m.byte_range;
    let value = format!(
        "{}{}{}",
        text.get(c.expr.start..s)?,
        m.replacement,
        text.get(e..c.expr.end)?
    );
    let plain = |t: &str| {
        tokens(t).all(|(_, tok)| match tok.kind {
            TokenKind::Ident => PRIMITIVES.contains(&tok.text) || LITERAL_WORDS.contains(&tok.text),
            TokenKind::Lifetime { .. } | TokenKind::RawIdent | TokenKind::Unknown => false,
            _ => true,
        })
    };
    (plain(&value) && PRIMITIVES.contains(&c.ty.trim())).then(|| {
        format!(
            "{{ const CAPCHECK_VALUE: {} = {value}; CAPCHECK_VALUE }}",
            c.ty.trim()
        )
    })
}

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool",
];
/// Words an initialiser of literals may hold (`u32::MAX as usize`, `true`).
const LITERAL_WORDS: &[&str] = &["as", "true", "false", "MAX", "MIN", "BITS"];

/// Every use of `c` (defined in `rel`), or `None` when one token that spells its name is not a
/// use this module can switch.
fn uses_of(
    c: &ConstSite,
    rel: &str,
    files: &[FileView],
    crates: &BTreeSet<String>,
    modules: &BTreeSet<&str>,
) -> Option<Vec<UseSite>> {
    let name = c.name.as_str();
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.text.contains(name)) {
        let paths: BTreeMap<usize, &PathSite> = f
            .uses
            .map(|u| u.paths.iter().map(|p| (p.range.end, p)).collect())
            .unwrap_or_default();
        for (at, tok) in tokens(f.text) {
            match tok.kind {
                TokenKind::Ident | TokenKind::RawIdent
                    if tok.text.trim_start_matches("r#") == name =>
                {
                    if f.rel == rel && at == c.ident_at {
                        continue;
                    }
                    let u = f.uses?;
                    if u.imports.iter().any(|i| {
                        i.at == at
                            && !i.renamed
                            && i.name == name
                            && root_ok(&i.first, crates, modules)
                    }) {
                        continue;
                    }
                    let p = paths.get(&(at + tok.text.len()))?;
                    if !resolves_to(p, c, crates, modules) || !runs(f, u, &p.range) {
                        return None;
                    }
                    out.push(UseSite {
                        file: f.rel.to_string(),
                        line: f.text[..p.range.start].matches('\n').count() + 1,
                        byte_range: (p.range.start, p.range.end),
                    });
                }
                TokenKind::Literal { .. } | TokenKind::LineComment { doc_style: Some(_) }
                    if mentions_word(tok.text, name) =>
                {
                    return None;
                }
                TokenKind::BlockComment {
                    doc_style: Some(_), ..
                } if mentions_word(tok.text, name) => return None,
                _ => {}
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether `p` names the constant `c`: by its bare name, through the workspace's own modules or
/// crates (`crate::config::NAME`), or, for an associated constant, through `Self` or its type.
fn resolves_to(
    p: &PathSite,
    c: &ConstSite,
    crates: &BTreeSet<String>,
    modules: &BTreeSet<&str>,
) -> bool {
    if p.qualified {
        return false;
    }
    match (&c.self_ty, p.segments.as_slice()) {
        (None, [_]) => true,
        (None, [first, mid @ .., _]) => {
            root_ok(first, crates, modules) && mid.iter().all(|s| modules.contains(s.as_str()))
        }
        (Some(ty), [.., owner, _]) => owner == "Self" || owner == ty,
        _ => false,
    }
}

fn root_ok(first: &str, crates: &BTreeSet<String>, modules: &BTreeSet<&str>) -> bool {
    matches!(first, "crate" | "self" | "super") || crates.contains(first) || modules.contains(first)
}

/// Whether a path at `r` is evaluated at run time: inside a function body and inside no fixed
/// part of it but an expression macro's arguments.
fn runs(f: &FileView, u: &FileUses, r: &Range<usize>) -> bool {
    let within = |x: &Range<usize>| x.start <= r.start && r.end <= x.end;
    (f.runtime.iter().any(within) || u.test_bodies.iter().any(within))
        && !f
            .fixed
            .iter()
            .any(|x| within(x) && !u.expr_macros.contains(x))
}

/// Whether `text` holds `word` with no identifier character on either side.
fn mentions_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mention_is_not_part_of_a_longer_name() {
        assert!(mentions_word("see {PER_BACKEND} here", "PER_BACKEND"));
        assert!(!mentions_word("MAX_PER_BACKEND_X", "PER_BACKEND"));
        assert!(!mentions_word("PER_BACKENDS", "PER_BACKEND"));
    }
}
