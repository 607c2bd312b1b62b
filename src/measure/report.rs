//! Rendering a [`Measurement`]: an aligned human report (colour only on a terminal, or as
//! `--color` says) or JSON, as text; `measure::run` prints it.

use std::path::Path;

use serde_json::{Value, json};

use super::model::{Breakdown, Measurement};
use crate::diag::{InputError, InputErrors};

/// The report as JSON or as human text (coloured when `colour`), ending in a newline.
pub(crate) fn render(m: &Measurement, written: Option<&Path>, json: bool, colour: bool) -> String {
    if json {
        let mut v = serde_json::to_value(m).unwrap_or_default();
        if let (Some(obj), Some(p)) = (v.as_object_mut(), written) {
            obj.insert("written".into(), p.display().to_string().into());
        }
        format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
    } else {
        human(m, written, colour)
    }
}

/// An error as the JSON object `--format json` prints on stdout: the message, and every
/// located problem with its file, line, column and what was expected.
pub(crate) fn error_json(e: &anyhow::Error) -> String {
    let located = |f: &InputError| -> Vec<Value> {
        f.problems
            .iter()
            .map(|p| {
                json!({
                    "file": f.file,
                    "line": p.line,
                    "column": p.column,
                    "expected": p.message.strip_prefix("expected ").unwrap_or(&p.message),
                    "message": p.message,
                })
            })
            .collect()
    };
    let (problems, unlocated): (Vec<Value>, Vec<String>) =
        if let Some(all) = e.downcast_ref::<InputErrors>() {
            (
                all.files.iter().flat_map(located).collect(),
                all.unlocated.clone(),
            )
        } else if let Some(one) = e.downcast_ref::<InputError>() {
            (located(one), Vec::new())
        } else {
            (Vec::new(), vec![format!("{e:#}")])
        };
    let v = json!({
        "error": {
            "message": format!("{e:#}"),
            "problems": problems,
            "unlocated": unlocated,
        }
    });
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}

struct Style(bool);

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn warn(&self, s: &str) -> String {
        self.paint("33", s)
    }
}

/// Thousands separators for token counts.
fn n(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), n)
}

/// A capacity that rests on an assumed default says so.
fn assumed(v: Option<u64>, assumed: bool) -> String {
    if assumed {
        format!("{} (assumed)", opt(v))
    } else {
        opt(v)
    }
}

/// Rows of cells, the first column left-aligned and the rest right-aligned.
fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if i == 0 {
                    format!("{s:<w$}", w = widths[i])
                } else {
                    format!("{s:>w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
    }
    out
}

/// The breakdown as a 50-character bar: `q` queue, `p` prefill, `d` decode.
fn bar(b: &Breakdown) -> String {
    const WIDTH: f64 = 50.0;
    let q = (b.queue_share * WIDTH).round() as usize;
    let p = (b.prefill_share * WIDTH).round() as usize;
    let d = (WIDTH as usize).saturating_sub(q + p);
    format!("[{}{}{}]", "q".repeat(q), "p".repeat(p), "d".repeat(d))
}

