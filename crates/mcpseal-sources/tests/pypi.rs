//! PyPI against a real index over loopback HTTP: the fixture project's history as wheels and
//! an sdist, served as a PEP 503 simple index with (and without) the JSON API, installed with
//! the real pip into venvs, and spoken to under the sandbox.

mod support;

use mcpseal_fixtures::packages::{PYPI_NAME, PypiIndex};
use mcpseal_sources::{
    Artifact, Exclusion, InstallStage, Pin, PypiProject, Source, SourceError, Status, VersionQuery,
    launch,
};
use support::{launch_options, rt, sources, speak, tool_names};

fn source(index: &str) -> Source {
    Source::Pypi(PypiProject {
        name: "MCPSeal_Test.Echo".into(), // any spelling: compared normalised
        index: Some(index.into()),
    })
}

#[test]
fn pypi_history_with_the_json_api() {
    let work = tempfile::tempdir().expect("work");
    let index = PypiIndex::start(&work.path().join("index"));
    let files = index.publish_history(true);
    let s = sources(&work.path().join("cache"), Vec::new());
    let src = source(&index.simple_url());
    let rt = rt();

    let list = rt
        .block_on(s.versions(&src, &VersionQuery::default()))
        .expect("versions");
    let names: Vec<&str> = list.versions.iter().map(|v| v.version.as_str()).collect();
    // 1.1.0.post1 has 1.1.0's precedence (a post-release is the same version to the lock
    // rules) and sorts after it by upload time.
    assert_eq!(
        names,
        ["1.0.0", "1.1.0", "1.1.0.post1", "1.2.0", "1.3.0", "1.4.0"]
    );
    let why = |v: &str| {
        list.excluded
            .iter()
            .find(|e| e.version == v)
            .map(|e| e.exclusion.clone())
    };
    assert_eq!(why("1.5.0"), Some(Exclusion::Yanked));
    assert_eq!(why("2.0.0rc1"), Some(Exclusion::Prerelease));
    assert_eq!(
        list.versions[0]
            .published_at
            .map(|t| t.to_string())
            .as_deref(),
        Some("2024-01-01T10:00:00Z"),
        "upload times come from the JSON API"
    );
    let since = rt
        .block_on(s.versions(
            &src,
            &VersionQuery {
                since: Some(VersionQuery::parse_since("2024-03-01").expect("date")),
                ..VersionQuery::default()
            },
        ))
        .expect("versions");
    assert_eq!(
        since
            .versions
            .iter()
            .map(|v| v.version.as_str())
            .collect::<Vec<_>>(),
        ["1.2.0", "1.3.0", "1.4.0"]
    );

    // Install and speak: 1.0.0, the post-release (schema changed), the one that crashes.
    let install = |i: usize| {
        rt.block_on(s.install(&src, &list.versions[i]))
            .unwrap_or_else(|e| panic!("{}: {e} {:?}", list.versions[i].version, e.log_tail))
    };
    let first = install(0);
    assert_eq!(first.entry_points.len(), 1);
    assert_eq!(first.entry_points[0].name, PYPI_NAME);
    let spoke =
        speak(&launch::plan(&first, &launch_options()).expect("plan")).expect("1.0.0 speaks");
    assert_eq!(tool_names(&spoke), ["echo", "add"]);
    assert_eq!(spoke.server_info["version"], "1.0.0");
    let post = install(2);
    let spoke =
        speak(&launch::plan(&post, &launch_options()).expect("plan")).expect("post1 speaks");
    let add = spoke
        .tools
        .iter()
        .find(|t| t["name"] == "add")
        .expect("add");
    assert_eq!(
        add["inputSchema"]["required"],
        serde_json::json!(["a", "b", "c"])
    );
    let crash = install(4);
    let err =
        speak(&launch::plan(&crash, &launch_options()).expect("plan")).expect_err("1.3.0 crashes");
    assert!(err.contains("cannot import name 'Server'"), "{err}");
    assert!(
        rt.block_on(s.install(&src, &list.versions[0]))
            .expect("again")
            .reused
    );

    // sdist only: refused before anything is created, as a fact about the version.
    let err = rt
        .block_on(s.install(&src, &list.versions[5]))
        .expect_err("sdist only");
    assert!(err.needs_build);
    assert_eq!(err.stage, InstallStage::Select);
    assert!(
        err.message
            .contains("not installable without running its build"),
        "{}",
        err.message
    );

    // Yanked: listed only when asked, and then installable (an exact pin may install it).
    let all = rt
        .block_on(s.versions(
            &src,
            &VersionQuery {
                include_yanked: true,
                ..VersionQuery::default()
            },
        ))
        .expect("versions");
    let yanked = all
        .versions
        .iter()
        .find(|v| v.version == "1.5.0")
        .expect("1.5.0");
    assert!(matches!(yanked.status, Status::Yanked { .. }));
    assert!(rt.block_on(s.install(&src, yanked)).is_ok());

    // A pin by wheel hash narrows the release to that file; a wrong hash is refused.
    let wheel = files
        .iter()
        .find(|f| f.version == "1.2.0")
        .expect("1.2.0 wheel");
    let mut pin = Pin::parse(&format!("pypi:{PYPI_NAME}==1.2.0"))
        .expect("pin")
        .with_integrity(format!("sha256:{}", wheel.sha256));
    pin.source = src.clone();
    let resolved = rt.block_on(s.resolve_pin(&pin)).expect("resolves");
    assert!(
        matches!(&resolved.artifact, Artifact::PypiFiles { files } if files.len() == 1 && files[0].filename == wheel.filename)
    );
    let pinned = rt.block_on(s.install(&src, &resolved)).expect("installs");
    let spoke =
        speak(&launch::plan(&pinned, &launch_options()).expect("plan")).expect("1.2.0 speaks");
    assert_eq!(tool_names(&spoke), ["add", "time"]);
    let bad = pin
        .clone()
        .with_integrity(format!("sha256:{}", "0".repeat(64)));
    assert!(matches!(
        rt.block_on(s.resolve_pin(&bad)),
        Err(SourceError::PinMismatch { .. })
    ));

    // A tampered file on the index is refused at install (the listed hash is checked);
    // 1.1.0 was never installed here, so nothing cached stands in for it.
    let tampered_dir = work.path().join("index/packages");
    let target = tampered_dir.join(&files[1].filename);
    let mut bytes = std::fs::read(&target).expect("wheel");
    bytes.push(0);
    std::fs::write(&target, bytes).expect("tamper");
    let err = rt
        .block_on(s.install(&src, &list.versions[1]))
        .expect_err("tampered");
    assert_eq!(err.stage, InstallStage::Verify);
    assert!(
        err.message.contains("integrity mismatch"),
        "{}",
        err.message
    );
}

