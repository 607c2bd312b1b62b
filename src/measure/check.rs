//! Evidence that cannot be right is refused, located, before any number is computed: an empty
//! scrape, a series given twice, a counter or histogram value that is NaN, negative or
//! infinite, buckets that are not cumulative, a histogram without its `+Inf` bucket; and two
//! scrapes that are out of order or come from different server lives.

use std::collections::{BTreeMap, HashMap};

use super::prom::{Exposition, Sample};
use super::window::series_key;
use crate::diag::Problem;

/// The sample suffixes that count something: they only grow within one server life.
const CUMULATIVE: [&str; 4] = ["_total", "_count", "_bucket", "_sum"];

fn cumulative(s: &Sample) -> bool {
    CUMULATIVE.iter().any(|x| s.name.ends_with(x))
}

/// `name{a="b"}` as the user wrote it, for messages.
fn shown(s: &Sample, skip: &str) -> String {
    let labels: Vec<String> = s
        .labels
        .iter()
        .filter(|(k, _)| k != skip)
        .map(|(k, v)| format!("{k}=\"{v}\""))
        .collect();
    if labels.is_empty() {
        s.name.clone()
    } else {
        format!("{}{{{}}}", s.name, labels.join(","))
    }
}

/// Every problem of one scrape.
pub(crate) fn exposition(e: &Exposition) -> Vec<Problem> {
    if e.samples.is_empty() {
        return vec![Problem::new(
            1,
            1,
            "expected Prometheus samples, found none: the scrape is empty (an empty file or HTTP body is not a server at zero)",
        )];
    }
    let mut problems = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for s in &e.samples {
        if let Some(first) = seen.insert(series_key(s, ""), s.line) {
            problems.push(Problem::new(
                s.line,
                1,
                format!(
                    "expected each series once, found `{}` again (first at line {first})",
                    shown(s, "")
                ),
            ));
        }
        let bad = if cumulative(s) {
            !(s.value.is_finite() && s.value >= 0.0)
        } else {
            s.value.is_infinite()
        };
        if bad {
            problems.push(Problem::new(
                s.line,
                s.value_column,
                format!(
                    "expected a finite{} value for `{}`, found {}",
                    if cumulative(s) { ", non-negative" } else { "" },
                    s.name,
                    s.value
                ),
            ));
        }
    }
    problems.extend(buckets(e));
    problems.sort_by_key(|p| (p.line, p.column));
    problems
}

/// Each histogram series' buckets must be cumulative and end in `le="+Inf"`.
fn buckets(e: &Exposition) -> Vec<Problem> {
    let mut series: BTreeMap<String, Vec<(f64, &Sample)>> = BTreeMap::new();
    let mut problems = Vec::new();
    for s in e.samples.iter().filter(|s| s.name.ends_with("_bucket")) {
        match s.label("le").map(|v| v.parse::<f64>()) {
            Some(Ok(le)) if !le.is_nan() => {
                series.entry(series_key(s, "le")).or_default().push((le, s))
            }
            _ => problems.push(Problem::new(
                s.line,
                1,
                format!(
                    "expected a numeric `le` label on the bucket `{}`",
                    shown(s, "")
                ),
            )),
        }
    }
    for list in series.values_mut() {
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in list.windows(2) {
            let ((lo, a), (hi, b)) = (pair[0], pair[1]);
            if b.value < a.value {
                problems.push(Problem::new(
                    b.line,
                    b.value_column,
                    format!(
                        "expected cumulative buckets: `le=\"{hi}\"` counts {}, fewer than {} at `le=\"{lo}\"` (line {})",
                        b.value, a.value, a.line
                    ),
                ));
            }
        }
        if let Some(&(le, last)) = list.last()
            && le != f64::INFINITY
        {
            problems.push(Problem::new(
                last.line,
                1,
                format!(
                    "expected a `le=\"+Inf\"` bucket for `{}`: its buckets end at `le=\"{le}\"`, so it has no total and gives no quantiles",
                    shown(last, "le")
                ),
            ));
        }
    }
    problems
}

