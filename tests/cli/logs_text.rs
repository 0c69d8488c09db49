//! The text-log reader against real Valgrind logs (`tests/data/logs/text/`, see its
//! README): every log parses completely, and what is read agrees with what the log's own
//! summaries say.
//!
//! The count check: `ERROR SUMMARY: E errors from C contexts` counts, per process, the
//! distinct unsuppressed contexts printed: every non-leak error, plus the loss records of
//! the kinds counted as errors (`--errors-for-leak-kinds`, default `definite,possible`).
//! Loss records `i of n` are each printed once; with `--show-leak-kinds=all` and no leak
//! suppressed, all of `1..=n` are printed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};

use vgsupp::logs::record::{ErrorRecord, ErrorSummary, LogItem, UsedSuppression};
use vgsupp::logs::text::TextReader;
use vgsupp::supp::Tool;
use vgsupp::supp::model::LeakKind;

use crate::common::repo;

fn open(name: &str) -> Box<dyn BufRead> {
    let path = repo(&format!("tests/data/logs/text/{name}"));
    let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let r: Box<dyn Read> = if name.ends_with(".gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    };
    Box::new(BufReader::with_capacity(1 << 16, r))
}

fn read(name: &str) -> Vec<LogItem> {
    read_from(open(name), name)
}

fn read_from(r: impl BufRead, name: &str) -> Vec<LogItem> {
    TextReader::new(r)
        .with_name(name)
        .map(|i| i.unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

fn bytes(name: &str) -> Vec<u8> {
    let mut v = Vec::new();
    open(name).read_to_end(&mut v).expect("read");
    v
}

/// What one process reported.
#[derive(Debug, Default)]
struct Proc {
    errors: Vec<ErrorRecord>,
    summaries: Vec<ErrorSummary>,
    used: Vec<UsedSuppression>,
    preambles: usize,
    fatal: Vec<String>,
}

impl Proc {
    fn non_leak(&self) -> usize {
        self.errors.iter().filter(|e| e.leak.is_none()).count()
    }

    /// Loss records counted as errors by default.
    fn counted_leaks(&self) -> usize {
        self.errors
            .iter()
            .filter(|e| {
                e.leak
                    .is_some_and(|l| matches!(l.kind, LeakKind::Definite | LeakKind::Possible))
            })
            .count()
    }

    fn kinds(&self) -> Vec<&str> {
        self.errors.iter().map(|e| e.kind.as_str()).collect()
    }

    fn contexts(&self) -> u64 {
        self.summaries.last().expect("an ERROR SUMMARY").contexts
    }
}

struct Parsed {
    procs: BTreeMap<u32, Proc>,
    warnings: Vec<(u64, String)>,
    unattributed_fatal: Vec<String>,
}

fn by_pid(items: &[LogItem]) -> Parsed {
    let mut procs: BTreeMap<u32, Proc> = BTreeMap::new();
    let mut warnings = Vec::new();
    let mut unattributed_fatal = Vec::new();
    for item in items {
        match item {
            LogItem::Preamble(p) => procs.entry(p.pid.expect("pid")).or_default().preambles += 1,
            LogItem::SuppressionFile { .. } => {}
            LogItem::Error(e) => procs
                .entry(e.pid.expect("pid"))
                .or_default()
                .errors
                .push(e.clone()),
            LogItem::Used(u) => procs
                .entry(u.pid.expect("pid"))
                .or_default()
                .used
                .push(u.clone()),
            LogItem::Summary(s) => procs
                .entry(s.pid.expect("pid"))
                .or_default()
                .summaries
                .push(*s),
            LogItem::Fatal { pid, message, .. } => match pid {
                Some(pid) => procs.entry(*pid).or_default().fatal.push(message.clone()),
                None => unattributed_fatal.push(message.clone()),
            },
            LogItem::Warning { line, message, .. } => warnings.push((*line, message.clone())),
            LogItem::ObjectLoaded { .. }
            | LogItem::ObjectUnloaded { .. }
            | LogItem::ContextCount { .. }
            | LogItem::ProcessEnd { .. } => {}
        }
    }
    Parsed {
        procs,
        warnings,
        unattributed_fatal,
    }
}

/// Checks the loss-record numbering of a process: each `i` once, `i <= n`, and all of
/// `1..=n` when `complete`.
fn check_loss_records(name: &str, p: &Proc, complete: bool) {
    let mut idx: Vec<u64> = p
        .errors
        .iter()
        .filter_map(|e| e.leak.map(|l| l.index))
        .collect();
    let totals: Vec<u64> = p
        .errors
        .iter()
        .filter_map(|e| e.leak.map(|l| l.total))
        .collect();
    if idx.is_empty() {
        return;
    }
    let n = totals[0];
    assert!(
        totals.iter().all(|t| *t == n),
        "{name}: one n per leak search"
    );
    let len = idx.len();
    idx.sort_unstable();
    idx.dedup();
    assert_eq!(idx.len(), len, "{name}: a loss record printed twice");
    assert!(
        idx.iter().all(|i| (1..=n).contains(i)),
        "{name}: index out of 1..={n}"
    );
    if complete {
        assert_eq!(
            idx.len() as u64,
            n,
            "{name}: not every loss record of {n} was read"
        );
    }
}

/// The common checks of a complete log: no warnings, every error has a stack and a
/// header, every error has a suppression block when the log was made with
/// `--gen-suppressions=all`, and the contexts add up.
fn check_complete(name: &str, r: &Parsed, gen_suppressions: bool, all_leaks_shown: bool) {
    assert!(r.warnings.is_empty(), "{name}: warnings {:?}", r.warnings);
    assert!(
        r.unattributed_fatal.is_empty(),
        "{name}: {:?}",
        r.unattributed_fatal
    );
    for (pid, p) in &r.procs {
        // A forked child has none.
        assert!(p.preambles <= 1, "{name}: pid {pid}: one preamble");
        for e in &p.errors {
            assert!(
                !e.stack.is_empty(),
                "{name}: error at line {} has no stack",
                e.line
            );
            assert!(
                !e.kind.is_empty(),
                "{name}: error at line {} has no kind",
                e.line
            );
            assert!(
                !e.what.is_empty(),
                "{name}: error at line {} has no header",
                e.line
            );
            if gen_suppressions {
                let s = e.suppression.as_ref().unwrap_or_else(|| {
                    panic!("{name}: error at line {} has no suppression block", e.line)
                });
                assert!(
                    !s.frames.is_empty(),
                    "{name}: empty block at line {}",
                    e.line
                );
            } else {
                assert!(e.suppression.is_none(), "{name}: line {}", e.line);
            }
        }
        check_loss_records(&format!("{name} pid {pid}"), p, all_leaks_shown);
    }
}

fn kind_counts(p: &Proc) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for k in p.kinds() {
        *m.entry(k).or_default() += 1;
    }
    m
}

#[test]
fn torch_leaky_ext_with_gen_suppressions() {
    let name = "leaky-ext.txt.gz";
    let r = by_pid(&read(name));
    check_complete(name, &r, true, true);
    assert_eq!(r.procs.len(), 1);
    let p = &r.procs[&31893];
    // ERROR SUMMARY: 134 errors from 112 contexts; 56 of them are loss records.
    assert_eq!(p.summaries.len(), 2);
    assert_eq!((p.summaries[0].errors, p.contexts()), (134, 112));
    assert_eq!(p.non_leak(), 56);
    assert_eq!(p.counted_leaks(), 56);
    assert_eq!(p.non_leak() + p.counted_leaks(), 112);
    assert_eq!(p.errors.len() - p.non_leak(), 19_852);
    let k = kind_counts(p);
    assert_eq!(k["Cond"], 41);
    assert_eq!(k["Value8"], 6);
    assert_eq!(
        (k["Addr4"], k["Addr8"], k["Free"], k["Param"]),
        (3, 4, 1, 1)
    );
    // The article's leak (leaky_ext.cpp:11): 4,000 bytes definitely lost.
    let article = p
        .errors
        .iter()
        .find(|e| {
            e.leak
                .is_some_and(|l| l.bytes == 4000 && l.kind == LeakKind::Definite)
                && e.stack
                    .iter()
                    .any(|f| f.fun == Some(b"dangerous_function()"))
        })
        .expect("the 4,000-byte leak");
    let sup = article.suppression.as_ref().expect("block");
    assert_eq!(sup.kind_line, b"Memcheck:Leak");
    assert_eq!(
        sup.extra.as_deref(),
        Some(&b"match-leak-kinds: definite"[..])
    );
    // Origins: `--track-origins=yes`.
    assert!(
        p.errors
            .iter()
            .filter(|e| e.kind == "Cond")
            .all(|e| e.aux.iter().any(|a| a.origin))
    );
    let param = p.errors.iter().find(|e| e.kind == "Param").expect("Param");
    assert_eq!(param.param.as_deref(), Some(&b"write(buf)"[..]));
}

#[test]
fn torch_leaky_ext_article_command() {
    let name = "leaky-ext-article-command.txt.gz";
    let r = by_pid(&read(name));
    check_complete(name, &r, false, true);
    let p = &r.procs[&7685];
    assert_eq!((p.summaries[0].errors, p.contexts()), (125, 96));
    assert_eq!(p.non_leak(), 57);
    assert_eq!(p.counted_leaks(), 39);
    assert_eq!(p.non_leak() + p.counted_leaks(), 96);
    assert_eq!(p.errors.len() - p.non_leak(), 18_681);
    // Here the article's leak is only possibly lost.
    assert!(p.errors.iter().any(|e| {
        e.leak
            .is_some_and(|l| l.bytes == 4000 && l.kind == LeakKind::Possible)
            && e.stack
                .iter()
                .any(|f| f.fun == Some(b"dangerous_function()"))
    }));
}

#[test]
fn torch_small_logs() {
    // (file, pid, non-leak errors, loss records, contexts, gen-suppressions)
    let cases: [(&str, u32, usize, usize, u64, bool); 6] = [
        ("cpython-pass.txt", 9068, 0, 3, 0, true),
        ("cpython-pass-pythonmalloc-malloc.txt", 9064, 4, 0, 4, true),
        ("cudart12-libcuda535.txt", 12215, 0, 7, 5, true),
        (
            "cudart12-libcuda535-keep-debuginfo.txt",
            13055,
            0,
            7,
            5,
            true,
        ),
        ("cudart13-libcuda535.txt", 12530, 0, 0, 0, true),
        ("cudart13-nodriver.txt", 10234, 0, 0, 0, true),
    ];
    for (name, pid, non_leak, leaks, contexts, blocks) in cases {
        let r = by_pid(&read(name));
        check_complete(name, &r, blocks, true);
        assert_eq!(r.procs.len(), 1, "{name}");
        let p = &r.procs[&pid];
        assert_eq!(p.non_leak(), non_leak, "{name}");
        assert_eq!(p.errors.len() - p.non_leak(), leaks, "{name}");
        assert_eq!(p.contexts(), contexts, "{name}");
        assert_eq!(
            p.non_leak() + p.counted_leaks(),
            contexts as usize,
            "{name}"
        );
    }
    // `???` frames without an object (libcuda unloaded) vs. resolved with
    // --keep-debuginfo=yes.
    let plain = by_pid(&read("cudart12-libcuda535.txt"));
    assert!(plain.procs[&12215].errors.iter().any(|e| {
        e.stack
            .iter()
            .any(|f| f.fun.is_none() && f.obj.is_none() && f.file.is_none())
    }));
    let kept = by_pid(&read("cudart12-libcuda535-keep-debuginfo.txt"));
    assert!(
        kept.procs[&13055]
            .errors
            .iter()
            .any(|e| e.stack.iter().any(|f| f
                .obj
                .is_some_and(|o| o.windows(9).any(|w| w == b"libcuda.s"))))
    );
}

#[test]
fn public_logs() {
    let name = "060-vulkan-tutorial-complete.log";
    let r = by_pid(&read(name));
    check_complete(name, &r, false, true);
    let p = &r.procs[&79481];
    assert!(p.errors.is_empty());
    assert_eq!(
        (
            p.summaries[0].errors,
            p.contexts(),
            p.summaries[0].suppressed
        ),
        (0, 0, 16)
    );

    let name = "061-hyfiss-gpu-sim-verbose.log";
    let r = by_pid(&read(name));
    check_complete(name, &r, false, true);
    let p = &r.procs[&4400];
    assert_eq!((p.non_leak(), p.errors.len(), p.contexts()), (0, 6, 0));
    assert_eq!(p.summaries.len(), 2);
    assert!(
        p.errors
            .iter()
            .all(|e| e.leak.is_some_and(|l| l.kind == LeakKind::Reachable))
    );

    let name = "065-opengl-nvidia-egl-radeonsi-full-leakcheck.log.gz";
    let items = read(name);
    let r = by_pid(&items);
    check_complete(name, &r, false, true);
    let p = &r.procs[&80860];
    assert_eq!(
        p.kinds()
            .iter()
            .filter(|k| **k != "Leak")
            .collect::<Vec<_>>(),
        [&"ReallocZero"]
    );
    assert_eq!(p.errors.len() - p.non_leak(), 2140);
    assert_eq!(p.contexts(), 3);
    assert_eq!(p.non_leak() + p.counted_leaks(), 3);
    let LogItem::Preamble(pre) = &items[0] else {
        panic!("preamble first")
    };
    assert_eq!(pre.valgrind_version.as_deref(), Some("3.21.0"));
    assert_eq!(pre.command.as_deref(), Some("./opengl.out"));
}

#[test]
fn memcheck_verbose_fork_used_suppressions_and_signal() {
    let name = "memcheck-verbose-fork.log";
    let items = read(name);
    let r = by_pid(&items);
    check_complete(name, &r, true, false);
    assert_eq!(r.procs.len(), 2);
    let parent = &r.procs[&26542];
    let child = &r.procs[&26544];
    assert_eq!(parent.non_leak() + parent.counted_leaks(), 15);
    assert_eq!(parent.contexts(), 15);
    // The child inherits the 10 contexts its parent recorded before fork().
    assert_eq!(child.non_leak() + child.counted_leaks() + 10, 14);
    assert_eq!(child.contexts(), 14);
    assert_eq!(
        parent
            .kinds()
            .iter()
            .filter(|k| **k != "Leak")
            .copied()
            .collect::<Vec<_>>(),
        [
            "Addr4",
            "Cond",
            "Param",
            "Free",
            "Free",
            "FishyValue",
            "User",
            "Cond",
            "Addr4",
            "Addr4",
            "Jump"
        ]
    );
    // Thread 2's error, then back to thread 1.
    let tids: Vec<_> = parent
        .errors
        .iter()
        .filter(|e| e.kind == "Addr4")
        .map(|e| e.tid)
        .collect();
    assert_eq!(tids, [Some(1), Some(2), Some(1)]);
    let fishy = parent
        .errors
        .iter()
        .find(|e| e.kind == "FishyValue")
        .expect("fishy");
    assert_eq!(fishy.fishy, Some((b"malloc".to_vec(), b"size".to_vec())));
    let mismatch = &parent.errors[4];
    assert_eq!(mismatch.what, "Mismatched free() / delete / delete []");
    assert_eq!(
        mismatch.aux[0].stack.get(0).expect("frame").fun,
        Some(&b"operator new[](unsigned long)"[..])
    );
    assert_eq!(
        mismatch.suppression.as_ref().and_then(|s| s.frames.first()),
        Some(vgsupp::logs::GenFrame::Fun(b"_ZdlPvm"))
    );
    let jump = parent
        .errors
        .iter()
        .find(|e| e.kind == "Jump")
        .expect("jump");
    assert_eq!(
        (
            jump.stack.get(0).expect("frame").ip,
            jump.stack.get(0).expect("frame").fun
        ),
        (Some(0x1234), None)
    );
    assert_eq!(
        jump.suppression.as_ref().and_then(|s| s.frames.first()),
        Some(vgsupp::logs::GenFrame::Obj(b"*"))
    );

    for p in [parent, child] {
        let used: Vec<_> = p
            .used
            .iter()
            .map(|u| {
                (
                    u.count,
                    u.name.as_slice(),
                    u.file.as_deref(),
                    u.line,
                    u.leak,
                )
            })
            .collect();
        assert_eq!(
            used,
            [
                (
                    5,
                    &b"reachable keep rule"[..],
                    Some(&b"my.supp"[..]),
                    Some(9),
                    Some((100, 5))
                ),
                (
                    1,
                    b"my overlap rule: see x.c:12 (#42)",
                    Some(b"my.supp"),
                    Some(3),
                    None
                ),
            ]
        );
        assert_eq!(p.summaries.len(), 2);
        assert_eq!(p.summaries[0].suppressed, 1);
    }
    assert_eq!(parent.fatal.len(), 1);
    assert!(parent.fatal[0].starts_with("Process terminating with default action of signal 11"));
    let files: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::SuppressionFile { pid, path } => Some((*pid, path.as_slice())),
            _ => None,
        })
        .collect();
    assert_eq!(
        files,
        [
            (Some(26542), &b"my.supp"[..]),
            (Some(26542), b"/usr/libexec/valgrind/default.supp")
        ]
    );
    let LogItem::Preamble(pre) = &items[0] else {
        panic!("preamble first")
    };
    assert_eq!(pre.valgrind_version.as_deref(), Some("3.19.0"));
    assert_eq!(pre.ppid, Some(26493));
    assert!(pre.options.iter().any(|o| o == "--suppressions=my.supp"));
}

