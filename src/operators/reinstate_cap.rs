//! `reinstate-cap`: in a function that computes a ceiling from a count (`fleet_ceiling(&self,
//! healthy: usize)`), return `healthy * K` instead, or clamp the result to it: the reverse
//! mutation test of the story, which puts the deleted per-unit cap back.

use super::{CeilingSite, FnCx, has_word, range, result_expr};
use crate::catalog::Operator;
use crate::index::Index;
use crate::operators::mutant::{Draft, MutationContext};

const ID: Operator = Operator::ReinstateCap;

/// The per-unit values K: the manifest's per-box capacity, then the per-unit numbers `check`
/// found (capacities named `per_*`, and the unit side of `count * unit` products). A K at or
/// above the natural bound is never reached, so it is left out. 8 when nothing else is known.
pub(crate) fn per_unit_values(index: &Index, ctx: &MutationContext) -> Vec<u64> {
    let mut ks: Vec<u64> = ctx.per_box.into_iter().collect();
    ks.extend(
        index
            .capacities
            .iter()
            .filter(|c| has_word(&c.item, "per"))
            .map(|c| c.value),
    );
    ks.extend(
        crate::index::per_unit::find(index)
            .iter()
            .filter_map(|u| u.value),
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

/// The function's ceiling sites: its result, when it computes a ceiling from a count (the
/// index's test, `index::extract::count_param`), and every ceiling or capacity field it sets
/// from a count parameter (`self.ceiling = healthy.saturating_mul(self.per_host)`).
pub(crate) fn ceilings(cx: &FnCx) -> Vec<CeilingSite> {
    let f = cx.f;
    let mut out = Vec::new();
    if let Some(count_param) = crate::index::extract::count_param(f.sig, cx.tables) {
        if let Some(result) = result_expr(f.block).map(range) {
            out.push(CeilingSite {
                site: f.site.clone(),
                original: cx.text_of(&result).to_string(),
                result,
                count_expr: count_expr(f.sig, &count_param),
                count_param,
            });
        }
    }
    let Some(count) = crate::index::extract::count_params(f.sig, cx.tables)
        .into_iter()
        .next()
    else {
        return out;
    };
    for e in super::exprs(f.block) {
        let syn::Expr::Assign(a) = e else { continue };
        let syn::Expr::Field(field) = &*a.left else {
            continue;
        };
        let syn::Member::Named(name) = &field.member else {
            continue;
        };
        let name = name.to_string();
        let t = cx.tables;
        let stored = t.ceiling_names.matches(&name) || t.capacity_names.matches(&name);
        let mentions = super::idents(quote::ToTokens::to_token_stream(&a.right)).contains(&count);
        if stored && mentions {
            let result = range(&*a.right);
            out.push(CeilingSite {
                site: f.site.clone(),
                original: cx.text_of(&result).to_string(),
                result,
                count_expr: count_expr(f.sig, &count),
                count_param: count.clone(),
            });
        }
    }
    out
}

pub(crate) fn drafts(ceilings: &[CeilingSite], ks: &[u64]) -> Vec<Draft> {
    let mut out = Vec::new();
    for c in ceilings {
        for k in ks {
            let cap = format!("{} * {k}", c.count_expr);
            out.push(Draft {
                operator: ID,
                function: c.site.clone(),
                range: c.result.clone(),
                replacement: cap.clone(),
                description: format!("reinstate the per-unit cap: return `{cap}`"),
                guard: false,
            });
            out.push(Draft {
                operator: ID,
                function: c.site.clone(),
                range: c.result.clone(),
                replacement: format!("({}).min({cap})", c.original),
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
