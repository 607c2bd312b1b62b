//! The mutants report as one self-contained HTML page (`report.html` in the output folder; no
//! network, every style and script inline). Survivors and failed guards come first, the mutants
//! of one span as one entry (`advice::groups`) listing each replacement; every other mutant
//! follows as its own entry, then the skipped ones. Each entry shows the source around the
//! mutated span with the span marked, each mutant's diff (`mutants::diff`), its verdict, the
//! tests that killed it or ran it, the fixture explanation and the next step, and links to its
//! log and diff file in the output folder (relative: the page sits beside them).
//!
//! Filters by outcome, operator and file are `<select>`s; a fragment
//! (`report.html#outcome=survived&operator=swap-min-max`) sets them on load, and changing them
//! writes the fragment back, so a filtered view can be linked. After each filtering the page
//! writes the ids of the mutants the browser lays out to `data-visible` on the body (and the
//! laid-out diffs to `data-visible-diffs`), which tests read through headless Chromium.
//!
//! Every text from the report or the source is escaped (`html_escape`); the script reads only
//! the DOM, so no report text is ever inside a `<script>`.

use std::collections::BTreeMap;

use html_escape::{encode_double_quoted_attribute as attr, encode_text as esc};

use crate::mutate::advice;
use crate::mutate::outcome::{MutantResult, MutantsReport, Outcome};
use crate::mutate::select::{Skipped, one_line};
use crate::operators::mutant::Mutant;

/// Lines of source shown before and after the mutated span.
const CONTEXT_LINES: usize = 2;

pub(crate) fn report(r: &MutantsReport, root: &std::path::Path) -> String {
    let mut texts = crate::source::Texts::new(root);
    let mut groups = advice::groups(r);
    // Failed guards first: they are the errors.
    groups.sort_by_key(|g| !g[0].failed_guard());
    let mut rest: Vec<&MutantResult> = r.mutants.iter().filter(|m| !advice::flagged(m)).collect();
    rest.sort_by_key(|m| m.outcome);

    let mut entries = String::new();
    for g in &groups {
        entries.push_str(&entry(g, true, &mut texts));
    }
    for m in rest {
        entries.push_str(&entry(&[m], false, &mut texts));
    }
    for k in &r.skipped {
        entries.push_str(&skipped(k, &mut texts));
    }

    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str(crate::mutate::output::HTML_GENERATOR);
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>cargo capcheck mutants</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str("</style></head>\n<body>\n<header><h1>cargo capcheck mutants</h1>\n");
    out.push_str(&summary(r));
    out.push_str("</header>\n");
    out.push_str(&filters(r));
    out.push_str("<main>\n");
    out.push_str(&entries);
    out.push_str("</main>\n<p id=\"none\" hidden>No mutant matches these filters.</p>\n<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body></html>\n");
    out
}

fn summary(r: &MutantsReport) -> String {
    let s = &r.summary;
    let mut line = format!(
        "<p id=\"summary\"><span class=\"score\">score {:.1}%</span> {} mutant{}: {} survived, \
         {} killed, {} timeout, {} oom, {} unviable, {} uncovered; {} skipped",
        s.score,
        s.mutants,
        crate::diag::plural(s.mutants),
        s.survived,
        s.killed,
        s.timeout,
        s.oom,
        s.unviable,
        s.uncovered,
        r.skipped.len(),
    );
    if !s.guards_failed.is_empty() {
        line.push_str(&format!("; {} guard(s) not killed", s.guards_failed.len()));
    }
    if let Some(shard) = &s.shard {
        line.push_str(&format!("; shard {}", esc(&shard.to_string())));
    }
    line.push_str(&format!(
        ". Baseline: {} tests, build {:.1}s, test {:.1}s; {:.1}s in all. \
         <a href=\"logs/baseline.log\">baseline log</a></p>\n",
        s.baseline.tests,
        s.baseline.build_ms as f64 / 1000.0,
        s.baseline.test_ms as f64 / 1000.0,
        s.elapsed_ms as f64 / 1000.0
    ));
    line
}