#[test]
fn helgrind_and_drd() {
    let name = "helgrind-race.log";
    let r = by_pid(&read(name));
    check_complete(name, &r, true, true);
    let p = &r.procs[&14030];
    assert_eq!(
        p.kinds(),
        ["Race", "Race", "LockOrder", "UnlockUnlocked", "UnlockBogus"]
    );
    assert_eq!(p.contexts(), 5);
    assert!(p.errors.iter().all(|e| e.tool == Some(Tool::Helgrind)));
    let race = &p.errors[0];
    assert_eq!(race.tid, Some(1));
    assert!(
        race.aux
            .iter()
            .any(|a| a.what.starts_with("This conflicts with") && !a.stack.is_empty())
    );
    let lock_order = &p.errors[2];
    assert_eq!(lock_order.aux.len(), 8, "{:#?}", lock_order.aux);

    let name = "drd-errors.log";
    let r = by_pid(&read(name));
    check_complete(name, &r, true, true);
    let p = &r.procs[&14077];
    assert_eq!(
        p.kinds(),
        [
            "ConflictingAccess",
            "ConflictingAccess",
            "MutexErr",
            "RwlockErr",
            "MutexErr"
        ]
    );
    assert_eq!(p.contexts(), 5);
    assert_eq!(p.summaries[0].suppressed, 6);
    assert_eq!(p.used.len(), 1);
    assert_eq!(p.used[0].name, b"drd-ld");
    assert_eq!(
        p.used[0].file.as_deref(),
        Some(&b"/usr/libexec/valgrind/default.supp"[..])
    );
}