#[test]
fn pypi_simple_index_without_the_json_api() {
    let work = tempfile::tempdir().expect("work");
    let index = PypiIndex::start(&work.path().join("index"));
    index.publish_history(false);
    let s = sources(&work.path().join("cache"), Vec::new());
    let src = source(&index.simple_url());
    let rt = rt();
    let list = rt
        .block_on(s.versions(&src, &VersionQuery::default()))
        .expect("versions");
    let names: Vec<&str> = list.versions.iter().map(|v| v.version.as_str()).collect();
    // The HTML index says yanked (data-yanked) but carries no upload times.
    assert_eq!(
        names,
        ["1.0.0", "1.1.0", "1.1.0.post1", "1.2.0", "1.3.0", "1.4.0"]
    );
    assert!(list.versions.iter().all(|v| v.published_at.is_none()));
    assert!(
        list.excluded
            .iter()
            .any(|e| e.version == "1.5.0" && e.exclusion == Exclusion::Yanked)
    );
    let since = rt
        .block_on(s.versions(
            &src,
            &VersionQuery {
                since: Some(VersionQuery::parse_since("2024-01-01").expect("date")),
                ..VersionQuery::default()
            },
        ))
        .expect("versions");
    assert!(since.versions.is_empty());
    assert!(
        since
            .excluded
            .iter()
            .any(|e| e.exclusion == Exclusion::NoPublishDate)
    );
    let installed = rt
        .block_on(s.install(&src, &list.versions[1]))
        .expect("installs");
    let spoke = speak(&launch::plan(&installed, &launch_options()).expect("plan")).expect("speaks");
    assert_eq!(tool_names(&spoke), ["echo", "add", "time"]);

    let unknown = Source::Pypi(PypiProject {
        name: "no-such-project".into(),
        index: Some(index.simple_url()),
    });
    assert!(matches!(
        rt.block_on(s.versions(&unknown, &VersionQuery::default())),
        Err(SourceError::NotFound { .. })
    ));
}
