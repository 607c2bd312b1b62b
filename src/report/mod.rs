//! Rendering. The only module that knows ariadne; analyses hand it data, `cli` prints what it
//! returns.

pub mod elements;
pub mod fingerprint;
pub mod fixtures;
pub mod github;
pub mod human;
pub mod json;
pub mod mutants;
pub mod sarif;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::finding::Finding;

/// "s" for any count but one, for summary lines.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The numbers under every `check` report.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub files: usize,
    pub lines: usize,
    pub findings_by_rule: BTreeMap<String, usize>,
    /// Findings a `capcheck: allow` comment silenced.
    pub suppressed: usize,
    pub elapsed_ms: u128,
}

impl Summary {
    pub fn new(files: usize, lines: usize, findings: &[Finding], elapsed_ms: u128) -> Summary {
        let mut by_rule = BTreeMap::new();
        for f in findings {
            *by_rule.entry(f.rule.clone()).or_insert(0) += 1;
        }
        Summary {
            files,
            lines,
            findings_by_rule: by_rule,
            suppressed: 0,
            elapsed_ms,
        }
    }
}

/// Output format of every job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Human,
    Json,
    /// GitHub Actions annotations (`check`, `mutants`, `fixtures`; others print human output).
    Github,
    /// SARIF 2.1.0 (`check`, `mutants`, `fixtures`; `rules` and `--list` print JSON).
    Sarif,
}

/// Colour in human output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Color {
    #[default]
    Auto,
    Always,
    Never,
}

/// Whether to colour human output.
pub fn use_color(c: Color) -> bool {
    use std::io::IsTerminal;
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}
