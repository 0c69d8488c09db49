//! The human output of `vgsupp check` for every diagnostic code: one minimal input per code
//! in `src/catalogue/` (with a sidecar for `VS4xx`, a small program's log for `VS5xx`),
//! snapshotted per family (`VS1xx`, `VS2xx`, `VS3xx`, `VS4xx`, `VS5xx`, `VS9xx`). Adding a code to the registry without a case here fails
//! `every_code_has_a_case`. Today is 2026-06-01 (`VGSUPP_TODAY`).

use std::collections::BTreeSet;

use vgsupp::catalogue::RULES;

use crate::common::vgsupp;

/// One input that triggers `code`: `check`'s arguments before the file, the file, and its
/// sidecar (`case.supp.yaml`) if any.
struct Case {
    code: &'static str,
    args: &'static [&'static str],
    source: String,
    sidecar: Option<String>,
}

fn case(code: &'static str, args: &'static [&'static str], source: &str) -> Case {
    Case {
        code,
        args,
        source: source.to_owned(),
        sidecar: None,
    }
}

/// A `VS4xx` case: one rule `r` and a sidecar.
fn provenance(code: &'static str, sidecar: &str) -> Case {
    Case {
        code,
        args: &[],
        source: RULE_R.to_owned(),
        sidecar: Some(sidecar.to_owned()),
    }
}

/// A `VS5xx` case: the rules judged by a small program's log (`tests/data/logs/prune/`).
fn with_logs(code: &'static str, source: &str) -> Case {
    let log = crate::common::repo("tests/data/logs/prune/app.xml");
    let args: Vec<&'static str> = vec![
        "--no-style",
        "--logs",
        Box::leak(log.display().to_string().into_boxed_str()),
    ];
    Case {
        code,
        args: Box::leak(args.into_boxed_slice()),
        source: source.to_owned(),
        sidecar: None,
    }
}

const RULE_R: &str = "{\n   r\n   Memcheck:Leak\n   fun:malloc\n}\n";

/// A record with `n` frame lines.
fn with_frames(n: usize) -> String {
    format!("{{\n   r\n   Memcheck:Cond\n{}}}\n", "   fun:f\n".repeat(n))
}

