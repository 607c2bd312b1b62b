//! Sparse parsing: before syn sees a file, cut every comment and every item that cannot hold a
//! fact, so syn builds syntax trees only for what the index reads.
//!
//! syn's parse is most of `check`'s time, and most of a real crate is code that holds no
//! capacity: a function without a capacity name, a capacity API, a fleet count, or a literal next
//! to a subject word cannot yield a finding. A fast lexer (rustc's own, `ra-ap-rustc_lexer`) finds
//! the items; the caller's classifier (`index::triggers`) decides which to keep.
//!
//! Invariants:
//! - Every kept token has its original line and column: a cut keeps its newlines, and what it
//!   removes from a line that goes on with code becomes one space per character (proc-macro2
//!   counts columns in characters). Byte offsets change, so snippets slice the sparse text.
//! - Containers (`mod x { .. }`, `impl`, `trait`, item-like macro bodies) are entered, and keep
//!   their header when anything inside is kept; `mod x;` (test modules are declared so) and
//!   constants whose value holds no group are always kept; `use`, `type` and `extern crate`
//!   never are (constants resolve by name).
//! - Anything the lexer or the item splitter does not understand makes the whole file parse as
//!   written (`None`), and so does a sparse text syn rejects (the caller falls back).

use ra_ap_rustc_lexer::{FrontmatterAllowed, LiteralKind, TokenKind, tokenize};

/// What an identifier means for the keep decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Class {
    /// Production code that names it can hold a fact (a count, an item named elsewhere).
    pub(crate) prod: bool,
    /// Production code that names it can hold a fact if it also holds a value (an integer
    /// literal or a constant): a capacity name, a capacity API.
    pub(crate) prod_with_value: bool,
    /// A constant-like name (`MAX_READS`): a value for `prod_with_value`.
    pub(crate) value: bool,
    /// Test code that names it can hold a fact (a capacity constant it uses).
    pub(crate) test: bool,
    /// A word a pinned assertion's subject can have (`max`, `limit`): kept with a literal >= 2.
    pub(crate) subject: bool,
    /// A capacity API's name (`mpsc`, `channel`): an import of it is kept, so that a bare call
    /// resolves to the API.
    pub(crate) api: bool,
    /// A type named elsewhere (`focus`): an `impl` that names it in its header is kept whole, so
    /// `Self::new(..)` in it is read with the type's other code.
    pub(crate) whole_impl: bool,
    /// A function with a capacity parameter that only a type defines (`Limits::new`): production
    /// code that calls it through a type holds a fact next to a value when the classifier says
    /// so of `Type::name`; called otherwise it sets nothing.
    pub(crate) typed_call: bool,
    /// `len`, and a name for a collection of work held at once (`queue`, `in_flight`): production
    /// code that names both can compare a ceiling with such a length (`queue.len() >= max`).
    pub(crate) len: bool,
    pub(crate) work: bool,
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: TokenKind,
    start: u32,
    end: u32,
}

impl Tok {
    fn start(&self) -> usize {
        self.start as usize
    }

    fn end(&self) -> usize {
        self.end as usize
    }
}

/// A file with comments and fact-free items cut out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sparse {
    /// The text syn parses. Every kept token has the line and column it has in the original
    /// (cut lines leave their newline; a cut that ends before code on its last line leaves one
    /// space per character there), but byte offsets differ: slice this text, not the original.
    pub(crate) text: String,
    /// The hashes (`ident_hash`) of the identifiers that only cut items mention, sorted: a later
    /// pass that learns one matters (a constant that sizes an API, a place a value reaches one
    /// through) reads the file again with it kept.
    pub(crate) hidden: Vec<u64>,
    /// What the whole file's tokens say ([`lexical`]).
    pub(crate) lexical: Lexical,
}

/// What a file's tokens say about names its code uses anywhere in the file, read off tokens
/// rather than the syntax tree, so that a sparse parse and a full one see the same.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Lexical {
    /// The names the file counts both up and down ([`scan_gauges`]), sorted.
    pub(crate) gauges: Vec<String>,
    /// The senders that only ever send a constant ([`scan_signal_senders`]), sorted.
    pub(crate) signal_senders: Vec<String>,
    /// The collections the file bounds by the capacity they were made with
    /// ([`scan_self_bounded`]), sorted.
    pub(crate) self_bounded: Vec<String>,
}

/// The file with comments and fact-free items cut, or `None` when it should be parsed as
/// written (nothing to cut, or a structure this pass does not understand). `test`: the whole
/// file is test code (under `tests/`, or declared as a test module).
pub(crate) fn sparse<'a>(
    src: &'a str,
    test: bool,
    classify: &mut dyn FnMut(&'a str) -> Class,
) -> Option<Sparse> {
    let mut lexed = Lexed::default();
    lex(src, |kind, start, end| lexed.push(kind, start, end));
    lexed.cut(src, test, classify)
}

/// Each token of `src` with its byte range.
fn lex(src: &str, mut each: impl FnMut(TokenKind, usize, usize)) {
    let mut pos = 0;
    for t in tokenize(src, FrontmatterAllowed::No) {
        let end = pos + t.len as usize;
        each(t.kind, pos, end);
        pos = end;
    }
}

/// A file's tokens as the cut reads them, fed one by one by whoever lexes the file (`sparse`,
/// or the prescan, which lexes each file once for its signatures and for this). Kept small
/// (16 bytes a token): the prescan holds every file's until the walk cuts it.
#[derive(Debug, Default)]
pub(crate) struct Lexed {
    toks: Vec<Tok>,
    /// The comments.
    cuts: Vec<(usize, usize)>,
    /// A token this pass does not understand was seen (or a file past 4 GiB): the file is
    /// parsed as written.
    unknown: bool,
}

