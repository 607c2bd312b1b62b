//! Per-file facts: what one file defines and does that matters for capacity, as plain data.
//! Built in parallel (one extractor per file), merged and resolved by `index::build`.

use serde::Serialize;

use crate::index::value::{Operand, Val};
use crate::source::Loc;
use crate::syntax::{FileRole, ParseFailure};

/// Who can name an item: what a test can pin depends on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) enum Visibility {
    /// `pub`: other crates (integration tests) too.
    Public,
    /// `pub(crate)`, `pub(super)`, `pub(in ..)`: the defining crate.
    Crate,
    /// Private: the defining module (`crate::a::b`) and its descendants.
    Private(String),
}

/// A `const` or `static` item with an integer-like initialiser.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ConstDef {
    pub(crate) ident: String,
    /// `crate::module::ITEM` (or `crate::module::Type::ITEM` for associated constants).
    pub(crate) site: String,
    pub(crate) val: Val,
    /// The initialiser expression.
    pub(crate) loc: Loc,
    pub(crate) visibility: Visibility,
    pub(crate) is_static: bool,
    pub(crate) in_test: bool,
    /// Its declared type is an integer: the value counts something (see `NameTable::matches_count`).
    pub(crate) counts: bool,
    /// Its declared type's name holds an excluded word (`EVT_PUBLISHER_METADATA_PROPERTY_ID`,
    /// `ConnId`): an id or a code, not a capacity, whatever the constant is called.
    pub(crate) excluded_type: bool,
    /// The function whose body declares it, if any (`fn clean_account() { const BATCH_SIZE:
    /// usize = 200; .. }`): what the constant is for, where its own name does not say.
    pub(crate) function: Option<String>,
}

/// A field initialiser in a struct literal: `Config { per_backend: 8, .. }`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FieldInit {
    pub(crate) type_name: String,
    pub(crate) field: String,
    pub(crate) site: String,
    pub(crate) val: Val,
    pub(crate) loc: Loc,
    pub(crate) in_test: bool,
    /// The function the literal is built in (`Config::default`), for reports.
    pub(crate) function: String,
}

/// A literal that sets a named value: a `let` binding, a function's result, a `match` arm or
/// `if` branch or bound of a `const`, `static` or field, a clap argument's default.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NamedLit {
    pub(crate) ident: String,
    pub(crate) site: String,
    pub(crate) value: u64,
    pub(crate) loc: Loc,
    pub(crate) in_test: bool,
    /// How the literal is written: a `let`, a function's result, or a `const`, `static` or field
    /// set by a branch, a fallback or a bound, or a field's clap default.
    pub(crate) kind: crate::index::CapacityKind,
    pub(crate) visibility: Visibility,
    /// The capacity APIs a `let` binding flows into in its function (`Semaphore::new(permits)`),
    /// with the argument's location: such a binding is a capacity whatever its name.
    pub(crate) flows: Vec<(String, Loc)>,
}

/// An argument of a capacity API call (`Semaphore::new(8)`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ApiArg {
    pub(crate) api: String,
    pub(crate) site: String,
    pub(crate) arg: Operand,
    pub(crate) in_test: bool,
    /// A 1 here is a lock, a hand-off or a floor (`Semaphore::new(1)`, `channel(1)`, the CPU
    /// count's `unwrap_or(1)`), not a capacity.
    pub(crate) quiet_at_one: bool,
}

/// A call of a function some signature of the workspace gives a capacity parameter
/// (`index::params`), with its literal and constant arguments; matched to the signatures of its
/// own package when the index is resolved.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CallArgs {
    /// The function or method called (`create_runtime`).
    pub(crate) callee: String,
    /// The segment before it in a path call (`Server` in `Server::create_runtime`; `Self` is the
    /// impl's type), if any.
    pub(crate) qualifier: Option<String>,
    /// A method call (`.f(..)`).
    pub(crate) method: bool,
    pub(crate) n_args: usize,
    /// Arguments that are a literal or a constant, by position.
    pub(crate) args: Vec<(usize, Operand)>,
    /// The call as written up to its arguments (`Server::create_runtime`, `.acquire`).
    pub(crate) text: String,
    pub(crate) site: String,
    pub(crate) in_test: bool,
}

