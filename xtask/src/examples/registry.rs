//! The registry commands against the repository's loopback registry fixture
//! (`mcpseal-registry-fixture`, the v0.1 read API over a directory of `server.json` files): the
//! example site's `server.json` stamped with its lock and checked, then published with a
//! staging entry (stamped from the same lock, its remote serving the drifted copy), listed and
//! verified against the live remotes: the fingerprint matches, then it does not.
//!
//! The site's lock is used because a registry block names a Streamable HTTP endpoint and
//! `registry verify` compares it live; `mcp-server-time` is stdio only (and `--package`, which
//! would install a published package, is not in this build).

use std::path::Path;

use anyhow::Context as _;

use super::{Runner, Section, site, write};

const INTRO: &str = "The example site (see [`serve`](serve.md)) served over Streamable HTTP by `mcpseal serve --http\n127.0.0.1:0`, `site/` as `<site>` and `drifted/` as `<drifted>`. `publish/site/server.json` names\nthe site's remote, `publish/staging/server.json` the drifted one; both are stamped from the site's\nlock and published into the repository's loopback registry fixture (`mcpseal-registry-fixture\n--dir registry`, the v0.1 API, as `<registry>`). Only the temp directory (`.`), the ephemeral\nports and the short hash of the block `registry check` prints (its endpoint names a port) are\nreplaced.\n";

/// A `server.json` for the site under `name`, its one remote `url`.
fn server_json(name: &str, url: &str) -> String {
    format!(
        "{{\n  \"$schema\": \"{}\",\n  \"name\": \"{name}\",\n  \"description\": \"The example site's profile and posts, read-only and verified\",\n  \"version\": \"1.0.0\",\n  \"remotes\": [{{\"type\": \"streamable-http\", \"url\": \"{url}\"}}]\n}}\n",
        SCHEMA
    )
}

/// The `$schema` the registry requires (the 2025-12-11 one, which `registry stamp` validates
/// against offline).
const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

pub fn sections(root: &Path, bins: &Path) -> anyhow::Result<Vec<Section>> {
    let dir = tempfile::tempdir().context("a temp directory for the registry")?;
    site::prepare(root, dir.path())?;
    let mut runner = Runner::new(bins, dir.path());
    let served = super::http::serve_http(&mut runner, "site")?;
    let drifted = super::http::serve_http(&mut runner, "drifted")?;
    for (copy, name, url) in [
        ("site", "io.example/site", &served.first_line),
        ("staging", "io.example/site-staging", &drifted.first_line),
    ] {
        let sub = dir.path().join("publish").join(copy);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating `{}`", sub.display()))?;
        write(&sub, "server.json", &server_json(name, url))?;
    }
    let lock = "site/surface.lock.json";
    let stamp = |copy: &str| -> anyhow::Result<super::Step> {
        let file = format!("publish/{copy}/server.json");
        runner.step(
            &["registry", "stamp", "--server-json", &file, "--lock", lock],
            0,
        )
    };
    let mut steps = vec![
        stamp("site")?,
        runner.file("publish/site/server.json", None)?,
        runner.step(
            &[
                "registry",
                "check",
                "--server-json",
                "publish/site/server.json",
                "--lock",
                lock,
            ],
            0,
        )?,
        stamp("staging")?,
    ];
    // Published: the fixture serves the directory as it is when it starts.
    let published = dir.path().join("registry");
    std::fs::create_dir_all(&published).context("creating the registry's directory")?;
    for (copy, file) in [("site", "1-site.json"), ("staging", "2-staging.json")] {
        std::fs::copy(
            dir.path().join("publish").join(copy).join("server.json"),
            published.join(file),
        )
        .context("publishing a server.json")?;
    }
    let registry = runner.background(
        "mcpseal-registry-fixture",
        &["--dir", "registry"],
        "registry",
    )?;
    let url = registry.first_line.clone();
    steps.push(runner.step(&["registry", "list", "--registry", &url], 0)?);
    for (name, expect) in [("io.example/site", 0), ("io.example/site-staging", 1)] {
        steps.push(runner.step(
            &[
                "registry",
                "verify",
                name,
                "--registry",
                &url,
                "--attempts",
                "1",
            ],
            expect,
        )?);
    }
    drop((registry, served, drifted));
    Ok(vec![Section {
        page: "registry",
        title: "",
        intro: INTRO,
        steps,
    }])
}
