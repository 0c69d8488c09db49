//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under the repository root.
pub fn repo(rel: &str) -> PathBuf {
    root().join(rel)
}

/// Whether the real Valgrind can be used. With `VGSUPP_REQUIRE_VALGRIND=1` a missing
/// Valgrind is a test failure instead of a skip.
pub fn valgrind_available() -> bool {
    let ok = std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok && std::env::var("VGSUPP_REQUIRE_VALGRIND").is_ok_and(|v| v == "1") {
        panic!("VGSUPP_REQUIRE_VALGRIND=1 but `valgrind --version` does not run");
    }
    ok
}

/// Every file directly in `dir` (sorted), excluding names in `skip`.
pub fn files_in(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file() && !skip.iter().any(|s| p.file_name().is_some_and(|n| n == *s)))
        .collect();
    v.sort();
    v
}

/// The `vgsupp` binary under test.
pub fn vgsupp() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("vgsupp").expect("binary")
}
