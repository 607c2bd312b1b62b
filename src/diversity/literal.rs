//! Literal values as fixtures compare them: normalized text, so that `1_490_818`, `1490818u64`
//! and `0x16_bf42` are one value, `crate::limits::MAX` and `MAX` are one constant, and anything
//! that depends on a variable is no value at all.

use quote::ToTokens;
use syn::Expr;

/// The normalized text of an expression made only of literals, constants, enum variants and
/// calls on them (`Duration::from_secs(5)`, `"a".to_string()`); `None` when it reads a local
/// variable, calls a closure or a macro other than `vec!`.
pub fn normalize(e: &Expr) -> Option<String> {
    if let Some(v) = crate::index::value::Val::of(e).literal() {
        return Some(v.to_string());
    }
    Some(match e {
        Expr::Lit(l) => lit(&l.lit),
        Expr::Paren(p) => return normalize(&p.expr),
        Expr::Group(g) => return normalize(&g.expr),
        Expr::Reference(r) => return normalize(&r.expr),
        Expr::Cast(c) => return normalize(&c.expr),
        Expr::Unary(u) => format!("{}{}", u.op.to_token_stream(), normalize(&u.expr)?),
        Expr::Path(p) if p.qself.is_none() => path(&p.path)?,
        Expr::Call(c) => {
            let Expr::Path(f) = &*c.func else { return None };
            format!("{}({})", path_text(&f.path), list(c.args.iter())?)
        }
        Expr::MethodCall(m) => format!(
            "{}.{}({})",
            normalize(&m.receiver)?,
            m.method,
            list(m.args.iter())?
        ),
        Expr::Binary(b) => format!(
            "{} {} {}",
            normalize(&b.left)?,
            b.op.to_token_stream(),
            normalize(&b.right)?
        ),
        Expr::Array(a) => format!("[{}]", list(a.elems.iter())?),
        Expr::Tuple(t) => format!("({})", list(t.elems.iter())?),
        Expr::Struct(s) if s.rest.is_none() => {
            let mut fields = Vec::new();
            for f in &s.fields {
                let name = f.member.to_token_stream().to_string();
                fields.push(format!("{name}: {}", normalize(&f.expr)?));
            }
            format!("{} {{ {} }}", path_text(&s.path), fields.join(", "))
        }
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let args = crate::syntax::macro_args(&m.mac)?;
            format!("vec![{}]", list(args.iter())?)
        }
        _ => return None,
    })
}

fn list<'a>(items: impl Iterator<Item = &'a Expr>) -> Option<String> {
    let parts: Option<Vec<String>> = items.map(normalize).collect();
    Some(parts?.join(", "))
}

fn lit(l: &syn::Lit) -> String {
    match l {
        syn::Lit::Str(s) => format!("{:?}", s.value()),
        syn::Lit::Int(i) => i
            .base10_parse::<u128>()
            .map(|v| v.to_string())
            .unwrap_or_else(|_| i.base10_digits().to_string()),
        syn::Lit::Float(f) => {
            let digits = f.base10_digits();
            match digits.parse::<f64>() {
                Ok(v) => format!("{v:?}"),
                Err(_) => digits.to_string(),
            }
        }
        syn::Lit::Bool(b) => b.value.to_string(),
        syn::Lit::Char(c) => format!("{:?}", c.value()),
        other => other.to_token_stream().to_string(),
    }
}

/// A path is a value when it names a constant or a variant (`MAX`, `Mode::Fast`, `None`), not
/// when it is a lone lowercase name (a local variable or parameter) or a lone unit struct
/// (`Svc`, `PhantomData`: a test double or a marker, not a dimension anyone varies).
fn path(p: &syn::Path) -> Option<String> {
    if p.segments.len() == 1 {
        let id = p.segments[0].ident.to_string();
        if !(crate::index::value::is_const_name(&id) || id == "None") {
            return None;
        }
    }
    Some(path_text(p))
}

/// The path without `crate::`, `self::`, `super::` prefixes or generic arguments.
fn path_text(p: &syn::Path) -> String {
    crate::syntax::path_idents(p)
        .into_iter()
        .skip_while(|s| s == "crate" || s == "self" || s == "super")
        .collect::<Vec<_>>()
        .join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(src: &str) -> Option<String> {
        normalize(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn equal_values_written_differently_normalize_alike() {
        for (a, b) in [
            ("1_490_818", "1490818"),
            ("160u64", "160"),
            ("0x10", "16"),
            ("4 * 1024", "4096"),
            ("crate::limits::MAX", "limits::MAX"),
            ("Duration::from_secs( 5 )", "Duration::from_secs(5)"),
            ("1.50", "1.5"),
            ("&\"a\"", "\"a\""),
        ] {
            assert_eq!(norm(a), norm(b), "{a} vs {b}");
            assert!(norm(a).is_some(), "{a}");
        }
    }

    #[test]
    fn anything_reading_a_variable_is_not_a_value() {
        for src in [
            "x",
            "n + 1",
            "Duration::from_secs(n)",
            "format!(\"{i}\")",
            "|| 1",
        ] {
            assert_eq!(norm(src), None, "{src}");
        }
        assert_eq!(norm("None").as_deref(), Some("None"));
        assert_eq!(norm("Mode::Fast").as_deref(), Some("Mode::Fast"));
    }
}
