//! A bound on how deep a file's syntax can nest, checked with rustc's lexer before syn sees the
//! text. syn parses, and our walk and syn's drop visit, expressions recursively: 20,000 nested
//! parentheses, or a 20,000-term sum (a left-deep tree), overflow any fixed stack and abort the
//! whole run. A file past the bound is a `parse-error` finding instead.
//!
//! The measure is a cheap over-estimate of the syntax tree's depth at each token: the bracket
//! depth plus, for every enclosing bracket, the tokens since the last point where syn starts a
//! fresh sibling rather than a deeper node (`,` `;` `=>`, and the keywords that start an item or
//! a statement); of those tokens, operators, closed groups and the keywords that take an operand
//! count, names and literals (leaves) do not. Binary and unary operator chains, postfix chains
//! (`f()()()`, `.a.b.c`, `as` casts) and `else if` chains all count; flat lists (arrays,
//! arguments, match arms, items) do not.

use ra_ap_rustc_lexer::{FrontmatterAllowed, TokenKind, tokenize};

/// The deepest nesting a file may reach. Of the 15,346 `.rs` files of the 461 crates in this
/// project's cargo registry, 3 measure over 600 and one 2,728 (`unicode-normalization`'s
/// generated tables: a match on thousands of `|`-joined chars, which the measure over-counts);
/// the worker threads' stacks hold files at the limit of every kind in a debug build (see
/// `STACK`), and `mutants --list` over twelve such files takes 15 s in a debug build.
pub(crate) const LIMIT: usize = 3_000;

/// The stack every thread that parses or walks a file runs on. Stacks are reserved, not
/// touched: what a file never uses costs nothing.
pub(crate) const STACK: usize = 256 << 20;

/// The byte offset of the first token past `LIMIT`, or `None` when the file stays within it.
pub(crate) fn too_deep(text: &str) -> Option<usize> {
    scan(text, LIMIT).1
}

/// The deepest the file nests, by this measure (the tests' probe of real files).
#[cfg(test)]
pub(crate) fn deepest(text: &str) -> usize {
    scan(text, usize::MAX).0
}

/// The deepest nesting seen, up to the first token past `limit`, and that token's offset.
fn scan(text: &str, limit: usize) -> (usize, Option<usize>) {
    let mut d = Depth::new(limit);
    let mut pos = 0usize;
    for t in tokenize(text, FrontmatterAllowed::Yes) {
        let start = pos;
        pos += t.len as usize;
        if d.feed(t.kind, &text[start..pos], start) {
            break;
        }
    }
    (d.max, d.past)
}

/// The measure, fed one token at a time (every token of the file, whitespace and comments
/// included, in order), so that another scan of the same tokens can share one lexing
/// (`index::params::prescan`).
pub(crate) struct Depth {
    limit: usize,
    /// The deepest nesting seen so far.
    max: usize,
    /// The offset of the first token past `limit`.
    past: Option<usize>,
    /// One counter per open bracket: the tokens seen at that level since the last reset.
    levels: Vec<usize>,
    /// The sum of `levels` plus the bracket depth, kept up to date.
    score: usize,
    prev_eq: bool,
}

impl Depth {
    pub(crate) fn new(limit: usize) -> Self {
        Depth {
            limit,
            max: 0,
            past: None,
            levels: vec![0],
            score: 0,
            prev_eq: false,
        }
    }

    /// The offset of the first token past the limit, once one was fed.
    pub(crate) fn past(&self) -> Option<usize> {
        self.past
    }

    /// Take the token `word` of kind `kind` at byte `start`; true once past the limit (later
    /// tokens change nothing).
    pub(crate) fn feed(&mut self, kind: TokenKind, word: &str, start: usize) -> bool {
        if self.past.is_some() {
            return true;
        }
        let (levels, score) = (&mut self.levels, &mut self.score);
        let was_eq = std::mem::replace(&mut self.prev_eq, false);
        match kind {
            TokenKind::Whitespace
            | TokenKind::LineComment { .. }
            | TokenKind::BlockComment { .. } => {
                self.prev_eq = was_eq;
                return false;
            }
            TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => {
                levels.push(0);
                *score += 1;
            }
            // A closed group is one more token of the level around it (`f()()`, `(a) + (b)`).
            TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                if levels.len() > 1 {
                    let n = levels.pop().unwrap_or(0);
                    *score -= n + 1;
                }
                bump(levels, score);
            }
            TokenKind::Comma | TokenKind::Semi => reset(levels, score),
            TokenKind::Gt if was_eq => reset(levels, score),
            TokenKind::Eq => {
                bump(levels, score);
                self.prev_eq = true;
            }
            TokenKind::Ident if starts_sibling(word) => reset(levels, score),
            // Names and literals are leaves; keywords may start a deeper node (`return return`).
            TokenKind::Ident if !nests(word) => {}
            TokenKind::Literal { .. } | TokenKind::Lifetime { .. } | TokenKind::RawIdent => {}
            _ => bump(levels, score),
        }
        self.max = self.max.max(self.score);
        if self.score > self.limit {
            self.past = Some(start);
            return true;
        }
        false
    }
}