fn cases() -> Vec<Case> {
    let style = &["--no-style"][..];
    vec![
        case(
            "VS101",
            style,
            "{\n   r\n   Memcheck:Leak\n   fun:malloc\n}\nstray\n",
        ),
        case("VS102", style, "{\n}\n"),
        case("VS103", style, "{\n   my-rule\n"),
        case("VS104", style, "{\n   my-rule\n   Memcheck\n   fun:f\n}\n"),
        case(
            "VS105",
            &["--no-style", "--valgrind", "3.23"],
            "{\n   fd\n   CoreError:FdLeak\n   fun:open\n}\n",
        ),
        case(
            "VS106",
            style,
            "{\n   r\n   Memcheck,Helgrind:Addr4\n   fun:f\n}\n",
        ),
        case(
            "VS107",
            &["--no-style", "--tool", "memcheck"],
            "{\n   r\n   Helgrind:Race\n   fun:f\n",
        ),
        case(
            "VS108",
            style,
            "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: definite, possible\n   fun:malloc\n}\n",
        ),
        case("VS109", style, "{\n   r\n   Memcheck:Cond\n   fun:f\n"),
        case("VS110", style, "{\n   r\n   Memcheck:Cond\n}\n"),
        Case {
            code: "VS111",
            args: &["--no-style", "--num-callers", "500"],
            source: with_frames(501),
            sidecar: None,
        },
        case(
            "VS112",
            style,
            "{\n   r\n   Memcheck:Cond\n   fun:f\n   at: g\n}\n",
        ),
        case("VS113", style, "{\n   r\n   Memcheck:Cond\n   ...\n}\n"),
        case(
            "VS114",
            style,
            "{\n   r\n   Memcheck:FishyValue\n   fun:malloc\n}\n",
        ),
        case(
            "VS115",
            style,
            "{\n   r\n   Helgrind:FreeMemLock\n   fun:f\n}\n",
        ),
        Case {
            code: "VS116",
            args: style,
            source: format!(
                "{{\n   r\n   Memcheck:Cond\n   fun:{}\n}}\n",
                "f".repeat(51_200)
            ),
            sidecar: None,
        },
        case(
            "VS201",
            style,
            "{\n   r\n   memcheck:Leak\n   fun:malloc\n}\n",
        ),
        case(
            "VS202",
            style,
            "{\n   r\n   MemcheckX,Memcheck:Leak\n   fun:malloc\n}\n",
        ),
        case("VS203", style, "{\n   Memcheck:Leak\n   fun:malloc\n}\n"),
        case(
            "VS204",
            style,
            "{\n   r\n   Memcheck:Leak\n   fun: malloc\n}\n",
        ),
        case(
            "VS205",
            style,
            "{\n   r\n   Memcheck:Leak\n   fun:malloc # from libfoo\n}\n",
        ),
        case(
            "VS206",
            style,
            "{\n   r\n   Memcheck:Leak\n   obj:libcuda.so.1\n}\n",
        ),
        case(
            "VS207",
            style,
            "{\n   r\n   Memcheck:Param\n   write(*)\n   fun:write\n}\n",
        ),
        case(
            "VS208",
            style,
            "{\n   r\n   Memcheck:CoreMem\n   fun:f\n}\n",
        ),
        case(
            "VS209",
            style,
            "{\n   r\n   Memcheck:Leak\n   match-leak-kinds: none\n   fun:malloc\n}\n",
        ),
        case(
            "VS210",
            &["--no-style", "--valgrind", "3.22"],
            "{\n   fd\n   CoreError:FdNotClosed\n   fun:open\n}\n",
        ),
        case(
            "VS211",
            style,
            "{\n   r\n   Memcheck:Addr4\n   fun:ns::Box::get(int) const\n}\n",
        ),
        case(
            "VS212",
            style,
            "{\n   r\n   Memcheck:Cond\n   src:/home/dev/ext/leaky_ext.cpp:11\n}\n",
        ),
        Case {
            code: "VS213",
            args: style,
            source: with_frames(13),
            sidecar: None,
        },
        Case {
            code: "VS401",
            args: &[],
            source: format!("{RULE_R}\n{{\n   other\n   Memcheck:Cond\n   fun:f\n}}\n"),
            sidecar: Some("version: 1\nrules:\n  r: {reason: libc keeps this buffer}\n".to_owned()),
        },
        provenance(
            "VS402",
            "version: 1\nrules:\n  r: {reason: why}\n  renamed-long-ago: {reason: why}\n",
        ),
        provenance(
            "VS403",
            "version: 1\nrules:\n  r:\n    reason: why\n    expires: 2026-03-31\n",
        ),
        provenance(
            "VS404",
            "version: 1\nrules:\n  r:\n    reason: why\n    expires: 2026-06-10\n",
        ),
        provenance(
            "VS405",
            "version: 1\nrules:\n  r:\n    fingerprint: 000000000000\n    reason: why\n",
        ),
        provenance("VS406", "version: 1\nrules:\n  r: {owner: \"@team\"}\n"),
        provenance(
            "VS407",
            "version: 1\nrules:\n  r: &shared {reason: why}\n  s: *shared\n",
        ),
        provenance(
            "VS408",
            "version: 1\nrules:\n  r:\n    reason: why\n    expires: end of March\n",
        ),
        case(
            "VS301",
            style,
            "{\n   <insert_a_suppression_name_here>\n   Memcheck:Cond\n   obj:*/libfoo.so\n}\n",
        ),
        case(
            "VS302",
            style,
            "{\n   r\n   Memcheck:Cond\n   obj:*/liba.so\n}\n\n{\n   r\n   Memcheck:Cond\n   obj:*/libb.so\n}\n",
        ),
        case(
            "VS303",
            style,
            "{\n   a\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n\n{\n   b\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n}\n",
        ),
        case(
            "VS304",
            style,
            "{\n   wide\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n   ...\n}\n\n{\n   narrow\n   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:malloc\n   fun:strdup\n}\n",
        ),
        case(
            "VS305",
            style,
            "{\n   everything-in-libfoo\n   Memcheck:Addr4\n   ...\n   obj:*/libfoo.so\n}\n",
        ),
        case(
            "VS306",
            style,
            "{\n   cuda\n   Memcheck:Cond\n   obj:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05\n}\n",
        ),
        Case {
            code: "VS307",
            args: &["--no-style", "--first-party", "libmy_ext*"],
            source: "{\n   mine\n   Memcheck:Cond\n   obj:*/libmy_ext.so\n}\n".to_owned(),
            sidecar: None,
        },
        with_logs(
            "VS501",
            "{\n   libfoo-old-double-free\n   Memcheck:Free\n   fun:free\n   obj:*/libfoo.so\n}\n",
        ),
        with_logs(
            "VS502",
            "{\n   narrow\n   Memcheck:Cond\n   fun:foo_cond\n   fun:main\n}\n\n{\n   wide\n   Memcheck:Cond\n   obj:*/libfoo.so\n}\n",
        ),
        with_logs(
            "VS503",
            "{\n   bar\n   Memcheck:Addr4\n   obj:*/libbar.so\n}\n",
        ),
        case(
            "VS901",
            &[],
            "  {\n  r\n  Memcheck:Leak\n  fun:malloc\n  }\n",
        ),
    ]
}

