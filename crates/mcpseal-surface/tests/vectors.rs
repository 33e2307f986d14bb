//! Every mcpseal/1 vector (tests/data/mcpseal-1-vectors.json) reproduces its bytes, hash and
//! per-item hashes; Rust and tools/fingerprint.py agree on every vector in both forms.

mod common;

use mcpseal_surface::{FailedKind, FailureKind, Form, ListKind, NotServedKind, Surface, jcs};

#[test]
fn mcpseal_1_vectors() {
    let file = common::read_json("mcpseal-1-vectors.json");
    let vectors = file["vectors"].as_array().expect("vectors");
    assert!(vectors.len() >= 12, "at least 12 vectors");
    // Python checks, run at the end in one process: (args, stdin) and what must come out.
    let mut jobs: Vec<(Vec<&str>, &str)> = Vec::new();
    let mut expected: Vec<(Expect, String)> = Vec::new();
    for v in vectors {
        let id = v["id"].as_str().expect("id");
        let raw = v["rawCapture"].as_str().expect("rawCapture is JSON text");
        let canonical = v["expectedCanonical"].as_str().expect("canonical");
        let sha = v["expectedSha256"].as_str().expect("sha");
        let surface = Surface::from_slice(raw.as_bytes()).expect(id);

        let bytes = surface.canonical_bytes(Form::McpSeal1);
        assert_eq!(
            String::from_utf8(bytes.clone()).expect("utf-8"),
            canonical,
            "{id}"
        );
        let fp = surface.fingerprint(Form::McpSeal1);
        assert_eq!(fp.sha256, sha, "{id}");
        assert_eq!(
            serde_json::to_value(&fp.items).expect("items"),
            v["expectedItems"],
            "{id}: per-item hashes"
        );
        // canonical_value is the same document.
        assert_eq!(jcs(&surface.canonical_value(Form::McpSeal1)), bytes, "{id}");
        assert_eq!(
            jcs(&surface.canonical_value(Form::McpSurface1)),
            surface.canonical_bytes(Form::McpSurface1),
            "{id}"
        );
        // canonical_object writes what canonical_value would, byte for byte, pretty or not
        // (the snapshot document's `surface`).
        for form in [Form::McpSeal1, Form::McpSurface1] {
            let value = surface.canonical_value(form);
            let object = surface.canonical_object(form);
            assert_eq!(
                serde_json::to_string_pretty(&object).expect("pretty"),
                serde_json::to_string_pretty(&value).expect("pretty"),
                "{id} {form}: pretty"
            );
            assert_eq!(
                serde_json::to_string(&object).expect("compact"),
                serde_json::to_string(&value).expect("compact"),
                "{id} {form}: compact"
            );
        }

        // Python second implementation, both forms.
        for form in [Form::McpSeal1, Form::McpSurface1] {
            let text = String::from_utf8(surface.canonical_bytes(form)).expect("utf-8");
            jobs.push((vec!["--form", form.as_str(), "--canonical"], raw));
            expected.push((Expect::Stdout(text), format!("{id} {form}: python bytes")));
            let line = format!("{}\n", surface.fingerprint(form).sha256);
            jobs.push((vec!["--form", form.as_str()], raw));
            expected.push((Expect::Stdout(line), format!("{id} {form}: python sha256")));
        }
        jobs.push((vec!["--items"], raw));
        expected.push((
            Expect::Items(v["expectedItems"].clone()),
            format!("{id}: python per-item hashes"),
        ));
    }
    let got = common::python_batch(&jobs);
    for ((code, out), (want, what)) in got.into_iter().zip(expected) {
        assert_eq!(code, 0, "{what}");
        match want {
            Expect::Stdout(text) => assert_eq!(out, text, "{what}"),
            Expect::Items(items) => {
                let py: serde_json::Value = serde_json::from_str(&out).expect("items JSON");
                assert_eq!(py["items"], items, "{what}");
            }
        }
    }
}

enum Expect {
    Stdout(String),
    Items(serde_json::Value),
}

#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "tests write their input files; nothing here is a lock"
)]
fn python_cli_reads_a_file() {
    // The batch mode runs in-process; run the real command line once, on a file.
    let file = common::read_json("mcpseal-1-vectors.json");
    let v = &file["vectors"][0];
    let dir = std::env::temp_dir().join(format!("mcpseal-surface-py-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let capture = dir.join("capture.json");
    std::fs::write(&capture, v["rawCapture"].as_str().expect("text")).expect("write");
    let out = std::process::Command::new("python3")
        .arg(common::python_tool())
        .arg(&capture)
        .output()
        .expect("python3 must be installed: the second implementation is a required check");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "python3 tools/fingerprint.py FILE");
    assert_eq!(
        String::from_utf8(out.stdout).expect("utf-8").trim_end(),
        v["expectedSha256"].as_str().expect("sha")
    );
}

#[test]
fn era_is_in_the_hash() {
    let file = common::read_json("mcpseal-1-vectors.json");
    let sha = |id: &str| {
        file["vectors"]
            .as_array()
            .expect("vectors")
            .iter()
            .find(|v| v["id"] == id)
            .map(|v| v["expectedSha256"].clone())
            .expect("vector present")
    };
    assert_ne!(sha("minimal-2025"), sha("era-in-hash"));
}

#[test]
fn reasons_for_null_lists() {
    let file = common::read_json("mcpseal-1-vectors.json");
    let raw = |id: &str| {
        file["vectors"]
            .as_array()
            .expect("vectors")
            .iter()
            .find(|v| v["id"] == id)
            .and_then(|v| v["rawCapture"].as_str())
            .expect("vector present")
            .to_owned()
    };
    let s = Surface::from_slice(raw("null-vs-empty").as_bytes()).expect("surface");
    // A transport failure and malformed pages are failures (the bytes are defined, `null`,
    // but nothing records such a surface); none of them is "not served".
    assert!(s.not_served().is_empty());
    let failed: Vec<_> = s.failed().iter().map(|(k, f)| (*k, f.kind)).collect();
    assert_eq!(
        failed,
        vec![
            (ListKind::Resources, FailedKind::Recorded),
            (ListKind::ResourceTemplates, FailedKind::Malformed),
            (ListKind::Prompts, FailedKind::Malformed),
        ]
    );
    assert!(s.has_untrustworthy_gap());
    assert_eq!(s.count(ListKind::Tools), Some(0));
    assert_eq!(s.count(ListKind::Resources), None);

    // Written before causes were recorded: an `error` failure reads as not served, as the
    // build that wrote it decided.
    let s = Surface::from_slice(raw("minimal-2025").as_bytes()).expect("surface");
    let kinds: Vec<_> = s.not_served().iter().map(|(k, r)| (*k, r.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            (ListKind::ResourceTemplates, NotServedKind::Error),
            (ListKind::Prompts, NotServedKind::Error),
        ]
    );
    assert!(!s.has_untrustworthy_gap());

    let s = Surface::from_slice(raw("untrustworthy-gaps").as_bytes()).expect("surface");
    assert!(s.has_untrustworthy_gap());
    let kinds: Vec<_> = s
        .failed()
        .iter()
        .map(|(_, f)| f.record.as_ref().map(|r| r.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![Some(FailureKind::CursorLoop), Some(FailureKind::PageCap)]
    );

    let s = Surface::from_slice(raw("serverinfo-meta-wins-2026").as_bytes()).expect("surface");
    assert_eq!(s.server_name(), Some("meta"));
    assert!(s.not_served().is_empty());
    assert!(
        s.failed()
            .iter()
            .all(|(_, f)| f.kind == FailedKind::NotCaptured)
    );
}
