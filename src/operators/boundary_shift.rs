//! `boundary-shift`: `<=` <-> `<` and `>=` <-> `>` where an operand is a capacity or a limit. An
//! off-by-one at a cap's boundary is the bug tests most often miss.

use syn::{BinOp, Expr};

use super::{FnCx, Pending, exprs, idents, range};
use crate::catalog::Operator;
use crate::operators::mutant::Draft;

const ID: Operator = Operator::BoundaryShift;

pub(crate) fn drafts(cx: &FnCx) -> Vec<Pending> {
    let mut out = Vec::new();
    let f = cx.f;
    {
        for e in exprs(f.block) {
            let Expr::Binary(b) = e else { continue };
            let (op, new) = match b.op {
                BinOp::Le(_) => ("<=", "<"),
                BinOp::Lt(_) => ("<", "<="),
                BinOp::Ge(_) => (">=", ">"),
                BinOp::Gt(_) => (">", ">="),
                _ => continue,
            };
            let mut names = idents(quote::ToTokens::to_token_stream(&b.left));
            names.extend(idents(quote::ToTokens::to_token_stream(&b.right)));
            let (whole, l, r) = (range(e), range(&*b.left), range(&*b.right));
            let between = cx.text_of(&(l.end..r.start));
            let Some(at) = between.find(op) else { continue };
            let op_start = l.end + at;
            let replacement = format!(
                "{}{new}{}",
                cx.text_of(&(whole.start..op_start)),
                cx.text_of(&(op_start + op.len()..whole.end)),
            );
            out.push(Pending {
                draft: Draft {
                    operator: ID,
                    function: f.site.clone(),
                    range: whole,
                    replacement,
                    description: format!("`{op}` -> `{new}` at a capacity boundary"),
                    guard: false,
                },
                if_capacity: Some(names),
            });
        }
    }
    out
}