/// Each box's window from Prometheus, one row per instance.
fn windows(m: &Measurement, st: &Style) -> String {
    let mut out = st.bold("\nPer box, over the window (Prometheus)\n");
    let secs = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    let q =
        |w: &super::model::BoxWindow, h: &str, get: fn(&super::model::Quantiles) -> Option<f64>| {
            w.histograms.get(h).and_then(get)
        };
    let mut rows = vec![
        [
            "box",
            "instance",
            "requests",
            "queue p50",
            "queue p90",
            "e2e p50",
            "e2e p90",
            "e2e p99",
            "prompt p90",
            "KV peak",
            "waiting peak",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for w in &m.windows {
        rows.push(vec![
            w.name.clone(),
            w.instance.clone(),
            w.requests.map_or_else(|| "-".into(), |r| format!("{r:.0}")),
            secs(q(w, "queue", |q| q.p50)),
            secs(q(w, "queue", |q| q.p90)),
            secs(q(w, "e2e", |q| q.p50)),
            secs(q(w, "e2e", |q| q.p90)),
            secs(q(w, "e2e", |q| q.p99)),
            q(w, "prompt", |q| q.p90).map_or_else(|| "-".into(), |p| format!("{p:.0}")),
            w.kv_usage_peak
                .map_or_else(|| "-".into(), |k| format!("{:.1}%", k * 100.0)),
            w.waiting_peak
                .map_or_else(|| "-".into(), |p| format!("{p}")),
        ]);
    }
    out.push_str(&table(&rows));
    out
}

pub(crate) fn human(m: &Measurement, written: Option<&Path>, colour: bool) -> String {
    let st = Style(colour);
    let mut out = String::new();
    if !m.boxes.is_empty() {
        out.push_str(
            &st.bold("Capacity: per engine min(floor(KV tokens / p90 prompt), max_num_seqs)\n"),
        );
        let mut rows = vec![
            [
                "box",
                "server",
                "engines",
                "KV tokens",
                "max_num_seqs",
                "max_model_len",
                "capacity",
                "floor",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for b in &m.boxes {
            let mut seqs = match (b.max_num_seqs, b.max_num_seqs_measured) {
                (Some(s), false) => format!("{} (default)", n(s)),
                (s, _) => opt(s),
            };
            if let Some(c) = b.max_concurrent_requests {
                seqs.push_str(&format!(", router admits {}", n(c)));
            }
            rows.push(vec![
                b.name.clone(),
                format!("{:?}", b.server).to_lowercase(),
                b.engines.to_string(),
                opt(b.kv_cache_tokens),
                seqs,
                opt(b.max_model_len),
                if b.started {
                    assumed(b.capacity, b.capacity_assumed)
                } else {
                    "did not start".to_string()
                },
                opt(b.pessimistic_floor),
            ]);
        }
        rows.push(vec![
            "fleet".into(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            assumed(m.fleet_capacity, m.fleet_capacity_assumed),
            opt(m.fleet_pessimistic_floor),
        ]);
        out.push_str(&table(&rows));
    }
    if let Some(p) = m.p90_prompt_tokens {
        let bound = if m.p90_prompt_is_lower_bound {
            " (a lower bound: the rank fell in the +Inf bucket)"
        } else {
            ""
        };
        let estimate = if m.p90_prompt_is_estimate {
            " (an estimate: the mean prompt, no prompt histogram)"
        } else {
            ""
        };
        out.push_str(&format!(
            "p90 prompt: {} tokens{bound}{estimate}\n",
            n(p.round() as u64)
        ));
    }
    if m.per_box_capacity.is_some() {
        let of = |without: &[String]| match without.len() {
            0 => String::new(),
            n => format!(" ({} of {} boxes)", m.boxes.len() - n, m.boxes.len()),
        };
        let named = |b: &Option<String>| {
            b.as_ref()
                .filter(|_| m.boxes.len() > 1)
                .map_or_else(String::new, |b| format!(" (`{b}`)"))
        };
        out.push_str(&format!(
            "per box {}{}, fleet {}{}, pessimistic floor (requests of max_model_len at once) {} per box{}{}\n",
            assumed(m.per_box_capacity, m.per_box_capacity_assumed),
            named(&m.per_box_capacity_box),
            assumed(m.fleet_capacity, m.fleet_capacity_assumed),
            of(&m.boxes_without_capacity),
            opt(m.pessimistic_floor),
            named(&m.pessimistic_floor_box),
            of(&m.boxes_without_floor),
        ));
    }
    if !m.failed_boxes.is_empty() {
        out.push_str(&format!(
            "did not start: {}\n",
            m.failed_boxes
                .iter()
                .map(|b| format!("`{b}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(b) = &m.breakdown {
        let over = match (m.requests, m.window_s) {
            (Some(r), Some(w)) => format!(" over {r} requests in {w} s"),
            (Some(r), None) => format!(" over {r} requests"),
            _ => String::new(),
        };
        out.push_str(&st.bold(&format!("\nLatency breakdown of means{over}\n")));
        let row = |name: &str, s: f64, share: Option<f64>| {
            vec![
                name.to_string(),
                format!("{s:.3} s"),
                share.map_or_else(String::new, |x| format!("{:.2}%", x * 100.0)),
            ]
        };
        let mut rows = vec![
            row("queue", b.queue_s, Some(b.queue_share)),
            row("prefill", b.prefill_s, Some(b.prefill_share)),
            row("decode", b.decode_s, Some(b.decode_share)),
        ];
        if let (Some(e), Some(u)) = (b.e2e_s, b.unattributed_s) {
            rows.push(row("end to end", e, None));
            rows.push(row("unattributed", u, None));
        }
        out.push_str(&table(&rows));
        out.push_str(&format!("  {}  q queue, p prefill, d decode\n", bar(b)));
    }
    if let (Some(p50), Some(p90)) = (m.queue_p50_s, m.queue_p90_s) {
        out.push_str(&format!("queue time p50 {p50:.3} s, p90 {p90:.3} s\n"));
    }
    if !m.windows.is_empty() {
        out.push_str(&windows(m, &st));
    }
    let mut facts = Vec::new();
    if let Some(k) = m.kv_usage_peak {
        facts.push(format!(
            "KV usage peak {:.1}% ({})",
            k * 100.0,
            if m.kv_usage_peak_is_true {
                "every sample in the window"
            } else {
                "two-point sample"
            }
        ));
    }
    if let Some(w) = m.waiting_peak {
        facts.push(format!("waiting queue peak {w}"));
    }
    if let Some(p) = m.preemptions {
        facts.push(format!("preemptions {p}"));
    }
    if let Some(h) = m.prefix_cache_hit_rate {
        facts.push(format!("prefix-cache hit rate {:.1}%", h * 100.0));
    }
    if !facts.is_empty() {
        out.push_str(&format!("{}\n", facts.join(", ")));
    }
    if let Some(r) = &m.roster {
        let waves = match (r.waves, r.cap_never_reached) {
            (_, true) => "the fleet holds it in one wave".to_string(),
            (Some(w), false) => {
                format!("waves = ceil({} / {}) = {w}", r.size, opt(m.fleet_capacity))
            }
            (None, false) => "no fleet capacity to divide by".to_string(),
        };
        out.push_str(&format!(
            "roster {}: {waves}; a cap below {} throttles a full burst, a cap at or above it is never reached\n",
            r.size, r.size
        ));
    }
    for w in &m.what_if {
        out.push_str(&format!(
            "what if {} shrinks by {:.0}%: end to end gains at most {:.1}% ({:.3} s)\n",
            format!("{:?}", w.phase).to_lowercase(),
            w.fraction_removed * 100.0,
            w.max_e2e_gain * 100.0,
            w.max_e2e_gain_s
        ));
    }
    if !m.warnings.is_empty() {
        out.push('\n');
        for w in &m.warnings {
            out.push_str(&format!("{} {w}\n", st.warn("warning:")));
        }
    }
    if let Some(p) = written {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("wrote {}\n", p.display()));
    }
    if let Some(b) = &m.bindings {
        out.push_str(&bindings(b));
    }
    out
}

/// Which `[[capacity]]` entries `--write` bound, and which unmeasured ones it could not.
fn bindings(b: &crate::manifest::bind::Outcome) -> String {
    let mut out = String::new();
    for x in &b.bound {
        let value = x
            .value
            .filter(|v| v.to_string() != x.expr)
            .map_or_else(String::new, |v| format!(" = {v}"));
        let was = x.was.map_or_else(String::new, |v| format!(" (was {v})"));
        out.push_str(&format!(
            "bound `{}` to {}{value}{was}: {}\n",
            x.site, x.expr, x.how
        ));
    }
    for x in &b.unbound {
        out.push_str(&format!(
            "not bound `{}`: {}; bind it with --bind {}=EXPR\n",
            x.site, x.reason, x.site
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_returns_the_text_in_the_asked_format() {
        let m = Measurement {
            warnings: vec!["only one scrape".into()],
            ..Measurement::default()
        };
        let written = Some(Path::new("capacity.toml"));
        let json = render(&m, written, true, false);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["written"], "capacity.toml");
        assert!(json.ends_with('\n'));
        let plain = render(&m, written, false, false);
        assert!(plain.contains("warning: only one scrape\n"), "{plain}");
        assert!(plain.ends_with("wrote capacity.toml\n"), "{plain}");
        let coloured = render(&m, None, false, true);
        assert!(coloured.contains("\x1b[33mwarning:"), "{coloured}");
    }
}
