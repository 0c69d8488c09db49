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

/// A fixture of the shared data set next to the repository (`../shared/REL`, see
/// `../shared/fixtures/README.md`), or `None` when it is absent: then `test` is skipped,
/// and says so on the real stderr (the harness hides what passing tests print with
/// `eprintln!`). With `VGSUPP_REQUIRE_FIXTURES=1` an absent fixture fails the test instead.
pub fn shared_fixture(rel: &str, test: &str) -> Option<PathBuf> {
    let required = std::env::var("VGSUPP_REQUIRE_FIXTURES").is_ok_and(|v| v == "1");
    match fixture_at(root().join("../shared").join(rel), test, required) {
        Ok(found) => found,
        Err(why) => panic!("{why}"),
    }
}

/// [`shared_fixture`]'s decision: the path when it exists; else a skip (said on stderr),
/// or, when `required`, the failure message.
fn fixture_at(path: PathBuf, test: &str, required: bool) -> Result<Option<PathBuf>, String> {
    if path.exists() {
        return Ok(Some(path));
    }
    let why = format!(
        "{test}: fixture {} is absent (the shared data set is not next to this checkout)",
        path.display()
    );
    if required {
        return Err(format!("VGSUPP_REQUIRE_FIXTURES=1 but {why}"));
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{why}: skipped");
    Ok(None)
}

#[test]
fn absent_fixtures_skip_or_fail() {
    let here = root().join("Cargo.toml");
    assert_eq!(fixture_at(here.clone(), "t", true), Ok(Some(here)));
    let absent = root().join("no/such/fixture");
    assert_eq!(fixture_at(absent.clone(), "t", false), Ok(None));
    let err = fixture_at(absent, "t", true).expect_err("required");
    assert!(err.contains("VGSUPP_REQUIRE_FIXTURES=1") && err.contains("no/such/fixture"));
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