impl Lexed {
    /// The next token of the file, at bytes `start..end`.
    pub(crate) fn push(&mut self, kind: TokenKind, start: usize, end: usize) {
        if self.unknown {
            return;
        }
        match kind {
            TokenKind::Whitespace => {}
            TokenKind::LineComment { .. } => self.cuts.push((start, end)),
            TokenKind::BlockComment { terminated, .. } => {
                if terminated {
                    self.cuts.push((start, end));
                } else {
                    self.unknown = true;
                }
            }
            TokenKind::Unknown
            | TokenKind::InvalidIdent
            | TokenKind::UnknownPrefix
            | TokenKind::UnknownPrefixLifetime
            | TokenKind::GuardedStrPrefix
            | TokenKind::Frontmatter { .. }
            | TokenKind::Eof => self.unknown = true,
            TokenKind::Literal { kind, .. } if !terminated(kind) => self.unknown = true,
            kind => match (u32::try_from(start), u32::try_from(end)) {
                (Ok(start), Ok(end)) => self.toks.push(Tok { kind, start, end }),
                _ => self.unknown = true,
            },
        }
    }

    /// Give back the room the vectors grew past what they hold (they are kept until the walk).
    pub(crate) fn shrink(&mut self) {
        self.toks.shrink_to_fit();
        self.cuts.shrink_to_fit();
    }

    /// [`sparse`] of the file these tokens were fed from.
    pub(crate) fn cut<'a>(
        self,
        src: &'a str,
        test: bool,
        classify: &mut dyn FnMut(&'a str) -> Class,
    ) -> Option<Sparse> {
        if self.unknown {
            return None;
        }
        let Lexed { toks, mut cuts, .. } = self;
        let close = matching(&toks)?;
        let lexical = Lexical {
            gauges: scan_gauges(src, &toks),
            signal_senders: scan_signal_senders(src, &toks),
            self_bounded: scan_self_bounded(src, &toks),
        };
        let mut s = Splitter {
            src,
            toks: &toks,
            close: &close,
            classify,
            gauges: &lexical.gauges,
            drop: Vec::new(),
            ids: Vec::new(),
            kept: 0,
            in_trait: false,
        };
        s.items(0, toks.len(), test, true).ok()?;
        let mut hidden = std::mem::take(&mut s.ids);
        cuts.extend(s.drop.iter().copied());
        if cuts.is_empty() {
            return None;
        }
        hidden.sort_unstable();
        hidden.dedup();
        Some(Sparse {
            text: cut(src, cuts),
            hidden,
            lexical,
        })
    }
}

/// What the tokens of a file parsed as written say ([`Lexical`]); a sparse parse reads the same
/// off the tokens it cuts from.
pub(crate) fn lexical(src: &str) -> Lexical {
    let mut toks = Vec::new();
    // Not `Lexed::push`, which stops at a token this pass does not understand: the others'
    // counting stays readable, and a full parse (what such a file gets) must see it.
    lex(src, |kind, start, end| {
        let skip = matches!(
            kind,
            TokenKind::Whitespace | TokenKind::LineComment { .. } | TokenKind::BlockComment { .. }
        );
        if let (false, Ok(start), Ok(end)) = (skip, u32::try_from(start), u32::try_from(end)) {
            toks.push(Tok { kind, start, end });
        }
    });
    Lexical {
        gauges: scan_gauges(src, &toks),
        signal_senders: scan_signal_senders(src, &toks),
        self_bounded: scan_self_bounded(src, &toks),
    }
}

