//! Capacity parameters, learnt from the workspace's signatures (the caller's package's, and for
//! an associated function of a type the call names, those of the packages it depends on; see
//! `index::capacity_args`): `fn create_runtime(name: &str, threads: usize, ..)` takes a
//! capacity at its second argument, so `create_runtime("Server", 1, ..)` sets one. Read by rustc's lexer alone (no syntax tree), before the walk and whatever the
//! parse mode: the walk then keeps the items that call these functions (`Triggers`), and the
//! sparse and the full parse see the same signatures and the same calls.
//!
//! A parameter is a capacity's when it is named like one and its declared type is an integer
//! (`threads: usize`, `permits: Option<u32>`; see `NameTable::matches_count`), in a function that
//! makes a value: a free or associated function, or a method taking `self` by value (a
//! builder). A method on `&self` or `&mut self` acts on a value that exists (`sem.acquire(1)`
//! takes one permit, it sets none). Whole-name patterns (`=max_size`) name a capacity only as a
//! pool's setter and do not make a parameter one (`Encoder::new(max_size: usize, ..)` is a
//! table's size in bytes).

use std::collections::VecDeque;

use ra_ap_rustc_lexer::TokenKind;

use crate::index::graph::{Tok, impl_type, matching, tokens, trivia};
use crate::index::names::NameTable;

/// One function's signature, as far as calls to it are matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sig {
    pub(crate) name: String,
    /// The impl's type or the trait, if any.
    pub(crate) self_ty: Option<String>,
    /// It takes `self` (a method).
    pub(crate) has_self: bool,
    /// Its parameters besides `self`.
    pub(crate) arity: usize,
    /// The capacity parameters: position (besides `self`) and name.
    pub(crate) caps: Vec<(usize, String)>,
    /// The positions (besides `self`) of parameters named for a page's size (`limit`,
    /// `page_size`, `per_page`), for `index::serial_pages`.
    pub(crate) pages: Vec<usize>,
    /// The positions (besides `self`) of parameters named as unused (`_bound`): a stand-in that
    /// mirrors a library's signature (`Tables::own_assoc`).
    pub(crate) unused: Vec<usize>,
}

enum Scope {
    Type(String),
    Other,
}

/// What one lexing of a file before the walk tells: its signatures and how deep it nests.
#[derive(Debug, Default)]
pub(crate) struct Prescan {
    pub(crate) sigs: Vec<Sig>,
    /// The byte offset of the first token past `syntax::depth::LIMIT`, if any.
    pub(crate) too_deep: Option<usize>,
    /// The length of the text scanned: the walk takes the largest files first.
    pub(crate) len: usize,
    /// The modules it declares (`mod a;`): which files the compiler reads.
    pub(crate) mods: crate::syntax::modules::ModDecls,
}

/// One lexing of `text` for both the depth bound and, when `names` is given, the signatures.
///
/// With `lexed` (the sparse parse), the same lexing is fed to the sparse cut
/// (`syntax::sparse::Lexed`), so that a file is lexed once for both.
pub(crate) fn prescan(
    text: &str,
    names: Option<&NameTable>,
    mut lexed: Option<&mut crate::syntax::sparse::Lexed>,
) -> Prescan {
    let mut depth = crate::syntax::depth::Depth::new(crate::syntax::depth::LIMIT);
    let mut mods = crate::syntax::modules::ModDecls::default();
    let mut last = ["", ""];
    let mut toks = tokens(text).filter_map(|(start, t)| {
        depth.feed(t.kind, t.text, start);
        if let Some(l) = lexed.as_deref_mut() {
            l.push(t.kind, start, start + t.text.len());
        }
        let significant = !trivia(t.kind);
        if significant {
            mods.feed(last, t.text);
            last = [last[1], t.text];
        }
        significant.then_some(t)
    });
    let sigs = names.map_or_else(Vec::new, |names| scan(toks.by_ref(), names));
    // The depth bound and the cut read every token, wherever the scan stopped.
    toks.for_each(drop);
    if let Some(l) = lexed {
        l.shrink();
    }
    Prescan {
        sigs,
        too_deep: depth.past(),
        len: text.len(),
        mods: mods.finish(),
    }
}

