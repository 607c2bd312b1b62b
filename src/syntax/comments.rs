//! Comments that direct the tool, found with rustc's lexer: the plain (not doc) comments of a
//! Rust file, and the lines a comment alone on its line covers (the item or statement below it).
//!
//! `lint::suppress` reads `capcheck: allow(..)` with these and `mutate::select` reads
//! `capcheck: skip-mutants(..)`, so a skip covers exactly what a suppression at the same place
//! covers.

use ra_ap_rustc_lexer::{FrontmatterAllowed, TokenKind, tokenize};

use crate::source::lines::Lines;

/// What begins every comment addressed to capcheck (`capcheck: allow(..)`,
/// `capcheck: skip-mutants(..)`); a file without it holds none.
pub(crate) const MARKER: &str = "capcheck:";

/// A plain comment: its text without the `//` or `/* */`, and its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Comment<'a> {
    pub(crate) body: &'a str,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Nothing but whitespace before it on its line.
    pub(crate) alone: bool,
}

/// The plain (not doc) comments of a Rust file, by rustc's lexer.
pub(crate) fn rust_comments(text: &str) -> Vec<Comment<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    // Where the current line starts, kept as the tokens go (never searched back for).
    let mut line_start = 0;
    for t in tokenize(text, FrontmatterAllowed::No) {
        let end = pos + t.len as usize;
        let body = match t.kind {
            TokenKind::LineComment { doc_style: None } => text.get(pos + 2..end),
            TokenKind::BlockComment {
                doc_style: None,
                terminated: true,
            } => text.get(pos + 2..end - 2),
            _ => None,
        };
        if let Some(body) = body {
            out.push(Comment {
                body,
                start: pos,
                end,
                alone: text[line_start..pos].trim().is_empty(),
            });
        }
        if let Some(nl) = memchr::memrchr(b'\n', &text.as_bytes()[pos..end]) {
            line_start = pos + nl + 1;
        }
        pos = end;
    }
    out
}

/// The last line of the item or statement after byte `from`: its first `;` or `,` at bracket
/// depth 0 (a `,` inside `<..>` does not count), or the `}` that closes its first block (unless
/// `else`, `.`, `?` or `;` continues it), or the line before a bracket it did not open.
pub(crate) fn rust_extent(text: &str, lines: &Lines, from: usize) -> usize {
    let rest = &text[from..];
    let mut pos = from;
    let mut depth: i32 = 0;
    let mut angle: i32 = 0;
    let mut last = lines.position(from).0;
    let mut started = false;
    let mut closed_block = false;
    let mut prev_kind: Option<TokenKind> = None;
    let mut attr_depth: Option<i32> = None;
    for t in tokenize(rest, FrontmatterAllowed::No) {
        let start = pos;
        pos += t.len as usize;
        let kind = t.kind;
        match kind {
            TokenKind::Whitespace
            | TokenKind::LineComment { .. }
            | TokenKind::BlockComment { .. } => continue,
            _ => {}
        }
        let line = lines.position(start).0;
        if closed_block {
            let continues = matches!(kind, TokenKind::Dot | TokenKind::Question | TokenKind::Semi)
                || (kind == TokenKind::Ident && &text[start..pos] == "else");
            if !continues {
                return last;
            }
            closed_block = false;
        }
        // Attributes before the item are skipped: `#` `[` .. `]`.
        if !started && kind == TokenKind::Pound {
            attr_depth = Some(depth);
            continue;
        }
        if let Some(d) = attr_depth {
            match kind {
                TokenKind::Bang => {}
                TokenKind::OpenBracket => depth += 1,
                TokenKind::CloseBracket => {
                    depth -= 1;
                    if depth == d {
                        attr_depth = None;
                    }
                }
                _ if depth > d => {}
                _ => attr_depth = None,
            }
            if attr_depth.is_some() || kind == TokenKind::CloseBracket {
                continue;
            }
        }
        started = true;
        match kind {
            TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
            TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                depth -= 1;
                if depth < 0 {
                    return last;
                }
                if depth == 0 && kind == TokenKind::CloseBrace {
                    closed_block = true;
                }
            }
            TokenKind::Lt if depth == 0 => angle += 1,
            TokenKind::Gt
                if depth == 0 && !matches!(prev_kind, Some(TokenKind::Minus | TokenKind::Eq)) =>
            {
                angle = (angle - 1).max(0)
            }
            TokenKind::Semi if depth == 0 => return line,
            TokenKind::Comma if depth == 0 && angle == 0 => return line,
            _ => {}
        }
        last = line;
        prev_kind = Some(kind);
    }
    last
}
