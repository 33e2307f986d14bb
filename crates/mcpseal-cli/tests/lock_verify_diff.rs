//! `mcpseal verify` against live endpoints (liar, match, drift, version claims) and
//! `mcpseal diff` between lock files, snapshots and servers, including two real releases of
//! `@modelcontextprotocol/server-filesystem`.

mod lock_support;

use lock_support::{Work, base_surface, data, with_description, without_tool};
use mcpseal_fixtures::HttpFixture;
use serde_json::Value;

#[test]
fn verify_refuses_a_liar() {
    let w = Work::new();
    assert_eq!(w.run(&["lock"], Some(&[])).code, 0);
    let out = w.run(&["verify"], Some(&["--mode", "liar"]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("error: no trustworthy surface: this endpoint answers every method"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("\nhint: point mcpseal at the real server"),
        "{out:?}"
    );
    assert_eq!(out.stdout, "");
    let fx = HttpFixture::start(&["--mode", "liar"]);
    let out = w.run(&["verify", fx.url.as_str()], None);
    assert_eq!(out.code, 2, "{out:?}");
}

#[test]
fn verify_match_drift_and_version_claims_over_http() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    assert_eq!(
        w.run(
            &["lock", "--server-version", "1.0.0"],
            Some(&["--surface", &v1])
        )
        .code,
        0
    );

    let fx = HttpFixture::start(&["--surface", &v1, "--server-version", "1.0.0"]);
    let out = w.run(&["verify", fx.url.as_str()], None);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with(&format!(
            "verified: `{}` serves the surface locked in `surface.lock.json` (1.0.0)",
            fx.url
        )),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("version  the server reports 1.0.0, the locked version"),
        "{out:?}"
    );

    let fx = HttpFixture::start(&["--surface", &v1, "--server-version", "1.4.0"]);
    let out = w.run(&["verify", "--format", "json", fx.url.as_str()], None);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["reportedVersion"], "1.4.0");
    assert_eq!(doc["reportedIsLocked"], false);
    assert_eq!(doc["lockedSha256"], doc["liveSha256"]);

    let drifted = w.surface(
        "d.json",
        &without_tool(
            &with_description(&base_surface(), "echo", "Echo and mail"),
            "clock",
        ),
    );
    let fx = HttpFixture::start(&["--surface", &drifted]);
    let out = w.run(&["verify", fx.url.as_str()], None);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.starts_with("drift: "), "{out:?}");
    assert!(
        out.stdout.contains("BREAKING  /tools/name=clock"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("SECURITY  /tools/name=echo/description"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("error: the deployed surface drifted from the lock (2 change(s))\nhint: "),
        "{out:?}"
    );
    let out = w.run(
        &[
            "verify",
            "--attempts",
            "2",
            "--wait",
            "10ms",
            fx.url.as_str(),
        ],
        None,
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.starts_with(
            "note: attempt 1/2: the surface differs from the lock; asking again in 10ms\n"
        ),
        "{out:?}"
    );
    // The same report as SARIF and Markdown, through the report crate's renderers.
    let out = w.run(&["verify", "--format", "sarif", fx.url.as_str()], None);
    assert_eq!(out.code, 1);
    let sarif = out.json();
    let results = sarif["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(results.len(), 2, "{sarif}");
    assert_eq!(results[0]["ruleId"], "drift/breaking");
    assert_eq!(results[0]["level"], "error");
    assert_eq!(results[1]["ruleId"], "drift/security");
    assert_eq!(results[1]["level"], "warning");
    let out = w.run(&["verify", "--format", "markdown", fx.url.as_str()], None);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.starts_with("## mcpseal verify\n\ndrift: "),
        "{out:?}"
    );
    assert!(out.stdout.contains("### BREAKING (1)"), "{out:?}");
}

const OLD: &str = "server-filesystem-2025.3.28.lock.json";
const NEW: &str = "server-filesystem-2026.8.31.lock.json";

fn change<'a>(doc: &'a Value, path: &str, class: &str) -> Option<&'a Value> {
    doc["changes"]
        .as_array()?
        .iter()
        .find(|c| c["path"] == path && c["class"] == class)
}

