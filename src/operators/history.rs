//! `history-revert` (`--from-history`): code deleted from a ceiling function in the git history
//! (the old `healthy * self.cfg.per_backend`) is put back as the function's result. It reads
//! `git log -p` of the user's repository and writes nothing. [`searchable`] says, before any
//! work, whether there is a history to read: none (no git, not a repository, a broken one, a
//! clone of depth 1) is an error, a shallow clone's part of one a warning; a file whose history
//! `git log` then fails to show is recorded for [`unread`].

use std::path::Path;
use std::process::{Command, Output};

use super::{CeilingSite, Shared, idents};
use crate::catalog::Operator;
use crate::operators::mutant::Draft;

const ID: Operator = Operator::HistoryRevert;

/// How far back to look, in commits touching the file.
const MAX_COMMITS: &str = "200";

/// The history mutants of one file; `Err` with git's complaint when its history could not be
/// read (the job says so: none of its history mutants exist).
pub(crate) fn drafts(
    rel: &str,
    text: &str,
    ceilings: &[CeilingSite],
    shared: &Shared,
) -> Result<Vec<Draft>, String> {
    if !shared.from_history || ceilings.is_empty() {
        return Ok(Vec::new());
    }
    let deleted = deleted_lines(&shared.ws_root, rel)?;
    let present = squash(text);
    let mut out = Vec::new();
    for c in ceilings {
        for d in &deleted {
            // A function's result is a tail expression or a `return`, never another statement.
            let line = d.text.trim();
            let expr = match line.strip_prefix("return ") {
                Some(r) => r.trim_end_matches(';').trim(),
                None if line.ends_with(';') => continue,
                None => line,
            };
            let Ok(parsed) = syn::parse_str::<syn::Expr>(expr) else {
                continue;
            };
            if matches!(parsed, syn::Expr::Assign(_) | syn::Expr::Let(_)) {
                continue;
            }
            let mentions_count =
                idents(quote::ToTokens::to_token_stream(&parsed)).contains(&c.count_param);
            if !mentions_count || present.contains(&squash(expr)) {
                continue;
            }
            out.push(Draft {
                operator: ID,
                function: c.site.clone(),
                range: c.result.clone(),
                replacement: expr.to_string(),
                description: format!("put back `{expr}`, deleted in {}", d.commit),
                guard: false,
            });
        }
    }
    Ok(out)
}

/// A line removed by some commit, newest first.
struct Deleted {
    /// `abc1234 (subject)`.
    commit: String,
    text: String,
}

/// `git -C dir ARGS`.
fn git(dir: &Path, args: &[&str]) -> std::io::Result<Output> {
    Command::new("git").arg("-C").arg(dir).args(args).output()
}

/// git's complaint, on one line.
fn complaint(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stderr);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        format!("git exited with {}", out.status)
    } else {
        text
    }
}

/// The advice for a shallow clone.
const UNSHALLOW: &str =
    "fetch the history with `git fetch --unshallow` (actions/checkout: `fetch-depth: 0`)";

/// Whether `git log` can show what was deleted in the repository holding `dir`: `Ok(None)` when
/// it can, `Ok(Some(warning))` when a shallow clone shows only its last commits, and `Err` when
/// there is no history to search (git missing, not a repository, a broken one or one without a
/// commit, a clone of depth 1): `--from-history` then asks for the impossible.
pub(crate) fn searchable(dir: &Path) -> Result<Option<String>, String> {
    let shown = dir.display();
    let shallow = git(dir, &["rev-parse", "--is-shallow-repository"]).map_err(|e| {
        format!("--from-history reads the history with `git log`, but git does not run: {e}")
    })?;
    if !shallow.status.success() {
        return Err(format!(
            "--from-history: {shown} is not in a git repository, so there is no history to search ({})",
            complaint(&shallow)
        ));
    }
    let count = git(dir, &["rev-list", "--count", "HEAD"]).map_err(|e| e.to_string())?;
    let commits = count
        .status
        .success()
        .then(|| {
            String::from_utf8_lossy(&count.stdout)
                .trim()
                .parse::<u64>()
                .ok()
        })
        .flatten();
    let Some(commits) = commits else {
        let head = git(dir, &["rev-parse", "--quiet", "--verify", "HEAD"]);
        if head.is_ok_and(|h| !h.status.success()) {
            return Err(format!(
                "--from-history: the repository at {shown} has no commit yet, so there is no history to search"
            ));
        }
        return Err(format!(
            "--from-history: git cannot read the history of the repository at {shown} ({})",
            complaint(&count)
        ));
    };
    if String::from_utf8_lossy(&shallow.stdout).trim() != "true" {
        return Ok(None);
    }
    if commits <= 1 {
        return Err(format!(
            "--from-history: {shown} is a shallow clone of one commit, so there is no history to search; {UNSHALLOW}"
        ));
    }
    Ok(Some(format!(
        "--from-history: {shown} is a shallow clone: only its last {commits} commits were searched; {UNSHALLOW} to search all of it"
    )))
}

/// The lines deleted from `rel` in its last commits, or git's complaint when `git log` could
/// not show its history.
fn deleted_lines(root: &Path, rel: &str) -> Result<Vec<Deleted>, String> {
    let out = git(
        root,
        &[
            "log",
            "-p",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--max-count",
            MAX_COMMITS,
            "--format=%x01%h (%s)",
            "--",
            rel,
        ],
    );
    let out = match out {
        Ok(out) if out.status.success() => out,
        failed => {
            let why = match failed {
                Ok(out) => complaint(&out),
                Err(e) => e.to_string(),
            };
            return Err(why);
        }
    };
    let mut commit = String::new();
    let mut lines = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(c) = line.strip_prefix('\u{1}') {
            commit = c.to_string();
        } else if let Some(text) = line.strip_prefix('-') {
            if !line.starts_with("---") && !text.trim().is_empty() {
                lines.push(Deleted {
                    commit: commit.clone(),
                    text: text.to_string(),
                });
            }
        }
    }
    Ok(lines)
}

/// Text without whitespace, to compare code regardless of formatting.
fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}
