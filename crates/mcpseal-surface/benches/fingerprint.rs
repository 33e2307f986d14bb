//! Raw capture bytes in → fingerprint out (parse included) on a generated 10 000-tool surface,
//! against a baseline in the same run: serde_json parse to `Value` + compact serialise of the
//! same bytes. Figures and commands: BENCHMARKS.md, section "Surface fingerprint".
#![allow(missing_docs, reason = "criterion macros generate undocumented items")]

#[path = "common/generate.rs"]
mod generate;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpseal_surface::{Form, Surface};

fn bench(c: &mut Criterion) {
    // `cargo test --benches` runs this binary without `--bench`: a 100-tool smoke run then.
    let default = if std::env::args().any(|a| a == "--bench") {
        10_000
    } else {
        100
    };
    let tools: usize = std::env::var("MCPSEAL_BENCH_TOOLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    let bytes = generate::capture(tools);
    let mut group = c.benchmark_group(format!("surface_{tools}_tools"));
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("baseline_serde_json_parse_and_serialise", |b| {
        b.iter(|| {
            let v: serde_json::Value =
                serde_json::from_slice(black_box(&bytes)).expect("generated JSON parses");
            serde_json::to_vec(&v).expect("serialise")
        });
    });
    group.bench_function("fingerprint_mcpseal_1", |b| {
        b.iter(|| {
            Surface::from_slice(black_box(&bytes))
                .expect("generated capture is valid")
                .fingerprint(Form::McpSeal1)
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
