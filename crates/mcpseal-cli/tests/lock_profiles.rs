//! Configuration profiles (issue 13 item 6) end to end: one fixture server started with and
//! without `--hide-tool` (a read-only mode), each configuration locked, checked and verified as
//! its own profile of one lock file; a change in one profile is reported under its name, the
//! other profile is left byte for byte; plain locks keep their format and refuse `--profile`.

mod lock_support;

use lock_support::{Work, assert_schema, base_surface};
use serde_json::Value;

fn lock_json(w: &Work) -> Value {
    serde_json::from_slice(&w.lock_bytes()).expect("lock is JSON")
}

#[test]
fn two_profiles_lock_check_and_verify_each_and_name_the_profile() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let full = ["--surface", v1.as_str(), "--server-version", "1.0.0"];
    let ro = [
        "--surface",
        v1.as_str(),
        "--server-version",
        "1.0.0",
        "--hide-tool",
        "echo",
    ];

    let out = w.run(
        &["lock", "--profile", "full", "--format", "json"],
        Some(&full),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["outcome"], "created");
    assert_eq!(out.json()["profile"], "full");
    assert_schema("lock-report.schema.json", &out.json());
    let out = w.run(&["lock", "--profile", "read-only"], Some(&ro));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("profile  read-only"), "{out:?}");

    // The file: schemaVersion 2, each profile its own surface and hash, the map hashed whole.
    let lock = lock_json(&w);
    assert_schema("surface-lock-profiles.schema.json", &lock);
    assert_eq!(lock["schemaVersion"], 2);
    let profiles = &lock["declared"]["profiles"];
    let names = |p: &str| -> Vec<String> {
        profiles[p]["surface"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(names("full"), ["clock", "echo"]);
    assert_eq!(names("read-only"), ["clock"]);
    // Each profile's hash is the fingerprint a snapshot of that configuration gives.
    for (name, fixture) in [("full", &full[..]), ("read-only", &ro[..])] {
        let snap = w.run(&["snapshot", "--format", "json"], Some(fixture));
        assert_eq!(snap.code, 0, "{snap:?}");
        assert_eq!(profiles[name]["sha256"], snap.json()["sha256"], "{name}");
    }
    assert_ne!(profiles["full"]["sha256"], profiles["read-only"]["sha256"]);

    // Each profile checks and verifies against its own configuration.
    for (name, fixture) in [("full", &full[..]), ("read-only", &ro[..])] {
        for cmd in ["check", "verify"] {
            let out = w.run(&[cmd, "--profile", name], Some(fixture));
            assert_eq!(out.code, 0, "{cmd} {name}: {out:?}");
        }
    }

    // The read-only configuration starts showing `echo`: a change under that profile's name,
    // in every path (JSON and text).
    let out = w.run(
        &["check", "--profile", "read-only", "--format", "json"],
        Some(&full),
    );
    assert_eq!(out.code, 1, "{out:?}");
    let doc = out.json();
    assert_schema("check-report.schema.json", &doc);
    assert_eq!(doc["profile"], "read-only");
    let changes = doc["diff"]["changes"].as_array().expect("changes");
    assert!(!changes.is_empty(), "{doc:#}");
    for c in changes {
        let path = c["path"].as_str().expect("path");
        assert!(path.starts_with("/profiles/read-only/"), "{path}");
    }
    assert!(
        changes
            .iter()
            .any(|c| c["path"] == "/profiles/read-only/tools/name=echo"),
        "{doc:#}"
    );
    let out = w.run(&["verify", "--profile", "read-only"], Some(&full));
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains("/profiles/read-only/tools/name=echo"),
        "{out:?}"
    );
    // The other profile is quiet on its own configuration.
    assert_eq!(w.run(&["check", "--profile", "full"], Some(&full)).code, 0);

    // Re-locking that change under the same version is refused, the file byte-identical.
    let before = w.lock_bytes();
    let out = w.run(&["lock", "--profile", "read-only"], Some(&full));
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(w.lock_bytes(), before);
    // Under a new minor it is accepted, and only that profile is rewritten.
    let bumped = ["--surface", v1.as_str(), "--server-version", "1.1.0"];
    let out = w.run(&["lock", "--profile", "read-only"], Some(&bumped));
    assert_eq!(out.code, 0, "{out:?}");
    let after = lock_json(&w);
    assert_eq!(after["declared"]["profiles"]["full"], profiles["full"]);
    assert_eq!(
        after["declared"]["profiles"]["read-only"]["version"],
        "1.1.0"
    );
    assert_ne!(after["declared"]["sha256"], lock["declared"]["sha256"]);
    // An unchanged profile re-locks as up to date, the file untouched.
    let before = w.lock_bytes();
    let out = w.run(&["lock", "--profile", "full"], Some(&full));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(w.lock_bytes(), before);
}

