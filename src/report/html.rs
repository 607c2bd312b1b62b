//! The mutants report as one self-contained HTML page (`report.html` in the output folder): the
//! summary, then every mutant with its place, change, outcome and, for a survivor, the tests that
//! ran it and the fixture explanation. Survivors come first and are never collapsed. No script
//! but a check that counts the survivors the browser lays out (`data-visible-survivors` on the
//! body), which tests read through headless Chromium.

use html_escape::encode_text as esc;

use crate::mutate::outcome::MutantsReport;
use crate::mutate::outcome::{MutantResult, Outcome};

pub(crate) fn report(r: &MutantsReport) -> String {
    let s = &r.summary;
    let mut rows: Vec<&MutantResult> = r.mutants.iter().collect();
    // Survivors and failed guards first, then the canonical order.
    rows.sort_by_key(|m| !(m.outcome == Outcome::Survived || m.failed_guard()));
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str(crate::mutate::output::HTML_GENERATOR);
    out.push_str("<title>cargo capcheck mutants</title><style>");
    out.push_str(
        "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;width:100%}\
         td,th{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}\
         code{white-space:pre-wrap}tr.survived td{background:#fde2e1}\
         tr.killed td,tr.timeout td,tr.oom td{background:#e3f4e1}",
    );
    out.push_str("</style></head><body>\n");
    out.push_str(&format!(
        "<h1>cargo capcheck mutants</h1>\n<p id=\"summary\">{} mutants: {} survived, {} killed, \
         {} timeout, {} oom, {} unviable, {} uncovered, {} skipped; score {:.1}%</p>\n",
        s.mutants,
        s.survived,
        s.killed,
        s.timeout,
        s.oom,
        s.unviable,
        s.uncovered,
        r.skipped.len(),
        s.score
    ));
    out.push_str(
        "<table><thead><tr><th>outcome</th><th>where</th><th>change</th><th>tests</th>\
         <th>why it survived</th></tr></thead><tbody>\n",
    );
    for m in rows {
        let mu = &m.mutant;
        let tests = match m.outcome {
            Outcome::Killed if m.killed_by.is_empty() => {
                "the tests failed without naming a test".into()
            }
            Outcome::Killed => format!("killed by {}", esc(&m.killed_by.join(", "))),
            Outcome::Timeout => "a test ran past its limit".into(),
            Outcome::Oom => "a test stopped at the memory ceiling".into(),
            Outcome::Survived => format!("ran and passed: {}", esc(&m.ran.join(", "))),
            _ => String::new(),
        };
        out.push_str(&format!(
            "<tr class=\"{}\" id=\"{}\"><td>{}</td><td>{}:{}:{}<br><code>{}</code></td>\
             <td>{}<br><code>{}</code> &rarr; <code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
            m.outcome.as_str(),
            html_escape::encode_double_quoted_attribute(&mu.id),
            m.outcome.as_str(),
            esc(&mu.file),
            mu.line,
            mu.column,
            esc(&mu.id),
            esc(&mu.description),
            esc(&mu.original),
            esc(&mu.replacement),
            tests,
            esc(m.explanation.as_deref().unwrap_or("")),
        ));
    }
    out.push_str("</tbody></table>\n");
    if !r.skipped.is_empty() {
        out.push_str("<h2>skipped</h2><ul>\n");
        for k in &r.skipped {
            out.push_str(&format!(
                "<li><code>{}</code>: {}{}</li>\n",
                esc(&k.mutant.id),
                esc(&k.skipped_by),
                k.reason
                    .as_deref()
                    .map(|r| format!(" ({})", esc(r)))
                    .unwrap_or_default()
            ));
        }
        out.push_str("</ul>\n");
    }
    out.push_str(
        "<script>addEventListener('load',()=>{document.body.dataset.visibleSurvivors=\
         [...document.querySelectorAll('tr.survived')].filter(e=>e.offsetHeight>0&&\
         getComputedStyle(e).visibility!=='hidden').length})</script>\n</body></html>\n",
    );
    out
}
