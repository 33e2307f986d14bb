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
