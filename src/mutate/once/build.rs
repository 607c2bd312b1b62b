//! The instrumented build: the switch plan written into the scratch copy, `cargo test
//! --no-run` with JSON messages, and the withdrawal of what rustc rejects, round by round.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::{BASELINE_TIMEOUT, Binary, ROUNDS, append};
use crate::mutate::engine::{self, Options, Stop};
use crate::mutate::outcome::{MutantResult, Outcome};
use crate::mutate::switch::{self, ErrorSpan, Plan};
use crate::operators::mutant::Mutant;
use crate::sys::process::{self, Ended};

/// What the instrumented build gave: the plan it built, its test binaries, whether a selected
/// package has a library (doctests), and how long the last build took.
pub(super) struct Built {
    pub(super) plan: Plan,
    pub(super) binaries: Vec<Binary>,
    pub(super) has_lib: bool,
    pub(super) build_ms: u64,
}

/// Instrument and build, withdrawing what rustc rejects: a switched mutant rustc rejects in its
/// own code is unviable (its verdict goes into `results`), one whose switch it rejects is rebuilt
/// later; after `ROUNDS`, or an error no switch explains, everything takes the rebuild path.
pub(super) fn instrumented(
    mutants: &[Mutant],
    sources: &mut Sources,
    scratch: &Path,
    target: &Path,
    opts: &Options,
    log: &Path,
    results: &mut [Option<MutantResult>],
) -> Result<Built, Stop> {
    let mut rebuild: BTreeSet<usize> = BTreeSet::new();
    for round in 0.. {
        let plan = switch::plan(mutants, sources.original, &rebuild, &opts.roots);
        sources.write(scratch, &plan)?;
        let started = Instant::now();
        let b = build(scratch, target, opts, log)?;
        let build_ms = started.elapsed().as_millis() as u64;
        if b.ok {
            return Ok(Built {
                plan,
                binaries: b.binaries,
                has_lib: b.has_lib,
                build_ms,
            });
        }
        let mut blame = switch::attribute(&plan, &b.errors);
        // A build that failed with no error rustc placed (a linker, a build script): nothing to
        // withdraw.
        blame.elsewhere |= b.errors.iter().all(Vec::is_empty);
        let progress_made = !blame.unviable.is_empty() || !blame.rebuild.is_empty();
        if plan.switched() == 0 {
            // The original fails to build: the baseline fails.
            return Err(Stop::BaselineFailed {
                log: log.to_path_buf(),
                step: "build",
            });
        }
        for &i in &blame.unviable {
            results[i] = Some(MutantResult {
                engine: "switch".into(),
                ..engine::result(&mutants[i], Outcome::Unviable, 0, String::new())
            });
            rebuild.insert(i);
        }
        rebuild.extend(&blame.rebuild);
        if blame.elsewhere || !progress_made || round + 1 >= ROUNDS {
            // What rustc rejects is not any one site's: everything takes the rebuild path.
            append(
                log,
                "\ncapcheck: the instrumented build failed where no mutant's switch explains it \
                 (or rounds ran out); every remaining mutant takes the rebuild path\n",
            )?;
            rebuild.extend(0..mutants.len());
            let plan = switch::plan(mutants, sources.original, &rebuild, &opts.roots);
            sources.write(scratch, &plan)?;
            let started = Instant::now();
            let b = build(scratch, target, opts, log)?;
            let build_ms = started.elapsed().as_millis() as u64;
            if !b.ok {
                return Err(Stop::BaselineFailed {
                    log: log.to_path_buf(),
                    step: "build",
                });
            }
            return Ok(Built {
                plan,
                binaries: b.binaries,
                has_lib: b.has_lib,
                build_ms,
            });
        }
        append(
            log,
            &format!(
                "\ncapcheck: rustc rejected {} switched mutant(s) in their own code (unviable) and \
                 the switch of {} more (rebuilt one by one instead); building again\n",
                blame.unviable.len(),
                blame.rebuild.len()
            ),
        )?;
    }
    unreachable!("the rounds end with a build or a stop")
}

/// The scratch copy's sources as the plans wrote them: which files the current plan
/// instrumented, and where each file's original text comes from.
pub(super) struct Sources<'a> {
    pub(super) original: &'a dyn Fn(&str) -> Option<String>,
    written: BTreeSet<String>,
}

impl<'a> Sources<'a> {
    pub(super) fn new(original: &'a dyn Fn(&str) -> Option<String>) -> Self {
        Sources {
            original,
            written: BTreeSet::new(),
        }
    }

    /// Write the plan's files into the scratch copy, and put back the original of every file
    /// an earlier plan instrumented and this one does not.
    pub(super) fn write(&mut self, scratch: &Path, plan: &Plan) -> std::io::Result<()> {
        for rel in self
            .written
            .iter()
            .filter(|rel| !plan.files.contains_key(*rel))
        {
            if let Some(text) = (self.original)(rel) {
                std::fs::write(scratch.join(rel), text)?;
            }
        }
        self.written.clear();
        for (rel, f) in &plan.files {
            std::fs::write(scratch.join(rel), &f.text)?;
            self.written.insert(rel.clone());
        }
        Ok(())
    }
}

struct Build {
    pub(super) ok: bool,
    /// A selected package has a library (so doctests may exist).
    pub(super) has_lib: bool,
    pub(super) binaries: Vec<Binary>,
    pub(super) errors: Vec<Vec<ErrorSpan>>,
}

