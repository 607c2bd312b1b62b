//! The sparse parse (the default: items that cannot hold a fact are cut before syn sees them)
//! must report exactly what `--full-parse` reports: on every fixture workspace, and on real
//! published crates (this package's own dependencies, read from cargo's registry, never written).

use std::path::{Path, PathBuf};

use crate::support::{capcheck, json_of};

/// Findings of `check --workspace --format json` on `manifest`, with and without `--full-parse`.
fn both(manifest: &Path) -> (serde_json::Value, serde_json::Value) {
    let m = manifest.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "--workspace",
            "--format",
            "json",
            "--manifest-path",
            m,
        ];
        args.extend_from_slice(extra);
        let (code, report) = json_of(&capcheck(&args));
        assert!(code == 0 || code == 1, "{m}: exit {code}");
        report
    };
    let sparse = run(&[]);
    let full = run(&["--full-parse"]);
    assert_eq!(sparse["summary"]["files"], full["summary"]["files"], "{m}");
    assert_eq!(sparse["summary"]["lines"], full["summary"]["lines"], "{m}");
    (sparse["findings"].clone(), full["findings"].clone())
}

#[test]
fn fixtures_report_the_same_findings_as_a_full_parse() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        if manifest.exists() {
            let (sparse, full) = both(&manifest);
            assert_eq!(sparse, full, "{}", manifest.display());
            seen += 1;
        }
    }
    assert!(seen >= 8, "only {seen} fixture workspaces");
}

/// Published crates this package builds with on every platform (so `cargo test` has unpacked
/// their sources): thread pools, work-stealing deques, a parallel walker, an HTTP client, a
/// property-testing runner, and big parsers.
const REAL: &[&str] = &[
    "rayon",
    "rayon-core",
    "crossbeam-deque",
    "crossbeam-epoch",
    "crossbeam-utils",
    "ignore",
    "indicatif",
    "ureq",
    "proptest",
    "regex-automata",
    "toml_edit",
    "clap_builder",
    "syn",
];

/// The registry sources of the `REAL` crates at the versions `Cargo.lock` pins (cargo unpacked
/// them to build this package).
fn registry_manifests() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lock: toml::Table = std::fs::read_to_string(root.join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let sources: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let mut out = Vec::new();
    for p in lock["package"].as_array().unwrap() {
        let (name, version) = (p["name"].as_str().unwrap(), p["version"].as_str().unwrap());
        let from_registry = p
            .get("source")
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.starts_with("registry+"));
        if from_registry && REAL.contains(&name) {
            let found = sources
                .iter()
                .map(|s| s.join(format!("{name}-{version}/Cargo.toml")))
                .find(|m| m.exists());
            out.push(found.unwrap_or_else(|| panic!("{name} {version} is not unpacked")));
        }
    }
    out
}

#[test]
fn real_crates_report_the_same_findings_as_a_full_parse() {
    let manifests = registry_manifests();
    assert!(manifests.len() >= REAL.len(), "found {manifests:?}");
    let mut findings = 0;
    for manifest in &manifests {
        let (sparse, full) = both(manifest);
        // A syntax error inside an item the sparse parse cuts is the one allowed difference
        // (documented with the `parse-error` rule); these crates compile, so there is none.
        assert_eq!(sparse, full, "{}", manifest.display());
        findings += full.as_array().unwrap().len();
    }
    // The comparison means something only if the crates hold capacities to find.
    assert!(
        findings >= 5,
        "{findings} findings in {} crates",
        manifests.len()
    );
}
