//! The span of an expression without printing it. syn's `Spanned` prints a node's whole subtree
//! into tokens to find its first and last one, so asking every node of a tree for its span costs
//! time quadratic in the tree's depth (a 3,000-deep expression took seconds per file). Here only
//! the leftmost and the rightmost spines are followed, to the first and the last token.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Member, PathArguments, UnOp};

/// The span of `node` from its first to its last token: the fast walk for an `Expr`, syn's
/// `Spanned` for anything else.
pub(crate) fn of<T: Spanned + 'static>(node: &T) -> Span {
    match (node as &dyn std::any::Any).downcast_ref::<Expr>() {
        Some(e) => expr(e),
        None => node.span(),
    }
}

/// The span of an expression, from its first to its last token.
pub(crate) fn expr(e: &Expr) -> Span {
    match (first(e), last(e)) {
        (Some(a), Some(b)) => a.join(b).unwrap_or_else(|| e.span()),
        _ => e.span(),
    }
}

/// The span of an expression's first token; `None` for forms not followed here.
fn first(mut e: &Expr) -> Option<Span> {
    loop {
        // Inner attributes (`match x { #![..] .. }`) print inside the braces.
        if let Some(a) = attrs(e)
            .iter()
            .find(|a| matches!(a.style, syn::AttrStyle::Outer))
        {
            return Some(a.pound_token.span);
        }
        let label = |l: &Option<syn::Label>| l.as_ref().map(|l| l.name.apostrophe);
        return Some(match e {
            Expr::Assign(x) => {
                e = &x.left;
                continue;
            }
            Expr::Await(x) => {
                e = &x.base;
                continue;
            }
            Expr::Binary(x) => {
                e = &x.left;
                continue;
            }
            Expr::Call(x) => {
                e = &x.func;
                continue;
            }
            Expr::Cast(x) => {
                e = &x.expr;
                continue;
            }
            Expr::Field(x) => {
                e = &x.base;
                continue;
            }
            Expr::Index(x) => {
                e = &x.expr;
                continue;
            }
            Expr::MethodCall(x) => {
                e = &x.receiver;
                continue;
            }
            Expr::Try(x) => {
                e = &x.expr;
                continue;
            }
            Expr::Range(x) => match &x.start {
                Some(s) => {
                    e = s;
                    continue;
                }
                None => limits(&x.limits, false),
            },
            Expr::Array(x) => x.bracket_token.span.open(),
            Expr::Async(x) => x.async_token.span,
            Expr::Block(x) => label(&x.label).unwrap_or(x.block.brace_token.span.open()),
            Expr::Break(x) => x.break_token.span,
            Expr::Const(x) => x.const_token.span,
            Expr::Continue(x) => x.continue_token.span,
            Expr::ForLoop(x) => label(&x.label).unwrap_or(x.for_token.span),
            Expr::If(x) => x.if_token.span,
            Expr::Infer(x) => x.underscore_token.span,
            Expr::Let(x) => x.let_token.span,
            Expr::Lit(x) => x.lit.span(),
            Expr::Loop(x) => label(&x.label).unwrap_or(x.loop_token.span),
            Expr::Macro(x) => path_first(&x.mac.path)?,
            Expr::Match(x) => x.match_token.span,
            Expr::Paren(x) => x.paren_token.span.open(),
            Expr::Path(x) => match &x.qself {
                Some(q) => q.lt_token.span,
                None => path_first(&x.path)?,
            },
            Expr::RawAddr(x) => x.and_token.span,
            Expr::Reference(x) => x.and_token.span,
            Expr::Repeat(x) => x.bracket_token.span.open(),
            Expr::Return(x) => x.return_token.span,
            Expr::Struct(x) => match &x.qself {
                Some(q) => q.lt_token.span,
                None => path_first(&x.path)?,
            },
            Expr::TryBlock(x) => x.try_token.span,
            Expr::Tuple(x) => x.paren_token.span.open(),
            Expr::Unary(x) => match x.op {
                UnOp::Deref(t) => t.span,
                UnOp::Not(t) => t.span,
                UnOp::Neg(t) => t.span,
                _ => return None,
            },
            Expr::Unsafe(x) => x.unsafe_token.span,
            Expr::While(x) => label(&x.label).unwrap_or(x.while_token.span),
            Expr::Yield(x) => x.yield_token.span,
            // Closures (their many optional prefixes), invisible groups, verbatim tokens.
            _ => return None,
        });
    }
}

