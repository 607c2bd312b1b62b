//! `guard`: the user's own mutants, from `guards = [..]` in `[workspace.metadata.capcheck]`. Each
//! replaces a function's body with an expression that puts a deleted design back; a guard that
//! survives fails the run.

use super::{FnCx, Pending, range};
use crate::catalog::Operator;
use crate::operators::mutant::Draft;

const ID: Operator = Operator::Guard;

pub(crate) fn drafts(cx: &FnCx) -> Vec<Pending> {
    let f = cx.f;
    cx.guards
        .iter()
        .filter(|g| crate::site::matches(&f.site, &g.function))
        .map(|g| {
            Pending::always(Draft {
                operator: ID,
                function: f.site.clone(),
                range: range(f.block),
                replacement: format!("{{ {} }}", g.replacement),
                description: format!(
                    "guard: put back `{}` as the body of `{}` (expect killed)",
                    g.replacement, f.sig.ident
                ),
                guard: true,
            })
        })
        .collect()
}
