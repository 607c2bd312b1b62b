//! The command line around the jobs: shell completions and plain output when piped.

use crate::support::*;

/// `completions bash` prints a script that bash loads, and completing with it offers the
/// subcommands and their flags: each case is the words typed so far and what must be offered.
#[test]
fn the_bash_completion_script_completes_subcommands_and_flags() {
    let out = capcheck(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let script = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(script.path(), &out.stdout).unwrap();
    let cases: &[(&str, &[&str])] = &[
        (
            "",
            &["check", "mutants", "fixtures", "measure", "completions"],
        ),
        ("mu", &["mutants"]),
        ("mutants --in-", &["--in-diff"]),
        ("completions ", &["bash", "zsh", "fish"]),
    ];
    for (typed, expected) in cases {
        let words = format!("cargo-capcheck {typed}");
        let words: Vec<&str> = if typed.ends_with(' ') || typed.is_empty() {
            words.split_whitespace().chain([""]).collect()
        } else {
            words.split_whitespace().collect()
        };
        let cword = words.len() - 1;
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let probe = format!(
            "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; \
             _cargo__capcheck cargo-capcheck '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.path().display(),
            quoted.join(" "),
            words[cword],
            words[cword.saturating_sub(1)],
        );
        let run = std::process::Command::new("bash")
            .args(["-c", &probe])
            .output()
            .expect("bash runs");
        let offered = stdout(&run);
        let offered: Vec<&str> = offered.lines().collect();
        for e in *expected {
            assert!(
                offered.contains(e),
                "`{typed}`<TAB> offers {offered:?}, not {e}; {}",
                stderr(&run)
            );
        }
    }
}

/// Every shell clap_complete knows gets a script naming the binary; an unknown one is a usage
/// error that lists the shells.
#[test]
fn completions_exist_for_each_shell_and_an_unknown_shell_is_exit_2() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = capcheck(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("cargo-capcheck"), "{shell}");
        assert!(stdout(&out).contains("mutants"), "{shell}");
    }
    let out = capcheck(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("possible values: bash"),
        "{}",
        stderr(&out)
    );
}