/// Every function signature of one file (bodies skipped but for nested items), collected: the
/// tests hold `prescan`'s streamed scan to it.
#[cfg(test)]
pub(crate) fn sigs(text: &str, names: &NameTable) -> Vec<Sig> {
    scan(crate::index::graph::significant(text).into_iter(), names)
}

/// The tokens still to read, with as many read ahead as a header needs: an `impl` or `fn`
/// header is read up to its `{` or `;`, so a file is scanned without holding its tokens.
struct Ahead<'a, I: Iterator<Item = Tok<'a>>> {
    src: I,
    buf: VecDeque<Tok<'a>>,
}

impl<'a, I: Iterator<Item = Tok<'a>>> Ahead<'a, I> {
    /// Read ahead until `n` tokens are held (or the file ends).
    fn hold(&mut self, n: usize) {
        while self.buf.len() < n {
            match self.src.next() {
                Some(t) => self.buf.push_back(t),
                None => return,
            }
        }
    }

    /// Read ahead from the `from`th token through the first for which `end` holds, which is
    /// given the token and its paren and bracket depth from `from` on.
    fn hold_through(&mut self, from: usize, mut end: impl FnMut(&Tok, i32) -> bool) {
        self.hold(from);
        let mut depth = 0i32;
        let mut j = from;
        loop {
            self.hold(j + 1);
            let Some(t) = self.buf.get(j) else { return };
            match t.kind {
                TokenKind::OpenParen | TokenKind::OpenBracket => depth += 1,
                TokenKind::CloseParen | TokenKind::CloseBracket => depth -= 1,
                _ => {}
            }
            if end(t, depth) {
                return;
            }
            j += 1;
        }
    }

    fn held(&mut self) -> &[Tok<'a>] {
        self.buf.make_contiguous()
    }
}

/// The signatures in a file's significant tokens.
fn scan<'a>(toks: impl Iterator<Item = Tok<'a>>, names: &NameTable) -> Vec<Sig> {
    let mut ahead = Ahead {
        src: toks,
        buf: VecDeque::new(),
    };
    let mut out = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut pending: Option<Scope> = None;
    let mut stored: Vec<Stored> = Vec::new();
    let brace_or_semi = |t: &Tok| matches!(t.kind, TokenKind::OpenBrace | TokenKind::Semi);
    loop {
        ahead.hold(1);
        let Some(&t) = ahead.buf.front() else { break };
        match (t.kind, t.text) {
            (TokenKind::Ident, "impl") => {
                ahead.hold_through(1, |t, _| brace_or_semi(t));
                pending = Some(Scope::Type(impl_type(ahead.held(), 1)));
            }
            (TokenKind::Ident, "trait") => {
                ahead.hold(2);
                if let Some(n) = ahead.buf.get(1).filter(|n| n.kind == TokenKind::Ident) {
                    pending = Some(Scope::Type(n.text.to_string()));
                }
            }
            (TokenKind::Ident, "fn") => {
                ahead.hold(2);
                if let Some(name) = ahead.buf.get(1).filter(|n| n.kind == TokenKind::Ident) {
                    let name = name.text.to_string();
                    // The header, up to the body or the `;` (a `;` or `{` inside the
                    // parameters' brackets is no end: `buf: [u8; N]`).
                    ahead.hold_through(2, |t, depth| depth == 0 && brace_or_semi(t));
                    if let Some((mut sig, next, plain)) = signature(ahead.held(), 2, &name, names) {
                        let self_ty = scopes.iter().rev().find_map(|s| match s {
                            Scope::Type(t) => Some(t.clone()),
                            Scope::Other => None,
                        });
                        if records(&name) {
                            sig.caps.clear();
                        }
                        let body = ahead
                            .held()
                            .iter()
                            .rev()
                            .find(|t| brace_or_semi(t))
                            .is_some_and(|t| t.kind == TokenKind::OpenBrace);
                        if body && !plain.is_empty() && !records(&name) {
                            stored.push(Stored {
                                sig: out.len(),
                                plain,
                                depth: scopes.len() + 1,
                            });
                        }
                        out.push(Sig {
                            name,
                            self_ty,
                            ..sig
                        });
                        pending = Some(Scope::Other);
                        ahead.buf.drain(..next);
                        continue;
                    }
                }
            }
            (TokenKind::OpenBrace, _) => scopes.push(pending.take().unwrap_or(Scope::Other)),
            (TokenKind::CloseBrace, _) => {
                scopes.pop();
                while stored.last().is_some_and(|b| b.depth > scopes.len()) {
                    stored.pop();
                }
            }
            (TokenKind::Ident, _) if stored.last().is_some_and(|b| b.depth <= scopes.len()) => {
                if let Some(b) = stored.last_mut() {
                    b.feed(&mut ahead, &mut out, names);
                }
            }
            (TokenKind::Semi, _) => pending = None,
            _ => {}
        }
        ahead.buf.pop_front();
    }
    out
}

