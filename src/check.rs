//! The `check` job: load the project, lint, apply suppressions. Returns data; `cli` prints and
//! exits.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use crate::finding::Finding;
use crate::lint::{self, levels::Levels};
use crate::manifest::model::Date;
use crate::project::{Needs, Project, ProjectOptions};

/// What a `check` run found.
pub(crate) struct CheckRun {
    pub(crate) project: Project,
    pub(crate) findings: Vec<Finding>,
    pub(crate) summary: Summary,
}

/// `flags`: the command line's `-A/-W/-D`, in order, over the configured levels.
pub(crate) fn run(
    opts: &ProjectOptions,
    flags: &[(lint::levels::Target, crate::catalog::Level)],
) -> anyhow::Result<CheckRun> {
    let start = Instant::now();
    let needs = Needs {
        manifest: true,
        ..Needs::default()
    };
    let mut project = Project::load(opts, needs)?;
    let levels = Levels::new(project.config.levels.clone())?.with_flags(flags);
    let mut findings = lint::run(
        &project.index,
        project.manifest.as_ref(),
        &levels,
        Date::today(),
    );
    // Suppressions are read from every checked file and the manifest, so an unused one is found
    // where nothing else is; their own findings take the configured levels too.
    let mut files: Vec<String> = project.index.files.iter().map(|f| f.rel.clone()).collect();
    files.extend(project.manifest.as_ref().map(|m| m.file.clone()));
    let texts = &mut project.texts;
    let marked = &project.marked;
    let checked: std::collections::HashSet<&str> =
        project.index.files.iter().map(|f| f.rel.as_str()).collect();
    let applied = lint::suppress::apply(&mut findings, &files, &mut |file| {
        // A checked file without the marker holds no suppression (the prescan looked).
        if checked.contains(file) && !marked.contains(file) {
            return None;
        }
        Some(texts.get(file).to_string())
    });
    for mut f in applied.findings {
        f.severity = levels.level(f.rule, f.severity);
        if f.severity != crate::catalog::Level::Allow {
            findings.push(f);
        }
    }
    crate::finding::sort(&mut findings);
    let suppressed = applied.suppressed;
    let index = &project.index;
    let summary = Summary {
        suppressed,
        ..Summary::new(
            index.files.len(),
            index.lines(),
            &findings,
            start.elapsed().as_millis(),
        )
    };
    Ok(CheckRun {
        project,
        findings,
        summary,
    })
}

/// The numbers under every `check` report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Summary {
    pub(crate) files: usize,
    pub(crate) lines: usize,
    /// By rule id (the order reports list them in).
    pub(crate) findings_by_rule: BTreeMap<&'static str, usize>,
    /// Findings a `capcheck: allow` comment silenced.
    pub(crate) suppressed: usize,
    pub(crate) elapsed_ms: u128,
}

impl Summary {
    pub(crate) fn new(
        files: usize,
        lines: usize,
        findings: &[Finding],
        elapsed_ms: u128,
    ) -> Summary {
        let mut by_rule = BTreeMap::new();
        for f in findings {
            *by_rule.entry(f.rule.id()).or_insert(0) += 1;
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