#[test]
fn every_code_has_a_case() {
    let registered: BTreeSet<&str> = RULES.iter().map(|r| r.code).collect();
    let covered: BTreeSet<&str> = cases().iter().map(|c| c.code).collect();
    assert_eq!(
        cases().len(),
        covered.len(),
        "a code has two cases in tests/cli/diagnostics.rs"
    );
    assert_eq!(
        registered, covered,
        "every code in src/catalogue/ needs a case in tests/cli/diagnostics.rs (and only those)"
    );
}

/// The input as shown in a snapshot: long inputs are summarised.
fn shown(source: &str) -> String {
    if source.len() <= 400 {
        return source.to_owned();
    }
    let head: String = source.chars().take(60).collect();
    format!(
        "{head}… ({} bytes, {} lines)\n",
        source.len(),
        source.lines().count()
    )
}

/// `vgsupp check` on each case of one family, as one text: the input, the exit code and
/// the human output. Panics when a case does not report its own code.
fn family(prefix: &str) -> String {
    let dir = tempfile::tempdir().expect("tmp");
    let mut out = String::new();
    for c in cases().iter().filter(|c| c.code.starts_with(prefix)) {
        std::fs::write(dir.path().join("case.supp"), &c.source).expect("write");
        let side = dir.path().join("case.supp.yaml");
        match &c.sidecar {
            Some(text) => std::fs::write(&side, text).expect("write sidecar"),
            None => {
                let _ = std::fs::remove_file(&side);
            }
        }
        let run = vgsupp()
            .current_dir(dir.path())
            .env("VGSUPP_TODAY", "2026-06-01")
            .args(["--color", "never", "--no-config", "check"])
            .args(c.args)
            .arg("case.supp")
            .output()
            .expect("run");
        let stdout = String::from_utf8(run.stdout).expect("utf-8");
        assert!(
            stdout.contains(&format!("[{}]", c.code)),
            "{}: not reported:\n{stdout}",
            c.code
        );
        let sidecar = c
            .sidecar
            .as_ref()
            .map(|t| format!("----- case.supp.yaml\n{t}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "===== {} · vgsupp check {}case.supp · exit {}\n{}{sidecar}----- output\n{stdout}\n",
            c.code,
            c.args.iter().map(|a| format!("{a} ")).collect::<String>(),
            run.status.code().unwrap_or(-1),
            shown(&c.source),
        ));
    }
    out
}

#[test]
fn human_output_vs1xx() {
    insta::assert_snapshot!(family("VS1"));
}

#[test]
fn human_output_vs2xx() {
    insta::assert_snapshot!(family("VS2"));
}

#[test]
fn human_output_vs3xx() {
    insta::assert_snapshot!(family("VS3"));
}

#[test]
fn human_output_vs5xx() {
    // The log's path is this checkout's: shown as `LOG`.
    let log = crate::common::repo("tests/data/logs/prune/app.xml");
    insta::assert_snapshot!(family("VS5").replace(&log.display().to_string(), "LOG"));
}

#[test]
fn human_output_vs4xx() {
    insta::assert_snapshot!(family("VS4"));
}

#[test]
fn human_output_vs9xx() {
    insta::assert_snapshot!(family("VS9"));
}

/// Every registered code belongs to a snapshotted family.
#[test]
fn families_cover_the_registry() {
    for r in &RULES {
        assert!(
            ["VS1", "VS2", "VS3", "VS4", "VS5", "VS9"]
                .iter()
                .any(|f| r.code.starts_with(f)),
            "{}: add a snapshot family for it in tests/cli/diagnostics.rs",
            r.code
        );
    }
}
