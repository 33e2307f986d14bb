//! npm against a real registry: Verdaccio on 127.0.0.1 holding the fixture package's history
//! (published by this test with the real npm CLI), then list, install (cache, resume,
//! concurrency, integrity), plan, and speak MCP to each version under the sandbox.

mod support;

use mcpseal_fixtures::packages::{NPM_BIN, NPM_NAME, Verdaccio};
use mcpseal_sources::{
    Artifact, Exclusion, InstallStage, NpmPackage, Pin, PublishedVersion, Source, Status,
    VersionQuery, launch,
};
use support::{launch_options, rt, sources, speak, tool_names};

fn source(registry: &str) -> Source {
    Source::Npm(NpmPackage {
        name: NPM_NAME.into(),
        registry: Some(registry.into()),
    })
}

#[test]
fn npm_history_lists_installs_and_runs() {
    let work = tempfile::tempdir().expect("work");
    let registry = Verdaccio::start(&work.path().join("verdaccio"));
    registry.publish_history();
    let cache = work.path().join("cache");
    let s = sources(&cache, registry.npm_env());
    let src = source(&registry.url());
    let rt = rt();

    // Versions: semver order, pre-release left out (and why), deprecated flagged, dates.
    let list = rt
        .block_on(s.versions(&src, &VersionQuery::default()))
        .expect("versions");
    let names: Vec<&str> = list.versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(
        names,
        ["1.0.0", "1.1.0", "1.1.1", "1.2.0", "1.3.0", "1.4.0"]
    );
    assert_eq!(list.origin, registry.url());
    assert!(
        list.excluded
            .iter()
            .any(|e| e.version == "2.0.0-rc.1" && e.exclusion == Exclusion::Prerelease)
    );
    let v130 = &list.versions[4];
    assert_eq!(
        v130.status,
        Status::Deprecated {
            message: "does not start".into()
        }
    );
    assert!(list.versions.iter().all(|v| v.published_at.is_some()));
    assert!(
        list.versions
            .windows(2)
            .all(|w| w[0].published_at <= w[1].published_at)
    );
    assert!(
        matches!(&list.versions[0].artifact, Artifact::NpmTarball { integrity: Some(i), .. } if i.starts_with("sha512-"))
    );
    let with_pre = rt
        .block_on(s.versions(
            &src,
            &VersionQuery {
                include_prereleases: true,
                ..VersionQuery::default()
            },
        ))
        .expect("versions");
    assert_eq!(
        with_pre.versions.last().map(|v| v.version.as_str()),
        Some("2.0.0-rc.1")
    );

    // Install every version, then again: the second time from the cache.
    let mut installed = Vec::new();
    for v in &list.versions {
        let i = rt
            .block_on(s.install(&src, v))
            .unwrap_or_else(|e| panic!("{}: {e} {:?}", v.version, e.log_tail));
        assert!(!i.reused);
        assert_eq!(i.entry_points.len(), 1);
        assert_eq!(i.entry_points[0].name, NPM_BIN);
        installed.push(i);
    }
    for v in &list.versions {
        let again = rt.block_on(s.install(&src, v)).expect("cached");
        assert!(again.reused, "{} was not reused", v.version);
    }

    // Each version speaks (or does not) under the sandbox.
    let names_of = |idx: usize| {
        let plan = launch::plan(&installed[idx], &launch_options()).expect("plan");
        speak(&plan).map(|s| (tool_names(&s), s.server_info))
    };
    assert_eq!(names_of(0).expect("1.0.0").0, ["echo", "add"]);
    assert_eq!(names_of(1).expect("1.1.0").0, ["echo", "add", "time"]);
    let (tools, info) = names_of(2).expect("1.1.1");
    assert_eq!(tools, ["echo", "add", "time"]);
    assert_eq!(info["version"], "1.1.0", "1.1.1 still reports 1.1.0");
    assert_eq!(names_of(3).expect("1.2.0").0, ["add", "time"]);
    let crashed = names_of(4).expect_err("1.3.0 does not start");
    assert!(
        crashed.contains("Dynamic require of \"events\" is not supported"),
        "{crashed}"
    );

    // The version that connects out: blocked under isolation, reached with network allowed.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    std::thread::spawn(move || {
        for c in listener.incoming().take(1) {
            drop(c);
        }
    });
    let mut opts = launch_options();
    opts.env
        .push(("MCPSEAL_FIXTURE_CONNECT".into(), addr.clone()));
    let plan = launch::plan(&installed[5], &opts).expect("plan");
    let spoke = speak(&plan).expect("1.4.0 starts");
    let probe = spoke
        .tools
        .iter()
        .find(|t| t["name"] == "net_probe")
        .expect("net_probe");
    assert!(
        probe["description"]
            .as_str()
            .is_some_and(|d| d.starts_with(&format!("connect {addr}: blocked"))),
        "{probe}"
    );
    let report = plan.isolation_report().expect("report");
    assert!(matches!(
        report.network,
        mcpseal_sources::NetworkIsolation::Isolated { .. }
    ));
    opts.isolation.network = false;
    let plan = launch::plan(&installed[5], &opts).expect("plan");
    let spoke = speak(&plan).expect("1.4.0 starts");
    let probe = spoke
        .tools
        .iter()
        .find(|t| t["name"] == "net_probe")
        .expect("net_probe");
    assert_eq!(probe["description"], format!("connect {addr}: reached"));

    // The server sees only the scrubbed environment: HOME is the plan's temporary home.
    let plan = launch::plan(&installed[0], &launch_options()).expect("plan");
    let keys: Vec<&str> = plan.env.iter().map(|(k, _)| k.as_str()).collect();
    assert!(keys.starts_with(&["PATH", "HOME", "TMPDIR"]), "{keys:?}");
    assert!(keys.iter().all(
        |k| ["PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE"].contains(k) || k.starts_with("LC_")
    ));
    assert!(plan.home.starts_with(std::env::temp_dir()));
    assert_eq!(
        plan.server_argv[1],
        installed[0]
            .dir
            .join("node_modules")
            .join(NPM_NAME)
            .join("server.js")
            .to_string_lossy()
    );

    // An interrupted install (no marker) is redone, not trusted.
    let dir = installed[0].dir.clone();
    std::fs::remove_file(dir.join(mcpseal_sources::cache::MARKER)).expect("remove marker");
    std::fs::write(dir.join("half-written"), "x").expect("debris");
    let redone = rt
        .block_on(s.install(&src, &list.versions[0]))
        .expect("redone");
    assert!(!redone.reused);
    assert!(!dir.join("half-written").exists());

    // Integrity: a tarball that is not what the packument says is refused.
    let Artifact::NpmTarball { url, .. } = &list.versions[0].artifact else {
        panic!("npm artifact");
    };
    let forged = PublishedVersion::new(
        "1.0.0",
        None,
        Status::Current,
        Artifact::NpmTarball {
            url: url.clone(),
            integrity: Some("sha512-AAAA".into()),
        },
    );
    let err = rt
        .block_on(s.install(&src, &forged))
        .expect_err("forged integrity");
    assert_eq!(err.stage, InstallStage::Verify);
    assert!(
        err.message.contains("integrity mismatch"),
        "{}",
        err.message
    );

    // Pins: exact version with its integrity; a wrong integrity or version is refused.
    let listed = match &list.versions[1].artifact {
        Artifact::NpmTarball { integrity, .. } => integrity.clone().expect("sri"),
        _ => unreachable!(),
    };
    let pin = Pin::parse(&format!("npm:{NPM_NAME}@1.1.0"))
        .expect("pin")
        .with_integrity(listed);
    let mut pin = pin;
    pin.source = src.clone();
    assert_eq!(
        rt.block_on(s.resolve_pin(&pin)).expect("resolves").version,
        "1.1.0"
    );
    let bad = pin.clone().with_integrity("sha512-nope");
    assert!(matches!(
        rt.block_on(s.resolve_pin(&bad)),
        Err(mcpseal_sources::SourceError::PinMismatch { .. })
    ));
    let mut missing = pin.clone();
    missing.version = "9.9.9".into();
    assert!(matches!(
        rt.block_on(s.resolve_pin(&missing)),
        Err(mcpseal_sources::SourceError::VersionNotFound { .. })
    ));

    // An unknown package is NotFound, never an empty list.
    let unknown = Source::Npm(NpmPackage {
        name: "@mcpseal-test/no-such-package".into(),
        registry: Some(registry.url()),
    });
    assert!(matches!(
        rt.block_on(s.versions(&unknown, &VersionQuery::default())),
        Err(mcpseal_sources::SourceError::NotFound { .. })
    ));
}

