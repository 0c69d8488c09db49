//! The real-world corpus and the mutated variants against the real Valgrind's verdicts.
//!
//! `tests/data/valgrind/*.tsv` hold what `valgrind --tool=T --num-callers=N
//! --suppressions=F /bin/true` (3.19) said about every corpus file and every variant
//! (regenerate with `scripts/record-valgrind-verdicts.sh`). The tests compare vgsupp's
//! emulated loader with those tables, and, when Valgrind is installed, check the tables
//! against the live Valgrind and the formatter's output against it too.

use std::path::Path;
use std::process::Command;

use vgsupp::supp::loader::Outcome;
use vgsupp::supp::{self, LoadOptions, Tool, Version};

use crate::common::{files_in, repo, root, valgrind_available};

/// One row of a verdict table.
#[derive(Debug)]
struct Row {
    file: String,
    tool: Tool,
    num_callers: u32,
    verdict: String,
    line: String,
    message: String,
}

fn table(name: &str) -> Vec<Row> {
    let text = std::fs::read_to_string(repo(&format!("tests/data/valgrind/{name}")))
        .expect("verdict table");
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "bad row {l:?}");
            Row {
                file: f[0].to_owned(),
                tool: f[1].parse().expect("tool"),
                num_callers: f[2].parse().expect("num_callers"),
                verdict: f[3].to_owned(),
                line: f[4].to_owned(),
                message: f[5].to_owned(),
            }
        })
        .collect()
}

/// vgsupp's verdict in the table's vocabulary: (verdict, line, message).
fn our_verdict(src: &[u8], tool: Tool, num_callers: u32) -> (String, String, String) {
    let opts = LoadOptions {
        tool,
        version: Version::new(19).expect("3.19"),
        num_callers,
    };
    let result = supp::load(src, opts, false);
    match result.verdict() {
        None => ("ok".into(), "-".into(), "-".into()),
        Some(p) if p.error.outcome() == Outcome::Abort => {
            ("abort".into(), "-".into(), p.error.message().into())
        }
        Some(p) => (
            "fatal".into(),
            p.valgrind_line.to_string(),
            p.error.message().into(),
        ),
    }
}

/// Compare every row; returns (agreements, disagreements as text).
fn compare(rows: &[Row]) -> (usize, Vec<String>) {
    let mut agree = 0;
    let mut bad = Vec::new();
    for r in rows {
        let src = std::fs::read(root().join(&r.file)).unwrap_or_else(|e| panic!("{}: {e}", r.file));
        let (v, line, msg) = our_verdict(&src, r.tool, r.num_callers);
        // `default-fatal`: the file under test loaded completely and Valgrind's own
        // default.supp failed after it (under --num-callers=1), so it counts as `ok`.
        let expected = if r.verdict == "default-fatal" {
            "ok"
        } else {
            r.verdict.as_str()
        };
        let same = v == expected && (v != "fatal" || (line == r.line && msg == r.message));
        if same {
            agree += 1;
        } else {
            bad.push(format!(
                "{} --tool={} --num-callers={}: valgrind {} {} {:?}, vgsupp {v} {line} {msg:?}",
                r.file, r.tool, r.num_callers, r.verdict, r.line, r.message
            ));
        }
    }
    (agree, bad)
}

#[test]
fn corpus_verdicts_equal_valgrind() {
    let rows = table("corpus-verdicts.tsv");
    let files = files_in(&repo("tests/data/corpus"), &["MANIFEST.tsv"]);
    assert_eq!(
        rows.len(),
        files.len() * 3,
        "every corpus file × memcheck, helgrind, drd"
    );
    let (agree, bad) = compare(&rows);
    eprintln!(
        "corpus: vgsupp agrees with Valgrind on {agree} of {} file × tool verdicts",
        rows.len()
    );
    assert!(bad.is_empty(), "disagreements:\n{}", bad.join("\n"));
}

#[test]
fn variant_verdicts_equal_valgrind() {
    let rows = table("variant-verdicts.tsv");
    assert!(
        rows.len() >= 300 * 3,
        "expected hundreds of variants, got {} rows",
        rows.len()
    );
    let (agree, bad) = compare(&rows);
    eprintln!(
        "variants: vgsupp agrees with Valgrind on {agree} of {} verdicts",
        rows.len()
    );
    assert!(bad.is_empty(), "disagreements:\n{}", bad.join("\n"));
}

