//! A parser for the Prometheus text exposition format 0.0.4, written here because the
//! `prometheus-parse` crate drops every metric with `:` in its name (all of vLLM's) and the
//! OpenMetrics parser is LGPL. It accepts what prometheus_client writes, including the
//! multiprocess order (`_sum`/`_count` before the buckets), label escapes, NaN/±Inf and
//! optional timestamps, and reports every malformed line, at the column where it goes wrong,
//! instead of stopping at the first. A page of HTML or JSON, or a text whose last line is cut
//! off, is refused as a whole.

use std::collections::HashMap;

use crate::diag::Problem;

mod sample;

use sample::parse_sample;
#[cfg(test)]
pub(crate) use sample::render;

/// One sample line: `name{labels} value [timestamp]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample {
    pub(crate) name: String,
    /// Labels in the order they were written.
    pub(crate) labels: Vec<(String, String)>,
    pub(crate) value: f64,
    pub(crate) timestamp_ms: Option<i64>,
    /// 1-based line in the exposition.
    pub(crate) line: usize,
    /// 1-based column of the value.
    pub(crate) value_column: usize,
}

impl Sample {
    pub(crate) fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A parsed exposition: its samples in order and the `# TYPE` of each metric family.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exposition {
    pub(crate) samples: Vec<Sample>,
    pub(crate) types: HashMap<String, String>,
}

const TYPES: [&str; 5] = ["counter", "gauge", "histogram", "summary", "untyped"];

/// Parse a whole exposition; every malformed line is reported at the column where it goes wrong.
pub(crate) fn parse(text: &str) -> Result<Exposition, Vec<Problem>> {
    if let Some(p) = not_prometheus(text) {
        return Err(vec![p]);
    }
    let mut out = Exposition::default();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let untrimmed = raw.trim_end_matches('\r');
        let l = untrimmed.trim_start();
        let indent = untrimmed.len() - l.len();
        if l.trim().is_empty() {
            continue;
        }
        let result = if let Some(comment) = l.strip_prefix('#') {
            parse_comment(comment, &mut out.types).map_err(|(at, m)| (at + 1, m))
        } else {
            parse_sample(l, line).map(|s| out.samples.push(s))
        };
        if let Err((at, message)) = result {
            let column = untrimmed[..indent + at.min(l.len())].chars().count() + 1;
            errors.push(Problem::new(line, column, message));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A text that is not an exposition at all: HTML or JSON (a wrong path, a proxy's error page),
/// or one whose last line has no line feed (the format requires one: the scrape was cut off).
fn not_prometheus(text: &str) -> Option<Problem> {
    let (i, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())?;
    let t = first.trim_start();
    let column = first.len() - t.len() + 1;
    let what = if t.starts_with('<') {
        Some("HTML")
    } else if t.starts_with('{') || t.starts_with('[') {
        Some("JSON")
    } else {
        None
    };
    if let Some(what) = what {
        return Some(Problem::new(
            i + 1,
            column,
            format!(
                "expected Prometheus text format (`name{{labels}} value`), found {what} starting `{}`: is this the /metrics endpoint?",
                t.chars().take(30).collect::<String>()
            ),
        ));
    }
    if !text.ends_with('\n') {
        let last = text.lines().count();
        let width = text.lines().last().map_or(0, |l| l.chars().count());
        return Some(Problem::new(
            last,
            width + 1,
            "expected a line feed at the end of the exposition: the last line looks cut off mid-way",
        ));
    }
    None
}

/// Byte offset of `sub` (a slice of `l`) in `l`.
pub(super) fn offset(l: &str, sub: &str) -> usize {
    (sub.as_ptr() as usize).saturating_sub(l.as_ptr() as usize)
}

/// A `# TYPE` or `# HELP` line (`comment` is what follows the `#`); an error comes with the
/// byte offset, in `comment`, of the word that is wrong (its end when a word is missing).
fn parse_comment(
    comment: &str,
    types: &mut HashMap<String, String>,
) -> Result<(), (usize, String)> {
    let at = |word: &str| offset(comment, word);
    let end = comment.trim_end().len();
    let mut words = comment.split_whitespace();
    match words.next() {
        Some(keyword @ ("TYPE" | "HELP")) => {
            let name = words
                .next()
                .ok_or_else(|| (end, format!("expected a metric name after `# {keyword}`")))?;
            check_metric_name(name).map_err(|m| (at(name), m))?;
            if keyword == "HELP" {
                return Ok(());
            }
            let kind = words
                .next()
                .ok_or_else(|| (end, "expected a type after `# TYPE name`".to_string()))?;
            if !TYPES.contains(&kind) {
                return Err((
                    at(kind),
                    format!(
                        "expected one of {} after `# TYPE {name}`, found `{kind}`",
                        TYPES.join(", ")
                    ),
                ));
            }
            types.insert(name.to_string(), kind.to_string());
            Ok(())
        }
        // Any other comment is free text.
        _ => Ok(()),
    }
}

pub(super) fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == ':'
}

pub(super) fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit()
}

fn check_metric_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if is_name_start(c) && chars.all(is_name_char) => Ok(()),
        _ => Err(format!(
            "expected a metric name matching [a-zA-Z_:][a-zA-Z0-9_:]*, found `{name}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_names_with_colons_escapes_and_specials() {
        let text = "# HELP vllm:x doc\n# TYPE vllm:x histogram\nvllm:x_bucket{le=\"+Inf\",a=\"q\\\"\\\\\\n\"} +Inf 123\nup NaN\ndown -Inf\n";
        let e = parse(text).unwrap();
        assert_eq!(e.types["vllm:x"], "histogram");
        assert_eq!(e.samples[0].label("a"), Some("q\"\\\n"));
        assert_eq!(e.samples[0].timestamp_ms, Some(123));
        assert!(e.samples[1].value.is_nan());
        assert_eq!(e.samples[2].value, f64::NEG_INFINITY);
    }

    #[test]
    fn reports_every_bad_line_at_its_column() {
        let errs = parse("ok 1\nbad{a=1} 2\nalso bad\n# TYPE x thing\n  up 1 2 3\n").unwrap_err();
        let at: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(at, vec![(2, 7), (3, 6), (4, 10), (5, 10)]);
    }

    #[test]
    fn html_json_and_cut_off_texts_are_refused_whole() {
        for (text, what) in [
            ("<!DOCTYPE html>\n<html>\n", "found HTML"),
            ("  {\"error\": 1}\n", "found JSON"),
            ("up 1\nvllm:x_count 12", "cut off"),
        ] {
            let errs = parse(text).unwrap_err();
            assert_eq!(errs.len(), 1, "{text}");
            assert!(errs[0].message.contains(what), "{}", errs[0].message);
        }
        assert_eq!(parse("up 1\nx 12").unwrap_err()[0].column, 5);
        assert_eq!(parse("  {}\n").unwrap_err()[0].column, 3);
    }

    fn sample_strategy() -> impl Strategy<Value = Sample> {
        let name = "[a-zA-Z_:][a-zA-Z0-9_:]{0,20}";
        let label = ("[a-zA-Z_][a-zA-Z0-9_]{0,10}", "\\PC{0,12}");
        let value = prop_oneof![
            any::<f64>(),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::NAN)
        ];
        (
            name,
            proptest::collection::vec(label, 0..4),
            value,
            proptest::option::of(any::<i64>()),
        )
            .prop_map(|(name, labels, value, timestamp_ms)| {
                let mut seen = std::collections::HashSet::new();
                let labels = labels
                    .into_iter()
                    .filter(|(k, _)| seen.insert(k.clone()))
                    .collect();
                Sample {
                    name,
                    labels,
                    value,
                    timestamp_ms,
                    line: 1,
                    value_column: 1,
                }
            })
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC*") {
            let _ = parse(&text);
        }

        #[test]
        fn never_panics_on_near_misses(text in "[a-z:_{}=\",\\\\ .0-9eE+-]{0,40}") {
            let _ = parse(&text);
        }

        #[test]
        fn round_trips(s in sample_strategy()) {
            let e = parse(&format!("{}\n", render(&s))).unwrap();
            prop_assert_eq!(e.samples.len(), 1);
            let got = &e.samples[0];
            prop_assert_eq!(&got.name, &s.name);
            prop_assert_eq!(&got.labels, &s.labels);
            prop_assert_eq!(got.timestamp_ms, s.timestamp_ms);
            prop_assert!(got.value == s.value || (got.value.is_nan() && s.value.is_nan()));
        }
    }
}
