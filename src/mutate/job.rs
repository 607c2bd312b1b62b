//! The `mutants` job: discover and select mutants, run them through the engine, write the
//! output folder (logs, mutants.json, the mutation-testing-elements report, SARIF of survivors).
//! Returns data; `cli` prints and picks the exit code.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::catalog::Operator;
use crate::fixtures::FixtureAnalysis;
use crate::index::Index;
use crate::mutate::engine::{self, EngineKind, Event, Options, Stop, TestTool};
use crate::mutate::operators::{self, Shared};
use crate::mutate::outcome::Summary;
use crate::mutate::select;
use crate::mutate::strategy::Rebuild;
use crate::mutate::{Mutant, MutationContext};
use crate::project::{Needs, Project, ProjectOptions};
use crate::report::mutants::MutantsReport;
use crate::workspace::{Selection, Workspace};

/// What `mutants` is asked to do (the CLI's flags, as plain data).
#[derive(Debug, Clone)]
pub struct MutantsOptions {
    pub project: ProjectOptions,
    /// Only mutants of these operators (all when empty).
    pub operators: Vec<Operator>,
    pub jobs: usize,
    pub engine: EngineKind,
    /// Cargo feature flags for every build and test run (`--features`, `--all-features`,
    /// `--no-default-features`), as cargo spells them.
    pub features: Vec<String>,
    /// Run doctests (in the baseline and for the mutants whose sites they reach).
    pub doctests: bool,
    pub test_tool: TestTool,
    pub in_diff: Option<PathBuf>,
    pub shard: Option<select::Shard>,
    pub from_history: bool,
    pub output: Option<PathBuf>,
    pub build_dir: Option<PathBuf>,
    pub scratch_dir: Option<PathBuf>,
    pub timeout_multiplier: f64,
    pub timeout_floor: f64,
    pub natural_bound: Option<u64>,
    pub per_box: Option<u64>,
    /// `--mutant`, `--skip-mutant`, `--exclude-file`, `--exclude-re`.
    pub select: select::Filters,
}

/// The selected mutants of a workspace.
pub struct Listed {
    pub workspace: Workspace,
    pub index: Index,
    /// What survivors are explained with (from the same walk that found the mutants).
    pub fixtures: FixtureAnalysis,
    pub mutants: Vec<Mutant>,
    /// What the user's skips and exclusions kept from running.
    pub skips: select::Skips,
}

/// A finished run.
pub struct MutantsRun {
    pub root: PathBuf,
    pub output: PathBuf,
    pub report: MutantsReport,
}

use crate::mutate::output::LOGS;
pub use crate::mutate::output::{ELEMENTS_JSON, REPORT_JSON, SARIF};

/// Load the project (each file parsed and walked once, for the index, the operators and the
/// fixture analysis), check guards, then select by operator, diff and shard. Builds nothing.
pub fn list(opts: &MutantsOptions) -> anyhow::Result<Listed> {
    let needs = Needs {
        manifest: true,
        fixtures: true,
        operators: true,
    };
    let mut project = Project::load(&opts.project, needs)?;
    let manifest = project.manifest.as_ref();
    // The manifest, when there is one, supplies the per-box value K and the natural bound; the
    // flags override it.
    let ctx = MutationContext {
        natural_bound: opts
            .natural_bound
            .or(manifest.and_then(|m| m.natural_bound)),
        per_box: opts.per_box.or(manifest.and_then(|m| m.per_box())),
    };
    let ws = &project.workspace;
    let shared = Shared::new(&project.index, ctx, opts.from_history, ws.root.clone());
    let mut mutants = Vec::new();
    for (i, sites) in &project.sites {
        let file = &ws.files[*i];
        let text = project.texts.cached(&file.rel).unwrap_or_default();
        mutants.extend(operators::discover(
            &file.rel,
            text,
            &file.crate_name,
            sites,
            &shared,
        ));
    }
    crate::mutate::sort(&mut mutants);
    for g in &project.config.guards {
        if !mutants
            .iter()
            .any(|m| m.guard && crate::site::Site::matches(&m.function, &g.function))
        {
            bail!(
                "Cargo.toml [workspace.metadata.capcheck] guards: function `{}` matches no function of the selected packages",
                g.function
            );
        }
    }
    let known: std::collections::BTreeSet<String> = mutants.iter().map(|m| m.id.clone()).collect();
    if !opts.operators.is_empty() {
        mutants.retain(|m| opts.operators.iter().any(|o| o.id() == m.operator));
    }
    if let Some(patch) = &opts.in_diff {
        // `-` is the patch on standard input (`git diff | cargo capcheck mutants --in-diff -`).
        let (text, name) = if patch.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("cannot read the patch from standard input")?;
            (text, "<stdin>".to_string())
        } else {
            let text = std::fs::read_to_string(patch)
                .with_context(|| format!("cannot read the patch {}", patch.display()))?;
            (text, patch.display().to_string())
        };
        let changed = select::changed_lines(&text).map_err(|p| crate::diag::InputError {
            file: name,
            problems: vec![p],
        })?;
        mutants = select::in_diff(mutants, &changed);
    }
    // Skips after the operator and diff filters (only what would have run is listed as
    // skipped), before the shard (every shard lists the same skips).
    let texts = &project.texts;
    let (kept, skips) = select::skip(
        mutants,
        &known,
        &opts.select,
        &project.config.mutants,
        &|rel| texts.cached(rel).map(str::to_string),
    )?;
    mutants = kept;
    if let Some(shard) = opts.shard {
        mutants = select::shard(mutants, shard);
    }
    Ok(Listed {
        fixtures: project.fixtures.take().unwrap_or_default(),
        workspace: project.workspace,
        index: project.index,
        mutants,
        skips,
    })
}

