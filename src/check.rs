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

/// The front half every source job shares: the workspace, its config, its capacity manifest
/// (from `--capacity`, the config or the workspace root; `None` when there is none) and the index.
pub struct Front {
    pub workspace: Workspace,
    pub config: Config,
    /// Where the manifest is or would be.
    pub manifest_path: std::path::PathBuf,
    pub manifest: Option<manifest::Manifest>,
    pub index: Index,
}

/// Discover the workspace, read its manifest (a malformed one stops every job, before anything
/// is written), and index it.
pub fn index(
    args: &crate::cli::WorkspaceArgs,
    capacity_flag: Option<&std::path::Path>,
) -> anyhow::Result<Front> {
    let mut ws = workspace::discover(args)?;
    let config = Config::from_metadata(&ws.config)?;
    let manifest_path = manifest::locate(&ws.root, capacity_flag, config.manifest.as_deref());
    let manifest = manifest::load(
        &ws.root,
        &manifest_path,
        capacity_flag.is_some() || config.manifest.is_some(),
    )?;
    let focus = manifest
        .iter()
        .flat_map(|m| m.entries.iter().filter_map(|e| site_ident(&e.site)));
    let index = Index::build(&ws, Tables::new(&config.tables()), focus, args.full_parse);
    // Files that turned out to be test modules are test code for every job.
    let tests = index.test_files();
    for f in &mut ws.files {
        if tests.contains(f.rel.as_str()) {
            f.role = FileRole::Test;
        }
    }
    Ok(Front {
        workspace: ws,
        config,
        manifest_path,
        manifest,
        index,
    })
}

/// The identifier a manifest site names last (`crate::m::Type::field` -> `field`), so the sparse
/// parse keeps the item that sets it.
fn site_ident(site: &str) -> Option<String> {
    let site = site.split('#').next().unwrap_or(site);
    let mut segs = site.rsplit("::").filter(|s| *s != "new");
    segs.next().map(str::to_string)
}

pub fn run(args: &CheckArgs) -> anyhow::Result<CheckRun> {
    let start = Instant::now();
    let Front {
        workspace: ws,
        config,
        manifest,
        index,
        ..
    } = index(&args.workspace, args.capacity.as_deref())?;
    let levels = Levels::new(config.levels.clone())?;
    let mut findings = lint::run(&index, manifest.as_ref(), &levels, Date::today());
    let root = ws.root.clone();
    let suppressed = lint::suppress::apply(&mut findings, &mut |file| {
        std::fs::read_to_string(root.join(file)).ok()
    });
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
        workspace: ws,
        index,
        findings,
        summary,
    })
}
