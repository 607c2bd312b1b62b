//! The `mutants` job: discover and select mutants, run them through the engine, write the
//! output folder (logs, mutants.json, the mutation-testing-elements report, SARIF of survivors).
//! Returns data; `cli` prints and picks the exit code.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::catalog::Operator;
use crate::fixture_model::FixtureAnalysis;
use crate::index::Index;
use crate::mutate::engine::{self, EngineKind, Event, Options, Stop, TestTool};
use crate::mutate::outcome::Summary;
use crate::mutate::outcome::{ListId, MutantsReport};
use crate::mutate::select;
use crate::operators::mutant::{Mutant, MutationContext};
use crate::operators::{self, Shared};
use crate::project::{Needs, Project, ProjectOptions};
use crate::workspace::{Selection, Workspace};

/// What `mutants` is asked to do (the CLI's flags, as plain data).
#[derive(Debug, Clone)]
pub(crate) struct MutantsOptions {
    pub(crate) project: ProjectOptions,
    /// Only mutants of these operators (all when empty).
    pub(crate) operators: Vec<Operator>,
    pub(crate) jobs: usize,
    pub(crate) engine: EngineKind,
    /// Cargo feature flags for every build and test run (`--features`, `--all-features`,
    /// `--no-default-features`), as cargo spells them.
    pub(crate) features: Vec<String>,
    /// Run doctests (in the baseline and for the mutants whose sites they reach).
    pub(crate) doctests: bool,
    pub(crate) test_tool: TestTool,
    pub(crate) in_diff: Option<PathBuf>,
    pub(crate) shard: Option<select::Shard>,
    pub(crate) from_history: bool,
    /// Keep the finished verdicts of an interrupted run in the output folder.
    pub(crate) resume: bool,
    pub(crate) output: Option<PathBuf>,
    pub(crate) build_dir: Option<PathBuf>,
    pub(crate) scratch_dir: Option<PathBuf>,
    pub(crate) timeout_multiplier: f64,
    pub(crate) timeout_floor: f64,
    /// Seconds the baseline's tests may run (`--baseline-timeout`).
    pub(crate) baseline_timeout: f64,
    pub(crate) natural_bound: Option<u64>,
    pub(crate) per_box: Option<u64>,
    /// `--mutant`, `--skip-mutant`, `--exclude-file`, `--exclude-re`.
    pub(crate) select: select::Filters,
}

/// The selected mutants of a workspace.
pub(crate) struct Listed {
    pub(crate) workspace: Workspace,
    pub(crate) index: Index,
    /// What survivors are explained with (from the same walk that found the mutants).
    pub(crate) fixtures: FixtureAnalysis,
    pub(crate) mutants: Vec<Mutant>,
    /// What the user's skips and exclusions kept from running.
    pub(crate) skips: select::Skips,
    /// The selected list before `--shard`, which every shard's report names.
    pub(crate) list: ListId,
    /// The files whose history `git log` could not show (`--from-history`), with git's
    /// complaint: their history mutants are missing.
    pub(crate) unread: Vec<(String, String)>,
    /// When listing began: a run's elapsed time counts from here.
    pub(crate) started: Instant,
    /// How the selection narrowed: mutants found, then what each filter given left.
    pub(crate) narrowed: Vec<(String, usize)>,
}

/// Mutants of `const` initialisers whose every use runs at run time are switched at the uses
/// (`operators::uses`): every file of the selected packages is read for the constant's name.
fn switch_consts_at_uses(project: &mut Project, mutants: &mut [crate::operators::mutant::Mutant]) {
    use crate::operators::mutant::Context;
    use crate::operators::uses::{self, FileView};
    if !mutants.iter().any(|m| m.context == Context::Fixed) {
        return;
    }
    let ws = &project.workspace;
    for f in &ws.files {
        project.texts.get(&f.rel);
    }
    let sites: std::collections::BTreeMap<usize, &crate::operators::FileSites> =
        project.sites.iter().map(|(i, s)| (*i, s)).collect();
    let views: Vec<FileView> = ws
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let s = sites.get(&i);
            FileView {
                rel: &f.rel,
                text: project.texts.cached(&f.rel).unwrap_or_default(),
                runtime: s.map_or(&[][..], |s| &s.runtime),
                fixed: s.map_or(&[][..], |s| &s.fixed),
                uses: s.map(|s| &s.uses),
            }
        })
        .collect();
    let crates = ws.files.iter().map(|f| f.crate_name.clone()).collect();
    uses::place(mutants, &views, &crates);
}