/// Integer parameters by name and position.
type Plain = Vec<(String, usize)>;

/// A function body being scanned, for where it stores its integer parameters: `Self {
/// max_inflight: max }`, `self.max_inflight = max;`. A parameter stored whole into a
/// capacity-named field is that capacity, as a parameter of that name is (`InFlight::new(15)`
/// sets `max_inflight`): it joins the signature's `caps` under the field's name. A field of a
/// rate's or a size's words is none (`matches_count_loose` excludes them).
struct Stored {
    /// The signature's index in the scan's output.
    sig: usize,
    /// Its integer parameters not named for a capacity.
    plain: Plain,
    /// The scope depth inside its body.
    depth: usize,
}

impl Stored {
    /// At an identifier of the body (`ahead`'s first token): `FIELD: PARAM` closed by `,` or
    /// `}`, or `self.FIELD = PARAM;`.
    fn feed<'a, I: Iterator<Item = Tok<'a>>>(
        &mut self,
        ahead: &mut Ahead<'a, I>,
        out: &mut [Sig],
        names: &NameTable,
    ) {
        ahead.hold(6);
        let t = ahead.held();
        let is = |i: usize, k: TokenKind| t.get(i).is_some_and(|x| x.kind == k);
        let (field, param) = if t[0].text == "self"
            && is(1, TokenKind::Dot)
            && is(2, TokenKind::Ident)
            && is(3, TokenKind::Eq)
            && is(4, TokenKind::Ident)
            && is(5, TokenKind::Semi)
        {
            (t[2].text, t[4].text)
        } else if is(1, TokenKind::Colon)
            && is(2, TokenKind::Ident)
            && (is(3, TokenKind::Comma) || is(3, TokenKind::CloseBrace))
        {
            (t[0].text, t[2].text)
        } else {
            return;
        };
        let Some(at) = self.plain.iter().position(|(p, _)| p == param) else {
            return;
        };
        if field == param || !names.matches_count_loose(field) {
            return;
        }
        let (_, pos) = self.plain.remove(at);
        if let Some(sig) = out.get_mut(self.sig) {
            sig.caps.push((pos, field.to_string()));
            sig.caps.sort();
        }
    }
}

/// Whether a function's name says it records what happened (`record_insert_duration(..,
/// batch_size)`, `observe_queue_depth`, `emit_batch_metrics`): its parameters are measurements
/// taken, not settings, and a literal given to one sets no capacity.
pub(crate) fn records(name: &str) -> bool {
    let first = name
        .trim_start_matches('_')
        .split('_')
        .next()
        .unwrap_or_default();
    matches!(first, "record" | "observe" | "emit")
}

