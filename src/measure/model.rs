//! The data `measure` produces: a [`Measurement`] and its parts, plus the options that shape
//! it. Findings are data: only `report` renders them and only `write` stores them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::logs::{BlockSizeSource, LimitSource, ServerKind};

/// A latency phase a what-if can shorten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Phase {
    Queue,
    Prefill,
    Decode,
}

/// `--what-if PHASE=-N%`: remove N% of a phase. The minus sign is required: `+50%` or `50%`
/// would read as growth or be ambiguous, never as a cut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WhatIf {
    pub(crate) phase: Phase,
    pub(crate) fraction: f64,
}

impl std::str::FromStr for WhatIf {
    type Err = String;
    fn from_str(s: &str) -> Result<WhatIf, String> {
        let expected = || {
            format!(
                "expected PHASE=-N% (a cut, with its minus sign) with PHASE one of queue, prefill, decode and 0 < N <= 100, found `{s}`"
            )
        };
        let (phase, amount) = s.split_once('=').ok_or_else(expected)?;
        let phase = match phase.trim() {
            "queue" => Phase::Queue,
            "prefill" => Phase::Prefill,
            "decode" => Phase::Decode,
            _ => return Err(expected()),
        };
        let number = amount
            .trim()
            .strip_prefix('-')
            .and_then(|n| n.strip_suffix('%'))
            .ok_or_else(expected)?;
        let percent: f64 = number.parse().map_err(|_| expected())?;
        if !(percent > 0.0 && percent <= 100.0) {
            return Err(expected());
        }
        Ok(WhatIf {
            phase,
            fraction: percent / 100.0,
        })
    }
}