/// Fill each survivor's explanation from the fixture analysis (static: nothing runs).
fn explain_survivors(
    analysis: &FixtureAnalysis,
    results: &mut [crate::mutate::outcome::MutantResult],
) {
    use crate::mutate::outcome::Outcome;
    for r in results
        .iter_mut()
        .filter(|r| r.outcome == Outcome::Survived)
    {
        let m = &r.mutant;
        let site = crate::fixtures::MutatedSite {
            file: m.file.clone(),
            function_site: m.function.clone(),
            function_name: m
                .function
                .rsplit("::")
                .next()
                .unwrap_or(&m.function)
                .to_string(),
            operator: m.operator.clone(),
            original: m.original.clone(),
        };
        r.explanation = Some(crate::fixtures::explain(analysis, &site));
    }
}

/// Run the selected mutants and write the output folder.
pub fn run(args: &MutantsOptions, progress: &(dyn Fn(Event) + Sync)) -> Result<MutantsRun, Stop> {
    let start = Instant::now();
    if args.test_tool == TestTool::Nextest {
        let ok = std::process::Command::new("cargo")
            .args(["nextest", "--version"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return Err(Stop::Error(anyhow::anyhow!(
                "--test-tool nextest: `cargo nextest` is not installed"
            )));
        }
    }
    let mut listed = list(args)?;
    let skipped = std::mem::take(&mut listed.skips.skipped);
    let ws = &listed.workspace;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&ws.target_dir));
    crate::mutate::output::clear(&output)?;
    let mut cargo_args = cargo_args(&args.project.selection, &ws.root);
    cargo_args.extend(args.features.iter().cloned());
    let opts = Options {
        engine: args.engine,
        doctests: args.doctests,
        roots: ws.roots.clone(),
        jobs: args.jobs,
        test_tool: args.test_tool,
        timeout_multiplier: args.timeout_multiplier,
        timeout_floor: Duration::from_secs_f64(args.timeout_floor),
        build_dir: args
            .build_dir
            .clone()
            .unwrap_or_else(|| ws.target_dir.join("capcheck").join("scratch-target")),
        scratch_parent: args.scratch_dir.clone(),
        target_dir: ws.target_dir.clone(),
        cargo_args,
        log_dir: output.join(LOGS),
        verdicts: output.join(crate::mutate::output::VERDICTS),
    };
    let pinned = pinned_tests(&listed.index);
    let pins = |failed: &[String]| {
        failed.iter().all(|t| {
            // libtest says `module::name`, nextest `binary::module name`.
            let name = t.rsplit([' ', ':']).next().unwrap_or(t);
            pinned.iter().any(|p| p == name)
        })
    };
    let mut ran = engine::run(&ws.root, &listed.mutants, &opts, &Rebuild, &pins, progress)?;
    explain_survivors(&listed.fixtures, &mut ran.results);
    let summary = Summary::new(
        &ran.results,
        ran.baseline,
        start.elapsed().as_millis() as u64,
        args.shard.map(|s| s.to_string()),
    );
    let mut report = MutantsReport::new(ran.results, summary);
    report.skipped = skipped;
    write_output(&output, &report, &ws.root)?;
    Ok(MutantsRun {
        root: ws.root.clone(),
        output,
        report,
    })
}