/// The parameters of a signature whose generics start at `from` (just after the name), the
/// index just past its `)`, and its integer parameters that are not capacity-named (`max` of
/// `fn new(max: usize)`), by name and position: what the body stores them in may name them
/// (`Stored`).
fn signature(
    toks: &[Tok],
    from: usize,
    fn_name: &str,
    names: &NameTable,
) -> Option<(Sig, usize, Plain)> {
    let mut i = from;
    if toks.get(i).is_some_and(|t| t.kind == TokenKind::Lt) {
        i = past_generics(toks, i)?;
    }
    if toks.get(i)?.kind != TokenKind::OpenParen {
        return None;
    }
    let close = matching(toks, i)?;
    let params = split_params(&toks[i + 1..close]);
    let mut sig = Sig {
        name: String::new(),
        self_ty: None,
        has_self: false,
        arity: 0,
        caps: Vec::new(),
        pages: Vec::new(),
        unused: Vec::new(),
    };
    let mut by_ref = false;
    // Counts beside a cursor (`list_owned_objects(owner, next_page_token, batch_size)`): one
    // page's size, whatever its name.
    let mut sized = Vec::new();
    let mut cursor = false;
    let mut plain = Vec::new();
    for (n, p) in params.iter().enumerate() {
        let colon = p.iter().position(|t| t.kind == TokenKind::Colon);
        let pat = &p[..colon.unwrap_or(p.len())];
        if n == 0
            && pat
                .iter()
                .any(|t| t.kind == TokenKind::Ident && t.text == "self")
        {
            sig.has_self = true;
            by_ref = colon.is_some() || pat.iter().any(|t| t.kind == TokenKind::And);
            continue;
        }
        let pos = sig.arity;
        sig.arity += 1;
        let name = match pat {
            [t] if t.kind == TokenKind::Ident => t.text,
            [m, t] if m.text == "mut" && t.kind == TokenKind::Ident => t.text,
            _ => continue,
        };
        if name.starts_with('_') {
            sig.unused.push(pos);
        }
        if crate::index::names::names_page(name) {
            sig.pages.push(pos);
        } else if crate::index::names::names_page_size(name) {
            sized.push(pos);
        }
        cursor |= crate::index::names::names_cursor(name);
        let Some(colon) = colon else { continue };
        if is_int(&p[colon + 1..]) {
            if names.matches_count_loose(name) {
                sig.caps.push((pos, name.to_string()));
            } else {
                plain.push((name.to_string(), pos));
            }
        }
    }
    // A page reader's count beside a cursor sizes one page, not work held: no capacity.
    if cursor && crate::index::names::names_page_reader(fn_name) {
        sig.pages.extend(sized);
        sig.caps.retain(|(p, _)| !sig.pages.contains(p));
        plain.retain(|(_, p)| !sig.pages.contains(p));
    }
    // A method on a borrowed value acts on what exists (`sem.acquire(num_permits)` takes some
    // permits); a capacity is set where a value is made: a free or associated function (a
    // constructor, a factory) or a builder that takes `self` by value.
    if by_ref {
        sig.caps.clear();
        // What such a method stores (`self.max_seqs = num_seqs` in `ensure(..)`, a scratch
        // buffer grown to fit) is a setting only where its name says it sets
        // (`set_max_inflight(&mut self, n)`).
        if !(fn_name.starts_with("set_") || fn_name.starts_with("with_")) {
            plain.clear();
        }
    }
    Some((sig, close + 1, plain))
}

/// Past a `<..>` starting at `at` (an arrow's `>` does not close it).
fn past_generics(toks: &[Tok], at: usize) -> Option<usize> {
    let mut depth = 0i32;
    for j in at..toks.len() {
        match toks[j].kind {
            TokenKind::Lt => depth += 1,
            TokenKind::Gt if j > 0 && toks[j - 1].kind == TokenKind::Minus => {}
            TokenKind::Gt => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            TokenKind::OpenBrace | TokenKind::Semi => return None,
            _ => {}
        }
    }
    None
}

