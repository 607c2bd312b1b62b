//! The layers ARCHITECTURE.md states, held to the source: `src/lib.rs` lists the top-level
//! modules bottom to top, and a module may name (`crate::x`) only modules listed before it. Also
//! the absences the map claims: clap only under `src/cli/`, and no printing below `cli` but the
//! two places it names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules in the order `src/lib.rs` declares them (test-only ones left out).
fn declared() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = Vec::new();
    let mut test_only = false;
    for line in lib.lines().map(str::trim) {
        if line == "#[cfg(test)]" {
            test_only = true;
            continue;
        }
        if let Some(name) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
            if !test_only {
                out.push(name.to_string());
            }
        }
        test_only = false;
    }
    out
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to.
fn files(dir: &Path, top: Option<&str>, out: &mut Vec<(String, PathBuf)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let module = top.map_or_else(|| name.trim_end_matches(".rs").to_string(), str::to_string);
        if path.is_dir() {
            files(&path, Some(&module), out);
        } else if name.ends_with(".rs") {
            out.push((module, path));
        }
    }
}

/// The text of a file without comments, string literals and a trailing `#[cfg(test)] mod tests`
/// (as `../shared/tools/layers.py` reads it).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                out.push_str("\"\"");
                let mut escaped = false;
                for c in chars.by_ref() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Which top-level modules each names through `crate::`, with one file that does.
fn edges() -> BTreeMap<(String, String), PathBuf> {
    let mut all = Vec::new();
    files(&src(), None, &mut all);
    let known = declared();
    let mut out = BTreeMap::new();
    for (module, path) in all {
        if !known.contains(&module) {
            continue;
        }
        let text = code(&path);
        let mut named = Vec::new();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            if let Some(list) = rest.strip_prefix('{') {
                let list = &list[..list.find('}').unwrap_or(list.len())];
                named.extend(list.split(',').filter_map(|p| {
                    let p = p.trim();
                    let end = p.find(|c: char| !(c.is_alphanumeric() || c == '_'));
                    Some(p[..end.unwrap_or(p.len())].to_string()).filter(|n| !n.is_empty())
                }));
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                named.push(rest[..end].to_string());
            }
        }
        for n in named {
            if n != module && known.contains(&n) {
                out.entry((module.clone(), n)).or_insert(path.clone());
            }
        }
    }
    out
}

#[test]
fn each_module_names_only_modules_below_it() {
    let order = declared();
    assert!(order.len() > 10, "src/lib.rs lists the modules: {order:?}");
    let place = |m: &str| order.iter().position(|x| x == m).unwrap();
    let upward: Vec<String> = edges()
        .into_iter()
        .filter(|((from, to), _)| place(to) > place(from))
        .map(|((from, to), file)| format!("{from} -> {to} ({})", file.display()))
        .collect();
    assert!(
        upward.is_empty(),
        "modules naming one above them in src/lib.rs's order:\n{}",
        upward.join("\n")
    );
}

#[test]
fn clap_and_printing_stay_in_cli() {
    let mut all = Vec::new();
    files(&src(), None, &mut all);
    // The two writes below `cli` ARCHITECTURE.md names: the opt-in parse trace (its write error
    // ignored) and the scrape-window progress bar (which draws on stderr's terminal only).
    let allowed = ["measure/scrape.rs", "fuzz.rs"];
    let mut found = Vec::new();
    for (module, path) in all {
        if module == "cli" || module == "main" {
            // `cli`'s own `print!`/`eprintln!` are macros of `cli/mod.rs` that never panic; the
            // prelude's, named by path, would.
            let text = code(&path);
            for p in ["std::print", "std::eprint"] {
                if text.contains(p) {
                    found.push(format!("{}: {p}", path.display()));
                }
            }
            continue;
        }
        let rel = path
            .strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = code(&path);
        if text.contains("clap::") || text.contains("use clap") {
            found.push(format!("{rel}: uses clap"));
        }
        let prints = [
            "println!",
            "eprintln!",
            "print!(",
            "eprint!(",
            "stdout().lock()",
            "stderr().lock()",
        ];
        if allowed.contains(&rel.as_str()) {
            continue;
        }
        // Unit tests at a file's end are cut by `code`; what is left is the module's own.
        if let Some(p) = prints.iter().find(|p| text.contains(*p)) {
            found.push(format!("{rel}: {p}"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
