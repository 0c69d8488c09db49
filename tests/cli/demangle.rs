//! vgsupp's demangler against names Valgrind itself demangled (src/matcher/demangle.rs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    assert_eq!(pairs.len(), 101);
    let yes = check(&pairs);
    eprintln!("demangler sample: 101 pairs agree, {yes} decided to match");
    assert!(yes >= 20, "only {yes} decided");
}

/// Every (gen-block name, shown name) pair of the torch text log (`../shared`); skipped
/// when the shared fixtures are absent.
#[test]
fn torch_fixture_pairs_agree_with_valgrind() {
    let path: PathBuf = root().join("../shared/fixtures/torch/leaky-ext.txt.gz");
    if !Path::new(&path).exists() {
        eprintln!("{} absent: demangler fixture test skipped", path.display());
        return;
    }
    let (_, items) = detect::open(&path).expect("open");
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
    assert!(pairs.len() >= 1500, "{} pairs", pairs.len());
    let yes = check(&pairs);
    eprintln!(
        "demangler: {} pairs of leaky-ext.txt agree, {yes} decided to match",
        pairs.len()
    );
}
