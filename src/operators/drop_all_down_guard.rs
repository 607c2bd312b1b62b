//! `drop-all-down-guard`: remove an early return taken when no backend is healthy
//! (`if healthy == 0 { return self.cfg.min_limit; }`). The fallback for "every box is down" is
//! the one piece of capacity logic that must stay after a cap is deleted.

use syn::{BinOp, Expr, Stmt};

use super::{FnCx, Pending, idents, range};
use crate::catalog::Operator;
use crate::operators::mutant::Draft;

const ID: Operator = Operator::DropAllDownGuard;

pub(crate) fn drafts(cx: &FnCx) -> Vec<Pending> {
    let mut out = Vec::new();
    let f = cx.f;
    {
        for stmt in &f.block.stmts {
            let Stmt::Expr(Expr::If(i), _) = stmt else {
                continue;
            };
            if i.else_branch.is_some() || !returns(&i.then_branch) || !nothing_healthy(cx, &i.cond)
            {
                continue;
            }
            out.push(Pending::always(Draft {
                operator: ID,
                function: f.site.clone(),
                range: range(stmt),
                replacement: String::new(),
                description: format!(
                    "remove the early return taken when the count is zero (`if {}`)",
                    cx.text_of(&range(&*i.cond))
                ),
                guard: false,
            }));
        }
    }
    out
}

fn returns(block: &syn::Block) -> bool {
    block
        .stmts
        .iter()
        .any(|s| matches!(s, Stmt::Expr(Expr::Return(_), _)))
}

/// `count == 0`, `count <= 0`, `count < 1`, `0 == count`, `backends.is_empty()`.
fn nothing_healthy(cx: &FnCx, cond: &Expr) -> bool {
    let counts = |e: &Expr| {
        idents(quote::ToTokens::to_token_stream(e))
            .iter()
            .any(|i| cx.tables.count_words.matches(i))
    };
    let lit = |e: &Expr| crate::index::value::Val::of(e);
    use crate::index::value::Val::Lit;
    match cond {
        Expr::Paren(p) => nothing_healthy(cx, &p.expr),
        Expr::Binary(b) => match b.op {
            BinOp::Eq(_) | BinOp::Le(_) => {
                (counts(&b.left) && lit(&b.right) == Lit(0))
                    || (counts(&b.right) && lit(&b.left) == Lit(0))
            }
            BinOp::Lt(_) => counts(&b.left) && lit(&b.right) == Lit(1),
            _ => false,
        },
        Expr::MethodCall(m) => m.method == "is_empty" && counts(&m.receiver),
        _ => false,
    }
}