/// The three filters, each listing the values present with how many entries hold them.
fn filters(r: &MutantsReport) -> String {
    let mut outcome: BTreeMap<&str, usize> = BTreeMap::new();
    let mut operator: BTreeMap<&str, usize> = BTreeMap::new();
    let mut file: BTreeMap<&str, usize> = BTreeMap::new();
    let all = r
        .mutants
        .iter()
        .map(|m| (m.outcome.as_str(), &m.mutant))
        .chain(r.skipped.iter().map(|k| ("skipped", &k.mutant)));
    for (o, m) in all {
        *outcome.entry(o).or_default() += 1;
        *operator.entry(m.operator.id()).or_default() += 1;
        *file.entry(m.file.as_str()).or_default() += 1;
    }
    let select = |name: &str, values: &BTreeMap<&str, usize>| {
        let total: usize = values.values().sum();
        let mut s = format!(
            "<label>{name} <select id=\"f-{name}\" data-key=\"{name}\">\
             <option value=\"\">all ({total})</option>"
        );
        for (v, n) in values {
            s.push_str(&format!(
                "<option value=\"{}\">{} ({n})</option>",
                attr(v),
                esc(v)
            ));
        }
        s.push_str("</select></label>\n");
        s
    };
    format!(
        "<nav id=\"filters\">{}{}{}<span id=\"shown\"></span></nav>\n",
        select("outcome", &outcome),
        select("operator", &operator),
        select("file", &file)
    )
}

/// One entry: a flagged group (one span, each replacement listed) or one other mutant.
fn entry(g: &[&MutantResult], flagged: bool, texts: &mut crate::source::Texts) -> String {
    let (r, m) = (g[0], &g[0].mutant);
    let text = texts.get(&m.file).to_string();
    let verdict = if m.guard {
        format!("guard {}", r.outcome.as_str())
    } else {
        r.outcome.as_str().to_string()
    };
    let headline = match g {
        [_] => format!("{} in `{}`", m.description, m.function),
        _ => format!(
            "{} {} mutants of `{}` in `{}`",
            g.len(),
            m.operator,
            one_line(&m.original),
            m.function
        ),
    };
    let mut s = format!(
        "<section class=\"entry {}{}\" data-outcome=\"{}\" data-operator=\"{}\" data-file=\"{}\">\n\
         <h2><span class=\"badge {}\">{}</span> {}</h2>\n",
        r.outcome.as_str(),
        if flagged { " flagged" } else { "" },
        r.outcome.as_str(),
        m.operator.id(),
        attr(&m.file),
        r.outcome.as_str(),
        esc(&verdict),
        code(&headline),
    );
    s.push_str(&place(m));
    s.push_str(&source(m, &text));
    s.push_str(&tests(r));
    let fixture_step = r
        .next_step
        .as_ref()
        .is_some_and(|s| s.kind == advice::StepKind::Fixture);
    if let Some(e) = r
        .explanation
        .as_deref()
        .filter(|e| *e != crate::fixture_model::NO_EXPLANATION)
        .filter(|_| !fixture_step)
    {
        s.push_str(&format!(
            "<p class=\"explanation\"><strong>fixture explanation:</strong> {}</p>\n",
            code(e)
        ));
    }
    if let Some(step) = &r.next_step {
        let ids: Vec<&str> = g.iter().map(|r| r.mutant.id.as_str()).collect();
        let from = if fixture_step {
            " (from the fixture analysis)"
        } else {
            ""
        };
        s.push_str(&format!(
            "<div class=\"next\"><p><strong>next step{from}:</strong> {}; then <code>{}</code></p>\
             <p>or, if no test can tell them apart, paste above line {}: <code>{}</code></p></div>\n",
            code(&step.text),
            esc(&advice::rerun(&ids)),
            m.line,
            esc(&step.skip)
        ));
    }
    s.push_str("<ul class=\"mutants\">\n");
    // A flagged entry shows its first diff open; the rest are a click away.
    for (i, r) in g.iter().enumerate() {
        s.push_str(&mutant(r, flagged && i == 0, &text));
    }
    s.push_str("</ul>\n</section>\n");
    s
}

