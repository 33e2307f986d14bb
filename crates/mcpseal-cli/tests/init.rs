//! `mcpseal init` end to end, on small projects the test makes in temp directories with the
//! official SDKs from the test peers (the TypeScript SDK v2 in `tests/peers/npm/node_modules`,
//! the Python `mcp` in `tests/peers/.venv`): init detects the server, writes `mcpseal.toml`, the
//! first lock and the workflow; `check` and `probe` then run with no arguments; a second init
//! changes nothing; `--dry-run` writes nothing; an existing file is kept without `--force`; a
//! server that cannot be locked leaves nothing behind; the workflow is actionlint-clean for
//! every project kind; the config's `required-version` is enforced and is what the Action
//! installs.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its projects and starts the programs it checks"
)]

mod dist_support;
mod lock_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dist_support::{dist_tool, workspace};
use lock_support::{Out, run_in};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `mcpseal ARGS` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Out {
    run_in(dir, args, Duration::from_secs(180))
}

fn peers() -> PathBuf {
    workspace().join("tests/peers")
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Every file under `dir` (not following the SDK symlinks) with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let kind = entry.file_type().expect("type");
            let name = path.strip_prefix(dir).expect("under").display().to_string();
            if kind.is_symlink() {
                out.insert(name, b"(symlink)".to_vec());
            } else if kind.is_dir() {
                stack.push(path);
            } else {
                out.insert(name, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

/// A small TypeScript-SDK server project, as `tsc` leaves it: `package.json` with a `bin`
/// pointing at the built `dist/index.js` (plain ESM), the SDK in `node_modules`.
fn ts_project() -> tempfile::TempDir {
    let node_modules = peers().join("npm/node_modules");
    assert!(
        node_modules.join("@modelcontextprotocol/server").is_dir(),
        "the TypeScript SDK is missing\nhint: run `tests/peers/install.sh`"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(&node_modules, dir.path().join("node_modules")).expect("symlink");
    write(
        dir.path(),
        "package.json",
        r#"{
  "name": "demo-ts-server",
  "version": "1.4.0",
  "type": "module",
  "bin": { "demo-ts-server": "dist/index.js" },
  "scripts": { "build": "tsc" }
}
"#,
    );
    write(
        dir.path(),
        "dist/index.js",
        r#"#!/usr/bin/env node
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'demo-ts-server', version: '1.4.0' });
  server.registerTool(
    'greet',
    { description: 'Greet someone by name', inputSchema: z.object({ name: z.string().describe('Who to greet') }) },
    async ({ name }) => ({ content: [{ type: 'text', text: `hello ${name}` }] }),
  );
  return server;
}

serveStdio(() => build());
"#,
    );
    dir
}

/// A small Python-SDK server project: `pyproject.toml`, a `server.py`, the SDK in `.venv`.
fn py_project() -> tempfile::TempDir {
    let venv = peers().join(".venv");
    assert!(
        venv.join("bin/python").exists(),
        "the Python SDK venv is missing\nhint: run `tests/peers/install.sh`"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(&venv, dir.path().join(".venv")).expect("symlink");
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"demo-py-server\"\nversion = \"0.3.0\"\ndependencies = [\"mcp>=2\"]\n",
    );
    write(
        dir.path(),
        "server.py",
        r#"from mcp.server.mcpserver import MCPServer

mcp = MCPServer(name="demo-py-server", version="0.3.0")


@mcp.tool(description="Greet someone by name")
def greet(name: str) -> str:
    return f"hello {name}"


if __name__ == "__main__":
    mcp.run("stdio")
"#,
    );
    dir
}

