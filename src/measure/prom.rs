//! A parser for the Prometheus text exposition format 0.0.4, written here because the
//! `prometheus-parse` crate drops every metric with `:` in its name (all of vLLM's) and the
//! OpenMetrics parser is LGPL. It accepts what prometheus_client writes, including the
//! multiprocess order (`_sum`/`_count` before the buckets), label escapes, NaN/±Inf and
//! optional timestamps, and reports every malformed line instead of stopping at the first.

use std::collections::HashMap;

use crate::diag::Problem;

/// One sample line: `name{labels} value [timestamp]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    /// Labels in the order they were written.
    pub labels: Vec<(String, String)>,
    pub value: f64,
    pub timestamp_ms: Option<i64>,
    /// 1-based line in the exposition.
    pub line: usize,
}

impl Sample {
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A parsed exposition: its samples in order and the `# TYPE` of each metric family.
#[derive(Debug, Clone, Default)]
pub struct Exposition {
    pub samples: Vec<Sample>,
    pub types: HashMap<String, String>,
}

const TYPES: [&str; 5] = ["counter", "gauge", "histogram", "summary", "untyped"];

/// Parse a whole exposition; every malformed line is reported (at column 1: the line is the
/// unit the messages describe).
pub fn parse(text: &str) -> Result<Exposition, Vec<Problem>> {
    let mut out = Exposition::default();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim_end_matches('\r').trim_start();
        if l.trim().is_empty() {
            continue;
        }
        let result = if let Some(comment) = l.strip_prefix('#') {
            parse_comment(comment, &mut out.types)
        } else {
            parse_sample(l, line).map(|s| out.samples.push(s))
        };
        if let Err(message) = result {
            errors.push(Problem::new(line, 1, message));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn parse_comment(comment: &str, types: &mut HashMap<String, String>) -> Result<(), String> {
    let mut words = comment.split_whitespace();
    match words.next() {
        Some("TYPE") => {
            let name = words
                .next()
                .ok_or("expected a metric name after `# TYPE`")?;
            check_metric_name(name)?;
            let kind = words.next().ok_or("expected a type after `# TYPE name`")?;
            if !TYPES.contains(&kind) {
                return Err(format!(
                    "expected one of {} after `# TYPE {name}`, found `{kind}`",
                    TYPES.join(", ")
                ));
            }
            types.insert(name.to_string(), kind.to_string());
            Ok(())
        }
        Some("HELP") => {
            let name = words
                .next()
                .ok_or("expected a metric name after `# HELP`")?;
            check_metric_name(name)
        }
        // Any other comment is free text.
        _ => Ok(()),
    }
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == ':'
}

fn is_name_char(c: char) -> bool {
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

fn parse_sample(l: &str, line: usize) -> Result<Sample, String> {
    let name_end = l.find(|c: char| !is_name_char(c)).unwrap_or(l.len());
    let name = &l[..name_end];
    if name.is_empty() || !name.starts_with(is_name_start) {
        return Err(format!(
            "expected a metric name at the start of the line, found `{}`",
            first_word(l)
        ));
    }
    let mut rest = &l[name_end..];
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        rest = parse_labels(after, &mut labels)?;
    }
    if !rest.starts_with([' ', '\t']) {
        return Err(format!("expected a space and a value after `{name}`"));
    }
    let mut fields = rest.split_whitespace();
    let value_text = fields
        .next()
        .ok_or_else(|| format!("expected a value after `{name}`"))?;
    let value = parse_value(value_text).ok_or_else(|| {
        format!(
            "expected a number, NaN, +Inf or -Inf as the value of `{name}`, found `{value_text}`"
        )
    })?;
    let timestamp_ms = match fields.next() {
        None => None,
        Some(t) => Some(t.parse::<i64>().map_err(|_| {
            format!("expected an integer timestamp in milliseconds after the value, found `{t}`")
        })?),
    };
    if let Some(extra) = fields.next() {
        return Err(format!(
            "expected the end of the line after the timestamp, found `{extra}`"
        ));
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
        timestamp_ms,
        line,
    })
}

/// Parse `name="value",...}` and return what follows the closing brace.
fn parse_labels<'a>(
    mut rest: &'a str,
    labels: &mut Vec<(String, String)>,
) -> Result<&'a str, String> {
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('}') {
            return Ok(after);
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let key = &rest[..end];
        if key.is_empty() || key.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "expected a label name or `}}`, found `{}`",
                first_word(rest)
            ));
        }
        rest = rest[end..].trim_start();
        rest = rest
            .strip_prefix('=')
            .ok_or_else(|| format!("expected `=` after label `{key}`"))?
            .trim_start();
        rest = rest
            .strip_prefix('"')
            .ok_or_else(|| format!("expected `\"` to open the value of label `{key}`"))?;
        let (value, after) =
            parse_label_value(rest).map_err(|e| format!("{e} in the value of label `{key}`"))?;
        if labels.iter().any(|(k, _)| k == key) {
            return Err(format!("expected each label once, found `{key}` twice"));
        }
        labels.push((key.to_string(), value));
        rest = after.trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return Err(format!("expected `,` or `}}` after label `{key}`"));
        }
    }
}

