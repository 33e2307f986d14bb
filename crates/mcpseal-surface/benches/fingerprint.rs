//! Raw capture bytes in → fingerprint out (parse included) on generated surfaces (10 000 tools
//! over 100 pages, and 5 000 tools over 50 pages), against a baseline in the same run: serde_json
//! parse to `Value` + compact serialise of the same bytes. A third row, SHA-256 of the input
//! bytes alone, is the floor no fingerprint can beat (every canonical byte is hashed twice: once
//! for its item, once for the document). With `--features differential`, the reference path (the
//! pipeline before the fast path) runs in the same group. Figures and commands: BENCHMARKS.md,
//! section "Surface fingerprint".

#[path = "common/generate.rs"]
mod generate;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpseal_surface::{Form, Surface, sha256_hex};

fn bench(c: &mut Criterion) {
    // `cargo test --benches` runs this binary without `--bench`: a 100-tool smoke run then.
    let sizes: Vec<usize> = match std::env::var("MCPSEAL_BENCH_TOOLS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(n) => vec![n],
        None if std::env::args().any(|a| a == "--bench") => vec![10_000, 5_000],
        None => vec![100],
    };
    for tools in sizes {
        let bytes = generate::capture(tools);
        let pages = tools.div_ceil(generate::PER_PAGE);
        let mut group = c.benchmark_group(format!("surface_{tools}_tools_{pages}_pages"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(if tools > 1_000 { 15 } else { 1 }));
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
        // The pipeline as it was before the fast path (serde walk, `Value` per item), still in
        // the crate as the reference: `--features differential` adds it to the same run.
        #[cfg(feature = "differential")]
        group.bench_function("reference_path_mcpseal_1", |b| {
            b.iter(|| {
                mcpseal_surface::differential::reference_from_slice(black_box(&bytes))
                    .expect("generated capture is valid")
                    .fingerprint(Form::McpSeal1)
            });
        });
        group.bench_function("floor_sha256_of_input", |b| {
            b.iter(|| sha256_hex(black_box(&bytes)));
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
