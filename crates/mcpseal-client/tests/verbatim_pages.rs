//! Verbatim pages (`CaptureOptions::verbatim_pages`) against the real fixture over stdio: a
//! capture that keeps each large page as the server's bytes records exactly what the usual
//! capture records (pages, failures, exchanges), normalises to the usual document byte for
//! byte, and still redacts a secret the server echoes in a page (such a page takes the usual
//! path).
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

use std::time::Duration;

use mcpseal_client::{
    Capture, CaptureOptions, Connection, Options, Target, capture_surface, normalise_pages,
};
use mcpseal_fixtures::stdio_argv;
use mcpseal_protocol::ListKind;

const DEADLINE: Duration = Duration::from_secs(120);

async fn capture(args: &[&str], options: &Options, verbatim: bool) -> Capture {
    let target = Target::stdio(stdio_argv(args));
    tokio::time::timeout(DEADLINE, async {
        let conn = Connection::open(&target, options.clone())
            .await
            .expect("opens");
        let c = capture_surface(
            &conn,
            &CaptureOptions {
                verbatim_pages: verbatim,
                ..CaptureOptions::default()
            },
        )
        .await;
        conn.close().await;
        c
    })
    .await
    .expect("the capture ends within its deadline")
}

fn document(c: &Capture) -> String {
    serde_json::to_string_pretty(&c.raw).expect("serialises")
}

/// The exchanges without their durations.
fn timeless(c: &Capture) -> Vec<mcpseal_client::Exchange> {
    let mut out = c.exchanges.clone();
    for e in &mut out {
        e.duration_ms = 0;
    }
    out
}

fn pages(c: &Capture, kind: ListKind) -> usize {
    c.raw.lists.get(kind).map_or(0, |l| l.pages.len())
}

#[tokio::test]
async fn verbatim_pages_record_what_the_usual_capture_records() {
    let options = Options {
        timeout: Duration::from_secs(30),
        ..Options::default()
    };
    // 200 generated tools a page is ~90 KB, past the size from which pages stay bytes; one
    // page of 400 as well; and the legacy era.
    for args in [
        &["--tools", "600", "--page-size", "200"][..],
        &["--tools", "400"][..],
        &["--mode", "legacy", "--tools", "500", "--page-size", "200"][..],
    ] {
        let usual = capture(args, &options, false).await;
        let mut verbatim = capture(args, &options, true).await;
        assert!(pages(&usual, ListKind::Tools) >= 1, "{args:?}");
        assert_eq!(
            pages(&usual, ListKind::Tools),
            pages(&verbatim, ListKind::Tools),
            "{args:?}"
        );
        assert!(
            verbatim
                .raw
                .lists
                .get(ListKind::Tools)
                .expect("tools")
                .pages[0]
                .get()
                .len()
                > 64 * 1024,
            "the test needs a large page: {args:?}"
        );
        assert_eq!(timeless(&usual), timeless(&verbatim), "{args:?}");
        normalise_pages(&mut verbatim.raw);
        assert_eq!(document(&usual), document(&verbatim), "{args:?}");
    }
}

#[tokio::test]
async fn a_secret_echoed_in_a_large_page_is_redacted_as_ever() {
    const SECRET: &str = "sk-verbatim-0123456789abcdef";
    let dir = tempfile::tempdir().expect("tempdir");
    let surface = dir.path().join("surface.json");
    let tools = serde_json::json!({"tools": [{
        "name": "leaky",
        "description": format!("called with {SECRET} in its environment"),
        "inputSchema": {"type": "object"}
    }]});
    std::fs::write(&surface, tools.to_string()).expect("writes");
    let path = surface.to_str().expect("utf-8 path");
    let options = Options {
        timeout: Duration::from_secs(30),
        env: vec![("SERVICE_API_KEY".to_owned(), SECRET.to_owned())],
        ..Options::default()
    };
    let args = ["--surface", path, "--tools", "200"];
    let usual = capture(&args, &options, false).await;
    let verbatim = capture(&args, &options, true).await;
    let text = document(&verbatim);
    assert!(!text.contains(SECRET), "the secret leaked");
    assert!(text.contains("[redacted]"), "the page was redacted");
    assert_eq!(document(&usual), text);
}
