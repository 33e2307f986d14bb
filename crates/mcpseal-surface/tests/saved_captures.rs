//! Captures saved by the build before the raw capture had `schemaVersion` (`mcpseal snapshot
//! --save-capture` at commit bc7cbd5, against the modern and legacy fixtures) still load and give
//! the fingerprint that build printed; a capture from a newer build is refused with its version.

use mcpseal_surface::{CaptureError, Form, RawCapture, Surface, SurfaceError, parse_capture};

const SAVED: [(&str, &str); 2] = [
    (
        "modern",
        "75ea81f6c2a6dc8b891a4a77d11f1ff832007ab946c031e3a3c8994d12ede059",
    ),
    (
        "legacy",
        "5db06b6c8cce9644c04077f424e8cc555621ede9054e51ac844aed5d9afd1b1e",
    ),
];

fn saved(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/data/captures-v0/{name}.capture.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn captures_without_schema_version_load_with_their_old_fingerprint() {
    for (name, sha256) in SAVED {
        let bytes = saved(name);
        assert!(!String::from_utf8_lossy(&bytes).contains("schemaVersion"));
        let raw = parse_capture(&bytes).expect("an old capture loads");
        assert_eq!(raw.schema_version, 1, "{name}");
        let surface = Surface::from_capture(&raw).expect("surface");
        assert_eq!(surface.fingerprint(Form::McpSeal1).sha256, sha256, "{name}");
        // Written back, it carries the field and means the same.
        let again = raw.to_vec().expect("serialise");
        assert!(String::from_utf8_lossy(&again).starts_with(r#"{"schemaVersion":1,"#));
        assert_eq!(
            Surface::from_slice(&again)
                .expect("round trip")
                .fingerprint(Form::McpSeal1)
                .sha256,
            sha256
        );
    }
}

#[test]
fn a_newer_schema_version_is_refused_with_its_number() {
    let text = String::from_utf8(saved("modern")).expect("utf-8");
    let newer = text.replacen('{', r#"{"schemaVersion":2,"#, 1);
    match RawCapture::from_slice(newer.as_bytes()) {
        Err(CaptureError::NewerSchema(2)) => {}
        other => panic!("expected a newer-schema refusal, got {other:?}"),
    }
    assert!(matches!(
        Surface::from_slice(newer.as_bytes()),
        Err(SurfaceError::Capture { .. })
    ));
}