/// A finished run.
pub(crate) struct MutantsRun {
    pub(crate) root: PathBuf,
    pub(crate) output: PathBuf,
    pub(crate) report: MutantsReport,
    /// The build and output folders' locks, held until the reports are written.
    pub(crate) _locks: [std::fs::File; 2],
}

use crate::mutate::output::LOGS;
pub(crate) use crate::mutate::output::REPORT_JSON;

/// Load the project (each file parsed and walked once, for the index, the operators and the
/// fixture analysis), check guards, then select by operator, diff and shard. Builds nothing.
pub(crate) fn list(opts: &MutantsOptions) -> anyhow::Result<Listed> {
    let started = Instant::now();
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
    let mut unread = Vec::new();
    for (i, sites) in &project.sites {
        let file = &ws.files[*i];
        if ws.local_packages.contains(&file.package) {
            continue;
        }
        let text = project.texts.cached(&file.rel).unwrap_or_default();
        let found = operators::discover(&file.rel, text, &file.crate_name, sites, &shared);
        mutants.extend(found.mutants);
        unread.extend(found.unread.map(|why| (file.rel.clone(), why)));
    }
    switch_consts_at_uses(&mut project, &mut mutants);
    crate::operators::mutant::sort(&mut mutants);
    for g in &project.config.guards {
        if !mutants
            .iter()
            .any(|m| m.guard && crate::site::matches(&m.function, &g.function))
        {
            bail!(
                "Cargo.toml [workspace.metadata.capcheck] guards: function `{}` matches no function of the selected packages",
                g.function
            );
        }
    }
    let known: std::collections::BTreeSet<String> = mutants.iter().map(|m| m.id.clone()).collect();
    let mut narrowed = vec![("found in the selected packages".to_string(), mutants.len())];
    if !opts.operators.is_empty() {
        mutants.retain(|m| opts.operators.contains(&m.operator));
        narrowed.push(("--operator".into(), mutants.len()));
    }
    if !opts.select.files.is_empty() || !opts.select.res.is_empty() {
        mutants = select::include(mutants, &opts.select)?;
        let by: Vec<&str> = [
            (!opts.select.files.is_empty()).then_some("--file"),
            (!opts.select.res.is_empty()).then_some("--re"),
        ]
        .into_iter()
        .flatten()
        .collect();
        narrowed.push((by.join(" and "), mutants.len()));
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
        let located = |p| crate::diag::InputError {
            file: name.clone(),
            problems: vec![p],
        };
        let parsed = select::parse_patch(&text).map_err(located)?;
        // Each file the diff names that the workspace holds must read as its new side says.
        let files = &project.workspace.files;
        let texts = &project.texts;
        let source = |path: &str| {
            let f = files.iter().find(|f| select::same_file(path, &f.rel))?;
            let text = texts
                .cached(&f.rel)
                .map(str::to_string)
                .or_else(|| std::fs::read_to_string(project.workspace.root.join(&f.rel)).ok())?;
            Some((f.rel.clone(), text))
        };
        select::check_patch(&parsed, &source).map_err(located)?;
        mutants = select::in_diff(mutants, &parsed.changed);
        narrowed.push((format!("--in-diff {name}"), mutants.len()));
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
    if !opts.select.only.is_empty() || !skips.skipped.is_empty() {
        narrowed.push(("--mutant and the skips".into(), mutants.len()));
    }
    let list = ListId::of(mutants.iter().map(|m| m.id.as_str()));
    if let Some(shard) = opts.shard {
        mutants = select::shard(mutants, shard);
        narrowed.push((format!("--shard {shard}"), mutants.len()));
    }
    Ok(Listed {
        fixtures: project.fixtures.take().unwrap_or_default(),
        workspace: project.workspace,
        index: project.index,
        mutants,
        skips,
        list,
        unread,
        started,
        narrowed,
    })
}

impl Listed {
    /// Why nothing is selected, when nothing is: how many mutants there were, and what each
    /// filter left, up to the one that left none (`12 found in the selected packages;
    /// --operator left 3, --in-diff fix.patch left none`).
    pub(crate) fn empty_because(&self) -> Option<String> {
        if !self.mutants.is_empty() {
            return None;
        }
        let (found, n) = &self.narrowed[0];
        let mut why = format!("{n} {found}");
        let mut steps = Vec::new();
        for (by, left) in self.narrowed.iter().skip(1) {
            if *left == 0 {
                steps.push(format!("{by} left none"));
                break;
            }
            steps.push(format!("{by} left {left}"));
        }
        if !steps.is_empty() {
            why.push_str(&format!("; {}", steps.join(", ")));
        }
        Some(why)
    }

    /// The files that hold selected mutants, each with its count, in file order.
    pub(crate) fn files(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for m in &self.mutants {
            match out.iter_mut().find(|(f, _)| *f == m.file) {
                Some((_, n)) => *n += 1,
                None => out.push((m.file.clone(), 1)),
            }
        }
        out.sort();
        out
    }
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
        let site = crate::fixture_model::MutatedSite {
            file: m.file.clone(),
            function_site: m.function.clone(),
            function_name: m
                .function
                .rsplit("::")
                .next()
                .unwrap_or(&m.function)
                .to_string(),
            operator: m.operator,
            original: m.original.clone(),
        };
        r.explanation = Some(crate::fixture_model::explain(analysis, &site));
    }
    for r in results.iter_mut() {
        r.next_step = crate::mutate::advice::next_step(r);
    }
}

