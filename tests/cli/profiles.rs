//! The curated packs: the files in suppressions/ are clean and canonical, the binary carries
//! exactly them, `vgsupp profiles` lists and prints them, and `-s profile:NAME` loads one.

use crate::common::{repo, shared_fixture, vgsupp};
use vgsupp::packs::PACKS;

#[test]
fn every_pack_is_clean_and_canonical() {
    let dir = repo("suppressions");
    vgsupp()
        .args(["check", "--format", "json"])
        .arg(&dir)
        .assert()
        .success();
    let out = vgsupp()
        .args(["check", "--format", "json"])
        .arg(&dir)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let text = v.to_string();
    assert!(!text.contains("\"code\""), "diagnostics: {text}");
    vgsupp()
        .args(["fmt", "--check"])
        .arg(&dir)
        .assert()
        .success();
}

#[test]
fn embedded_bytes_equal_the_files_and_every_file_is_a_pack() {
    for p in &PACKS {
        let supp = std::fs::read(repo(&format!("suppressions/{}.supp", p.name))).expect("supp");
        let side =
            std::fs::read(repo(&format!("suppressions/{}.supp.yaml", p.name))).expect("yaml");
        assert!(supp == p.supp, "{}.supp differs from the binary's", p.name);
        assert!(
            side == p.sidecar,
            "{}.supp.yaml differs from the binary's",
            p.name
        );
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(repo("suppressions"))
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".supp").map(str::to_owned))
        .collect();
    on_disk.sort();
    let names: Vec<&str> = PACKS.iter().map(|p| p.name).collect();
    assert_eq!(on_disk, names, "a pack in suppressions/ is not compiled in");
}

#[test]
fn every_rule_cites_its_source_logs() {
    for p in &PACKS {
        let side = String::from_utf8_lossy(p.sidecar);
        let rules = side
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .count();
        assert_eq!(
            rules,
            p.rule_count(),
            "{}: one sidecar entry per rule",
            p.name
        );
        let cites = side.matches("\n      from:\n        - log: ").count();
        assert_eq!(cites, rules, "{}: every rule names its logs", p.name);
    }
}

#[test]
fn profiles_list_and_show() {
    let list = vgsupp().args(["profiles", "list"]).output().expect("run");
    assert!(list.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&list.stdout));
    let show = vgsupp()
        .args(["profiles", "show", "cuda-driver"])
        .output()
        .expect("run");
    assert!(show.status.success());
    assert_eq!(show.stdout, PACKS[1].supp);
    insta::assert_snapshot!(String::from_utf8_lossy(&show.stdout));
    let side = vgsupp()
        .args(["profiles", "show", "cuda-driver", "--sidecar"])
        .output()
        .expect("run");
    assert_eq!(side.stdout, PACKS[1].sidecar);
}

#[test]
fn an_unknown_profile_exits_2_naming_it() {
    for args in [
        &["profiles", "show", "cuda-drivers"][..],
        &["match", "-s", "profile:cuda-drivers", "no-such.log"][..],
        &["gen", "-s", "profile:cuda-drivers", "Cargo.toml"][..],
    ] {
        let out = vgsupp()
            .current_dir(repo(""))
            .args(args)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("unknown profile `cuda-drivers`") && err.contains("cuda-driver,"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn match_with_a_profile_hides_errors() {
    let Some(log) = shared_fixture(
        "fixtures/torch/leaky-ext.txt.gz",
        "match_with_a_profile_hides_errors",
    ) else {
        return;
    };
    let out = vgsupp()
        .args(["match", "--format", "json", "-s", "profile:libtorch"])
        .arg(&log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let errors = v["errors"].as_array().expect("errors");
    let hidden = errors
        .iter()
        .filter(|e| !e["suppressed_by"].is_null())
        .count();
    assert!(hidden > 1000, "{hidden} of {} hidden", errors.len());
    assert!(hidden < errors.len(), "the first-party errors stay");
    let rules = v["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), PACKS[3].rule_count());
    assert!(rules.iter().all(|r| r["file"] == "profile:libtorch"));
}

#[test]
fn gen_counts_a_profiles_rules_as_existing() {
    let Some(log) = shared_fixture(
        "fixtures/torch/cudart12-libcuda535.txt",
        "gen_counts_a_profiles_rules_as_existing",
    ) else {
        return;
    };
    let out = vgsupp()
        .args([
            "gen",
            "--first-party",
            "cudart_probe*",
            "-s",
            "profile:cuda-driver",
        ])
        .arg(&log)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("7 suppressed (0 by 0 new rules, 7 by -s rules)"),
        "{report}"
    );
}