/// A product `a * b` outside literals-only arithmetic.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Product {
    pub(crate) site: String,
    pub(crate) function: String,
    pub(crate) loc: Loc,
    pub(crate) text: String,
    pub(crate) left: Operand,
    pub(crate) right: Operand,
    pub(crate) in_test: bool,
}

/// A comparison inside an assertion (or passed as a bool to a helper) in test code.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Comparison {
    /// The assertion macro or helper (`assert`, `assert_eq`, `check`).
    pub(crate) via: String,
    pub(crate) op: String,
    pub(crate) loc: Loc,
    pub(crate) text: String,
    pub(crate) left: Operand,
    pub(crate) right: Operand,
    pub(crate) function: String,
}

/// A reference to a constant by name (`PER_BACKEND`), for "where it flows".
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ConstRef {
    pub(crate) ident: String,
    pub(crate) loc: Loc,
    pub(crate) in_test: bool,
    /// The capacity API it is an argument of, if any.
    pub(crate) api: Option<String>,
    /// `api` is a binding named for a capacity (`let workers = DEFAULT;`, `` `workers` ``), not
    /// an API: weaker evidence, so it counts within the constant's own package only, and not
    /// for a constant whose own name a word excludes (`max_size: DEFAULT_MAX_FRAME_SIZE`).
    pub(crate) binding: bool,
    /// The function it is written in, for a bare name (`BATCH_SIZE`, not `cfg::BATCH_SIZE`):
    /// a constant that function declares in its body is the one it names
    /// (`ConstDef::function`). `None` outside functions, for a path, or where unknown.
    pub(crate) function: Option<String>,
}

/// A function that computes a ceiling from a count: `fn fleet_ceiling(&self, healthy: usize)`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CeilingFn {
    pub(crate) name: String,
    pub(crate) site: String,
    pub(crate) loc: Loc,
    /// The count parameter (`healthy`).
    pub(crate) count_param: String,
    pub(crate) in_test: bool,
}

/// Everything one file contributes to the index.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct FileFacts {
    pub(crate) rel: String,
    /// The package the file belongs to: pins are explained by capacities of the same package.
    pub(crate) package: String,
    pub(crate) lines: usize,
    pub(crate) role: FileRole,
    #[serde(skip)]
    pub(crate) parse_error: Option<ParseFailure>,
    pub(crate) consts: Vec<ConstDef>,
    pub(crate) fields: Vec<FieldInit>,
    pub(crate) named_lits: Vec<NamedLit>,
    pub(crate) api_args: Vec<ApiArg>,
    pub(crate) products: Vec<Product>,
    /// Splits in production code: a constant or field divided by a literal (`MAX_NODES / 3`), by
    /// name and divisor. A test may pin the share rather than the whole.
    pub(crate) splits: Vec<(String, u64)>,
    pub(crate) comparisons: Vec<Comparison>,
    pub(crate) const_refs: Vec<ConstRef>,
    pub(crate) ceilings: Vec<CeilingFn>,
    pub(crate) calls: Vec<CallArgs>,
    /// The file's function signatures with a capacity parameter, and every other signature of
    /// the same name (`index::params`, read before the walk).
    #[serde(skip)]
    pub(crate) sigs: Vec<crate::index::params::Sig>,
    /// The file's functions' page parameters, by flow key and position (`.list_devices`, 1):
    /// read from every signature before the walk, so the sparse parse knows them as a full
    /// one does (`index::page_params`).
    #[serde(skip)]
    pub(crate) page_params: Vec<(String, usize)>,
    /// Out-of-line modules declared in test code (`#[cfg(test)] mod tests;`), as
    /// `crate::module::name`: their files are test code.
    pub(crate) test_modules: Vec<String>,
    /// The places where a constant is used and bounds nothing: compared with a size only to log
    /// that it grew (`if len > LIMIT { warn!(..) }`: `Extractor::warn_gate`), with a request's
    /// own count only to refuse it (`Extractor::request_gate`), or sizing a GPU kernel's launch
    /// (`Extractor::launch_geometry`). A constant whose every use is one is no capacity.
    #[serde(skip)]
    pub(crate) inert_uses: Vec<Loc>,
    /// The bindings a GPU kernel's launch is sized with, by site (`crate::m::silu::threads` of
    /// `LaunchConfig::grid_2d(blocks, 1, threads, 1)`): a block's threads, no capacity.
    #[serde(skip)]
    pub(crate) launch_sites: Vec<String>,
    /// The identifiers that only items the sparse parse skipped mention (`sparse::ident_hash`).
    #[serde(skip)]
    pub(crate) hidden: Vec<u64>,
    /// Where the file's values go (`index::flow`).
    pub(crate) flow: crate::index::flow::FileFlow,
    /// The call graph's nodes: every function with a body and the names it mentions. Read by
    /// the lexer (`index::graph`), only where a pin must be traced (`project::trace_pass`).
    #[serde(skip)]
    pub(crate) fns: Vec<FnNode>,
}