/// An error's line, kind, and its block's `Tool:Kind` line.
type Kinds = (u64, String, Vec<u8>);

/// Headers alone give the same kinds as the suppression blocks' `Tool:Kind` lines.
#[test]
fn header_kinds_agree_with_blocks() {
    for name in [
        "leaky-ext.txt.gz",
        "memcheck-verbose-fork.log",
        "helgrind-race.log",
        "drd-errors.log",
        "timestamp-fork.log",
        "cpython-pass-pythonmalloc-malloc.txt",
    ] {
        let mut full = bytes(name);
        if name.ends_with(".gz") {
            // Its 56 other errors come before the ~20,000 loss records: enough (and fast
            // enough in debug builds).
            let heap = full
                .windows(13)
                .position(|w| w == b"HEAP SUMMARY:")
                .expect("heap");
            let start = full[..heap]
                .iter()
                .rposition(|c| *c == b'\n')
                .map_or(0, |p| p + 1);
            full.truncate(start);
        }
        let stripped: Vec<u8> = full
            .split(|c| *c == b'\n')
            .filter(|l| l.starts_with(b"==") || l.starts_with(b"--") || l.starts_with(b"**"))
            .flat_map(|l| l.iter().copied().chain([b'\n']))
            .collect();
        // Per process: without blocks an error is emitted a little later, so the order
        // across processes may differ.
        let mut with: BTreeMap<Option<u32>, Vec<Kinds>> = BTreeMap::new();
        for i in read_from(full.as_slice(), name) {
            if let LogItem::Error(e) = i {
                let kind_line = e.suppression.expect("block").kind_line;
                with.entry(e.pid)
                    .or_default()
                    .push((e.line, e.kind, kind_line));
            }
        }
        let mut without: BTreeMap<Option<u32>, Vec<String>> = BTreeMap::new();
        for i in read_from(stripped.as_slice(), name) {
            if let LogItem::Error(e) = i {
                assert!(e.suppression.is_none());
                without.entry(e.pid).or_default().push(e.kind);
            }
        }
        assert_eq!(
            with.keys().collect::<Vec<_>>(),
            without.keys().collect::<Vec<_>>(),
            "{name}"
        );
        for (pid, errs) in &with {
            let header_kinds = &without[pid];
            assert_eq!(errs.len(), header_kinds.len(), "{name}");
            for ((line, kind, kind_line), header_kind) in errs.iter().zip(header_kinds) {
                assert_eq!(kind, header_kind, "{name}: error at line {line}");
                assert!(kind_line.ends_with(kind.as_bytes()), "{name}: line {line}");
            }
        }
    }
}

