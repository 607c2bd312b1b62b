//! `drop-clamp`: remove a `.min(cap)` or `.clamp(lo, hi)` applied to a limit, keeping the
//! receiver. If no test notices, the clamp is not doing anything the tests can see.

use syn::Expr;

use super::{FnCx, Pending, exprs, idents, range};
use crate::catalog::Operator;
use crate::operators::mutant::Draft;

const ID: Operator = Operator::DropClamp;

pub(crate) fn drafts(cx: &FnCx) -> Vec<Pending> {
    let mut out = Vec::new();
    let f = cx.f;
    for e in exprs(f.block) {
        let Expr::MethodCall(m) = e else { continue };
        let clamp =
            (m.method == "min" && m.args.len() == 1) || (m.method == "clamp" && m.args.len() == 2);
        if !clamp {
            continue;
        }
        // Kept when the function is a limit's, or the receiver or bounds mention a capacity.
        let mut names = vec![f.sig.ident.to_string()];
        names.extend(idents(quote::ToTokens::to_token_stream(&m.receiver)));
        names.extend(idents(quote::ToTokens::to_token_stream(&m.args)));
        let receiver = cx.text_of(&range(&*m.receiver)).to_string();
        out.push(Pending {
            draft: Draft {
                operator: ID,
                function: f.site.clone(),
                range: range(e),
                replacement: receiver,
                description: format!("remove `.{}(..)`: the value is no longer clamped", m.method),
                guard: false,
            },
            if_capacity: Some(names),
        });
    }
    out
}
