//! The capture records exactly what ended each list, over stdio and HTTP, against real
//! processes and sockets: the server's answer that a method does not exist, and every way of
//! getting no answer (timeout, crash, oversize, 401, a status without JSON-RPC, a redirect, a
//! result without the list array, a later page, the capture cap). And one timeout per dead
//! method: a second capture sharing the run's options does not wait it out again.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

use std::time::{Duration, Instant};

use mcpseal_client::{
    Capture, CaptureOptions, Connection, Options, Target, TimeoutMemo, capture_surface,
};
use mcpseal_fixtures::{HttpFixture, hostile_argv, stdio_argv};
use mcpseal_protocol::{FailureCause, FailureKind, ListFailure, ListKind};

const DEADLINE: Duration = Duration::from_secs(60);

fn options(timeout_ms: u64) -> Options {
    Options {
        timeout: Duration::from_millis(timeout_ms),
        ..Options::default()
    }
}

async fn capture(target: &Target, options: &Options, capture: &CaptureOptions) -> Capture {
    tokio::time::timeout(DEADLINE, async {
        let conn = Connection::open(target, options.clone())
            .await
            .expect("opens");
        let c = capture_surface(&conn, capture).await;
        conn.close().await;
        c
    })
    .await
    .expect("the capture ends within its deadline")
}

fn failure(c: &Capture, kind: ListKind) -> &ListFailure {
    c.raw
        .lists
        .get(kind)
        .and_then(|l| l.failure.as_ref())
        .unwrap_or_else(|| panic!("{kind} has a failure: {:#?}", c.raw.lists))
}

/// The fixture over stdio, and over HTTP (kept alive by the returned handle).
fn both(args: &[&str]) -> Vec<(Target, Option<HttpFixture>)> {
    let fx = HttpFixture::start(args);
    vec![
        (Target::stdio(stdio_argv(args)), None),
        (Target::http(fx.url.clone()), Some(fx)),
    ]
}

fn both_hostile(args: &[&str]) -> Vec<(Target, Option<HttpFixture>)> {
    let fx = HttpFixture::hostile(args);
    vec![
        (Target::stdio(hostile_argv(args)), None),
        (Target::http(fx.url.clone()), Some(fx)),
    ]
}

#[tokio::test]
async fn method_not_found_is_recorded_as_the_servers_answer() {
    let dir = tempfile::tempdir().expect("tmp");
    let surface = dir.path().join("s.json");
    std::fs::write(
        &surface,
        r#"{"tools": [{"name": "t", "inputSchema": {"type": "object"}}], "prompts": null}"#,
    )
    .expect("write");
    let path = surface.to_str().expect("utf-8");
    for (target, _fx) in both(&["--surface", path]) {
        let c = capture(&target, &options(5000), &CaptureOptions::default()).await;
        let f = failure(&c, ListKind::Prompts);
        assert_eq!(f.cause, Some(FailureCause::MethodNotFound), "{f:?}");
        assert_eq!(
            (f.kind, f.code, f.page),
            (FailureKind::Error, Some(-32601), Some(1))
        );
        if matches!(target, Target::Http { .. }) {
            // 2026 servers answer an unknown method with 404 and the JSON-RPC error.
            assert_eq!(f.http_status, Some(404));
        }
        // An answer does not stop the capture: every list was read.
        assert!(ListKind::ALL.iter().all(|&k| c.raw.lists.get(k).is_some()));
    }
}

#[tokio::test]
async fn a_timeout_is_recorded_and_the_capture_stops_there() {
    for (target, _fx) in both(&["--hang-on", "tools/list"]) {
        let c = capture(&target, &options(1500), &CaptureOptions::default()).await;
        let f = failure(&c, ListKind::Tools);
        assert_eq!(f.cause, Some(FailureCause::Timeout), "{f:?}");
        assert_eq!(f.kind, FailureKind::Transport);
        assert_eq!(f.page, Some(1));
        assert!(
            f.message
                .contains("no answer to `tools/list` within 1500ms"),
            "{f:?}"
        );
        // The lists after it were not asked (each would have cost the timeout again).
        assert!(c.raw.lists.resources.is_none(), "{:?}", c.raw.lists);
    }
}