/// Where the mutant is: file, line and column, the enclosing item, the operator.
fn place(m: &Mutant) -> String {
    let also = if m.also.is_empty() {
        String::new()
    } else {
        let ids: Vec<&str> = m.also.iter().map(|o| o.id()).collect();
        format!(" (also proposed by {})", esc(&ids.join(", ")))
    };
    format!(
        "<p class=\"where\">{}:{}:{} in <code>{}</code> &middot; operator <code>{}</code>{also}</p>\n",
        esc(&m.file),
        m.line,
        m.column,
        esc(&m.function),
        m.operator.id(),
    )
}

/// The tests that killed the mutant, or that ran it and passed.
fn tests(r: &MutantResult) -> String {
    let list = |names: &[String]| -> String {
        names
            .iter()
            .map(|n| format!("<li><code>{}</code></li>", esc(n)))
            .collect()
    };
    match r.outcome {
        Outcome::Killed if r.killed_by.is_empty() => "<p class=\"tests\">the tests failed \
            without naming a test (a crash or a build script)</p>\n"
            .to_string(),
        Outcome::Killed => {
            let pins = if r.killed_only_by_pins {
                "<p class=\"pins\">every killing test pins a capacity: this proves the \
                 constant, not the behaviour</p>"
            } else {
                ""
            };
            format!(
                "<div class=\"tests\"><strong>killed by</strong><ul class=\"killers\">{}</ul>{pins}</div>\n",
                list(&r.killed_by)
            )
        }
        Outcome::Survived if r.ran.is_empty() => format!(
            "<p class=\"tests\">{} test{} ran with this mutant and passed</p>\n",
            r.tests_run,
            crate::diag::plural(r.tests_run)
        ),
        Outcome::Survived => {
            let more = r.tests_run.saturating_sub(r.ran.len());
            let more = if more > 0 {
                format!("<li>and {more} more</li>")
            } else {
                String::new()
            };
            format!(
                "<div class=\"tests\"><strong>{} test{} ran with this mutant and passed</strong>\
                 <ul class=\"ran\">{}{more}</ul></div>\n",
                r.tests_run,
                crate::diag::plural(r.tests_run),
                list(&r.ran)
            )
        }
        Outcome::Timeout => "<p class=\"tests\">a test ran past the timeout</p>\n".to_string(),
        Outcome::Oom => "<p class=\"tests\">a test stopped at the memory ceiling</p>\n".to_string(),
        Outcome::Unviable => {
            "<p class=\"tests\">the mutated code does not compile</p>\n".to_string()
        }
        Outcome::Uncovered => "<p class=\"tests\">no test ran</p>\n".to_string(),
    }
}

/// One replacement of an entry: what it becomes, its id, links to its log and diff, its diff.
fn mutant(r: &MutantResult, open: bool, text: &str) -> String {
    let m = &r.mutant;
    let change = if m.replacement.is_empty() {
        "removed".to_string()
    } else {
        format!("&rarr; <code>{}</code>", esc(&one_line(&m.replacement)))
    };
    let mut links = Vec::new();
    if !r.log.is_empty() {
        links.push(format!("<a href=\"{}\">log</a>", attr(&href(&r.log))));
    }
    let diff = crate::report::mutants::diff(m, text);
    if diff.is_some() {
        let file = format!(
            "{}/{}.diff",
            crate::mutate::output::DIFFS,
            crate::mutate::engine::file_stem(&m.id)
        );
        links.push(format!("<a href=\"{}\">diff file</a>", attr(&href(&file))));
    }
    let mut s = format!(
        "<li id=\"{}\" class=\"mutant {}\"><p>{change} <span class=\"verdict\">{}</span> \
         &middot; {} ms &middot; {} &middot; <code class=\"id\">{}</code></p>\n",
        attr(&m.id),
        r.outcome.as_str(),
        r.outcome.as_str(),
        r.duration_ms,
        links.join(" &middot; "),
        esc(&m.id),
    );
    match diff {
        Some(d) => {
            s.push_str(&format!(
                "<details class=\"diff\"{}><summary>diff</summary>{}</details>\n",
                if open { " open" } else { "" },
                diff_block(&d)
            ));
        }
        None => s.push_str(
            "<p class=\"stale\">the source no longer holds this mutant's text: no diff</p>\n",
        ),
    }
    s.push_str("</li>\n");
    s
}