/// Lock the run's build folder and output folder (claimed first, nothing removed yet), so a
/// second run on them says so at once instead of clearing the first one's files or building
/// into its folder. The locks go with the process, however it ends.
fn lock_run(build_dir: &Path, output: &Path) -> anyhow::Result<[std::fs::File; 2]> {
    let lock = |dir: &Path, flag: &str| -> anyhow::Result<std::fs::File> {
        match crate::sys::fs::lock_dir(dir) {
            Ok(Some(f)) => Ok(f),
            Ok(None) => bail!(
                "another `cargo capcheck mutants` is running with {} as its {flag} folder (it \
                 holds the folder's lock); wait for it to finish, or give this run its own \
                 --build-dir and --output",
                dir.display(),
            ),
            Err(e) => bail!("cannot lock {}: {e}", dir.display()),
        }
    };
    std::fs::create_dir_all(build_dir)
        .with_context(|| format!("cannot create {}", build_dir.display()))?;
    let build = lock(build_dir, "build")?;
    crate::mutate::output::claim(output)?;
    Ok([build, lock(output, "output")?])
}

/// What must hold before a run loads anything: the test tool it was asked for is there.
pub(crate) fn preflight(args: &MutantsOptions) -> anyhow::Result<()> {
    if args.test_tool == TestTool::Nextest {
        let ok = std::process::Command::new("cargo")
            .args(["nextest", "--version"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            bail!("--test-tool nextest: `cargo nextest` is not installed");
        }
    }
    Ok(())
}

/// Run the listed mutants (`list` with the same options). Their logs and verdicts are in the
/// output folder as they finish; the reports that render the run are written by `cli`.
pub(crate) fn run(
    args: &MutantsOptions,
    mut listed: Listed,
    progress: &(dyn Fn(Event) + Sync),
) -> Result<MutantsRun, Stop> {
    let start = listed.started;
    let skipped = std::mem::take(&mut listed.skips.skipped);
    let ws = &listed.workspace;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&ws.target_dir));
    let tree = tree_fingerprint(ws);
    let resumed = if args.resume {
        let (kept, stale) = resumable(&output, &listed.mutants, &tree);
        if stale > 0 {
            progress(Event::ResumeStale(stale));
        }
        kept
    } else {
        Vec::new()
    };
    let build_dir = args
        .build_dir
        .clone()
        .unwrap_or_else(|| ws.target_dir.join("capcheck").join("scratch-target"));
    let locks = lock_run(&build_dir, &output)?;
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
        baseline_timeout: Duration::from_secs_f64(args.baseline_timeout),
        build_dir,
        scratch_parent: args.scratch_dir.clone(),
        target_dir: ws.target_dir.clone(),
        cargo_args,
        log_dir: output.join(LOGS),
        verdicts: output.join(crate::mutate::output::VERDICTS),
        verdicts_kept: !resumed.is_empty(),
        tree,
    };
    let pinned = pinned_tests(&listed.index);
    let pins = |failed: &[String]| {
        failed.iter().all(|t| {
            // libtest says `module::name`, nextest `binary::module name`.
            let name = t.rsplit([' ', ':']).next().unwrap_or(t);
            pinned.iter().any(|p| p == name)
        })
    };
    // The resumed verdicts go back into the fresh folder (verdicts and logs) before anything
    // runs, so a second interruption keeps them too.
    if !resumed.is_empty() {
        std::fs::create_dir_all(&opts.log_dir)?;
        crate::mutate::output::create_new(&opts.verdicts)?;
        engine::write_tree(&opts)?;
        for (r, log) in &resumed {
            engine::record(&opts.verdicts, r)?;
            if let Some(text) = log {
                engine::write_log(&output.join(&r.log), text)?;
            }
        }
    }
    let done: std::collections::HashSet<&str> =
        resumed.iter().map(|(r, _)| r.mutant.id.as_str()).collect();
    let todo: Vec<Mutant> = listed
        .mutants
        .iter()
        .filter(|m| !done.contains(m.id.as_str()))
        .cloned()
        .collect();
    let mut ran = if todo.is_empty() && !resumed.is_empty() {
        // Everything was done: nothing to build.
        engine::start(&opts, progress)?;
        engine::Ran {
            baseline: Default::default(),
            results: Vec::new(),
        }
    } else {
        engine::run(&ws.root, &todo, &opts, &pins, progress)?
    };
    ran.results.extend(resumed.into_iter().map(|(r, _)| r));
    ran.results.sort_by(|a, b| {
        crate::operators::mutant::order_key(&a.mutant)
            .cmp(&crate::operators::mutant::order_key(&b.mutant))
    });
    explain_survivors(&listed.fixtures, &mut ran.results);
    let summary = Summary::new(
        &ran.results,
        ran.baseline,
        start.elapsed().as_millis() as u64,
        args.shard,
    );
    let mut report = MutantsReport::new(ran.results, summary);
    report.skipped = skipped;
    report.list = Some(listed.list);
    Ok(MutantsRun {
        root: ws.root.clone(),
        output,
        report,
        _locks: locks,
    })
}

