//! `drop-clamp`: remove a `.min(cap)` or `.clamp(lo, hi)` applied to a limit, keeping the
//! receiver. If no test notices, the clamp is not doing anything the tests can see.

use syn::Expr;

use super::{Cx, exprs, range};
use crate::mutate::Draft;

const ID: &str = "drop-clamp";

pub fn drafts(cx: &Cx) -> Vec<Draft> {
    let mut out = Vec::new();
    for f in &cx.fns {
        let in_limit_fn = cx.is_capacity_name(&f.sig.ident.to_string());
        for e in exprs(f.block) {
            let Expr::MethodCall(m) = e else { continue };
            let clamp = (m.method == "min" && m.args.len() == 1)
                || (m.method == "clamp" && m.args.len() == 2);
            if !clamp
                || !(in_limit_fn
                    || cx.mentions_capacity(&m.receiver)
                    || cx.mentions_capacity(&m.args))
            {
                continue;
            }
            let receiver = cx.text_of(&range(&*m.receiver)).to_string();
            out.push(Draft {
                operator: ID,
                function: f.site.clone(),
                range: range(e),
                replacement: receiver,
                description: format!("remove `.{}(..)`: the value is no longer clamped", m.method),
                guard: false,
            });
        }
    }
    out
}
