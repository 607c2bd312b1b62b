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
    /// An impl block (its type, and its trait for a trait impl) or a trait definition.
    Type(String, Option<String>),
    Other,
}

/// The functions of one file whose module path (crate first) is `path`.
pub(crate) fn nodes(text: &str, path: &[String]) -> Vec<FnNode> {
    nodes_of(text, &significant(text), path)
}

/// `nodes` of a file whose tokens (`significant(text)`) are already lexed.
pub(crate) fn nodes_of(text: &str, toks: &[Tok], path: &[String]) -> Vec<FnNode> {
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
                if let Some(end) = attribute(toks, i) {
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
            (TokenKind::Ident, "impl") => {
                pending = Some(Scope::Type(impl_type(toks, i + 1), impl_trait(toks, i + 1)))
            }
            (TokenKind::Ident, "trait") => {
                if let Some(name) = toks.get(i + 1).filter(|n| n.kind == TokenKind::Ident) {
                    pending = Some(Scope::Type(name.text.to_string(), None));
                }
            }
            (TokenKind::Ident, "fn") => {
                if let Some(name) = toks.get(i + 1).filter(|n| n.kind == TokenKind::Ident) {
                    let is_test = std::mem::take(&mut test_attr);
                    if let Some((open, close)) = body(toks, i + 2) {
                        let body = &toks[open..=close];
                        let (idents, ints) =
                            FnNode::mentions_of(body.iter().map(|t| (t.kind, t.text)));
                        let (calls, methods) = calls_of(body);
                        // Named as the syntax walk names it (an impl's type, however deep).
                        let named_ty = scopes.iter().rev().find_map(|s| match s {
                            Scope::Type(t, _) => Some(t.clone()),
                            _ => None,
                        });
                        // Called as the impl's function only when the impl holds it directly:
                        // a helper nested in a method body is a free function.
                        let (self_ty, trait_name) =
                            match scopes.iter().rev().find(|s| !matches!(s, Scope::Module(_))) {
                                Some(Scope::Type(t, tr)) => (Some(t.clone()), tr.clone()),
                                _ => (None, None),
                            };
                        let mut site: Vec<String> = path.to_vec();
                        site.extend(scopes.iter().filter_map(|s| match s {
                            Scope::Module(m) => Some(m.clone()),
                            _ => None,
                        }));
                        site.extend(named_ty);
                        site.push(name.text.to_string());
                        let (asserted, handed) = asserted_of(body);
                        out.push(FnNode {
                            site: site.join("::"),
                            name: name.text.to_string(),
                            self_ty,
                            trait_name,
                            asserted,
                            handed,
                            loop_vars: loop_vars_of(body),
                            idents,
                            ints,
                            lits: {
                                let mut lits = Vec::new();
                                for t in body {
                                    FnNode::numbers(t.kind, t.text, &mut lits);
                                }
                                lits
                            },
                            values: values_of(body),
                            calls,
                            methods,
                            has_self: takes_self(&toks[i + 2..open]),
                            is_test,
                            field_calls: field_calls(body),
                            field_lits: field_lits(body),
                            body: offset(text, &toks[open])..offset(text, &toks[close]) + 1,
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

/// Where token `t` starts in `text`, the text it was lexed from.
pub(crate) fn offset(text: &str, t: &Tok) -> usize {
    t.text.as_ptr() as usize - text.as_ptr() as usize
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
    matching(toks, j)
}

/// The index of the token that closes the bracket at `open`, counting brackets of its own kind
/// only (`(`..`)`, `[`..`]`, `{`..`}`); `None` when the text ends first or `open` opens none.
pub(crate) fn matching(toks: &[Tok], open: usize) -> Option<usize> {
    let (opens, closes) = match toks.get(open)?.kind {
        TokenKind::OpenParen => (TokenKind::OpenParen, TokenKind::CloseParen),
        TokenKind::OpenBracket => (TokenKind::OpenBracket, TokenKind::CloseBracket),
        TokenKind::OpenBrace => (TokenKind::OpenBrace, TokenKind::CloseBrace),
        _ => return None,
    };
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.kind == opens {
            depth += 1;
        } else if t.kind == closes {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
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
    last.is_some_and(|t| crate::syntax::TEST_ATTRS.contains(&t.text))
}

/// The trait of a trait impl (`impl<T> fmt::Display for Pool<T>` -> `Display`): the last name
/// before `for`; `None` for an inherent impl.
fn impl_trait(toks: &[Tok], from: usize) -> Option<String> {
    let mut depth = 0i32;
    let mut last = None;
    for (j, t) in toks.iter().enumerate().skip(from) {
        match (t.kind, t.text) {
            (TokenKind::OpenBrace | TokenKind::Semi, _) => return None,
            (TokenKind::Lt, _) => depth += 1,
            (TokenKind::Gt, _) if toks[j - 1].kind == TokenKind::Minus => {}
            (TokenKind::Gt, _) => depth -= 1,
            (TokenKind::Ident, "for") if depth == 0 => return last,
            (TokenKind::Ident, "where") if depth == 0 => return None,
            (TokenKind::Ident, name) if depth == 0 && !matches!(name, "dyn" | "unsafe") => {
                last = Some(name.to_string())
            }
            _ => {}
        }
    }
    None
}

/// A signature (from just after the name) whose first parameter is `self`, `&self`, `&mut self`
/// or `self: ..`, not a path through `self::`.
fn takes_self(sig: &[Tok]) -> bool {
    let Some(open) = sig.iter().position(|t| t.kind == TokenKind::OpenParen) else {
        return false;
    };
    let first: Vec<&Tok> = sig[open + 1..]
        .iter()
        .take_while(|t| !matches!(t.kind, TokenKind::Comma | TokenKind::CloseParen))
        .collect();
    first.iter().enumerate().any(|(k, t)| {
        let path = first.get(k + 1).is_some_and(|a| a.kind == TokenKind::Colon)
            && first.get(k + 2).is_some_and(|b| b.kind == TokenKind::Colon);
        t.kind == TokenKind::Ident && t.text == "self" && !path
    })
}

/// The fields a body's struct literals set by calling a function (`{ field: f(`, `, field:
/// module::f(`): the function's name (its path's last segment), then the names its arguments
/// mention.
fn field_calls(body: &[Tok]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for j in 1..body.len().saturating_sub(3) {
        let starts = matches!(body[j - 1].kind, TokenKind::OpenBrace | TokenKind::Comma)
            && body[j].kind == TokenKind::Ident
            && body[j + 1].kind == TokenKind::Colon
            && body[j + 2].kind == TokenKind::Ident;
        if !starts {
            continue;
        }
        // `a::b::f(`: the path's segments, then the call.
        let mut k = j + 2;
        while body.get(k + 1).is_some_and(|t| t.kind == TokenKind::Colon)
            && body.get(k + 2).is_some_and(|t| t.kind == TokenKind::Colon)
            && body.get(k + 3).is_some_and(|t| t.kind == TokenKind::Ident)
        {
            k += 3;
        }
        if body
            .get(k + 1)
            .is_some_and(|t| t.kind == TokenKind::OpenParen)
        {
            // The call's own arguments name what it is given (`env_or("N", MAX_CONNS)`).
            let names = std::iter::once(&body[k])
                .chain(
                    inside(body, k + 1)
                        .iter()
                        .filter(|t| t.kind == TokenKind::Ident),
                )
                .map(|t| t.text.to_string())
                .collect();
            out.push((body[j].text.to_string(), names));
        }
    }
    out
}

/// The fields a body gives an integer literal: `.field = 16;` (an assignment, not `==`, `<=`
/// or `+=`: the `=` follows the name and the literal ends the statement, argument or block) and
/// `{ field: 16,` in a struct literal.
fn field_lits(body: &[Tok]) -> Vec<(String, u64)> {
    let ends = |t: Option<&Tok>| {
        t.is_none_or(|t| {
            matches!(
                t.kind,
                TokenKind::Semi | TokenKind::Comma | TokenKind::CloseBrace
            )
        })
    };
    let mut out = Vec::new();
    for j in 1..body.len().saturating_sub(2) {
        let opens = match (body[j - 1].kind, body[j + 1].kind) {
            (TokenKind::Dot, TokenKind::Eq) => true,
            (TokenKind::OpenBrace | TokenKind::Comma, TokenKind::Colon) => {
                body.get(j + 2).is_none_or(|t| t.kind != TokenKind::Colon)
            }
            _ => false,
        };
        if !opens || body[j].kind != TokenKind::Ident || !ends(body.get(j + 3)) {
            continue;
        }
        if let Some(n) = FnNode::int(body[j + 2].kind, body[j + 2].text) {
            out.push((body[j].text.to_string(), n));
        }
    }
    out
}

/// The tokens inside the bracketed group that `body[open]` opens, up to its matching close (to
/// the end where it never closes).
fn inside<'t, 'a>(body: &'t [Tok<'a>], open: usize) -> &'t [Tok<'a>] {
    let mut depth = 0usize;
    for (i, t) in body.iter().enumerate().skip(open) {
        match t.kind {
            TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
            TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &body[open + 1..i];
                }
            }
            _ => {}
        }
    }
    &body[(open + 1).min(body.len())..]
}

/// Whether a macro's name makes it an assertion (`assert_eq`, `debug_assert`, `prop_assert_ne`).
pub(crate) fn is_assertion(name: &str) -> bool {
    ["assert", "debug_assert", "prop_assert"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The names `for` loops bind in a body: the identifiers between `for` and its `in`
/// (`for &(n, m) in`), keywords (`mut`) aside; a `for` with no `in` soon after
/// (`impl Trait for T`, `for<'a>`) binds none.
fn loop_vars_of(body: &[Tok]) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for (j, t) in body.iter().enumerate() {
        if t.kind != TokenKind::Ident || t.text != "for" {
            continue;
        }
        let rest = &body[j + 1..];
        let Some(end) = rest
            .iter()
            .take(16)
            .position(|p| p.kind == TokenKind::Ident && p.text == "in")
        else {
            continue;
        };
        for p in &rest[..end] {
            if p.kind == TokenKind::Ident && !is_keyword(p.text) {
                out.insert(p.text.to_string());
            }
        }
    }
    out
}

/// The integer literals inside a body's assertion macros (`assert_eq!(buf.len(), 8)`), repeats
/// kept; and of those, the ones handed to a function or method there
/// (`q.push(mk_meta(1, 0, 4))`, `pool_size(Some(64))`): the test's inputs, not values it
/// compares. A constructor's (`Some(8)`, `NonZeroUsize::new(8)`) is compared.
fn asserted_of(body: &[Tok]) -> (Vec<u64>, Vec<u64>) {
    let (mut out, mut handed) = (Vec::new(), Vec::new());
    let mut j = 0;
    while j < body.len() {
        let t = &body[j];
        let opens = body.get(j + 2).is_some_and(|o| {
            matches!(
                o.kind,
                TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace
            )
        });
        if t.kind == TokenKind::Ident
            && is_assertion(t.text)
            && body.get(j + 1).is_some_and(|b| b.kind == TokenKind::Bang)
            && opens
        {
            let group = inside(body, j + 2);
            // For each group open inside the assertion: whether it holds a call's arguments.
            let mut inputs: Vec<bool> = Vec::new();
            for (k, x) in group.iter().enumerate() {
                match x.kind {
                    TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => {
                        let call = x.kind == TokenKind::OpenParen
                            && k.checked_sub(1).is_some_and(|b| call_name(&group[b]));
                        let outer = inputs.last().copied().unwrap_or(false);
                        inputs.push(outer || call);
                    }
                    TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                        inputs.pop();
                    }
                    _ => {
                        FnNode::numbers(x.kind, x.text, &mut out);
                        if inputs.last().copied().unwrap_or(false) {
                            FnNode::numbers(x.kind, x.text, &mut handed);
                        }
                    }
                }
            }
            // At the group's close; the loop steps past it.
            j += 2 + group.len() + 1;
        }
        j += 1;
    }
    (out, handed)
}

/// Whether a token before `(` names a function or method that takes inputs: a lower-case
/// identifier (`mk_meta`, `push`), not a keyword, not a constructor (`new`, `from`; `Some` is
/// capitalised).
fn call_name(t: &Tok) -> bool {
    t.kind == TokenKind::Ident
        && t.text.starts_with(|c: char| c.is_ascii_lowercase())
        && !is_keyword(t.text)
        && !matches!(t.text, "new" | "from")
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
            TokenKind::Eq => {
                !b.checked_sub(1).and_then(kind).is_some_and(|k| {
                    matches!(
                        k,
                        TokenKind::Eq | TokenKind::Lt | TokenKind::Gt | TokenKind::Bang
                    )
                }) && !declares_item(body, b)
            }
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

/// Whether the statement holding token `at` declares a `const` or `static` (its literal is the
/// item's own, not a value the body yields).
fn declares_item(body: &[Tok], at: usize) -> bool {
    body[..at]
        .iter()
        .rev()
        .take_while(|t| {
            !matches!(
                t.kind,
                TokenKind::Semi | TokenKind::OpenBrace | TokenKind::CloseBrace
            )
        })
        .any(|t| t.kind == TokenKind::Ident && matches!(t.text, "const" | "static"))
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
        let before = j.checked_sub(1).and_then(kind);
        let qualified =
            j >= 2 && before == Some(TokenKind::Colon) && kind(j - 2) == Some(TokenKind::Colon);
        if kind(k) != Some(TokenKind::OpenParen) {
            // A qualified function passed as a value (`.map(Pool::from_config)`) is called too.
            let argument = matches!(kind(k), Some(TokenKind::Comma | TokenKind::CloseParen));
            if qualified && argument {
                calls.insert(format!("{}::{}", qualifier(body, j - 2), t.text));
            }
            continue;
        }
        if before == Some(TokenKind::Dot) {
            methods.insert(t.text.to_string());
        } else if qualified {
            calls.insert(format!("{}::{}", qualifier(body, j - 2), t.text));
        } else if before.is_none_or(|b| !(b == TokenKind::Ident && body[j - 1].text == "fn")) {
            calls.insert(t.text.to_string());
        }
    }
    (calls, methods)
}

/// The name before the `::` whose first `:` is at `colon` (`Pool` in `Pool::new`, and in
/// `Pool::<u8>::new`); empty when the lexer cannot tell (`<T as Tr>::f`) or it is a generic
/// parameter (`T::default`).
fn qualifier<'a>(body: &[Tok<'a>], colon: usize) -> &'a str {
    let Some(mut q) = colon.checked_sub(1) else {
        return "";
    };
    if body[q].kind == TokenKind::Gt {
        // Back over a turbofish to the name before its `::<`.
        let mut depth = 0i32;
        loop {
            match body[q].kind {
                TokenKind::Gt => depth += 1,
                TokenKind::Lt => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            let Some(prev) = q.checked_sub(1) else {
                return "";
            };
            q = prev;
        }
        let Some(name) = q.checked_sub(3) else {
            return "";
        };
        if body[q - 1].kind != TokenKind::Colon || body[q - 2].kind != TokenKind::Colon {
            return "";
        }
        q = name;
    }
    let t = &body[q];
    let generic = t.text.len() == 1 && t.text.chars().all(|c| c.is_ascii_uppercase());
    if t.kind == TokenKind::Ident && !generic {
        t.text
    } else {
        ""
    }
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
            TokenKind::OpenBrace if depth == 0 => return matching(toks, i).map(|j| (i, j)),
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
        let src = "mod inner { pub(crate) fn helper() -> usize { PER_BACKEND * 2 } }\n\
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

    #[test]
    fn numbers_written_as_text_count_as_the_body_s_numbers() {
        let src = "fn t() { let a = (\"WORKERS\", \"8\"); let q = \"after=x&limit=30\";\n\
                   let toml = r#\"threads = 16\"#; let s = \"v1.5 at 10.0.0.1:8080/x, 12th\";\n\
                   writeln!(f, \"vector-max-flat-queries 6\"); let w = \"run 2 jobs\";\n\
                   assert_eq!(n, 8, \"expected=8\"); }\n";
        let n = nodes(src, &["c".to_string()]);
        assert_eq!(n[0].lits, [8, 30, 16, 8080, 6, 8, 8]);
        assert_eq!(n[0].asserted, [8, 8]);
    }

    #[test]
    fn numbers_handed_to_calls_inside_assertions_are_inputs() {
        let src = "fn t() { assert!(q.push(mk(1, 0, 4), None)); assert_eq!(q.sum(), 4);\n\
                   assert_eq!(cfg.workers, Some(8)); assert_eq!(f(NonZeroUsize::new(6)), 3); }\n";
        let n = nodes(src, &["c".to_string()]);
        assert_eq!(n[0].asserted, [1, 0, 4, 4, 8, 6, 3]);
        assert_eq!(
            n[0].handed,
            [1, 0, 4, 6],
            "a constructor's own 8 is compared"
        );
    }

    #[test]
    fn fields_set_by_calls_are_read_with_what_the_calls_are_handed() {
        let src = "fn default() -> Self { Archive { max_in_flight: defaults::max_in_flight(),\n\
                   weeks: env_or(\"W\", WEEKS), fixed: 4, ty: Kind::Fast } }\n\
                   fn f(a: u8, b: Vec<u8>) {}\n";
        let n = nodes(src, &["c".to_string()]);
        let pairs: Vec<(&str, Vec<&str>)> = n[0]
            .field_calls
            .iter()
            .map(|(f, names)| (f.as_str(), names.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("max_in_flight", vec!["max_in_flight"]),
                ("weeks", vec!["env_or", "WEEKS"])
            ]
        );
        assert!(n[1].field_calls.is_empty(), "parameters are no fields");
    }

    #[test]
    fn trait_impls_nested_helpers_turbofish_and_assertions_are_read() {
        let src = "impl Default for Config { fn default() -> Self { fn helper() -> u8 { 1 } todo!() } }\n\
                   fn new(c: &self::Config) {}\n\
                   fn t() {\n\
                       let p = Pool::<u8>::new(); let q = T::default(); v.map(Pool::from_config);\n\
                       const MAX: usize = 12; let n = 3;\n\
                       assert_eq!(buf.len(), 8); debug_assert!(n <= 8, \"{}\", 9);\n\
                   }\n";
        let n = nodes(src, &["c".to_string()]);
        let by = |name: &str| n.iter().find(|x| x.name == name).unwrap();
        assert_eq!(by("default").self_ty.as_deref(), Some("Config"));
        assert_eq!(by("default").trait_name.as_deref(), Some("Default"));
        assert_eq!(
            by("helper").self_ty,
            None,
            "a helper in a method body is free"
        );
        assert_eq!(
            by("helper").site,
            "c::Config::helper",
            "named as the walk names it"
        );
        assert!(!by("new").has_self, "`self::Config` is a path");
        let t = by("t");
        assert_eq!(
            t.calls.iter().map(String::as_str).collect::<Vec<_>>(),
            ["::default", "Pool::from_config", "Pool::new"]
        );
        assert_eq!(t.values.iter().copied().collect::<Vec<_>>(), [3]);
        assert_eq!(t.asserted, [8, 8, 9]);
    }
}