#[test]
fn time_stamps_fork_and_program_output() {
    let name = "timestamp-fork.log";
    let r = by_pid(&read(name));
    check_complete(name, &r, true, true);
    assert_eq!(r.procs.len(), 2);
    assert_eq!(r.procs[&26592].kinds(), ["Addr4"]);
    assert_eq!(r.procs[&26593].kinds(), ["Cond"]);
    for p in r.procs.values() {
        assert_eq!((p.summaries[0].errors, p.contexts()), (3, 1));
    }
}

/// Items without line numbers (to compare a log with a derived one).
fn unlined(items: Vec<LogItem>) -> Vec<LogItem> {
    items
        .into_iter()
        .map(|i| match i {
            LogItem::Error(mut e) => {
                e.line = 0;
                LogItem::Error(e)
            }
            LogItem::Fatal { pid, message, .. } => LogItem::Fatal {
                pid,
                line: 0,
                message,
            },
            LogItem::Warning { message, gap, .. } => LogItem::Warning {
                line: 0,
                message,
                gap,
            },
            LogItem::ContextCount { pid, count, .. } => LogItem::ContextCount {
                pid,
                count,
                error_line: 0,
            },
            other => other,
        })
        .collect()
}

#[test]
fn ci_time_stamps_before_the_prefix() {
    // Same lines, each behind a GitHub Actions time stamp: the same items.
    assert_eq!(read("ci-timestamps.log"), read("drd-errors.log"));
}

