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
    // The next function is a test (its attributes said so).
    let mut test_attr = false;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        match (t.kind, t.text) {
            (TokenKind::Pound, _) => {
                if let Some(end) = attribute(&toks, i) {
                    test_attr |= is_test_attribute(&toks[i..=end]);
                    i = end + 1;
                    continue;
                }
            }
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
                    let is_test = std::mem::take(&mut test_attr);
                    if let Some((open, close)) = body(&toks, i + 2) {
                        let body = &toks[open..=close];
                        let (idents, ints) =
                            FnNode::mentions_of(body.iter().map(|t| (t.kind, t.text)));
                        let (calls, methods) = calls_of(body);
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
                            lits: body
                                .iter()
                                .filter_map(|t| FnNode::int(t.kind, t.text))
                                .collect(),
                            values: values_of(body),
                            calls,
                            methods,
                            has_self: toks[i + 2..open]
                                .iter()
                                .any(|t| t.kind == TokenKind::Ident && t.text == "self"),
                            is_test,
                        });
                        // A function's body is walked for nested items like any block.
                        pending = Some(Scope::Other);
                        i = open;
                        continue;
                    }
                }
            }
            (TokenKind::OpenBrace, _) => {
                scopes.push(pending.take().unwrap_or(Scope::Other));
                test_attr = false;
            }
            (TokenKind::CloseBrace, _) => {
                scopes.pop();
                test_attr = false;
            }
            (TokenKind::Semi, _) => {
                pending = None;
                test_attr = false;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The index of the `]` closing an attribute whose `#` is at `at` (`#[..]` or `#![..]`).
fn attribute(toks: &[Tok], at: usize) -> Option<usize> {
    let mut j = at + 1;
    if toks.get(j)?.kind == TokenKind::Bang {
        j += 1;
    }
    if toks.get(j)?.kind != TokenKind::OpenBracket {
        return None;
    }
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(j) {
        match t.kind {
            TokenKind::OpenBracket => depth += 1,
            TokenKind::CloseBracket => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// `#[test]`, `#[tokio::test(..)]`, `#[rstest]`: an attribute whose path ends in a test word.
fn is_test_attribute(attr: &[Tok]) -> bool {
    let path = attr
        .iter()
        .skip_while(|t| t.kind != TokenKind::OpenBracket)
        .skip(1)
        .take_while(|t| matches!(t.kind, TokenKind::Ident | TokenKind::Colon));
    let last = path.filter(|t| t.kind == TokenKind::Ident).last();
    last.is_some_and(|t| matches!(t.text, "test" | "rstest" | "test_case"))
}

/// The integer literals a body yields as values: after `{`, `=>`, `return` or an assignment's
/// `=`, and before `}`, `;` or `,`.
fn values_of(body: &[Tok]) -> std::collections::BTreeSet<u64> {
    let kind = |j: usize| body.get(j).map(|t| t.kind);
    let mut out = std::collections::BTreeSet::new();
    for (j, t) in body.iter().enumerate() {
        let Some(v) = FnNode::int(t.kind, t.text) else {
            continue;
        };
        let Some(b) = j.checked_sub(1) else { continue };
        let after = match body[b].kind {
            TokenKind::OpenBrace => true,
            TokenKind::Ident => body[b].text == "return",
            // `=>`, or an assignment's `=` (not `==`, `<=`, `>=`, `!=`).
            TokenKind::Gt => b > 0 && kind(b - 1) == Some(TokenKind::Eq),
            TokenKind::Eq => !b.checked_sub(1).and_then(kind).is_some_and(|k| {
                matches!(
                    k,
                    TokenKind::Eq | TokenKind::Lt | TokenKind::Gt | TokenKind::Bang
                )
            }),
            _ => false,
        };
        let before = matches!(
            kind(j + 1),
            Some(TokenKind::CloseBrace | TokenKind::Semi | TokenKind::Comma)
        );
        if after && before {
            out.insert(v);
        }
    }
    out
}

/// What a body calls: by path (`f(`, `Q::f(`, `Q::f::<T>(`) and as methods (`.f(`).
fn calls_of(
    body: &[Tok],
) -> (
    std::collections::BTreeSet<String>,
    std::collections::BTreeSet<String>,
) {
    let mut calls = std::collections::BTreeSet::new();
    let mut methods = std::collections::BTreeSet::new();
    let kind = |j: usize| body.get(j).map(|t| t.kind);
    for (j, t) in body.iter().enumerate() {
        if t.kind != TokenKind::Ident || is_keyword(t.text) {
            continue;
        }
        // The `(` after the name, past a turbofish.
        let mut k = j + 1;
        if kind(k) == Some(TokenKind::Colon)
            && kind(k + 1) == Some(TokenKind::Colon)
            && kind(k + 2) == Some(TokenKind::Lt)
        {
            let mut depth = 0i32;
            k += 2;
            while let Some(kd) = kind(k) {
                match kd {
                    TokenKind::Lt => depth += 1,
                    TokenKind::Gt if kind(k - 1) != Some(TokenKind::Minus) => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    TokenKind::OpenBrace | TokenKind::Semi => break,
                    _ => {}
                }
                k += 1;
            }
            k += 1;
        }
        if kind(k) != Some(TokenKind::OpenParen) {
            continue;
        }
        let before = j.checked_sub(1).and_then(kind);
        if before == Some(TokenKind::Dot) {
            methods.insert(t.text.to_string());
        } else if j >= 2
            && before == Some(TokenKind::Colon)
            && kind(j - 2) == Some(TokenKind::Colon)
        {
            let q = j
                .checked_sub(3)
                .and_then(|q| body.get(q))
                .filter(|q| q.kind == TokenKind::Ident)
                .map_or("", |q| q.text);
            calls.insert(format!("{q}::{}", t.text));
        } else if before.is_none_or(|b| !(b == TokenKind::Ident && body[j - 1].text == "fn")) {
            calls.insert(t.text.to_string());
        }
    }
    (calls, methods)
}

/// Words the lexer reads as identifiers that cannot name a function (`if (a)`, `match (x)`).
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "while"
            | "match"
            | "return"
            | "in"
            | "for"
            | "loop"
            | "as"
            | "let"
            | "else"
            | "move"
            | "unsafe"
            | "async"
            | "await"
            | "break"
            | "continue"
            | "where"
            | "impl"
            | "dyn"
            | "mut"
            | "ref"
            | "yield"
            | "fn"
    )
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

    #[test]
    fn calls_are_read_as_written_and_tests_and_values_are_told_apart() {
        let src = "impl Pool { fn inner(&self) -> usize { self.n } }\n\
                   #[tokio::test(flavor = \"multi_thread\")]\n\
                   async fn default() { let settings = 3; }\n\
                   fn f(n: usize) -> usize {\n\
                       let a = pool.inner(); let b = settings(); let c = Pool::build::<u8>(1);\n\
                       let d = Self::own(); if (n) <= 2 { 16 } else { let m = 8; helper!(4); m }\n\
                   }\n";
        let n = nodes(src, &["c".to_string()]);
        assert_eq!(n.len(), 3);
        assert!(n[0].has_self && !n[0].is_test);
        assert!(n[1].is_test && !n[1].has_self, "{:?}", n[1]);
        assert!(n[1].calls.is_empty(), "a local is no call");
        let f = &n[2];
        assert_eq!(
            f.calls.iter().map(String::as_str).collect::<Vec<_>>(),
            ["Pool::build", "Self::own", "settings"]
        );
        assert_eq!(
            f.methods.iter().map(String::as_str).collect::<Vec<_>>(),
            ["inner"]
        );
        assert_eq!(f.values.iter().copied().collect::<Vec<_>>(), [8, 16]);
        assert_eq!(f.lits, [1, 2, 16, 8, 4]);
    }
}
