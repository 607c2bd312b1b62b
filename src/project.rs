//! The project: one load of the selected workspace that every source job starts from. It
//! discovers the packages and files, reads the config and the capacity manifest, decides each
//! file's role once, parses each file once and feeds it through the one syntax walk to the
//! collectors the job needs (the index always; the fixture collector, the code model and the
//! mutation operators' sites when asked), then resolves the index across files.
//!
//! Roles are decided before parsing: files are walked in waves by module depth, so a parent's
//! `#[cfg(test)] mod tests;` is known before its `tests.rs` is parsed, and every job sees that
//! file as test code.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::config::Config;
use crate::fixture_model::FixtureAnalysis;
use crate::fixture_model::collect::{Collector as FixtureCollector, FileFixtures};
use crate::fixture_model::reads::CodeCollector;
use crate::index::extract::Extractor;
use crate::index::params::Prescan;
use crate::index::{CapacityKind, FileFacts, Index, Tables, Triggers};
use crate::manifest::{self, Manifest};
use crate::operators::{FileSites, SiteCollector};
use crate::source::Texts;
use crate::syntax::modules::ModFile;
use crate::syntax::scope::Scope;
use crate::syntax::walk::{Collector, Walk};
use crate::syntax::{FileRole, parse_file_with, sparse};
use crate::workspace::{self, FileEntry, Selection, Workspace};

/// How to load a project: which packages, which manifest, how to parse.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProjectOptions {
    pub(crate) selection: Selection,
    /// `--capacity PATH`: the manifest (else the config's `manifest`, else `capacity.toml`).
    pub(crate) capacity: Option<PathBuf>,
    /// `--full-parse`: parse every item even where the job allows the sparse parse.
    pub(crate) full_parse: bool,
}

/// What a job needs beyond the index.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Needs {
    /// Read the capacity manifest (a malformed one stops the job before anything is written).
    pub(crate) manifest: bool,
    /// The fixture analysis and the code model (`fixtures`, survivor explanations).
    pub(crate) fixtures: bool,
    /// The mutation operators' sites, and every file's text (`mutants`).
    pub(crate) operators: bool,
}

/// One loaded project.
pub(crate) struct Project {
    pub(crate) workspace: Workspace,
    pub(crate) config: Config,
    /// Where the manifest is or would be.
    pub(crate) manifest_path: PathBuf,
    pub(crate) manifest: Option<Manifest>,
    pub(crate) index: Index,
    /// With `Needs::fixtures`.
    pub(crate) fixtures: Option<FixtureAnalysis>,
    /// With `Needs::operators`: each source file's sites, by its index in `workspace.files`.
    pub(crate) sites: Vec<(usize, FileSites)>,
    /// File texts: those the walk kept (with `Needs::operators`), the rest read on demand.
    pub(crate) texts: Texts,
    /// The files whose text holds a suppression's marker when the prescan read it: the others
    /// need not be read again for suppressions.
    pub(crate) marked: std::collections::HashSet<String>,
}

/// How many files have been parsed in this process (the walk's input): `mutants` parses each
/// selected file once, and `CAPCHECK_TRACE=parse` prints every parse on stderr.
pub(crate) static PARSES: AtomicUsize = AtomicUsize::new(0);

/// With `CAPCHECK_TRACE=phases`, prints on stderr how long each phase of a load took since the
/// last mark (the speed work's measure: docs/benchmarks.md).
struct Phases(Option<(std::time::Instant, u128)>);

/// This process's CPU time so far (user and system, every thread), in microseconds.
fn cpu_micros() -> u128 {
    // SAFETY: getrusage writes the struct it is given and reads nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as u128 * 1_000_000 + v.tv_usec as u128;
    t(u.ru_utime) + t(u.ru_stime)
}

impl Phases {
    fn start() -> Phases {
        let on = std::env::var_os("CAPCHECK_TRACE").is_some_and(|v| v == "phases");
        Phases(on.then(|| (std::time::Instant::now(), cpu_micros())))
    }

    fn mark(&mut self, phase: &str) {
        if let Some((t, cpu)) = &mut self.0 {
            let now = cpu_micros();
            // A trace line that cannot be written is not worth a panic.
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!(
                    "capcheck: phase {phase} {} ms, cpu {} ms\n",
                    t.elapsed().as_millis(),
                    (now - *cpu) / 1000
                ),
            );
            *t = std::time::Instant::now();
            *cpu = now;
        }
    }
}

