//! `docs/config.schema.json`, the JSON schema of `[workspace.metadata.capcheck]` for editors,
//! checked against the real config: the keys the binary accepts at each table are the keys the
//! schema lists, the schema's examples are accepted by both, and bad values are refused by both.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::*;

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `check` on a one-package workspace whose `[workspace.metadata.capcheck]` is `config`.
fn check_with(config: &Value) -> std::process::Output {
    let mut doc = toml::Table::new();
    doc.insert(
        "metadata".into(),
        toml::Value::try_from(json!({ "capcheck": config })).unwrap(),
    );
    let workspace = toml::to_string(&toml::Table::from_iter([(
        "workspace".to_string(),
        toml::Value::Table(doc),
    )]))
    .unwrap();
    let ws = scratch(&[
        (
            "Cargo.toml",
            &format!(
                "[package]\nname = \"one\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n{workspace}"
            ),
        ),
        ("src/lib.rs", "pub fn f() {}\n"),
        ("ops/capacity.toml", ""),
    ]);
    capcheck_in(ws.path(), &["check", "--format", "json"])
}

/// Puts a value where a table of the config is.
type Place = fn(Value) -> Value;

/// The schema of each table whose unknown keys the binary refuses, with where to put a key in
/// a config to reach that table.
fn tables(schema: &Value) -> Vec<(&'static str, &Value, Place)> {
    let p = &schema["properties"];
    vec![
        ("the table", schema, |v| v),
        ("mutants", &p["mutants"], |v| json!({ "mutants": v })),
        (
            "guards[]",
            &p["guards"]["items"],
            |v| json!({ "guards": [v] }),
        ),
        (
            "mutants.skip-mutants[]",
            &p["mutants"]["properties"]["skip-mutants"]["items"],
            |v| json!({ "mutants": { "skip-mutants": [v] } }),
        ),
    ]
}

/// The keys serde names in "unknown field `x`, expected one of `a`, `b`" (or "expected `a`").
fn expected_keys(stderr: &str) -> Vec<String> {
    let (_, list) = stderr
        .split_once("expected")
        .unwrap_or_else(|| panic!("no key list in: {stderr}"));
    let list = list.lines().next().unwrap();
    let mut keys: Vec<String> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    keys.sort();
    keys
}

#[test]
fn the_schema_lists_exactly_the_keys_the_tool_accepts() {
    let schema = schema();
    for (name, table, place) in tables(&schema) {
        assert_eq!(
            table["additionalProperties"], false,
            "{name}: closed in the schema too"
        );
        let out = check_with(&place(json!({ "zz-no-such-key": 1 })));
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        // serde also names the snake_case aliases (`capacity_names`); the schema offers the
        // documented kebab-case keys only.
        let accepted: Vec<String> = expected_keys(&stderr(&out))
            .into_iter()
            .filter(|k| !k.contains('_'))
            .collect();
        let mut listed: Vec<String> = table["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        listed.sort();
        assert_eq!(listed, accepted, "{name}");
    }
    // Rule levels: the schema's rule names are the catalog's rules.
    let (_, rules) = json_of(&capcheck(&["rules", "--format", "json"]));
    let mut rules: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "rule")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    rules.sort();
    let mut named: Vec<&str> = schema["properties"]["levels"]["propertyNames"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    named.sort();
    assert_eq!(named, rules);
}

/// A config made of every example in the schema is valid by the schema and accepted by the
/// tool; each bad config is refused by both.
#[test]
fn the_schema_and_the_tool_agree_on_good_and_bad_configs() {
    let schema = schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let mut good = serde_json::Map::new();
    for (key, property) in schema["properties"].as_object().unwrap() {
        let example = property["examples"][0].clone();
        assert!(!example.is_null(), "`{key}` has an example");
        good.insert(key.clone(), example);
    }
    let good = Value::Object(good);
    let errors: Vec<String> = validator
        .iter_errors(&good)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let out = check_with(&good);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bad = [
        json!({ "levels": { "per-unit-cap": "fatal" } }),
        json!({ "levels": { "per-unit-cpa": "error" } }),
        json!({ "guards": [{ "function": "a::f", "replacement": "1", "expect": "survived" }] }),
        json!({ "guards": [{ "function": "a::f", "replacement": "1" }] }),
        json!({ "mutants": { "skip-mutants": [{ "id": "x", "reason": "" }] } }),
        json!({ "mutants": { "skip-mutants": [{ "id": "x" }] } }),
        json!({ "mutants": { "exclude-files": "src/*.rs" } }),
        json!({ "apis": [{ "call": "Limiter::new" }] }),
        json!({ "capacity-names": "slots" }),
    ];
    for config in bad {
        assert!(!validator.is_valid(&config), "the schema takes {config}");
        let out = check_with(&config);
        assert_eq!(
            out.status.code(),
            Some(2),
            "the tool takes {config}: {}",
            stderr(&out)
        );
    }
}