/// `<target>/capcheck/mutants`.
pub fn default_output(target_dir: &Path) -> PathBuf {
    target_dir.join("capcheck").join("mutants")
}

/// Write mutants.json, the mutation-testing-elements report and SARIF of survivors, into a
/// folder this tool created or marked (`merge --into` a foreign folder is refused).
pub fn write_output(output: &Path, report: &MutantsReport, root: &Path) -> anyhow::Result<()> {
    crate::mutate::output::claim(output)?;
    let write = |name: &str, text: String| crate::mutate::output::write_report(output, name, &text);
    write(REPORT_JSON, crate::report::mutants::json(report))?;
    write(
        ELEMENTS_JSON,
        crate::report::elements::report(&report.mutants, &report.skipped, root),
    )?;
    write(SARIF, crate::report::sarif::mutants(report, root))?;
    Ok(())
}

/// Merge the output folders of sharded runs: every mutant once, in canonical order, the
/// summary recounted. Fails when two shards disagree about a mutant.
pub fn merge(dirs: &[PathBuf]) -> anyhow::Result<MutantsReport> {
    let mut all: Vec<crate::mutate::outcome::MutantResult> = Vec::new();
    let mut baseline = None;
    let mut elapsed = 0;
    let mut skipped = Vec::new();
    for dir in dirs {
        let path = dir.join(REPORT_JSON);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let part: MutantsReport = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a capcheck mutants report", path.display()))?;
        baseline.get_or_insert(part.summary.baseline);
        elapsed = u64::max(elapsed, part.summary.elapsed_ms);
        for k in part.skipped {
            if !skipped
                .iter()
                .any(|o: &select::Skipped| o.mutant.id == k.mutant.id)
            {
                skipped.push(k);
            }
        }
        for r in part.mutants {
            match all.iter().find(|o| o.mutant.id == r.mutant.id) {
                Some(o) if o.outcome != r.outcome => bail!(
                    "{}: mutant {} is {} here but {} in another shard",
                    path.display(),
                    r.mutant.id,
                    r.outcome.as_str(),
                    o.outcome.as_str()
                ),
                Some(_) => {}
                None => all.push(r),
            }
        }
    }
    all.sort_by(|a, b| {
        crate::mutate::order_key(&a.mutant).cmp(&crate::mutate::order_key(&b.mutant))
    });
    let summary = Summary::new(&all, baseline.unwrap_or_default(), elapsed, None);
    skipped.sort_by(|a, b| {
        crate::mutate::order_key(&a.mutant).cmp(&crate::mutate::order_key(&b.mutant))
    });
    let mut report = MutantsReport::new(all, summary);
    report.skipped = skipped;
    Ok(report)
}

/// Gather the shards' per-mutant logs into the merged output folder.
pub fn copy_logs(dirs: &[PathBuf], output: &Path) -> anyhow::Result<()> {
    crate::mutate::output::claim(output)?;
    let logs = output.join(LOGS);
    std::fs::create_dir_all(&logs)?;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir.join(LOGS)) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            if name == "baseline.log"
                || e.path().extension().is_none_or(|x| x != "log")
                || std::fs::canonicalize(dir).ok() == std::fs::canonicalize(output).ok()
            {
                continue;
            }
            crate::mutate::output::copy_log(&e.path(), &logs)?;
        }
    }
    Ok(())
}

/// The package selection, valid in the scratch copy (whose root is the workspace root).
fn cargo_args(args: &Selection, root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(manifest) = &args.manifest_path {
        let abs = std::fs::canonicalize(manifest).unwrap_or_else(|_| manifest.clone());
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if let Ok(rel) = abs.strip_prefix(&root) {
            out.push("--manifest-path".to_string());
            out.push(rel.to_string_lossy().into_owned());
        }
    }
    for p in &args.packages {
        out.extend(["-p".to_string(), p.clone()]);
    }
    if args.workspace {
        out.push("--workspace".to_string());
    }
    for e in &args.exclude {
        out.extend(["--exclude".to_string(), e.clone()]);
    }
    out
}

/// Test functions holding an assertion that pins a capacity (by function name).
fn pinned_tests(index: &Index) -> Vec<String> {
    let pins = crate::lint::pinned::check(index);
    let mut names: Vec<String> = index
        .files
        .iter()
        .flat_map(|f| &f.comparisons)
        .filter(|c| pins.iter().any(|p| p.loc == c.loc))
        .map(|c| {
            c.function
                .rsplit("::")
                .next()
                .unwrap_or(&c.function)
                .to_string()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}