fn skipped(k: &Skipped, texts: &mut crate::source::Texts) -> String {
    let m = &k.mutant;
    let text = texts.get(&m.file).to_string();
    let why = match &k.reason {
        Some(r) => format!("{}: {}", esc(&k.skipped_by), code(r)),
        None => esc(&k.skipped_by).into_owned(),
    };
    let diff = crate::report::mutants::diff(m, &text)
        .map(|d| {
            format!(
                "<details class=\"diff\"><summary>diff</summary>{}</details>",
                diff_block(&d)
            )
        })
        .unwrap_or_default();
    format!(
        "<section class=\"entry skipped\" data-outcome=\"skipped\" data-operator=\"{}\" \
         data-file=\"{}\">\n<h2><span class=\"badge skipped\">skipped</span> {}</h2>\n{}{}\
         <p class=\"tests\">skipped by {why}</p>\n<ul class=\"mutants\"><li id=\"{}\" \
         class=\"mutant skipped\"><p><code class=\"id\">{}</code></p>{diff}</li></ul>\n</section>\n",
        m.operator.id(),
        attr(&m.file),
        code(&format!("{} in `{}`", m.description, m.function)),
        place(m),
        source(m, &text),
        attr(&m.id),
        esc(&m.id),
    )
}

/// The lines around the mutated span, numbered, with the span in `<mark>`; a note instead when
/// the file no longer holds the mutant's original text.
fn source(m: &Mutant, text: &str) -> String {
    let (start, end) = m.byte_range;
    if text.get(start..end) != Some(m.original.as_str()) {
        return "<p class=\"stale\">the source no longer holds the mutated text</p>\n".into();
    }
    // Byte ranges of every line, without its newline.
    let mut lines = Vec::new();
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        lines.push((at, at + l.trim_end_matches(['\n', '\r']).len()));
        at += l.len();
    }
    let first = lines.iter().position(|&(_, e)| e >= start).unwrap_or(0);
    let last = lines
        .iter()
        .position(|&(_, e)| e >= end)
        .unwrap_or(lines.len().saturating_sub(1));
    let from = first.saturating_sub(CONTEXT_LINES);
    let to = (last + CONTEXT_LINES).min(lines.len().saturating_sub(1));
    let mut s = String::from("<pre class=\"source\">");
    for (i, &(ls, le)) in lines.iter().enumerate().take(to + 1).skip(from) {
        s.push_str(&format!("<span class=\"ln\">{:>4}</span> ", i + 1));
        let (ms, me) = (start.clamp(ls, le), end.clamp(ls, le));
        s.push_str(&esc(&text[ls..ms]));
        if (ms < me) || (start == end && ms == start) {
            s.push_str(&format!("<mark>{}</mark>", esc(&text[ms..me])));
        }
        s.push_str(&esc(&text[me..le]));
        s.push('\n');
    }
    s.push_str("</pre>\n");
    s
}

/// A unified diff, each line classed (`add`, `del`, `hunk`, `head`), its id line left out.
fn diff_block(d: &str) -> String {
    let mut s = String::from("<pre class=\"diff\">");
    for line in d.lines() {
        if line.starts_with(crate::mutate::output::MUTANT_HEADER) {
            continue;
        }
        let class = if line.starts_with("+++") || line.starts_with("---") {
            "head"
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            "ctx"
        };
        s.push_str(&format!("<span class=\"{class}\">{}</span>\n", esc(line)));
    }
    s.push_str("</pre>");
    s
}

/// Text with markdown's backtick spans as `<code>`, everything escaped; an unpaired backtick
/// stays as it is.
fn code(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    let mut s = String::new();
    let paired = parts.len() % 2 == 1;
    for (i, p) in parts.iter().enumerate() {
        let last = i == parts.len() - 1;
        if i % 2 == 1 && (paired || !last) {
            s.push_str(&format!("<code>{}</code>", esc(p)));
        } else {
            if i % 2 == 1 {
                s.push('`');
            }
            s.push_str(&esc(p));
        }
    }
    s
}