/// The checked-in tables are what the installed Valgrind says today.
#[test]
fn verdict_tables_match_live_valgrind() {
    if !valgrind_available() {
        eprintln!("valgrind not installed: live comparison skipped");
        return;
    }
    let out = Command::new("bash")
        .arg(repo("scripts/record-valgrind-verdicts.sh"))
        .arg("--check")
        .current_dir(root())
        .output()
        .expect("run scripts/record-valgrind-verdicts.sh --check");
    assert!(
        out.status.success(),
        "live Valgrind disagrees with the checked-in tables:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every corpus file parses, checks and formats without panicking; formatting is
/// idempotent, and every tool's loader sees the same records in the formatted file.
#[test]
fn fmt_is_idempotent_and_loads_the_same_records_on_the_corpus() {
    for path in files_in(&repo("tests/data/corpus"), &["MANIFEST.tsv"]) {
        let src = std::fs::read(&path).expect("read");
        let once = supp::format_source(&src);
        assert_eq!(
            supp::format(&supp::parse(src.clone())),
            once,
            "{}: model and streaming formatters differ",
            path.display()
        );
        let twice = supp::format_source(&once);
        assert_eq!(once, twice, "{}: fmt is not idempotent", path.display());
        for tool in Tool::ALL {
            assert_eq!(
                records(&src, tool),
                records(&once, tool),
                "{} ({tool}): records changed",
                path.display()
            );
        }
        let _ = vgsupp::lint::check_source(
            &path.display().to_string(),
            src,
            &vgsupp::lint::CheckOptions::default(),
        );
    }
}

/// The loaded records of a file as bytes (spans move when formatting), plus the verdict.
fn records(src: &[u8], tool: Tool) -> (Vec<String>, Option<&'static str>) {
    let r = supp::load(src, LoadOptions::new(tool), false);
    let s = |span: supp::Span| String::from_utf8_lossy(span.slice(src)).into_owned();
    let recs = r
        .records
        .iter()
        .map(|rec| {
            let frames: Vec<String> = rec
                .frames
                .iter()
                .map(|f| match f {
                    supp::model::Frame::Fun(p) => format!("fun:{}", s(*p)),
                    supp::model::Frame::Obj(p) => format!("obj:{}", s(*p)),
                    supp::model::Frame::Src { file, line } => format!("src:{}:{line}", s(*file)),
                    supp::model::Frame::Ellipsis => "...".to_owned(),
                })
                .collect();
            let extra = match rec.extra {
                supp::loader::LoadedExtra::None => String::new(),
                supp::loader::LoadedExtra::Param(p) => s(p),
                supp::loader::LoadedExtra::Leak(k) => k.canonical(),
                supp::loader::LoadedExtra::Fishy(Some(f)) => {
                    format!("{}({})", s(f.function), s(f.argument))
                }
                supp::loader::LoadedExtra::Fishy(None) => "<none>".to_owned(),
            };
            format!(
                "{}|{}|{extra}|{}",
                s(rec.name),
                s(rec.kind),
                frames.join(",")
            )
        })
        .collect();
    (recs, r.verdict().map(|p| p.error.message()))
}

/// The real Valgrind gives the same verdict (ok, or the same FATAL message) on the formatted
/// corpus files as on the originals.
#[test]
fn formatted_corpus_gets_the_same_verdict_from_live_valgrind() {
    if !valgrind_available() {
        eprintln!("valgrind not installed: live comparison skipped");
        return;
    }
    let rows = table("corpus-verdicts.tsv");
    let dir = tempfile::tempdir().expect("tempdir");
    let jobs: Vec<(String, std::path::PathBuf, String)> = rows
        .iter()
        .filter(|r| r.tool == Tool::Memcheck)
        .map(|r| {
            let src = std::fs::read(root().join(&r.file)).expect("read");
            let name = Path::new(&r.file).file_name().expect("name").to_owned();
            let out = dir.path().join(name);
            std::fs::write(&out, supp::format_source(&src)).expect("write");
            (r.file.clone(), out, format!("{} {}", r.verdict, r.message))
        })
        .collect();
    let mismatches = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((orig, formatted, expected)) = jobs.get(i) else {
                        break;
                    };
                    let got = live_verdict(formatted);
                    if &got != expected {
                        mismatches
                            .lock()
                            .expect("lock")
                            .push(format!("{orig}: original {expected:?}, formatted {got:?}"));
                    }
                }
            });
        }
    });
    let m = mismatches.into_inner().expect("lock");
    assert!(m.is_empty(), "{}", m.join("\n"));
}

/// `ok -` or `fatal MESSAGE` from a live memcheck run on `/bin/true`.
fn live_verdict(supp_file: &Path) -> String {
    let out = Command::new("valgrind")
        .args(["--tool=memcheck", "--num-callers=12"])
        .arg(format!("--suppressions={}", supp_file.display()))
        .arg("/bin/true")
        .output()
        .expect("run valgrind");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut lines = stderr.lines();
    while let Some(l) = lines.next() {
        if l.contains("FATAL: in suppressions file") {
            let msg = lines
                .next()
                .map(|m| m.split_once("== ").map_or(m, |x| x.1).trim().to_owned())
                .unwrap_or_default();
            return format!("fatal {msg}");
        }
    }
    if out.status.success() {
        "ok -".to_owned()
    } else {
        format!("abort exit {:?}", out.status.code())
    }
}