#[test]
fn nested_valgrind() {
    let items = read("nested.log");
    let r = by_pid(&items);
    check_complete("nested.log", &r, true, true);
    let inner: Vec<LogItem> = items
        .iter()
        .filter(|i| i.pid() != Some(Some(1000)))
        .cloned()
        .collect();
    assert_eq!(unlined(inner), unlined(read("helgrind-race.log")));
    assert_eq!(r.procs[&1000].summaries.len(), 1);
}

#[test]
fn interleaved_processes() {
    let items = read("interleaved.log");
    let r = by_pid(&items);
    check_complete("interleaved.log", &r, true, true);
    for (name, pid) in [("helgrind-race.log", 14030), ("drd-errors.log", 14077)] {
        let alone: Vec<LogItem> = unlined(read(name));
        let mixed: Vec<LogItem> = unlined(items.clone())
            .into_iter()
            .filter(|i| match i {
                LogItem::Preamble(p) => p.pid == Some(pid),
                LogItem::SuppressionFile { pid: p, .. } => *p == Some(pid),
                LogItem::Error(e) => e.pid == Some(pid),
                LogItem::Used(u) => u.pid == Some(pid),
                LogItem::Summary(s) => s.pid == Some(pid),
                LogItem::Warning { .. } => true,
                other => other.pid() == Some(Some(pid)),
            })
            .collect();
        assert_eq!(mixed, alone, "{name}");
    }
}