/// The names of the collections a file compares with their own capacity: `queue.len() <
/// queue.capacity()`, `self.batch.len() == self.batch.capacity()`. Such a collection is bounded
/// by what it was made with (`VecDeque::with_capacity(bound)`), an allocation hint no more.
/// Sorted.
fn scan_self_bounded(src: &str, toks: &[Tok]) -> Vec<String> {
    if !src.contains(".capacity()") {
        return Vec::new();
    }
    let text = |i: usize| toks.get(i).map_or("", |t| &src[t.start()..t.end()]);
    let kind = |i: usize| toks.get(i).map(|t| t.kind);
    // `name . method ( )` at `i`.
    let call = |i: usize, method: &str| {
        kind(i) == Some(TokenKind::Ident)
            && kind(i + 1) == Some(TokenKind::Dot)
            && text(i + 2) == method
            && kind(i + 3) == Some(TokenKind::OpenParen)
            && kind(i + 4) == Some(TokenKind::CloseParen)
    };
    let mut out = Vec::new();
    for i in 0..toks.len() {
        if !call(i, "len") {
            continue;
        }
        // The comparison: `<`, `<=`, `>`, `>=`, `==` (one or two tokens).
        let mut j = i + 5;
        let cmp = |k: Option<TokenKind>| {
            matches!(
                k,
                Some(TokenKind::Lt | TokenKind::Gt | TokenKind::Eq | TokenKind::Bang)
            )
        };
        if !cmp(kind(j)) {
            continue;
        }
        while cmp(kind(j)) {
            j += 1;
        }
        if text(j) == "self" && kind(j + 1) == Some(TokenKind::Dot) {
            j += 2;
        }
        if call(j, "capacity") && text(j) == text(i) {
            out.push(text(i).to_string());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The names a file counts both up and down: `self.active += 1` and `self.active -= 1`,
/// `inflight.fetch_add(1, ..)` and `inflight.fetch_sub(1, ..)`. Such a place is a gauge of
/// something under way, so a value compared with it can be a ceiling (`index::extract`'s length
/// guard), wherever in the file the counting happens. Sorted.
fn scan_gauges(src: &str, toks: &[Tok]) -> Vec<String> {
    let text = |t: &Tok| &src[t.start()..t.end()];
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for w in toks.windows(3) {
        if w[0].kind != TokenKind::Ident {
            continue;
        }
        let to = match (w[1].kind, w[2].kind) {
            (TokenKind::Plus, TokenKind::Eq) if w[1].end == w[2].start => &mut up,
            (TokenKind::Minus, TokenKind::Eq) if w[1].end == w[2].start => &mut down,
            (TokenKind::Dot, TokenKind::Ident) => match text(&w[2]) {
                // A compare-and-swap loop raises it too (`count.compare_exchange(cur, cur + 1,
                // ..)`, an admission check free of races); a gauge is lowered somewhere as well.
                "fetch_add" | "compare_exchange" | "compare_exchange_weak" => &mut up,
                "fetch_sub" => &mut down,
                _ => continue,
            },
            _ => continue,
        };
        to.push(text(&w[0]));
    }
    up.sort_unstable();
    up.dedup();
    down.sort_unstable();
    let mut both: Vec<String> = up
        .into_iter()
        .filter(|n| down.binary_search(n).is_ok())
        .map(str::to_string)
        .collect();
    both.shrink_to_fit();
    both
}

/// The senders whose every `.send(..)` in the file sends a constant, and that send at least
/// once: `sender.send(1)`, `broadcast_tx.send(true)`, `self.tx.send(CoreAction::Shutdown)`,
/// `stop.send(())`. A channel that only ever carries such values carries signals, not work.
/// A sender stored in a field under another name (`Handle { tx: broadcast_tx }`) answers for
/// the field's sends too. A name that also sends a variable, a call or a value built of parts
/// (`tx.send(batch)`, `tx.send(Msg::Data(x))`) is none. Sorted.
fn scan_signal_senders(src: &str, toks: &[Tok]) -> Vec<String> {
    // Only a broadcast channel asks (`Extractor::stop_signal`); its file names one.
    if !src.contains("broadcast") {
        return Vec::new();
    }
    let text = |i: usize| &src[toks[i].start()..toks[i].end()];
    let kind = |i: usize| toks.get(i).map(|t| t.kind);
    // Per receiver name: whether it sent a constant, whether it sent anything else.
    let mut sends: std::collections::HashMap<&str, (bool, bool)> = Default::default();
    // `field: name` in a struct literal (or anywhere a field takes a bare name).
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for i in 0..toks.len() {
        if kind(i) != Some(TokenKind::Ident) {
            continue;
        }
        if kind(i + 1) == Some(TokenKind::Colon)
            && kind(i + 2) == Some(TokenKind::Ident)
            && kind(i.wrapping_sub(1)) != Some(TokenKind::Colon)
            && kind(i + 3).is_none_or(|k| matches!(k, TokenKind::Comma | TokenKind::CloseBrace))
        {
            fields.push((text(i), text(i + 2)));
        }
        if kind(i + 1) != Some(TokenKind::Dot)
            || kind(i + 2) != Some(TokenKind::Ident)
            || text(i + 2) != "send"
            || kind(i + 3) != Some(TokenKind::OpenParen)
        {
            continue;
        }
        let mut depth = 0usize;
        let mut end = None;
        for (j, t) in toks.iter().enumerate().skip(i + 3) {
            match t.kind {
                TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
                TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        // The argument's tokens, between the call's parentheses.
        let arg = &toks[i + 4..end];
        if arg.is_empty() {
            continue;
        }
        let word = |t: &Tok| &src[t.start()..t.end()];
        let upper = |t: &Tok| word(t).starts_with(|c: char| c.is_ascii_uppercase());
        let constant = match arg {
            [a, b] => a.kind == TokenKind::OpenParen && b.kind == TokenKind::CloseParen,
            [a] => match a.kind {
                TokenKind::Literal { .. } => true,
                TokenKind::Ident => matches!(word(a), "true" | "false") || upper(a),
                _ => false,
            },
            // A path: `CoreAction::Shutdown`, `Signal::STOP`.
            path => {
                path.iter().enumerate().all(|(n, t)| match n % 3 {
                    0 => t.kind == TokenKind::Ident,
                    _ => t.kind == TokenKind::Colon,
                }) && path.len() % 3 == 1
                    && upper(&path[path.len() - 1])
            }
        };
        let entry = sends.entry(text(i)).or_default();
        if constant {
            entry.0 = true;
        } else {
            entry.1 = true;
        }
    }
    // A field's sends are the sends of the name stored in it.
    for (field, name) in fields {
        if let Some(&(c, d)) = sends.get(field) {
            let entry = sends.entry(name).or_default();
            entry.0 |= c;
            entry.1 |= d;
        }
    }
    let mut out: Vec<String> = sends
        .into_iter()
        .filter(|(_, (c, d))| *c && !*d)
        .map(|(n, _)| n.to_string())
        .collect();
    out.sort_unstable();
    out
}

/// `src` without the `cuts`: a cut keeps its newlines, and the part of its last line that comes
/// before more code on that line becomes one space per character, so every kept token keeps its
/// line and column.
fn cut(src: &str, mut cuts: Vec<(usize, usize)>) -> String {
    cuts.sort_unstable();
    let mut out = String::with_capacity(src.len() / 2);
    let mut pos = 0;
    for (a, b) in cuts {
        let a = a.max(pos);
        if b <= a {
            continue; // inside a cut already made
        }
        out.push_str(&src[pos..a]);
        let last_line = match memchr::memrchr(b'\n', &src.as_bytes()[a..b]) {
            Some(i) => {
                let newlines = memchr::memchr_iter(b'\n', &src.as_bytes()[a..a + i + 1]).count();
                out.extend(std::iter::repeat_n('\n', newlines));
                a + i + 1
            }
            None => a,
        };
        let rest = src[b..].split('\n').next().unwrap_or_default();
        if !rest.trim().is_empty() {
            out.extend(std::iter::repeat_n(' ', src[last_line..b].chars().count()));
        }
        pos = b;
    }
    out.push_str(&src[pos..]);
    out
}

fn terminated(kind: LiteralKind) -> bool {
    match kind {
        LiteralKind::Char { terminated }
        | LiteralKind::Byte { terminated }
        | LiteralKind::Str { terminated }
        | LiteralKind::ByteStr { terminated }
        | LiteralKind::CStr { terminated } => terminated,
        LiteralKind::RawStr { n_hashes }
        | LiteralKind::RawByteStr { n_hashes }
        | LiteralKind::RawCStr { n_hashes } => n_hashes.is_some(),
        LiteralKind::Int { empty_int, .. } => !empty_int,
        LiteralKind::Float { empty_exponent, .. } => !empty_exponent,
    }
}

/// For each opening delimiter, the index of its closing one; `None` when they do not balance.
fn matching(toks: &[Tok]) -> Option<Vec<usize>> {
    let mut close = vec![usize::MAX; toks.len()];
    let mut stack: Vec<(usize, TokenKind)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => {
                stack.push((i, t.kind))
            }
            TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                let (open, kind) = stack.pop()?;
                let pair = matches!(
                    (kind, t.kind),
                    (TokenKind::OpenParen, TokenKind::CloseParen)
                        | (TokenKind::OpenBracket, TokenKind::CloseBracket)
                        | (TokenKind::OpenBrace, TokenKind::CloseBrace)
                );
                if !pair {
                    return None;
                }
                close[open] = i;
            }
            _ => {}
        }
    }
    stack.is_empty().then_some(close)
}

/// The item splitter did not understand a token sequence.
struct Unknown;

struct Splitter<'s, 't, 'c> {
    src: &'s str,
    toks: &'t [Tok],
    close: &'t [usize],
    classify: &'c mut dyn FnMut(&'s str) -> Class,
    /// The file's gauges: production code that names one of work (`Class::work`) is kept, since
    /// it may compare the gauge with its ceiling.
    gauges: &'t [String],
    /// Byte ranges to cut.
    drop: Vec<(usize, usize)>,
    /// The hashes of the cut items' identifiers.
    ids: Vec<u64>,
    /// How many items were kept so far.
    kept: usize,
    /// Inside a trait or a trait's impl: a method's name is the trait's, not a word on tests.
    in_trait: bool,
}

