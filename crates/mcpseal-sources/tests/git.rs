//! git against a real repository with tags: versions in semver order with commit dates,
//! install by `git archive` plus a build step, the run command started under the sandbox,
//! and the user's repository left exactly as it was.

mod support;

use std::path::Path;
use std::process::Command;

use mcpseal_sources::{
    Exclusion, GitRepo, InstallStage, Pin, Source, SourceError, VersionQuery, launch,
};
use support::{launch_options, rt, sources, speak, tool_names};

fn git(repo: &Path, args: &[&str], date: &str) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn commit_surface(repo: &Path, tools: &[&str], date: &str) {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcpseal-fixtures/packages/server.js");
    std::fs::copy(fixture, repo.join("server.js")).expect("server.js");
    let tools: Vec<_> = tools
        .iter()
        .map(|t| serde_json::json!({"name": t, "inputSchema": {"type": "object"}}))
        .collect();
    std::fs::write(
        repo.join("surface.json"),
        serde_json::json!({"serverInfo": {"name": "git-fixture", "version": "x"}, "tools": tools})
            .to_string(),
    )
    .expect("surface");
    // The build step: copy the server into dist/ (a stand-in for a real compile).
    std::fs::write(
        repo.join("build.js"),
        "const fs=require('fs');fs.mkdirSync('dist',{recursive:true});for(const f of ['server.js','surface.json'])fs.copyFileSync(f,'dist/'+f);\n",
    )
    .expect("build.js");
    git(repo, &["add", "-A"], date);
    git(repo, &["commit", "-q", "-m", "release"], date);
}