impl Project {
    pub(crate) fn load(opts: &ProjectOptions, needs: Needs) -> anyhow::Result<Project> {
        let mut phases = Phases::start();
        let mut ws = workspace::discover(&opts.selection)?;
        phases.mark("discover");
        let config = Config::from_metadata(&ws.config)?;
        let manifest_path = manifest::locate(
            &ws.root,
            opts.capacity.as_deref(),
            config.manifest.as_deref(),
        );
        let manifest = if needs.manifest {
            // A manifest named by the flag or the config must exist; the default one may not.
            let named = opts.capacity.is_some() || config.manifest.is_some();
            manifest::load(&ws.root, &manifest_path, named)?
        } else {
            None
        };
        let mut tables = Tables::new(&config.tables());
        // Capacity parameters are learnt from signatures before the walk, so that it keeps the
        // calls that set them (in every parse mode alike).
        check_stop()?;
        // The sparse parse's byte offsets are its own text's: jobs that splice the file or read
        // every item parse in full.
        let full = opts.full_parse || needs.fixtures || needs.operators;
        // The prescan lexes each file once, for its signatures and for the sparse cut; the
        // walk cuts from those tokens once the signatures are all known.
        // Files rust-bindgen wrote are a C library's numbers (`SQLITE_LIMIT_WORKER_THREADS = 11`
        // is a limit's id, `_POSIX_THREAD_THREADS_MAX = 64` the platform's), not this project's:
        // the prescan marks them (`None`), unlexed, and they are no part of the run.
        let scanned = prescan(&ws.files, &tables, !full);
        let bound: Vec<bool> = scanned.iter().map(Option::is_none).collect();
        drop_marked(&mut ws.files, &bound);
        let mut scanned: Vec<Scanned> = scanned.into_iter().flatten().collect();
        // A file no module declares is never compiled (a folder left behind after a rewrite):
        // it is no part of the run either.
        let undeclared = {
            let files: Vec<ModFile> = ws
                .files
                .iter()
                .zip(&scanned)
                .map(|(f, (p, _, _))| ModFile {
                    rel: &f.rel,
                    package: &f.package,
                    module: &f.module,
                    decls: &p.mods,
                })
                .collect();
            let mut undeclared = crate::syntax::modules::undeclared(&files);
            // A file whose name is not UTF-8 stays, for the parse to say it was skipped.
            for (u, f) in undeclared.iter_mut().zip(&ws.files) {
                *u &= f.abs.to_str().is_some();
            }
            undeclared
        };
        if std::env::var_os("CAPCHECK_TRACE").is_some_and(|v| v == "undeclared") {
            for (f, _) in ws.files.iter().zip(&undeclared).filter(|(_, u)| **u) {
                // A trace line that cannot be written is not worth a panic.
                let _ = std::io::Write::write_fmt(
                    &mut std::io::stderr(),
                    format_args!("capcheck: no module declares {}: not read\n", f.rel),
                );
            }
        }
        drop_marked(&mut ws.files, &undeclared);
        drop_marked(&mut scanned, &undeclared);
        let (mut pre, read, lexed): (Vec<Prescan>, Vec<Option<String>>, Vec<_>) = scanned
            .into_iter()
            .fold(Default::default(), |(mut a, mut b, mut c), (p, r, x)| {
                a.push(p);
                b.push(r);
                c.push(std::sync::Mutex::new(x));
                (a, b, c)
            });
        phases.mark("prescan");
        check_stop()?;
        tables.learn_capacity_fns(pre.iter().flat_map(|p| &p.sigs));
        tables.own_crates = ws
            .files
            .iter()
            .map(|f| f.package.replace('-', "_"))
            .collect();
        let focus = manifest
            .iter()
            .flat_map(|m| m.entries.iter().filter_map(|e| site_ident(&e.site)));
        let triggers = (!full).then(|| Triggers::new(&tables, focus));
        let depths: Vec<(usize, Option<usize>)> = pre.iter().map(|p| (p.len, p.too_deep)).collect();
        let outs = Load {
            tables: &tables,
            triggers: triggers.as_ref(),
            needs,
            depths: &depths,
            read: &read,
            lexed: Some(&lexed),
        }
        .waves(&ws.files, &config.guards);
        phases.mark("walk");
        check_stop()?;
        let mut facts = Vec::with_capacity(outs.len());
        let mut fixtures = Vec::new();
        let mut sites = Vec::new();
        let mut texts = Texts::new(&ws.root);
        let mut marked = std::collections::HashSet::new();
        for (i, out) in outs.into_iter().enumerate() {
            if out.marked {
                marked.insert(ws.files[i].rel.clone());
            }
            ws.files[i].role = out.facts.role;
            if let Some(text) = out.text {
                texts.insert(&ws.files[i].rel, text);
            }
            fixtures.extend(out.fixtures);
            if let Some(s) = out.sites {
                sites.push((i, s));
            }
            let mut f = out.facts;
            f.sigs = std::mem::take(&mut pre[i].sigs);
            f.page_params = crate::index::page_params(&f.sigs);
            f.sigs.retain(|s| tables.capacity_fns.contains(&s.name));
            facts.push(f);
        }
        let index = Index::from_facts(facts, tables, ws.deps.clone());
        phases.mark("index");
        let index = match &triggers {
            Some(t) => late_pass(&ws, index, t, &depths, &read),
            None => index,
        };
        phases.mark("late pass");
        check_stop()?;
        let index = trace_pass(&ws, index, &read);
        let index = crate::index::pins::drop_test_support(index);
        let index = crate::index::pins::drop_only_tests_call(index, |i| {
            Some(crate::index::pins::Source {
                text: text_of(&ws.files[i], &read, i)?,
                path: module_path(&ws.files[i]),
                role: ws.files[i].role,
            })
        });
        drop(read);
        phases.mark("pin trace");
        check_stop()?;
        let fixtures = needs.fixtures.then(|| {
            let mut a = FixtureAnalysis::from_files(fixtures);
            a.files = ws.files.len();
            crate::fixture_model::add_data_and_report(&mut a, &ws);
            a
        });
        Ok(Project {
            workspace: ws,
            config,
            manifest_path,
            manifest,
            index,
            fixtures,
            sites,
            texts,
            marked,
        })
    }
}