/// Reviewed by hand: 2025.3.28 shipped every tool with an input schema of only `$schema`
/// (accepting anything), spoke 2024-11-05 only, and had no annotations; 2026.8.31 has real
/// schemas, three new read-only tools, annotations, output schemas and titles.
#[test]
fn diff_of_two_server_filesystem_releases() {
    let w = Work::new();
    let (old, new) = (data(OLD), data(NEW));
    let out = w.run(
        &[
            "diff",
            "--format",
            "json",
            &old.to_string_lossy(),
            &new.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(out.code, 1, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["schemaVersion"], 1);
    assert_eq!(doc["requiredBump"], "major");
    for (path, class) in [
        // The old protocol version is gone: clients that speak only 2024-11-05 fail.
        ("/server/supportedVersions", "breaking"),
        ("/server/supportedVersions", "additive"),
        ("/server/capabilities/tools/listChanged", "additive"),
        // Schemas that accepted anything now require parameters.
        (
            "/tools/name=read_file/inputSchema/properties/path",
            "breaking",
        ),
        (
            "/tools/name=write_file/inputSchema/properties/content",
            "breaking",
        ),
        (
            "/tools/name=move_file/inputSchema/properties/destination",
            "breaking",
        ),
        (
            "/tools/name=read_file/inputSchema/properties/head",
            "additive",
        ),
        // New read-only tools.
        ("/tools/name=read_text_file", "additive"),
        ("/tools/name=read_media_file", "additive"),
        ("/tools/name=list_directory_with_sizes", "additive"),
        // Text the model reads, and tools newly claiming to be read-only.
        ("/tools/name=read_file/description", "security"),
        ("/tools/name=search_files/description", "security"),
        ("/tools/name=read_file/annotations/readOnlyHint", "security"),
        ("/tools/name=read_file/title", "cosmetic"),
        ("/tools/name=read_file/execution", "unjudged"),
    ] {
        assert!(
            change(&doc, path, class).is_some(),
            "{class} at {path} missing"
        );
    }
    // No tool was removed.
    let removed = doc["changes"].as_array().into_iter().flatten().any(|c| {
        c["class"] == "breaking"
            && c["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/tools/name=") && !p[12..].contains('/'))
    });
    assert!(!removed);
    let read_file = change(&doc, "/tools/name=read_file/description", "security")
        .cloned()
        .unwrap_or_default();
    assert!(read_file["before"].as_str().is_some_and(|s| {
        s.starts_with("Read the complete contents of a file from the file system.")
    }));
    assert!(
        read_file["after"]
            .as_str()
            .is_some_and(|s| s.contains("DEPRECATED: Use read_text_file instead."))
    );
    assert_eq!(read_file["item"], "tool read_file");
    for class in ["breaking", "security", "additive", "cosmetic", "unjudged"] {
        assert!(
            doc["summary"][class].as_u64().is_some_and(|n| n > 0),
            "{class}"
        );
    }
    // The same diff backwards removes three tools.
    let out = w.run(
        &[
            "diff",
            "--format",
            "json",
            &new.to_string_lossy(),
            &old.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(change(&out.json(), "/tools/name=read_text_file", "breaking").is_some());
}

/// The first line of `class` in a text diff.
fn first_line_of(text: &str, class: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(&format!("  {class} ")))
        .unwrap_or_else(|| panic!("no {class} line in\n{text}"))
}

#[test]
fn a_real_diff_reads_review_first_security_before_breaking() {
    let w = Work::new();
    let (old, new) = (data(OLD), data(NEW));
    let (old, new) = (old.to_string_lossy(), new.to_string_lossy());
    let out = w.run(&["diff", &old, &new], None);
    assert_eq!(out.code, 1, "{out:?}");
    let text = &out.stdout;
    let first = text.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "changes: 10 security, 25 breaking, 35 additive, 12 cosmetic, 12 unjudged (semver bump: major)"
    );
    let order: Vec<usize> = ["SECURITY", "BREAKING", "ADDITIVE", "COSMETIC", "UNJUDGED"]
        .iter()
        .map(|c| first_line_of(text, c))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{text}");
    // Each group by item then path: the last SECURITY line comes before the first BREAKING.
    let last_security = text
        .lines()
        .collect::<Vec<_>>()
        .iter()
        .rposition(|l| l.starts_with("  SECURITY "))
        .unwrap_or_default();
    assert!(last_security < order[1]);
    let security: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  SECURITY "))
        .collect();
    let mut sorted = security.clone();
    sorted.sort_unstable();
    assert_eq!(
        security, sorted,
        "one item's changes together, paths in order"
    );
    // `--full`: every change, in path order, as before.
    let full = w.run(&["diff", "--full", &old, &new], None);
    assert_eq!(full.stdout.lines().count(), text.lines().count());
    assert!(
        full.stdout
            .lines()
            .nth(1)
            .is_some_and(|l| l.contains("/server/")),
        "{}",
        full.stdout
    );
    assert!(first_line_of(&full.stdout, "BREAKING") < first_line_of(&full.stdout, "SECURITY"));
    // JSON keeps every change.
    let json = w
        .run(&["diff", "--format", "json", &old, &new], None)
        .json();
    assert_eq!(json["changes"].as_array().map(Vec::len), Some(94));
    // Markdown: the same order, code spans that render (no escaped backticks), no dead links.
    let md = w
        .run(&["diff", "--format", "markdown", &old, &new], None)
        .stdout;
    let at = |h: &str| md.find(h).unwrap_or_else(|| panic!("no {h} in\n{md}"));
    assert!(at("### SECURITY (10)") < at("### BREAKING (25)"));
    assert!(at("### BREAKING (25)") < at("### ADDITIVE (35)"));
    assert!(at("### COSMETIC (12)") < at("### UNJUDGED (12)"));
    assert!(!md.contains("\\`"), "{md}");
    assert!(
        md.contains("| `/tools/name=read_file/description` |"),
        "{md}"
    );
    assert!(
        !md.contains("](http"),
        "no base URL configured, no link: {md}"
    );
    let linked = w.run_env(
        &["diff", "--format", "markdown", &old, &new],
        None,
        &[("MCPSEAL_DOCS_URL", "https://example.org/mcpseal/blob/main/")],
    );
    assert!(
        linked
            .stdout
            .contains("[SPEC §9.3](https://example.org/mcpseal/blob/main/SPEC.md#93-rules)"),
        "{}",
        linked.stdout
    );
    // SARIF follows the same base URL: no link to mcpseal's pages without one.
    let sarif = w
        .run(&["diff", "--format", "sarif", &old, &new], None)
        .stdout;
    assert!(!sarif.contains("github.com/mcpseal"), "{sarif}");
    assert!(!sarif.contains("informationUri"), "{sarif}");
    assert!(!sarif.contains("helpUri"), "{sarif}");
    let linked = w.run_env(
        &["diff", "--format", "sarif", &old, &new],
        None,
        &[("MCPSEAL_DOCS_URL", "https://example.org/mcpseal/blob/main/")],
    );
    assert!(
        linked
            .stdout
            .contains(r#""helpUri": "https://example.org/mcpseal/blob/main/SPEC.md#9-lock-file""#),
        "{}",
        linked.stdout
    );
    assert!(
        linked
            .stdout
            .contains(r#""informationUri": "https://example.org/mcpseal/blob/main/""#),
        "{}",
        linked.stdout
    );
}

#[test]
fn repeated_schema_dialect_changes_fold_into_one_line() {
    let w = Work::new();
    let v1 = base_surface();
    let mut v2 = v1.clone();
    for t in v2["tools"].as_array_mut().into_iter().flatten() {
        t["inputSchema"]["$schema"] = serde_json::json!("http://json-schema.org/draft-07/schema#");
    }
    let (a, b) = (w.surface("a.json", &v1), w.surface("b.json", &v2));
    for (name, side) in [("a.snap.json", &a), ("b.snap.json", &b)] {
        let out = w.run(
            &["snapshot", "--format", "json"],
            Some(&["--surface", side]),
        );
        assert_eq!(out.code, 0, "{out:?}");
        w.write(name, &out.stdout);
    }
    let out = w.run(&["diff", "a.snap.json", "b.snap.json"], None);
    assert_eq!(out.code, 1, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    assert!(
        lines[1].starts_with(
            "  UNJUDGED  $schema on 2 schemas (tool clock, tool echo): absent → \"http://json-schema.org/draft-07/schema#\"  "
        ),
        "{out:?}"
    );
    assert!(lines[1].ends_with("(`--full` lists each)"), "{out:?}");
    let full = w.run(&["diff", "--full", "a.snap.json", "b.snap.json"], None);
    assert_eq!(full.stdout.lines().count(), 3, "{full:?}");
    // A spelling of the same meta-schema is cosmetic, not unjudged.
    let mut v3 = v2.clone();
    for t in v3["tools"].as_array_mut().into_iter().flatten() {
        t["inputSchema"]["$schema"] = serde_json::json!("https://json-schema.org/draft-07/schema");
    }
    let c = w.surface("c.json", &v3);
    let out = w.run(&["snapshot", "--format", "json"], Some(&["--surface", &c]));
    w.write("c.snap.json", &out.stdout);
    let out = w.run(&["diff", "b.snap.json", "c.snap.json"], None);
    assert!(
        out.stdout
            .starts_with("changes: 0 security, 0 breaking, 0 additive, 2 cosmetic, 0 unjudged"),
        "{out:?}"
    );
}

#[test]
fn diff_sides_and_formats() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let removed = w.surface("removed.json", &without_tool(&base_surface(), "clock"));
    assert_eq!(w.run(&["lock"], Some(&["--surface", &v1])).code, 0);
    let snap = w.run(&["snapshot", "--format", "json"], Some(&["--surface", &v1]));
    w.write("snap.json", &snap.stdout);
    let snap2 = w.run(
        &[
            "snapshot",
            "--format",
            "json",
            "--save-capture",
            "capture.json",
        ],
        Some(&["--surface", &removed]),
    );
    w.write("snap2.json", &snap2.stdout);

    // Lock vs snapshot of the same surface: no change.
    let out = w.run(&["diff", "surface.lock.json", "snap.json"], None);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "no surface change\n"),
        "{out:?}"
    );
    let out = w.run(
        &["diff", "--format", "json", "surface.lock.json", "snap.json"],
        None,
    );
    assert_eq!(out.json()["changes"], Value::Array(vec![]));
    assert_eq!(out.json()["requiredBump"], "none");
    // Lock vs a running server (B after `--`) and vs a raw capture.
    let out = w.run(
        &["diff", "surface.lock.json"],
        Some(&["--surface", &removed]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("BREAKING  /tools/name=clock"),
        "{out:?}"
    );
    let out = w.run(&["diff", "snap.json", "capture.json"], None);
    assert_eq!(out.code, 1, "{out:?}");
    // A URL side.
    let fx = HttpFixture::start(&["--surface", &removed]);
    let out = w.run(
        &[
            "diff",
            "--format",
            "markdown",
            "surface.lock.json",
            fx.url.as_str(),
        ],
        None,
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout
            .starts_with("## mcpseal diff\n\n1 change(s); semver bump needed: major"),
        "{out:?}"
    );
    let out = w.run(
        &["diff", "--format", "sarif", "snap.json", "snap2.json"],
        None,
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        out.json()["runs"][0]["results"][0]["ruleId"],
        "drift/breaking"
    );

    // Trouble: exit 2 with a hint.
    for (args, message) in [
        (
            vec!["diff", "missing.json", "snap.json"],
            "cannot read `missing.json`",
        ),
        (
            vec!["diff", "v1.json", "snap.json"],
            "`v1.json` is not a lock file, snapshot JSON or raw capture",
        ),
        (vec!["diff", "snap.json"], "`mcpseal diff` needs two sides"),
    ] {
        let out = w.run(&args, None);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(
            out.stderr.contains(message) && out.stderr.contains("\nhint: "),
            "{out:?}"
        );
    }
    let out = w.run(&["diff", "snap.json", "snap2.json"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("give B or `-- COMMAND`, not both"),
        "{out:?}"
    );
    w.write(
        "conflict.json",
        "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> x\n",
    );
    let out = w.run(&["diff", "conflict.json", "snap.json"], None);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("merge-conflict markers"), "{out:?}");
}

#[test]
fn help_is_pinned() {
    let w = Work::new();
    for (cmd, flags) in [
        (
            "lock",
            &[
                "--lock",
                "--exclude",
                "--form",
                "--server-version",
                "--manifest",
                "--strict-semver",
                "--deny-security",
                "--format",
            ][..],
        ),
        (
            "check",
            &[
                "--lock",
                "--server-version",
                "--manifest",
                "--strict-semver",
                "--deny-security",
                "--format",
            ][..],
        ),
        (
            "verify",
            &["--lock", "--format", "--page-cap", "--attempts", "--wait"][..],
        ),
        ("diff", &["--format", "[B]", "[COMMAND]..."][..]),
    ] {
        let out = w.run(&[cmd, "--help"], None);
        assert_eq!(out.code, 0);
        for f in flags {
            assert!(out.stdout.contains(f), "{cmd} --help lacks {f}");
        }
    }
    let out = w.run(&["--help"], None);
    for cmd in ["lock", "check", "verify", "diff"] {
        assert!(
            out.stdout.contains(&format!("\n  {cmd} ")),
            "{cmd} missing from --help"
        );
    }
}
