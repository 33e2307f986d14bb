//! The generated index site opened in a real browser: a small cohort of fixture servers (clean,
//! legacy, no cache hints, crashing, incomplete (it never answers `ping`), and one that drifts — a change without a bump
//! in run 2, a change with a bump in run 3) run three times through `index run` + `merge
//! --history`, then `index site`; headless Chromium (Debian's `chromium`, installed by
//! `tests/peers/install.sh`) loads `index.html` from disk and the test reads its `--dump-dom`:
//! one table row per target, the three charts with their marks, the tables they name as their
//! text. The same page is screenshotted; the test checks the screenshot is a PNG, not its pixels.
//!
//! `MCPSEAL_UPDATE_SCREENSHOT=1 cargo nextest run -p mcpseal --test index_site` also copies it
//! to `docs/index-example.png` (the committed example; see docs/index.md).
//!
//! Not flaky under load: every Chromium gets its own `--user-data-dir`, generous time limits
//! (the process is killed after 300 s, not awaited by sleeps), no JavaScript to wait for.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod index_support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;

use index_support::mcpseal_ok;

/// Chromium: `MCPSEAL_CHROMIUM`, else Debian's `/usr/bin/chromium`, else `chromium` on PATH.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("MCPSEAL_CHROMIUM") {
        return PathBuf::from(p);
    }
    let debian = Path::new("/usr/bin/chromium");
    if debian.is_file() {
        return debian.to_owned();
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("chromium"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!("no chromium found: run tests/peers/install.sh (it installs Debian's chromium)")
        })
}

/// One headless Chromium run against `page` with `extra` flags, in its own profile directory.
fn headless(work: &Path, name: &str, page: &Path, extra: &[String]) -> Output {
    let profile = work.join(format!("chromium-profile-{name}"));
    let url = format!("file://{}", page.display());
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        // The test may run as root in a container, where Chromium's sandbox cannot start; the
        // page is our own file, with no script.
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--hide-scrollbars",
        "--window-size=1280,2400",
        &format!("--user-data-dir={}", profile.display()),
    ])
    .args(extra)
    .arg(&url)
    .timeout(Duration::from_secs(300));
    let out = cmd.output().expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium {name}: {:?}\nstderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn cohort(fixture: &str, run: u32) -> String {
    // The drifting target: one generated tool in run 1, two in run 2 (same version: a change
    // without a bump), three in run 3 under a new reported version (a change with a bump).
    let (tools, version) = match run {
        1 => (1, "1.0.0"),
        2 => (2, "1.0.0"),
        _ => (3, "1.1.0"),
    };
    format!(
        r#"[defaults]
budget-seconds = 240
request-timeout-seconds = 20

[[target]]
id = "clean"
install = "cmd:{fixture}"
args = ["--tools", "3"]

[[target]]
id = "crashing"
install = "cmd:{fixture}"
args = ["--crash-after", "0"]

[[target]]
id = "drifting"
install = "cmd:{fixture}"
args = ["--tools", "{tools}", "--server-version", "{version}"]

[[target]]
id = "incomplete"
install = "cmd:{fixture}"
args = ["--hang-on", "ping"]
request-timeout-seconds = 5

[[target]]
id = "legacy"
install = "cmd:{fixture}"
args = ["--mode", "legacy"]
era = "2025-11-25"

[[target]]
id = "no-cache-hints"
install = "cmd:{fixture}"
args = ["--no-cache-hints"]
"#
    )
}

const TARGETS: usize = 6;

