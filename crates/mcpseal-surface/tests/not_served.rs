//! "Not served" means the server said so (SPEC.md §4): a list is not served only when the
//! capture recorded the server's answer that the method does not exist; every other recorded
//! outcome fails the list. Both directions of each rule, in both eras, and the warning for a
//! server that advertises a capability it then answers as unknown.

use mcpseal_surface::{
    FailedKind, FailureCause, Form, ListKind, ListState, NotServedKind, RawCapture, Surface,
};
use serde_json::{Value, json};

/// A capture in `era` whose server advertises `capabilities`, with `tools` ending in `failure`
/// and the three other lists served empty.
fn capture(era: &str, capabilities: Value, failure: Value) -> RawCapture {
    let server = if era == "2025-11-25" {
        json!({"protocolVersion": era, "capabilities": capabilities,
               "serverInfo": {"name": "s", "version": "1"}})
    } else {
        json!({"supportedVersions": [era], "capabilities": capabilities,
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
    };
    let doc = json!({
        "schemaVersion": 1,
        "era": era,
        "server": server,
        "lists": {
            "tools": {"pages": [], "failure": failure},
            "resources": {"pages": [{"resources": []}]},
            "resourceTemplates": {"pages": [{"resourceTemplates": []}]},
            "prompts": {"pages": [{"prompts": []}]},
        }
    });
    // serde_json orders keys: `lists` comes before `server` in the text, so the fast path
    // from bytes must judge each failure only once it has read the server's capabilities.
    let bytes = doc.to_string();
    assert!(bytes.find("\"lists\"") < bytes.find("\"server\""));
    let raw = RawCapture::from_slice(bytes.as_bytes()).expect("a capture");
    assert_eq!(
        Surface::from_slice(bytes.as_bytes()).ok(),
        Surface::from_capture(&raw).ok(),
        "both paths agree on {bytes}"
    );
    raw
}

fn failure(kind: &str, cause: &str, code: Option<i64>) -> Value {
    let mut f =
        json!({"kind": kind, "cause": cause, "page": 1, "message": format!("page 1: {cause}")});
    if let Some(c) = code {
        f["code"] = json!(c);
    }
    f
}

fn tools(s: &Surface) -> &ListState {
    s.list(ListKind::Tools)
}

#[test]
fn method_not_found_is_not_served_in_both_eras() {
    for era in ["2025-11-25", "2026-07-28"] {
        let s = Surface::from_capture(&capture(
            era,
            json!({}),
            failure("error", "methodNotFound", Some(-32601)),
        ))
        .expect("surface");
        match tools(&s) {
            ListState::NotServed(n) => {
                assert_eq!(n.kind, NotServedKind::MethodNotFound, "{era}");
                assert!(!n.advertised);
            }
            other => panic!("{era}: {other:?}"),
        }
        assert!(!s.has_untrustworthy_gap(), "{era}");
        assert!(s.contradictions().is_empty(), "{era}");
        assert_eq!(s.canonical_value(Form::McpSeal1)["tools"], Value::Null);
    }
}

#[test]
fn an_advertised_list_answered_as_unknown_is_not_served_and_a_contradiction() {
    for era in ["2025-11-25", "2026-07-28"] {
        let s = Surface::from_capture(&capture(
            era,
            json!({"tools": {"listChanged": true}}),
            failure("error", "methodNotFound", Some(-32601)),
        ))
        .expect("surface");
        assert!(
            matches!(tools(&s), ListState::NotServed(n) if n.advertised),
            "{era}"
        );
        assert_eq!(s.contradictions(), [ListKind::Tools], "{era}");
        // `{"tools": null}` is not an advertisement.
        let s = Surface::from_capture(&capture(
            era,
            json!({"tools": null}),
            failure("error", "methodNotFound", Some(-32601)),
        ))
        .expect("surface");
        assert!(s.contradictions().is_empty(), "{era}");
    }
}

#[test]
fn another_error_is_not_served_only_on_a_2025_server_without_the_capability() {
    let other = || failure("error", "errorAnswer", Some(-32603));
    let s = Surface::from_capture(&capture("2025-11-25", json!({}), other())).expect("surface");
    assert!(matches!(tools(&s), ListState::NotServed(n) if n.kind == NotServedKind::NotAdvertised));
    assert!(!s.has_untrustworthy_gap());
    // The capability is advertised: the error is a failure, not an absence.
    let s = Surface::from_capture(&capture("2025-11-25", json!({"tools": {}}), other()))
        .expect("surface");
    assert!(
        matches!(tools(&s), ListState::Failed(f) if f.cause() == Some(FailureCause::ErrorAnswer))
    );
    assert!(s.has_untrustworthy_gap());
    // 2026 servers answer an un-advertised list with -32601; anything else is a failure.
    let s = Surface::from_capture(&capture("2026-07-28", json!({}), other())).expect("surface");
    assert!(matches!(tools(&s), ListState::Failed(f) if f.kind == FailedKind::Recorded));
}

#[test]
fn every_way_of_getting_no_answer_fails_the_list() {
    for (kind, cause) in [
        ("transport", "timeout"),
        ("transport", "oversize"),
        ("transport", "closed"),
        ("transport", "invalidUtf8"),
        ("transport", "invalidJson"),
        ("transport", "unauthorized"),
        ("transport", "httpStatus"),
        ("transport", "network"),
        ("transport", "spawn"),
        ("transport", "malformedResult"),
        ("pageCap", "pageCap"),
        ("pageCap", "captureCap"),
        ("cursorLoop", "cursorLoop"),
    ] {
        // Whatever the server advertises, in either era.
        for (era, caps) in [
            ("2025-11-25", json!({})),
            ("2026-07-28", json!({"tools": {}})),
        ] {
            let s = Surface::from_capture(&capture(era, caps, failure(kind, cause, None)))
                .expect("surface");
            match tools(&s) {
                ListState::Failed(f) => {
                    assert_eq!(f.kind, FailedKind::Recorded, "{cause}");
                    assert_eq!(f.cause().map(FailureCause::as_str), Some(cause));
                    assert_eq!(f.page(), Some(1), "{cause}");
                }
                other => panic!("{cause} in {era}: {other:?}"),
            }
            assert!(s.has_untrustworthy_gap(), "{cause}");
            assert!(s.not_served().is_empty(), "{cause}");
            // The bytes are still defined: the list is `null`.
            assert_eq!(s.canonical_value(Form::McpSeal1)["tools"], Value::Null);
        }
    }
}

#[test]
fn causeless_captures_keep_their_old_reading() {
    // `error` without a cause: that build read it as not served; everything else failed.
    let s = Surface::from_capture(&capture(
        "2026-07-28",
        json!({}),
        json!({"kind": "error", "message": "page 1: error -32601: Method not found"}),
    ))
    .expect("surface");
    assert!(matches!(tools(&s), ListState::NotServed(n) if n.kind == NotServedKind::Error));
    let s = Surface::from_capture(&capture(
        "2026-07-28",
        json!({}),
        json!({"kind": "transport", "message": "page 1: no answer to `tools/list` within 5s"}),
    ))
    .expect("surface");
    assert!(matches!(tools(&s), ListState::Failed(f) if f.cause().is_none()));
}

#[test]
fn a_cause_from_a_newer_build_reads_as_failed() {
    let s = Surface::from_capture(&capture(
        "2026-07-28",
        json!({}),
        failure("transport", "somethingNew", None),
    ))
    .expect("a newer cause still loads");
    assert!(matches!(tools(&s), ListState::Failed(f) if f.cause() == Some(FailureCause::Other)));
}

#[test]
fn a_page_without_the_list_array_fails_the_list() {
    let doc = json!({"era": "2026-07-28", "server": {"capabilities": {}},
        "lists": {"tools": {"pages": [{"tools": []}, {"items": []}]}}});
    let s = Surface::from_slice(doc.to_string().as_bytes()).expect("surface");
    assert!(matches!(tools(&s), ListState::Failed(f) if f.kind == FailedKind::Malformed));
    // The other three are absent: not captured, failed as well.
    assert_eq!(s.failed().len(), 4);
}
