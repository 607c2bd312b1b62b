//! `reinstate-cap`: in a function that computes a ceiling from a count (`fleet_ceiling(&self,
//! healthy: usize)`), return `healthy * K` instead, or clamp the result to it: the reverse
//! mutation test of the story, which puts the deleted per-unit cap back.

use super::{Cx, has_word, range, result_expr};
use crate::index::Index;
use crate::mutate::{Draft, MutationContext};

const ID: &str = "reinstate-cap";

/// The per-unit values K: the manifest's per-box capacity, then the per-unit numbers `check`
/// found (capacities named `per_*`, and the unit side of `count * unit` products). A K at or
/// above the natural bound is never reached, so it is left out. 8 when nothing else is known.
pub fn per_unit_values(index: &Index, ctx: &MutationContext) -> Vec<u64> {
    let mut ks: Vec<u64> = ctx.per_box.into_iter().collect();
    ks.extend(
        index
            .capacities
            .iter()
            .filter(|c| has_word(&c.item, "per"))
            .map(|c| c.value),
    );
    ks.extend(
        crate::lint::per_unit_cap::check(index)
            .iter()
            .filter_map(|f| f.value),
    );
    let mut seen = Vec::new();
    ks.retain(|k| {
        let keep = *k >= 1 && ctx.natural_bound.is_none_or(|b| *k < b) && !seen.contains(k);
        seen.push(*k);
        keep
    });
    if ks.is_empty() {
        ks.push(8);
    }
    ks
}

pub fn drafts(cx: &Cx) -> Vec<Draft> {
    let mut out = Vec::new();
    for c in cx.ceilings() {
        let f = c.f;
        let Some(result) = result_expr(f.block) else {
            continue;
        };
        let r = range(result);
        let original = cx.text_of(&r).to_string();
        let count = count_expr(f.sig, &c.count_param);
        for k in &cx.shared.ks {
            let cap = format!("{count} * {k}");
            out.push(Draft {
                operator: ID,
                function: f.site.clone(),
                range: r.clone(),
                replacement: cap.clone(),
                description: format!("reinstate the per-unit cap: return `{cap}`"),
                guard: false,
            });
            out.push(Draft {
                operator: ID,
                function: f.site.clone(),
                range: r.clone(),
                replacement: format!("({original}).min({cap})"),
                description: format!("reinstate the per-unit cap: clamp the result to `{cap}`"),
                guard: false,
            });
        }
    }
    out
}

/// The count parameter, cast to the return type when the two differ.
fn count_expr(sig: &syn::Signature, param: &str) -> String {
    let ty_of = |t: &syn::Type| quote::ToTokens::to_token_stream(t).to_string();
    let ret = match &sig.output {
        syn::ReturnType::Type(_, t) => Some(ty_of(t)),
        syn::ReturnType::Default => None,
    };
    let param_ty = sig.inputs.iter().find_map(|a| match a {
        syn::FnArg::Typed(t) => match &*t.pat {
            syn::Pat::Ident(id) if id.ident == param => Some(ty_of(&t.ty)),
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    });
    match (ret, param_ty) {
        (Some(r), Some(p)) if r != p => format!("({param} as {r})"),
        _ => param.to_string(),
    }
}