#[test]
fn the_site_renders_in_chromium_with_a_row_per_target_and_its_charts() {
    let work = tempfile::tempdir().expect("work");
    let w = work.path();
    let fixture = mcpseal_fixtures::binary();
    let fixture = fixture.to_str().expect("utf-8");
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    let db = s(w.join("history.sqlite"));
    let cache = s(w.join("cache"));
    for run in 1..=3u32 {
        let file = w.join(format!("cohort-{run}.toml"));
        std::fs::write(&file, cohort(fixture, run)).expect("cohort");
        let out = s(w.join(format!("run{run}")));
        let merged = s(w.join(format!("merged{run}")));
        let id = format!("2026-12-0{run}");
        let mut args = vec![
            "index".to_owned(),
            "run".to_owned(),
            s(file),
            "--out".to_owned(),
            out.clone(),
            "--run-id".to_owned(),
            id,
            "--cache".to_owned(),
            cache.clone(),
            "--jobs".to_owned(),
            "3".to_owned(),
        ];
        if run > 1 {
            args.push("--previous".to_owned());
            args.push(s(w.join(format!("merged{}", run - 1))));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mcpseal_ok(&args);
        mcpseal_ok(&["index", "merge", &out, "--out", &merged, "--history", &db]);
    }
    let public = w.join("public");
    mcpseal_ok(&[
        "index",
        "site",
        "--from",
        &s(w.join("merged3")),
        "--db",
        &db,
        "--out",
        &s(public.clone()),
    ]);
    let page = public.join("index.html");

    let dom = headless(w, "dom", &page, &["--dump-dom".to_owned()]);
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    // The browser parsed the page (its serialisation, not our bytes: it adds the <tbody>s and
    // closes the empty elements itself).
    assert!(dom.contains("<title>mcpseal index</title>"), "{dom}");
    let cohort_table = between(&dom, "<table id=\"cohort\">", "</table>");
    assert_eq!(
        cohort_table.matches("<tr class=\"target ").count(),
        TARGETS,
        "one row per target: {cohort_table}"
    );
    for id in [
        "clean",
        "crashing",
        "drifting",
        "incomplete",
        "legacy",
        "no-cache-hints",
    ] {
        assert!(
            cohort_table.contains(&format!("<a href=\"servers/{id}.html\">{id}</a>")),
            "{id}: {cohort_table}"
        );
    }
    assert!(cohort_table.contains("<tr class=\"target state-unreachable\">"));
    assert!(cohort_table.contains("<tr class=\"target state-incomplete\">"));
    // The published-fingerprint column, a cell with its title per row: none of these fixtures
    // is a registry entry (index_registry checks match, mismatch and none).
    assert!(cohort_table.contains("<th scope=\"col\">published</th>"));
    assert_eq!(
        cohort_table
            .matches("<td class=\"published\" title=\"no registry entry: nothing published to compare\">–</td>")
            .count(),
        TARGETS,
        "{cohort_table}"
    );

    // The three charts, each an SVG image with a title, a description and the table it names.
    for (chart, table) in [
        ("chart-states", "trend"),
        ("chart-rules", "rules-over-time"),
        ("chart-changes", "changes-over-time"),
    ] {
        let svg = between(&dom, &format!("<svg id=\"{chart}\""), "</svg>");
        assert!(svg.contains("role=\"img\""), "{chart}: {svg}");
        assert!(
            svg.contains(&format!("aria-describedby=\"{table}\"")),
            "{chart}"
        );
        assert!(
            svg.contains(&format!("<title id=\"{chart}-title\">")),
            "{chart}"
        );
        assert!(
            svg.contains(&format!("<desc id=\"{chart}-desc\">")),
            "{chart}"
        );
        assert!(dom.contains(&format!("<table id=\"{table}\">")), "{table}");
    }
    let states = between(&dom, "<svg id=\"chart-states\"", "</svg>");
    assert_eq!(
        states.matches("class=\"bar state-unreachable\"").count(),
        3,
        "the crashing target, unreachable in each of the three runs: {states}"
    );
    let changes = between(&dom, "<svg id=\"chart-changes\"", "</svg>");
    assert_eq!(
        changes.matches("<rect class=\"mark\"").count(),
        2 * 3,
        "two rows (changed, without a bump) of three runs: {changes}"
    );
    assert!(
        changes.contains("changed without a bump, run 2026-12-02: 1 of 6 (16.7%)"),
        "{changes}"
    );
    assert!(
        changes.contains("changed without a bump, run 2026-12-03: 0 of 6 (0.0%)"),
        "run 3's change came with a bump: {changes}"
    );
    assert!(
        changes.contains("fingerprint changed, run 2026-12-03: 1 of 6 (16.7%)"),
        "{changes}"
    );
    let rules = between(&dom, "<svg id=\"chart-rules\"", "</svg>");
    assert!(
        rules.contains("<g class=\"series series-seal005\">"),
        "the no-cache-hints target's rule has its row: {rules}"
    );
    let rule_rows = between(&dom, "<table id=\"rules-over-time\">", "</table>")
        .matches("<tr class=\"rule\">")
        .count();
    assert_eq!(
        rules.matches("<g class=\"series ").count(),
        rule_rows,
        "a chart row per table row"
    );
    assert!(rule_rows > 0);
    assert!(!dom.contains("<script"));

    // The screenshot (the committed example is this one, refreshed on request).
    let png = w.join("index-example.png");
    headless(
        w,
        "screenshot",
        &page,
        &[format!("--screenshot={}", png.display())],
    );
    let bytes = std::fs::read(&png).expect("the screenshot was written");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "a PNG of a rendered page ({} bytes)",
        bytes.len()
    );
    if std::env::var_os("MCPSEAL_UPDATE_SCREENSHOT").is_some() {
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/index-example.png");
        std::fs::write(&committed, &bytes).expect("docs/index-example.png");
    }
}

/// The text from `start` to the next `end` after it (both included).
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let i = text
        .find(start)
        .unwrap_or_else(|| panic!("`{start}` not in the page:\n{text}"));
    let j = text[i..]
        .find(end)
        .unwrap_or_else(|| panic!("no `{end}` after `{start}`"));
    &text[i..i + j + end.len()]
}
