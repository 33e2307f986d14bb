//! The public shapes other crates and files depend on: form names, fingerprint JSON, and the
//! capture document written back by `RawCapture::to_vec`.

use mcpseal_surface::{Era, FailureKind, Form, RawCapture, Surface, UnknownForm};

const CAPTURE: &str = r#"{"era":"2025-11-25","server":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"demo","version":"1"}},"lists":{"tools":{"pages":[{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object"}},{"name":"u","inputSchema":{"type":"object"}}]}]},"resources":{"pages":[{"resources":[]}]},"resourceTemplates":{"pages":[],"failure":{"kind":"pageCap","message":"cap"}}}}"#;

#[test]
fn form_names() {
    for form in [Form::McpSeal1, Form::McpSurface1] {
        assert_eq!(form.as_str().parse::<Form>(), Ok(form));
        assert_eq!(form.to_string(), form.as_str());
    }
    assert_eq!(Form::McpSeal1.as_str(), "mcpseal/1");
    assert_eq!(Form::McpSurface1.as_str(), "mcp-surface/1");
    let err: UnknownForm = "mcpseal/2".parse::<Form>().expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "unknown form `mcpseal/2`: expected `mcpseal/1` or `mcp-surface/1`"
    );
    assert_eq!(Era::Modern.as_str(), "2026-07-28");
    assert_eq!(FailureKind::CursorLoop.as_str(), "cursorLoop");
}

#[test]
fn fingerprint_json_shape() {
    let s = Surface::from_slice(CAPTURE.as_bytes()).expect("valid");
    let fp = serde_json::to_value(s.fingerprint(Form::McpSeal1)).expect("serialise");
    assert_eq!(fp["form"], "mcpseal/1");
    assert_eq!(fp["sha256"].as_str().map(str::len), Some(64));
    let t = &fp["items"]["tools"]["t"];
    assert_eq!(t["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(
        t["descriptionSha256"],
        mcpseal_surface::sha256_hex(b"d").as_str()
    );
    assert!(fp["items"]["tools"]["u"]["descriptionSha256"].is_null());
    assert_eq!(fp["items"]["resources"], serde_json::json!({}));
    assert!(fp["items"]["resourceTemplates"].is_null());
    assert!(fp["items"]["prompts"].is_null());
    // Round trip.
    let back: mcpseal_surface::Fingerprint = serde_json::from_value(fp).expect("deserialise");
    assert_eq!(back, s.fingerprint(Form::McpSeal1));
    // Accessors.
    assert_eq!(s.server_name(), Some("demo"));
    assert!(s.has_untrustworthy_gap());
    assert_eq!(s.count(mcpseal_surface::ListKind::Tools), Some(2));
}

#[test]
fn capture_round_trips_through_to_vec() {
    let raw = RawCapture::from_slice(CAPTURE.as_bytes()).expect("valid");
    let again = RawCapture::from_slice(&raw.to_vec().expect("serialise")).expect("valid");
    let (a, b) = (
        Surface::from_capture(&raw).expect("surface"),
        Surface::from_capture(&again).expect("surface"),
    );
    assert_eq!(a, b);
    assert_eq!(
        a.fingerprint(Form::McpSurface1),
        b.fingerprint(Form::McpSurface1)
    );
}
