//! Survivor explanations: why a mutant of a function survived, in terms of the test fixtures that
//! reach it. The mutants engine hands over what it knows of the mutated site (file, enclosing
//! function, operator, original text); the answer is one sentence naming a fixture, its fields
//! and what to vary, or exactly `NO_EXPLANATION` rather than a guess.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::diversity::compare::{FixtureReport, Scope, is_identity};
use crate::diversity::reads::BodyFacts;
use crate::diversity::{CollectionKind, FixtureAnalysis};
use crate::index::names::words;

/// What `explain` says when no fixture accounts for a survivor.
pub const NO_EXPLANATION: &str = "no fixture explanation";

/// A mutated site, as the mutants engine knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutatedSite {
    /// Workspace-relative, '/'-separated.
    pub file: String,
    /// The enclosing function's site, e.g. `fleet_controller::Controller::per_box`.
    pub function_site: String,
    /// The enclosing function's name, e.g. `per_box` (used when the site does not match).
    pub function_name: String,
    /// The operator id, e.g. `swap-min-max`.
    pub operator: String,
    /// The source text of the mutated expression.
    pub original: String,
}

/// Why the mutant at `site` survived, as far as the fixtures tell, or `NO_EXPLANATION`.
pub fn explain(a: &FixtureAnalysis, site: &MutatedSite) -> String {
    let Some(f) = a
        .code
        .find_fn(&site.function_site, &site.file, &site.function_name)
    else {
        return NO_EXPLANATION.to_string();
    };
    // The mutated expression's own reads when it has any (`self.boxes.iter().map(..).min()`),
    // else the whole function's (the original may be just `min`).
    let own = syn::parse_str::<syn::Expr>(&site.original)
        .ok()
        .map(|e| BodyFacts::of_expr(&e))
        .filter(|b| !b.is_empty());
    let body = own.as_ref().unwrap_or(&f.body);
    let deps = a.code.deps(body, f.self_ty.as_deref());
    let selection = is_selection(site);
    let selected: BTreeSet<String> = if selection {
        a.code.selection_types(&f.body, f)
    } else {
        BTreeSet::new()
    };
    let reaches = |r: &FixtureReport| selected.is_empty() || selected.contains(&r.type_name);
    let name = &site.function_name;

    // A fixture identical along fields the mutated code reads, best first: one collection
    // identical along every such field, then along some, then the whole suite.
    let mut best: Option<(u8, usize, &FixtureReport, Vec<String>)> = None;
    for r in a.reports.iter().filter(|r| r.instances >= 2 && reaches(r)) {
        let Some(read) = deps.get(&r.type_name) else {
            continue;
        };
        let read: Vec<&String> = read.iter().filter(|f| !is_identity(f)).collect();
        let same: Vec<String> = read
            .iter()
            .filter(|f| r.untested().contains(&f.as_str()))
            .map(|f| f.to_string())
            .collect();
        if same.is_empty() {
            continue;
        }
        let rank = match (r.scope, same.len() == read.len()) {
            (Scope::Collection, true) => 3,
            (Scope::Collection, false) => 2,
            (Scope::Suite, _) => 1,
        };
        if best
            .as_ref()
            .is_none_or(|(k, n, _, _)| (rank, same.len()) > (*k, *n))
        {
            best = Some((rank, same.len(), r, same));
        }
    }
    if selection {
        if let Some((3, _, r, same)) = &best {
            let noun = noun(&r.type_name);
            return format!(
                "survived because {} {} in {} have the same {}, so the narrowest and the widest \
                 {noun} are the same {noun}: vary one of them",
                quantity(r.instances),
                plural(&noun),
                place(r),
                join(same),
            );
        }
        if let Some(r) = a.reports.iter().find(|r| {
            r.instances == 1 && selected.contains(&r.type_name) && !r.selected_by.is_empty()
        }) {
            let noun = noun(&r.type_name);
            return format!(
                "survived because {} holds a single {noun}, so the narrowest and the widest \
                 {noun} are the same one: add a second, different {noun}",
                place(r),
            );
        }
    }
    let Some((_, _, r, same)) = best else {
        return NO_EXPLANATION.to_string();
    };
    let (it, them) = if same.len() == 1 {
        ("it", "it")
    } else {
        ("each", "them")
    };
    match r.scope {
        Scope::Suite => format!(
            "survived while every `{}` in the test suite ({} instances in {} functions, first at \
             {}:{}) has the same {}, which `{name}` reads: vary {them} in at least one test",
            r.type_key,
            r.instances,
            r.functions.len(),
            r.file,
            r.line,
            join(&same),
        ),
        Scope::Collection if selection => {
            let noun = noun(&r.type_name);
            format!(
                "survived while {} {} in {} have the same {}, which `{name}` reads, so the \
                 narrowest and the widest {noun} can be the same: vary {them}",
                quantity(r.instances),
                plural(&noun),
                place(r),
                join(&same),
            )
        }
        Scope::Collection => format!(
            "survived while {} {} in {} have the same {}, which `{name}` reads, so the tests \
             only ever try one value of {it}: vary {them} across the fixture",
            quantity(r.instances),
            plural(&noun(&r.type_name)),
            place(r),
            join(&same),
        ),
    }
}