/// A function as the pin rule traces it: what its body mentions, by name (identifiers, macro
/// bodies included) and the integer literals it holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct FnNode {
    pub(crate) site: String,
    pub(crate) name: String,
    /// The impl's type or the trait, if any.
    pub(crate) self_ty: Option<String>,
    pub(crate) idents: std::collections::BTreeSet<String>,
    pub(crate) ints: std::collections::BTreeSet<u64>,
    /// Every integer literal of the body, repeats kept, in order.
    pub(crate) lits: Vec<u64>,
    /// The integer literals the body yields as a value (`{ 16 }`, `=> 8`, `return 4`,
    /// `x = 2`), not as an operand (`n <= 2`, `a * 4`, `f(3)`).
    pub(crate) values: std::collections::BTreeSet<u64>,
    /// What the body calls by path: `name` (unqualified), `Q::name` (the segment before the
    /// name), `::name` (a qualifier the lexer cannot name, `Vec::<u8>::new`).
    pub(crate) calls: std::collections::BTreeSet<String>,
    /// What the body calls as a method (`.name(`).
    pub(crate) methods: std::collections::BTreeSet<String>,
    /// It takes `self`.
    pub(crate) has_self: bool,
    /// The trait of the trait impl that holds it (`Default` for `impl Default for Config`).
    pub(crate) trait_name: Option<String>,
    /// The integer literals inside its assertion macros, repeats kept.
    pub(crate) asserted: Vec<u64>,
    /// Of those, the ones handed to a function or method there (`q.push(mk_meta(1, 0, 4))`):
    /// the test's inputs.
    pub(crate) handed: Vec<u64>,
    /// The names its `for` loops bind (`for batch_size in sizes`, `for &(n, m) in cases`): each
    /// takes the loop's own items.
    pub(crate) loop_vars: std::collections::BTreeSet<String>,
    /// A test function (`#[test]`, `#[tokio::test]`, ..): no code calls it.
    pub(crate) is_test: bool,
    /// The fields its struct literals set by a call, with the function called and the names
    /// its arguments mention (`max_conns: env_or(MAX)` -> `(max_conns, [env_or, MAX])`).
    pub(crate) field_calls: Vec<(String, Vec<String>)>,
    /// The fields it gives an integer literal, by assignment or in a struct literal
    /// (`self.batch_max = 16;`, `Config { batch_max: 16, .. }` -> `(batch_max, 16)`).
    pub(crate) field_lits: Vec<(String, u64)>,
    /// Its body's bytes in the file's text, braces included: which function a name written
    /// at some offset sits in (`pins::callers`).
    pub(crate) body: std::ops::Range<usize>,
}

impl FnNode {
    /// The identifiers and integer literals of `text` (a function's body), by rustc's lexer.
    pub(crate) fn mentions(
        text: &str,
    ) -> (
        std::collections::BTreeSet<String>,
        std::collections::BTreeSet<u64>,
    ) {
        use ra_ap_rustc_lexer::{FrontmatterAllowed, tokenize};
        let mut at = 0;
        Self::mentions_of(tokenize(text, FrontmatterAllowed::No).map(|t| {
            let tok = &text[at..at + t.len as usize];
            at += t.len as usize;
            (t.kind, tok)
        }))
    }