#[test]
fn truncated_logs() {
    // Cut inside the aux stack of `Invalid free() …` (line 158): the error is kept; its own
    // stack was complete (an aux line followed it), so it is not marked truncated.
    let items = read("truncated.log");
    let r = by_pid(&items);
    let p = &r.procs[&26542];
    assert_eq!(p.kinds(), ["Addr4", "Cond", "Param", "Free"]);
    let cut = &p.errors[3];
    assert_eq!((cut.line, cut.truncated, cut.stack.len()), (158, false, 2));
    assert!(p.errors[..3].iter().all(|e| !e.truncated));
    // Two warnings, where the log ends (its last line, without `\n`): the error it ends
    // inside, and the summary it ends before.
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert_eq!(r.warnings[0].0, 162);
    assert!(
        r.warnings[0]
            .1
            .starts_with("the log ends inside error `Invalid free()")
    );
    assert_eq!(r.warnings[1].0, 162);
    assert!(
        r.warnings[1]
            .1
            .starts_with("the log ends before Valgrind's final summary of process 26542")
    );

    // Cut after a blank line inside Helgrind's lock-order error, then binary junk: the
    // error is kept (its stack ended at the blank line), with a warning that later parts of
    // it may be missing.
    let items = read("truncated-garbage.log");
    let r = by_pid(&items);
    let p = &r.procs[&14030];
    assert_eq!(p.kinds(), ["Race", "Race", "LockOrder"]);
    assert!(!p.errors[2].truncated);
    assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
    assert!(r.warnings.iter().any(|(_, m)| m.contains("binary data")));
    assert!(
        r.warnings
            .iter()
            .any(|(_, m)| m.contains("final summary of process 14030"))
    );
    assert!(
        r.warnings
            .iter()
            .any(|(l, m)| *l == 61 && m.contains("later parts of it may be missing"))
    );
    // Every process of a log ends, once.
    for items in [read("truncated.log"), read("truncated-garbage.log")] {
        let ends: Vec<_> = items
            .iter()
            .filter(|i| matches!(i, LogItem::ProcessEnd { .. }))
            .collect();
        assert_eq!(ends.len(), 1);
        assert!(matches!(
            items.last(),
            Some(LogItem::ProcessEnd { .. }) | Some(LogItem::Warning { .. })
        ));
    }
}

#[test]
fn fatal_suppression_file_error() {
    let r = by_pid(&read("fatal-supp.log"));
    let p = &r.procs[&26282];
    assert!(p.errors.is_empty());
    assert_eq!(p.fatal.len(), 1);
    assert!(p.fatal[0].starts_with("FATAL: in suppressions file \"bad.supp\" near line 4:"));
}

/// Tiny reader buffers (lines split across many reads) give the same items.
#[test]
fn buffer_size_does_not_matter() {
    for name in [
        "memcheck-verbose-fork.log",
        "interleaved.log",
        "truncated-garbage.log",
    ] {
        let data = bytes(name);
        let small = read_from(BufReader::with_capacity(7, data.as_slice()), name);
        assert_eq!(small, read_from(data.as_slice(), name), "{name}");
    }
}

/// A large plain text log is read on several threads (`logs::parallel`): the items are the
/// ones the sequential reader gives, and `vgsupp match` prints the same with one reader
/// thread or several.
#[test]
fn large_logs_read_on_several_threads_give_the_same_items() {
    use std::io::Write as _;
    // A prefix of the torch log, cut at a line end, above the 8 MiB parallel threshold.
    let mut data = Vec::new();
    open("leaky-ext.txt.gz")
        .take(12 << 20)
        .read_to_end(&mut data)
        .expect("gunzip");
    let cut = data.iter().rposition(|b| *b == b'\n').expect("a line") + 1;
    data.truncate(cut);
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("big.log");
    std::fs::File::create(&log)
        .and_then(|mut f| f.write_all(&data))
        .expect("write log");

    let sequential = read_from(data.as_slice(), "big.log");
    let file = std::fs::File::open(&log).expect("open");
    // On the lockstep schedule: which chunks are used does not depend on the machine's
    // scheduling (bench/logs.sh measures that).
    let mut reader = vgsupp::logs::parallel::ParallelTextReader::with_schedule(
        file,
        "big.log",
        2,
        1 << 20,
        vgsupp::logs::parallel::Schedule::Lockstep,
    )
    .expect("parallel reader");
    let parallel: Vec<LogItem> = reader.by_ref().map(|i| i.expect("item")).collect();
    assert_eq!(parallel, sequential);
    let stats = reader.stats();
    assert!(
        stats.accepted >= 10 && stats.reread <= 1,
        "the chunks were not read in parallel: {stats:?}"
    );

    let supp = dir.path().join("empty.supp");
    std::fs::write(&supp, "").expect("supp");
    let run = |threads: &str| {
        crate::common::vgsupp()
            .env("VGSUPP_READ_THREADS", threads)
            .args(["match", "--format", "json", "-s"])
            .arg(&supp)
            .arg(&log)
            .output()
            .expect("run vgsupp")
    };
    let one = run("1");
    let two = run("2");
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, two.stdout);
}