/// A relative path of the output folder as a URL path: each byte outside the unreserved set
/// and `/` percent-encoded (ids hold `:`, which a browser could read as a scheme).
fn href(path: &str) -> String {
    let mut s = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

const STYLE: &str = "\
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg2:#f6f8fa}\
*{box-sizing:border-box}\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);margin:0 auto;\
max-width:1100px;padding:1em 1.5em}\
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.05em;margin:0 0 .3em;overflow-wrap:anywhere}\
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\
code{background:var(--bg2);padding:0 .25em;border-radius:3px;overflow-wrap:anywhere}\
pre{background:var(--bg2);border:1px solid var(--line);border-radius:4px;padding:.5em;\
overflow-x:auto;margin:.4em 0;white-space:pre}\
pre span{display:inline}\
#summary .score{font-weight:bold;font-size:1.15em;margin-right:.4em}\
nav#filters{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);\
padding:.5em 0;margin-bottom:.8em;display:flex;gap:1em;flex-wrap:wrap;align-items:center;z-index:1}\
nav select{max-width:22em}#shown{color:var(--muted)}\
section.entry{border:1px solid var(--line);border-left:6px solid #8c959f;border-radius:6px;\
padding:.7em 1em;margin:0 0 1em;min-width:0}\
section.survived,section.uncovered{border-left-color:#cf222e}\
section.killed,section.timeout,section.oom{border-left-color:#1a7f37}\
section.unviable,section.skipped{border-left-color:#8c959f}\
.badge{display:inline-block;border-radius:1em;padding:0 .6em;font-size:.85em;color:#fff;\
background:#8c959f;vertical-align:1px}\
.badge.survived,.badge.uncovered{background:#cf222e}\
.badge.killed,.badge.timeout,.badge.oom{background:#1a7f37}\
.where,.tests,.stale,.pins{color:var(--muted);margin:.2em 0}\
.tests ul{margin:.2em 0;padding-left:1.4em}\
.next{background:#fff8c5;border:1px solid #d4a72c66;border-radius:4px;padding:.3em .7em;margin:.4em 0}\
.next p{margin:.25em 0}.explanation{margin:.3em 0}\
mark{background:#ffd33d;outline:1px solid #bf8700;border-radius:2px}\
.ln{color:var(--muted);user-select:none}\
ul.mutants{list-style:none;padding:0;margin:.4em 0 0}\
li.mutant{border-top:1px dashed var(--line);padding:.3em 0}li.mutant>p{margin:.2em 0}\
.verdict{font-weight:bold}code.id{color:var(--muted);background:none}\
pre.diff .add{color:#116329;background:#dafbe1}pre.diff .del{color:#82071e;background:#ffebe9}\
pre.diff .hunk{color:#0550ae}pre.diff .head{color:var(--muted)}\
summary{cursor:pointer;color:#0969da}a{color:#0969da}\
[hidden]{display:none!important}";

/// The filters: apply the `<select>`s to the entries, keep the fragment in step, and record
/// what the browser lays out for tests. Reads only the DOM.
const SCRIPT: &str = r#"
(function () {
  var selects = Array.prototype.slice.call(document.querySelectorAll('#filters select'));
  var entries = Array.prototype.slice.call(document.querySelectorAll('section.entry'));
  // Laid out and not inside a closed <details> (checkVisibility sees that; offsetHeight not).
  function laidOut(e) {
    return e.offsetHeight > 0 && getComputedStyle(e).visibility !== 'hidden' &&
      (!e.checkVisibility || e.checkVisibility({ visibilityProperty: true }));
  }
  function apply() {
    var shown = 0, query = [];
    selects.forEach(function (s) {
      if (s.value) query.push(s.dataset.key + '=' + encodeURIComponent(s.value));
    });
    entries.forEach(function (e) {
      var keep = selects.every(function (s) { return !s.value || e.dataset[s.dataset.key] === s.value; });
      e.hidden = !keep;
      if (keep) shown++;
    });
    var count = entries.filter(function (e) { return !e.hidden; }).reduce(function (n, e) {
      return n + e.querySelectorAll('li.mutant').length;
    }, 0);
    document.getElementById('shown').textContent =
      shown + ' of ' + entries.length + ' entries shown (' + count + ' mutant' + (count === 1 ? '' : 's') + ')';
    document.getElementById('none').hidden = shown > 0;
    try { history.replaceState(null, '', query.length ? '#' + query.join('&') : location.pathname); } catch (err) {}
    var mutants = Array.prototype.slice.call(document.querySelectorAll('li.mutant')).filter(laidOut);
    document.body.dataset.visible = mutants.map(function (m) { return m.id; }).join(' ');
    document.body.dataset.visibleDiffs = Array.prototype.slice.call(document.querySelectorAll('pre.diff')).filter(laidOut).length;
  }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  function fromFragment() {
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i < 0) return;
      var s = document.getElementById('f-' + kv.slice(0, i));
      var v = decodeURIComponent(kv.slice(i + 1));
      if (s && Array.prototype.some.call(s.options, function (o) { return o.value === v; })) s.value = v;
    });
    apply();
  }
  window.addEventListener('hashchange', fromFragment);
  fromFragment();
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::outcome::Summary;

    fn result(file: &str, text: &str, original: &str, replacement: &str) -> MutantResult {
        let start = text.find(original).unwrap();
        MutantResult {
            mutant: Mutant {
                id: "perturb-capacity:src/lib.rs:f:00000000".into(),
                operator: crate::catalog::Operator::PerturbCapacity,
                file: file.into(),
                line: 2,
                column: 1,
                end_line: 2,
                end_column: 1,
                byte_range: (start, start + original.len()),
                function: "f".into(),
                original: original.into(),
                replacement: replacement.into(),
                description: "`x` <b>changed</b>".into(),
                guard: false,
                context: Default::default(),
                also: Vec::new(),
                at_uses: None,
            },
            outcome: Outcome::Survived,
            duration_ms: 1,
            killed_by: Vec::new(),
            tests_run: 1,
            ran: vec!["t::<b>".into()],
            killed_only_by_pins: false,
            explanation: Some("2 boxes </script> are alike: vary `one`".into()),
            next_step: None,
            log: "logs/a b#c.log".into(),
            engine: "switch".into(),
        }
    }

    #[test]
    fn source_and_report_text_is_escaped_and_the_span_marked() {
        let dir = tempfile::tempdir().unwrap();
        let text = "fn f() {\n    let s = \"</script><b>\"; // x\n}\n";
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
        let mut r = result("src/lib.rs", text, "\"</script><b>\"", "\"<i>\"");
        r.next_step = advice::next_step(&r);
        let report = MutantsReport::new(
            vec![r.clone()],
            Summary::new(&[r], Default::default(), 0, None),
        );
        let page = super::report(&report, dir.path());
        // Only the page's own script closes a script; no report text makes a tag.
        assert_eq!(page.matches("</script>").count(), 1, "{page}");
        assert_eq!(page.matches("<script>").count(), 1, "{page}");
        assert!(!page.contains("<b>") && !page.contains("<i>"), "{page}");
        // The span is marked in the source excerpt, the diff shows both sides.
        assert!(
            page.contains("let s = <mark>\"&lt;/script&gt;&lt;b&gt;\"</mark>; // x"),
            "{page}"
        );
        assert!(
            page.contains("<span class=\"add\">+    let s = \"&lt;i&gt;\"; // x</span>"),
            "{page}"
        );
        assert!(
            page.contains(
                "<span class=\"del\">-    let s = \"&lt;/script&gt;&lt;b&gt;\"; // x</span>"
            ),
            "{page}"
        );
        // Backticks become code; the log link is a relative, encoded URL.
        assert!(page.contains("vary <code>one</code>"), "{page}");
        assert!(
            page.contains("<a href=\"logs/a%20b%23c.log\">log</a>"),
            "{page}"
        );
        assert!(page.contains(crate::mutate::output::HTML_GENERATOR));
    }

    #[test]
    fn backtick_spans_become_code_and_a_lone_backtick_stays() {
        assert_eq!(code("a `b<c` d"), "a <code>b&lt;c</code> d");
        assert_eq!(code("a `b` `c"), "a <code>b</code> `c");
        assert_eq!(code("no ticks"), "no ticks");
    }
}