/// A parameter list split at its top-level commas (generics, groups and arrows respected).
fn split_params<'t, 'a>(toks: &'t [Tok<'a>]) -> Vec<&'t [Tok<'a>]> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (j, t) in toks.iter().enumerate() {
        match t.kind {
            TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
            TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => depth -= 1,
            TokenKind::Lt => depth += 1,
            TokenKind::Gt if j > 0 && toks[j - 1].kind == TokenKind::Minus => {}
            TokenKind::Gt => depth -= 1,
            TokenKind::Comma if depth == 0 => {
                out.push(&toks[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        out.push(&toks[start..]);
    }
    out
}

/// An integer type, as `extract::is_int` reads one: `usize`, `core::primitive::u32`,
/// `NonZeroUsize`, `Option<u32>`.
fn is_int(ty: &[Tok]) -> bool {
    let idents: Vec<&str> = ty
        .iter()
        .filter(|t| t.kind != TokenKind::Colon)
        .map(|t| t.text)
        .collect();
    let path_only = ty
        .iter()
        .all(|t| matches!(t.kind, TokenKind::Ident | TokenKind::Colon));
    if path_only {
        return idents.last().is_some_and(|l| int_name(l));
    }
    match idents.as_slice() {
        ["Option", "<", inner, ">"] => int_name(inner),
        _ => false,
    }
}

fn int_name(s: &str) -> bool {
    use crate::index::extract::is_int_type;
    is_int_type(s)
        || s.strip_prefix("NonZero")
            .is_some_and(|r| is_int_type(&r.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_parameters_are_integer_parameters_named_like_a_capacity() {
        let t = crate::index::Tables::new(&Default::default());
        let src = "impl<T: Fn() -> u8> Server<T> {\n\
                   fn create_runtime(name: &str, threads: usize, steal: bool) -> Runtime { todo!() }\n\
                   pub(crate) fn acquire(&mut self, mut permits: Option<u32>) {}\n\
                   fn spawn(workers: Vec<Worker>, port: u16) {}\n}\n\
                   pub(crate) fn pool<F>(f: F, max_size: core::primitive::u32, workers: u8) where F: Fn(u8) -> u8 {}\n";
        let s = sigs(src, &t.capacity_names);
        let got: Vec<_> = s
            .iter()
            .map(|s| (s.name.as_str(), s.self_ty.as_deref(), s.has_self, s.arity))
            .collect();
        assert_eq!(
            got,
            [
                ("create_runtime", Some("Server"), false, 3),
                ("acquire", Some("Server"), true, 1),
                ("spawn", Some("Server"), false, 2),
                ("pool", None, false, 3),
            ]
        );
        assert_eq!(s[0].caps, [(1, "threads".to_string())]);
        assert!(s[1].caps.is_empty(), "a method on `&mut self` sets nothing");
        assert!(s[2].caps.is_empty(), "a vector of workers is no count");
        assert_eq!(
            s[3].caps,
            [(2, "workers".to_string())],
            "`=max_size` is a pool setter's name only"
        );
    }

    #[test]
    fn a_parameter_stored_whole_into_a_capacity_named_field_is_named_by_it() {
        let t = crate::index::Tables::new(&Default::default());
        let src = "impl InFlight {\n\
                   fn new(max: usize, port: u16) -> Self { Self { max_inflight: max, port } }\n\
                   fn set_bound(&mut self, n: usize) { self.permits = n; }\n\
                   fn ensure(&mut self, n: usize) { self.max_seqs = n; }\n\
                   fn scaled(n: usize) -> Self { Self { workers: n * 2 } }\n\
                   fn nested(n: usize) -> Self { fn inner(m: usize) {} Self { workers: n } }\n}\n";
        let s = sigs(src, &t.capacity_names);
        let caps: Vec<(&str, &[(usize, String)])> = s
            .iter()
            .map(|s| (s.name.as_str(), s.caps.as_slice()))
            .collect();
        assert_eq!(
            caps,
            [
                ("new", &[(0, "max_inflight".to_string())][..]),
                ("set_bound", &[(0, "permits".to_string())]),
                ("ensure", &[]),
                ("scaled", &[]),
                ("nested", &[(0, "workers".to_string())]),
                ("inner", &[]),
            ],
            "stored whole only; a `&mut self` method only as a setter; each body its own"
        );
    }

    #[test]
    fn page_parameters_are_read_off_every_signature_and_kept_for_readers_of_a_page() {
        let t = crate::index::Tables::new(&Default::default());
        let src = "trait Store { fn list_devices(&self, app: &str, limit: usize) -> Vec<u8>; }\n\
                   fn get_task_batch(conn: u8, limit: usize) {}\n\
                   fn make(limit: usize) {}\n";
        let s = sigs(src, &t.capacity_names);
        let pages: Vec<&[usize]> = s.iter().map(|s| s.pages.as_slice()).collect();
        assert_eq!(pages, [&[1][..], &[1], &[0]], "positions besides self");
        assert_eq!(
            crate::index::page_params(&s),
            [(".list_devices".to_string(), 1)],
            "a batch's fetch holds work, and `make` reads no page"
        );
    }

    #[test]
    fn a_page_readers_count_beside_its_cursor_is_a_page_not_a_capacity() {
        let t = crate::index::Tables::new(&Default::default());
        let src = "fn list_objects(owner: u64, next_page_token: Option<u8>, batch_size: u32) {}\n\
                   fn spawn_workers(offset: u64, batch_size: u32) {}\n\
                   fn read_rows(batch_size: u32) {}\n";
        let s = sigs(src, &t.capacity_names);
        let pages: Vec<&[usize]> = s.iter().map(|s| s.pages.as_slice()).collect();
        assert_eq!(
            pages,
            [&[2][..], &[], &[]],
            "a reader's count beside a cursor"
        );
        assert!(
            s[0].caps.is_empty(),
            "the page's size is no capacity parameter"
        );
        assert_eq!(
            (s[1].caps.len(), s[2].caps.len()),
            (1, 1),
            "no reader, or no cursor: still a capacity parameter"
        );
    }

    #[test]
    fn the_prescan_reads_the_same_signatures_and_depth_as_the_separate_scans() {
        let t = crate::index::Tables::new(&Default::default());
        let deep = format!("fn g() {{ {}1{} }}", "(".repeat(4000), ")".repeat(4000));
        let texts = [
            "impl Trait for [u8; 4] { fn new(threads: usize) -> Self { todo!() } }\n\
             fn pool<F: Fn(u8) -> u8>(f: F, buf: [u8; { 4 }], workers: u32) -> impl Fn() {}\n\
             trait T { fn spawn(permits: u32); fn acquire(&mut self, permits: u32); }\n\
             fn broken(workers: usize",
            "fn",
            "impl",
            "fn f<",
            deep.as_str(),
            "// a comment\nfn unrelated() { let x = y; }\npub const MAX_CONNECTIONS: usize = 8;\n\
             fn spawn() { let (tx, rx) = tokio::sync::mpsc::channel(64); /* more */ }\n",
        ];
        for text in texts {
            let pre = prescan(text, Some(&t.capacity_names), None);
            assert_eq!(pre.sigs, sigs(text, &t.capacity_names), "{text}");
            assert_eq!(pre.too_deep, crate::syntax::depth::too_deep(text));
            assert_eq!(pre.len, text.len());
            let tests_only = prescan(text, None, None);
            assert!(tests_only.sigs.is_empty());
            assert_eq!(tests_only.too_deep, pre.too_deep);
            // The cut made from the prescan's lexing is the cut made from a lexing of its own.
            let triggers = crate::index::triggers::Triggers::new(&t, []);
            for test in [false, true] {
                let mut lexed = crate::syntax::sparse::Lexed::default();
                let with_cut = prescan(text, Some(&t.capacity_names), Some(&mut lexed));
                assert_eq!(with_cut.sigs, pre.sigs);
                assert_eq!(
                    lexed.cut(text, test, &mut triggers.classifier()),
                    crate::syntax::sparse::sparse(text, test, &mut triggers.classifier()),
                    "{text}"
                );
            }
        }
        assert!(prescan(&deep, None, None).too_deep.is_some());
    }
}