/// Two scrapes of one window: problems (located in `after`) and warnings.
pub(crate) fn window(before: &Exposition, after: &Exposition) -> (Vec<Problem>, Vec<String>) {
    let start = |e: &Exposition| {
        e.samples
            .iter()
            .find(|s| s.name == "process_start_time_seconds")
            .map(|s| (s.value, s.line, s.value_column))
    };
    let (b_start, a_start) = (start(before), start(after));
    if let (Some((b, b_line, _)), Some((a, line, column))) = (b_start, a_start)
        && a != b
    {
        return (
            vec![Problem::new(
                line,
                column,
                format!(
                    "expected both scrapes from one server life: process_start_time_seconds is {a} here and {b} in the first scrape (line {b_line}): the server restarted between them, so no window can be read"
                ),
            )],
            Vec::new(),
        );
    }
    // One scrape with a start time and one without: another process (a restarted server whose
    // exporter is not up yet, another server behind the address) answered one of them.
    let mut warnings = Vec::new();
    match (b_start, a_start) {
        (Some((b, b_line, _)), None) => warnings.push(format!(
            "the second scrape has no process_start_time_seconds, which the first had ({b} at line {b_line}): the server may have restarted between them, so the window may mix two server lives"
        )),
        (None, Some((a, a_line, _))) => warnings.push(format!(
            "the first scrape has no process_start_time_seconds, which the second has ({a} at line {a_line}): the server may have restarted between them, so the window may mix two server lives"
        )),
        _ => {}
    }
    let latest = |e: &Exposition| e.samples.iter().filter_map(|s| s.timestamp_ms).max();
    if let (Some(b), Some(a)) = (latest(before), latest(after))
        && a < b
    {
        let s = after.samples.iter().find(|s| s.timestamp_ms == Some(a));
        return (
            vec![Problem::new(
                s.map_or(1, |s| s.line),
                1,
                format!(
                    "expected the first scrape to be the earlier one: its samples are timestamped up to {b} ms, this one's up to {a} ms"
                ),
            )],
            warnings,
        );
    }
    let earlier: HashMap<String, &Sample> = before
        .samples
        .iter()
        .filter(|s| cumulative(s))
        .map(|s| (series_key(s, ""), s))
        .collect();
    let went_down: Vec<(&Sample, &Sample)> = after
        .samples
        .iter()
        .filter(|s| cumulative(s))
        .filter_map(|a| earlier.get(&series_key(a, "")).map(|b| (*b, a)))
        .filter(|(b, a)| a.value < b.value)
        .collect();
    let Some((b, a)) = went_down.first() else {
        return (Vec::new(), warnings);
    };
    let what = format!(
        "`{}` went from {} (first scrape, line {}) to {}{}",
        shown(a, ""),
        b.value,
        b.line,
        a.value,
        match went_down.len() {
            1 => String::new(),
            n => format!(", and {} more series went down", n - 1),
        }
    );
    if b_start.is_some() && a_start.is_some() {
        (
            vec![Problem::new(
                a.line,
                a.value_column,
                format!(
                    "expected counters to grow from the first scrape to the second: {what} within one server life (same process_start_time_seconds): the scrapes are out of order; pass the earlier one as --scrape-before"
                ),
            )],
            Vec::new(),
        )
    } else {
        (
            Vec::new(),
            warnings
                .into_iter()
                .chain([format!(
                    "{what}: read as a counter reset (a server restart, as PromQL's increase does); the scrapes do not both carry process_start_time_seconds to tell a restart from swapped scrapes, so check their order"
                )])
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expo(text: &str) -> Exposition {
        super::super::prom::parse(text).unwrap()
    }

    fn messages(text: &str) -> Vec<String> {
        exposition(&expo(text))
            .into_iter()
            .map(|p| format!("{}:{} {}", p.line, p.column, p.message))
            .collect()
    }

    #[test]
    fn impossible_scrapes_are_located() {
        assert!(messages("# only comments\n")[0].starts_with("1:1 expected Prometheus samples"));
        let m = messages("a_total 1\na_total 2\nb_total NaN\nc_count -1\nd +Inf\n");
        assert!(m[0].starts_with("2:1 expected each series once"), "{m:?}");
        assert!(
            m[1].starts_with("3:9 expected a finite, non-negative value for `b_total`, found NaN"),
            "{m:?}"
        );
        assert!(m[2].starts_with("4:9 "), "{m:?}");
        assert!(
            m[3].starts_with("5:3 expected a finite value for `d`"),
            "{m:?}"
        );
        let m = messages(
            "h_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 3\nh_bucket{le=\"+Inf\"} 6\ng_bucket{le=\"1\"} 1\n",
        );
        assert!(
            m[0].starts_with("2:18 expected cumulative buckets"),
            "{m:?}"
        );
        assert!(
            m[1].contains("expected a `le=\"+Inf\"` bucket for `g_bucket`"),
            "{m:?}"
        );
    }

    #[test]
    fn scrapes_out_of_order_or_from_two_lives() {
        let life = |start: &str, n: &str| {
            expo(&format!(
                "process_start_time_seconds {start}\nx_total {n}\n"
            ))
        };
        let (p, _) = window(&life("100", "5"), &life("200", "7"));
        assert!(p[0].message.contains("one server life"), "{p:?}");
        let (p, _) = window(&life("100", "9"), &life("100", "7"));
        assert!(p[0].message.contains("out of order"), "{p:?}");
        assert_eq!((p[0].line, p[0].column), (2, 9));
        let (p, w) = window(&expo("x_total 9\n"), &expo("x_total 7\n"));
        assert!(p.is_empty() && w[0].contains("counter reset"), "{w:?}");
        let (p, _) = window(&expo("x_total 1 2000\n"), &expo("x_total 2 1000\n"));
        assert!(p[0].message.contains("earlier one"), "{p:?}");
    }
}
