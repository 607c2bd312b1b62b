//! `guard`: the user's own mutants, from `guards = [..]` in `[workspace.metadata.capcheck]`. Each
//! replaces a function's body with an expression that puts a deleted design back; a guard that
//! survives fails the run.

use super::{Cx, range};
use crate::mutate::Draft;

const ID: &str = "guard";

pub fn drafts(cx: &Cx) -> Vec<Draft> {
    let mut out = Vec::new();
    for g in cx.shared.guards {
        for f in cx.fns.iter().filter(|f| names(&f.site, &g.function)) {
            out.push(Draft {
                operator: ID,
                function: f.site.clone(),
                range: range(f.block),
                replacement: format!("{{ {} }}", g.replacement),
                description: format!(
                    "guard: put back `{}` as the body of `{}` (expect killed)",
                    g.replacement, f.sig.ident
                ),
                guard: true,
            });
        }
    }
    out
}

/// Whether a configured function name names this site: equal, or a `::`-aligned suffix.
pub fn names(site: &str, wanted: &str) -> bool {
    site == wanted || site.ends_with(&format!("::{wanted}"))
}
