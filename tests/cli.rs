//! The command line around the jobs: shell completions and plain output when piped.

use std::process::Command;

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
        ("mutants --exclude-", &["--exclude-file", "--exclude-re"]),
        ("mutants --skip-", &["--skip-mutant"]),
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

/// Human output piped or redirected is plain: no colour codes (unless `--color always`) and no
/// box drawing even then; on a terminal (a pty from `script`) ariadne draws its frames. Each case
/// is a job's command line.
#[test]
fn piped_human_output_is_plain_and_a_terminal_gets_frames() {
    let seed1 = fixture("seed-1-typed-cap").join("Cargo.toml");
    let seed2 = fixture("seed-2-measured").join("Cargo.toml");
    let jobs: &[&[&str]] = &[
        &["check", "--manifest-path", seed1.to_str().unwrap()],
        &["fixtures", "--manifest-path", seed2.to_str().unwrap()],
    ];
    let frames = |s: &str| s.chars().any(|c| ('\u{2500}'..='\u{257f}').contains(&c));
    for job in jobs {
        let piped = stdout(&capcheck(job));
        assert!(piped.contains(",-[ "), "{job:?}: ASCII frames: {piped}");
        assert!(
            !frames(&piped) && !piped.contains('\x1b'),
            "{job:?}: {piped}"
        );
        let mut coloured = job.to_vec();
        coloured.extend(["--color", "always"]);
        let coloured = stdout(&capcheck(&coloured));
        assert!(
            coloured.contains('\x1b') && !frames(&coloured),
            "{job:?}: {coloured}"
        );
        let line = format!(
            "{} {} --color never",
            env!("CARGO_BIN_EXE_cargo-capcheck"),
            job.join(" ")
        );
        let tty = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env("NO_COLOR", "1")
            .output()
            .expect("script (util-linux) runs");
        let tty = stdout(&tty);
        assert!(
            frames(&tty) && !tty.contains('\x1b'),
            "{job:?} on a terminal: {tty}"
        );
    }
}
