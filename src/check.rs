//! The `check` job: discover, index, lint, report. Returns data; `cli` prints and exits.

use std::time::Instant;

use crate::cli::CheckArgs;
use crate::config::Config;
use crate::finding::Finding;
use crate::index::{Index, Tables};
use crate::lint::{self, levels::Levels};
use crate::manifest::{self, model::Date};
use crate::report::Summary;
use crate::syntax::FileRole;
use crate::workspace::{self, Workspace};

/// What a `check` run found.
pub struct CheckRun {
    pub workspace: Workspace,
    pub index: Index,
    pub findings: Vec<Finding>,
    pub summary: Summary,
}

/// Discover and index the workspace the arguments name (shared by every job).
pub fn index(args: &crate::cli::WorkspaceArgs) -> anyhow::Result<(Workspace, Config, Index)> {
    let mut ws = workspace::discover(args)?;
    let config = Config::from_metadata(&ws.config)?;
    let index = Index::build(&ws, Tables::new(&config.tables()));
    // Files that turned out to be test modules are test code for every job.
    let tests = index.test_files();
    for f in &mut ws.files {
        if tests.contains(f.rel.as_str()) {
            f.role = FileRole::Test;
        }
    }
    Ok((ws, config, index))
}

pub fn run(args: &CheckArgs) -> anyhow::Result<CheckRun> {
    let start = Instant::now();
    let (ws, config, index) = index(&args.workspace)?;
    let levels = Levels::new(config.levels.clone())?;
    let path = manifest::locate(
        &ws.root,
        args.capacity.as_deref(),
        config.manifest.as_deref(),
    );
    let manifest = manifest::load(&ws.root, &path, args.capacity.is_some())?;
    let findings = lint::run(&index, manifest.as_ref(), &levels, Date::today());
    let summary = Summary::new(
        index.files.len(),
        index.lines(),
        &findings,
        start.elapsed().as_millis(),
    );
    Ok(CheckRun {
        workspace: ws,
        index,
        findings,
        summary,
    })
}
