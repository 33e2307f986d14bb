//! Verbatim pages (`CaptureOptions::verbatim_pages`) against the real fixture over stdio and
//! Streamable HTTP (JSON bodies and event streams): a capture that keeps each page as the
//! server's bytes records exactly what the usual capture records (pages, failures, exchanges),
//! normalises to the usual document byte for byte (so the same fingerprint: it is a function
//! of that document), and still redacts a secret the server echoes in a page (such a page
//! takes the usual path).
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

use std::time::Duration;

use mcpseal_client::{
    Capture, CaptureOptions, Connection, Options, Target, capture_surface, normalise_pages,
};
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use mcpseal_protocol::ListKind;

const DEADLINE: Duration = Duration::from_secs(120);

async fn capture(args: &[&str], options: &Options, verbatim: bool) -> Capture {
    capture_target(&Target::stdio(stdio_argv(args)), options, verbatim).await
}

/// A capture from a fresh HTTP fixture started with `args` (each capture its own server, so
/// the two captures compared ask the same questions of the same state).
async fn capture_http(args: &[&str], options: &Options, verbatim: bool) -> Capture {
    let fx = HttpFixture::start(args);
    capture_target(&Target::http(fx.url.clone()), options, verbatim).await
}

async fn capture_target(target: &Target, options: &Options, verbatim: bool) -> Capture {
    let target = target.clone();
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

/// The exchanges without their durations (and without what differs between two HTTP servers
/// by design: the `Date` header and the session id a legacy server draws at random).
fn timeless(c: &Capture) -> Vec<mcpseal_client::Exchange> {
    let mut out = c.exchanges.clone();
    let chance = |h: &mcpseal_client::Header| {
        h.name.eq_ignore_ascii_case("date") || h.name.eq_ignore_ascii_case("mcp-session-id")
    };
    for e in &mut out {
        e.duration_ms = 0;
        e.response_headers.retain(|h| !chance(h));
        e.request_headers.retain(|h| !chance(h));
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
    let path = leaky_surface(
        dir.path(),
        &format!("called with {SECRET} in its environment"),
    );
    let options = Options {
        timeout: Duration::from_secs(30),
        env: vec![("SERVICE_API_KEY".to_owned(), SECRET.to_owned())],
        ..Options::default()
    };
    let args = ["--surface", &path, "--tools", "200"];
    let usual = capture(&args, &options, false).await;
    let verbatim = capture(&args, &options, true).await;
    let text = document(&verbatim);
    assert!(!text.contains(SECRET), "the secret leaked");
    assert!(text.contains("[redacted]"), "the page was redacted");
    assert_eq!(document(&usual), text);
}

/// A surface file in `dir` of one tool, `leaky`, whose description is `description` (a secret
/// the server was given, echoed in a page); its path.
fn leaky_surface(dir: &std::path::Path, description: &str) -> String {
    let surface = dir.join("surface.json");
    let tools = serde_json::json!({"tools": [{
        "name": "leaky",
        "description": description,
        "inputSchema": {"type": "object"}
    }]});
    std::fs::write(&surface, tools.to_string()).expect("writes");
    surface.to_str().expect("utf-8 path").to_owned()
}

/// A surface file whose one `tools/list` page carries what a lazy reader could get wrong:
/// escapes, non-ASCII text, awkward numbers, empty containers, a key given twice. The fixture
/// parses the file and writes its own JSON, so the wire carries serde_json's spelling of it.
fn awkward_surface(dir: &std::path::Path) -> String {
    let mut tools = String::from("[");
    for i in 0..400 {
        if i > 0 {
            tools.push(',');
        }
        tools.push_str(&format!(
            r#"{{"name":"t{i:04}","description":"é \"q\" \\ \u00e9 \ud83d\ude00 ✓ \n\t/\/ {i}",
              "inputSchema":{{"type":"object","properties":{{"n":{{"type":"number","minimum":-0.0,"maximum":1.5e3,
              "default":1E21,"multipleOf":0.1,"examples":[1,1.0,-5e-324,12345678901234567890,{{}},[]]}}}}}},
              "annotations":{{"title":"first","title":"last {i}"}}}}"#
        ));
    }
    tools.push(']');
    let path = dir.join("awkward.json");
    std::fs::write(&path, format!(r#"{{"tools":{tools}}}"#)).expect("writes");
    path.to_str().expect("utf-8 path").to_owned()
}

#[tokio::test]
async fn verbatim_http_pages_record_what_the_usual_capture_records() {
    let options = Options {
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let awkward = awkward_surface(dir.path());
    // 5,000 generated tools in pages of 100 (51 pages, each well under 64 KiB: over HTTP every
    // page is kept as bytes), as JSON bodies and as event streams; one large page of an
    // awkward surface both ways; and the legacy era.
    for args in [
        &["--tools", "5000", "--page-size", "100"][..],
        &["--sse", "--tools", "5000", "--page-size", "100"][..],
        &["--surface", &awkward][..],
        &["--sse", "--surface", &awkward][..],
        &["--mode", "legacy", "--tools", "500", "--page-size", "200"][..],
        &["--mode", "legacy", "--sse", "--tools", "300"][..],
    ] {
        let usual = capture_http(args, &options, false).await;
        let mut verbatim = capture_http(args, &options, true).await;
        let n = pages(&usual, ListKind::Tools);
        assert!(n >= 1, "{args:?}");
        assert_eq!(n, pages(&verbatim, ListKind::Tools), "{args:?}");
        if args.contains(&"5000") {
            assert_eq!(n, 51, "{args:?}");
        }
        assert_eq!(timeless(&usual), timeless(&verbatim), "{args:?}");
        normalise_pages(&mut verbatim.raw);
        assert_eq!(document(&usual), document(&verbatim), "{args:?}");
    }
}

#[tokio::test]
async fn a_secret_echoed_in_an_http_page_is_redacted_as_ever() {
    const SECRET: &str = "sk-verbatim-http-0123456789abcdef";
    let dir = tempfile::tempdir().expect("tempdir");
    let path = leaky_surface(dir.path(), &format!("called with {SECRET} in its headers"));
    let options = Options {
        timeout: Duration::from_secs(30),
        headers: vec![("Authorization".to_owned(), format!("Bearer {SECRET}"))],
        ..Options::default()
    };
    for sse in [false, true] {
        let mut args = vec!["--surface", &path];
        if sse {
            args.push("--sse");
        }
        let usual = capture_http(&args, &options, false).await;
        let verbatim = capture_http(&args, &options, true).await;
        let text = document(&verbatim);
        assert!(!text.contains(SECRET), "the secret leaked (sse: {sse})");
        assert!(
            text.contains("[redacted]"),
            "the page was redacted (sse: {sse})"
        );
        assert_eq!(document(&usual), text, "sse: {sse}");
    }
}