/// The verdicts an earlier run in `output` finished (its `verdicts.jsonl`) for mutants that are
/// still listed exactly as they were (id, place, text and replacement), with their logs. Lines
/// that do not parse (a line cut by the interruption) are dropped: those mutants run again.
/// The verdicts `--resume` keeps: those of listed mutants, given on this very code (`tree`);
/// and how many it found given on other code (none of which is kept).
fn resumable(
    output: &Path,
    listed: &[Mutant],
    tree: &str,
) -> (
    Vec<(crate::mutate::outcome::MutantResult, Option<String>)>,
    usize,
) {
    let text =
        std::fs::read_to_string(output.join(crate::mutate::output::VERDICTS)).unwrap_or_default();
    let given_on = text
        .lines()
        .next()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .and_then(|v| v.get(engine::TREE_KEY)?.as_str().map(str::to_string));
    if given_on.as_deref() != Some(tree) {
        let stale = text.lines().filter(|l| l.contains("\"outcome\"")).count();
        return (Vec::new(), stale);
    }
    let mut out: Vec<(crate::mutate::outcome::MutantResult, Option<String>)> = Vec::new();
    for line in text.lines() {
        let Ok(mut r) = serde_json::from_str::<crate::mutate::outcome::MutantResult>(line) else {
            continue;
        };
        if !listed.contains(&r.mutant) || out.iter().any(|(o, _)| o.mutant.id == r.mutant.id) {
            continue;
        }
        r.explanation = None;
        let log = (!r.log.is_empty())
            .then(|| std::fs::read_to_string(output.join(&r.log)).ok())
            .flatten();
        out.push((r, log));
    }
    (out, 0)
}

/// A fingerprint of the code the verdicts depend on: every source and test file of the selected
/// packages (path and bytes) and the workspace's manifest and lock file.
fn tree_fingerprint(ws: &crate::workspace::Workspace) -> String {
    let mut bytes: Vec<u8> = Vec::new();
    let mut add = |name: &str, path: &Path| {
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend(std::fs::read(path).unwrap_or_default());
        bytes.push(0);
    };
    for f in &ws.files {
        add(&f.rel, &f.abs);
    }
    for name in ["Cargo.toml", "Cargo.lock"] {
        add(name, &ws.root.join(name));
    }
    format!("{:016x}", crate::source::fnv1a(&bytes))
}