/// What the user told `measure` about the arithmetic, besides the evidence.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    pub(crate) roster: Option<u64>,
    pub(crate) what_if: Vec<WhatIf>,
    pub(crate) p90_prompt_tokens: Option<f64>,
    pub(crate) window_s: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoxReport {
    pub(crate) name: String,
    pub(crate) server: ServerKind,
    pub(crate) engines: usize,
    /// False when the log shows a failed or partial start: no capacity comes from this box.
    pub(crate) started: bool,
    /// Why the start failed, at `file:line:column` of the server's own failure line.
    pub(crate) failure: Option<String>,
    /// None when the log printed no KV cache size (a start that failed before it).
    pub(crate) kv_cache_tokens: Option<u64>,
    pub(crate) max_num_seqs: Option<u64>,
    pub(crate) max_num_seqs_measured: bool,
    /// Which source decided `max_num_seqs`, in the server's precedence.
    pub(crate) max_num_seqs_source: Option<LimitSource>,
    /// TGI's router admission limit: requests past it are refused, so it bounds the capacity too.
    pub(crate) max_concurrent_requests: Option<u64>,
    pub(crate) max_concurrent_requests_source: Option<LimitSource>,
    /// vLLM's tokens per block, when the KV size was printed in blocks.
    pub(crate) block_size: Option<u64>,
    pub(crate) block_size_source: Option<BlockSizeSource>,
    /// vLLM's own `Maximum concurrency for N tokens per request`, summed over engines.
    pub(crate) server_max_concurrency: Option<f64>,
    pub(crate) max_model_len: Option<u64>,
    pub(crate) max_num_batched_tokens: Option<u64>,
    pub(crate) capacity: Option<u64>,
    /// The capacity rests on an assumed `max_num_seqs`: for some engine the KV cache allowed
    /// more, so the min() picked the server's default, which the log did not state.
    pub(crate) capacity_assumed: bool,
    /// What the capacity's min() took: `kv_cache`, `max_num_seqs` or `max_concurrent_requests`.
    pub(crate) capacity_bound: Option<&'static str>,
    pub(crate) pessimistic_floor: Option<u64>,
    pub(crate) source: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Breakdown {
    pub(crate) queue_s: f64,
    pub(crate) prefill_s: f64,
    pub(crate) decode_s: f64,
    pub(crate) sum_s: f64,
    pub(crate) e2e_s: Option<f64>,
    pub(crate) unattributed_s: Option<f64>,
    pub(crate) queue_share: f64,
    pub(crate) prefill_share: f64,
    pub(crate) decode_share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Roster {
    pub(crate) size: u64,
    pub(crate) waves: Option<u64>,
    pub(crate) cap_never_reached: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WhatIfReport {
    pub(crate) phase: Phase,
    pub(crate) fraction_removed: f64,
    pub(crate) share_of_e2e: f64,
    pub(crate) max_e2e_gain: f64,
    pub(crate) max_e2e_gain_s: f64,
}

/// Everything `measure` found: numbers, warnings, and where each number came from.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Measurement {
    pub(crate) boxes: Vec<BoxReport>,
    /// With `--write`: the `[[capacity]]` entries bound, and the unmeasured ones left unbound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bindings: Option<crate::manifest::bind::Outcome>,
    pub(crate) p90_prompt_tokens: Option<f64>,
    pub(crate) p90_prompt_is_lower_bound: bool,
    /// The p90 is the mean prompt (the window had no prompt histogram): an estimate.
    pub(crate) p90_prompt_is_estimate: bool,
    pub(crate) per_box_capacity: Option<u64>,
    /// The box whose capacity is the per-box value: the narrowest.
    pub(crate) per_box_capacity_box: Option<String>,
    /// Bound by an assumed `max_num_seqs` (see [`BoxReport::capacity_assumed`]): not written.
    pub(crate) per_box_capacity_assumed: bool,
    pub(crate) fleet_capacity: Option<u64>,
    pub(crate) fleet_capacity_assumed: bool,
    pub(crate) pessimistic_floor: Option<u64>,
    /// The box whose floor is the per-box floor: the narrowest.
    pub(crate) pessimistic_floor_box: Option<String>,
    pub(crate) fleet_pessimistic_floor: Option<u64>,
    /// Boxes whose log shows a failed start; `measure` exits 2 when there is one.
    pub(crate) failed_boxes: Vec<String>,
    /// Boxes the fleet capacity leaves out because they have none (no p90, a failed start).
    pub(crate) boxes_without_capacity: Vec<String>,
    /// Boxes the fleet floor leaves out (no model length in the log, a failed start).
    pub(crate) boxes_without_floor: Vec<String>,
    pub(crate) breakdown: Option<Breakdown>,
    pub(crate) queue_p50_s: Option<f64>,
    pub(crate) queue_p90_s: Option<f64>,
    pub(crate) roster: Option<Roster>,
    pub(crate) kv_usage_peak: Option<f64>,
    /// The peak is every sample's maximum in the window (Prometheus), not two readings.
    pub(crate) kv_usage_peak_is_true: bool,
    /// The waiting queue's peak (largest over boxes), read as the KV usage's.
    pub(crate) waiting_peak: Option<f64>,
    /// KV cache tokens the later scrape reports itself (vLLM `cache_config_info`, SGLang's
    /// `max_total_num_tokens` gauge), summed over engines.
    pub(crate) scrape_kv_cache_tokens: Option<u64>,
    pub(crate) preemptions: Option<f64>,
    pub(crate) prefix_cache_hit_rate: Option<f64>,
    pub(crate) what_if: Vec<WhatIfReport>,
    pub(crate) window_s: Option<f64>,
    pub(crate) requests: Option<f64>,
    /// Each box's own window, from Prometheus (`--prometheus`): one per instance.
    pub(crate) windows: Vec<BoxWindow>,
    pub(crate) warnings: Vec<String>,
    pub(crate) sources: BTreeMap<String, String>,
}

/// A histogram's quantiles and mean over a window.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Quantiles {
    pub(crate) p50: Option<f64>,
    pub(crate) p90: Option<f64>,
    pub(crate) p99: Option<f64>,
    /// The p90's rank fell in the `+Inf` bucket: the value is the highest finite bound.
    pub(crate) p90_is_lower_bound: bool,
    pub(crate) mean: Option<f64>,
    pub(crate) observations: Option<f64>,
}

/// One box's window from Prometheus, under its `instance` label.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoxWindow {
    pub(crate) instance: String,
    /// The box it pairs with (a `--log NAME`), else the instance.
    pub(crate) name: String,
    pub(crate) server: ServerKind,
    /// `queue`, `prefill`, `decode`, `e2e` (seconds) and `prompt` (tokens).
    pub(crate) histograms: BTreeMap<&'static str, Quantiles>,
    pub(crate) breakdown: Option<Breakdown>,
    pub(crate) requests: Option<f64>,
    pub(crate) preemptions: Option<f64>,
    pub(crate) kv_usage_peak: Option<f64>,
    pub(crate) waiting_peak: Option<f64>,
    pub(crate) prompt_mean_tokens: Option<f64>,
    pub(crate) scrape_kv_cache_tokens: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_if_spellings() {
        let half = WhatIf {
            phase: Phase::Prefill,
            fraction: 0.5,
        };
        assert_eq!("prefill=-50%".parse::<WhatIf>(), Ok(half));
        assert_eq!("queue=-100%".parse::<WhatIf>().map(|w| w.fraction), Ok(1.0));
        for bad in [
            "prefill",
            "network=-10%",
            "decode=-0%",
            "decode=-150%",
            "decode=-x%",
            "prefill=+50%",
            "prefill=50%",
            "prefill=-50",
        ] {
            assert!(bad.parse::<WhatIf>().is_err(), "{bad}");
        }
    }
}