#[test]
fn git_tags_build_and_run() {
    let work = tempfile::tempdir().expect("work");
    let repo = work.path().join("repo");
    std::fs::create_dir(&repo).expect("repo");
    git(&repo, &["init", "-q", "-b", "main"], "2024-01-01T00:00:00Z");
    commit_surface(&repo, &["a"], "2024-01-01T00:00:00Z");
    git(&repo, &["tag", "v1.0.0"], "2024-01-01T00:00:00Z");
    commit_surface(&repo, &["a", "b"], "2024-02-01T00:00:00Z");
    git(
        &repo,
        &["tag", "-a", "-m", "annotated", "v1.10.0"],
        "2024-02-01T00:00:00Z",
    );
    commit_surface(&repo, &["b"], "2024-03-01T00:00:00Z");
    git(&repo, &["tag", "v1.2.0"], "2024-03-01T00:00:00Z");
    git(&repo, &["tag", "v2.0.0-rc.1"], "2024-03-01T00:00:00Z");
    git(&repo, &["tag", "latest"], "2024-03-01T00:00:00Z");
    git(&repo, &["tag", "other-1.0.0"], "2024-03-01T00:00:00Z");
    let status_before = git(
        &repo,
        &["status", "--porcelain", "--ignored"],
        "2024-03-01T00:00:00Z",
    );
    let refs_before = git(&repo, &["for-each-ref"], "2024-03-01T00:00:00Z");

    let s = sources(&work.path().join("cache"), Vec::new());
    let mut g = GitRepo::new(repo.to_string_lossy());
    g.tags = "v*".into();
    g.build = vec![vec!["node".into(), "build.js".into()]];
    g.run = Some(vec!["node".into(), "dist/server.js".into()]);
    let src = Source::Git(g.clone());
    let rt = rt();

    let list = rt
        .block_on(s.versions(&src, &VersionQuery::default()))
        .expect("versions");
    let names: Vec<&str> = list.versions.iter().map(|v| v.version.as_str()).collect();
    assert_eq!(
        names,
        ["1.0.0", "1.2.0", "1.10.0"],
        "semver order, not tag or date order"
    );
    assert_eq!(
        list.versions[2]
            .published_at
            .map(|t| t.to_string())
            .as_deref(),
        Some("2024-02-01T00:00:00Z"),
        "an annotated tag dates as its commit"
    );
    assert!(
        list.excluded
            .iter()
            .any(|e| e.version == "2.0.0-rc.1" && e.exclusion == Exclusion::Prerelease)
    );
    // `latest` and `other-…` do not match `v*`: not versions of this source at all.
    assert!(!list.excluded.iter().any(|e| e.version == "latest"));
    let mut all_tags = g.clone();
    all_tags.tags = "*".into();
    let wide = rt
        .block_on(s.versions(&Source::Git(all_tags), &VersionQuery::default()))
        .expect("versions");
    assert!(
        wide.excluded
            .iter()
            .any(|e| e.version == "latest" && matches!(e.exclusion, Exclusion::NotSemver { .. }))
    );
    assert!(
        wide.excluded
            .iter()
            .any(|e| e.version == "other-1.0.0"
                && matches!(e.exclusion, Exclusion::NotSemver { .. }))
    );

    for (v, want) in list
        .versions
        .iter()
        .zip([vec!["a"], vec!["b"], vec!["a", "b"]])
    {
        let installed = rt
            .block_on(s.install(&src, v))
            .unwrap_or_else(|e| panic!("{e} {:?}", e.log_tail));
        assert!(
            installed.workdir.join("dist/server.js").is_file(),
            "the build step ran"
        );
        assert!(
            !installed.workdir.join(".git").exists(),
            "an export, not a clone"
        );
        let spoke =
            speak(&launch::plan(&installed, &launch_options()).expect("plan")).expect("speaks");
        assert_eq!(tool_names(&spoke), want, "{}", v.version);
        assert!(rt.block_on(s.install(&src, v)).expect("cached").reused);
    }

    // Launch options the plan refuses: an unknown entry point, an invalid variable name.
    let installed = rt
        .block_on(s.install(&src, &list.versions[0]))
        .expect("cached");
    let mut opts = launch_options();
    opts.bin = Some("nope".into());
    let err = launch::plan(&installed, &opts).expect_err("no such entry");
    assert_eq!(
        err.to_string(),
        format!(
            "{}@1.0.0 has no entry point `nope` (it has: node)",
            src.id()
        )
    );
    let mut opts = launch_options();
    opts.env.push(("A=B".into(), "x".into()));
    assert!(matches!(
        launch::plan(&installed, &opts),
        Err(mcpseal_sources::LaunchError::BadEnvName(_))
    ));
    opts.env = vec![
        ("HOME".into(), "/override".into()),
        ("EXTRA".into(), "1".into()),
    ];
    let plan = launch::plan(&installed, &opts).expect("plan");
    assert!(plan.env.contains(&("HOME".into(), "/override".into())));
    assert_eq!(plan.env.iter().filter(|(k, _)| k == "HOME").count(), 1);
    assert_eq!(plan.cwd, installed.workdir);

    // A failing build step is an install failure with the step's own output.
    let mut broken = g.clone();
    broken.build = vec![vec![
        "node".into(),
        "-e".into(),
        "console.error('tsc: error TS2304'); process.exit(2)".into(),
    ]];
    let err = rt
        .block_on(s.install(&Source::Git(broken), &list.versions[0]))
        .expect_err("build fails");
    assert_eq!(err.stage, InstallStage::Build);
    assert!(
        err.log_tail.iter().any(|l| l.contains("tsc: error TS2304")),
        "{:?}",
        err.log_tail
    );

    // A pin by commit.
    let head = git(
        &repo,
        &["rev-parse", "v1.0.0^{commit}"],
        "2024-03-01T00:00:00Z",
    );
    let mut pin =
        Pin::parse(&format!("git:{}@{}", repo.display(), &head.trim()[..12])).expect("pin");
    pin.source = src.clone();
    let pinned = rt.block_on(s.resolve_pin(&pin)).expect("resolves");
    assert!(
        matches!(&pinned.artifact, mcpseal_sources::Artifact::GitCommit { commit, .. } if commit == head.trim())
    );
    let mut nope = pin.clone();
    nope.version = "deadbeefdeadbeef".into();
    assert!(matches!(
        rt.block_on(s.resolve_pin(&nope)),
        Err(SourceError::VersionNotFound { .. })
    ));

    // The user's repository is untouched: same status, same refs, no worktrees.
    assert_eq!(
        git(
            &repo,
            &["status", "--porcelain", "--ignored"],
            "2024-03-01T00:00:00Z"
        ),
        status_before
    );
    assert_eq!(
        git(&repo, &["for-each-ref"], "2024-03-01T00:00:00Z"),
        refs_before
    );
    assert_eq!(
        git(&repo, &["worktree", "list"], "2024-03-01T00:00:00Z")
            .lines()
            .count(),
        1
    );

    // A new tag is seen by a new handle (the mirror is fetched once per handle).
    commit_surface(&repo, &["c"], "2024-04-01T00:00:00Z");
    git(&repo, &["tag", "v1.11.0"], "2024-04-01T00:00:00Z");
    let fresh = sources(&work.path().join("cache"), Vec::new());
    let list = rt
        .block_on(fresh.versions(&src, &VersionQuery::default()))
        .expect("versions");
    assert_eq!(
        list.versions.last().map(|v| v.version.as_str()),
        Some("1.11.0")
    );
}
