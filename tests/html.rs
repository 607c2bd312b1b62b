//! The mutants report's HTML page, rendered by a real browser: headless Chromium loads
//! `report.html`, lays it out, and the page's own check counts the survivor rows that take up
//! space on it. .ci/run installs Debian's chromium and names it in `CAPCHECK_CHROMIUM`; in CI it
//! is required.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::support::*;

fn chromium() -> Option<String> {
    if let Some(path) = std::env::var_os("CAPCHECK_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(path.to_string_lossy().into_owned());
    }
    let found = Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    found.then(|| "chromium".to_string())
}

#[test]
fn the_html_report_renders_in_headless_chromium_with_the_survivor_visible() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must render the report: .ci/run sets CAPCHECK_CHROMIUM"
        );
        eprintln!("chromium not installed (CAPCHECK_CHROMIUM unset): skipped");
        return;
    };
    let ws = copy_fixture("seed-2-measured");
    let scratch = tempfile::tempdir().unwrap();
    let build = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-seed-2");
    let output = ws.path().join("target/capcheck/mutants");
    let out = capcheck_in(
        ws.path(),
        &[
            "mutants",
            "--operator",
            "swap-min-max",
            "--format",
            "json",
            "--build-dir",
            build.to_str().unwrap(),
            "--scratch-dir",
            scratch.path().to_str().unwrap(),
        ],
    );
    let (_, report) = json_of(&out);
    let survivors: Vec<&str> = report["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "survived")
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(survivors.len(), 1, "{report}");
    let profile = tempfile::tempdir().unwrap();
    let page = output.join("report.html");
    let browser = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let group = browser.id() as libc::pid_t;
    let dom = browser.wait_with_output().unwrap();
    // Whatever the browser left in its group (a crash handler) goes too.
    // SAFETY: signals the process group of the browser this test started.
    unsafe {
        libc::killpg(group, libc::SIGKILL);
    }
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains(r#"<body data-visible-survivors="1">"#),
        "the page's check did not count one laid-out survivor: {dom}"
    );
    assert!(
        dom.contains(&format!(r#"<tr class="survived" id="{}">"#, survivors[0])),
        "{dom}"
    );
}
