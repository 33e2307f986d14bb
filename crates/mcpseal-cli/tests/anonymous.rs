//! Anonymous access end to end (issue 13): real fixture servers over HTTP that require a
//! bearer token except for chosen methods (`--require-token`, `--open-method`), and record
//! which credential headers each request carried (`--credential-log`).
//!
//! Both ways: the table is exactly what the fixture allows; unchanged access is quiet; widened
//! access is a security change naming the method (check exit 1, lock refuses it without a
//! bump and under `--deny-security`); narrowed access is breaking. The credential is never in
//! an anonymous request (the fixture's log proves it) nor in any output.

mod lock_support;

use lock_support::Work;
use mcpseal_fixtures::HttpFixture;
use serde_json::Value;

const TOKEN: &str = "s3cr3t-anon-test-token-7f1c";

/// The probes a modern fixture with one resource and one prompt gets, in the table.
const PROBES: [&str; 9] = [
    "server/discover",
    "ping",
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
    "resources/read",
    "prompts/get",
    "tools/call",
];

fn bearer() -> String {
    format!("Authorization: Bearer {TOKEN}")
}

fn fixture(w: &Work, version: &str, open: &[&str], log: &str) -> HttpFixture {
    let log = w.path(log).to_string_lossy().into_owned();
    let mut args = vec![
        "--server-version",
        version,
        "--require-token",
        TOKEN,
        "--credential-log",
        &log,
    ];
    for m in open {
        args.extend_from_slice(&["--open-method", m]);
    }
    HttpFixture::start(&args)
}

fn run(w: &Work, args: &[&str], url: &str) -> lock_support::Out {
    let b = bearer();
    let mut all = args.to_vec();
    all.extend_from_slice(&["--header", &b, "--format", "json", url]);
    let out = w.run(&all, None);
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains(TOKEN), "the credential leaked: {text}");
    }
    out
}

fn no_token_in_lock(w: &Work) {
    let lock = String::from_utf8_lossy(&w.lock_bytes()).into_owned();
    assert!(!lock.contains(TOKEN), "the credential is in the lock");
}

fn anonymous_of_lock(w: &Work) -> Value {
    let lock: Value = serde_json::from_slice(&w.lock_bytes()).expect("lock is JSON");
    lock["anonymous"].clone()
}

