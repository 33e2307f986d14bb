//! Peak memory of the fingerprint pipeline, measured as the process's peak RSS (Linux
//! `VmHWM`), in a fresh child process per mode so allocator reuse cannot hide anything.
//!
//! The parent generates the capture into a temporary file; each child reads it (holding
//! exactly the input bytes), then runs one mode and reports `VmHWM` and `VmRSS`. Modes:
//! `baseline` (serde_json parse to `Value` + compact serialise) and `fingerprint` (raw capture
//! bytes → `Surface` → mcpseal/1 fingerprint). `cargo bench -p mcpseal-surface --bench
//! peak_rss`; `MCPSEAL_BENCH_TOOLS` sets the tool count (default 10 000);
//! `MCPSEAL_PEAK_WRITE=FILE` only writes the generated capture to FILE and exits.
#![expect(clippy::print_stdout, reason = "a bench binary reports on stdout")]
#![expect(
    clippy::disallowed_methods,
    reason = "the bench writes its input and measures itself in child processes"
)]

#[path = "common/generate.rs"]
mod generate;

use std::hint::black_box;
use std::process::Command;

use mcpseal_surface::{Form, Surface};

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("field present")
}

fn child(mode: &str, path: &str) {
    let bytes = std::fs::read(path).expect("read capture");
    let rss_before = status_kib("VmRSS:");
    match mode {
        "baseline" => {
            let v: serde_json::Value = serde_json::from_slice(&bytes).expect("parse");
            let out = serde_json::to_vec(&v).expect("serialise");
            black_box((v, out));
        }
        "fingerprint" => {
            let fp = Surface::from_slice(&bytes)
                .expect("valid")
                .fingerprint(Form::McpSeal1);
            println!("fingerprint  sha256 {}", fp.sha256);
            black_box(fp);
        }
        other => panic!("unknown mode {other}"),
    }
    let peak = status_kib("VmHWM:");
    let input_kib = (bytes.len() as u64).div_ceil(1024);
    println!(
        "{mode:<12} input {:>7.1} MiB  rss-before {:>7.1} MiB  peak-rss {:>7.1} MiB  peak/input {:>4.2}x  (peak-before)/input {:>4.2}x",
        input_kib as f64 / 1024.0,
        rss_before as f64 / 1024.0,
        peak as f64 / 1024.0,
        peak as f64 / input_kib as f64,
        (peak.saturating_sub(rss_before)) as f64 / input_kib as f64,
    );
}

fn main() {
    if let (Ok(mode), Ok(path)) = (
        std::env::var("MCPSEAL_PEAK_MODE"),
        std::env::var("MCPSEAL_PEAK_FILE"),
    ) {
        child(&mode, &path);
        return;
    }
    if !std::env::args().any(|a| a == "--bench") && std::env::var_os("MCPSEAL_PEAK_WRITE").is_none()
    {
        // `cargo test --benches` runs bench binaries without `--bench`: measure nothing then.
        println!("peak_rss: skipped (run with `cargo bench`)");
        return;
    }
    let tools: usize = std::env::var("MCPSEAL_BENCH_TOOLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    if let Ok(out) = std::env::var("MCPSEAL_PEAK_WRITE") {
        // Only write the capture (for an external check with `/usr/bin/time -v`).
        std::fs::write(out, generate::capture(tools)).expect("write capture");
        return;
    }
    let path = std::env::temp_dir().join(format!("mcpseal-peak-{}.json", std::process::id()));
    std::fs::write(&path, generate::capture(tools)).expect("write capture");
    let exe = std::env::current_exe().expect("own path");
    println!("peak RSS, {tools} tools");
    for mode in ["baseline", "fingerprint"] {
        let status = Command::new(&exe)
            .env("MCPSEAL_PEAK_MODE", mode)
            .env("MCPSEAL_PEAK_FILE", &path)
            .status()
            .expect("spawn child");
        assert!(status.success(), "{mode} child failed");
    }
    let _ = std::fs::remove_file(&path);
}