#[test]
fn concurrent_installs_of_one_version_install_once() {
    let work = tempfile::tempdir().expect("work");
    let registry = Verdaccio::start(&work.path().join("verdaccio"));
    let history = mcpseal_fixtures::packages::npm_history();
    let dir = work.path().join("pkg");
    mcpseal_fixtures::packages::write_npm_package(&dir, &history[0]);
    registry.publish(&dir, false);
    let cache = work.path().join("cache");
    let src = source(&registry.url());
    let rt = rt();
    let s = std::sync::Arc::new(sources(&cache, registry.npm_env()));
    let list = rt
        .block_on(s.versions(&src, &VersionQuery::default()))
        .expect("versions");
    let v = list.versions[0].clone();
    let results = rt.block_on(async {
        let a = tokio::spawn({
            let (s, src, v) = (s.clone(), src.clone(), v.clone());
            async move { s.install(&src, &v).await }
        });
        let b = tokio::spawn({
            let (s, src, v) = (s.clone(), src.clone(), v.clone());
            async move { s.install(&src, &v).await }
        });
        (a.await.expect("a"), b.await.expect("b"))
    });
    let (a, b) = (
        results.0.expect("a installs"),
        results.1.expect("b installs"),
    );
    assert_eq!(a.dir, b.dir);
    assert_eq!(
        [a.reused, b.reused].iter().filter(|r| !**r).count(),
        1,
        "exactly one of two concurrent installs does the work"
    );
    // A second handle (a second process would do the same) reuses it too.
    let other = sources(&cache, registry.npm_env());
    assert!(rt.block_on(other.install(&src, &v)).expect("reused").reused);
}

