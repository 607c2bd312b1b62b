//! Sites: how code is named, the way users and manifests name it (`crate::module::ITEM`,
//! `crate::module::Type::field`, `crate::module::function::binding`, `#2` for a second literal
//! at one site). Sites are made by `syntax::scope`; this module holds the one rule by which a
//! name a user wrote (a manifest entry's `site`, a guard's `function`) names a site. Sites are
//! strings made in one place (`syntax::scope`); what varies is only how a written name matches.

/// Whether `pattern` names `site`: the whole site, or a `::`-aligned suffix of at least two
/// segments (`Config::max_limit`, `controller::PER_BACKEND`, `Controller::fleet_ceiling`).
/// One segment alone (`PER_BACKEND`) never names a site: too many items share a name; see
/// [`check_pattern`].
pub(crate) fn matches(site: &str, pattern: &str) -> bool {
    site == pattern || (pattern.contains("::") && site.ends_with(&format!("::{pattern}")))
}

/// The site of `name` inside `parent` (a binding in a function, an API called there):
/// `crate::m::f` + `permits` -> `crate::m::f::permits`.
pub(crate) fn child(parent: &str, name: &str) -> String {
    format!("{parent}::{name}")
}

/// Why `pattern` can never name a site, if it cannot.
pub(crate) fn check_pattern(pattern: &str) -> Result<(), String> {
    let segments: Vec<&str> = pattern.split("::").collect();
    if pattern.trim().is_empty() {
        Err("a site is empty; write `Type::item`, `module::ITEM` or the full site".into())
    } else if segments.iter().any(|s| s.trim().is_empty()) {
        Err(format!("`{pattern}` has an empty segment"))
    } else if segments.len() < 2 {
        Err(format!(
            "`{pattern}` is one segment; name it with its type or module (`Type::{pattern}`, \
             `module::{pattern}`) or by its full site"
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_names_a_site_by_the_whole_site_or_a_suffix_of_two_segments() {
        let site = "fleet_controller::Controller::fleet_ceiling";
        for (pattern, want) in [
            (site, true),
            ("Controller::fleet_ceiling", true),
            ("fleet_ceiling", false),
            ("troller::fleet_ceiling", false),
            ("Other::fleet_ceiling", false),
        ] {
            assert_eq!(matches(site, pattern), want, "{pattern}");
        }
        assert!(check_pattern("PER_BACKEND").is_err());
        assert!(check_pattern("a::::b").is_err());
        assert!(check_pattern("").is_err());
        assert!(check_pattern("m::PER_BACKEND").is_ok());
    }
}