/// `<target>/capcheck/mutants`.
pub(crate) fn default_output(target_dir: &Path) -> PathBuf {
    target_dir.join("capcheck").join("mutants")
}

/// Merge the output folders of sharded runs: every mutant once, in canonical order, the
/// summary recounted. The folders must be exactly the shards of one run (one list of mutants,
/// each shard `k/n` once, none missing, each holding its share of the list), or one whole run;
/// every way they are not is reported at once, naming the folder, and nothing is merged.
pub(crate) fn merge(dirs: &[PathBuf]) -> anyhow::Result<MutantsReport> {
    let mut parts = Vec::new();
    let mut skipped: Vec<select::Skipped> = Vec::new();
    for dir in dirs {
        let path = dir.join(REPORT_JSON);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let report: MutantsReport = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a capcheck mutants report", path.display()))?;
        parts.push(Part { path, report });
    }
    let problems = shard_set_problems(&parts);
    if !problems.is_empty() {
        bail!(
            "cannot merge {}: {} problem{}; nothing was written\n  {}",
            plural_folders(parts.len()),
            problems.len(),
            crate::diag::plural(problems.len()),
            problems.join("\n  ")
        );
    }
    // One whole run, or the shards of one list.
    let list = parts[0].report.list.clone();
    let mut all: Vec<crate::mutate::outcome::MutantResult> = Vec::new();
    let mut baseline = None;
    let mut elapsed = 0;
    for Part { path, report } in parts {
        baseline.get_or_insert(report.summary.baseline);
        elapsed = u64::max(elapsed, report.summary.elapsed_ms);
        for k in report.skipped.clone() {
            if !skipped.iter().any(|o| o.mutant.id == k.mutant.id) {
                skipped.push(k);
            }
        }
        for r in report.mutants {
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
        crate::operators::mutant::order_key(&a.mutant)
            .cmp(&crate::operators::mutant::order_key(&b.mutant))
    });
    if let Some(want) = &list {
        let got = ListId::of(all.iter().map(|r| r.mutant.id.as_str()));
        if &got != want {
            bail!(
                "cannot merge: the shards hold {got}, not {want}, which they were taken from; nothing was written"
            );
        }
    }
    // A report written before next steps existed gets them here.
    for r in all.iter_mut().filter(|r| r.next_step.is_none()) {
        r.next_step = crate::mutate::advice::next_step(r);
    }
    let summary = Summary::new(&all, baseline.unwrap_or_default(), elapsed, None);
    skipped.sort_by(|a, b| {
        crate::operators::mutant::order_key(&a.mutant)
            .cmp(&crate::operators::mutant::order_key(&b.mutant))
    });
    let mut merged = MutantsReport::new(all, summary);
    merged.list = list;
    merged.skipped = skipped;
    Ok(merged)
}

/// One folder's report, as `merge` read it.
struct Part {
    path: PathBuf,
    report: MutantsReport,
}

fn plural_folders(n: usize) -> String {
    format!("{n} folder{}", crate::diag::plural(n))
}

