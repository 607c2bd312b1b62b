//! Which files the compiler reads: a file under a target's folder is part of its crate only when
//! the module above it declares it (`mod watcher;`). A file left behind after a rewrite
//! (spacedrive's `watcher_old/`, declared by nothing) is never compiled, and what it holds sizes
//! nothing. The declarations are read off the prescan's tokens, so no file is read twice.

use std::collections::{HashMap, HashSet};

/// The `mod NAME;` declarations of one file, read token by token.
#[derive(Debug, Default, Clone)]
pub(crate) struct ModDecls {
    /// The names declared as out-of-line modules (`mod a;`), inside macros too (tokio's
    /// `cfg_rt! { mod blocking; }`).
    pub(crate) names: Vec<String>,
    /// The files named by a `#[path = ".."]` attribute, as written less `.` and `..` parts
    /// (`sys/unix.rs`): a file whose path ends so is read by some module.
    pub(crate) paths: Vec<String>,
    /// The files named inside an `include!(..)`, so: their text is this file's, and so are the
    /// modules they declare (realizar's `include!("dispatch_metrics.rs")` holds `mod tests;`).
    pub(crate) includes: Vec<String>,
    /// A macro names a module (`mod $name;`): any file of the package may be one.
    pub(crate) unsure: bool,
    /// The bracket depth inside an attribute (`#[..]`), 0 outside one.
    attr_depth: u32,
    /// The next string literal is a module's path (just after `path =` in an attribute).
    path_next: bool,
    /// The parenthesis depth inside `include!(..)`, 0 outside one.
    include_depth: u32,
}

impl ModDecls {
    /// Read the next significant token (no whitespace or comment), `text`, after `before` and
    /// `prev` (the two before it, oldest first; empty at the start of the file).
    pub(crate) fn feed(&mut self, [before, prev]: [&str; 2], text: &str) {
        if self.include_depth > 0 {
            match text {
                "(" | "[" | "{" => self.include_depth += 1,
                ")" | "]" | "}" => self.include_depth -= 1,
                _ => push_path(&mut self.includes, text),
            }
        } else if self.attr_depth > 0 {
            if std::mem::take(&mut self.path_next) {
                push_path(&mut self.paths, text);
            }
            match text {
                "[" => self.attr_depth += 1,
                "]" => self.attr_depth -= 1,
                "=" if prev == "path" => self.path_next = true,
                _ => {}
            }
        } else if text == "[" && (prev == "#" || (prev == "!" && before == "#")) {
            self.attr_depth = 1;
        } else if prev == "!" && before == "include" && matches!(text, "(" | "[" | "{") {
            self.include_depth = 1;
        }
        match text {
            ";" if before == "mod" => {
                let name = prev.strip_prefix("r#").unwrap_or(prev);
                if ident(name) {
                    self.names.push(name.to_string());
                }
            }
            "$" if prev == "mod" => self.unsure = true,
            _ => {}
        }
    }

    /// Done reading: the names sorted, for lookup.
    pub(crate) fn finish(mut self) -> ModDecls {
        self.names.sort();
        self.names.dedup();
        self
    }
}

/// A string literal's path, kept when it names a Rust file (`"/src/x.rs"`).
fn push_path(paths: &mut Vec<String>, text: &str) {
    let Some(lit) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return;
    };
    let parts: Vec<&str> = lit
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    if parts.last().is_some_and(|f| f.ends_with(".rs")) {
        paths.push(parts.join("/"));
    }
}

/// Whether `rel` is `path` or ends with `/path` (`core/src/sys/unix.rs` and `sys/unix.rs`).
fn ends_with_path(rel: &str, path: &str) -> bool {
    rel.strip_suffix(path)
        .is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

fn ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// One file as reachability sees it: its package, its module path under its target's root
/// (`[]` for a target's root file; `["a", "b"]` for `src/a/b.rs` or `src/a/b/mod.rs`), and
/// what it declares.
pub(crate) struct ModFile<'a> {
    /// The file's path, '/'-separated.
    pub(crate) rel: &'a str,
    pub(crate) package: &'a str,
    pub(crate) module: &'a [String],
    pub(crate) decls: &'a ModDecls,
}

