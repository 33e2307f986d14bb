//! `mcpseal snapshot` end to end: fixtures in every era over stdio and HTTP, every fail-closed
//! case in both directions, and agreement with the independent Python implementation.

mod python_support;

use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use python_support::python_fingerprint;
use serde_json::Value;

fn mcpseal() -> Command {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(60));
    cmd
}

/// Runs `snapshot --format json` on a target; returns (exit code, stdout JSON or Null, stderr).
fn snapshot(extra: &[&str], target: Target<'_>) -> (i32, Value, String) {
    let mut cmd = mcpseal();
    cmd.args(["snapshot", "--format", "json"]).args(extra);
    match target {
        Target::Stdio(args) => {
            cmd.arg("--").args(stdio_argv(args));
        }
        Target::Url(url) => {
            cmd.arg(url);
        }
    }
    let out = cmd.output().expect("runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        doc,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

enum Target<'a> {
    Stdio(&'a [&'a str]),
    Url(&'a str),
}

#[test]
fn every_era_over_both_transports_gives_one_fingerprint_per_era() {
    let mut by_mode = Vec::new();
    for mode in ["modern", "legacy", "dual"] {
        let (code, stdio_doc, err) = snapshot(&[], Target::Stdio(&["--mode", mode]));
        assert_eq!(code, 0, "{mode}: {err}");
        let fx = HttpFixture::start(&["--mode", mode]);
        let (code, http_doc, err) = snapshot(&[], Target::Url(&fx.url));
        assert_eq!(code, 0, "{mode} over HTTP: {err}");
        assert_eq!(
            stdio_doc["sha256"], http_doc["sha256"],
            "{mode}: stdio vs HTTP"
        );
        assert_eq!(stdio_doc["schemaVersion"], 1);
        assert_eq!(stdio_doc["form"], "mcpseal/1");
        assert_eq!(stdio_doc["counts"]["tools"], 3);
        assert!(stdio_doc["items"]["tools"]["add"]["sha256"].is_string());
        by_mode.push((mode, stdio_doc["era"].clone(), stdio_doc["sha256"].clone()));
    }
    assert_eq!(by_mode[0].1, "2026-07-28");
    assert_eq!(by_mode[1].1, "2025-11-25");
    // A dual-era server answers discover, so it is captured as modern: same as `modern`.
    assert_eq!(by_mode[2].1, "2026-07-28");
    assert_eq!(by_mode[0].2, by_mode[2].2);
    // The era is part of the surface.
    assert_ne!(by_mode[0].2, by_mode[1].2);
}

#[test]
fn the_same_server_twice_gives_the_same_fingerprint_even_shuffled_and_paged() {
    let (_, plain, _) = snapshot(&[], Target::Stdio(&["--mode", "modern"]));
    let (code, again, err) = snapshot(&[], Target::Stdio(&["--mode", "modern"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(plain["sha256"], again["sha256"]);
    let (code, shuffled, err) = snapshot(&[], Target::Stdio(&["--mode", "modern", "--shuffle"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(plain["sha256"], shuffled["sha256"]);
    let (code, paged, err) = snapshot(
        &[],
        Target::Stdio(&["--mode", "modern", "--page-size", "1"]),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(plain["sha256"], paged["sha256"]);
    // An empty-string cursor is a real cursor in 2026: page 2 is read.
    let (code, doc, err) = snapshot(
        &[],
        Target::Stdio(&["--mode", "modern", "--empty-cursor", "tools"]),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        doc["counts"]["tools"].as_u64().is_some_and(|n| n >= 1),
        "{doc}"
    );
}

#[test]
fn a_liar_is_refused_and_an_honest_server_is_not() {
    let (code, doc, err) = snapshot(&[], Target::Stdio(&["--mode", "liar"]));
    assert_eq!(code, 2, "{doc}");
    assert!(err.contains("answers every method"), "{err}");
    assert_eq!(
        doc["error"]["kind"], "untrustworthy",
        "only the error document: {doc}"
    );
    assert!(doc.get("sha256").is_none(), "no snapshot: {doc}");
    let fx = HttpFixture::start(&["--mode", "liar"]);
    let (code, _, _) = snapshot(&[], Target::Url(&fx.url));
    assert_eq!(code, 2);
    let (code, _, _) = snapshot(&[], Target::Stdio(&["--mode", "modern"]));
    assert_eq!(code, 0);
}

#[test]
fn duplicate_identities_are_refused_in_every_list() {
    for list in ["tools", "resources", "resourceTemplates", "prompts"] {
        let (code, _, err) = snapshot(
            &[],
            Target::Stdio(&["--mode", "modern", "--duplicate", list]),
        );
        assert_eq!(code, 2, "{list}");
        assert!(err.to_lowercase().contains("duplicate"), "{list}: {err}");
    }
}

#[test]
fn a_cursor_loop_is_refused_and_normal_paging_is_not() {
    let (code, _, err) = snapshot(
        &[],
        Target::Stdio(&["--mode", "modern", "--cursor-loop", "tools"]),
    );
    assert_eq!(code, 2);
    assert!(err.contains("tools/list"), "{err}");
    assert!(err.contains("twice"), "{err}");
    let (code, doc, err) = snapshot(
        &[],
        Target::Stdio(&["--mode", "modern", "--page-size", "1"]),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["counts"]["tools"], 3);
}

#[test]
fn the_page_cap_is_refused_and_a_list_just_under_it_is_not() {
    let (code, _, err) = snapshot(
        &["--page-cap", "5"],
        Target::Stdio(&["--mode", "modern", "--endless-pages", "prompts"]),
    );
    assert_eq!(code, 2);
    assert!(err.contains("more than 5 pages"), "{err}");
    // 3 tools on 3 pages with a cap of 3: fine.
    let (code, doc, err) = snapshot(
        &["--page-cap", "3"],
        Target::Stdio(&["--mode", "modern", "--page-size", "1"]),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["counts"]["tools"], 3);
}

#[test]
fn unreachable_is_exit_2() {
    let (code, doc, err) = snapshot(&[], Target::Stdio(&["--mode", "strict-headers"]));
    assert_eq!(code, 2);
    assert_eq!(
        doc["error"]["kind"], "unreachable",
        "only the error document: {doc}"
    );
    assert!(doc.get("sha256").is_none(), "no snapshot: {doc}");
    assert!(err.contains("could not be reached"), "{err}");
}

#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "tests write their input files; nothing here is a lock"
)]
fn unserved_lists_are_null_and_shown_as_such() {
    let dir = tempfile::tempdir().expect("tempdir");
    let surface = dir.path().join("surface.json");
    std::fs::write(
        &surface,
        r#"{"tools":[{"name":"only","inputSchema":{"type":"object"}}],"resources":[],"resourceTemplates":null,"prompts":null}"#,
    )
    .expect("write");
    let path = surface.to_string_lossy().into_owned();
    let (code, doc, err) = snapshot(
        &[],
        Target::Stdio(&["--mode", "modern", "--surface", &path]),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["surface"]["prompts"], Value::Null);
    assert_eq!(doc["surface"]["resources"], serde_json::json!([]));
    assert_eq!(doc["items"]["prompts"], Value::Null);
    let text = mcpseal()
        .args(["snapshot", "--"])
        .args(stdio_argv(&["--mode", "modern", "--surface", &path]))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("not served"), "{text}");
}

#[test]
fn the_python_implementation_agrees_on_real_captures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&[&str], &[&str]); 3] = [
        (&["--mode", "modern", "--tools", "50"], &["mcpseal/1"]),
        (
            &["--mode", "legacy", "--tools", "20"],
            &["mcpseal/1", "mcp-surface/1"],
        ),
        (&["--mode", "modern", "--page-size", "2"], &["mcpseal/1"]),
    ];
    for (i, (args, forms)) in cases.iter().enumerate() {
        for form in forms.iter().copied() {
            let capture = dir
                .path()
                .join(format!("capture-{i}-{}.json", form.replace('/', "-")));
            let capture_arg = capture.to_string_lossy().into_owned();
            let (code, doc, err) = snapshot(
                &["--form", form, "--save-capture", &capture_arg],
                Target::Stdio(args),
            );
            assert_eq!(code, 0, "{err}");
            assert_eq!(
                doc["sha256"].as_str(),
                Some(python_fingerprint(&capture, form).as_str()),
                "{args:?} {form}"
            );
        }
    }
}