/// The `-s`/`-v` listing after the summary: every entry is tied to an error its process
/// showed earlier, and the occurrences add up to the summary's count (each loss record
/// counted as an error is one occurrence).
#[test]
fn listings_count_the_errors_shown() {
    for (name, pid, entries) in [
        ("leaky-ext.txt.gz", 31893, 56),
        ("helgrind-race.log", 14030, 5),
        ("helgrind-locks.log", 19576, 3),
        ("drd-errors.log", 14077, 5),
        ("memcheck-verbose-fork.log", 26542, 11),
    ] {
        let items = read(name);
        let p = &by_pid(&items).procs[&pid];
        let counts: Vec<(u64, u64)> = items
            .iter()
            .filter_map(|i| match i {
                LogItem::ContextCount {
                    pid: Some(p),
                    count,
                    error_line,
                } if *p == pid => Some((*count, *error_line)),
                _ => None,
            })
            .collect();
        assert_eq!(counts.len(), entries, "{name}");
        for (_, line) in &counts {
            let e = p.errors.iter().find(|e| e.line == *line);
            assert!(
                e.is_some_and(|e| e.leak.is_none()),
                "{name}: no non-leak error at line {line}"
            );
        }
        let occurrences: u64 = counts.iter().map(|(c, _)| c).sum();
        assert_eq!(
            occurrences + p.counted_leaks() as u64,
            p.summaries[0].errors,
            "{name}"
        );
    }
    // A forked child lists the contexts it inherited from its parent: only its own one is
    // counted for it.
    let items = read("memcheck-verbose-fork.log");
    let child: Vec<_> = items
        .iter()
        .filter(|i| {
            matches!(
                i,
                LogItem::ContextCount {
                    pid: Some(26544),
                    ..
                }
            )
        })
        .collect();
    assert_eq!(child.len(), 1);
}

/// Every run of a process ends once, with nothing of it after its end; a run ends after
/// its last summary when the log says so, else with the log.
#[test]
fn every_process_ends_once() {
    for name in [
        "leaky-ext.txt.gz",
        "memcheck-verbose-fork.log",
        "helgrind-race.log",
        "helgrind-locks.log",
        "drd-errors.log",
        "timestamp-fork.log",
        "interleaved.log",
        "nested.log",
        "060-vulkan-tutorial-complete.log",
        "061-hyfiss-gpu-sim-verbose.log",
        "cudart12-libcuda535.txt",
        "truncated.log",
    ] {
        let items = read(name);
        let mut ended = std::collections::BTreeSet::new();
        for (n, item) in items.iter().enumerate() {
            if let LogItem::Preamble(p) = item {
                ended.remove(&p.pid);
            }
            if let Some(pid) = item.pid() {
                assert!(
                    !ended.contains(&pid),
                    "{name}: item {n} after the end of {pid:?}"
                );
            }
            if let LogItem::ProcessEnd { pid } = item {
                ended.insert(*pid);
            }
        }
        let pids: std::collections::BTreeSet<_> = items.iter().filter_map(LogItem::pid).collect();
        assert_eq!(ended, pids, "{name}");
    }
    // With the `-s` hint, a run ends right after its summary: before the other process's
    // lines that follow.
    let items = read("timestamp-fork.log");
    let ends: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, LogItem::ProcessEnd { .. }))
        .map(|(n, _)| n)
        .collect();
    assert!(matches!(items[ends[0] - 1], LogItem::Summary(_)));
}

/// `-v` logs: the objects loaded (`Reading syms from`) and unloaded (`Discarding syms`,
/// `Archiving syms` with `--keep-debuginfo=yes`).
#[test]
fn objects_loaded_and_unloaded() {
    let objects = |name: &str| {
        let mut loaded = Vec::new();
        let mut unloaded = Vec::new();
        for item in read(name) {
            match item {
                LogItem::ObjectLoaded { path, .. } => loaded.push(path),
                LogItem::ObjectUnloaded {
                    path, start, end, ..
                } => unloaded.push((path, start, end)),
                _ => {}
            }
        }
        (loaded, unloaded)
    };
    let (loaded, unloaded) = objects("leaky-ext.txt.gz");
    // 133 `Reading syms` lines, 38 of them reading again an object whose first read
    // failed (`ELF section outside all mapped regions`): the same load.
    assert_eq!((loaded.len(), unloaded.len()), (95, 13));
    // An object is loaded at most once at a time: a second load follows an unload.
    let mut alive: Vec<&Vec<u8>> = Vec::new();
    let mut items = read("leaky-ext.txt.gz").into_iter();
    let mut events = Vec::new();
    for item in items.by_ref() {
        match item {
            LogItem::ObjectLoaded { path, .. } => events.push((true, path)),
            LogItem::ObjectUnloaded { path, .. } => events.push((false, path)),
            _ => {}
        }
    }
    for (load, path) in &events {
        if *load {
            assert!(!alive.contains(&path), "{}", String::from_utf8_lossy(path));
            alive.push(path);
        } else {
            alive.retain(|p| *p != path);
        }
    }
    assert_eq!(loaded[0], b"/opt/python/3.11.7/bin/python3.11");
    assert_eq!(
        unloaded[0],
        (
            b"/usr/lib/x86_64-linux-gnu/libffi.so.8.1.2".to_vec(),
            0x57602e0,
            0x576591e
        )
    );
    // Every object unloaded was loaded before.
    assert!(unloaded.iter().all(|(p, ..)| loaded.contains(p)));
    // libcuda is unloaded: with --keep-debuginfo=yes its symbols are archived instead.
    for name in [
        "cudart12-libcuda535.txt",
        "cudart12-libcuda535-keep-debuginfo.txt",
    ] {
        let (loaded, unloaded) = objects(name);
        let libcuda = |p: &[u8]| p.windows(10).any(|w| w == b"libcuda.so");
        assert!(loaded.iter().any(|p| libcuda(p)), "{name}");
        assert!(
            unloaded.iter().any(|(p, s, e)| libcuda(p) && s < e),
            "{name}"
        );
    }
}

