//! Shared test support: a `Sources` over a private cache, and a real MCP exchange with a
//! launched server (spawned the way the client will spawn a launch plan).

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcpseal_sources::{Cache, Config, LaunchOptions, LaunchPlan, Launcher, Sources};
use serde_json::Value;

pub fn launcher() -> Launcher {
    Launcher::standalone(env!("CARGO_BIN_EXE_mcpseal-sandbox"))
}

pub fn sources(cache: &Path, env: Vec<(String, String)>) -> Sources {
    let mut config = Config::new(Cache::new(cache));
    config.installer_env = env;
    Sources::new(config).expect("sources")
}

pub fn launch_options() -> LaunchOptions {
    LaunchOptions::new(launcher())
}

/// What a launched server said: its `initialize` result and tool names, or why not.
#[derive(Debug)]
pub struct Spoke {
    pub server_info: Value,
    pub tools: Vec<Value>,
}

/// Spawns `plan` (argv, cwd, exactly its env on top of ours — the launcher drops the rest),
/// sends `initialize` and `tools/list`, and reads both answers (30 s deadline).
pub fn speak(plan: &LaunchPlan) -> Result<Spoke, String> {
    let mut child = Command::new(&plan.argv[0])
        .args(&plan.argv[1..])
        .current_dir(&plan.cwd)
        .envs(plan.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("stdin")?;
    let stdout = child.stdout.take().ok_or("stdout")?;
    let stderr = child.stderr.take().ok_or("stderr")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let err_lines = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        let _ = writeln!(stdin, "{v}");
        let _ = stdin.flush();
    };
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    let mut answers = Vec::new();
    let mut failure = None;
    for id in 1..=2 {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => {
                let v: Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))?;
                answers.push(v);
                if id == 1 {
                    send(
                        &mut stdin,
                        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                    );
                    send(
                        &mut stdin,
                        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
                    );
                }
            }
            Err(_) => {
                failure = Some("no answer".to_owned());
                break;
            }
        }
    }
    drop(stdin);
    let _ = child.kill();
    let status = child.wait().map_err(|e| e.to_string())?;
    let stderr = err_lines.join().unwrap_or_default();
    if let Some(f) = failure {
        return Err(format!("{f}; {status}; stderr: {}", stderr.join("\n")));
    }
    Ok(Spoke {
        server_info: answers[0]["result"]["serverInfo"].clone(),
        tools: answers[1]["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    })
}

pub fn tool_names(s: &Spoke) -> Vec<String> {
    s.tools
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}
