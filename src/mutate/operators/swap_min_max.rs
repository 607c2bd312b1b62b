//! `swap-min-max`: `.min(x)` <-> `.max(x)`, `Iterator::min()` <-> `max()`, the `_by_key` and `_by`
//! variants, `cmp::min` <-> `cmp::max` (and `f64::min`...), and swapped `clamp` bounds. "Take the
//! narrowest box" and "take the widest box" must not pass the same tests.

use syn::Expr;

use super::{FnCx, Pending, exprs, range};
use crate::catalog::Operator;
use crate::mutate::Draft;

const ID: Operator = Operator::SwapMinMax;

fn swapped(name: &str) -> Option<&'static str> {
    Some(match name {
        "min" => "max",
        "max" => "min",
        "min_by_key" => "max_by_key",
        "max_by_key" => "min_by_key",
        "min_by" => "max_by",
        "max_by" => "min_by",
        _ => return None,
    })
}

pub fn drafts(cx: &FnCx) -> Vec<Pending> {
    let mut out = Vec::new();
    let f = cx.f;
    {
        for e in exprs(f.block) {
            let whole = range(e);
            let (name_range, name) = match e {
                Expr::MethodCall(m) if m.method == "clamp" && m.args.len() == 2 => {
                    let (a, b) = (range(&m.args[0]), range(&m.args[1]));
                    let replacement = format!(
                        "{}{}{}{}{}",
                        cx.text_of(&(whole.start..a.start)),
                        cx.text_of(&b),
                        cx.text_of(&(a.end..b.start)),
                        cx.text_of(&a),
                        cx.text_of(&(b.end..whole.end)),
                    );
                    out.push(Pending::always(Draft {
                        operator: ID,
                        function: f.site.clone(),
                        range: whole,
                        replacement,
                        description: "swap the bounds of `clamp`".into(),
                        guard: false,
                    }));
                    continue;
                }
                Expr::MethodCall(m) if m.args.len() <= 1 => {
                    (range(&m.method), m.method.to_string())
                }
                Expr::Call(c) if c.args.len() == 2 => match &*c.func {
                    Expr::Path(p) => match p.path.segments.last() {
                        Some(seg) => (range(&seg.ident), seg.ident.to_string()),
                        None => continue,
                    },
                    _ => continue,
                },
                _ => continue,
            };
            let Some(other) = swapped(&name) else {
                continue;
            };
            let replacement = format!(
                "{}{other}{}",
                cx.text_of(&(whole.start..name_range.start)),
                cx.text_of(&(name_range.end..whole.end)),
            );
            let (from, to) = if name.starts_with("min") {
                ("smallest", "largest")
            } else {
                ("largest", "smallest")
            };
            out.push(Pending::always(Draft {
                operator: ID,
                function: f.site.clone(),
                range: whole,
                replacement,
                description: format!("`{name}` -> `{other}`: take the {to} instead of the {from}"),
                guard: false,
            }));
        }
    }
    out
}
