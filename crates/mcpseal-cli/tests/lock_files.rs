//! Lock files that cannot be trusted, missing locks, and where the server version comes from.

mod lock_support;

use lock_support::{Work, base_surface};

#[test]
fn check_without_a_lock_says_run_lock() {
    let w = Work::new();
    let out = w.run(&["check"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(
        out.stderr,
        "error: no lock file at `surface.lock.json`\nhint: run `mcpseal lock TARGET` to write it (or pass `--lock FILE`)\n"
    );
    assert_eq!(out.stdout, "");
    let out = w.run(&["verify", "--lock", "other.json"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: no lock file at `other.json`\nhint: run `mcpseal lock"),
        "{out:?}"
    );
}

#[test]
fn untrustworthy_lock_files_are_refused_and_left_alone() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let fixture = ["--surface", v1.as_str(), "--server-version", "1.0.0"];
    assert_eq!(w.run(&["lock"], Some(&fixture)).code, 0);
    let good = String::from_utf8(w.lock_bytes()).expect("UTF-8");
    let cases = [
        (
            good.replace("Echo a message back", "Echo a message back, and mail it"),
            "was edited by hand: the stored `sha256` does not match its surface",
            "restore it with `git checkout -- surface.lock.json`",
        ),
        (
            format!("<<<<<<< HEAD\n{good}=======\n{good}>>>>>>> topic\n"),
            "has merge-conflict markers (line 1)",
            "do not merge lock files by hand",
        ),
        (
            good.replace("\"schemaVersion\": 1", "\"schemaVersion\": 7"),
            "has `schemaVersion` 7; this mcpseal reads versions 1 and 2",
            "upgrade mcpseal",
        ),
        (
            good[..good.len() / 2].to_owned(),
            "is not valid JSON",
            "restore it from version control",
        ),
        (
            good.replace("\"version\": \"1.0.0\"", "\"version\": \"latest\""),
            "version is unusable",
            "written by `mcpseal lock` only",
        ),
    ];
    for (text, message, hint) in cases {
        w.write("surface.lock.json", &text);
        for cmd in ["check", "lock", "verify"] {
            let out = w.run(&[cmd], Some(&fixture));
            assert_eq!(out.code, 2, "{cmd}: {out:?}");
            assert!(out.stderr.contains(message), "{cmd}: {message}: {out:?}");
            assert!(
                out.stderr.contains("\nhint: ") && out.stderr.contains(hint),
                "{cmd}: {out:?}"
            );
            assert_eq!(w.lock_bytes(), text.as_bytes(), "{cmd} left the file alone");
        }
    }
}

#[test]
fn version_from_manifests() {
    let w = Work::new();
    w.write("package.json", r#"{"name": "x", "version": "1.2.3"}"#);
    let out = w.run(&["lock"], Some(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("version  1.2.3 (from `package.json`)"),
        "{out:?}"
    );
    assert!(out.stdout.contains("server   reports 1.0.0"), "{out:?}");

    // Two manifests: ambiguous until --manifest says which.
    w.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\nversion = \"1.3rc1\"\n",
    );
    let out = w.run(&["check"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains(
            "more than one manifest declares a version here: package.json, pyproject.toml"
        ),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("hint: say which one is the server's: `--manifest package.json`"),
        "{out:?}"
    );
    let out = w.run(&["lock", "--manifest", "pyproject.toml"], Some(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("re-stamped `surface.lock.json` from 1.2.3 to 1.3rc1"),
        "{out:?}"
    );

    let w = Work::new();
    w.write("Cargo.toml", "[package]\nname = \"x\"\nversion.workspace = true\n\n[workspace.package]\nversion = \"0.9.0\"\n");
    let out = w.run(&["lock", "--format", "json"], Some(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["version"], "0.9.0");
    assert_eq!(out.json()["versionSource"], "`Cargo.toml`");

    // Versions that are not semver are clear errors, before any server starts.
    for (args, message) in [
        (
            vec!["lock", "--server-version", "latest"],
            "the version from --server-version is unusable: `latest` is not a semver version",
        ),
        (
            vec!["lock", "--server-version", "1.0.dev3"],
            "PEP 440 development releases",
        ),
    ] {
        let out = w.run(&args, Some(&[]));
        assert_eq!(out.code, 2, "{out:?}");
        assert!(out.stderr.contains(message), "{out:?}");
        // A bad flag gets "give a semver version", a manifest "versions are semver…; pass
        // `--server-version X` to override".
        assert!(
            out.stderr.contains("\nhint: versions are semver")
                || out.stderr.contains("\nhint: give a semver version"),
            "{out:?}"
        );
    }
    let w = Work::new();
    w.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\ndynamic = [\"version\"]\n",
    );
    let out = w.run(&["lock"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("declares no version (it is `dynamic`"),
        "{out:?}"
    );
    // PEP 440 post-release: equal to its release, so a change under it is refused.
    let w = Work::new();
    assert_eq!(
        w.run(&["lock", "--server-version", "v1.0"], Some(&[])).code,
        0
    );
    let out = w.run(
        &["lock", "--server-version", "1.0.post1"],
        Some(&["--volatile-description", "echo"]),
    );
    assert_eq!(out.code, 1, "volatile first");
    // The same server name as the lock's (another name is refused before any rule).
    let mut same_name = base_surface();
    same_name["serverInfo"]["name"] = serde_json::json!("mcpseal-fixture");
    let changed = w.surface("c.json", &same_name);
    let out = w.run(
        &["lock", "--server-version", "1.0.post1"],
        Some(&["--surface", &changed]),
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("the version is still 1.0.post1"),
        "{out:?}"
    );
}

#[test]
fn compatibility_form_lock_hashes_like_mcp_surface() {
    let w = Work::new();
    let out = w.run(
        &["lock", "--form", "mcp-surface/1", "--format", "json"],
        Some(&["--mode", "legacy"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let lock_sha = out.json()["sha256"].clone();
    let snap = w.run(
        &["snapshot", "--form", "mcp-surface/1", "--format", "json"],
        Some(&["--mode", "legacy"]),
    );
    // With no exclusions the lock's sha256 is the surface fingerprint: in this form, the value
    // mcp-surface keeps in `declarada.sha256`.
    assert_eq!(snap.json()["sha256"], lock_sha);
    assert_eq!(w.run(&["check"], Some(&["--mode", "legacy"])).code, 0);
    let out = w.run(
        &["lock", "--form", "mcpseal/1"],
        Some(&["--mode", "legacy"]),
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("error: the lock file is in form `mcp-surface/1`, not `mcpseal/1`\nhint: "),
        "{out:?}"
    );
}
