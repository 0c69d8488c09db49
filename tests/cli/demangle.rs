//! vgsupp's demangler against names Valgrind itself demangled (src/matcher/demangle.rs).

use std::collections::BTreeMap;
use std::path::Path;

use vgsupp::logs::detect;
use vgsupp::logs::record::{GenFrame, LogItem};
use vgsupp::matcher::Truth;
use vgsupp::matcher::demangle::{Display, display, fun_verdict};
use vgsupp::matcher::wildcard::Glob;

use crate::common::root;

/// Every pair must display as Valgrind showed it, and the true name must never be judged
/// not to match its own frame; returns how many pairs are decided `Yes`.
fn check(pairs: &BTreeMap<Vec<u8>, Vec<u8>>) -> usize {
    let mut wrong = Vec::new();
    let mut yes = 0;
    for (mangled, shown) in pairs {
        let ours = match display(mangled) {
            Display::Demangled(d) => d.into_bytes(),
            Display::AsIs => mangled.clone(),
            Display::Unavailable => b"(unavailable)".to_vec(),
        };
        if &ours != shown {
            wrong.push(format!(
                "{}: ours {} / Valgrind {}",
                String::from_utf8_lossy(mangled),
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(shown)
            ));
        }
        let v = fun_verdict(&Glob::new(mangled), shown, false);
        assert_ne!(v, Truth::No, "{}", String::from_utf8_lossy(mangled));
        yes += usize::from(v == Truth::Yes);
        // The anchor `gen` writes for it (`_ZN2at6native9empty_cpu*`) matches it too.
        let anchor = vgsupp::r#gen::generalise::anchor_glob(mangled);
        assert_ne!(
            fun_verdict(&Glob::new(&anchor), shown, false),
            Truth::No,
            "{} as {}",
            String::from_utf8_lossy(mangled),
            String::from_utf8_lossy(&anchor)
        );
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    yes
}

#[test]
fn committed_sample_agrees_with_valgrind() {
    let text = std::fs::read_to_string(root().join("tests/data/demangle/pairs.tsv")).expect("read");
    let pairs: BTreeMap<Vec<u8>, Vec<u8>> = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(m, d)| (m.as_bytes().to_vec(), d.as_bytes().to_vec()))
        .collect();
    assert_eq!(pairs.len(), 106);
    let yes = check(&pairs);
    eprintln!("demangler sample: 106 pairs agree, {yes} decided to match");
    assert!(yes >= 20, "only {yes} decided");
}

/// Every (gen-block name, shown name) pair of one log: the `fun:` lines of each error's
/// `--gen-suppressions` block beside the names of its stack, when both have the same length.
fn pairs_of(path: &Path) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let (_, items) = detect::open(path).expect("open");
    let mut pairs = BTreeMap::new();
    for item in items {
        let Ok(LogItem::Error(e)) = item else {
            continue;
        };
        let Some(block) = &e.suppression else {
            continue;
        };
        if block.frames.len() != e.stack.len() {
            continue;
        }
        for (g, f) in block.frames.iter().zip(e.stack.iter()) {
            if let (GenFrame::Fun(m), Some(shown)) = (g, f.fun)
                && (m.starts_with(b"_Z") || m.starts_with(b"_R"))
            {
                pairs.insert(m.to_vec(), shown.to_vec());
            }
        }
    }
    pairs
}

/// Every pair of every torch fixture log (`../shared/fixtures/torch/`, text and XML), all
/// recorded by Valgrind 3.19; skipped when the shared fixtures are absent. The public logs
/// are not used: in `063-vivid3d-xml-gen-suppressions.xml` the blocks name functions the
/// stacks call otherwise (`compute_vornoi` / `ComputeVoronoi`), edited after recording.
#[test]
fn every_fixture_pair_agrees_with_valgrind() {
    let Some(dir) = crate::common::shared_fixture("fixtures", "demangler fixture test") else {
        return;
    };
    let mut all = BTreeMap::new();
    let mut per_log = Vec::new();
    for path in crate::common::files_in(&dir.join("torch"), &[]) {
        let pairs = pairs_of(&path);
        per_log.push((path, pairs.len()));
        all.extend(pairs);
    }
    let torch_text = per_log
        .iter()
        .find(|(p, _)| p.ends_with("torch/leaky-ext.txt.gz"))
        .map_or(0, |(_, n)| *n);
    let torch_xml = per_log
        .iter()
        .find(|(p, _)| p.ends_with("torch/leaky-ext.xml.gz"))
        .map_or(0, |(_, n)| *n);
    assert!(
        torch_text >= 1500,
        "{torch_text} pairs in the torch text log"
    );
    assert!(torch_xml >= 1500, "{torch_xml} pairs in the torch XML log");
    let yes = check(&all);
    eprintln!(
        "demangler: {} distinct pairs of {} fixture logs agree, {yes} decided to match",
        all.len(),
        per_log.len()
    );
}

/// Builds `tests/valgrind-demangle/names.cpp` (g++) and `names.rs` (rustc), runs both under
/// the real Valgrind with `--gen-suppressions=all`, and checks every pair of their logs.
#[test]
fn names_valgrind_demangles_here_agree() {
    if !crate::common::valgrind_available() {
        eprintln!("valgrind absent: live demangler test skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let src = root().join("tests/valgrind-demangle");
    let cxx = dir.path().join("names-cxx");
    let rs = dir.path().join("names-rs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let builds: [(&str, Vec<std::ffi::OsString>); 2] = [
        (
            "g++",
            vec![
                "-std=c++17".into(),
                "-O1".into(),
                "-g".into(),
                src.join("names.cpp").into(),
                "-o".into(),
                cxx.clone().into(),
            ],
        ),
        (
            rustc.as_str(),
            vec![
                "-g".into(),
                "-Copt-level=0".into(),
                "-Csymbol-mangling-version=v0".into(),
                src.join("names.rs").into(),
                "-o".into(),
                rs.clone().into(),
            ],
        ),
    ];
    for (tool, args) in &builds {
        let out = std::process::Command::new(tool)
            .args(args)
            .output()
            .expect("compiler");
        assert!(
            out.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut cxx_pairs = BTreeMap::new();
    let mut rust_pairs = BTreeMap::new();
    for (program, pairs) in [(&cxx, &mut cxx_pairs), (&rs, &mut rust_pairs)] {
        let log = program.with_extension("log");
        let status = std::process::Command::new("valgrind")
            .arg("--leak-check=full")
            .arg("--show-leak-kinds=all")
            .arg("--gen-suppressions=all")
            .arg("--num-callers=30")
            .arg(format!("--log-file={}", log.display()))
            .arg(program)
            .status()
            .expect("valgrind");
        assert!(status.success(), "valgrind {}", program.display());
        *pairs = pairs_of(&log);
    }
    let left_mangled = cxx_pairs.iter().filter(|(m, d)| m == d).count();
    assert!(cxx_pairs.len() >= 10, "{} C++ pairs", cxx_pairs.len());
    assert!(left_mangled >= 1, "no name Valgrind left mangled");
    assert!(
        rust_pairs.keys().filter(|m| m.starts_with(b"_R")).count() >= 10,
        "{} Rust pairs",
        rust_pairs.len()
    );
    let yes = check(&cxx_pairs) + check(&rust_pairs);
    eprintln!(
        "demangler: {} C++ pairs ({left_mangled} left mangled by Valgrind) and {} Rust pairs \
         recorded here agree, {yes} decided to match",
        cxx_pairs.len(),
        rust_pairs.len()
    );
}