/// What a load shares between the files it walks.
struct Load<'a> {
    tables: &'a Tables,
    triggers: Option<&'a Triggers>,
    needs: Needs,
    /// Each file's length and depth bound from the prescan, in the order of the files.
    depths: &'a [(usize, Option<usize>)],
    /// Each file's text as the prescan read it (`None` where it could not): not read again.
    read: &'a [Option<String>],
    /// Each file's tokens as the prescan lexed them for the sparse cut: taken by the file's
    /// first walk (`None`: a pass that lexes anew).
    lexed: Option<&'a [std::sync::Mutex<Option<sparse::Lexed>>]>,
}

/// What the walk of one file produced.
struct FileOut {
    facts: FileFacts,
    fixtures: Option<FileFixtures>,
    sites: Option<FileSites>,
    text: Option<String>,
    /// The file holds a suppression's marker (`capcheck:`); so does one that fails to parse,
    /// to be safe.
    marked: bool,
}

impl FileOut {
    /// A file not walked because the run is stopping.
    fn skipped(role: FileRole) -> FileOut {
        FileOut {
            facts: FileFacts {
                role,
                ..FileFacts::default()
            },
            fixtures: None,
            sites: None,
            text: None,
            marked: false,
        }
    }
}

/// Whether the run was asked to stop (a stop signal `mutants` handles, a lost stderr).
fn stopped() -> bool {
    crate::sys::process::interrupted()
}

/// Give up a load the run was asked to stop: what was skipped would be wrong, not slow.
fn check_stop() -> anyhow::Result<()> {
    if stopped() {
        anyhow::bail!("interrupted while reading the workspace");
    }
    Ok(())
}

