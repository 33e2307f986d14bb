//! `mcpseal serve` of the example site: the deploy check, one verb from the command line, the
//! served surface as a client captures it, and the same checks on a tampered deploy (which
//! fail, naming the file and both digests, and print nothing unverified).

use std::path::Path;

use anyhow::Context as _;

use super::{Runner, Section, site};

pub fn sections(root: &Path, bins: &Path) -> anyhow::Result<Vec<Section>> {
    let dir = tempfile::tempdir().context("a temp directory for the site")?;
    site::prepare(root, dir.path())?;
    let runner = Runner::new(bins, dir.path());
    let steps = vec![
        runner.step(&["serve", "--config", "site/site.toml", "--check"], 0)?,
        runner.step(
            &[
                "serve",
                "--config",
                "site/site.toml",
                "--cli",
                "get_post",
                "hello-world",
            ],
            0,
        )?,
        runner.step(
            &[
                "snapshot",
                "--",
                "mcpseal",
                "serve",
                "--config",
                "site/site.toml",
            ],
            0,
        )?,
        runner.step(&["serve", "--config", "tampered/site.toml", "--check"], 1)?,
        runner.step(
            &[
                "serve",
                "--config",
                "tampered/site.toml",
                "--cli",
                "get_profile",
            ],
            1,
        )?,
    ];
    Ok(vec![Section {
        page: "serve",
        title: "",
        intro: site::INTRO,
        steps,
    }])
}