/// Helgrind's announcements of threads and locks are context of the error that follows,
/// never errors of their own.
#[test]
fn helgrind_announcements_are_context() {
    let name = "helgrind-locks.log";
    let r = by_pid(&read(name));
    check_complete(name, &r, true, true);
    let p = &r.procs[&19576];
    assert_eq!(p.kinds(), ["Race", "Race", "LockOrder"]);
    let context = |e: &ErrorRecord| -> Vec<(String, usize)> {
        e.context
            .iter()
            .map(|c| {
                (
                    c.what.lines().next().unwrap_or("").to_owned(),
                    c.stack.len(),
                )
            })
            .collect()
    };
    assert_eq!(
        context(&p.errors[0]),
        [
            ("Thread #1 is the program's root thread".to_owned(), 0),
            ("Thread #2 was created".to_owned(), 6),
            ("Lock at 0x10C0C0 was first observed".to_owned(), 2),
            ("Lock at 0x10C080 was first observed".to_owned(), 5),
        ]
    );
    assert_eq!(
        context(&p.errors[1]),
        [
            ("Lock at 0x10C0C0 was first observed".to_owned(), 2),
            ("Lock at 0x10C080 was first observed".to_owned(), 5),
        ]
    );
    // After the error's header, a lock's first observation is part of the error.
    assert!(p.errors[2].context.is_empty());
    assert!(
        p.errors[2]
            .aux
            .iter()
            .any(|a| a.what.starts_with("Lock at 0x10C080 was first observed"))
    );
    // The race-only log: thread announcements only.
    let r = by_pid(&read("helgrind-race.log"));
    let race = &r.procs[&14030].errors[0];
    assert_eq!(
        context(race),
        [
            ("Thread #1 is the program's root thread".to_owned(), 0),
            ("Thread #2 was created".to_owned(), 6),
        ]
    );
}

/// Excerpts as people paste them into issues (`excerpts.log`: hand-written look-alikes of
/// the shapes of 63 real ones): the reader finds every error whose header and first frame
/// are visible, whatever surrounds them.
#[test]
fn errors_in_excerpts() {
    let log = bytes("excerpts.log");
    let text = String::from_utf8(log).expect("UTF-8");
    let mut total = 0;
    let mut excerpts = 0;
    for part in text.split("#### excerpt ").skip(1) {
        let (head, body) = part.split_once('\n').expect("a separator line");
        let mut fields = head.split_whitespace();
        let id = fields.next().expect("an id");
        let want: usize = fields
            .next()
            .and_then(|f| f.strip_prefix("errors="))
            .and_then(|n| n.parse().ok())
            .expect("errors=N");
        // The last one is read with CRLF line ends.
        let body = if head.contains("CRLF") {
            body.replace('\n', "\r\n")
        } else {
            body.to_owned()
        };
        let reader: Box<dyn BufRead> = Box::new(std::io::Cursor::new(body.into_bytes()));
        let (_, items) = vgsupp::logs::detect::from_reader(reader, id).expect("read");
        // Excerpt 31 has no line Valgrind wrote (a poster's retyping): not a log.
        let mut read = Vec::new();
        let mut not_a_log = false;
        for item in items {
            match item {
                Ok(i) => read.push(i),
                Err(vgsupp::logs::ReadError::NotALog { .. }) => not_a_log = true,
                Err(e) => panic!("excerpt {id}: {e}"),
            }
        }
        assert_eq!(not_a_log, id == "31", "excerpt {id}");
        let items = read;
        let errors: Vec<&ErrorRecord> = items.iter().filter_map(LogItem::as_error).collect();
        assert_eq!(errors.len(), want, "excerpt {id}: {errors:#?}");
        for e in &errors {
            assert!(!e.kind.is_empty() && !e.stack.is_empty(), "excerpt {id}");
        }
        total += errors.len();
        excerpts += 1;
    }
    assert_eq!((excerpts, total), (41, 42));
}