impl Load<'_> {
    /// Walk every file, parents before children: a wave is the files of one module depth, in
    /// parallel; the test modules a wave declares make the next waves' files test code.
    fn waves(&self, files: &[FileEntry], guards: &[crate::config::Guard]) -> Vec<FileOut> {
        let mut outs: Vec<Option<FileOut>> = files.iter().map(|_| None).collect();
        let mut declared: Vec<String> = Vec::new();
        let max_depth = files.iter().map(|f| f.module.len()).max().unwrap_or(0);
        for depth in 0..=max_depth {
            // Largest files first, so that the wave's last moments go to small ones and no
            // thread waits long for another at its end.
            let mut order: Vec<usize> = (0..files.len())
                .filter(|&i| files[i].module.len() == depth)
                .collect();
            order
                .sort_by_key(|&i| std::cmp::Reverse(self.depths.get(i).map_or(0, |&(len, _)| len)));
            let wave: Vec<(usize, FileOut)> = order
                .into_iter()
                .par_bridge()
                .map(|i| {
                    let f = &files[i];
                    let role = if f.role != FileRole::Test && under_any(f, &declared) {
                        FileRole::Test
                    } else {
                        f.role
                    };
                    // A stop signal (or a lost stderr) ends the load within a file's time: the
                    // rest are not parsed, and `load` gives up after the wave.
                    if stopped() {
                        return (i, FileOut::skipped(role));
                    }
                    (i, self.walk_file(i, f, role, guards))
                })
                .collect();
            for (i, out) in wave {
                declared.extend(out.facts.test_modules.iter().cloned());
                outs[i] = Some(out);
            }
        }
        // A test file named by `#[path]` may sit no deeper than the file that declares it
        // (`provider.rs` declaring `native_tests.rs` beside it): walked already as source, it is
        // walked again as test code, until no test file declares another.
        loop {
            let mut again = false;
            for (i, f) in files.iter().enumerate() {
                let walked_as_source = outs[i]
                    .as_ref()
                    .is_some_and(|o| o.facts.role != FileRole::Test);
                if walked_as_source && under_any(f, &declared) {
                    let out = self.walk_file(i, f, FileRole::Test, guards);
                    declared.extend(out.facts.test_modules.iter().cloned());
                    outs[i] = Some(out);
                    again = true;
                }
            }
            if !again {
                break;
            }
        }
        outs.into_iter()
            .map(|o| o.expect("every depth is walked"))
            .collect()
    }

    fn walk_file(
        &self,
        i: usize,
        f: &FileEntry,
        role: FileRole,
        guards: &[crate::config::Guard],
    ) -> FileOut {
        let triggers = self.triggers;
        PARSES.fetch_add(1, Ordering::Relaxed);
        if std::env::var_os("CAPCHECK_TRACE").is_some_and(|v| v == "parse") {
            // A trace line that cannot be written is not worth a panic.
            let _ = std::io::Write::write_fmt(
                &mut std::io::stderr(),
                format_args!("capcheck: parse {}\n", f.rel),
            );
        }
        let test = role == FileRole::Test;
        let lexed = self
            .lexed
            .and_then(|l| l.get(i))
            .and_then(|m| m.lock().ok()?.take());
        let prepare = |text: &str| match lexed {
            Some(lexed) => lexed.cut(text, test, &mut triggers?.classifier()),
            None => sparse::sparse(text, test, &mut triggers?.classifier()),
        };
        let read = self.read.get(i).and_then(Option::as_deref);
        let read = read.zip(self.depths.get(i).map(|&(_, at)| at));
        let mut parsed = match parse_file_with(&f.abs, &f.rel, read, prepare) {
            Ok(p) => p,
            Err(failure) => {
                return FileOut {
                    facts: FileFacts {
                        rel: f.rel.clone(),
                        package: f.package.clone(),
                        role,
                        parse_error: Some(failure),
                        ..FileFacts::default()
                    },
                    fixtures: None,
                    sites: None,
                    text: None,
                    marked: true,
                };
            }
        };
        // A macro's rules are read as functions, so that its arguments flow where its body
        // puts them (`new_broadcast_channel!(16)` into `broadcast::channel($capacity)`).
        crate::syntax::macros::add_rule_fns(&mut parsed.ast.items);
        let scope = Scope::file(&f.crate_name, &f.module, role, &parsed.ast);
        let mut index = Extractor::new(self.tables, &f.rel, role)
            .with_file_index(i)
            .with_lexical(std::mem::take(&mut parsed.lexical));
        let mut fixture = self.needs.fixtures.then(|| FixtureCollector::new(&f.rel));
        let mut code = self.needs.fixtures.then(|| CodeCollector::new(&f.rel));
        let operators = self.needs.operators && role == FileRole::Source;
        let mut sites = operators.then(|| SiteCollector::new(self.tables, guards));
        let mut collectors: Vec<&mut dyn Collector> = vec![&mut index];
        collectors.extend(fixture.as_mut().map(|c| c as &mut dyn Collector));
        collectors.extend(code.as_mut().map(|c| c as &mut dyn Collector));
        collectors.extend(sites.as_mut().map(|c| c as &mut dyn Collector));
        let walk = Walk {
            format_macros: self.needs.fixtures,
        };
        let walked = walk.run(&f.rel, &parsed.text, scope, &parsed.ast, &mut collectors);
        // The products are plain data and the syntax tree is gone: free the thread's span table,
        // which otherwise keeps every parsed file's text alive.
        drop(parsed.ast);
        proc_macro2::extra::invalidate_current_thread_spans();
        let facts = FileFacts {
            package: f.package.clone(),
            lines: parsed.lines,
            hidden: parsed.hidden,
            test_modules: walked.test_modules,
            ..index.finish()
        };
        let fixtures = fixture.map(|c| FileFixtures {
            lines: parsed.lines,
            code: code.map(CodeCollector::finish).unwrap_or_default(),
            ..c.finish()
        });
        FileOut {
            facts,
            fixtures,
            sites: sites.map(SiteCollector::finish),
            marked: parsed.marked,
            text: operators.then_some(parsed.text),
        }
    }
}

