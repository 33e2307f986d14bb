//! List, install and start the published versions of a source, with timings: the harness
//! behind the install/cache figures in BENCHMARKS.md, and a manual check against real
//! registries.
//!
//! ```text
//! cargo build -p mcpseal-sources --bin mcpseal-sandbox
//! cargo run -p mcpseal-sources --example sources -- SOURCE [--last N] [--bin NAME] \
//!     [--cache DIR] [--registry URL] [--allow-network]
//! ```
//!
//! Prints one line per version: version, publish date, status, install time (and whether the
//! cache had it), then the tool count the started server lists under the sandbox (or why it
//! did not answer), and the isolation the launcher achieved.
#![expect(clippy::print_stdout, reason = "an example that prints its table")]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcpseal_sources::{
    Cache, Config, LaunchOptions, LaunchPlan, Launcher, Source, Sources, Status, VersionQuery,
    launch,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let spec = args.next().ok_or("usage: sources SOURCE [--last N] [--bin NAME] [--cache DIR] [--registry URL] [--allow-network]")?;
    let (mut last, mut bin, mut cache, mut registry, mut network) = (None, None, None, None, true);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--last" => last = Some(args.next().ok_or("--last N")?.parse()?),
            "--bin" => bin = args.next(),
            "--cache" => cache = args.next().map(PathBuf::from),
            "--registry" => registry = args.next(),
            "--allow-network" => network = false,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let mut source = Source::parse(&spec)?;
    match (&mut source, registry) {
        (Source::Npm(p), Some(r)) => p.registry = Some(r),
        (Source::Pypi(p), Some(r)) => p.index = Some(r),
        _ => {}
    }
    let root = cache
        .or_else(Cache::default_root)
        .ok_or("no cache directory")?;
    let sources = Sources::new(Config::new(Cache::new(root)))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let t = Instant::now();
    let list = rt.block_on(sources.versions(
        &source,
        &VersionQuery {
            last,
            ..VersionQuery::default()
        },
    ))?;
    println!(
        "{} from {}: {} versions ({} left out) in {:.2} s",
        list.source,
        list.origin,
        list.versions.len(),
        list.excluded.len(),
        t.elapsed().as_secs_f64()
    );
    let launcher = std::env::current_exe()?
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("mcpseal-sandbox"))
        .ok_or("no launcher path")?;
    let mut options = LaunchOptions::new(Launcher::standalone(launcher));
    options.bin = bin;
    options.isolation.network = network;
    let mut total_install = Duration::ZERO;
    let mut isolation = Vec::new();
    for v in &list.versions {
        let date = v
            .published_at
            .map(|d| d.to_string()[..10].to_owned())
            .unwrap_or_else(|| "-".into());
        let status = match &v.status {
            Status::Current => "",
            Status::Deprecated { .. } => " deprecated",
            Status::Yanked { .. } => " yanked",
        };
        let t = Instant::now();
        let installed = rt.block_on(sources.install(&source, v));
        let took = t.elapsed();
        total_install += took;
        let row = match installed {
            Err(e) => format!(
                "install failed ({:?}): {} | {}",
                e.stage,
                e.message,
                e.log_tail.last().cloned().unwrap_or_default()
            ),
            Ok(i) => {
                let cached = if i.reused { "cached" } else { "installed" };
                match launch::plan(&i, &options) {
                    Err(e) => format!("{cached} {:.2} s; no launch: {e}", took.as_secs_f64()),
                    Ok(plan) => {
                        let spoke = speak(&plan);
                        if let Ok(r) = plan.isolation_report() {
                            isolation = r.lines();
                        }
                        format!("{cached} {:.2} s; {spoke}", took.as_secs_f64())
                    }
                }
            }
        };
        println!("  {:<14} {date}{status}  {row}", v.version);
    }
    println!("installs: {:.2} s in total", total_install.as_secs_f64());
    for l in isolation {
        println!("{l}");
    }
    Ok(())
}

/// `initialize` + `tools/list` with a 60 s deadline: "N tools" or why not.
fn speak(plan: &LaunchPlan) -> String {
    let Ok(mut child) = Command::new(&plan.argv[0])
        .args(&plan.argv[1..])
        .current_dir(&plan.cwd)
        .envs(plan.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        return "cannot spawn".into();
    };
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return "no pipes".into();
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.trim_start().starts_with('{') && tx.send(line).is_err() {
                break;
            }
        }
    });
    let errs = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .last()
            .unwrap_or_default()
    });
    let _ = writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"sources-example","version":"0"}}}}}}"#
    );
    let out = match rx.recv_timeout(Duration::from_secs(60)) {
        Err(_) => None,
        Ok(_) => {
            let _ = writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
            );
            let _ = writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#);
            rx.recv_timeout(Duration::from_secs(60)).ok()
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let last_err = errs.join().unwrap_or_default();
    match out {
        Some(line) => {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            match v["result"]["tools"].as_array() {
                Some(t) => format!("{} tools", t.len()),
                None => format!("tools/list: {}", v["error"]),
            }
        }
        None => format!("no answer; stderr: {last_err}"),
    }
}