/// Operators whose outcome depends on comparing instances: min/max selections.
fn is_selection(site: &MutatedSite) -> bool {
    let op = site.operator.replace(|c: char| !c.is_alphanumeric(), "_");
    words(&op).iter().any(|w| w == "min" || w == "max")
        || [".min(", ".max(", "min_by", "max_by"]
            .iter()
            .any(|p| site.original.contains(p))
}

/// `` `two_boxes()` (tests/controller.rs:3) ``, or the test that repeats a constructor.
fn place(r: &FixtureReport) -> String {
    let f = match r.kind {
        Some(CollectionKind::Data) => format!("`{}`", r.function),
        Some(CollectionKind::Repeated) => format!("test `{}()`", r.function),
        _ => format!("`{}()`", r.function),
    };
    format!("{f} ({}:{})", r.file, r.line)
}

fn quantity(n: usize) -> String {
    if n == 2 {
        "both".to_string()
    } else {
        format!("all {n}")
    }
}

/// What an instance of a type is called in a sentence: its first word (`BoxSpec` -> `box`).
fn noun(type_name: &str) -> String {
    words(type_name)
        .into_iter()
        .next()
        .unwrap_or_else(|| "instance".to_string())
}

fn plural(noun: &str) -> String {
    if noun.ends_with(['s', 'x', 'z']) || noun.ends_with("sh") || noun.ends_with("ch") {
        format!("{noun}es")
    } else if noun.ends_with('y') && !noun.ends_with("ey") {
        format!("{}ies", &noun[..noun.len() - 1])
    } else {
        format!("{noun}s")
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diversity::collect::{FileFixtures, collect};
    use crate::diversity::{FixtureAnalysis, compare};

    const LIB: &str = r#"
        pub struct BoxSpec { pub name: &'static str, pub kv_cache_tokens: u64, pub max_num_seqs: u64, pub p90_prompt_tokens: u64 }
        impl BoxSpec {
            pub fn capacity(&self) -> usize {
                (self.kv_cache_tokens / self.p90_prompt_tokens).min(self.max_num_seqs) as usize
            }
        }
        pub struct Controller { pub boxes: Vec<BoxSpec> }
        impl Controller {
            pub fn per_box(&self) -> usize {
                self.boxes.iter().map(BoxSpec::capacity).min().unwrap_or(14)
            }
            pub fn fleet_ceiling(&self, healthy: usize) -> usize { healthy * self.per_box() }
            pub fn healthy_only(&self, n: usize) -> usize { n + 1 }
        }
    "#;

    fn analysis(tests: &str) -> FixtureAnalysis {
        let parse = |rel: &str, src: &str, test: bool| -> FileFixtures {
            let ast = syn::parse_file(src).unwrap();
            let path = vec!["fleet_controller".to_string()];
            collect(rel, src, &ast, test, &path)
        };
        let files = vec![
            parse("src/lib.rs", LIB, false),
            parse("tests/controller.rs", tests, true),
        ];
        let mut a = FixtureAnalysis::from_files(files);
        a.reports = compare::reports(&a);
        a
    }

    fn site(function: &str, operator: &str, original: &str) -> MutatedSite {
        MutatedSite {
            file: "src/lib.rs".into(),
            function_site: format!("fleet_controller::Controller::{function}"),
            function_name: function.into(),
            operator: operator.into(),
            original: original.into(),
        }
    }

    const TWO: &str = r#"
fn two_boxes() -> Vec<BoxSpec> {
    vec![
        BoxSpec { name: "box-a", kv_cache_tokens: 1_490_818, max_num_seqs: 160, p90_prompt_tokens: 100_000 },
        BoxSpec { name: "box-b", kv_cache_tokens: 1490818, max_num_seqs: 160, p90_prompt_tokens: 100_000 },
    ]
}
"#;

    #[test]
    fn min_max_survivor_on_two_identical_boxes_names_the_fixture_and_fields() {
        let a = analysis(TWO);
        let got = explain(&a, &site("per_box", "swap-min-max", "min"));
        assert_eq!(
            got,
            "survived because both boxes in `two_boxes()` (tests/controller.rs:2) have the same \
             kv_cache_tokens, max_num_seqs and p90_prompt_tokens, so the narrowest and the widest \
             box are the same box: vary one of them"
        );
    }

    #[test]
    fn three_different_boxes_explain_nothing() {
        let three = TWO.replace(
            "    ]",
            "        BoxSpec { name: \"box-c\", kv_cache_tokens: 3_000_000, max_num_seqs: 256, p90_prompt_tokens: 50_000 },\n    ]",
        );
        let a = analysis(&three);
        assert!(a.reports.is_empty(), "{:?}", a.reports);
        let got = explain(&a, &site("per_box", "swap-min-max", "min"));
        assert_eq!(got, NO_EXPLANATION);
    }

    #[test]
    fn a_single_box_fed_to_min_is_its_own_explanation() {
        let one = r#"
fn one_box() -> Vec<BoxSpec> {
    vec![BoxSpec { name: "a", kv_cache_tokens: 1, max_num_seqs: 2, p90_prompt_tokens: 3 }]
}
"#;
        let a = analysis(one);
        let got = explain(&a, &site("per_box", "swap-min-max", ".min()"));
        assert_eq!(
            got,
            "survived because `one_box()` (tests/controller.rs:2) holds a single box, so the \
             narrowest and the widest box are the same one: add a second, different box"
        );
    }

    #[test]
    fn a_function_that_reads_no_fixture_field_has_no_explanation() {
        let a = analysis(TWO);
        let got = explain(&a, &site("healthy_only", "replace-add", "n + 1"));
        assert_eq!(got, NO_EXPLANATION);
        let got = explain(&a, &site("no_such_fn", "swap-min-max", "min"));
        assert_eq!(got, NO_EXPLANATION);
    }

    #[test]
    fn other_operators_name_the_fields_read_one_call_deep() {
        let a = analysis(TWO);
        let got = explain(
            &a,
            &site("fleet_ceiling", "replace-mul", "healthy * self.per_box()"),
        );
        assert!(
            got.starts_with("survived while both boxes in `two_boxes()`"),
            "{got}"
        );
        assert!(
            got.contains(
                "kv_cache_tokens, max_num_seqs and p90_prompt_tokens, which `fleet_ceiling` reads"
            ),
            "{got}"
        );
    }

    #[test]
    fn on_the_seed_the_min_max_survivor_is_explained_by_two_boxes() {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/seed-2-measured/Cargo.toml");
        let args = crate::cli::WorkspaceArgs {
            manifest_path: Some(manifest),
            ..Default::default()
        };
        let a = crate::diversity::analyse(&crate::workspace::discover(&args).unwrap());
        let site = MutatedSite {
            file: "src/lib.rs".into(),
            function_site: "fleet_controller::Controller::per_box".into(),
            function_name: "per_box".into(),
            operator: "swap-min-max".into(),
            original: "self.boxes.iter().map(BoxSpec::capacity).min()".into(),
        };
        assert_eq!(
            explain(&a, &site),
            "survived because both boxes in `two_boxes()` (tests/controller.rs:3) have the same \
             kv_cache_tokens, max_num_seqs and p90_prompt_tokens, so the narrowest and the widest \
             box are the same box: vary one of them"
        );
    }
}