/// Unescape a label value up to its closing quote; `\\`, `\"` and `\n` are the only escapes.
fn parse_label_value(s: &str) -> Result<(String, &str), String> {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, &s[i + 1..])),
            '\\' => match chars.next() {
                Some((_, '\\')) => value.push('\\'),
                Some((_, '"')) => value.push('"'),
                Some((_, 'n')) => value.push('\n'),
                Some((_, other)) => {
                    return Err(format!(
                        "expected `\\\\`, `\\\"` or `\\n`, found `\\{other}`"
                    ));
                }
                None => break,
            },
            _ => value.push(c),
        }
    }
    Err("expected a closing `\"`".to_string())
}

/// Go's ParseFloat spellings: decimal or exponent notation, NaN, ±Inf (any case).
fn parse_value(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" || lower == "nan" {
        return s.parse().ok();
    }
    if body.is_empty()
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    s.parse().ok()
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or("")
}

/// Render a sample as an exposition line (used by tests and by the round-trip property).
#[cfg(test)]
pub fn render(s: &Sample) -> String {
    let mut out = s.name.clone();
    if !s.labels.is_empty() {
        let labels: Vec<String> = s
            .labels
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k}=\"{}\"",
                    v.replace('\\', "\\\\")
                        .replace('"', "\\\"")
                        .replace('\n', "\\n")
                )
            })
            .collect();
        out.push_str(&format!("{{{}}}", labels.join(",")));
    }
    let value = if s.value.is_nan() {
        "NaN".to_string()
    } else if s.value.is_infinite() {
        if s.value > 0.0 {
            "+Inf".to_string()
        } else {
            "-Inf".to_string()
        }
    } else {
        format!("{:?}", s.value)
    };
    out.push(' ');
    out.push_str(&value);
    if let Some(t) = s.timestamp_ms {
        out.push_str(&format!(" {t}"));
    }
    out
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
    fn reports_every_bad_line() {
        let errs = parse("ok 1\nbad{a=1} 2\nalso bad\n# TYPE x thing\n").unwrap_err();
        let lines: Vec<usize> = errs.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 3, 4]);
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
            let e = parse(&render(&s)).unwrap();
            prop_assert_eq!(e.samples.len(), 1);
            let got = &e.samples[0];
            prop_assert_eq!(&got.name, &s.name);
            prop_assert_eq!(&got.labels, &s.labels);
            prop_assert_eq!(got.timestamp_ms, s.timestamp_ms);
            prop_assert!(got.value == s.value || (got.value.is_nan() && s.value.is_nan()));
        }
    }
}
