//! The mutants report's HTML page, rendered by a real browser: headless Chromium, kept off the
//! network, loads `report.html` from the output folder by a file:// URL, lays it out, and the
//! page's own script records the mutants it lays out (`data-visible` on the body) and the diffs
//! (`data-visible-diffs`). A filter is applied the way a link to a filtered view applies it (a
//! fragment that sets the `<select>`s on load), and a screenshot is taken. .ci/run installs
//! Debian's chromium and names it in `CAPCHECK_CHROMIUM`; in CI it is required.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::Path;
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

/// Run headless Chromium on `url` with `args` (`--dump-dom` or `--screenshot=..`), off the
/// network (every host unresolvable, every proxy connection refused); its stdout.
fn browse(browser: &str, url: &str, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=127.0.0.1:9",
            "--window-size=1280,1800",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let group = child.id() as libc::pid_t;
    let out = child.wait_with_output().unwrap();
    // Whatever the browser left in its group (a crash handler) goes too.
    // SAFETY: signals the process group of the browser this test started.
    unsafe {
        libc::killpg(group, libc::SIGKILL);
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The body's `data-NAME` attribute in a dumped DOM.
fn body_data<'a>(dom: &'a str, name: &str) -> &'a str {
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').unwrap()];
    let key = format!("data-{name}=\"");
    let at = body
        .find(&key)
        .unwrap_or_else(|| panic!("no {key} on {body}"));
    let rest = &body[at + key.len()..];
    &rest[..rest.find('"').unwrap()]
}

fn visible(dom: &str) -> BTreeSet<String> {
    body_data(dom, "visible")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_html_report_works_offline_filters_and_shows_diffs_in_headless_chromium() {
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
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-seed-2");
    let output = ws.path().join("target/capcheck/mutants");
    let out = capcheck_in(
        ws.path(),
        &[
            "mutants",
            "--format",
            "json",
            "--build-dir",
            build.to_str().unwrap(),
            "--scratch-dir",
            scratch.path().to_str().unwrap(),
        ],
    );
    let (_, report) = json_of(&out);
    let mutants = report["mutants"].as_array().unwrap();
    let ids = |keep: &dyn Fn(&serde_json::Value) -> bool| -> BTreeSet<String> {
        mutants
            .iter()
            .filter(|m| keep(m))
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = ids(&|_| true);
    let killed = ids(&|m| m["outcome"] == "killed");
    let survived_swaps = ids(&|m| m["outcome"] == "survived" && m["operator"] == "swap-min-max");
    // The run this test reads: survivors of several operators (one literal's perturb-capacity
    // mutants among them), kills, and one surviving swap.
    assert!(
        !killed.is_empty() && survived_swaps.len() == 1 && all.len() > killed.len() + 2,
        "{report}"
    );
    // One entry per span of survivors, each showing its first diff.
    let spans: BTreeSet<String> = mutants
        .iter()
        .filter(|m| m["outcome"] == "survived")
        .map(|m| format!("{} {} {}", m["file"], m["byte_range"], m["operator"]))
        .collect();
    assert!(
        spans.len() < all.len() - killed.len(),
        "some span has several survivors"
    );

    let page = output.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing the page loads comes from elsewhere.
    for outside in ["src=", "<link", "@import", "url(", "http://", "https://"] {
        assert!(!html.contains(outside), "the page names {outside}");
    }
    // Every log and diff file the page links is in the output folder beside it.
    let links: Vec<&str> = html
        .split("href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert_eq!(
        links.iter().filter(|l| l.starts_with("logs/")).count(),
        all.len() + 1,
        "a log per mutant and the baseline's"
    );
    for link in &links {
        assert!(!link.contains('%'), "{link}: ids make plain file names");
        assert!(
            output.join(link).is_file(),
            "{link} is not in the output folder"
        );
    }

    let url = format!("file://{}", page.display());
    let dom = browse(&browser, &url, &["--dump-dom"]);
    assert_eq!(visible(&dom), all, "every mutant laid out unfiltered");
    assert_eq!(body_data(&dom, "visible-diffs"), spans.len().to_string());

    let dom = browse(&browser, &format!("{url}#outcome=killed"), &["--dump-dom"]);
    assert_eq!(
        visible(&dom),
        killed,
        "the outcome filter keeps the kills only"
    );
    // Each kill is an entry of its own here; the line says how many of the entries are shown.
    let entries = spans.len() + killed.len();
    let shown = format!(
        r#"<span id="shown">{k} of {entries} entries shown ({k} mutants)</span>"#,
        k = killed.len()
    );
    assert!(dom.contains(&shown), "{shown} in {dom}");

    let dom = browse(
        &browser,
        &format!("{url}#outcome=survived&operator=swap-min-max&file=src/lib.rs"),
        &["--dump-dom"],
    );
    assert_eq!(visible(&dom), survived_swaps, "three filters together");
    assert_eq!(body_data(&dom, "visible-diffs"), "1", "its diff is shown");
    let swap = survived_swaps.first().unwrap();
    let entry = &dom[dom.find(&format!(r#"<li id="{swap}""#)).unwrap()..];
    let entry = &entry[..entry.find("</li>").unwrap()];
    assert!(
        entry.contains(
            r#"<span class="del">-        self.boxes.iter().map(BoxSpec::capacity).min().unwrap_or(PER_BACKEND)</span>"#
        ) && entry.contains(
            r#"<span class="add">+        self.boxes.iter().map(BoxSpec::capacity).max().unwrap_or(PER_BACKEND)</span>"#
        ),
        "{entry}"
    );

    // A picture of the page as a reader first sees it (kept for looking at).
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        &browser,
        &url,
        &[&format!("--screenshot={}", shot.display())],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{}",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
}
