//! `mcpseal lock` and `mcpseal check` end to end against the fixture server, one surface file
//! per simulated version: the lock rule, contract breaks and compatibility lines, volatile
//! surfaces, refusals that leave the file byte-identical.

mod lock_support;

use lock_support::{Work, base_surface, with_description, with_new_tool, without_tool};

#[test]
fn versions_follow_the_rules() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let desc = w.surface(
        "desc.json",
        &with_description(&base_surface(), "echo", "Echo, and mail it home"),
    );
    let removed = w.surface("removed.json", &without_tool(&base_surface(), "clock"));

    let out = w.run(
        &["lock"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with("locked `surface.lock.json` at 1.0.0\n"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("version  1.0.0 (from the server's `serverInfo.version`)")
    );

    // Same surface: 0, whatever the version.
    let out = w.run(
        &["check"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with("ok: the surface is the one locked"),
        "{out:?}"
    );
    assert_eq!(out.stderr, "");

    // A changed description under 1.0.0: check 1, with the diff and the bump it needs.
    let out = w.run(
        &["check"],
        Some(&["--surface", &desc, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout
            .contains("SECURITY  /tools/name=echo/description"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("the surface changed but the version is 1.0.0 (locked: 1.0.0); the change needs a higher version"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("hint: bump the server's version to 1.0.1 or higher"),
        "{out:?}"
    );
    // And lock refuses it under the same version, leaving the file as it was.
    let before = w.lock_bytes();
    let out = w.run(
        &["lock"],
        Some(&["--surface", &desc, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("error: refused: the surface changed but the version is still 1.0.0"),
        "{out:?}"
    );
    assert_eq!(w.lock_bytes(), before);

    // A tool removed under 1.1.0: a contract break off the compatibility line.
    let out = w.run(
        &["check"],
        Some(&["--surface", &removed, "--server-version", "1.1.0"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("BREAKING  /tools/name=clock"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("does not satisfy the rules: the change needs a new major (2.0.0 or higher)"),
        "{out:?}"
    );
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "1.1.0"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(
            "a contract break needs a new major, and 1.0.0 → 1.1.0 stays on the same compatibility line"
        ),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("hint: bump the server's version to 2.0.0 or higher"),
        "{out:?}"
    );
    assert_eq!(
        w.lock_bytes(),
        before,
        "refusal leaves the file byte-identical"
    );

    // Under 2.0.0 check says re-lock, and lock accepts.
    let out = w.run(
        &["check"],
        Some(&["--surface", &removed, "--server-version", "2.0.0"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("the bump satisfies the rules\nhint: re-lock with `mcpseal lock`"),
        "{out:?}"
    );
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "2.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with("surface changed: locked `surface.lock.json` at 2.0.0 (was 1.0.0)"),
        "{out:?}"
    );
    let out = w.run(
        &["check"],
        Some(&["--surface", &removed, "--server-version", "2.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");

    // Same surface under a higher version: 0 with a note; lock re-stamps; never downwards.
    let out = w.run(
        &["check"],
        Some(&["--surface", &removed, "--server-version", "2.1.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "note: the server is at 2.1.0, the lock at 2.0.0: `mcpseal lock` will re-stamp it"
        ),
        "{out:?}"
    );
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "2.1.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with("surface unchanged: re-stamped `surface.lock.json` from 2.0.0 to 2.1.0"),
        "{out:?}"
    );
    let stamped = w.lock_bytes();
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "2.0.5"]),
    );
    // A lower version, same surface: a release mistake, refused and the file untouched.
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("the surface is unchanged but 2.0.5 is lower than the locked 2.1.0"),
        "{out:?}"
    );
    assert_eq!(w.lock_bytes(), stamped);
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "2.1.0"]),
    );
    assert!(out.stdout.starts_with("up to date"), "{out:?}");
    assert_eq!(w.lock_bytes(), stamped);
    // A changed surface under a lower version: check 1, lock refuses.
    let out = w.run(
        &["lock"],
        Some(&["--surface", &v1, "--server-version", "2.0.9"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("lower than the locked 2.1.0"),
        "{out:?}"
    );
    assert_eq!(w.lock_bytes(), stamped);
}

#[test]
fn zero_x_breaks_need_a_new_minor() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let removed = w.surface("removed.json", &without_tool(&base_surface(), "echo"));
    assert_eq!(
        w.run(
            &["lock"],
            Some(&["--surface", &v1, "--server-version", "0.4.0"])
        )
        .code,
        0
    );
    let before = w.lock_bytes();
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "0.4.1"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(
            "a contract break needs a new minor (the 0.x compatibility line), and 0.4.0 → 0.4.1 stays on the same compatibility line"
        ),
        "{out:?}"
    );
    assert!(out.stderr.contains("to 0.5.0 or higher"), "{out:?}");
    assert_eq!(w.lock_bytes(), before);
    // `check` names the need in the same words, without semver's contradicting "major".
    let out = w.run(
        &["check"],
        Some(&["--surface", &removed, "--server-version", "0.4.1"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(
            "the change needs a new minor (the 0.x compatibility line) (0.5.0 or higher)\n"
        ),
        "{out:?}"
    );
    assert!(!out.stderr.contains("semver bump"), "{out:?}");
    let out = w.run(
        &["lock"],
        Some(&["--surface", &removed, "--server-version", "0.5.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn volatile_surface_refused_then_locked_with_exclude() {
    let w = Work::new();
    let out = w.run(&["lock"], Some(&["--volatile-description", "clock"]));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("error: the surface changed between two captures (tool clock)"),
        "{out:?}"
    );
    assert!(out.stderr.contains("hint: leave the volatile part out of the hash: `--exclude /tools/name=clock/description`"), "{out:?}");
    assert!(!w.path("surface.lock.json").exists(), "nothing written");
    let out = w.run(
        &["lock", "--exclude", "/tools/name=clock/description"],
        Some(&["--volatile-description", "clock"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("exclude  /tools/name=clock/description"),
        "{out:?}"
    );
    let lock: serde_json::Value = serde_json::from_slice(&w.lock_bytes()).expect("lock JSON");
    assert_eq!(
        lock["declared"]["exclude"][0],
        "/tools/name=clock/description"
    );
    let out = w.run(&["check"], Some(&["--volatile-description", "clock"]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("exclude  /tools/name=clock/description (not compared)"),
        "{out:?}"
    );
    // A pointer that selects nothing is a usage error, not a silent no-op.
    let out = w.run(&["lock", "--exclude", "/tools/name=nope"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("error: `--exclude /tools/name=nope` selects nothing")
            && out.stderr.contains("\nhint: "),
        "{out:?}"
    );
    let out = w.run(&["lock", "--exclude", "tools"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("it must start with `/`"), "{out:?}");
}

#[test]
fn switches_deny_security_and_strict_semver() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let desc = w.surface(
        "desc.json",
        &with_description(&base_surface(), "echo", "Echo it, and mail it"),
    );
    let added = w.surface("added.json", &with_new_tool(&base_surface(), "zeta"));
    assert_eq!(
        w.run(
            &["lock"],
            Some(&["--surface", &v1, "--server-version", "1.0.0"])
        )
        .code,
        0
    );
    let before = w.lock_bytes();
    let out = w.run(
        &["lock", "--deny-security"],
        Some(&["--surface", &desc, "--server-version", "2.0.0"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("security-class changes and `--deny-security` is set"),
        "{out:?}"
    );
    assert_eq!(w.lock_bytes(), before);
    let out = w.run(
        &["lock", "--strict-semver"],
        Some(&["--surface", &added, "--server-version", "1.0.1"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("`--strict-semver`") && out.stderr.contains("to 1.1.0 or higher"),
        "{out:?}"
    );
    assert_eq!(w.lock_bytes(), before);
    // Without the switches both are accepted; security changes are printed prominently.
    let out = w.run(
        &["lock"],
        Some(&["--surface", &desc, "--server-version", "1.0.1"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("SECURITY  /tools/name=echo/description"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("warning: 1 security-class change(s) locked"),
        "{out:?}"
    );
}

#[test]
fn json_reports() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let removed = w.surface("removed.json", &without_tool(&base_surface(), "clock"));
    let out = w.run(
        &["lock", "--format", "json"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["outcome"], "created");
    assert_eq!(doc["written"], true);
    assert_eq!(doc["version"], "1.0.0");
    assert_eq!(doc["diff"]["requiredBump"], "none");
    let out = w.run(
        &["check", "--format", "json"],
        Some(&["--surface", &removed, "--server-version", "1.0.1"]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["matches"], false);
    assert_eq!(doc["relation"], "higher");
    assert_eq!(doc["acceptedFrom"], "2.0.0");
    assert_eq!(doc["lockWouldAccept"], false);
    assert_eq!(doc["diff"]["summary"]["breaking"], 1);
    assert_eq!(doc["diff"]["changes"][0]["path"], "/tools/name=clock");
    let out = w.run(
        &["lock", "--format", "json"],
        Some(&["--surface", &removed, "--server-version", "1.0.1"]),
    );
    assert_eq!(out.code, 1);
    assert_eq!(out.json()["outcome"], "refused");
    assert_eq!(out.json()["acceptedFrom"], "2.0.0");
}