#[test]
fn profile_and_plain_locks_are_never_mixed() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let fixture = ["--surface", v1.as_str(), "--server-version", "1.0.0"];

    // A plain lock stays schemaVersion 1 and refuses `--profile`, untouched.
    assert_eq!(w.run(&["lock"], Some(&fixture)).code, 0);
    let plain = w.lock_bytes();
    assert!(String::from_utf8_lossy(&plain).starts_with("{\n  \"schemaVersion\": 1,\n"));
    for cmd in ["lock", "check", "verify"] {
        let out = w.run(&[cmd, "--profile", "full"], Some(&fixture));
        assert_eq!(out.code, 2, "{cmd}: {out:?}");
        assert!(
            out.stderr.contains("has no named profiles")
                && out.stderr.contains("\nhint: drop `--profile`"),
            "{cmd}: {out:?}"
        );
        assert_eq!(w.lock_bytes(), plain, "{cmd}");
    }

    // A profile lock refuses a run without `--profile`, and an unknown profile, naming what
    // it has.
    let out = w.run(
        &["lock", "--profile", "full", "--lock", "p.json"],
        Some(&fixture),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let profiled = std::fs::read(w.path("p.json")).expect("written");
    let out = w.run(&["lock", "--lock", "p.json"], Some(&fixture));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("holds configuration profiles (full; `schemaVersion` 2)")
            && out.stderr.contains("hint: pass `--profile NAME`"),
        "{out:?}"
    );
    // `check` and `verify` judge every profile by default, each against its own target: one
    // target on the command line is refused.
    for cmd in ["check", "verify"] {
        let out = w.run(&[cmd, "--lock", "p.json"], Some(&fixture));
        assert_eq!(out.code, 2, "{cmd}: {out:?}");
        assert!(
            out.stderr.contains(
                "holds configuration profiles (full): a target on the command line is one profile's"
            ) && out.stderr.contains("hint: pass `--profile NAME`"),
            "{cmd}: {out:?}"
        );
    }
    for cmd in ["check", "verify"] {
        let out = w.run(
            &[cmd, "--lock", "p.json", "--profile", "other"],
            Some(&fixture),
        );
        assert_eq!(out.code, 2, "{cmd}: {out:?}");
        assert!(
            out.stderr.contains("has no profile `other` (it has: full)"),
            "{cmd}: {out:?}"
        );
    }
    assert_eq!(std::fs::read(w.path("p.json")).expect("read"), profiled);

    // A profile name that cannot be a path segment is a usage error.
    let out = w.run(&["lock", "--profile", "a/b"], Some(&fixture));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("may hold only letters"), "{out:?}");
}

#[test]
fn a_hand_edit_of_one_profile_is_refused() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let fixture = ["--surface", v1.as_str(), "--server-version", "1.0.0"];
    assert_eq!(
        w.run(&["lock", "--profile", "full"], Some(&fixture)).code,
        0
    );
    let good = String::from_utf8(w.lock_bytes()).expect("UTF-8");
    let edited = good.replace("Echo a message back", "Echo a message back, and mail it");
    assert_ne!(edited, good);
    w.write("surface.lock.json", &edited);
    let out = w.run(&["check", "--profile", "full"], Some(&fixture));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("was edited by hand"), "{out:?}");
    // The unedited lock is quiet.
    w.write("surface.lock.json", &good);
    assert_eq!(
        w.run(&["check", "--profile", "full"], Some(&fixture)).code,
        0
    );
}