/// `cargo test --no-run` with JSON messages: the test binaries, or the errors' spans.
fn build(scratch: &Path, target: &Path, opts: &Options, log: &Path) -> Result<Build, Stop> {
    let json = target.join("capcheck-build.json");
    if let Some(dir) = json.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let _ = std::fs::remove_file(&json);
    let mut cmd = engine::cargo(
        scratch,
        target,
        opts,
        &["test", "--no-run", "--message-format", "json"],
    );
    cmd.stdout(std::fs::File::create(&json)?);
    let ran = process::run_split(&mut cmd, log, BASELINE_TIMEOUT)?;
    if ran == Ended::Interrupted {
        return Err(Stop::Interrupted);
    }
    let text = std::fs::read(&json)?;
    let mut out = Build {
        ok: ran.success(),
        has_lib: false,
        binaries: Vec::new(),
        errors: Vec::new(),
    };
    let mut rendered = String::new();
    // Cargo's `[env]`, as `cargo test` (run in the scratch copy) would set it.
    let configured =
        crate::workspace::cargo_env::env_for(scratch, &|k| std::env::var_os(k).is_some());
    for msg in cargo_metadata::Message::parse_stream(text.as_slice()).flatten() {
        match msg {
            cargo_metadata::Message::CompilerArtifact(a)
                if !a.profile.test && a.manifest_path.starts_with(scratch) =>
            {
                out.has_lib |= a.target.is_lib();
            }
            cargo_metadata::Message::CompilerArtifact(a) if a.profile.test => {
                if let Some(exe) = a.executable {
                    let cwd = a
                        .manifest_path
                        .parent()
                        .map(|p| p.as_std_path().to_path_buf())
                        .unwrap_or_else(|| scratch.to_path_buf());
                    let mut env = package_env(&a.package_id.repr, &a.target.name, &cwd, target);
                    env.extend(configured.iter().cloned());
                    out.binaries.push(Binary {
                        exe: exe.into_std_path_buf(),
                        env,
                        cwd,
                        target: a.target.name.clone(),
                        custom: false,
                    });
                }
            }
            cargo_metadata::Message::CompilerMessage(m) => {
                if let Some(r) = &m.message.rendered {
                    rendered.push_str(r);
                }
                if m.message.level == cargo_metadata::diagnostic::DiagnosticLevel::Error {
                    out.errors.push(spans(scratch, &m.message));
                }
            }
            _ => {}
        }
    }
    append(log, &rendered)?;
    Ok(out)
}

/// The primary spans of an error (where rustc says it is, not the labels that explain it), with
/// the call sites of macro expansions, as workspace-relative files.
fn spans(scratch: &Path, d: &cargo_metadata::diagnostic::Diagnostic) -> Vec<ErrorSpan> {
    let mut out = Vec::new();
    let mut todo: Vec<&cargo_metadata::diagnostic::DiagnosticSpan> =
        d.spans.iter().filter(|s| s.is_primary).collect();
    while let Some(s) = todo.pop() {
        let path = Path::new(&s.file_name);
        let rel = path
            .strip_prefix(scratch)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        out.push(ErrorSpan {
            file: rel,
            bytes: s.byte_start as usize..s.byte_end as usize,
        });
        if let Some(e) = &s.expansion {
            todo.push(&e.span);
        }
    }
    out
}

/// The environment `cargo test` gives a test binary at run time.
fn package_env(
    package_id: &str,
    target: &str,
    dir: &Path,
    target_dir: &Path,
) -> Vec<(String, String)> {
    // `path+file:///..#name@1.2.3` or `path+file:///../name#1.2.3`.
    let tail = package_id.rsplit('#').next().unwrap_or("");
    let (name, version) = match tail.split_once('@') {
        Some((n, v)) => (n.to_string(), v.to_string()),
        None => (
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            tail.to_string(),
        ),
    };
    let mut env = vec![
        ("CARGO_MANIFEST_DIR".to_string(), dir.display().to_string()),
        ("CARGO_PKG_NAME".to_string(), name),
        ("CARGO_CRATE_NAME".to_string(), target.replace('-', "_")),
        ("CARGO_PKG_VERSION".to_string(), version.clone()),
    ];
    let mut parts = version.split(['.', '-']);
    for key in ["MAJOR", "MINOR", "PATCH"] {
        env.push((
            format!("CARGO_PKG_VERSION_{key}"),
            parts.next().unwrap_or("").to_string(),
        ));
    }
    if let Some(cargo) = std::env::var_os("CARGO") {
        env.push(("CARGO".into(), cargo.to_string_lossy().into_owned()));
    }
    let deps = target_dir.join("debug").join("deps");
    let lib_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", deps.display()),
        _ => deps.display().to_string(),
    };
    env.push(("LD_LIBRARY_PATH".into(), lib_path));
    env
}

pub(super) fn test_cmd(b: &Binary, args: &[&str]) -> Command {
    let mut cmd = Command::new(&b.exe);
    cmd.args(args)
        .current_dir(&b.cwd)
        .envs(b.env.iter().map(|(k, v)| (k, v)))
        .env_remove(switch::HITS_ENV)
        .env(switch::ENV, "0");
    cmd
}