/// Why `parts` are not the complete shard set of one run (nothing when they are): a folder
/// given twice, a whole run among shards, shards of another list or another count, a shard
/// twice or missing, a shard holding more or fewer mutants than its share of the list, or a
/// mutant in the wrong shard.
fn shard_set_problems(parts: &[Part]) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(first) = parts.first() else {
        return vec!["no output folder to merge".to_string()];
    };
    let shown = |p: &Part| p.path.display().to_string();
    let label = |p: &Part| match &p.report.summary.shard {
        Some(s) => format!("shard {s}"),
        None => "a whole run".to_string(),
    };
    let list = |p: &Part| match &p.report.list {
        Some(l) => l.to_string(),
        None => "an unrecorded list (a report of an earlier capcheck)".to_string(),
    };
    // Each folder once.
    let mut seen: Vec<(PathBuf, &Part)> = Vec::new();
    let mut distinct = Vec::new();
    for p in parts {
        let real = std::fs::canonicalize(&p.path).unwrap_or_else(|_| p.path.clone());
        match seen.iter().find(|(r, _)| *r == real) {
            Some((_, q)) if shown(p) == shown(q) => {
                problems.push(format!("{}: given twice", shown(p)));
            }
            Some((_, q)) => {
                problems.push(format!("{}: given twice (also as {})", shown(p), shown(q)))
            }
            None => {
                seen.push((real, p));
                distinct.push(p);
            }
        }
    }
    // One list.
    for p in &distinct[1..] {
        if p.report.list != first.report.list {
            problems.push(format!(
                "{}: from another run: its mutants were taken from {}, those of {} from {}; \
                 only the shards of one run (same sources, selection and flags) merge",
                shown(p),
                list(p),
                shown(first),
                list(first)
            ));
        }
    }
    if distinct.len() == 1 && first.report.summary.shard.is_none() {
        return problems;
    }
    // Shards `k/n` of one n, each once, none missing.
    let mut shards: Vec<(select::Shard, &Part)> = Vec::new();
    for p in &distinct {
        match p.report.summary.shard {
            None => problems.push(format!(
                "{}: {}, not a shard: merge it alone, or merge every shard of one sharded run",
                shown(p),
                label(p)
            )),
            Some(s) => shards.push((s, p)),
        }
    }
    let Some(&(reference, with)) = shards.first() else {
        return problems;
    };
    let n = reference.n;
    let mut by_k: Vec<Option<&Part>> = vec![None; n];
    for &(s, p) in &shards {
        if s.n != n {
            problems.push(format!(
                "{}: shard {s}, but {} is shard {reference}: the shards of one run are K/{n}",
                shown(p),
                shown(with)
            ));
        } else if let Some(q) = by_k[s.k] {
            problems.push(format!("{}: shard {s} again (also {})", shown(p), shown(q)));
        } else {
            by_k[s.k] = Some(p);
        }
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| by_k[*k].is_none())
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        let have: Vec<String> = (0..n)
            .filter(|k| by_k[*k].is_some())
            .map(|k| format!("{k}/{n}"))
            .collect();
        problems.push(format!(
            "shard{} {} missing: a run in {n} shards needs the output folders of all {n} (given: {})",
            crate::diag::plural(missing.len()),
            missing.join(", "),
            have.join(", ")
        ));
    }
    if !problems.is_empty() {
        return problems;
    }
    // Each shard holds its share of the list: mutant i of the canonical order is in shard i mod n.
    let Some(want) = &first.report.list else {
        return problems;
    };
    for (k, p) in by_k.iter().enumerate() {
        let p = p.expect("no shard is missing");
        let share = (want.mutants + n - 1 - k) / n;
        if p.report.mutants.len() != share {
            problems.push(format!(
                "{}: shard {k}/{n} holds {} mutant{}, but its share of {want} is {share}",
                shown(p),
                p.report.mutants.len(),
                crate::diag::plural(p.report.mutants.len())
            ));
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let mut all: Vec<(&crate::operators::mutant::Mutant, usize, &Part)> = by_k
        .iter()
        .enumerate()
        .flat_map(|(k, p)| {
            let p = p.expect("no shard is missing");
            p.report.mutants.iter().map(move |r| (&r.mutant, k, p))
        })
        .collect();
    all.sort_by(|a, b| {
        crate::operators::mutant::order_key(a.0).cmp(&crate::operators::mutant::order_key(b.0))
    });
    for (i, (m, k, p)) in all.iter().enumerate() {
        if i % n != *k {
            problems.push(format!(
                "{}: the shards' mutants are not {want}: mutant {} sorts at place {i} of them, \
                 which is shard {}/{n}'s, not {k}/{n}'s",
                shown(p),
                m.id,
                i % n
            ));
            break;
        }
    }
    problems
}

/// Gather the shards' per-mutant logs into the merged output folder.
pub(crate) fn copy_logs(dirs: &[PathBuf], output: &Path) -> anyhow::Result<()> {
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
    let pins = crate::index::pins::find(index);
    let mut names: Vec<String> = index
        .files
        .iter()
        .flat_map(|f| &f.comparisons)
        .filter(|c| pins.iter().any(|p| p.comparison.loc == c.loc))
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
