//! `mcpseal index` over a tiny cohort: the pinned `mcp-server-time`, the example site served
//! by `mcpseal serve` (stdio) and the fixture server, each a `cmd:` target (local programs, so
//! nothing is installed); run, merged with its history, and rendered as the static site, of
//! which only the list of files is shown.

use std::path::Path;

use super::{Runner, Section, copy_dir, time, write};

const INTRO: &str = "A cohort of three local servers (`cmd:` targets: nothing to install): `mcp-server-time` from the\npinned venv (see [`init`](init.md)), the repository's example site served by `mcpseal serve`\n(see [`serve`](serve.md)) and the fixture server `mcpseal-fixture`, in a temp directory. `--jobs 1`\nmeasures one target at a time, so the lines come in the cohort's order. Only the temp directory\n(`.`) and the run's durations (`<s>`) are replaced; the run id is given (`--run-id`), so nothing\ndepends on the date.\n";

const COHORT: &str = r#"# Three local servers; `cmd:` targets run as given (not pinned), installed ones are pinned
# with their integrity (docs/index.md).
[defaults]
budget-seconds = 180
request-timeout-seconds = 30

[[target]]
id = "mcp-server-time"
install = "cmd:.venv/bin/mcp-server-time"
args = ["--local-timezone", "UTC"]

[[target]]
id = "example-site"
install = "cmd:mcpseal"
args = ["serve", "--config", "site/site.toml"]

[[target]]
id = "fixture"
install = "cmd:mcpseal-fixture"
"#;

pub fn sections(root: &Path, bins: &Path) -> anyhow::Result<Vec<Section>> {
    let project = time::project(root)?;
    let dir = project.path();
    copy_dir(&root.join("examples/site"), &dir.join("site"))?;
    write(dir, "cohort.toml", COHORT)?;
    let runner = Runner::new(bins, dir);
    let steps = vec![
        runner.file("cohort.toml", None)?,
        runner.step(
            &[
                "index",
                "run",
                "cohort.toml",
                "--out",
                "run",
                "--run-id",
                "example",
                "--jobs",
                "1",
            ],
            0,
        )?,
        runner.step(
            &[
                "index",
                "merge",
                "--out",
                "merged",
                "--history",
                "history.db",
                "run",
            ],
            0,
        )?,
        runner.step(&["index", "history", "--db", "history.db"], 0)?,
        runner.step(
            &[
                "index",
                "site",
                "--from",
                "merged",
                "--db",
                "history.db",
                "--out",
                "site-out",
            ],
            0,
        )?,
        runner.tree(&["merged", "site-out"])?,
        runner.file("merged/index.json", Some(60))?,
    ];
    Ok(vec![Section {
        page: "index",
        title: "",
        intro: INTRO,
        steps,
    }])
}