#[test]
fn the_table_is_what_the_server_allows_and_widening_is_a_security_change() {
    let w = Work::new();
    let fx = fixture(&w, "1.0.0", &["server/discover", "tools/list"], "a.log");
    let out = run(
        &w,
        &["lock", "--anonymous", "--server-version", "1.0.0"],
        &fx.url,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    no_token_in_lock(&w);
    let a = anonymous_of_lock(&w);
    let answers = a["answers"].as_object().expect("answers");
    let methods: Vec<&str> = answers.keys().map(String::as_str).collect();
    let mut expected = PROBES.to_vec();
    expected.sort_unstable();
    assert_eq!(methods, expected, "{a}");
    for m in PROBES {
        let open = m == "server/discover" || m == "tools/list";
        assert_eq!(answers[m]["answers"], open, "{m}: {a}");
        assert_eq!(
            answers[m]["status"],
            if open { 200 } else { 401 },
            "{m}: {a}"
        );
    }
    assert_eq!(a["configs"]["default"]["POST /mcp"], a["answers"]);
    // The section's hash holds (the lock reads back), and the text shows the table.
    let text = w.run(
        &[
            "lock",
            "--anonymous",
            "--server-version",
            "1.0.0",
            "--header",
            &bearer(),
            &fx.url,
        ],
        None,
    );
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(text.stdout.starts_with("up to date"), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("resources/list             refused (401, needs a credential)"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains(TOKEN) && !text.stderr.contains(TOKEN));

    // The fixture's log: every anonymous probe went out without any credential header, and
    // the credentialed capture with it (so the log tells them apart).
    let log = std::fs::read_to_string(w.path("a.log")).expect("request log");
    let anonymous: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("authorization=no"))
        .collect();
    assert_eq!(anonymous.len(), 2 * PROBES.len(), "two lock runs: {log}");
    for l in &anonymous {
        let method = l.split(' ').next().unwrap_or("");
        assert!(PROBES.contains(&method), "{l}");
        assert!(l.contains("x-api-key=no") && l.contains("cookie=no"), "{l}");
    }
    assert!(
        log.lines().any(|l| l.contains("authorization=yes")),
        "{log}"
    );

    // Unchanged access: check and verify are quiet.
    let check = run(&w, &["check", "--server-version", "1.0.0"], &fx.url);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    assert_eq!(check.json()["anonymous"], "same");
    let verify = run(&w, &["verify"], &fx.url);
    assert_eq!(verify.code, 0, "{}{}", verify.stdout, verify.stderr);
    assert_eq!(verify.json()["anonymous"], "same");

    // Widened: resources/list now answers without a token.
    let wide = fixture(
        &w,
        "1.0.0",
        &["server/discover", "tools/list", "resources/list"],
        "b.log",
    );
    let check = run(&w, &["check", "--server-version", "1.0.0"], &wide.url);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    let doc = check.json();
    assert_eq!(doc["anonymous"], "changed");
    let changes = doc["diff"]["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 1, "{doc}");
    assert_eq!(changes[0]["class"], "security");
    assert_eq!(
        changes[0]["explanation"],
        "widened anonymous access: resources/list on POST /mcp, config default"
    );
    let verify = run(&w, &["verify"], &wide.url);
    assert_eq!(verify.code, 1, "{}{}", verify.stdout, verify.stderr);
    // --no-anonymous skips the measurement and says so.
    let skipped = run(
        &w,
        &["check", "--no-anonymous", "--server-version", "1.0.0"],
        &wide.url,
    );
    assert_eq!(skipped.code, 0, "{}{}", skipped.stdout, skipped.stderr);
    assert_eq!(skipped.json()["anonymous"], "skipped");

    // lock refuses the widening without a bump, and under --deny-security even with one.
    let before = w.lock_bytes();
    let same = run(
        &w,
        &["lock", "--anonymous", "--server-version", "1.0.0"],
        &wide.url,
    );
    assert_eq!(same.code, 1, "{}{}", same.stdout, same.stderr);
    assert_eq!(w.lock_bytes(), before);
    let denied = run(
        &w,
        &[
            "lock",
            "--anonymous",
            "--deny-security",
            "--server-version",
            "1.1.0",
        ],
        &wide.url,
    );
    assert_eq!(denied.code, 1, "{}{}", denied.stdout, denied.stderr);
    assert_eq!(w.lock_bytes(), before);
    let bumped = run(
        &w,
        &["lock", "--anonymous", "--server-version", "1.1.0"],
        &wide.url,
    );
    assert_eq!(bumped.code, 0, "{}{}", bumped.stdout, bumped.stderr);
    assert!(
        bumped.stderr.contains("security-class change(s) locked"),
        "{}",
        bumped.stderr
    );
    no_token_in_lock(&w);
    assert_eq!(
        anonymous_of_lock(&w)["answers"]["resources/list"]["answers"],
        true
    );

    // Narrowed again: tools/list stops answering anonymously, a breaking change.
    let narrow = fixture(&w, "1.1.0", &["server/discover", "resources/list"], "c.log");
    let check = run(&w, &["check", "--server-version", "1.1.0"], &narrow.url);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    let doc = check.json();
    let classes: Vec<&str> = doc["diff"]["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter_map(|c| c["class"].as_str())
        .collect();
    assert_eq!(classes, ["breaking"], "{doc}");
}

#[test]
fn a_401_on_a_credentialed_run_is_never_recorded_as_not_served() {
    let w = Work::new();
    let fx = fixture(&w, "1.0.0", &["server/discover"], "a.log");
    // No credential given: tools/list is refused with 401, so there is no surface to lock.
    let out = w.run(
        &["lock", "--anonymous", "--server-version", "1.0.0", &fx.url],
        None,
    );
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(w.lock_bytes().is_empty(), "nothing is locked");
    assert!(!out.stdout.contains("not served"), "{}", out.stdout);
    assert!(out.stderr.contains("401"), "{}", out.stderr);
}

#[test]
fn an_unchanged_surface_under_a_lower_version_is_refused() {
    let w = Work::new();
    let fx = fixture(&w, "2.0.0", &["server/discover"], "a.log");
    let out = run(
        &w,
        &["lock", "--anonymous", "--server-version", "2.0.0"],
        &fx.url,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let before = w.lock_bytes();
    let lower = w.run(
        &[
            "lock",
            "--anonymous",
            "--server-version",
            "1.9.0",
            "--header",
            &bearer(),
            &fx.url,
        ],
        None,
    );
    assert_eq!(lower.code, 1, "{}{}", lower.stdout, lower.stderr);
    assert!(
        lower
            .stderr
            .contains("the surface is unchanged but 1.9.0 is lower than the locked 2.0.0"),
        "{}",
        lower.stderr
    );
    assert_eq!(w.lock_bytes(), before);
}

const KEY_VALUE: &str = "k3y-v4lue-anon-9f2e";

fn stdio_run(w: &Work, args: &[&str], open: &[&str]) -> lock_support::Out {
    let env = format!("MCPSEAL_TEST_KEY={KEY_VALUE}");
    let mut all = args.to_vec();
    all.extend_from_slice(&[
        "--env",
        &env,
        "--anonymous-env-unset",
        "MCPSEAL_TEST_KEY",
        "--format",
        "json",
    ]);
    let mut fixture = vec![
        "--server-version",
        "1.0.0",
        "--require-env",
        "MCPSEAL_TEST_KEY",
    ];
    for m in open {
        fixture.extend_from_slice(&["--env-open-method", m]);
    }
    let out = w.run(&all, Some(&fixture));
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains(KEY_VALUE), "the credential leaked: {text}");
    }
    out
}

#[test]
fn stdio_with_the_credential_in_the_environment_works_the_same_way() {
    let w = Work::new();
    let open = ["server/discover", "tools/list"];
    let out = stdio_run(
        &w,
        &["lock", "--anonymous", "--server-version", "1.0.0"],
        &open,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let a = anonymous_of_lock(&w);
    assert_eq!(a["answers"]["tools/list"]["answers"], true, "{a}");
    assert_eq!(a["answers"]["resources/list"]["answers"], false, "{a}");
    assert_eq!(a["answers"]["resources/list"]["code"], -32001, "{a}");
    assert_eq!(a["configs"]["default"]["stdio"], a["answers"]);
    assert!(!String::from_utf8_lossy(&w.lock_bytes()).contains(KEY_VALUE));

    let same = stdio_run(&w, &["check", "--server-version", "1.0.0"], &open);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert_eq!(same.json()["anonymous"], "same");

    let wider = ["server/discover", "tools/list", "prompts/list"];
    let drift = stdio_run(&w, &["check", "--server-version", "1.0.0"], &wider);
    assert_eq!(drift.code, 1, "{}{}", drift.stdout, drift.stderr);
    let doc = drift.json();
    assert_eq!(doc["diff"]["changes"][0]["class"], "security", "{doc}");
    assert_eq!(
        doc["diff"]["changes"][0]["explanation"],
        "widened anonymous access: prompts/list on stdio, config default"
    );

    // Without an environment configuration a stdio lock cannot measure: exit 2, a hint.
    let bare = w.run(
        &["lock", "--anonymous", "--server-version", "1.0.0"],
        Some(&["--server-version", "1.0.0"]),
    );
    assert_eq!(bare.code, 2, "{}{}", bare.stdout, bare.stderr);
    assert!(
        bare.stderr.contains("--anonymous-env-unset"),
        "{}",
        bare.stderr
    );
}

#[test]
fn snapshot_shows_the_anonymous_table_and_refuses_lists_it_cannot_read() {
    let w = Work::new();
    let fx = fixture(&w, "1.0.0", &["server/discover", "tools/list"], "a.log");
    let b = bearer();
    let text = w.run(&["snapshot", "--anonymous", "--header", &b, &fx.url], None);
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(
        text.stdout
            .contains("anonymous access (POST /mcp):\n  initialize")
            || text
                .stdout
                .contains("anonymous access (POST /mcp):\n  ping"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("prompts/list               refused (401, needs a credential)"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("tools/list                 answers"),
        "{}",
        text.stdout
    );
    let json = run(&w, &["snapshot", "--anonymous"], &fx.url);
    assert_eq!(json.code, 0, "{}{}", json.stdout, json.stderr);
    assert_eq!(
        json.json()["anonymous"]["answers"]["tools/list"]["answers"],
        true
    );
    // On by default for HTTP: the same section without the flag.
    let plain = run(&w, &["snapshot"], &fx.url);
    assert_eq!(plain.json()["anonymous"], json.json()["anonymous"]);
    assert!(plain.json().get("anonymousSkipped").is_none());
    // --no-anonymous: no section, and the document says it was skipped.
    let skipped = run(&w, &["snapshot", "--no-anonymous"], &fx.url);
    assert!(
        skipped.json().get("anonymous").is_none(),
        "{}",
        skipped.stdout
    );
    assert_eq!(skipped.json()["anonymousSkipped"], true);
    let skipped_text = w.run(
        &["snapshot", "--no-anonymous", "--header", &b, &fx.url],
        None,
    );
    assert!(
        skipped_text
            .stdout
            .contains("anonymous  not measured (`--no-anonymous`)")
            && !skipped_text.stdout.contains("anonymous access ("),
        "{}",
        skipped_text.stdout
    );
    // Without the credential the lists refused with 401 fail the snapshot (exit 2), never
    // "not served".
    let refused = w.run(&["snapshot", &fx.url], None);
    assert_eq!(refused.code, 2, "{}{}", refused.stdout, refused.stderr);
    assert!(refused.stderr.contains("401"), "{}", refused.stderr);
    assert!(!refused.stdout.contains("not served"), "{}", refused.stdout);
}

#[test]
fn http_locks_measure_by_default_and_no_anonymous_keeps_the_section() {
    let w = Work::new();
    let fx = fixture(&w, "1.0.0", &["server/discover", "tools/list"], "a.log");
    // No flag: an HTTP lock measures anonymous access.
    let out = run(&w, &["lock", "--server-version", "1.0.0"], &fx.url);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.json()["outcome"], "created");
    assert!(out.json().get("anonymousSkipped").is_none());
    let a = anonymous_of_lock(&w);
    assert_eq!(a["answers"]["tools/list"]["answers"], true, "{a}");
    assert_eq!(a["answers"]["prompts/list"]["answers"], false, "{a}");
    no_token_in_lock(&w);

    // --no-anonymous against a widened server: nothing measured, the lock's section kept
    // byte for byte, and the report says so.
    let wide = fixture(
        &w,
        "1.0.0",
        &["server/discover", "tools/list", "prompts/list"],
        "b.log",
    );
    let before = w.lock_bytes();
    let skipped = run(
        &w,
        &["lock", "--no-anonymous", "--server-version", "1.0.0"],
        &wide.url,
    );
    assert_eq!(skipped.code, 0, "{}{}", skipped.stdout, skipped.stderr);
    assert_eq!(skipped.json()["outcome"], "upToDate");
    assert_eq!(skipped.json()["anonymousSkipped"], true);
    assert!(skipped.json().get("anonymous").is_none());
    assert_eq!(w.lock_bytes(), before);
    let log = std::fs::read_to_string(w.path("b.log")).expect("request log");
    assert!(
        !log.lines().any(|l| l.contains("authorization=no")),
        "--no-anonymous sent an anonymous request: {log}"
    );
    // Without it the widening is measured and refused without a bump.
    let measured = run(&w, &["lock", "--server-version", "1.0.0"], &wide.url);
    assert_eq!(measured.code, 1, "{}{}", measured.stdout, measured.stderr);
    assert_eq!(w.lock_bytes(), before);
}

#[test]
fn a_stdio_lock_without_an_env_configuration_measures_nothing_by_default() {
    let w = Work::new();
    let out = w.run(
        &["lock", "--server-version", "1.0.0", "--format", "json"],
        Some(&["--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.json().get("anonymous").is_none(), "{}", out.stdout);
    assert!(anonymous_of_lock(&w).is_null());
    // With the env configuration it measures without --anonymous.
    let w = Work::new();
    let measured = stdio_run(
        &w,
        &["lock", "--server-version", "1.0.0"],
        &["server/discover"],
    );
    assert_eq!(measured.code, 0, "{}{}", measured.stdout, measured.stderr);
    assert_eq!(
        anonymous_of_lock(&w)["configs"]["default"]["stdio"]["tools/list"]["answers"],
        false
    );
}

#[test]
fn the_listen_acknowledgement_is_the_answer() {
    for open in [true, false] {
        let w = Work::new();
        let log = w.path("a.log").to_string_lossy().into_owned();
        let mut args = vec![
            "--server-version",
            "1.0.0",
            "--list-changed",
            "--require-token",
            TOKEN,
            "--credential-log",
            &log,
            "--open-method",
            "server/discover",
        ];
        if open {
            args.extend_from_slice(&["--open-method", "subscriptions/listen"]);
        }
        let fx = HttpFixture::start(&args);
        let out = run(&w, &["lock", "--server-version", "1.0.0"], &fx.url);
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        let listen = &anonymous_of_lock(&w)["answers"]["subscriptions/listen"];
        assert_eq!(listen["answers"], open, "{listen}");
        assert_eq!(listen["status"], if open { 200 } else { 401 }, "{listen}");
        let log = std::fs::read_to_string(w.path("a.log")).expect("request log");
        assert!(
            log.lines()
                .any(|l| l.starts_with("subscriptions/listen") && l.contains("authorization=no")),
            "{log}"
        );
    }
}

#[test]
fn every_route_is_measured_on_its_own() {
    let w = Work::new();
    let log = w.path("a.log").to_string_lossy().into_owned();
    let fx = HttpFixture::start(&[
        "--server-version",
        "1.0.0",
        "--require-token",
        TOKEN,
        "--credential-log",
        &log,
        "--open-method",
        "server/discover",
        "--public-path",
        "/public/mcp",
    ]);
    let out = run(
        &w,
        &[
            "lock",
            "--route",
            "/public/mcp",
            "--server-version",
            "1.0.0",
        ],
        &fx.url,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let a = anonymous_of_lock(&w);
    let routes = &a["configs"]["default"];
    assert_eq!(routes["POST /mcp"]["tools/list"]["answers"], false, "{a}");
    assert_eq!(
        routes["POST /public/mcp"]["tools/list"]["answers"], true,
        "{a}"
    );
    assert_eq!(
        a["answers"], routes["POST /mcp"],
        "answers is the target's own route"
    );
    no_token_in_lock(&w);
    // Unchanged: quiet, without repeating --route (check re-measures the lock's routes).
    let same = run(&w, &["check", "--server-version", "1.0.0"], &fx.url);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert_eq!(same.json()["anonymous"], "same");
    let log = std::fs::read_to_string(w.path("a.log")).expect("request log");
    assert!(
        log.lines()
            .filter(|l| l.starts_with("tools/call"))
            .all(|l| l.contains("authorization=no")),
        "a tools/call probe carried the credential: {log}"
    );
    // The public route closed: the same server without it refuses there (404 from the
    // router), and check names the narrowed route.
    let closed = fixture(&w, "1.0.0", &["server/discover"], "b.log");
    let narrowed = run(&w, &["check", "--server-version", "1.0.0"], &closed.url);
    assert_eq!(narrowed.code, 1, "{}{}", narrowed.stdout, narrowed.stderr);
    let doc = narrowed.json();
    let text = doc["diff"]["changes"].to_string();
    assert!(text.contains("POST /public/mcp"), "{doc}");
    // A route that is not a path is a usage error.
    let bad = run(
        &w,
        &["check", "--route", "public", "--server-version", "1.0.0"],
        &fx.url,
    );
    assert_eq!(bad.code, 2, "{}{}", bad.stdout, bad.stderr);
    assert!(bad.stderr.contains("hint:"), "{}", bad.stderr);
}

#[test]
fn named_configurations_are_measured_each_on_their_own() {
    let w = Work::new();
    let set = format!("key-set=MCPSEAL_TEST_KEY={KEY_VALUE}");
    let configs = [
        "--anonymous-config",
        "key-set",
        "--anonymous-config-env",
        set.as_str(),
    ];
    let mut lock = vec!["lock", "--server-version", "1.0.0"];
    lock.extend_from_slice(&configs);
    let out = stdio_run(&w, &lock, &["server/discover"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let a = anonymous_of_lock(&w);
    // default: the server started without the key refuses the lists; key-set: the server
    // started with it serves them to a client that sends nothing.
    assert_eq!(
        a["configs"]["default"]["stdio"]["tools/list"]["answers"], false,
        "{a}"
    );
    assert_eq!(
        a["configs"]["key-set"]["stdio"]["tools/list"]["answers"], true,
        "{a}"
    );
    assert_eq!(a["answers"], a["configs"]["default"]["stdio"]);
    let env = format!("MCPSEAL_TEST_KEY={KEY_VALUE}");
    let mut text_lock = vec![
        "lock",
        "--server-version",
        "1.0.0",
        "--env",
        env.as_str(),
        "--anonymous-env-unset",
        "MCPSEAL_TEST_KEY",
    ];
    text_lock.extend_from_slice(&configs);
    let text = w.run(
        &text_lock,
        Some(&[
            "--server-version",
            "1.0.0",
            "--require-env",
            "MCPSEAL_TEST_KEY",
            "--env-open-method",
            "server/discover",
        ]),
    );
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(!text.stdout.contains(KEY_VALUE) && !text.stderr.contains(KEY_VALUE));
    assert!(
        text.stdout.contains("anonymous access (stdio):\n")
            && text
                .stdout
                .contains("anonymous access (stdio, config key-set):\n"),
        "{}",
        text.stdout
    );
    let lock_text = String::from_utf8_lossy(&w.lock_bytes()).into_owned();
    assert!(
        !lock_text.contains(KEY_VALUE),
        "the configuration's value is in the lock"
    );

    let mut check = vec!["check", "--server-version", "1.0.0"];
    check.extend_from_slice(&configs);
    let same = stdio_run(&w, &check, &["server/discover"]);
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert_eq!(same.json()["anonymous"], "same");
    // Without the configuration check cannot re-measure it: exit 2 naming it, never a
    // silent "same" or a dropped configuration.
    let missing = stdio_run(
        &w,
        &["check", "--server-version", "1.0.0"],
        &["server/discover"],
    );
    assert_eq!(missing.code, 2, "{}{}", missing.stdout, missing.stderr);
    assert!(missing.stderr.contains("`key-set`"), "{}", missing.stderr);
    assert!(missing.stderr.contains("hint:"), "{}", missing.stderr);
    // A value for an undeclared configuration is a usage error that does not echo the value.
    let undeclared = stdio_run(
        &w,
        &["check", "--anonymous-config-env", set.as_str()],
        &["server/discover"],
    );
    assert_eq!(
        undeclared.code, 2,
        "{}{}",
        undeclared.stdout, undeclared.stderr
    );
    assert!(
        undeclared.stderr.contains("key-set"),
        "{}",
        undeclared.stderr
    );
}

#[test]
fn an_http_configuration_sends_its_headers_and_never_the_credential() {
    let w = Work::new();
    let fx = fixture(&w, "1.0.0", &["server/discover", "tools/list"], "a.log");
    let out = run(
        &w,
        &[
            "lock",
            "--server-version",
            "1.0.0",
            "--anonymous-config",
            "with-cookie",
            "--anonymous-config-header",
            "with-cookie=Cookie: session=stranger",
        ],
        &fx.url,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let a = anonymous_of_lock(&w);
    assert_eq!(
        a["configs"]["with-cookie"]["POST /mcp"]["tools/list"]["answers"], true,
        "{a}"
    );
    assert_eq!(
        a["configs"]["with-cookie"]["POST /mcp"]["prompts/list"]["answers"], false,
        "{a}"
    );
    assert!(!String::from_utf8_lossy(&w.lock_bytes()).contains("stranger"));
    assert!(!out.stdout.contains("stranger") && !out.stderr.contains("stranger"));
    // The log: the configuration's probes carried its cookie, no probe carried the bearer.
    let log = std::fs::read_to_string(w.path("a.log")).expect("request log");
    let anonymous: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("authorization=no"))
        .collect();
    assert_eq!(anonymous.len(), 2 * PROBES.len(), "{log}");
    assert_eq!(
        anonymous
            .iter()
            .filter(|l| l.contains("cookie=yes"))
            .count(),
        PROBES.len(),
        "{log}"
    );
}

#[test]
fn anonymous_only_records_what_a_stranger_sees() {
    let w = Work::new();
    let fx = fixture(&w, "1.0.0", &["server/discover", "tools/list"], "a.log");
    let out = run(&w, &["snapshot", "--anonymous-only"], &fx.url);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(doc["anonymousOnly"], true, "{doc}");
    // tools/list answered: counted as usual; the refused lists are marked refused, never
    // null and never "not served".
    assert!(doc["counts"]["tools"].as_u64().is_some(), "{doc}");
    for list in ["resources", "resourceTemplates", "prompts"] {
        assert!(doc["counts"].get(list).is_none(), "{list}: {doc}");
        assert_eq!(doc["refused"][list]["status"], 401, "{list}: {doc}");
        assert_eq!(doc["surface"][list], "refused", "{list}: {doc}");
        // The typed per-item hashes say refused too (not null: nothing says "not served").
        assert_eq!(doc["items"][list], "refused", "{list}: {doc}");
        assert!(doc["notServed"].get(list).is_none(), "{list}: {doc}");
    }
    assert!(doc["surface"]["tools"].is_array(), "{doc}");
    assert!(doc["items"]["tools"].is_object(), "{doc}");
    lock_support::assert_schema("snapshot.schema.json", &doc);
    // Nothing of it was asked with the credential.
    let log = std::fs::read_to_string(w.path("a.log")).expect("request log");
    assert!(
        !log.lines().any(|l| l.contains("authorization=yes")),
        "{log}"
    );
    let text = w.run(
        &[
            "snapshot",
            "--anonymous-only",
            "--header",
            &bearer(),
            &fx.url,
        ],
        None,
    );
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(
        text.stdout
            .contains("prompts            refused (401, needs a credential)"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains(TOKEN));
    // The same server with the credential and without the flag: every list, no refusals.
    let full = run(&w, &["snapshot"], &fx.url);
    assert_eq!(full.code, 0, "{}{}", full.stdout, full.stderr);
    assert!(full.json().get("refused").is_none());
    for list in ["resources", "resourceTemplates", "prompts"] {
        assert!(full.json()["items"][list].is_object(), "{list}");
    }
    lock_support::assert_schema("snapshot.schema.json", &full.json());
    assert!(full.json()["counts"]["prompts"].as_u64().is_some());
    // A stranger who gets nothing at all (discover refused too) has no surface: exit 2.
    let closed = fixture(&w, "1.0.0", &[], "b.log");
    let none = run(&w, &["snapshot", "--anonymous-only"], &closed.url);
    assert_eq!(none.code, 2, "{}{}", none.stdout, none.stderr);
}