/// init, then check and probe with no arguments, then a second init that changes nothing.
fn init_check_probe(dir: &Path, server: &str, version: &str) {
    let first = run(dir, &["init"]);
    assert_eq!(first.code, 0, "{}{}", first.stdout, first.stderr);
    for line in [
        "wrote      mcpseal.toml",
        "locked     surface.lock.json",
        "wrote      .github/workflows/mcpseal.yml",
    ] {
        assert!(first.stdout.contains(line), "{line}:\n{}", first.stdout);
    }
    assert!(first.stdout.contains(server), "{}", first.stdout);
    let config = std::fs::read_to_string(dir.join("mcpseal.toml")).expect("config");
    assert!(
        config.contains(&format!("required-version = \"{VERSION}\"")),
        "{config}"
    );
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("surface.lock.json")).expect("lock"))
            .expect("lock json");
    assert_eq!(lock["declared"]["version"], version, "{lock:#}");

    let check = run(dir, &["check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    assert!(check.stdout.contains("ok: the surface"), "{}", check.stdout);

    let probe = run(dir, &["probe", "--format", "json"]);
    assert_ne!(probe.code, 2, "{}{}", probe.stdout, probe.stderr);
    let report: serde_json::Value = serde_json::from_str(&probe.stdout).expect("probe json");
    assert_eq!(report["state"], "measured", "{report:#}");

    let before = tree(dir);
    let second = run(dir, &["init"]);
    assert_eq!(second.code, 0, "{}{}", second.stdout, second.stderr);
    assert!(
        second.stdout.contains("nothing changed"),
        "{}",
        second.stdout
    );
    assert_eq!(tree(dir), before, "a second init changed a file");
}

#[test]
fn typescript_project_init_then_check_and_probe() {
    let dir = ts_project();
    init_check_probe(dir.path(), "-- node dist/index.js", "1.4.0");
    let offered = run(dir.path(), &["init"]).stdout;
    assert!(
        offered.contains("\"surface:check\": \"mcpseal check\""),
        "{offered}"
    );
}

#[test]
fn python_project_init_then_check_and_probe() {
    let dir = py_project();
    init_check_probe(dir.path(), "-- .venv/bin/python server.py", "0.3.0");
    let offered = run(dir.path(), &["init"]).stdout;
    assert!(offered.contains("[tool.mcpseal]"), "{offered}");
}

#[test]
fn python_console_script_is_detected_and_locked() {
    // `mcp-server-time` is a console script installed in the peers' venv, as `pip install .`
    // leaves a project's own.
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(peers().join(".venv"), dir.path().join(".venv")).expect("symlink");
    write(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"mcp-server-time\"\nversion = \"2026.10.19\"\n\n[project.scripts]\nmcp-server-time = \"mcp_server_time:main\"\n",
    );
    let init = run(dir.path(), &["init"]);
    assert_eq!(init.code, 0, "{}{}", init.stdout, init.stderr);
    assert!(
        init.stdout
            .contains("-- .venv/bin/mcp-server-time  (from pyproject.toml [project.scripts]"),
        "{}",
        init.stdout
    );
    let check = run(dir.path(), &["check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

#[test]
fn dry_run_writes_nothing_and_prints_the_files() {
    let dir = ts_project();
    let before = tree(dir.path());
    let out = run(dir.path(), &["init", "--dry-run"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(tree(dir.path()), before, "a dry run wrote something");
    assert!(
        out.stdout.contains("would write mcpseal.toml"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("--- mcpseal.toml ---\n#:schema https://github.com/mcpseal/mcpseal/blob/main/schemas/mcpseal-config.schema.json"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("command = [\"node\", \"dist/index.js\"]")
    );
    assert!(out.stdout.contains("would lock surface.lock.json"));
    assert!(
        out.stdout
            .contains(&format!("uses: mcpseal/mcpseal@v{VERSION}"))
    );
}

#[test]
fn an_existing_file_is_kept_without_force_and_replaced_with_it() {
    let dir = ts_project();
    let mine = "# my own workflow\nname: mine\n";
    write(dir.path(), ".github/workflows/mcpseal.yml", mine);
    let out = run(dir.path(), &["init"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("kept       .github/workflows/mcpseal.yml (exists and differs"),
        "{}",
        out.stdout
    );
    let kept = std::fs::read_to_string(dir.path().join(".github/workflows/mcpseal.yml"))
        .expect("workflow");
    assert_eq!(kept, mine);
    assert!(dir.path().join("mcpseal.toml").is_file());
    assert!(dir.path().join("surface.lock.json").is_file());

    // --force replaces the workflow, and never the lock.
    let lock = std::fs::read(dir.path().join("surface.lock.json")).expect("lock");
    let forced = run(dir.path(), &["init", "--force"]);
    assert_eq!(forced.code, 0, "{}{}", forced.stdout, forced.stderr);
    assert!(
        forced
            .stdout
            .contains("overwrote  .github/workflows/mcpseal.yml (--force)"),
        "{}",
        forced.stdout
    );
    assert!(forced.stdout.contains("kept       surface.lock.json"));
    let replaced = std::fs::read_to_string(dir.path().join(".github/workflows/mcpseal.yml"))
        .expect("workflow");
    assert!(replaced.contains("command: probe"), "{replaced}");
    assert_eq!(
        std::fs::read(dir.path().join("surface.lock.json")).expect("lock"),
        lock
    );
}

#[test]
fn a_server_that_cannot_be_locked_leaves_nothing_behind() {
    // The entry is there but is no server: it exits at once.
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "package.json",
        r#"{"name": "broken", "version": "0.1.0", "main": "index.js"}"#,
    );
    write(dir.path(), "index.js", "process.exit(3);\n");
    let before = tree(dir.path());
    let out = run(dir.path(), &["init", "--format", "json"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("error document");
    assert_eq!(doc["error"]["kind"], "unreachable", "{doc:#}");
    assert_eq!(tree(dir.path()), before);

    // An unbuilt TypeScript project is refused before anything starts.
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "package.json",
        r#"{"name": "unbuilt", "version": "0.1.0", "bin": "dist/index.js"}"#,
    );
    let out = run(dir.path(), &["init"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("`dist/index.js`") && out.stderr.contains("npm run build"),
        "{}",
        out.stderr
    );
    assert!(!dir.path().join("mcpseal.toml").exists());
}

#[test]
fn the_workflow_is_actionlint_clean_for_every_project_kind() {
    let actionlint = dist_tool("actionlint");
    let projects: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "node",
            vec![
                (
                    "package.json",
                    r#"{"version": "1.0.0", "main": "server.js"}"#,
                ),
                ("package-lock.json", "{}"),
                ("server.js", ""),
            ],
        ),
        (
            "python",
            vec![
                (
                    "pyproject.toml",
                    "[project]\nname = \"x\"\nversion = \"1.0.0\"\n",
                ),
                ("server.py", ""),
                (".venv/bin/python", ""),
            ],
        ),
        (
            "python-requirements",
            vec![("requirements.txt", "mcp\n"), ("main.py", "")],
        ),
        (
            "rust",
            vec![
                (
                    "Cargo.toml",
                    "[package]\nname = \"srv\"\nversion = \"1.0.0\"\n",
                ),
                ("src/main.rs", ""),
            ],
        ),
    ];
    let mut kinds = Vec::new();
    for (name, files) in projects {
        let dir = tempfile::tempdir().expect("tempdir");
        for (file, text) in files {
            write(dir.path(), file, text);
        }
        let out = run(dir.path(), &["init", "--dry-run", "--format", "json"]);
        assert_eq!(out.code, 0, "{name}: {}{}", out.stdout, out.stderr);
        let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
        kinds.push(report["kind"].as_str().unwrap_or("").to_owned());
        let workflow = report["files"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["role"] == "workflow"))
            .and_then(|f| f["content"].as_str())
            .expect("workflow text")
            .to_owned();
        write(dir.path(), ".github/workflows/mcpseal.yml", &workflow);
        let lint = std::process::Command::new(&actionlint)
            .arg(".github/workflows/mcpseal.yml")
            .current_dir(dir.path())
            .env("PATH", dist_tool("shellcheck").parent().expect("bin dir"))
            .output()
            .expect("actionlint runs");
        assert!(
            lint.status.success(),
            "{name}: actionlint:\n{}{}\n{workflow}",
            String::from_utf8_lossy(&lint.stdout),
            String::from_utf8_lossy(&lint.stderr)
        );
    }
    assert_eq!(kinds, ["node", "python", "python", "rust"]);
}

#[test]
fn required_version_is_enforced_and_is_what_the_action_installs() {
    let dir = ts_project();
    assert_eq!(run(dir.path(), &["init"]).code, 0);
    // The Action reads init's pin (action/lib/version.js, the code the Action runs).
    let script = format!(
        "const {{ resolveVersion }} = require({:?}); process.stdout.write(JSON.stringify(resolveVersion({{ input: '', workingDirectory: {:?}, workspace: undefined, actionRoot: {:?} }})));",
        workspace().join("action/lib/version.js"),
        dir.path(),
        workspace()
    );
    let node = std::process::Command::new("node")
        .args(["-e", &script])
        .output()
        .expect("node runs");
    assert!(
        node.status.success(),
        "{}",
        String::from_utf8_lossy(&node.stderr)
    );
    let resolved: serde_json::Value = serde_json::from_slice(&node.stdout).expect("json");
    assert_eq!(resolved["version"], VERSION, "{resolved}");
    assert!(
        resolved["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("mcpseal.toml")),
        "{resolved}"
    );

    // A pin this mcpseal does not satisfy: exit 2 naming both and how to install it.
    let config = std::fs::read_to_string(dir.path().join("mcpseal.toml")).expect("config");
    let pinned = config.replace(
        &format!("required-version = \"{VERSION}\""),
        "required-version = \"0.0.1\"",
    );
    write(dir.path(), "mcpseal.toml", &pinned);
    for args in [&["check"][..], &["probe"], &["config"], &["init"]] {
        let out = run(dir.path(), args);
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "mcpseal.toml requires mcpseal 0.0.1, but this is mcpseal {VERSION}"
            )),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(
                "hint: install mcpseal 0.0.1: `cargo install mcpseal --locked --version =0.0.1`"
            ),
            "{args:?}: {}",
            out.stderr
        );
    }
    // A semver requirement the running version satisfies: runs.
    let (major, minor) = {
        let mut parts = VERSION.split('.');
        (
            parts.next().expect("major").to_owned(),
            parts.next().expect("minor").to_owned(),
        )
    };
    let range = config.replace(
        &format!("required-version = \"{VERSION}\""),
        &format!(
            "required-version = \">={major}.{minor}.0, <{}.0.0\"",
            major.parse::<u64>().expect("n") + 1
        ),
    );
    write(dir.path(), "mcpseal.toml", &range);
    let check = run(dir.path(), &["check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    // Not a requirement at all: exit 2 naming the key.
    write(
        dir.path(),
        "mcpseal.toml",
        &config.replace(
            &format!("required-version = \"{VERSION}\""),
            "required-version = \"latest\"",
        ),
    );
    let bad = run(dir.path(), &["check"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("`required-version = \"latest\"` is not a version"),
        "{}",
        bad.stderr
    );
}