/// Writes a dependency-free package `name@version` whose `index.js` exports its name.
fn write_dependency(dir: &std::path::Path, name: &str, version: &str) {
    std::fs::create_dir_all(dir).expect("dir");
    let manifest = serde_json::json!({"name": name, "version": version, "main": "index.js",
        "bin": {name.rsplit('/').next().unwrap_or(name): "index.js"}});
    std::fs::write(dir.join("package.json"), manifest.to_string()).expect("package.json");
    std::fs::write(
        dir.join("index.js"),
        format!("module.exports = {name:?};\n"),
    )
    .expect("index.js");
}

/// The fixture server's `release` with `dependencies` added to its package.json.
fn write_with_dependencies(
    dir: &std::path::Path,
    release: &mcpseal_fixtures::packages::Release,
    deps: serde_json::Value,
) {
    mcpseal_fixtures::packages::write_npm_package(dir, release);
    let path = dir.join("package.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    manifest["dependencies"] = deps;
    std::fs::write(&path, manifest.to_string()).expect("package.json");
}

#[cfg(unix)]
fn inode(p: &std::path::Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .ino()
}

/// Every entry below `root` (relative path → file bytes and read/exec bits, or link target).
#[cfg(unix)]
fn layout(root: &std::path::Path) -> std::collections::BTreeMap<String, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .expect("below")
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&p).expect("meta");
            if meta.is_dir() {
                stack.push(p);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p).expect("link");
                out.insert(rel, (target.to_string_lossy().into_owned().into_bytes(), 0));
            } else if rel != ".package-lock.json" {
                let mode = meta.permissions().mode() & 0o555;
                out.insert(rel, (std::fs::read(&p).expect("read"), mode));
            }
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn versions_declaring_the_same_dependencies_share_one_tree() {
    let work = tempfile::tempdir().expect("work");
    let registry = Verdaccio::start(&work.path().join("verdaccio"));
    for dep in ["@mcpseal-test/dep-a", "@mcpseal-test/dep-b"] {
        let dir = work.path().join(dep);
        write_dependency(&dir, dep, "1.0.0");
        registry.publish(&dir, false);
    }
    let history = mcpseal_fixtures::packages::npm_history();
    let a = serde_json::json!({"@mcpseal-test/dep-a": "^1.0.0"});
    let ab = serde_json::json!({"@mcpseal-test/dep-b": "^1.0.0", "@mcpseal-test/dep-a": "^1.0.0"});
    // 1.0.0 and 1.1.0 declare the same dependencies; 1.1.1 adds one.
    for (release, deps) in [(&history[0], &a), (&history[1], &a), (&history[2], &ab)] {
        let dir = work.path().join(format!("pkg-{}", release.version));
        write_with_dependencies(&dir, release, deps.clone());
        registry.publish(&dir, false);
    }
    let cache = work.path().join("cache");
    let s = sources(&cache, registry.npm_env());
    let src = source(&registry.url());
    let rt = rt();
    let list = rt
        .block_on(s.versions(&src, &VersionQuery::default()))
        .expect("versions");
    let installed: Vec<_> = list
        .versions
        .iter()
        .map(|v| {
            rt.block_on(s.install(&src, v))
                .unwrap_or_else(|e| panic!("{}: {e} {:?}", v.version, e.log_tail))
        })
        .collect();
    assert_eq!(
        installed
            .iter()
            .map(|i| i.version.as_str())
            .collect::<Vec<_>>(),
        ["1.0.0", "1.1.0", "1.1.1"]
    );

    // Two trees were installed by npm: one for {dep-a} (from 1.0.0), one for {dep-a, dep-b}.
    let trees_root = cache.join("sources-v1").join("npm-trees");
    let mut made_from: Vec<String> = support::files_under(&trees_root)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n == mcpseal_sources::cache::MARKER)
        })
        .map(|p| {
            let rec: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&p).expect("marker")).expect("json");
            assert_eq!(rec["shareable"], true);
            rec["installedFrom"]
                .as_str()
                .expect("installedFrom")
                .to_owned()
        })
        .collect();
    made_from.sort();
    assert_eq!(made_from, ["1.0.0", "1.1.1"]);

    // Same dependencies: the same inode; a different dependency set: its own.
    let dep_file = |i: usize| {
        installed[i]
            .dir
            .join("node_modules/@mcpseal-test/dep-a/index.js")
    };
    assert_eq!(inode(&dep_file(0)), inode(&dep_file(1)));
    assert_ne!(inode(&dep_file(1)), inode(&dep_file(2)));
    assert!(
        installed[2]
            .dir
            .join("node_modules/@mcpseal-test/dep-b/index.js")
            .is_file()
    );
    assert!(
        !installed[1]
            .dir
            .join("node_modules/@mcpseal-test/dep-b")
            .exists()
    );
    // Shared files carry no write bit (root ignores it; the sandbox's Landlock rules do not
    // depend on it: the install directory is read/execute only).
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dep_file(0))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o222, 0, "{mode:o}");
    }
    // Each version's own files are its own (verified tarball), not the tree's.
    for i in &installed {
        let own = i.dir.join("node_modules").join(NPM_NAME);
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(own.join("package.json")).expect("own"))
                .expect("json");
        assert_eq!(manifest["version"], i.version.as_str());
    }
    assert_ne!(
        inode(
            &installed[0]
                .dir
                .join("node_modules")
                .join(NPM_NAME)
                .join("server.js")
        ),
        inode(
            &installed[1]
                .dir
                .join("node_modules")
                .join(NPM_NAME)
                .join("server.js")
        )
    );

    // The laid-out version is what npm itself made from the same tarball: 1.1.1's tree was
    // npm's install of 1.1.1 (files, bytes, read/exec bits, .bin links).
    let tree_of_111 = support::files_under(&trees_root)
        .into_iter()
        .find(|p| p.ends_with("node_modules/@mcpseal-test/dep-b/index.js"))
        .and_then(|p| p.ancestors().nth(3).map(std::path::Path::to_owned))
        .expect("the tree with dep-b");
    assert_eq!(
        layout(&installed[2].dir.join("node_modules")),
        layout(&tree_of_111),
    );

    // And every version speaks under the sandbox, from its own files.
    let names_of = |idx: usize| {
        let plan = launch::plan(&installed[idx], &launch_options()).expect("plan");
        speak(&plan).map(|s| tool_names(&s))
    };
    assert_eq!(names_of(0).expect("1.0.0"), ["echo", "add"]);
    assert_eq!(names_of(1).expect("1.1.0"), ["echo", "add", "time"]);
    assert_eq!(names_of(2).expect("1.1.1"), ["echo", "add", "time"]);
}
