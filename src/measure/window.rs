//! What happened between two scrapes: per-series deltas with counter resets, histograms summed
//! over their label sets per `le` (PromQL's `sum by (le)`), and Prometheus' `histogram_quantile`.

use std::collections::BTreeMap;

use super::prom::{Exposition, Sample};

/// Two scrapes of one endpoint. A missing `before` means "since the server started".
pub(crate) struct Window<'a> {
    pub(crate) before: Option<&'a Exposition>,
    pub(crate) after: &'a Exposition,
}

/// A series' identity: its name and its labels, sorted, without `le` when asked.
pub(super) fn series_key(s: &Sample, skip: &str) -> String {
    let mut labels: Vec<&(String, String)> = s.labels.iter().filter(|(k, _)| k != skip).collect();
    labels.sort();
    let mut key = s.name.clone();
    for (k, v) in labels {
        key.push_str(&format!("\u{1}{k}\u{2}{v}"));
    }
    key
}

/// The increase of a counter between two readings: a value that went down was reset, so the
/// whole `after` value counts as the increase (as PromQL's `increase` does).
pub(crate) fn counter_delta(before: Option<f64>, after: f64) -> f64 {
    match before {
        Some(b) if after >= b => after - b,
        _ => after,
    }
}

impl<'a> Window<'a> {
    fn before_values(&self, name: &str) -> BTreeMap<String, f64> {
        self.before
            .map(|e| {
                e.samples
                    .iter()
                    .filter(|s| s.name == name)
                    .map(|s| (series_key(s, ""), s.value))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The increase of a counter over the window, summed over its series, with the lines read.
    pub(crate) fn counter(&self, name: &str) -> Option<(f64, Vec<usize>)> {
        let before = self.before_values(name);
        let mut total = None;
        let mut lines = Vec::new();
        for s in self.after.samples.iter().filter(|s| s.name == name) {
            let d = counter_delta(before.get(&series_key(s, "")).copied(), s.value);
            *total.get_or_insert(0.0) += d;
            lines.push(s.line);
        }
        total.map(|t| (t, lines))
    }

    /// Whether a series of counter `name` went down between the scrapes (a reset: the server
    /// restarted, and the window's increase is not the counter's).
    pub(crate) fn reset(&self, name: &str) -> bool {
        let before = self.before_values(name);
        self.after
            .samples
            .iter()
            .filter(|s| s.name == name)
            .any(|s| before.get(&series_key(s, "")).is_some_and(|&b| s.value < b))
    }

    /// The largest value of a gauge across both scrapes and all its series.
    pub(crate) fn gauge_max(&self, name: &str) -> Option<(f64, usize)> {
        let scrapes = self.before.into_iter().chain(std::iter::once(self.after));
        scrapes
            .flat_map(|e| {
                e.samples
                    .iter()
                    .filter(|s| s.name == name && !s.value.is_nan())
            })
            .map(|s| (s.value, s.line))
            .fold(None, |best: Option<(f64, usize)>, cur| match best {
                Some(b) if b.0 >= cur.0 => Some(b),
                _ => Some(cur),
            })
    }

    /// A histogram's window: bucket deltas summed by `le`, and the `_sum`/`_count` deltas.
    pub(crate) fn histogram(&self, name: &str) -> Option<Histogram> {
        let bucket_name = format!("{name}_bucket");
        let before: BTreeMap<String, f64> = self
            .before
            .map(|e| {
                e.samples
                    .iter()
                    .filter(|s| s.name == bucket_name)
                    .map(|s| (series_key(s, ""), s.value))
                    .collect()
            })
            .unwrap_or_default();
        let mut by_le: Vec<(f64, f64)> = Vec::new();
        let mut lines = Vec::new();
        for s in self.after.samples.iter().filter(|s| s.name == bucket_name) {
            let Some(le) = s.label("le").and_then(|v| v.parse::<f64>().ok()) else {
                continue;
            };
            let d = counter_delta(before.get(&series_key(s, "")).copied(), s.value);
            match by_le.iter_mut().find(|(u, _)| *u == le) {
                Some(b) => b.1 += d,
                None => by_le.push((le, d)),
            }
            lines.push(s.line);
        }
        let sum = self.counter(&format!("{name}_sum"));
        let count = self.counter(&format!("{name}_count"));
        if by_le.is_empty() && sum.is_none() && count.is_none() {
            return None;
        }
        if let Some((_, l)) = &count {
            lines.extend(l);
        }
        lines.sort_unstable();
        Some(Histogram {
            buckets: by_le,
            sum: sum.map(|s| s.0),
            count: count.map(|c| c.0),
            lines,
        })
    }
}

/// Seconds between the two scrapes, from the samples' own timestamps when both carry them.
pub(crate) fn timestamp_span(before: &Exposition, after: &Exposition) -> Option<f64> {
    let latest = |e: &Exposition| e.samples.iter().filter_map(|s| s.timestamp_ms).max();
    let span = latest(after)?.checked_sub(latest(before)?)?;
    (span > 0).then(|| span as f64 / 1000.0)
}

/// A histogram over the window.
#[derive(Debug, Clone)]
pub(crate) struct Histogram {
    /// (upper bound, cumulative count), unsorted.
    pub(crate) buckets: Vec<(f64, f64)>,
    pub(crate) sum: Option<f64>,
    pub(crate) count: Option<f64>,
    /// Lines of the `after` scrape that were read.
    pub(crate) lines: Vec<usize>,
}

/// A quantile estimate; `lower_bound` when the rank fell in the `+Inf` bucket and Prometheus
/// answered with the highest finite bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Quantile {
    pub(crate) value: f64,
    pub(crate) lower_bound: bool,
}

impl Histogram {
    pub(crate) fn mean(&self) -> Option<f64> {
        match (self.sum, self.count) {
            (Some(s), Some(c)) if c > 0.0 => Some(s / c),
            _ => None,
        }
    }

    /// Observations in the window: `_count`, or the `+Inf` bucket.
    pub(crate) fn observations(&self) -> Option<f64> {
        self.count.or_else(|| {
            self.buckets
                .iter()
                .find(|(u, _)| *u == f64::INFINITY)
                .map(|b| b.1)
        })
    }

    pub(crate) fn quantile(&self, q: f64) -> Option<Quantile> {
        let r = histogram_quantile(q, &self.buckets);
        (!r.value.is_nan()).then_some(r)
    }
}

/// Prometheus' `histogram_quantile` (promql/quantile.go `BucketQuantile`), step for step.
pub(crate) fn histogram_quantile(q: f64, buckets: &[(f64, f64)]) -> Quantile {
    let plain = |value| Quantile {
        value,
        lower_bound: false,
    };
    if q.is_nan() {
        return plain(f64::NAN);
    }
    if q < 0.0 {
        return plain(f64::NEG_INFINITY);
    }
    if q > 1.0 {
        return plain(f64::INFINITY);
    }
    let mut b: Vec<(f64, f64)> = buckets
        .iter()
        .copied()
        .filter(|(u, _)| !u.is_nan())
        .collect();
    b.sort_by(|x, y| x.0.total_cmp(&y.0));
    if b.last().is_none_or(|l| l.0 != f64::INFINITY) {
        return plain(f64::NAN);
    }
    // coalesceBuckets: equal bounds add up.
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(b.len());
    for (u, c) in b {
        match merged.last_mut() {
            Some(last) if last.0 == u => last.1 += c,
            _ => merged.push((u, c)),
        }
    }
    // ensureMonotonic: a cumulative count never decreases.
    let mut max = f64::NEG_INFINITY;
    for bucket in &mut merged {
        if bucket.1 > max {
            max = bucket.1;
        } else {
            bucket.1 = max;
        }
    }
    if merged.len() < 2 {
        return plain(f64::NAN);
    }
    let n = merged.len();
    let observations = merged[n - 1].1;
    if observations == 0.0 || observations.is_nan() {
        return plain(f64::NAN);
    }
    let mut rank = q * observations;
    let i = merged.partition_point(|(_, c)| *c < rank);
    if i == n - 1 {
        return Quantile {
            value: merged[n - 2].0,
            lower_bound: true,
        };
    }
    if i == 0 && merged[0].0 <= 0.0 {
        return plain(merged[0].0);
    }
    let (mut start, end, mut count) = (0.0, merged[i].0, merged[i].1);
    if i > 0 {
        start = merged[i - 1].0;
        count -= merged[i - 1].1;
        rank -= merged[i - 1].1;
    }
    plain(start + (end - start) * (rank / count))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: f64 = f64::INFINITY;

    #[test]
    fn interpolates_within_a_bucket_from_zero() {
        let q = histogram_quantile(0.5, &[(INF, 10.0), (1.0, 4.0), (2.0, 10.0)]);
        assert_eq!(
            q,
            Quantile {
                value: 1.0 + 1.0 * (1.0 / 6.0),
                lower_bound: false
            }
        );
        assert_eq!(
            histogram_quantile(0.2, &[(1.0, 4.0), (INF, 4.0)]).value,
            0.2
        );
    }

    #[test]
    fn rank_in_inf_bucket_returns_second_highest_bound_as_lower_bound() {
        let q = histogram_quantile(0.9, &[(10.0, 5.0), (100.0, 8.0), (INF, 10.0)]);
        assert_eq!(
            q,
            Quantile {
                value: 100.0,
                lower_bound: true
            }
        );
    }

    #[test]
    fn degenerate_histograms_give_nan() {
        assert!(histogram_quantile(0.5, &[(1.0, 3.0)]).value.is_nan());
        assert!(
            histogram_quantile(0.5, &[(1.0, 0.0), (INF, 0.0)])
                .value
                .is_nan()
        );
        assert!(histogram_quantile(0.5, &[]).value.is_nan());
        assert_eq!(histogram_quantile(-0.1, &[]).value, f64::NEG_INFINITY);
    }

    #[test]
    fn the_window_from_sample_timestamps() {
        let at = |t: &str| super::super::prom::parse(&format!("up 1 {t}\n")).unwrap();
        assert_eq!(timestamp_span(&at("1000"), &at("901000")), Some(900.0));
        assert_eq!(timestamp_span(&at("5000"), &at("1000")), None);
        let untimed = super::super::prom::parse("up 1\n").unwrap();
        assert_eq!(timestamp_span(&untimed, &at("1000")), None);
    }

    #[test]
    fn a_counter_that_went_down_was_reset() {
        assert_eq!(counter_delta(Some(10.0), 3.0), 3.0);
        assert_eq!(counter_delta(Some(10.0), 13.0), 3.0);
        assert_eq!(counter_delta(None, 13.0), 13.0);
    }
}
