//! One sample line, `name{labels} value [timestamp]`: its labels with their escapes, its value
//! in Go's ParseFloat spellings, and the byte offset of whatever is wrong in it.

use super::{Sample, is_name_char, is_name_start, offset};

pub(super) fn parse_sample(l: &str, line: usize) -> Result<Sample, (usize, String)> {
    let name_end = l.find(|c: char| !is_name_char(c)).unwrap_or(l.len());
    let name = &l[..name_end];
    if name.is_empty() || !name.starts_with(is_name_start) {
        return Err((
            0,
            format!(
                "expected a metric name at the start of the line, found `{}`",
                first_word(l)
            ),
        ));
    }
    let mut rest = &l[name_end..];
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        rest = parse_labels(after, &mut labels).map_err(|(at, m)| (offset(l, at), m))?;
    }
    if !rest.starts_with([' ', '\t']) {
        return Err((
            offset(l, rest),
            format!("expected a space and a value after `{name}`"),
        ));
    }
    let mut fields = rest.split_whitespace();
    let value_text = fields
        .next()
        .ok_or_else(|| (offset(l, rest), format!("expected a value after `{name}`")))?;
    let value_at = offset(l, value_text);
    let value = parse_value(value_text).ok_or_else(|| {
        (
            value_at,
            format!(
                "expected a number, NaN, +Inf or -Inf as the value of `{name}`, found `{value_text}`"
            ),
        )
    })?;
    let timestamp_ms = match fields.next() {
        None => None,
        Some(t) => Some(t.parse::<i64>().map_err(|_| {
            (
                offset(l, t),
                format!(
                    "expected an integer timestamp in milliseconds after the value, found `{t}`"
                ),
            )
        })?),
    };
    if let Some(extra) = fields.next() {
        return Err((
            offset(l, extra),
            format!("expected the end of the line after the timestamp, found `{extra}`"),
        ));
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
        timestamp_ms,
        line,
        value_column: l[..value_at].chars().count() + 1,
    })
}

/// Parse `name="value",...}` and return what follows the closing brace; an error comes with
/// the slice of the line where it was found.
fn parse_labels<'a>(
    mut rest: &'a str,
    labels: &mut Vec<(String, String)>,
) -> Result<&'a str, (&'a str, String)> {
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
            return Err((
                rest,
                format!(
                    "expected a label name or `}}`, found `{}`",
                    first_word(rest)
                ),
            ));
        }
        rest = rest[end..].trim_start();
        rest = rest
            .strip_prefix('=')
            .ok_or_else(|| (rest, format!("expected `=` after label `{key}`")))?
            .trim_start();
        let open = rest;
        rest = rest.strip_prefix('"').ok_or_else(|| {
            (
                rest,
                format!("expected `\"` to open the value of label `{key}`"),
            )
        })?;
        let (value, after) = parse_label_value(rest)
            .map_err(|e| (open, format!("{e} in the value of label `{key}`")))?;
        if labels.iter().any(|(k, _)| k == key) {
            return Err((
                key,
                format!("expected each label once, found `{key}` twice"),
            ));
        }
        labels.push((key.to_string(), value));
        rest = after.trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return Err((rest, format!("expected `,` or `}}` after label `{key}`")));
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
pub(crate) fn render(s: &Sample) -> String {
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