/// The span of an expression's last token; `None` for forms not followed here.
fn last(mut e: &Expr) -> Option<Span> {
    loop {
        return Some(match e {
            Expr::Assign(x) => {
                e = &x.right;
                continue;
            }
            Expr::Binary(x) => {
                e = &x.right;
                continue;
            }
            Expr::Closure(x) => {
                e = &x.body;
                continue;
            }
            Expr::Let(x) => {
                e = &x.expr;
                continue;
            }
            Expr::RawAddr(x) => {
                e = &x.expr;
                continue;
            }
            Expr::Reference(x) => {
                e = &x.expr;
                continue;
            }
            Expr::Unary(x) => {
                e = &x.expr;
                continue;
            }
            Expr::Range(x) => match &x.end {
                Some(end) => {
                    e = end;
                    continue;
                }
                None => limits(&x.limits, true),
            },
            Expr::Break(x) => match (&x.expr, &x.label) {
                (Some(v), _) => {
                    e = v;
                    continue;
                }
                (None, Some(l)) => l.ident.span(),
                (None, None) => x.break_token.span,
            },
            Expr::Return(x) => match &x.expr {
                Some(v) => {
                    e = v;
                    continue;
                }
                None => x.return_token.span,
            },
            Expr::Yield(x) => match &x.expr {
                Some(v) => {
                    e = v;
                    continue;
                }
                None => x.yield_token.span,
            },
            Expr::If(x) => match &x.else_branch {
                Some((_, v)) => {
                    e = v;
                    continue;
                }
                None => x.then_branch.brace_token.span.close(),
            },
            Expr::Array(x) => x.bracket_token.span.close(),
            Expr::Async(x) => x.block.brace_token.span.close(),
            Expr::Await(x) => x.await_token.span,
            Expr::Block(x) => x.block.brace_token.span.close(),
            Expr::Call(x) => x.paren_token.span.close(),
            Expr::Cast(x) => x.ty.span(),
            Expr::Const(x) => x.block.brace_token.span.close(),
            Expr::Continue(x) => match &x.label {
                Some(l) => l.ident.span(),
                None => x.continue_token.span,
            },
            Expr::Field(x) => match &x.member {
                Member::Named(i) => i.span(),
                Member::Unnamed(i) => i.span,
            },
            Expr::ForLoop(x) => x.body.brace_token.span.close(),
            Expr::Index(x) => x.bracket_token.span.close(),
            Expr::Infer(x) => x.underscore_token.span,
            Expr::Lit(x) => x.lit.span(),
            Expr::Loop(x) => x.body.brace_token.span.close(),
            Expr::Macro(x) => x.mac.delimiter.span().close(),
            Expr::Match(x) => x.brace_token.span.close(),
            Expr::MethodCall(x) => x.paren_token.span.close(),
            Expr::Paren(x) => x.paren_token.span.close(),
            Expr::Path(x) => path_last(&x.path)?,
            Expr::Repeat(x) => x.bracket_token.span.close(),
            Expr::Struct(x) => x.brace_token.span.close(),
            Expr::Try(x) => x.question_token.span,
            Expr::TryBlock(x) => x.block.brace_token.span.close(),
            Expr::Tuple(x) => x.paren_token.span.close(),
            Expr::Unsafe(x) => x.block.brace_token.span.close(),
            Expr::While(x) => x.body.brace_token.span.close(),
            _ => return None,
        });
    }
}