/// What only the whole index tells: a constant that reaches a capacity API without a capacity
/// name (`MAX_READS` in `Semaphore::new(MAX_READS)`), and the places a value reaches one through
/// (`index::flow`: a field, a constructor's parameter, a function's result). Their other
/// mentions may sit in items the sparse parse cut, so the files that mention one only there are
/// walked again with it kept, and the index is built again, until no new name appears (a full
/// parse needs none of this). The flow only grows with more code read, so what this ends with is
/// what a full parse finds.
fn late_pass(
    ws: &Workspace,
    mut index: Index,
    triggers: &Triggers,
    depths: &[(usize, Option<usize>)],
    read: &[Option<String>],
) -> Index {
    // What was looked for so far: a name, the other names a file must mention too, and the
    // package it was looked for in (`None`: every package, for a constant that sizes an API).
    type Ask = (String, Vec<String>, Option<String>);
    let mut asked: std::collections::BTreeSet<Ask> = Default::default();
    let mut focus: std::collections::BTreeSet<String> = Default::default();
    // Each round adds names; every name comes from the workspace, so the rounds end. The bound
    // is a guard, never reached on real code (3 rounds at most on the corpora).
    for _ in 0..32 {
        let consts = index
            .capacities
            .iter()
            .filter(|c| matches!(c.kind, CapacityKind::Const | CapacityKind::Static))
            .map(|c| (c.item.clone(), Vec::new(), None));
        let flows = index.flow_idents.iter().flat_map(|w| {
            w.packages
                .iter()
                .map(move |p| (w.key.clone(), w.also.clone(), Some(p.clone())))
        });
        let new: Vec<Ask> = consts
            .chain(flows)
            .filter(|a| !asked.contains(a) && !triggers.keeps(&a.0))
            .collect();
        if new.is_empty() {
            break;
        }
        let hashes: Vec<(Vec<u64>, Option<&str>)> = new
            .iter()
            .map(|(n, also, p)| {
                let names = std::iter::once(n).chain(also);
                (names.map(|n| sparse::ident_hash(n)).collect(), p.as_deref())
            })
            .collect();
        let redo: Vec<usize> = (0..ws.files.len())
            .filter(|&i| {
                let f = &index.files[i];
                hashes.iter().any(|(hs, p)| {
                    p.is_none_or(|p| p == f.package)
                        && hs.iter().all(|h| f.hidden.binary_search(h).is_ok())
                })
            })
            .collect();
        // No file mentions the new names where the parse cut: the index stands as built.
        if redo.is_empty() {
            break;
        }
        focus.extend(new.iter().map(|(n, _, _)| n.clone()));
        asked.extend(new);
        let triggers = triggers.clone().with(focus.iter().cloned());
        let Index {
            mut files,
            tables,
            deps,
            ..
        } = index;
        let again: Vec<(usize, FileFacts)> = redo
            .par_iter()
            .map(|&i| {
                let load = Load {
                    tables: &tables,
                    triggers: Some(&triggers),
                    needs: Needs::default(),
                    depths,
                    read,
                    lexed: None,
                };
                (i, load.walk_file(i, &ws.files[i], files[i].role, &[]).facts)
            })
            .collect();
        for (i, f) in again {
            let sigs = std::mem::take(&mut files[i].sigs);
            let page_params = std::mem::take(&mut files[i].page_params);
            files[i] = FileFacts {
                sigs,
                page_params,
                ..f
            };
        }
        index = Index::from_facts(files, tables, deps);
    }
    index
}

/// Drop the items whose mark is set (`marks` in the order of `items`).
fn drop_marked<T>(items: &mut Vec<T>, marks: &[bool]) {
    let mut marks = marks.iter();
    items.retain(|_| !marks.next().copied().unwrap_or(false));
}

