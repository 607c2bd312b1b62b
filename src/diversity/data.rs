//! Data fixtures: arrays of objects in JSON and TOML files under a package's `tests/` and
//! `fixtures/` folders, compared like struct literals. A file that does not parse is skipped:
//! test data is often broken on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::diversity::{CollectionKind, FieldValue, FixtureCollection, Instance};
use crate::syntax::Loc;
use crate::workspace::Workspace;

/// The data fixtures of a workspace and how many files were read.
#[derive(Debug, Default)]
pub struct DataFixtures {
    pub collections: Vec<FixtureCollection>,
    pub files: usize,
}

const FOLDERS: &[&str] = &["tests", "fixtures", "testdata"];

pub fn collect(ws: &Workspace) -> DataFixtures {
    let mut out = DataFixtures::default();
    for root in package_roots(ws) {
        for folder in FOLDERS {
            let dir = root.join(folder);
            if dir.is_dir() {
                for file in data_files(&dir) {
                    out.files += 1;
                    let rel = crate::workspace::rel(&ws.root, &file);
                    if let Ok(text) = std::fs::read_to_string(&file) {
                        out.collections.extend(from_text(&rel, &text));
                    }
                }
            }
        }
    }
    out.collections.sort_by(|a, b| a.loc.cmp(&b.loc));
    out
}

/// The folders holding the selected packages' manifests, found from their source files.
fn package_roots(ws: &Workspace) -> BTreeSet<PathBuf> {
    ws.files
        .iter()
        .filter_map(|f| {
            f.abs
                .ancestors()
                .skip(1)
                .take_while(|d| d.starts_with(&ws.root))
                .find(|d| d.join("Cargo.toml").is_file())
                .map(Path::to_path_buf)
        })
        .collect()
}

fn data_files(dir: &Path) -> Vec<PathBuf> {
    let walker = crate::workspace::package_walker(dir);
    let mut out: Vec<PathBuf> = walker
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json" || x == "toml")
                && p.file_name().is_some_and(|n| n != "Cargo.toml")
        })
        .collect();
    out.sort();
    out
}

/// The arrays of objects in one JSON or TOML text.
pub fn from_text(rel: &str, text: &str) -> Vec<FixtureCollection> {
    let value: Option<serde_json::Value> = if rel.ends_with(".toml") {
        toml::from_str::<toml::Value>(text)
            .ok()
            .and_then(|v| serde_json::to_value(v).ok())
    } else {
        serde_json::from_str(text).ok()
    };
    let mut out = Vec::new();
    if let Some(v) = value {
        let stem = Path::new(rel)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        arrays(rel, text, &v, "$", &stem, &mut out);
    }
    out
}

fn arrays(
    rel: &str,
    text: &str,
    v: &serde_json::Value,
    path: &str,
    name: &str,
    out: &mut Vec<FixtureCollection>,
) {
    match v {
        serde_json::Value::Array(items) => {
            let objects: Vec<_> = items.iter().filter_map(|i| i.as_object()).collect();
            if items.len() >= 2 && objects.len() == items.len() {
                let loc = locate(rel, text, name);
                let instances = objects
                    .iter()
                    .map(|o| Instance {
                        key: name.to_string(),
                        type_name: name.to_string(),
                        loc: loc.clone(),
                        fields: o
                            .iter()
                            .map(|(k, v)| {
                                let value = FieldValue {
                                    text: Some(v.to_string()),
                                    loc: loc.clone(),
                                };
                                (k.clone(), value)
                            })
                            .collect::<BTreeMap<_, _>>(),
                        positional: false,
                        origin: String::new(),
                    })
                    .collect();
                out.push(FixtureCollection {
                    file: rel.to_string(),
                    line: loc.line,
                    loc,
                    function: path.to_string(),
                    function_site: format!("{rel}:{path}"),
                    kind: CollectionKind::Data,
                    instances,
                    in_test: true,
                });
            }
            for (i, item) in items.iter().enumerate() {
                arrays(rel, text, item, &format!("{path}[{i}]"), name, out);
            }
        }
        serde_json::Value::Object(map) => {
            for (k, item) in map {
                arrays(rel, text, item, &format!("{path}.{k}"), k, out);
            }
        }
        _ => {}
    }
}

/// The first line naming the array's key (`"boxes":`, `boxes =`, `[[boxes]]`), else line 1.
fn locate(rel: &str, text: &str, key: &str) -> Loc {
    let quoted = format!("\"{key}\"");
    let table = format!("[[{key}]]");
    let line = text
        .lines()
        .position(|l| {
            let t = l.trim_start();
            t.starts_with(&quoted)
                || t.starts_with(&table)
                || t.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1);
    let width = text.lines().nth(line - 1).map_or(1, |l| l.chars().count());
    Loc {
        file: rel.to_string(),
        line,
        column: 1,
        end_line: line,
        end_column: width.max(1) + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diversity::compare::compare;

    #[test]
    fn json_and_toml_arrays_of_objects_become_collections() {
        let json = r#"{"boxes": [{"name": "a", "seqs": 160, "kv": 1}, {"name": "b", "seqs": 160, "kv": 2}]}"#;
        let toml = "[[boxes]]\nname = \"a\"\nseqs = 160\n\n[[boxes]]\nname = \"b\"\nseqs = 160\n";
        for (rel, text) in [("tests/data.json", json), ("tests/data.toml", toml)] {
            let cs = from_text(rel, text);
            assert_eq!(cs.len(), 1, "{rel}");
            assert_eq!(cs[0].function, "$.boxes");
            let refs: Vec<&Instance> = cs[0].instances.iter().collect();
            assert_eq!(compare(&refs).identical, ["seqs"], "{rel}");
        }
        assert!(from_text("tests/broken.json", "{").is_empty());
    }
}
