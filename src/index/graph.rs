//! The call graph the pin rule traces, read by rustc's lexer alone (no syntax tree): every
//! function with a body, named as `syntax::scope` names sites (`crate::module::Type::name`),
//! with the identifiers and integer literals its body mentions. Lexing is cheap enough to run on
//! every file of a package with a candidate pin, whatever the parse mode, so the sparse and the
//! full parse trace the same graph.

use ra_ap_rustc_lexer::{FrontmatterAllowed, TokenKind, tokenize};

use crate::index::facts::FnNode;

/// A token of the file that is not whitespace or a comment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'a> {
    pub(crate) kind: TokenKind,
    pub(crate) text: &'a str,
}

/// The tokens of `text` but whitespace and comments, by rustc's lexer.
pub(crate) fn significant(text: &str) -> Vec<Tok<'_>> {
    tokens(text)
        .filter(|(_, t)| !trivia(t.kind))
        .map(|(_, t)| t)
        .collect()
}

/// Every token of `text` (whitespace and comments included) with its byte offset, by rustc's
/// lexer, without collecting them.
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = (usize, Tok<'_>)> {
    let mut at = 0;
    tokenize(text, FrontmatterAllowed::Yes).map(move |t| {
        let start = at;
        at += t.len as usize;
        (
            start,
            Tok {
                kind: t.kind,
                text: &text[start..at],
            },
        )
    })
}

/// Whitespace or a comment.
pub(crate) fn trivia(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Whitespace | TokenKind::LineComment { .. } | TokenKind::BlockComment { .. }
    )
}

/// What a `{` opened.
enum Scope {
    Module(String),
    Type(String),
    Other,
}

/// The functions of one file whose module path (crate first) is `path`.
pub fn nodes(text: &str, path: &[String]) -> Vec<FnNode> {
    let toks = significant(text);
    let mut out = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    // What the next `{` opens, as far as the tokens since the last item tell.
    let mut pending: Option<Scope> = None;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        match (t.kind, t.text) {
            (TokenKind::Ident, "mod") => {
                if let Some(name) = toks.get(i + 1).filter(|n| n.kind == TokenKind::Ident) {
                    pending = Some(Scope::Module(name.text.to_string()));
                }
            }
            (TokenKind::Ident, "impl") => pending = Some(Scope::Type(impl_type(&toks, i + 1))),
            (TokenKind::Ident, "trait") => {
                if let Some(name) = toks.get(i + 1).filter(|n| n.kind == TokenKind::Ident) {
                    pending = Some(Scope::Type(name.text.to_string()));
                }
            }
            (TokenKind::Ident, "fn") => {
                if let Some(name) = toks.get(i + 1).filter(|n| n.kind == TokenKind::Ident) {
                    if let Some((open, close)) = body(&toks, i + 2) {
                        let body = toks[open..=close].iter().map(|t| (t.kind, t.text));
                        let (idents, ints) = FnNode::mentions_of(body);
                        let self_ty = scopes.iter().rev().find_map(|s| match s {
                            Scope::Type(t) => Some(t.clone()),
                            _ => None,
                        });
                        let mut site: Vec<String> = path.to_vec();
                        site.extend(scopes.iter().filter_map(|s| match s {
                            Scope::Module(m) => Some(m.clone()),
                            _ => None,
                        }));
                        site.extend(self_ty.clone());
                        site.push(name.text.to_string());
                        out.push(FnNode {
                            site: site.join("::"),
                            name: name.text.to_string(),
                            self_ty,
                            idents,
                            ints,
                        });
                        // A function's body is walked for nested items like any block.
                        pending = Some(Scope::Other);
                        i = open;
                        continue;
                    }
                }
            }
            (TokenKind::OpenBrace, _) => scopes.push(pending.take().unwrap_or(Scope::Other)),
            (TokenKind::CloseBrace, _) => {
                scopes.pop();
            }
            (TokenKind::Semi, _) => pending = None,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The type an `impl` block is for: the first identifier after `for` when there is one (a trait
/// impl), else the first one (an inherent impl); generic parameters skipped.
pub(crate) fn impl_type(toks: &[Tok], from: usize) -> String {
    let mut depth = 0i32;
    let (mut first, mut after_for, mut seen_for) = (None, None, false);
    for (j, t) in toks.iter().enumerate().skip(from) {
        match (t.kind, t.text) {
            (TokenKind::OpenBrace | TokenKind::Semi, _) => break,
            (TokenKind::Lt, _) => depth += 1,
            // An arrow's `>` (`impl<F: Fn() -> u8> Pool<F>`) closes nothing.
            (TokenKind::Gt, _) if toks[j - 1].kind == TokenKind::Minus => {}
            (TokenKind::Gt, _) => depth -= 1,
            (TokenKind::Ident, "for") if depth == 0 => seen_for = true,
            (TokenKind::Ident, "where") if depth == 0 => break,
            (TokenKind::Ident, name)
                if depth == 0 && !matches!(name, "dyn" | "unsafe" | "const") =>
            {
                if seen_for {
                    after_for.get_or_insert(name);
                } else {
                    first = Some(name);
                }
            }
            _ => {}
        }
    }
    after_for.or(first).unwrap_or("<impl>").to_string()
}

/// The `{`..`}` token indexes of a function's body, from just after its name; `None` for a
/// signature without a body (`fn f();` in a trait).
fn body(toks: &[Tok], from: usize) -> Option<(usize, usize)> {
    let mut depth = 0i32;
    let mut i = from;
    while i < toks.len() {
        match toks[i].kind {
            TokenKind::OpenParen | TokenKind::OpenBracket => depth += 1,
            TokenKind::CloseParen | TokenKind::CloseBracket => depth -= 1,
            TokenKind::Semi if depth == 0 => return None,
            TokenKind::OpenBrace if depth == 0 => {
                let mut level = 0;
                for (j, t) in toks.iter().enumerate().skip(i) {
                    match t.kind {
                        TokenKind::OpenBrace => level += 1,
                        TokenKind::CloseBrace => {
                            level -= 1;
                            if level == 0 {
                                return Some((i, j));
                            }
                        }
                        _ => {}
                    }
                }
                return None;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_named_as_sites_with_what_their_bodies_mention() {
        let src = "mod inner { pub fn helper() -> usize { PER_BACKEND * 2 } }\n\
                   impl<T> Fleet for Controller<T> where T: Clone { fn ceiling(&self) -> u64 { self.cap(3) } }\n\
                   trait Pool { fn size(&self) -> usize; fn widest(&self) -> u64 { 8 } }\n";
        let n = nodes(src, &["c".to_string()]);
        let sites: Vec<&str> = n.iter().map(|x| x.site.as_str()).collect();
        assert_eq!(
            sites,
            [
                "c::inner::helper",
                "c::Controller::ceiling",
                "c::Pool::widest"
            ]
        );
        assert!(n[0].idents.contains("PER_BACKEND") && n[0].ints.contains(&2));
        assert_eq!(n[1].self_ty.as_deref(), Some("Controller"));
        assert!(n[1].idents.contains("cap") && n[1].ints.contains(&3));
    }
}
