//! A workspace's own `macro_rules!` read as functions, so that a value given to a macro flows
//! where the macro's body puts it (live777's `new_broadcast_channel!(16)`, whose body is
//! `broadcast::channel($capacity)`), as a value given to a function does.
//!
//! Each rule whose matcher is a list of fragments separated by commas (`($capacity:expr)`,
//! `($a:expr, $b:ident,)`) becomes `fn NAME(capacity: usize, ..) { BODY }` (marked
//! `#[capcheck_macro_rules]`: its flow key is `NAME!`, [`is_rule_fn`]), its body the
//! rule's with each `$fragment` written as a plain identifier and `$crate` as `crate`. The
//! tokens keep their spans, so what the walk finds in the body sits where the macro writes it.
//! A rule that repeats (`$(..)*`) or matches anything else is left out: its arguments do not
//! line up with a call's. An invocation's arguments go to the parameters by position
//! (`Extractor::macro_flow`), as a call's do, under the macro's name.

use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::quote;

/// Append to `items` (and to the items of every inline module among them) a function for each
/// rule of each `macro_rules!` they define, as the module doc says.
pub(crate) fn add_rule_fns(items: &mut Vec<syn::Item>) {
    let mut made = Vec::new();
    for item in items.iter_mut() {
        match item {
            syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                if let Some(name) = &m.ident {
                    made.extend(rule_fns(name, m.mac.tokens.clone()));
                }
            }
            syn::Item::Mod(syn::ItemMod {
                content: Some((_, inner)),
                ..
            }) => add_rule_fns(inner),
            _ => {}
        }
    }
    items.extend(made.into_iter().map(syn::Item::Fn));
}

/// Whether a function is a macro's rule read as one (`add_rule_fns`).
pub(crate) fn is_rule_fn(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("capcheck_macro_rules"))
}

/// The functions of one macro's rules (`(matcher) => { body };`, repeated).
fn rule_fns(name: &Ident, rules: TokenStream) -> Vec<syn::ItemFn> {
    let mut out = Vec::new();
    let mut tokens = rules.into_iter().peekable();
    while let Some(matcher) = tokens.next() {
        let TokenTree::Group(matcher) = matcher else {
            break;
        };
        let arrow = (tokens.next(), tokens.next());
        let (Some(TokenTree::Punct(eq)), Some(TokenTree::Punct(gt))) = arrow else {
            break;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            break;
        }
        let Some(TokenTree::Group(body)) = tokens.next() else {
            break;
        };
        if matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            tokens.next();
        }
        let Some(params) = fragments(matcher.stream()) else {
            continue;
        };
        let Some(body) = substitute(body.stream(), &params) else {
            continue;
        };
        let args = params.iter().map(|p| quote!(#p: usize));
        let tokens = quote!(#[capcheck_macro_rules] fn #name(#(#args),*) { #body });
        if let Ok(f) = syn::parse2::<syn::ItemFn>(tokens) {
            out.push(f);
        }
    }
    out
}

/// The fragments of a matcher that is only `$name:kind` separated by commas, in order; none
/// for any other matcher.
fn fragments(matcher: TokenStream) -> Option<Vec<Ident>> {
    let mut out = Vec::new();
    let mut tokens = matcher.into_iter();
    loop {
        match tokens.next() {
            None => return Some(out),
            Some(TokenTree::Punct(p)) if p.as_char() == '$' => {}
            Some(_) => return None,
        }
        let Some(TokenTree::Ident(name)) = tokens.next() else {
            return None;
        };
        match tokens.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {}
            _ => return None,
        }
        let Some(TokenTree::Ident(_kind)) = tokens.next() else {
            return None;
        };
        out.push(name);
        match tokens.next() {
            None => return Some(out),
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => {}
            Some(_) => return None,
        }
    }
}

/// `body` with each `$param` written as `param` and `$crate` as `crate`; none where it
/// repeats (`$(..)*`) or names a fragment the matcher does not have.
fn substitute(body: TokenStream, params: &[Ident]) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    let mut tokens = body.into_iter();
    while let Some(t) = tokens.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '$' => match tokens.next()? {
                TokenTree::Ident(i) if i == "crate" => {
                    out.extend([TokenTree::Ident(Ident::new("crate", i.span()))]);
                }
                TokenTree::Ident(i) if params.contains(&i) => out.extend([TokenTree::Ident(i)]),
                _ => return None,
            },
            TokenTree::Group(g) => {
                let inner = substitute(g.stream(), params)?;
                let mut copy = Group::new(g.delimiter(), inner);
                copy.set_span(g.span());
                out.extend([TokenTree::Group(copy)]);
            }
            other => out.extend([other]),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items of `src` once its macros' rules are read as functions.
    fn read(src: &str) -> Vec<syn::Item> {
        let mut file = syn::parse_file(src).unwrap();
        add_rule_fns(&mut file.items);
        file.items
    }

    fn fns(src: &str) -> Vec<String> {
        read(src)
            .iter()
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some(quote!(#f).to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_rule_of_fragments_becomes_a_function_of_its_parameters() {
        let got = fns("macro_rules! new_channel {\n\
                ($capacity:expr) => {{ let (tx, _rx) = $crate::chan($capacity); tx }};\n\
                () => { new_channel!(16) };\n\
            }");
        assert_eq!(
            got,
            [
                "# [capcheck_macro_rules] fn new_channel (capacity : usize) { { let (tx , _rx) = crate :: chan (capacity) ; tx } }",
                "# [capcheck_macro_rules] fn new_channel () { new_channel ! (16) }",
            ]
        );
    }

    #[test]
    fn a_rule_that_repeats_matches_words_or_names_no_fragment_is_left_out() {
        assert!(fns("macro_rules! m { ($($x:expr),*) => { f($($x),*) }; }").is_empty());
        assert!(fns("macro_rules! m { (size = $x:expr) => { f($x) }; }").is_empty());
        assert!(fns("macro_rules! m { ($x:expr) => { f($y) }; }").is_empty());
    }

    #[test]
    fn rules_in_an_inline_module_become_its_functions() {
        let items = read("mod m { macro_rules! p { ($n:expr) => { g($n) }; } }");
        let syn::Item::Mod(m) = &items[0] else {
            panic!("a module")
        };
        let items = &m.content.as_ref().unwrap().1;
        assert!(matches!(&items[1], syn::Item::Fn(f) if f.sig.ident == "p"));
    }

    #[test]
    fn the_spans_are_the_macros_own() {
        let items = read("macro_rules! m {\n  ($n:expr) => { f($n, 7) };\n}");
        let syn::Item::Fn(f) = &items[1] else {
            panic!("a function")
        };
        let syn::Stmt::Expr(syn::Expr::Call(c), _) = &f.block.stmts[0] else {
            panic!("a call")
        };
        assert_eq!(syn::spanned::Spanned::span(&c.args[1]).start().line, 2);
    }
}
