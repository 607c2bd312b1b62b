//! The measured-capacity manifest, `capacity.toml`, as data. See docs/manifest.md.

use std::collections::BTreeMap;

use crate::manifest::eval::Num;
use crate::source::Loc;

/// What a capacity is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Throttles work: compared with the natural bound.
    Cap,
    /// A runaway fuse, meant never to be reached.
    Fuse,
    /// A minimum (e.g. the limit when every box is down).
    Floor,
    /// A queue or channel bound.
    Queue,
}

impl Role {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::Cap => "cap",
            Role::Fuse => "fuse",
            Role::Floor => "floor",
            Role::Queue => "queue",
        }
    }
}

/// How the number was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Measured,
    Derived,
    VendorLimit,
    /// Acknowledged, not yet measured: `init` writes these.
    Unmeasured,
}

impl Method {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Method::Measured => "measured",
            Method::Derived => "derived",
            Method::VendorLimit => "vendor-limit",
            Method::Unmeasured => "unmeasured",
        }
    }
}

/// A calendar date, `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Date {
    pub(crate) year: i32,
    pub(crate) month: u32,
    pub(crate) day: u32,
}

impl Date {
    /// A real calendar date (`2026-02-31` is none), years 1 to 9999.
    pub(crate) fn new(year: i32, month: u32, day: u32) -> Option<Date> {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        ((1..=9999).contains(&year) && (1..=days).contains(&day)).then_some(Date {
            year,
            month,
            day,
        })
    }

    /// `YYYY-MM-DD`, optionally followed by a TOML/RFC 3339 time (`T09:40:00Z`, what
    /// `measure --write` writes).
    pub(crate) fn parse(s: &str) -> Option<Date> {
        let head = s.get(..10)?;
        if s.len() > 10 && s.parse::<toml_edit::Datetime>().is_err() {
            return None;
        }
        let b = head.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if !(digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
            return None;
        }
        Date::new(
            head[..4].parse().ok()?,
            head[5..7].parse().ok()?,
            head[8..].parse().ok()?,
        )
    }

    /// Today (UTC) from the system clock.
    pub(crate) fn today() -> Date {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Date::from_days((secs / 86_400) as i64)
    }

    /// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    pub(crate) fn from_days(z: i64) -> Date {
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// One `[[backend]]`: a box.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Backend {
    pub(crate) name: String,
    /// Numeric quantities (`engines`, `kv_cache_tokens`, `max_num_seqs`, ...).
    pub(crate) quantities: BTreeMap<String, Num>,
    /// Quantities `measure` assumed rather than read (`max_num_seqs_measured = false`).
    pub(crate) assumed: Vec<String>,
    pub(crate) loc: Loc,
}

/// One `[[capacity]]` entry: a code site bound to a measurement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The quantities `expr` reads.
    pub(crate) reads: Vec<String>,
    pub(crate) site: String,
    pub(crate) value: Option<u64>,
    pub(crate) expr: Option<String>,
    /// The value, or the expression's value: what the code must say.
    pub(crate) expected: Option<u64>,
    pub(crate) role: Role,
    pub(crate) method: Method,
    /// The value applies per backend: the fleet-wide cap is value x number of backends.
    pub(crate) per_backend: bool,
    pub(crate) reason: Option<String>,
    pub(crate) measured_at: Option<Date>,
    pub(crate) re_measure_after: Option<Date>,
    /// The `site = ..` line.
    pub(crate) loc: Loc,
    /// The `value = ..` or `expr = ..` line (the one a mismatch points at).
    pub(crate) value_loc: Loc,
    pub(crate) re_measure_loc: Option<Loc>,
}

/// The whole manifest.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Manifest {
    /// Relative to the workspace root, '/'-separated.
    pub(crate) file: String,
    pub(crate) natural_bound: Option<u64>,
    pub(crate) natural_bound_loc: Option<Loc>,
    pub(crate) backends: Vec<Backend>,
    /// Every named quantity an expression may read: `[workload]`, `[prompt]` (as
    /// `p90_prompt_tokens`), `[derived]`, the narrowest backend's fields, `backends`.
    pub(crate) quantities: BTreeMap<String, Num>,
    pub(crate) entries: Vec<Entry>,
}

impl Manifest {
    /// The per-box value the manifest measured, for mutants: `[derived] per_box_capacity`, else
    /// the first per-backend entry that is not `unmeasured` and whose formula reads nothing a
    /// backend only assumed (an assumed `max_num_seqs` is a server default, not a measurement).
    pub(crate) fn per_box(&self) -> Option<u64> {
        let assumed: Vec<&String> = self.backends.iter().flat_map(|b| &b.assumed).collect();
        self.quantities
            .get("per_box_capacity")
            .and_then(|v| v.floor_u64())
            .or_else(|| {
                self.entries
                    .iter()
                    .filter(|e| e.per_backend && e.method != Method::Unmeasured)
                    .find(|e| !e.reads.iter().any(|r| assumed.contains(&r)))
                    .and_then(|e| e.expected)
            })
    }
}