impl<'s> Splitter<'s, '_, '_> {
    fn text(&self, i: usize) -> &'s str {
        let t = self.toks[i];
        &self.src[t.start()..t.end()]
    }

    fn kind(&self, i: usize) -> Option<TokenKind> {
        self.toks.get(i).map(|t| t.kind)
    }

    fn is_ident(&self, i: usize, word: &str) -> bool {
        self.kind(i) == Some(TokenKind::Ident) && self.text(i) == word
    }

    fn is_open(&self, i: usize) -> bool {
        matches!(
            self.kind(i),
            Some(TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace)
        )
    }

    /// The items of a module-like body `toks[lo..hi]`: keep, enter or cut each. Returns whether
    /// any was kept. `inner`: an inner `#![cfg(test)]` makes the body test code (as it does for a
    /// file, module, impl or trait, and not for a macro's body).
    fn items(
        &mut self,
        lo: usize,
        hi: usize,
        mut test: bool,
        inner: bool,
    ) -> Result<bool, Unknown> {
        let kept = self.kept;
        let mut i = lo;
        // Inner attributes (`#![cfg(test)]`) stay.
        while self.kind(i) == Some(TokenKind::Pound)
            && self.kind(i + 1) == Some(TokenKind::Bang)
            && self.kind(i + 2) == Some(TokenKind::OpenBracket)
        {
            test |= inner && self.cfg_test(i + 2);
            i = self.close[i + 2] + 1;
        }
        while i < hi {
            i = self.item(i, hi, test)?;
        }
        if i == hi {
            Ok(self.kept > kept)
        } else {
            Err(Unknown)
        }
    }

    /// `[cfg(test)]` at `open`: exactly that, a subset of what the extractor calls test code.
    fn cfg_test(&self, open: usize) -> bool {
        self.close[open] == open + 5
            && self.is_ident(open + 1, "cfg")
            && self.kind(open + 2) == Some(TokenKind::OpenParen)
            && self.is_ident(open + 3, "test")
    }

    /// `[test]`, `[tokio::test]`, `[tokio::test(..)]` at `open`: a test function's attribute.
    fn test_fn(&self, open: usize) -> bool {
        let end = self.close[open];
        let mut i = open + 1;
        let mut last = "";
        while i < end && self.kind(i) == Some(TokenKind::Ident) {
            last = self.text(i);
            i += 1;
            if self.kind(i) == Some(TokenKind::Colon) && self.kind(i + 1) == Some(TokenKind::Colon)
            {
                i += 2;
            } else {
                break;
            }
        }
        let args_end = if self.kind(i) == Some(TokenKind::OpenParen) {
            self.close[i] + 1
        } else {
            i
        };
        last == "test" && args_end == end
    }

    /// One item starting at `start`; returns the index after it. Its attributes make it test
    /// code exactly where the extractor looks at them: `#[cfg(test)]` on a function, module,
    /// impl, trait, constant or static, and `#[test]`-like attributes on a function.
    fn item(&mut self, start: usize, hi: usize, in_test: bool) -> Result<usize, Unknown> {
        let mut i = start;
        if self.kind(i) == Some(TokenKind::Semi) {
            return Ok(i + 1);
        }
        let (mut cfg_test, mut test_fn) = (false, false);
        while self.kind(i) == Some(TokenKind::Pound)
            && self.kind(i + 1) == Some(TokenKind::OpenBracket)
        {
            cfg_test |= self.cfg_test(i + 1);
            test_fn |= self.test_fn(i + 1);
            i = self.close[i + 1] + 1;
        }
        let test = in_test || cfg_test;
        if self.is_ident(i, "pub") {
            i += 1;
            if self.kind(i) == Some(TokenKind::OpenParen) {
                i = self.close[i] + 1;
            }
        }
        if i >= hi || self.kind(i) != Some(TokenKind::Ident) {
            return Err(Unknown);
        }
        // Qualifiers before the keyword.
        loop {
            match self.text(i) {
                "unsafe" | "async" | "default" | "auto" | "safe" => i += 1,
                "const" if self.next_is_fn_qualifier(i + 1) => i += 1,
                "extern" if !self.is_ident(i + 1, "crate") => {
                    i += 1;
                    if matches!(self.kind(i), Some(TokenKind::Literal { .. })) {
                        i += 1;
                    }
                    if self.kind(i) == Some(TokenKind::OpenBrace) {
                        // `extern "C" { .. }`: foreign items hold no facts.
                        let end = self.close[i] + 1;
                        self.leaf(start, end, in_test, None);
                        return Ok(end);
                    }
                }
                _ => break,
            }
            if i >= hi || self.kind(i) != Some(TokenKind::Ident) {
                return Err(Unknown);
            }
        }
        let end = match self.text(i) {
            "use" | "type" | "extern" => {
                // Imports, aliases and `extern crate` hold no facts: constants resolve by name.
                // An import of a capacity API's function (`use tokio::sync::mpsc::channel;`) is
                // kept: the index resolves a bare `channel(64)` through it.
                let end = self.to_semi(i, hi)?;
                let mut imports_api = false;
                if self.text(i) == "use" {
                    for j in i..end {
                        if self.kind(j) == Some(TokenKind::Ident) {
                            let t = &self.toks[j];
                            let c = (self.classify)(&self.src[t.start()..t.end()]);
                            imports_api |= c.api;
                        }
                    }
                }
                if !imports_api {
                    self.drop
                        .push((self.toks[start].start(), self.toks[end - 1].end()));
                }
                end
            }
            "const" | "static" => {
                // A value with a group in it (`[..]`, `{..}`, a closure's body) is no integer the
                // index can fold; it is a leaf like any other (a lazy static can hold an API).
                let end = self.to_semi(i, hi)?;
                let eq = (i..end).find(|&j| self.kind(j) == Some(TokenKind::Eq));
                let grouped = eq.is_some_and(|eq| {
                    (eq..end).any(|j| {
                        matches!(
                            self.kind(j),
                            Some(TokenKind::OpenBracket | TokenKind::OpenBrace)
                        )
                    })
                });
                if grouped {
                    self.leaf(start, end, test, Some(i));
                } else {
                    self.kept += 1;
                }
                end
            }
            "mod" if self.kind(i + 2) == Some(TokenKind::Semi) => {
                self.kept += 1;
                i + 3
            }
            "mod" | "impl" | "trait" => {
                let body = self.first_brace(i, hi)?;
                let end = self.close[body] + 1;
                let header = (i..body).filter(|&j| self.kind(j) == Some(TokenKind::Ident));
                let header: Vec<&'s str> = header.map(|j| self.text(j)).collect();
                let whole =
                    self.text(i) == "impl" && header.iter().any(|h| (self.classify)(h).whole_impl);
                // A trait and a trait's impl (`impl Trait for Type`), as the walk's scope says;
                // the impl of a trait named for tests (`impl TestDefault for ..`) is test code.
                let of_trait = header
                    .iter()
                    .position(|h| *h == "for")
                    .filter(|_| self.text(i) == "impl");
                let for_tests = of_trait
                    .is_some_and(|f| f > 0 && crate::syntax::names_test_type(header[f - 1]));
                // A module named for testing is test code, as the walk's scope says
                // (`Scope::enter_mod`: risingwave's `pub mod for_test { .. }`).
                let named_test = self.text(i) == "mod"
                    && self.kind(i + 1) == Some(TokenKind::Ident)
                    && crate::syntax::names_testing(self.text(i + 1));
                let outer = self.in_trait;
                self.in_trait = self.text(i) == "trait" || of_trait.is_some();
                let cut_before = self.ids.len();
                let kept_inside = whole
                    || self.items(
                        body + 1,
                        self.close[body],
                        test || for_tests || named_test,
                        true,
                    )?;
                self.in_trait = outer;
                if kept_inside {
                    self.kept += 1;
                    // An item cut from a kept impl is still the header's: its path names the
                    // type (`AuditLogParams::default_back_pressure`, a serde default function
                    // beside the method that reads the field), and the late pass looks for both.
                    if self.ids.len() > cut_before {
                        self.ids.extend(header.iter().map(|h| ident_hash(h)));
                    }
                } else {
                    // Nothing inside holds a fact: the header goes too.
                    self.ids.extend(header.iter().map(|h| ident_hash(h)));
                    self.drop
                        .push((self.toks[start].start(), self.toks[end - 1].end()));
                }
                end
            }
            "fn" => {
                let end = self.to_end(i, hi)?;
                // A function named for tests is test code, as the walk says (`walk::function`),
                // but for a trait's method.
                let named = self.kind(i + 1) == Some(TokenKind::Ident)
                    && !self.in_trait
                    && crate::syntax::names_test_value(self.text(i + 1));
                self.leaf(start, end, test || test_fn || named, None);
                end
            }
            "struct" | "enum" | "union" => {
                let end = self.to_end(i, hi)?;
                self.leaf(start, end, in_test, None);
                end
            }
            _ => self.macro_item(start, i, hi, in_test)?,
        };
        Ok(end)
    }

    fn next_is_fn_qualifier(&self, i: usize) -> bool {
        ["fn", "unsafe", "async", "extern"]
            .iter()
            .any(|w| self.is_ident(i, w))
    }

    /// A macro invocation or `macro_rules!` at item position: `path! (..);`, `path! { .. }`,
    /// `macro_rules! name { .. }`. A brace body made of items is entered; anything else is a leaf.
    fn macro_item(
        &mut self,
        start: usize,
        mut i: usize,
        hi: usize,
        test: bool,
    ) -> Result<usize, Unknown> {
        let rules = self.text(i) == "macro_rules";
        i += 1;
        while self.kind(i) == Some(TokenKind::Colon) && self.kind(i + 1) == Some(TokenKind::Colon) {
            if self.kind(i + 2) != Some(TokenKind::Ident) {
                return Err(Unknown);
            }
            i += 3;
        }
        if self.kind(i) != Some(TokenKind::Bang) {
            return Err(Unknown);
        }
        i += 1;
        if self.kind(i) == Some(TokenKind::Ident) {
            i += 1;
        }
        if !self.is_open(i) || i >= hi {
            return Err(Unknown);
        }
        let group_end = self.close[i];
        if self.kind(i) != Some(TokenKind::OpenBrace) {
            if self.kind(group_end + 1) != Some(TokenKind::Semi) {
                return Err(Unknown);
            }
            self.leaf(start, group_end + 2, test, None);
            return Ok(group_end + 2);
        }
        if !rules {
            // Try the body as items (`cfg_rt! { pub(crate) struct Builder { .. } }`), undoing on failure.
            let (mark, ids, kept) = (self.drop.len(), self.ids.len(), self.kept);
            match self.items(i + 1, group_end, test, false) {
                Ok(true) => {
                    self.kept += 1;
                    return Ok(group_end + 1);
                }
                Ok(false) => {
                    self.drop
                        .push((self.toks[start].start(), self.toks[group_end].end()));
                    return Ok(group_end + 1);
                }
                Err(Unknown) => {
                    self.drop.truncate(mark);
                    self.ids.truncate(ids);
                    self.kept = kept;
                }
            }
        }
        self.leaf(start, group_end + 1, test, None);
        Ok(group_end + 1)
    }

    /// The index after the `;` that ends an item, groups skipped.
    fn to_semi(&self, mut i: usize, hi: usize) -> Result<usize, Unknown> {
        while i < hi {
            if self.kind(i) == Some(TokenKind::Semi) {
                return Ok(i + 1);
            }
            i = if self.is_open(i) {
                self.close[i] + 1
            } else {
                i + 1
            };
        }
        Err(Unknown)
    }

    /// The end of an item that stops at its first `;` or after its first brace group.
    fn to_end(&self, mut i: usize, hi: usize) -> Result<usize, Unknown> {
        while i < hi {
            match self.kind(i) {
                Some(TokenKind::Semi) => return Ok(i + 1),
                Some(TokenKind::OpenBrace) => return Ok(self.close[i] + 1),
                _ if self.is_open(i) => i = self.close[i] + 1,
                _ => i += 1,
            }
        }
        Err(Unknown)
    }

    fn first_brace(&self, mut i: usize, hi: usize) -> Result<usize, Unknown> {
        while i < hi {
            match self.kind(i) {
                Some(TokenKind::OpenBrace) => return Ok(i),
                Some(TokenKind::Semi) => return Err(Unknown),
                _ if self.is_open(i) => i = self.close[i] + 1,
                _ => i += 1,
            }
        }
        Err(Unknown)
    }

    /// Keep the item `toks[start..end]` when it can hold a fact, else mark it for cutting and
    /// remember the identifiers it mentions. `own`: the item's own `const`/`static` keyword,
    /// which does not count as a nested constant.
    fn leaf(&mut self, start: usize, end: usize, test: bool, own: Option<usize>) {
        let first_id = self.ids.len();
        if self.holds_fact(start, end, test, own) {
            self.ids.truncate(first_id);
            self.kept += 1;
        } else {
            self.drop
                .push((self.toks[start].start(), self.toks[end - 1].end()));
        }
    }

    /// Whether the `const` or `static` at `at` declares an item (`const N: usize = 2;`,
    /// `static mut X: ..`), not a `const fn`, a `*const T` pointer or a `const { .. }` block.
    fn declares(&self, at: usize) -> bool {
        let mut i = at + 1;
        if self.is_ident(i, "mut") {
            i += 1;
        }
        // `*const libc::c_void`: a path's `::` is two colons, one right after the other.
        let path = self.kind(i + 2) == Some(TokenKind::Colon)
            && self.toks.get(i + 1).map(|t| t.end) == self.toks.get(i + 2).map(|t| t.start);
        matches!(self.kind(i), Some(TokenKind::Ident | TokenKind::RawIdent))
            && self.kind(i + 1) == Some(TokenKind::Colon)
            && !path
    }

    /// Whether the call of a typed function at `at` may set a capacity: through a type the
    /// classifier names for it (`Limits::new`) or `Self`; through a path the tokens do not spell
    /// as `Type::name` (`Foo::<T>::new`, spaces), it may; a bare or method call cannot.
    fn typed_call_fits(&mut self, at: usize) -> bool {
        let colons = at >= 3
            && self.kind(at - 1) == Some(TokenKind::Colon)
            && self.kind(at - 2) == Some(TokenKind::Colon);
        if !colons {
            return false;
        }
        if self.kind(at - 3) != Some(TokenKind::Ident) {
            return true;
        }
        let (from, to) = (self.toks[at - 3].start(), self.toks[at].end());
        let path = &self.src[from..to];
        if path.len() != self.text(at - 3).len() + 2 + self.text(at).len() {
            return true;
        }
        (self.classify)(path).prod_with_value
    }

    /// Whether the token at `at` follows `default =` (an attribute's `default = "path"`).
    fn after_default_eq(&self, at: usize) -> bool {
        at >= 2 && self.kind(at - 1) == Some(TokenKind::Eq) && self.is_ident(at - 2, "default")
    }

    /// Whether `toks[start..end]` can yield a fact; pushes its identifiers' hashes as it reads.
    /// A capacity name or API only yields a fact next to a value; a subject word only next to a
    /// literal of 2 or more (what a pin compares against); a nested constant always (the index
    /// folds every constant).
    fn holds_fact(&mut self, start: usize, end: usize, test: bool, own: Option<usize>) -> bool {
        let (mut subject, mut literal, mut value, mut named) = (false, false, false, false);
        let (mut len, mut work) = (false, false);
        // `if self.tuples.len() == self.capacity { Err(()) }`: a collection of the struct's own
        // that refuses more once full (`index::extract::Extractor::refusing_guard`), with an
        // error or `bail!` (what `refuses_with_error` reads).
        let (mut err, mut own_state, mut len_call) = (false, false, false);
        for (at, t) in self.toks.iter().enumerate().take(end).skip(start) {
            match t.kind {
                TokenKind::Ident | TokenKind::RawIdent => {
                    let text = &self.src[t.start()..t.end()];
                    let text = text.strip_prefix("r#").unwrap_or(text);
                    if matches!(text, "const" | "static") && own != Some(at) && self.declares(at) {
                        return true;
                    }
                    let mut c = (self.classify)(text);
                    if (c.prod && !test) || (c.test && test) {
                        return true;
                    }
                    if c.typed_call && !test {
                        c.prod_with_value = self.typed_call_fits(at);
                    }
                    subject |= c.subject;
                    named |= c.prod_with_value && !test;
                    value |= c.value;
                    if c.work && !test && self.gauges.iter().any(|g| g == text) {
                        return true;
                    }
                    len |= c.len && !test;
                    work |= c.work && !test;
                    err |= text == "Err" || text == "bail";
                    own_state |= text == "self";
                    len_call |= text == "len" && !test;
                    self.ids.push(ident_hash(text));
                }
                TokenKind::Literal {
                    kind: LiteralKind::Int { .. },
                    suffix_start,
                } => {
                    value = true;
                    literal |=
                        int_at_least_2(&self.src[t.start()..t.start() + suffix_start as usize]);
                }
                // A number written as a string (`"4096"`) is a value where a name says what it
                // is (`index::value::str_int`).
                TokenKind::Literal {
                    kind: LiteralKind::Str { .. },
                    ..
                } if str_digits(&self.src[t.start()..t.end()]) => value = true,
                // serde's `default = "twenty"` names the function that gives a field its value
                // (`index::extract::serde_default_fn`): a value, beside a capacity's name.
                TokenKind::Literal {
                    kind: LiteralKind::Str { .. },
                    ..
                } if !test && self.after_default_eq(at) => value = true,
                // A string key that names a capacity (`("MAX_NUM_SEQS", "32")`,
                // `.arg("--max-num-seqs")`): a name, as an identifier is (`index::names::setting_key`).
                TokenKind::Literal {
                    kind: LiteralKind::Str { .. },
                    ..
                } if !test => {
                    let text = &self.src[t.start()..t.end()];
                    if let Some(key) = string_key(text) {
                        named |= (self.classify)(key).prod_with_value;
                    }
                }
                _ => {}
            }
            if (subject && literal)
                || (named && value)
                || (len && work)
                || (len_call && err && own_state)
            {
                return true;
            }
        }
        false
    }
}

