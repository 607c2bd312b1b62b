//! The `[env]` table of cargo's configuration, as `cargo test` sets it for a test binary. The
//! compile-once engine runs test binaries itself, so it must give them what cargo would: each
//! `.cargo/config.toml` (or `.cargo/config`) from the directory cargo runs in up to the root,
//! then `$CARGO_HOME`'s, a deeper file's value winning; `KEY = "v"` or `KEY = { value = "v",
//! force = true, relative = true }`, where a variable already in the environment is kept unless
//! `force` is set, and a `relative` value is a path from the directory that holds `.cargo`.
//! (Cargo's documentation: "Configuration", the `[env]` section.)

use std::path::{Path, PathBuf};

/// The variables `[env]` sets for processes cargo runs in `dir`, given the environment `has`
/// tells about (whether a variable is already set).
pub(crate) fn env_for(dir: &Path, has: &dyn Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
    for a in dir.ancestors() {
        if let Some(f) = config_in(&a.join(".cargo")) {
            files.push((f, a.to_path_buf()));
        }
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(home) = home
        && let Some(f) = config_in(&home)
        && !files.iter().any(|(g, _)| same(g, &f))
    {
        let base = home.parent().map(Path::to_path_buf).unwrap_or_default();
        files.push((f, base));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (file, base) in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(doc) = text.parse::<toml::Table>() else {
            continue;
        };
        let Some(toml::Value::Table(env)) = doc.get("env") else {
            continue;
        };
        for (key, v) in env {
            if out.iter().any(|(k, _)| k == key) {
                continue;
            }
            let (value, force, relative) = match v {
                toml::Value::String(s) => (s.clone(), false, false),
                toml::Value::Table(t) => {
                    let Some(toml::Value::String(s)) = t.get("value") else {
                        continue;
                    };
                    let flag =
                        |name: &str| t.get(name).and_then(toml::Value::as_bool) == Some(true);
                    (s.clone(), flag("force"), flag("relative"))
                }
                _ => continue,
            };
            if has(key) && !force {
                continue;
            }
            let value = if relative {
                base.join(value).display().to_string()
            } else {
                value
            };
            out.push((key.clone(), value));
        }
    }
    out
}

fn config_in(dir: &Path) -> Option<PathBuf> {
    ["config.toml", "config"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

fn same(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeper_files_win_forced_values_override_and_relative_ones_are_paths() {
        let root = tempfile::tempdir().unwrap();
        let inner = root.path().join("ws/crate");
        std::fs::create_dir_all(inner.join(".cargo")).unwrap();
        std::fs::create_dir_all(root.path().join("ws/.cargo")).unwrap();
        std::fs::write(
            inner.join(".cargo/config.toml"),
            "[env]\nPROFILE_NAME = \"inner\"\nDATA = { value = \"fixtures\", relative = true }\n",
        )
        .unwrap();
        std::fs::write(
            root.path().join("ws/.cargo/config"),
            "[env]\nPROFILE_NAME = \"outer\"\nSET_ALREADY = \"ignored\"\nFORCED = { value = \"yes\", force = true }\n[build]\njobs = 2\n",
        )
        .unwrap();
        let has = |k: &str| k == "SET_ALREADY" || k == "FORCED";
        let mut env = env_for(&inner, &has);
        // Only this test's keys: the machine's own `$CARGO_HOME/config.toml` may set others.
        env.retain(|(k, _)| {
            ["DATA", "FORCED", "PROFILE_NAME", "SET_ALREADY"].contains(&k.as_str())
        });
        env.sort();
        assert_eq!(
            env,
            [
                (
                    "DATA".to_string(),
                    inner.join("fixtures").display().to_string()
                ),
                ("FORCED".to_string(), "yes".to_string()),
                ("PROFILE_NAME".to_string(), "inner".to_string()),
            ]
        );
    }
}
