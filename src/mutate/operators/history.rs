//! `history-revert` (`--from-history`): code deleted from a ceiling function in the git history
//! (the old `healthy * self.cfg.per_backend`) is put back as the function's result. It reads
//! `git log -p` of the user's repository and writes nothing.

use std::path::Path;
use std::process::Command;

use super::{CeilingSite, Shared, idents};
use crate::catalog::Operator;
use crate::mutate::Draft;

const ID: Operator = Operator::HistoryRevert;

/// How far back to look, in commits touching the file.
const MAX_COMMITS: &str = "200";

pub fn drafts(rel: &str, text: &str, ceilings: &[CeilingSite], shared: &Shared) -> Vec<Draft> {
    if !shared.from_history || ceilings.is_empty() {
        return Vec::new();
    }
    let deleted = deleted_lines(&shared.ws_root, rel);
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
    out
}

/// A line removed by some commit, newest first.
struct Deleted {
    /// `abc1234 (subject)`.
    commit: String,
    text: String,
}

fn deleted_lines(root: &Path, rel: &str) -> Vec<Deleted> {
    let Ok(out) = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
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
        ])
        .output()
    else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
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
    lines
}

/// Text without whitespace, to compare code regardless of formatting.
fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}
