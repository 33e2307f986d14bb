//! The CI workflow `mcpseal init` writes: `.github/workflows/mcpseal.yml`.
//!
//! Contract: the text depends only on the [`WorkflowInputs`] (so a second `init` writes the
//! same bytes); it runs `check` and then `probe`, each once, through this repository's Action
//! pinned to the running version (the Action renders each run as the Markdown job summary and
//! annotations itself), and uploads the probe's SARIF log to code scanning. The server target
//! is not repeated: the Action runs in the project directory, where `mcpseal.toml` names it.
//! The result is actionlint-clean (a test runs actionlint on every project kind).

use super::detect::ProjectKind;

/// Where the workflow is written, relative to the project.
pub const WORKFLOW_PATH: &str = ".github/workflows/mcpseal.yml";

/// What the workflow's setup steps depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowInputs {
    /// The project kind (`None`: an HTTP target, nothing to build).
    pub kind: Option<ProjectKind>,
    /// The mcpseal version the Action installs (`required-version` says the same).
    pub version: String,
    /// Node: a `package-lock.json` is there (`npm ci`, else `npm install`).
    pub npm_lockfile: bool,
    /// Python: the command runs from `.venv` (the workflow makes it).
    pub python_venv: bool,
    /// Python: `pyproject.toml` has a `[project]` table (`pip install .`).
    pub python_project: bool,
    /// Python: a `requirements.txt` is there.
    pub python_requirements: bool,
}

/// The setup steps before mcpseal runs, as YAML list items indented for `steps:`.
fn setup(inputs: &WorkflowInputs) -> String {
    let mut out = String::new();
    match inputs.kind {
        Some(ProjectKind::Node) => {
            out.push_str(
                "      - uses: actions/setup-node@v6\n        with:\n          node-version: 22\n",
            );
            let install = if inputs.npm_lockfile {
                "npm ci --ignore-scripts"
            } else {
                "npm install --ignore-scripts"
            };
            out.push_str(&format!("      - run: {install}\n"));
            out.push_str("      - run: npm run build --if-present\n");
        }
        Some(ProjectKind::Python) => {
            out.push_str(
                "      - uses: actions/setup-python@v6\n        with:\n          python-version: \"3.12\"\n",
            );
            let pip = if inputs.python_venv {
                out.push_str("      - run: python -m venv .venv\n");
                ".venv/bin/python -m pip"
            } else {
                "python -m pip"
            };
            if inputs.python_project {
                out.push_str(&format!("      - run: {pip} install .\n"));
            } else if inputs.python_requirements {
                out.push_str(&format!("      - run: {pip} install -r requirements.txt\n"));
            }
        }
        // GitHub's runners carry a stable Rust toolchain; `cargo run` builds the server.
        Some(ProjectKind::Rust) | None => {}
    }
    out
}

/// The workflow text.
pub fn render(inputs: &WorkflowInputs) -> String {
    let v = &inputs.version;
    format!(
        "# Written by `mcpseal init`. `mcpseal check` compares the server's surface with the
# committed lock; `mcpseal probe` tests its conformance with MCP 2026-07-28. The server, the
# lock and the rule options come from mcpseal.toml; the Action installs the mcpseal version
# that mcpseal.toml's required-version names. Each run's report is the job summary.
name: mcpseal

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

jobs:
  surface:
    runs-on: ubuntu-24.04
    permissions:
      contents: read
      security-events: write # the SARIF upload
    steps:
      - uses: actions/checkout@v5
        with:
          persist-credentials: false
{setup}      - name: mcpseal check
        uses: mcpseal/mcpseal@v{v}
        with:
          command: check
      - name: mcpseal probe
        id: probe
        if: ${{{{ !cancelled() }}}}
        uses: mcpseal/mcpseal@v{v}
        with:
          command: probe
          sarif: mcpseal-probe.sarif
      - name: upload the probe's SARIF log
        if: ${{{{ !cancelled() && steps.probe.outputs.sarif-path != '' }}}}
        uses: github/codeql-action/upload-sarif@v4
        with:
          sarif_file: ${{{{ steps.probe.outputs.sarif-path }}}}
          category: mcpseal-probe
",
        setup = setup(inputs),
    )
}