/// What the prescan gives for one file: its facts, its text, its tokens for the sparse cut.
type Scanned = (Prescan, Option<String>, Option<sparse::Lexed>);

/// Each file's one lexing before the walk (`index::params::prescan`), in the order of `files`:
/// every function signature of every file but test code's, and every file's depth bound.
/// The texts it read come back with it, for the walk.
/// With `cut` (the sparse parse), each file's tokens for the sparse cut come back too, from the
/// same lexing (none for a file too deep for syn, which is not parsed). A file rust-bindgen
/// wrote is `None`, not lexed.
fn prescan(files: &[FileEntry], tables: &Tables, cut: bool) -> Vec<Option<Scanned>> {
    files
        .par_iter()
        .map(|f| {
            let Ok(text) = crate::sys::fs::read_text(&f.abs) else {
                return Some((Prescan::default(), None, None));
            };
            if bindgen_output(&text) {
                return None;
            }
            let names = (f.role != FileRole::Test).then_some(&tables.capacity_names);
            let mut lexed = cut.then(sparse::Lexed::default);
            let pre = crate::index::params::prescan(&text, names, lexed.as_mut());
            let lexed = lexed.filter(|_| pre.too_deep.is_none());
            Some((pre, Some(text), lexed))
        })
        .collect()
}

/// Whether a file is rust-bindgen's output: its first comment says so, whether bindgen wrote it
/// (`/* automatically generated by rust-bindgen 0.66.1 */`) or a script around it (crosvm's
/// `/* automatically generated by tools/bindgen-all-the-things */`, the sealed split of
/// 2026-12-06o: io_uring's opcodes, virtio-mmio's register offsets).
fn bindgen_output(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| {
            (l.starts_with("//") || l.starts_with("/*"))
                && l.contains("generated by")
                && l.contains("bindgen")
        })
}

/// The pin rule traces the value a test asserts through the code the test runs, which needs
/// every function of the package, whether the parse kept it or not. So the files of the packages
/// with an assertion some capacity's arithmetic explains (usually few) are read by the lexer
/// for their call graph (`index::graph`): no second parse, and the same graph in every mode.
fn trace_pass(ws: &Workspace, mut index: Index, read: &[Option<String>]) -> Index {
    let packages = crate::index::pins::packages_to_trace(&index);
    if packages.is_empty() {
        return index;
    }
    let graphs: Vec<(usize, Vec<crate::index::facts::FnNode>)> = (0..ws.files.len())
        .into_par_iter()
        .filter(|&i| packages.contains(&ws.files[i].package))
        .filter_map(|i| {
            let f = &ws.files[i];
            let text = text_of(f, read, i)?;
            Some((i, crate::index::graph::nodes(&text, &module_path(f))))
        })
        .collect();
    for (i, fns) in graphs {
        index.files[i].fns = fns;
    }
    index
}

/// File `i`'s text: as the prescan read it, or read again where it kept none.
fn text_of<'r>(
    f: &FileEntry,
    read: &'r [Option<String>],
    i: usize,
) -> Option<std::borrow::Cow<'r, str>> {
    match read.get(i).and_then(Option::as_deref) {
        Some(text) => Some(std::borrow::Cow::Borrowed(text)),
        None => crate::sys::fs::read_text(&f.abs)
            .ok()
            .map(std::borrow::Cow::Owned),
    }
}

/// A file's module path, crate first (`crate::a::b`), as the call graph names sites.
fn module_path(f: &FileEntry) -> Vec<String> {
    std::iter::once(f.crate_name.clone())
        .chain(f.module.iter().cloned())
        .collect()
}

/// The identifier a manifest site names last (`crate::m::Type::field` -> `field`), so the sparse
/// parse keeps the item that sets it.
fn site_ident(site: &str) -> Option<String> {
    let site = site.split('#').next().unwrap_or(site);
    let mut segs = site.rsplit("::").filter(|s| *s != "new");
    segs.next().map(str::to_string)
}

/// Whether the file's module (`crate::a::tests::helpers`) is inside one of `modules`.
fn under_any(f: &FileEntry, modules: &[String]) -> bool {
    let by_file = format!("{}{}", crate::syntax::walk::TEST_FILE, f.rel);
    if modules.contains(&by_file) {
        return true;
    }
    let path: String = std::iter::once(f.crate_name.as_str())
        .chain(f.module.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("::");
    modules.iter().any(|m| {
        path == *m
            || path
                .strip_prefix(m.as_str())
                .is_some_and(|rest| rest.starts_with("::"))
    })
}
