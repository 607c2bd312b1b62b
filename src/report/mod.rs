//! Rendering. The only module that knows ariadne; analyses hand it data, `cli` prints what it
//! returns.

pub(crate) mod elements;
pub(crate) mod fingerprint;
pub(crate) mod fixtures;
pub(crate) mod github;
pub(crate) mod html;
pub(crate) mod human;
pub(crate) mod json;
pub(crate) mod mutants;
pub(crate) mod sarif;

/// Output format of every job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Format {
    #[default]
    Human,
    Json,
    /// GitHub Actions annotations (`check`, `mutants`, `fixtures`; others print human output).
    Github,
    /// SARIF 2.1.0 (`check`, `mutants`, `fixtures`; `rules` and `--list` print JSON, others
    /// human output).
    Sarif,
}

/// How much human output says: `-q` only the findings, `-v` also the counts per rule and time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Verbosity {
    Quiet,
    #[default]
    Normal,
    Verbose,
}

/// Colour in human output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Color {
    #[default]
    Auto,
    Always,
    Never,
}

/// Whether to colour human output, decided as cargo decides it: `--color always|never` first,
/// then `CARGO_TERM_COLOR` (`always`, `never`; `auto` or anything else defers), then `NO_COLOR`
/// when it is set and not empty (no-color.org), then whether stdout is a terminal.
pub(crate) fn use_color(c: Color) -> bool {
    use std::io::IsTerminal;
    let env = |name: &str| std::env::var(name).ok();
    color_of(
        c,
        env("CARGO_TERM_COLOR").as_deref(),
        env("NO_COLOR").as_deref(),
        std::io::stdout().is_terminal(),
    )
}

/// How human output is decorated: colour as cargo decides it ([`use_color`]), and ariadne's
/// box drawing only on a terminal: piped or redirected output (a CI log, `| less`, a file) gets
/// plain ASCII frames (`,-[`, `|`), whatever `--color` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Style {
    pub(crate) color: bool,
    pub(crate) unicode: bool,
}

impl Style {
    pub(crate) fn ariadne(self) -> ariadne::Config {
        let chars = if self.unicode {
            ariadne::CharSet::Unicode
        } else {
            ariadne::CharSet::Ascii
        };
        ariadne::Config::default()
            .with_color(self.color)
            .with_char_set(chars)
    }
}

/// The style of human output on stdout.
pub(crate) fn style(c: Color) -> Style {
    use std::io::IsTerminal;
    Style {
        color: use_color(c),
        unicode: std::io::stdout().is_terminal(),
    }
}

fn color_of(c: Color, cargo_term_color: Option<&str>, no_color: Option<&str>, tty: bool) -> bool {
    match (c, cargo_term_color.map(str::trim)) {
        (Color::Always, _) => true,
        (Color::Never, _) => false,
        (Color::Auto, Some("always")) => true,
        (Color::Auto, Some("never")) => false,
        (Color::Auto, _) => tty && no_color.is_none_or(str::is_empty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_is_decided_as_cargo_and_no_color_org_say() {
        assert!(color_of(Color::Always, Some("never"), Some("1"), false));
        assert!(!color_of(Color::Never, Some("always"), None, true));
        assert!(color_of(Color::Auto, Some("always"), Some("1"), false));
        assert!(!color_of(Color::Auto, Some("never"), None, true));
        assert!(color_of(Color::Auto, Some("auto"), None, true));
        assert!(
            color_of(Color::Auto, None, Some(""), true),
            "an empty NO_COLOR is unset"
        );
        assert!(!color_of(Color::Auto, None, Some("1"), true));
        assert!(!color_of(Color::Auto, None, None, false), "not a terminal");
    }
}
