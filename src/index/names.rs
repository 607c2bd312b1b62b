//! Identifier words: `MAX_CONCURRENCY`, `maxConcurrency` and `max_concurrency` all read as the
//! words `max concurrency`. Name tables match on words, never on substrings, so `permits` does
//! not match `permitsPerSecondTimeoutMs`'s `timeout` twin by accident.

/// Split an identifier into lowercase words at `_` and at lower-to-upper case changes;
/// `maximum` and `minimum` read as `max` and `min` (nym's `DEFAULT_MAXIMUM_OPEN_CONNECTIONS` is a
/// `max_*_connections`).
pub(crate) fn words(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in ident.split(['_', ':', '.', ' ', '-']) {
        let mut cur = String::new();
        let mut prev_lower = false;
        for ch in part.chars() {
            if ch.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
            cur.extend(ch.to_lowercase());
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    for w in &mut out {
        match w.as_str() {
            "maximum" => *w = "max".to_string(),
            "minimum" => *w = "min".to_string(),
            _ => {}
        }
    }
    out
}

/// The name a string key gives a setting, when it is written as one: `MAX_NUM_SEQS`,
/// `server.max_connections`, `max-num-seqs`, or, with `flag`, a command line's `--max-num-seqs`
/// (a flag's dashes are required then, and stripped). No key holds a space or is over 64 bytes.
pub(crate) fn setting_key(raw: &str, flag: bool) -> Option<&str> {
    let key = if flag {
        raw.strip_prefix("--").or_else(|| raw.strip_prefix('-'))?
    } else {
        raw
    };
    crate::syntax::sparse::key_shaped(key).then_some(key)
}

/// Whether a name is a minimum's (`min_limit`, `minimum_idle`, `minThreads`): a 1 given there is
/// a floor, no capacity.
pub(crate) fn names_minimum(ident: &str) -> bool {
    words(ident).iter().any(|w| w == "min" || w == "minimum")
}

/// Whether a name is that of one request's page size (`limit`, `page_size`, `per_page`): a
/// request type's field (`GetSiteUrlsQuery { limit }`) or a page reader's parameter
/// (`list_devices(app, limit, cursor)`).
pub(crate) fn names_page(name: &str) -> bool {
    matches!(name, "limit" | "page_size" | "per_page")
}

/// Whether a function's name says it reads a page (`list_devices`, `scan_keys`,
/// `scroll_points`): a read verb first, and no batch (`get_unfinished_task_batch` fetches work
/// to hold).
pub(crate) fn names_page_reader(name: &str) -> bool {
    let words = words(name);
    let verb = words.first().map(String::as_str).unwrap_or_default();
    let reads = matches!(
        verb,
        "list"
            | "scan"
            | "scroll"
            | "paginate"
            | "fetch"
            | "query"
            | "search"
            | "find"
            | "get"
            | "read"
            | "select"
    );
    reads && !words.iter().any(|w| w == "batch" || w == "batches")
}

/// Whether a parameter's name is that of a count a page reader may take beside its cursor
/// (`batch_size`, `max_results`, `count`).
pub(crate) fn names_page_size(name: &str) -> bool {
    let words = words(name);
    matches!(name, "count" | "size" | "n" | "max")
        || words
            .last()
            .is_some_and(|w| w == "size" || w == "results" || w == "keys")
            && !words.iter().any(|w| w == "bytes" || w == "byte")
}

/// Whether a parameter's name is a cursor's: where the next page starts (`cursor`,
/// `next_page_token`, `continuation_token`, `offset`, `start_after`, `marker`).
pub(crate) fn names_cursor(name: &str) -> bool {
    let words = words(name);
    words
        .iter()
        .any(|w| matches!(w.as_str(), "cursor" | "offset" | "marker" | "continuation"))
        || words.windows(2).any(|p| p[0] == "page" && p[1] == "token")
        || words.windows(2).any(|p| p[0] == "start" && p[1] == "after")
}

/// A compiled table of word patterns. A pattern written `=max_size` matches only the whole name
/// (`max_size`, `MAX_SIZE`), not a longer one (`CERTIFICATE_MAX_SIZE_LIMIT`); one written
/// `=.max_size` names a member only (a field, a setter: a pool's `max_size`), not a constant or a
/// binding, which has no owner to say what it is the size of ([`NameTable::matches_binding`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct NameTable {
    patterns: Vec<Vec<String>>,
    /// The loose patterns by their first word (indexes into `patterns`): a name is matched by
    /// looking up each of its words, not by trying every pattern at every word.
    by_first: rustc_hash::FxHashMap<String, Vec<usize>>,
    exact: Vec<Vec<String>>,
    /// Every pattern's words, loose and exact, for [`NameTable::is_exactly`].
    whole: rustc_hash::FxHashSet<Vec<String>>,
    /// The exact patterns written `=.name`: a member's names only.
    member_only: rustc_hash::FxHashSet<Vec<String>>,
    exclude: rustc_hash::FxHashSet<String>,
    /// Words that exclude a name unless its type says the value counts (`interval`: a
    /// `Duration`, or the number of ticks between two polls as a `u32`).
    soft: Vec<String>,
}

impl NameTable {
    pub(crate) fn new(patterns: &[String], exclude: &[String]) -> Self {
        let (exact, loose): (Vec<&String>, Vec<&String>) =
            patterns.iter().partition(|p| p.starts_with('='));
        let patterns: Vec<Vec<String>> = loose
            .iter()
            .map(|p| words(p))
            .filter(|p| !p.is_empty())
            .collect();
        let mut by_first: rustc_hash::FxHashMap<String, Vec<usize>> = Default::default();
        for (i, p) in patterns.iter().enumerate() {
            by_first.entry(p[0].clone()).or_default().push(i);
        }
        let member_only = exact
            .iter()
            .filter_map(|p| p.strip_prefix("=."))
            .map(words)
            .filter(|p| !p.is_empty())
            .collect();
        let exact: Vec<Vec<String>> = exact
            .iter()
            .map(|p| words(p.trim_start_matches(['=', '.'])))
            .filter(|p| !p.is_empty())
            .collect();
        NameTable {
            member_only,
            whole: patterns.iter().chain(&exact).cloned().collect(),
            patterns,
            by_first,
            exact,
            exclude: exclude.iter().map(|w| w.to_lowercase()).collect(),
            soft: Vec::new(),
        }
    }

    /// The same table with words that exclude a name only when nothing says it counts.
    pub(crate) fn with_soft(mut self, soft: &[String]) -> Self {
        self.soft = soft.iter().map(|w| w.to_lowercase()).collect();
        self
    }

    /// [`NameTable::matches`] for a value whose type says it counts (an integer type): the
    /// soft words (`interval`) do not exclude it.
    pub(crate) fn matches_count(&self, ident: &str) -> bool {
        self.matches_in(&words(ident), false)
    }

    /// [`NameTable::matches`] (or [`NameTable::matches_count`] where `counts`) for the name of a
    /// constant or a binding, which no member-only pattern matches (`VarInt::MAX_SIZE`, `let
    /// max_size = 512`: an encoding's or a message's size, not a pool's).
    pub(crate) fn matches_binding(&self, ident: &str, counts: bool) -> bool {
        let w = words(ident);
        !self.member_only.contains(&w) && self.matches_in(&w, !counts)
    }

    /// [`NameTable::matches_count`] by the patterns that may be part of a longer name only
    /// (`max_size`, a whole-name pattern, is left out).
    pub(crate) fn matches_count_loose(&self, ident: &str) -> bool {
        let w = words(ident);
        !w.iter().any(|x| self.exclude.contains(x)) && self.loose_match(&w)
    }

    /// Whether one loose pattern's words occur in `w`, contiguously.
    fn loose_match(&self, w: &[String]) -> bool {
        (0..w.len()).any(|i| {
            self.by_first.get(&w[i]).is_some_and(|ps| {
                ps.iter()
                    .any(|&p| starts_with_pattern(&w[i..], &self.patterns[p]))
            })
        })
    }

    /// Whether the identifier holds an excluded word (`EVT_PUBLISHER_METADATA_PROPERTY_ID`'s
    /// `id`): a constant of such a type is an id, an error code or a unit, whatever its own name.
    pub(crate) fn excludes(&self, ident: &str) -> bool {
        words(ident).iter().any(|x| self.exclude.contains(x))
    }

    /// Whether a name may match, counting or not (the sparse parse keeps a superset).
    pub(crate) fn may_match_words(&self, w: &[String]) -> bool {
        self.matches_in(w, false)
    }

    /// Whether the identifier contains one pattern's words contiguously and no excluded word.
    pub(crate) fn matches(&self, ident: &str) -> bool {
        let w = words(ident);
        self.matches_words(&w)
    }

    /// The last word of every pattern: any expression a pattern matches has one of them as a
    /// word of one of its identifiers (words never span identifiers).
    pub(crate) fn last_words(&self) -> impl Iterator<Item = &str> {
        self.patterns
            .iter()
            .chain(&self.exact)
            .filter_map(|p| p.last().map(String::as_str))
    }

    /// Whether the identifier is exactly one pattern (`workers`, `max_seqs`), with no word
    /// before or after it: a setter named for a capacity (`.workers(4)`), not a verb on one
    /// (`.add_permits(1)`).
    pub(crate) fn is_exactly(&self, ident: &str) -> bool {
        let w = words(ident);
        !w.iter()
            .any(|x| self.exclude.contains(x) || self.soft.contains(x))
            && self.whole.contains(&w)
    }

    pub(crate) fn matches_words(&self, w: &[String]) -> bool {
        self.matches_in(w, true)
    }

    fn matches_in(&self, w: &[String], soft_excludes: bool) -> bool {
        let excluded =
            |x: &String| self.exclude.contains(x) || (soft_excludes && self.soft.contains(x));
        if w.iter().any(excluded) {
            return false;
        }
        self.exact.iter().any(|p| p.as_slice() == w) || self.loose_match(w)
    }
}

/// Whether `w` starts with the pattern's words. A `*` in a pattern stands for up to
/// [`GAP_WORDS`] words of any kind (`queue_*_capacity` matches `IO_QUEUE_HIGH_CAPACITY`), so a
/// qualifier between a container and its bound does not hide the name.
fn starts_with_pattern(w: &[String], p: &[String]) -> bool {
    match p.split_first() {
        None => true,
        Some((first, rest)) if first == "*" => {
            (0..=GAP_WORDS.min(w.len())).any(|skip| starts_with_pattern(&w[skip..], rest))
        }
        Some((first, rest)) => w.first() == Some(first) && starts_with_pattern(&w[1..], rest),
    }
}

/// How many words a `*` in a name pattern may stand for.
const GAP_WORDS: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_snake_and_camel_case() {
        assert_eq!(words("MAX_CONCURRENCY"), ["max", "concurrency"]);
        assert_eq!(words("maxConcurrency"), ["max", "concurrency"]);
        assert_eq!(words("per_backend"), ["per", "backend"]);
        assert_eq!(
            words("self.cfg.per_backend"),
            ["self", "cfg", "per", "backend"]
        );
    }

    #[test]
    fn a_star_stands_for_up_to_two_words() {
        let t = NameTable::new(&["queue_*_capacity".into()], &["bytes".into()]);
        for (name, expect) in [
            ("QUEUE_CAPACITY", true),
            ("io_queue_high_capacity", true),
            ("queue_high_normal_capacity", true),
            ("queue_a_b_c_capacity", false),
            ("capacity_queue", false),
            ("queue_high_capacity_bytes", false),
        ] {
            assert_eq!(t.matches(name), expect, "{name}");
        }
    }

    #[test]
    fn matches_whole_words_in_order_and_honours_exclusions() {
        let t = NameTable::new(
            &["max_size".into(), "permits".into()],
            &["bytes".into(), "timeout".into()],
        );
        for (name, expect) in [
            ("MAX_SIZE", true),
            ("pool_max_size", true),
            ("max_frame_size", false),
            ("PERMITS", true),
            ("max_size_bytes", false),
            ("permits_timeout", false),
            ("permitsx", false),
        ] {
            assert_eq!(t.matches(name), expect, "{name}");
        }
        let exact = NameTable::new(&["=max_size".into()], &[]);
        for (name, expect) in [
            ("max_size", true),
            ("MAX_SIZE", true),
            ("maxSize", true),
            ("CERTIFICATE_MAX_SIZE_LIMIT", false),
            ("pool_max_size", false),
        ] {
            assert_eq!(exact.matches(name), expect, "{name}");
        }
        // A member-only pattern names a field or a setter, never a constant or a binding.
        let member = NameTable::new(&["=.max_size".into(), "permits".into()], &[]);
        assert!(member.matches("max_size") && member.is_exactly("max_size"));
        assert!(!member.matches_binding("MAX_SIZE", true));
        assert!(!member.matches_binding("max_size", false));
        assert!(member.matches_binding("MAX_PERMITS", true));
        for (name, expect) in [
            ("permits", true),
            ("add_permits", false),
            ("MAX_SIZE", true),
        ] {
            assert_eq!(t.is_exactly(name), expect, "{name}");
        }
    }
}
