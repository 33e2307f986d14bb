//! `verify` over Streamable HTTP: the example site served by `mcpseal serve --http` on
//! 127.0.0.1 (an ephemeral port), checked against its committed lock; then the drifted copy,
//! served the same way, against the same lock.

use std::path::Path;

use anyhow::Context as _;

use super::{Runner, Section, site};

const INTRO: &str = "The example site (see [`serve`](serve.md)) served over Streamable HTTP, `site/` and `drifted/`\neach by `mcpseal serve --config DIR/site.toml --http 127.0.0.1:0` (the URL is the first line it\nprints on stdout), verified against the site's committed lock `site/surface.lock.json`. Only the\ntemp directory (`.`) and the ephemeral ports (`<site>`, `<drifted>`) are replaced.\n";

pub fn sections(root: &Path, bins: &Path) -> anyhow::Result<Vec<Section>> {
    let dir = tempfile::tempdir().context("a temp directory for the site")?;
    site::prepare(root, dir.path())?;
    let mut runner = Runner::new(bins, dir.path());
    let served = serve_http(&mut runner, "site")?;
    let drifted = serve_http(&mut runner, "drifted")?;
    let lock = "site/surface.lock.json";
    let steps = vec![
        runner.started(&served),
        runner.started(&drifted),
        runner.step(&["verify", "--lock", lock, &served.first_line], 0)?,
        runner.step(&["verify", "--lock", lock, &drifted.first_line], 1)?,
    ];
    Ok(vec![Section {
        page: "verify",
        title: "over HTTP",
        intro: INTRO,
        steps,
    }])
}

/// `mcpseal serve --config COPY/site.toml --http 127.0.0.1:0` in the background, its port shown
/// as `<COPY>`.
pub fn serve_http(
    runner: &mut Runner,
    copy: &'static str,
) -> anyhow::Result<super::process::Background> {
    let config = format!("{copy}/site.toml");
    runner.background(
        "mcpseal",
        &["serve", "--config", &config, "--http", "127.0.0.1:0"],
        copy,
    )
}