/// The attributes of an expression (outer and inner), whatever its kind.
pub(crate) fn attrs(e: &Expr) -> &[syn::Attribute] {
    match e {
        Expr::Array(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        Expr::Async(x) => &x.attrs,
        Expr::Await(x) => &x.attrs,
        Expr::Binary(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Break(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::Cast(x) => &x.attrs,
        Expr::Closure(x) => &x.attrs,
        Expr::Const(x) => &x.attrs,
        Expr::Continue(x) => &x.attrs,
        Expr::Field(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::Group(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::Index(x) => &x.attrs,
        Expr::Infer(x) => &x.attrs,
        Expr::Let(x) => &x.attrs,
        Expr::Lit(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::Match(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::Paren(x) => &x.attrs,
        Expr::Path(x) => &x.attrs,
        Expr::Range(x) => &x.attrs,
        Expr::RawAddr(x) => &x.attrs,
        Expr::Reference(x) => &x.attrs,
        Expr::Repeat(x) => &x.attrs,
        Expr::Return(x) => &x.attrs,
        Expr::Struct(x) => &x.attrs,
        Expr::Try(x) => &x.attrs,
        Expr::TryBlock(x) => &x.attrs,
        Expr::Tuple(x) => &x.attrs,
        Expr::Unary(x) => &x.attrs,
        Expr::Unsafe(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Yield(x) => &x.attrs,
        _ => &[],
    }
}

/// The first (`end == false`) or last span of a range's `..` or `..=`.
fn limits(l: &syn::RangeLimits, end: bool) -> Span {
    let spans: &[Span] = match l {
        syn::RangeLimits::HalfOpen(t) => &t.spans,
        syn::RangeLimits::Closed(t) => &t.spans,
    };
    if end {
        spans[spans.len() - 1]
    } else {
        spans[0]
    }
}

fn path_first(p: &syn::Path) -> Option<Span> {
    match &p.leading_colon {
        Some(c) => Some(c.spans[0]),
        None => p.segments.first().map(|s| s.ident.span()),
    }
}

fn path_last(p: &syn::Path) -> Option<Span> {
    let s = p.segments.last()?;
    Some(match &s.arguments {
        PathArguments::None => s.ident.span(),
        PathArguments::AngleBracketed(a) => a.gt_token.span,
        PathArguments::Parenthesized(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every expression of a file with every form: the fast span is syn's, byte for byte.
    #[test]
    fn the_fast_span_of_every_expression_is_syns() {
        let text = r#"
            fn f() {
                let a = [1, 2, 3];
                a[0] = 1 + 2 * 3;
                let b = async { 1 }.await;
                let c = 'l: { break 'l 2 };
                'o: loop { break; continue 'o; }
                for i in 0..10 { }
                while x < 3 { }
                let d = if x { 1 } else if y { 2 } else { 3 };
                let e = (x as u64).max(y) .. ;
                let g = ..=y;
                let h = -x + !y + *z;
                let i = &mut x;
                let j = &raw const x;
                let k = [0u8; 4];
                let l = S { a: 1, ..Default::default() };
                let m = <T as Tr>::f::<u8>(1)?;
                let n = ::std::cmp::min(1, 2);
                let o = vec![1, 2];
                let p = match x { #![allow(x)] _ => 1 };
                let q = (1, 2).0;
                let r = s.field;
                let t = unsafe { 1 };
                let u = const { 1 };
                let v = || x + 1;
                let w = move |a: u8| -> u8 { a };
                let _ = Vec::<u8>::new;
                #[allow(x)] x;
                return x;
            }
        "#;
        let file: syn::File = syn::parse_str(text).expect("parses");
        struct All(Vec<(String, std::ops::Range<usize>, std::ops::Range<usize>)>);
        impl<'a> syn::visit::Visit<'a> for All {
            fn visit_expr(&mut self, e: &'a Expr) {
                use quote::ToTokens;
                self.0.push((
                    e.to_token_stream().to_string(),
                    expr(e).byte_range(),
                    e.span().byte_range(),
                ));
                syn::visit::visit_expr(self, e);
            }
        }
        let mut all = All(Vec::new());
        syn::visit::Visit::visit_file(&mut all, &file);
        assert!(all.0.len() > 90, "{} expressions", all.0.len());
        for (tokens, fast, syn) in all.0 {
            assert_eq!(fast, syn, "{tokens}");
        }
    }
}