/// For each file, whether no module declares it, so that the compiler never reads it.
///
/// A file is declared when a file of its package one module up declares its name (any target's
/// root for a top-level module: `lib.rs`, `main.rs`, a test's root), and that file is itself
/// reachable. A file a `#[path]` or an `include!` of its package names is kept, and so is one
/// where nothing can say: no file of the module above (an inline `mod a { mod b; }`), or a
/// package with macro-named modules.
pub(crate) fn undeclared(files: &[ModFile]) -> Vec<bool> {
    let unsure: HashSet<&str> = files
        .iter()
        .filter(|f| f.decls.unsure)
        .map(|f| f.package)
        .collect();
    let mut named: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in files {
        let paths = f.decls.paths.iter().chain(&f.decls.includes);
        named
            .entry(f.package)
            .or_default()
            .extend(paths.map(String::as_str));
    }
    let kept: Vec<bool> = files
        .iter()
        .map(|f| {
            named
                .get(f.package)
                .is_some_and(|paths| paths.iter().any(|p| ends_with_path(f.rel, p)))
        })
        .collect();
    // Each file's declarations with those of the files it includes (one level).
    let declares: Vec<Vec<&str>> = files
        .iter()
        .map(|f| {
            let mut names: Vec<&str> = f.decls.names.iter().map(String::as_str).collect();
            for inc in &f.decls.includes {
                let included = files
                    .iter()
                    .filter(|g| g.package == f.package && ends_with_path(g.rel, inc));
                names.extend(included.flat_map(|g| g.decls.names.iter().map(String::as_str)));
            }
            names.sort_unstable();
            names
        })
        .collect();
    let mut by_module: HashMap<(&str, &[String]), Vec<usize>> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        by_module.entry((f.package, f.module)).or_default().push(i);
    }
    // 0: not yet known, 1: reachable, 2: undeclared. Module paths are short, so the recursion
    // is shallow; a file is decided once.
    let mut state = vec![0u8; files.len()];
    struct Ctx<'c, 'a> {
        files: &'c [ModFile<'a>],
        by_module: HashMap<(&'a str, &'a [String]), Vec<usize>>,
        unsure: HashSet<&'a str>,
        kept: Vec<bool>,
        declares: Vec<Vec<&'a str>>,
    }
    fn decide(i: usize, cx: &Ctx, state: &mut [u8]) -> bool {
        if state[i] != 0 {
            return state[i] == 1;
        }
        let f = &cx.files[i];
        let reachable = match f.module.split_last() {
            None => true,
            Some(_) if cx.kept[i] || cx.unsure.contains(f.package) => true,
            Some((name, up)) => match cx.by_module.get(&(f.package, up)) {
                None => true,
                // The module above is one name shorter: the recursion ends.
                Some(parents) => parents.iter().any(|&p| {
                    cx.declares[p].binary_search(&name.as_str()).is_ok() && decide(p, cx, state)
                }),
            },
        };
        state[i] = if reachable { 1 } else { 2 };
        reachable
    }
    let cx = Ctx {
        files,
        by_module,
        unsure,
        kept,
        declares,
    };
    (0..files.len())
        .map(|i| !decide(i, &cx, &mut state))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(src: &str) -> ModDecls {
        let mut d = ModDecls::default();
        let mut last = ["", ""];
        for t in crate::index::graph::significant(src) {
            d.feed(last, t.text);
            last = [last[1], t.text];
        }
        d.finish()
    }

    #[test]
    fn declarations_are_read_inside_macros_and_raw() {
        let d = decls("mod a; pub(crate) mod r#type; cfg_rt! { mod b; } mod inline { fn f() {} }");
        assert_eq!(d.names, ["a", "b", "type"]);
        assert!(!d.unsure && d.paths.is_empty());
        let paths = |src: &str| decls(src).paths;
        assert_eq!(paths("#[path = \"sys/unix.rs\"] mod sys;"), ["sys/unix.rs"]);
        assert_eq!(
            paths("#[cfg_attr(unix, path = \"./u.rs\")] mod a;"),
            ["u.rs"]
        );
        let includes = |src: &str| decls(src).includes;
        assert_eq!(includes("include!(\"../gen/x.rs\");"), ["gen/x.rs"]);
        assert_eq!(
            includes("include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/src/t.rs\"));"),
            ["src/t.rs"]
        );
        assert!(paths("let path = \"a.rs\"; #[doc = \"b.rs\"] fn f() {}").is_empty());
        assert!(decls("macro_rules! m { ($n:ident) => { mod $n; } }").unsure);
    }

    #[test]
    fn a_module_nothing_declares_is_undeclared_with_its_children() {
        let m = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let root = decls(
            "mod watcher; mod a { mod inner; } #[path = \"plat/unix.rs\"] mod sys; include!(\"metrics.rs\");",
        );
        let metrics = decls("mod tests;");
        let watcher = decls("");
        let old = decls("mod helper;");
        let none = decls("");
        let mods = [
            m(&[]),
            m(&["watcher"]),
            m(&["watcher_old"]),
            m(&["watcher_old", "helper"]),
            m(&["a", "inner"]),
            m(&["plat", "unix"]),
            m(&["metrics"]),
            m(&["tests"]),
        ];
        let file = |rel, i: usize, decls| ModFile {
            rel,
            package: "p",
            module: &mods[i],
            decls,
        };
        let files = [
            file("src/lib.rs", 0, &root),
            file("src/watcher.rs", 1, &watcher),
            file("src/watcher_old/mod.rs", 2, &old),
            file("src/watcher_old/helper.rs", 3, &none),
            // An inline module's child: no file of `a` says; kept.
            file("src/a/inner.rs", 4, &none),
            // Named by a `#[path]`.
            file("src/plat/unix.rs", 5, &none),
            // Included into lib.rs, and the module it declares is lib.rs's.
            file("src/metrics.rs", 6, &metrics),
            file("src/tests/mod.rs", 7, &none),
        ];
        assert_eq!(
            undeclared(&files),
            [false, false, true, true, false, false, false, false]
        );
    }
}
