//! Shared helpers of the lock/check/verify/diff end-to-end tests: a working directory, surface
//! files per simulated server version, and a runner that keeps exit code, stdout and stderr.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::stdio_argv;
use serde_json::{Value, json};

/// One run of the binary.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// A finished run's exit code (-1 for a signal) and output, as text.
    pub fn of(out: &std::process::Output) -> Out {
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or(Value::Null)
    }
}

/// A temporary working directory for mcpseal (manifests and the lock live there).
pub struct Work {
    pub dir: tempfile::TempDir,
}

impl Work {
    pub fn new() -> Work {
        Work {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn lock_bytes(&self) -> Vec<u8> {
        std::fs::read(self.path("surface.lock.json")).unwrap_or_default()
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "tests write their input files; nothing here is a lock"
    )]
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.path(name);
        std::fs::write(&p, text).expect("write file");
        p.to_string_lossy().into_owned()
    }

    /// Writes a `--surface` file for the fixture.
    pub fn surface(&self, name: &str, surface: &Value) -> String {
        self.write(name, &surface.to_string())
    }

    /// `mcpseal ARGS -- <fixture FIXTURE...>` in the working directory.
    pub fn run(&self, args: &[&str], fixture: Option<&[&str]>) -> Out {
        self.run_env(args, fixture, &[])
    }

    /// [`Work::run`] with extra environment variables.
    pub fn run_env(&self, args: &[&str], fixture: Option<&[&str]>, env: &[(&str, &str)]) -> Out {
        let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
        cmd.timeout(Duration::from_secs(60))
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .args(args);
        if let Some(f) = fixture {
            cmd.arg("--").args(stdio_argv(f));
        }
        Out::of(&cmd.output().expect("runs"))
    }
}

/// `mcpseal ARGS` in `dir`, uncoloured, killed after `timeout`.
pub fn run_in(dir: &Path, args: &[&str], timeout: Duration) -> Out {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(timeout)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("runs");
    Out::of(&out)
}

/// The surface of version 1 of the simulated server.
pub fn base_surface() -> Value {
    json!({
        "instructions": "Use `echo` to echo text.",
        "serverInfo": {"name": "seal-test", "version": "1.0.0"},
        "tools": [
            {"name": "echo", "description": "Echo a message back",
             "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                             "required": ["message"]}},
            {"name": "clock", "description": "A fixed clock",
             "inputSchema": {"type": "object"},
             "annotations": {"readOnlyHint": true}}
        ],
        "resources": [{"uri": "fixture://readme", "name": "readme"}],
        "resourceTemplates": [],
        "prompts": []
    })
}

/// `base` with tool `name` removed.
pub fn without_tool(base: &Value, name: &str) -> Value {
    let mut s = base.clone();
    if let Some(tools) = s["tools"].as_array_mut() {
        tools.retain(|t| t["name"] != name);
    }
    s
}

/// `base` with tool `name`'s description replaced.
pub fn with_description(base: &Value, name: &str, text: &str) -> Value {
    let mut s = base.clone();
    if let Some(tools) = s["tools"].as_array_mut() {
        for t in tools.iter_mut().filter(|t| t["name"] == name) {
            t["description"] = json!(text);
        }
    }
    s
}

/// `base` with a new read-only tool.
pub fn with_new_tool(base: &Value, name: &str) -> Value {
    let mut s = base.clone();
    if let Some(tools) = s["tools"].as_array_mut() {
        tools.push(
            json!({"name": name, "description": "New", "inputSchema": {"type": "object"},
                          "annotations": {"readOnlyHint": true}}),
        );
    }
    s
}

pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcpseal/tests/data")
        .join(name)
}

/// Asserts `doc` validates against `schemas/NAME` at the repository root.
pub fn assert_schema(name: &str, doc: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join(name);
    let schema: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("schema file")).expect("schema json");
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{doc:#}");
}