/// The hash `Sparse::hidden` lists an identifier by.
pub(crate) fn ident_hash(ident: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(ident.as_bytes());
    h.finish()
}

/// The key a plain string literal's text (quotes included) may be: its body without a flag's
/// leading dashes, when it looks like one (a superset of `index::names::setting_key`'s).
fn string_key(lit: &str) -> Option<&str> {
    let body = lit.strip_prefix('"')?.strip_suffix('"')?;
    let key = body.trim_start_matches('-');
    key_shaped(key).then_some(key)
}

/// Whether a string may be a setting's key: a letter, then letters, digits, `_`, `-` or `.`, at
/// most 64 bytes (`MAX_NUM_SEQS`, `server.max_connections`, `max-num-seqs`; no message).
pub(crate) fn key_shaped(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Whether a string literal's text (quotes included) is digits only (`"4096"`, `"1_000"`).
fn str_digits(lit: &str) -> bool {
    let body = lit.trim_matches('"').trim();
    !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

/// Whether an integer literal's digits (no suffix) are 2 or more.
fn int_at_least_2(digits: &str) -> bool {
    let d = digits.replace('_', "");
    let (radix, body) = match d.get(..2) {
        Some("0x") => (16, &d[2..]),
        Some("0o") => (8, &d[2..]),
        Some("0b") => (2, &d[2..]),
        _ => (10, d.as_str()),
    };
    u128::from_str_radix(body, radix).map_or(true, |v| v >= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(w: &str) -> Class {
        Class {
            prod: w == "PER_BACKEND",
            prod_with_value: w == "Semaphore" || w == "Limits::new" || w == "Self::new",
            value: w == "PER_BACKEND",
            test: w == "PER_BACKEND",
            subject: w == "max",
            api: w == "Semaphore",
            whole_impl: false,
            len: w == "len",
            work: w == "queue",
            typed_call: w == "new",
        }
    }

    fn run(src: &str) -> Option<String> {
        sparse(src, false, &mut classify).map(|s| s.text)
    }

    #[test]
    fn a_collection_compared_with_its_own_capacity_is_self_bounded() {
        let src = "fn f(&self) { if self.queue.len() >= self.queue.capacity() { return; } \
                   if batch.len() == batch.capacity() { flush(); } \
                   if a.len() < b.capacity() {} let n = buf.capacity(); }";
        assert_eq!(lexical(src).self_bounded, ["batch", "queue"]);
        assert!(
            lexical("fn f() { a.len() < a.cap() }")
                .self_bounded
                .is_empty()
        );
    }

    /// (line, column) of the first occurrence of `needle`, columns in characters.
    fn line_col(text: &str, needle: &str) -> (usize, usize) {
        let at = text.find(needle).unwrap();
        let line = text[..at].matches('\n').count();
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        (line, text[start..at].chars().count())
    }

    #[test]
    fn cuts_fact_free_items_and_keeps_lines_and_columns() {
        let src = "use std::x;\n/// doc\nfn a() {\n    let x = 3;\n}\n  fn b() { Semaphore::new(4); }\nconst N: usize = 2;\n";
        let out = run(src).unwrap();
        assert!(out.len() < src.len());
        assert_eq!(out.matches('\n').count(), src.matches('\n').count());
        for needle in ["fn b", "Semaphore", "const N"] {
            assert_eq!(line_col(&out, needle), line_col(src, needle), "{needle}");
        }
        assert!(!out.contains("use std::x;"), "imports hold no facts");
        assert!(!out.contains("fn a"), "{out}");
        assert!(out.contains("fn b() { Semaphore::new(4); }"));
        assert!(out.contains("const N: usize = 2;"));
        assert!(!out.contains("doc"));
    }

    #[test]
    fn keeps_a_gauge_of_work_the_file_counts_up_and_down() {
        let src = "fn a(&self) -> bool { self.queue >= self.cap }
fn up(&mut self) { self.queue += 1; self.seen += 1; }
fn down(&self) { self.queue.fetch_sub(1, R); self.seen.fetch_add(1, R) }
fn b(&mut self) { self.level += 1; self.level -= 1; }
";
        assert_eq!(lexical(src).gauges, ["level", "queue"]);
        let s = sparse(src, false, &mut classify).unwrap();
        assert_eq!(
            s.lexical.gauges,
            ["level", "queue"],
            "the same gauges either way"
        );
        assert!(s.text.contains("fn a"), "{}", s.text);
        assert!(!s.text.contains("fn b"), "a gauge of no work: {}", s.text);
        // `fn z` is always cut, so the cut is never empty and `run` always has a text.
        let only_up = "fn a(&self) -> bool { self.queue >= self.cap }\nfn up(&mut self) { self.queue += 1; }\nfn z() {}\n";
        assert!(
            lexical(only_up).gauges.is_empty(),
            "a total counted up is no gauge"
        );
        assert!(!run(only_up).unwrap().contains("fn a"));
    }

    #[test]
    fn keeps_a_typed_call_only_through_its_type() {
        let src = "fn a() { Limits::new(8) }
fn b() { Vec::new(8) }
fn c() { Self::new(8) }
fn d(x: X) { x.new(8) }
fn e() { Cell::<u8>::new(8) }
fn f() { let p: *const u8 = 0 as _; let q: *const libc::c_void = p as _; foo(2) }
const fn g() -> u8 { 2 }
fn h() { const N: u8 = 2; }
";
        let out = run(src).unwrap();
        for kept in ["fn a", "fn c", "fn e", "fn h"] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
        for cut in ["fn b", "fn d", "fn f", "fn g"] {
            assert!(!out.contains(cut), "{cut}: {out}");
        }
    }

    #[test]
    fn enters_modules_impls_and_item_macros() {
        let src = "#![cfg(test)]\nmod m {\n  impl X {\n    fn quiet(&self) {}\n    fn loud(&self) -> u8 { PER_BACKEND }\n  }\n  impl Y { fn quiet(&self) {} }\n}\ncfg_rt! { fn hidden() {} }\ncfg_net! { fn shown() -> u8 { PER_BACKEND } }\n";
        let out = run(src).unwrap();
        assert!(out.starts_with("#![cfg(test)]\nmod m {\n  impl X {\n"));
        assert!(!out.contains("quiet"));
        assert!(out.contains("fn loud(&self) -> u8 { PER_BACKEND }"));
        assert!(
            !out.contains("impl Y"),
            "a container with nothing kept goes whole: {out}"
        );
        assert!(!out.contains("cfg_rt"));
        assert!(out.contains("cfg_net! { fn shown() -> u8 { PER_BACKEND } }"));
    }

    #[test]
    fn keeps_a_length_of_work_compared_with_a_bound() {
        let src = "fn a(&self) -> bool { self.queue.len() >= self.max }
fn b(&self) -> bool { self.name.len() > self.max }
fn c(&self) -> bool { self.queue.is_empty() }
";
        let out = run(src).unwrap();
        assert!(out.contains("self.queue.len() >= self.max"), "{out}");
        assert!(!out.contains("fn b"), "a length of no work: {out}");
        assert!(!out.contains("fn c"), "work with no length: {out}");
    }

    #[test]
    fn keeps_literals_next_to_subject_words_and_nested_constants() {
        let src = "#[test]\nfn t() { assert!(max(seq) <= 16); }\nfn u() { assert!(x <= 16); }\nfn v() { const K: u8 = 1; }\n";
        let out = run(src).unwrap();
        assert!(out.contains("max(seq) <= 16"));
        assert!(!out.contains("fn u"));
        assert!(out.contains("const K"));
    }

    #[test]
    fn lists_the_constants_only_cut_items_mention() {
        let src = "fn a() -> u32 { MAX_READS + N }\nfn b() { Semaphore::new(MAX_READS) }\nfn c(n: u8) { Semaphore::new(n) }\n";
        let s = sparse(src, false, &mut |w| Class {
            prod_with_value: w == "Semaphore",
            value: w.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
            ..Class::default()
        })
        .unwrap();
        for name in ["MAX_READS", "N"] {
            assert!(s.hidden.binary_search(&ident_hash(name)).is_ok(), "{name}");
        }
        assert!(s.text.contains("Semaphore::new(MAX_READS)"));
        assert!(
            !s.text.contains("fn c"),
            "an API without a value holds no fact"
        );
    }

    #[test]
    fn test_code_keeps_only_what_tests_can_pin_or_use() {
        let src = "#[cfg(test)]\nmod t {\n  fn api() { Semaphore::new(4); }\n  fn uses() -> usize { PER_BACKEND }\n}\n#[tokio::test(flavor = \"x\")]\nasync fn api2() { Semaphore::new(4); }\nfn prod() { Semaphore::new(4); }\n";
        let out = run(src).unwrap();
        assert!(!out.contains("fn api()"), "{out}");
        assert!(!out.contains("api2"), "{out}");
        assert!(out.contains("fn uses() -> usize { PER_BACKEND }"));
        assert!(out.contains("fn prod() { Semaphore::new(4); }"));
        let file = sparse(
            "fn api() { Semaphore::new(4); }\nfn x() {}\n",
            true,
            &mut classify,
        );
        assert!(!file.unwrap().text.contains("api"));
        let inner = run("#![cfg(test)]\nfn api() { Semaphore::new(4); }\n").unwrap();
        assert!(!inner.contains("api"));
    }

    #[test]
    fn attributes_make_test_code_only_where_the_extractor_reads_them() {
        // The extractor ignores `#[cfg(test)]` on a macro call and `#[test]` on a module: what is
        // inside stays production code, and so it stays here.
        let src = "#[cfg(test)]\ncfg_rt! { fn a() { Semaphore::new(4); } }\n#[test]\nmod m { fn b() { Semaphore::new(4); } }\n#[cfg(test)]\nimpl X { fn c() { Semaphore::new(4); } }\n";
        let out = run(src).unwrap();
        assert!(out.contains("fn a()"), "{out}");
        assert!(out.contains("fn b()"), "{out}");
        assert!(!out.contains("fn c()"), "{out}");
    }

    #[test]
    fn leaves_unknown_structure_to_syn() {
        assert_eq!(run("fn a() { ( }"), None);
        assert_eq!(run("let x = 1;"), None);
        assert_eq!(run("fn a() { Semaphore::new(2) }"), None, "nothing to cut");
    }

    #[test]
    fn a_cut_before_code_on_its_line_keeps_columns_in_characters() {
        let src = "fn a() { \"é→\" } /* ü */ fn b() { Semaphore::new(4) }\n";
        let out = run(src).unwrap();
        assert!(!out.contains('é') && !out.contains('ü'), "{out}");
        assert_eq!(line_col(&out, "fn b"), line_col(src, "fn b"));
    }

    #[test]
    fn constants_with_groups_are_leaves() {
        let src = "static T: [u8; 3] = [1, 2, 3];\nstatic P: Lazy<S> = Lazy::new(|| { Semaphore::new(4) });\nconst N: usize = 2 * (3);\n";
        let out = run(src).unwrap();
        assert!(!out.contains("static T"), "{out}");
        assert!(out.contains("static P"));
        assert!(out.contains("const N: usize = 2 * (3);"));
    }
}
