//! Parse + format throughput on the corpus concatenated to at least 50 MB
//! (target: ≥ 200 MB/s on one core, PRODUCT.md §7).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const TARGET_BYTES: usize = 50 * 1024 * 1024;

fn corpus() -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data/corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "MANIFEST.tsv"))
        .collect();
    files.sort();
    let mut one = Vec::new();
    for f in files {
        one.extend(std::fs::read(f).expect("read corpus file"));
        one.push(b'\n');
    }
    let mut all = Vec::with_capacity(TARGET_BYTES + one.len());
    while all.len() < TARGET_BYTES {
        all.extend_from_slice(&one);
    }
    all
}

fn bench(c: &mut Criterion) {
    let data = corpus();
    let mut g = c.benchmark_group("supp");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("parse (model)", |b| {
        b.iter(|| vgsupp::supp::parse(black_box(data.clone())))
    });
    g.bench_function("parse+format (streaming, what `vgsupp fmt` does)", |b| {
        b.iter(|| vgsupp::supp::format_source(black_box(&data)));
    });
    g.bench_function("parse+format (via the model)", |b| {
        b.iter(|| vgsupp::supp::format(&vgsupp::supp::parse(black_box(data.clone()))));
    });
    g.bench_function("load (memcheck, recovering)", |b| {
        let opts = vgsupp::supp::LoadOptions::new(vgsupp::supp::Tool::Memcheck);
        b.iter(|| vgsupp::supp::load(black_box(&data), opts, true));
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
