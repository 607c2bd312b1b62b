//! The catalog: every `check` rule, mutation operator and `fixtures` report kind, declared once,
//! as typed ids. Each entry's metadata, documentation and tables live in `rules/<id>.toml`,
//! embedded from here; dispatch, `--operator`, `rules`, `explain`, SARIF rule metadata and
//! docs/rules.md all derive from these lists, and tests fail when an entry lacks docs or a
//! fixture case. Adding a rule or operator is a variant here, its module and its TOML.

pub(crate) mod meta;

pub(crate) use meta::{Api, Level, Meta};

/// What every catalog entry offers, rules, report kinds and operators alike.
pub(crate) trait Entry: Copy + std::fmt::Debug + 'static {
    /// Every entry of the kind, in the order jobs run and list them.
    const ALL: &'static [Self];
    /// What `rules/<id>.toml` declares as `kind` (checked by the tests below).
    #[cfg(test)]
    const KIND: &'static str;
    /// The id users write and reports show.
    fn id(self) -> &'static str;
    /// The entry's metadata and documentation, from its `rules/<id>.toml`.
    fn meta(self) -> &'static Meta {
        meta::rule(self.id())
    }
}

macro_rules! catalog {
    ($(#[$meta:meta])* $name:ident, $kind:literal { $($variant:ident => $id:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every entry, in the order jobs run and list them.
            pub(crate) const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The id users write (`--operator`, `allow(..)`, levels) and reports show.
            pub(crate) fn id(self) -> &'static str {
                match self {
                    $($name::$variant => $id,)*
                }
            }

            /// The entry's `rules/<id>.toml`.
            pub(crate) fn toml(self) -> &'static str {
                match self {
                    $($name::$variant => include_str!(concat!("../../rules/", $id, ".toml")),)*
                }
            }

            pub(crate) fn from_id(id: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|x| x.id() == id)
            }

        }

        impl Entry for $name {
            const ALL: &'static [$name] = $name::ALL;
            #[cfg(test)]
            const KIND: &'static str = $kind;
            fn id(self) -> &'static str {
                $name::id(self)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.id())
            }
        }

        // Ids cross the process boundary as the strings users write (reports, `mutants.json`).
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.id())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let id = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                id.parse().map_err(serde::de::Error::custom)
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::from_id(s).ok_or_else(|| {
                    let known: Vec<&str> = Self::ALL.iter().map(|x| x.id()).collect();
                    format!("unknown {} `{s}` (known: {})", $kind, known.join(", "))
                })
            }
        }
    };
}

catalog! {
    /// A `check` rule.
    Rule, "rule" {
        UnmeasuredCapacity => "unmeasured-capacity",
        PerUnitCap => "per-unit-cap",
        PinnedCapacityAssertion => "pinned-capacity-assertion",
        ParseError => "parse-error",
        CapacityMismatch => "capacity-mismatch",
        CapBelowNaturalBound => "cap-below-natural-bound",
        CapNeverReached => "cap-never-reached",
        StaleMeasurement => "stale-measurement",
        UnmatchedManifestEntry => "unmatched-manifest-entry",
        InvalidSuppression => "invalid-suppression",
        UnusedSuppression => "unused-suppression",
    }
}

catalog! {
    /// A `fixtures` report kind.
    Report, "report" {
        IdenticalFixture => "identical-fixture",
    }
}

catalog! {
    /// A mutation operator of `mutants`.
    Operator, "operator" {
        SwapMinMax => "swap-min-max",
        ReinstateCap => "reinstate-cap",
        PerturbCapacity => "perturb-capacity",
        DropClamp => "drop-clamp",
        DropAllDownGuard => "drop-all-down-guard",
        BoundaryShift => "boundary-shift",
        Guard => "guard",
        HistoryRevert => "history-revert",
    }
}

/// Every entry's id and TOML: rules, then reports, then operators.
pub(crate) fn sources() -> impl Iterator<Item = (&'static str, &'static str)> {
    let rules = Rule::ALL.iter().map(|r| (r.id(), r.toml()));
    let reports = Report::ALL.iter().map(|r| (r.id(), r.toml()));
    let operators = Operator::ALL.iter().map(|r| (r.id(), r.toml()));
    rules.chain(reports).chain(operators)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_declares_its_own_id_and_kind() {
        let kinds = Rule::ALL
            .iter()
            .map(|r| (r.id(), Rule::KIND))
            .chain(Report::ALL.iter().map(|r| (r.id(), Report::KIND)))
            .chain(Operator::ALL.iter().map(|r| (r.id(), Operator::KIND)));
        for (id, kind) in kinds {
            let meta = meta::rule(id);
            assert_eq!(meta.kind, kind, "{id}");
        }
    }

    #[test]
    fn every_rules_file_is_in_the_catalog() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        for f in std::fs::read_dir(dir).unwrap() {
            let name = f.unwrap().file_name().into_string().unwrap();
            let id = name.trim_end_matches(".toml");
            assert!(
                sources().any(|(x, _)| x == id),
                "rules/{name} is not declared in src/catalog.rs"
            );
        }
    }
}