    /// Every number `text` writes (`numbers`), repeats kept, by rustc's lexer.
    pub(crate) fn literals(text: &str) -> Vec<u64> {
        use ra_ap_rustc_lexer::{FrontmatterAllowed, tokenize};
        let mut at = 0;
        let mut out = Vec::new();
        for t in tokenize(text, FrontmatterAllowed::No) {
            let tok = &text[at..at + t.len as usize];
            at += t.len as usize;
            Self::numbers(t.kind, tok, &mut out);
        }
        out
    }

    /// The numbers a token writes, pushed to `out`: an integer literal's value, and of a string
    /// literal the whole string when it is a number (`"64"`, an environment variable's value)
    /// and each number right after a `=` or `:` (`"limit=50"`, `"--workers=8"`,
    /// `"{\"bytes\": 64}"`), and the value of a line that is a key and a number
    /// (`"vector-max-concurrent-flat-queries 8"`, the Redis-style config a test writes to a
    /// file). A test that writes the number it asserts in any of these forms may be where the
    /// value comes from.
    pub(crate) fn numbers(kind: ra_ap_rustc_lexer::TokenKind, tok: &str, out: &mut Vec<u64>) {
        use ra_ap_rustc_lexer::{LiteralKind, TokenKind};
        if let Some(n) = Self::int(kind, tok) {
            out.push(n);
            return;
        }
        let TokenKind::Literal {
            kind: LiteralKind::Str { .. } | LiteralKind::RawStr { .. },
            ..
        } = kind
        else {
            return;
        };
        let inner = tok
            .trim_start_matches('r')
            .trim_matches('#')
            .trim_matches('"');
        if let Ok(n) = inner.trim().parse() {
            out.push(n);
            return;
        }
        if let Some((key, value)) = inner.trim().split_once(char::is_whitespace) {
            let key_like = key.starts_with(|c: char| c.is_ascii_alphabetic())
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if let (true, Ok(n)) = (key_like, value.trim().parse()) {
                out.push(n);
                return;
            }
        }
        let b = inner.as_bytes();
        for (i, _) in inner.match_indices(['=', ':']) {
            let start = i + 1 + b[i + 1..].iter().take_while(|c| **c == b' ').count();
            let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
            // A whole number: not the start of `1.5`, `8080/path` is still 8080.
            if end > start
                && b.get(end)
                    .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'.')
            {
                out.extend(inner[start..end].parse::<u64>().ok());
            }
        }
    }

    /// The value of an integer literal token (`1_000u32` -> 1000).
    pub(crate) fn int(kind: ra_ap_rustc_lexer::TokenKind, tok: &str) -> Option<u64> {
        use ra_ap_rustc_lexer::{LiteralKind, TokenKind};
        let TokenKind::Literal {
            kind: LiteralKind::Int { .. },
            suffix_start,
        } = kind
        else {
            return None;
        };
        tok[..suffix_start as usize].replace('_', "").parse().ok()
    }

    /// The identifiers and integer literals among tokens already lexed (kind and text).
    pub(crate) fn mentions_of<'t>(
        tokens: impl Iterator<Item = (ra_ap_rustc_lexer::TokenKind, &'t str)>,
    ) -> (
        std::collections::BTreeSet<String>,
        std::collections::BTreeSet<u64>,
    ) {
        use ra_ap_rustc_lexer::TokenKind;
        let (mut idents, mut ints) = (
            std::collections::BTreeSet::new(),
            std::collections::BTreeSet::new(),
        );
        for (kind, tok) in tokens {
            if matches!(kind, TokenKind::Ident | TokenKind::RawIdent) {
                idents.insert(tok.trim_start_matches("r#").to_string());
            }
            ints.extend(Self::int(kind, tok));
        }
        (idents, ints)
    }
}
