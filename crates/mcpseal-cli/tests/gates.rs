//! No silent gates: `lock`/`check` against a server with another name, versions that disagree
//! (a flag against the server's own claim, a live server below the lock). Each case both ways:
//! it fires on the bad case and stays quiet on the good one.

mod lock_support;

use lock_support::{Work, base_surface};
use serde_json::{Value, json};

fn renamed(name: &str) -> Value {
    let mut s = base_surface();
    s["serverInfo"]["name"] = json!(name);
    s
}

#[test]
fn a_lock_for_another_server_name_is_refused_unless_allow_rename() {
    let w = Work::new();
    let time = w.surface("time.json", &renamed("mcp-time"));
    let memory = w.surface("memory.json", &renamed("memory"));
    let lock = ["--server-version", "1.0.0"];
    assert_eq!(
        w.run(&["lock", lock[0], lock[1]], Some(&["--surface", &time]))
            .code,
        0
    );
    let before = w.lock_bytes();

    for cmd in ["check", "lock"] {
        let out = w.run(&[cmd, lock[0], "2.0.0"], Some(&["--surface", &memory]));
        assert_eq!(out.code, 2, "{cmd}: {out:?}");
        assert!(
            out.stderr.starts_with(
                "error: this lock was written for `mcp-time`; the server says `memory`\nhint: "
            ),
            "{cmd}: {out:?}"
        );
        assert!(out.stderr.contains("--allow-rename"), "{out:?}");
        // Not dressed up as drift.
        assert!(!out.stderr.contains("bump"), "{out:?}");
        assert_eq!(w.lock_bytes(), before, "{cmd} left the lock alone");
        let json = w.run(
            &[cmd, "--format", "json", lock[0], "2.0.0"],
            Some(&["--surface", &memory]),
        );
        assert_eq!(json.code, 2);
        assert_eq!(json.json()["error"]["kind"], "usage", "{json:?}");
    }

    // The same name: no refusal (quiet on the good case).
    let out = w.run(&["check", lock[0], lock[1]], Some(&["--surface", &time]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("written for"), "{out:?}");

    // `--allow-rename`: judged as a change (the name is a SECURITY change), not refused.
    let out = w.run(
        &["check", "--allow-rename", lock[0], lock[1]],
        Some(&["--surface", &memory]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("SECURITY"), "{out:?}");
    let out = w.run(
        &["lock", "--allow-rename", lock[0], "2.0.0"],
        Some(&["--surface", &memory]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("surface changed: locked"), "{out:?}");
}

#[test]
fn verify_keeps_treating_another_identity_as_drift() {
    let w = Work::new();
    let time = w.surface("time.json", &renamed("mcp-time"));
    let memory = w.surface("memory.json", &renamed("memory"));
    assert_eq!(
        w.run(
            &["lock", "--server-version", "1.0.0"],
            Some(&["--surface", &time])
        )
        .code,
        0
    );
    let out = w.run(&["verify"], Some(&["--surface", &memory]));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.starts_with("drift: "), "{out:?}");
    assert!(out.stdout.contains("/server/serverInfo/name"), "{out:?}");
}

#[test]
fn check_warns_when_the_live_server_is_below_the_lock_and_fails_with_strict_version() {
    let w = Work::new();
    let v = w.surface("v.json", &base_surface());
    let at = |version: &'static str| ["--surface", v.as_str(), "--server-version", version];
    assert_eq!(w.run(&["lock"], Some(&at("0.7.0"))).code, 0);

    // 0.6.3 < 0.7.0: the surface matches, but an older build runs.
    let out = w.run(&["check"], Some(&at("0.6.3")));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("ok: "), "{out:?}");
    assert!(
        out.stderr
            .contains("warning: the server reports 0.6.3, lower than the locked 0.7.0"),
        "{out:?}"
    );
    let out = w.run(&["check", "--strict-version"], Some(&at("0.6.3")));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.starts_with("version: "), "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: the server reports 0.6.3, lower than the locked 0.7.0"),
        "{out:?}"
    );
    let doc = w
        .run(
            &["check", "--strict-version", "--format", "json"],
            Some(&at("0.6.3")),
        )
        .json();
    assert_eq!(doc["reportedBelowLock"], true);
    assert_eq!(doc["strictVersion"], true);
    assert_eq!(doc["matches"], true);

    // The same or a higher version: quiet, even with `--strict-version`.
    for version in ["0.7.0", "0.7.1"] {
        let out = w.run(&["check", "--strict-version"], Some(&at(version)));
        assert_eq!(out.code, 0, "{version}: {out:?}");
        assert!(!out.stderr.contains("lower than"), "{version}: {out:?}");
        let doc = w
            .run(&["check", "--format", "json"], Some(&at(version)))
            .json();
        assert_eq!(doc["reportedBelowLock"], false, "{version}");
        assert!(doc.get("warnings").is_none(), "{version}: {doc}");
    }
}

#[test]
fn lock_warns_when_the_given_version_is_not_the_servers_own_and_still_locks() {
    let w = Work::new();
    let v = w.surface("v.json", &base_surface());
    let out = w.run(
        &["lock", "--server-version", "1.0.0"],
        Some(&["--surface", &v, "--server-version", "2.0.0"]),
    );
    assert_eq!(out.code, 0, "never a refusal: {out:?}");
    assert!(
        out.stdout
            .starts_with("locked `surface.lock.json` at 1.0.0"),
        "{out:?}"
    );
    assert!(
        out.stderr.contains(
            "warning: the version from --server-version is 1.0.0, but the server's own `serverInfo.version` says 2.0.0"
        ),
        "{out:?}"
    );
    assert!(!w.lock_bytes().is_empty());

    // A manifest is a version source too.
    let w = Work::new();
    let v = w.surface("v.json", &base_surface());
    w.write("package.json", r#"{"name": "x", "version": "1.0.0"}"#);
    let out = w.run(
        &["lock"],
        Some(&["--surface", &v, "--server-version", "2.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("warning: the version from `package.json` is 1.0.0"),
        "{out:?}"
    );

    // Agreeing (also spelled differently: `v1.0.0` is 1.0.0), or no other source: no warning.
    let w = Work::new();
    let v = w.surface("v.json", &base_surface());
    let out = w.run(
        &["lock", "--server-version", "v1.0.0"],
        Some(&["--surface", &v, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("warning"), "{out:?}");
    let w = Work::new();
    let out = w.run(
        &["lock"],
        Some(&["--surface", &v, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("warning"), "{out:?}");
    assert!(out.json().is_null());
}
