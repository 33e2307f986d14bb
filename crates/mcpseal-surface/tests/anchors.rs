//! Every mcp-surface anchor vector (shared/anchors/vectors, copied to tests/data/anchors)
//! reproduces its expected bytes and hash, in Rust and in the Python second implementation.

mod common;

use mcpseal_surface::{
    Form, RawCapture, Surface, SurfaceError, jcs, mcp_surface_1_bytes_unchecked, sha256_hex,
};
use serde_json::Value;

fn capture_of(anchor_raw: &Value) -> (RawCapture, Vec<u8>) {
    let bytes = serde_json::to_vec(&common::anchor_to_capture(anchor_raw)).expect("serialise");
    (
        RawCapture::from_slice(&bytes).expect("capture parses"),
        bytes,
    )
}

/// Python jobs collected during a test and checked at its end (one Python process).
#[derive(Default)]
struct PyChecks {
    jobs: Vec<(Vec<&'static str>, String)>,
    want: Vec<(i32, String, String)>,
}

impl PyChecks {
    fn bytes_and_sha(
        &mut self,
        args: &[&'static str],
        stdin: &[u8],
        canonical: &str,
        sha: &str,
        id: &str,
    ) {
        let stdin = String::from_utf8(stdin.to_vec()).expect("utf-8");
        let mut with_canon = args.to_vec();
        with_canon.push("--canonical");
        self.jobs.push((with_canon, stdin.clone()));
        self.want
            .push((0, canonical.to_owned(), format!("{id}: python bytes")));
        self.jobs.push((args.to_vec(), stdin));
        self.want
            .push((0, format!("{sha}\n"), format!("{id}: python sha")));
    }

    fn code(&mut self, args: &[&'static str], stdin: &[u8], code: i32, id: &str) {
        let stdin = String::from_utf8(stdin.to_vec()).expect("utf-8");
        self.jobs.push((args.to_vec(), stdin));
        self.want.push((code, String::new(), id.to_owned()));
    }

    fn run(self) {
        let jobs: Vec<(Vec<&str>, &str)> = self
            .jobs
            .iter()
            .map(|(a, s)| (a.clone(), s.as_str()))
            .collect();
        let got = common::python_batch(&jobs);
        for ((code, out), (want_code, want_out, what)) in got.into_iter().zip(self.want) {
            assert_eq!(code, want_code, "{what}");
            if want_code == 0 {
                assert_eq!(out, want_out, "{what}");
            }
        }
    }
}

#[test]
fn spec_7_1_vector() {
    let v = common::read_json("anchors/spec-7.1-vector.json");
    let want = v["expectedCanonical"].as_str().expect("string");
    let sha = v["expectedSha256"].as_str().expect("string");
    let (capture, bytes) = capture_of(&v["rawCapture"]);
    let surface = Surface::from_capture(&capture).expect("strict surface");
    let got = surface.canonical_bytes(Form::McpSurface1);
    assert_eq!(String::from_utf8(got).expect("utf-8"), want);
    assert_eq!(surface.fingerprint(Form::McpSurface1).sha256, sha);
    let mut py = PyChecks::default();
    py.bytes_and_sha(&["--form", "mcp-surface/1"], &bytes, want, sha, "spec-7.1");
    py.run();
}

#[test]
fn derived_edge_vectors() {
    let file = common::read_json("anchors/derived-edge-vectors.json");
    let vectors = file["vectors"].as_array().expect("vectors");
    assert_eq!(vectors.len(), 11);
    let mut py = PyChecks::default();
    for v in vectors {
        let id = v["id"].as_str().expect("id");
        let input = v["input"].as_str().expect("input is JSON text");
        let want = v["expectedCanonical"].as_str().expect("canonical");
        let sha = v["expectedSha256"].as_str().expect("sha");
        assert_eq!(
            sha256_hex(want.as_bytes()),
            sha,
            "{id}: vector self-consistent"
        );
        match v["inputKind"].as_str() {
            Some("value") => {
                let value: Value = serde_json::from_str(input).expect("value");
                assert_eq!(String::from_utf8(jcs(&value)).expect("utf-8"), want, "{id}");
                py.bytes_and_sha(&["--value"], input.as_bytes(), want, sha, id);
            }
            Some("raw-capture") => {
                let raw: Value = serde_json::from_str(input).expect("raw capture");
                let (capture, bytes) = capture_of(&raw);
                let got = mcp_surface_1_bytes_unchecked(&capture).expect("unchecked");
                assert_eq!(String::from_utf8(got).expect("utf-8"), want, "{id}");
                py.bytes_and_sha(
                    &["--form", "mcp-surface/1", "--unchecked"],
                    &bytes,
                    want,
                    sha,
                    id,
                );
                if id == "ties-and-missing-key" {
                    // mcpseal fails closed on what mcp-surface tolerates.
                    let err = Surface::from_capture(&capture).expect_err("refused");
                    assert!(matches!(err, SurfaceError::MissingIdentity { .. }), "{err}");
                    py.code(
                        &["--form", "mcp-surface/1"],
                        &bytes,
                        1,
                        "python refuses too",
                    );
                } else {
                    let surface = Surface::from_capture(&capture).expect("strict surface");
                    assert_eq!(surface.fingerprint(Form::McpSurface1).sha256, sha, "{id}");
                }
            }
            other => panic!("{id}: unknown inputKind {other:?}"),
        }
    }
    py.run();
}

/// mcp-surface's real `semToken` sections (copied from its servers' locks) reproduce their
/// stored hashes through [`SemToken::parse`]; a flipped verdict is refused as a hand edit.
#[test]
fn sem_token_sections_reproduce_their_hashes() {
    use mcpseal_surface::lock::AnonymousError;
    use mcpseal_surface::lock::sem_token::SemToken;
    let doc: Value = serde_json::from_str(include_str!("data/anchors/semtoken-sections.json"))
        .expect("vector file");
    let sections = doc["sections"].as_array().expect("sections");
    assert!(!sections.is_empty());
    for s in sections {
        let section = serde_json::json!({"versao": s["lockVersao"], "sha256": s["storedSha256"],
                                         "conteudo": s["conteudo"]});
        let expected = s["expectedCanonical"].as_str().expect("canonical");
        assert_eq!(jcs(&s["conteudo"]), expected.as_bytes(), "{}", s["server"]);
        let parsed = SemToken::parse(&section).expect("hash holds");
        assert_eq!(parsed.sha256, s["storedSha256"].as_str().expect("sha"));
        let converted = parsed.to_lock();
        assert_eq!(
            converted.answers.get("tools/list").map(|a| a.answers),
            s["conteudo"]["apiKeyAusente"]["POST /mcp"]["tools/list"].as_bool()
        );
        let mut tampered = section.clone();
        let flipped = !tampered["conteudo"]["apiKeyAusente"]["POST /mcp"]["ping"]
            .as_bool()
            .expect("ping");
        tampered["conteudo"]["apiKeyAusente"]["POST /mcp"]["ping"] = Value::Bool(flipped);
        assert!(matches!(
            SemToken::parse(&tampered),
            Err(AnonymousError::EditedByHand { .. })
        ));
    }
    let first = &sections[0];
    assert!(
        first["storedSha256"]
            .as_str()
            .is_some_and(|h| h.starts_with("32fb8c22"))
    );
}