fn bump(levels: &mut [usize], score: &mut usize) {
    if let Some(n) = levels.last_mut() {
        *n += 1;
        *score += 1;
    }
}

fn reset(levels: &mut [usize], score: &mut usize) {
    if let Some(n) = levels.last_mut() {
        *score -= *n;
        *n = 0;
    }
}

/// Keywords that start a node whose operand follows (`return x`, `if c {}`, `x as T`).
fn nests(word: &str) -> bool {
    matches!(
        word,
        "return"
            | "break"
            | "yield"
            | "if"
            | "else"
            | "while"
            | "for"
            | "loop"
            | "match"
            | "unsafe"
            | "async"
            | "move"
            | "box"
            | "dyn"
            | "impl"
            | "mut"
            | "ref"
            | "as"
            | "in"
            | "await"
            | "become"
            | "do"
            | "try"
    )
}

/// Keywords after which syn parses a new item or statement, never a deeper node of the last.
fn starts_sibling(word: &str) -> bool {
    matches!(
        word,
        "fn" | "struct"
            | "enum"
            | "union"
            | "impl"
            | "trait"
            | "mod"
            | "use"
            | "pub"
            | "let"
            | "const"
            | "static"
            | "type"
            | "extern"
            | "macro_rules"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_brackets_and_long_chains_are_caught_where_they_pass_the_limit() {
        let parens = format!("fn f() {{ {}1{} }}", "(".repeat(5000), ")".repeat(5000));
        let at = too_deep(&parens).expect("5000 parentheses");
        assert!(parens[..at].chars().all(|c| "fn() {(".contains(c)), "{at}");
        let sum = format!("fn f() -> u8 {{ {}1 }}", "1 + ".repeat(5000));
        assert!(too_deep(&sum).is_some());
        let calls = format!("fn f() {{ g{} }}", "()".repeat(5000));
        assert!(too_deep(&calls).is_some());
    }

    /// `CAPCHECK_DEPTH_DIR=~/.cargo/registry/src cargo test --lib deepest_file -- --nocapture`
    /// prints the deepest `.rs` file under a folder, by this measure.
    #[test]
    fn deepest_file() {
        let Some(dir) = std::env::var_os("CAPCHECK_DEPTH_DIR") else {
            return;
        };
        let mut best = (0, String::new());
        let mut files = 0;
        for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
            if e.path().extension().is_some_and(|x| x == "rs") {
                if let Ok(text) = std::fs::read_to_string(e.path()) {
                    files += 1;
                    let d = deepest(&text);
                    if d > 500 {
                        println!("{d} {}", e.path().display());
                    }
                    best = best.max((deepest(&text), e.path().display().to_string()));
                }
            }
        }
        println!("{files} files; deepest {} in {}", best.0, best.1);
        assert!(best.0 <= LIMIT, "a real file past the limit: {best:?}");
    }

    #[test]
    fn flat_lists_items_and_real_code_pass() {
        let items =
            "#[derive(Debug)] pub(crate) struct A { x: u8 } fn a() -> u8 { 1 + 2 } ".repeat(20_000);
        assert_eq!(too_deep(&items), None);
        let array = format!("const A: [u8; 50000] = [{}];", "1, ".repeat(50_000));
        assert_eq!(too_deep(&array), None);
        let arms = format!(
            "fn f(x: u32) -> u32 {{ match x {{ {} _ => 0 }} }}",
            (0..20_000)
                .map(|i| format!("{i} => {{ {i} }} "))
                .collect::<String>()
        );
        assert_eq!(too_deep(&arms), None);
        assert!(deepest(include_str!("sparse.rs")) < 100);
        assert!(deepest(include_str!("../project.rs")) < 100);
    }
}