#[tokio::test]
async fn a_dead_method_costs_one_timeout_per_run_not_one_per_connection() {
    for (target, _fx) in both(&["--hang-on", "tools/list"]) {
        let run = options(3000);
        let first = capture(&target, &run, &CaptureOptions::default()).await;
        assert_eq!(
            failure(&first, ListKind::Tools).cause,
            Some(FailureCause::Timeout)
        );
        // A second capture on a fresh connection (a new process on stdio), same run.
        let started = Instant::now();
        let second = capture(&target, &run, &CaptureOptions::default()).await;
        let f = failure(&second, ListKind::Tools);
        assert_eq!(f.cause, Some(FailureCause::Timeout));
        assert!(f.message.contains("not asked again"), "{f:?}");
        assert!(
            started.elapsed() < Duration::from_millis(3000),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(run.timeouts.dead_methods(), ["tools/list"]);
        // Another run (fresh options, fresh memo) asks again and waits again.
        let fresh = Options {
            timeouts: TimeoutMemo::default(),
            ..run.clone()
        };
        let third = capture(&target, &fresh, &CaptureOptions::default()).await;
        assert!(
            !failure(&third, ListKind::Tools)
                .message
                .contains("not asked again")
        );
    }
}

#[tokio::test]
async fn a_crash_is_recorded_as_closed_not_as_an_absence() {
    // stdio: exit code 3 when the second request arrives.
    let c = capture(
        &Target::stdio(stdio_argv(&["--crash-after", "1"])),
        &options(5000),
        &CaptureOptions::default(),
    )
    .await;
    let f = failure(&c, ListKind::Tools);
    assert_eq!(f.cause, Some(FailureCause::Closed), "{f:?}");
    assert!(f.message.contains("exit code 3"), "{f:?}");
    // HTTP: the connection dies under the request.
    let fx = HttpFixture::start(&["--crash-after", "1"]);
    let c = capture(
        &Target::http(fx.url.clone()),
        &options(5000),
        &CaptureOptions::default(),
    )
    .await;
    let f = failure(&c, ListKind::Tools);
    assert!(
        matches!(f.cause, Some(FailureCause::Network | FailureCause::Closed)),
        "{f:?}"
    );
    assert_eq!(f.kind, FailureKind::Transport);
}

#[tokio::test]
async fn a_later_page_failing_fails_the_list() {
    for (target, _fx) in both(&["--page-size", "1", "--crash-after", "2"]) {
        let c = capture(&target, &options(5000), &CaptureOptions::default()).await;
        let f = failure(&c, ListKind::Tools);
        assert_eq!(f.page, Some(2), "{f:?}");
        assert!(!f.cause.is_some_and(FailureCause::is_answer), "{f:?}");
        assert_eq!(c.raw.lists.tools.as_ref().map(|l| l.pages.len()), Some(1));
    }
}

#[tokio::test]
async fn a_401_is_a_refusal_with_its_challenge() {
    let fx = HttpFixture::start(&["--unauthorized", "resources/list"]);
    let c = capture(
        &Target::http(fx.url.clone()),
        &options(5000),
        &CaptureOptions::default(),
    )
    .await;
    let f = failure(&c, ListKind::Resources);
    assert_eq!(f.cause, Some(FailureCause::Unauthorized), "{f:?}");
    assert_eq!(f.http_status, Some(401));
    assert_eq!(
        f.challenge.as_deref(),
        Some(r#"Bearer realm="mcp", error="invalid_token""#)
    );
    assert!(f.message.contains("needs a credential"), "{f:?}");
    assert_eq!(f.kind, FailureKind::Transport, "never an `error` answer");
}

#[tokio::test]
async fn output_that_is_no_answer_is_recorded_by_what_it_was() {
    let cases: &[(&str, FailureCause)] = &[
        ("huge-message", FailureCause::Oversize),
        ("invalid-utf8", FailureCause::InvalidUtf8),
        ("deep-json", FailureCause::InvalidJson),
        ("no-list-array", FailureCause::MalformedResult),
    ];
    let small = Options {
        limits: mcpseal_client::Limits {
            max_message_bytes: 1024 * 1024,
            ..mcpseal_client::Limits::default()
        },
        ..options(3000)
    };
    for (case, cause) in cases {
        for (target, _fx) in both_hostile(&["--case", case]) {
            let c = capture(&target, &small, &CaptureOptions::default()).await;
            let f = failure(&c, ListKind::Tools);
            assert_eq!(f.cause, Some(*cause), "{case} over {target:?}: {f:?}");
            assert_eq!(f.page, Some(1), "{case}");
        }
    }
}

#[tokio::test]
async fn http_statuses_without_a_json_rpc_answer_are_failures() {
    for (case, cause, status) in [
        ("server-error", FailureCause::HttpStatus, 503),
        ("redirect-loop", FailureCause::HttpStatus, 307),
        ("gzip-bomb", FailureCause::InvalidJson, 200),
        ("deflate-bomb", FailureCause::InvalidJson, 200),
        ("huge-headers", FailureCause::Network, 0),
        ("many-headers", FailureCause::Network, 0),
    ] {
        let fx = HttpFixture::hostile(&["--case", case]);
        // The bomb's server builds its ~6 MiB body (CRC over 1 GiB of zeros) before it answers,
        // which takes seconds on a loaded machine; the client refuses it at its headers, so a
        // generous timeout costs nothing when it holds and keeps the test off the clock.
        let timeout = if case.ends_with("bomb") { 30_000 } else { 3000 };
        let c = capture(
            &Target::http(fx.url.clone()),
            &options(timeout),
            &CaptureOptions::default(),
        )
        .await;
        let f = failure(&c, ListKind::Tools);
        assert_eq!(f.cause, Some(cause), "{case}: {f:?}");
        assert_eq!(f.http_status.unwrap_or(0), status, "{case}: {f:?}");
        if case == "redirect-loop" {
            assert!(f.message.contains("redirects to /mcp"), "{f:?}");
        }
        if case.ends_with("bomb") {
            assert!(f.message.contains("not decoded"), "{f:?}");
        }
    }
}

#[tokio::test]
async fn pagination_without_end_is_stopped_by_its_caps() {
    for (target, _fx) in both_hostile(&["--case", "cursor-loop"]) {
        let c = capture(&target, &options(3000), &CaptureOptions::default()).await;
        assert_eq!(
            failure(&c, ListKind::Tools).cause,
            Some(FailureCause::CursorLoop)
        );
    }
    for (target, _fx) in both_hostile(&["--case", "cursor-forever"]) {
        let caps = CaptureOptions {
            page_cap: 50,
            ..CaptureOptions::default()
        };
        let c = capture(&target, &options(3000), &caps).await;
        let f = failure(&c, ListKind::Tools);
        assert_eq!(f.cause, Some(FailureCause::PageCap), "{f:?}");
        assert_eq!(f.kind, FailureKind::PageCap);
    }
    for (target, _fx) in both_hostile(&["--case", "many-tools"]) {
        let mut capped = options(5000);
        capped.limits.max_capture_bytes = 2 * 1024 * 1024;
        let c = capture(&target, &capped, &CaptureOptions::default()).await;
        let f = failure(&c, ListKind::Tools);
        assert_eq!(f.cause, Some(FailureCause::CaptureCap), "{f:?}");
        assert!(f.message.contains("2097152-byte cap"), "{f:?}");
        let kept: usize = c
            .raw
            .lists
            .tools
            .as_ref()
            .map_or(0, |l| l.pages.iter().map(|p| p.get().len()).sum());
        assert!(kept <= 2 * 1024 * 1024, "{kept}");
    }
}
