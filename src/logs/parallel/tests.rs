//! The parallel reader gives exactly the sequential reader's items.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use super::*;
use crate::logs::text::TextReader;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The bytes of a test log (gunzipped), at most `max` of them.
fn log_bytes(path: &Path, max: usize) -> Vec<u8> {
    let raw = std::fs::read(path).expect("read log");
    let mut bytes = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let mut gz = flate2::read::MultiGzDecoder::new(raw.as_slice()).take(max as u64);
        gz.read_to_end(&mut out).expect("gunzip");
        out
    } else {
        raw
    };
    bytes.truncate(max);
    bytes
}

fn sequential(bytes: &[u8]) -> Vec<LogItem> {
    TextReader::new(bytes)
        .with_name("log")
        .map(|i| i.expect("item"))
        .collect()
}

fn parallel(bytes: &[u8], threads: usize, chunk: u64) -> (Vec<LogItem>, ParallelStats) {
    parallel_as(bytes, threads, chunk, false, Schedule::Free)
}

/// [`parallel`] on `schedule`: its stats do not depend on the machine's scheduling.
fn scheduled(
    bytes: &[u8],
    threads: usize,
    chunk: u64,
    schedule: Schedule,
) -> (Vec<LogItem>, ParallelStats) {
    parallel_as(bytes, threads, chunk, false, schedule)
}

/// [`parallel`], with the reader threads kept whatever the guesses give (`never_alone`),
/// on `schedule`.
fn parallel_as(
    bytes: &[u8],
    threads: usize,
    chunk: u64,
    never_alone: bool,
    schedule: Schedule,
) -> (Vec<LogItem>, ParallelStats) {
    let mut f = tempfile::tempfile().expect("tempfile");
    f.write_all(bytes).expect("write");
    let mut r =
        ParallelTextReader::with_schedule(f, "log", threads, chunk, schedule).expect("open");
    if never_alone {
        r = r.never_alone();
    }
    let items = r.by_ref().map(|i| i.expect("item")).collect();
    (items, r.stats())
}

/// Parallel reading gives exactly the sequential items, for every chunk size: on a free
/// schedule, and on the two that fix the guesses (the freshest, then the stalest, where
/// chunks are read again, until the consumer reads alone or, kept, to the end).
fn same_items(label: &str, bytes: &[u8], chunks: &[u64]) {
    let want = sequential(bytes);
    for &chunk in chunks {
        for (threads, never_alone, schedule) in [
            (1, false, Schedule::Free),
            (3, false, Schedule::Free),
            (3, true, Schedule::Free),
            (2, false, Schedule::Lockstep),
            (2, false, Schedule::AllAhead),
            (2, true, Schedule::AllAhead),
        ] {
            let (got, stats) = parallel_as(bytes, threads, chunk, never_alone, schedule);
            assert_eq!(
                got.len(),
                want.len(),
                "{label}: chunk {chunk}, {threads} threads, {schedule:?}: item count ({stats:?})"
            );
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{label}: chunk {chunk}, {threads} threads, {schedule:?}: item {i} ({stats:?})"
                );
            }
        }
    }
}

fn text_logs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo("tests/data/logs/text"))
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".log") || n.ends_with(".txt") || n.ends_with(".txt.gz")
        })
        .collect();
    for p in ["basic", "cxx", "libuse"] {
        v.push(repo(&format!("tests/data/match/{p}/baseline.txt")));
    }
    v.sort();
    v
}

#[test]
fn every_test_log_reads_the_same_in_chunks() {
    for path in text_logs() {
        let bytes = log_bytes(&path, 2 << 20);
        let label = path.display().to_string();
        let chunks: &[u64] = if bytes.len() > 200_000 {
            &[4096, 65_536]
        } else {
            &[1, 64, 700, 4096]
        };
        same_items(&label, &bytes, chunks);
    }
}

#[test]
fn concatenated_processes_and_tools_read_the_same() {
    // Different tools, PIDs, preambles and exec restarts back to back: the guessed
    // state is often wrong at a chunk's start and the consumer must read it again.
    let mut bytes = Vec::new();
    for _ in 0..3 {
        for name in [
            "helgrind-race.log",
            "drd-errors.log",
            "memcheck-verbose-fork.log",
            "interleaved.log",
            "timestamp-fork.log",
            "ci-timestamps.log",
            "nested.log",
            "truncated-garbage.log",
        ] {
            bytes.extend(log_bytes(
                &repo(&format!("tests/data/logs/text/{name}")),
                1 << 20,
            ));
        }
    }
    same_items("concatenation", &bytes, &[97, 1000, 8192]);
}

#[test]
fn damaged_logs_read_the_same() {
    // Lines dropped, duplicated and cut at random (a fixed seed), so that errors,
    // blocks and preambles are broken across chunk boundaries.
    let base = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 400_000);
    let lines: Vec<&[u8]> = base.split_inclusive(|b| *b == b'\n').collect();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..4 {
        let mut bytes = Vec::new();
        for l in &lines {
            match rnd() % 50 {
                0 => {}
                1 => {
                    bytes.extend_from_slice(l);
                    bytes.extend_from_slice(l);
                }
                2 => bytes.extend_from_slice(&l[..l.len() / 2]),
                _ => bytes.extend_from_slice(l),
            }
        }
        same_items(&format!("damaged {round}"), &bytes, &[333, 5000]);
    }
}

#[test]
fn a_single_process_log_is_mostly_read_in_parallel() {
    // Which guess a chunk is read with depends on how far ahead of the consumer the
    // scheduler lets the reader threads run (a busy machine lets them run on stale
    // guesses), so the share is asked of the lockstep schedule, where every chunk gets the
    // freshest guess there is: the guesses, not the scheduler, are under test. The share a
    // machine gets is measured by bench/logs.sh.
    let bytes = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 4 << 20);
    let expected = sequential(&bytes);
    let (items, stats) = scheduled(&bytes, 2, 65_536, Schedule::Lockstep);
    assert_eq!(items, expected);
    let used = stats.accepted + stats.reread;
    assert!(
        !stats.alone && stats.chunks >= 60 && stats.accepted * 10 >= used * 9,
        "too few chunks taken from the reader threads: {stats:?}"
    );
    // The same chunks read again, on the same schedule, are used the same.
    assert_eq!(scheduled(&bytes, 2, 65_536, Schedule::Lockstep).1, stats);
    // The stalest guesses (every chunk read before the consumer takes any) are mostly
    // wrong: the consumer reads on alone, and the items are still the sequential ones.
    let (items, stale) = scheduled(&bytes, 2, 65_536, Schedule::AllAhead);
    assert_eq!(items, expected);
    assert!(
        stale.reread >= 1 && stale.accepted < stats.accepted,
        "{stale:?}"
    );
}

#[test]
fn line_numbers_of_later_chunks_are_the_logs() {
    let mut log = String::new();
    for i in 0..200 {
        log.push_str(&format!(
            "==7== Invalid read of size 4\n==7==    at 0x{i:X}: f{i} (a.c:{i})\n==7== \n"
        ));
    }
    let (items, stats) = scheduled(log.as_bytes(), 2, 512, Schedule::Lockstep);
    assert!(stats.accepted > 5, "{stats:?}");
    let lines: Vec<u64> = items
        .iter()
        .filter_map(LogItem::as_error)
        .map(|e| e.line)
        .collect();
    assert_eq!(lines, (0..200).map(|i| i * 3 + 1).collect::<Vec<_>>());
}

#[test]
fn a_log_without_sync_lines_is_read_by_one_thread() {
    let log = "program output\n".repeat(10_000);
    let (items, stats) = parallel(log.as_bytes(), 2, 1000);
    assert_eq!(items, sequential(log.as_bytes()));
    assert_eq!(stats.accepted, 1, "{stats:?}");
}

#[test]
fn for_each_ref_sees_the_same_items_and_stops_when_asked() {
    let bytes = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 1 << 20);
    let want = sequential(&bytes);
    let mut f = tempfile::tempfile().expect("tempfile");
    f.write_all(&bytes).expect("write");
    let reader = ParallelTextReader::new(f, "log", 2, 4096).expect("open");
    let mut got = Vec::new();
    reader
        .for_each_ref(|i| {
            got.push(i.expect("item").clone());
            Ok::<(), ()>(())
        })
        .expect("no stop");
    assert_eq!(got, want);

    let mut f = tempfile::tempfile().expect("tempfile");
    f.write_all(&bytes).expect("write");
    let reader = ParallelTextReader::new(f, "log", 2, 4096).expect("open");
    let mut seen = 0;
    let stop = reader.for_each_ref(|_| {
        seen += 1;
        if seen == 100 { Err("enough") } else { Ok(()) }
    });
    assert_eq!((stop, seen), (Err("enough"), 100));
}

#[test]
fn dropping_a_reader_early_stops_its_threads() {
    // Readers dropped after a few items, while their threads wait for the consumer to
    // catch up: every drop must return. It used to hang when the stop flag was set
    // between a thread's check and its wait; the threads here pause at that point.
    let bytes = log_bytes(&repo("tests/data/logs/text/leaky-ext.txt.gz"), 256 << 10);
    let mut f = tempfile::tempfile().expect("tempfile");
    f.write_all(&bytes).expect("write");
    let (done_tx, done_rx) = channel();
    std::thread::spawn(move || {
        for round in 0..20 {
            let file = f.try_clone().expect("clone");
            let mut r = ParallelTextReader::new(file, "log", 3, 512).expect("open");
            r.shared
                .pause_before_wait
                .store(round % 2 == 0, Ordering::Relaxed);
            for _ in 0..round % 7 {
                let _ = r.next();
            }
            // Let the threads fill the window and reach their wait.
            std::thread::sleep(std::time::Duration::from_millis(5));
            drop(r);
        }
        let _ = done_tx.send(());
    });
    assert!(
        done_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .is_ok(),
        "dropping a reader hung"
    );
}

#[test]
fn sync_lines_are_looked_for_in_one_pass() {
    // Errors, then a long stretch of program output without a sync line: the chunks
    // before it look past it once, not once per later chunk.
    let mut log = String::new();
    for i in 0..20 {
        log.push_str(&format!(
            "==7== Invalid read of size 4\n==7==    at 0x{i:X}: f (a.c:{i})\n==7== \n"
        ));
    }
    for i in 0..20_000 {
        log.push_str(&format!("program output {i}\n"));
    }
    let (items, stats) = parallel(log.as_bytes(), 2, 256);
    assert_eq!(items, sequential(log.as_bytes()));
    let len = log.len() as u64;
    assert!(stats.sync_bytes <= 2 * len, "{stats:?} for {len} bytes");
}

#[test]
fn an_empty_log_has_no_items() {
    let (items, _) = parallel(b"", 2, 100);
    assert!(items.is_empty());
}

#[test]
fn a_log_of_many_short_processes_is_read_alone_after_a_few_chunks() {
    // Each process starts and ends within a chunk or two: at a chunk's start, the guess has
    // other processes open than the log has. After a few chunks read again, the reader
    // threads stop, and the items are still the sequential reader's.
    let mut log = String::new();
    for pid in 0..400 {
        log.push_str(&format!(
            "=={pid}== Memcheck, a memory error detector\n=={pid}== Command: ./t{pid}\n=={pid}== \n"
        ));
        for i in 0..6 {
            log.push_str(&format!(
                "=={pid}== Invalid read of size 4\n=={pid}==    at 0x{i:X}: f{i} (a.c:{i})\n=={pid}== \n"
            ));
        }
        log.push_str(&format!(
            "=={pid}== For lists of detected and suppressed errors, rerun with: -s\n\
             =={pid}== ERROR SUMMARY: 6 errors from 6 contexts (suppressed: 0 from 0)\n"
        ));
    }
    // Every chunk read with the first guess (before the consumer takes any): a schedule a
    // loaded machine may give, fixed here.
    let (items, stats) = scheduled(log.as_bytes(), 2, 2048, Schedule::AllAhead);
    let want = sequential(log.as_bytes());
    let at = items.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(
        (items.len(), at),
        (want.len(), None),
        "{:?} / {:?}",
        at.map(|i| &items[i]),
        at.map(|i| &want[i])
    );
    assert!(stats.alone && stats.reread >= 4, "{stats:?}");
    let ends = items
        .iter()
        .filter(|i| matches!(i, LogItem::ProcessEnd { .. }))
        .count();
    assert_eq!(ends, 400);
}

/// Log-like text with what processes, announcements, listings and excerpts bring: the
/// parallel reader (with and without its threads stopping) gives the sequential reader's
/// items, and every line number lies within the log.
mod soup {
    use proptest::prelude::*;

    use super::*;

    fn soup() -> impl Strategy<Value = Vec<u8>> {
        const LEADS: &[&str] = &[
            "",
            "",
            "==7== ",
            "==7== ",
            "==7== ",
            "==8== ",
            "==9== ",
            "--7-- ",
            "--8-- ",
            "=7== ",
            "    ==7== ",
            "> ==8== ",
            "UMC ==9== ",
        ];
        const BODIES: &[&str] = &[
            "",
            "Memcheck, a memory error detector",
            "Helgrind, a thread error detector",
            "Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info",
            "Using Valgrind-3.13.0 and LibVEX; rerun with -h for copyright info",
            "Command: ./a.out",
            "Valgrind options:",
            "   -v",
            "Invalid read of size 4",
            "Conditional jump or move depends on uninitialised value(s)",
            "8 bytes in 1 blocks are definitely lost in loss record 1 of 2",
            "**8 bytes in 1 blocks** are definitely lost in loss record 2 of 2",
            "Possible data race during read of size 4 at 0x10C060 by thread #1",
            "Locks held: none",
            "   at 0x4C2B955: malloc (vg_replace_malloc.c:711)",
            "   by 0x1: f (a.c:1)",
            "   by 0x2: g (in /lib/x.so)",
            "   by 0x",
            " Address 0x1 is 0 bytes after a block of size 4 alloc'd",
            " Lock at 0x10C0C0 was first observed",
            " Lock at 0x10C080 : no stacktrace for first observation",
            "---Thread-Announcement------------------------------------------",
            "Thread #2 was created",
            "----------------------------------------------------------------",
            "{",
            "   <insert_a_suppression_name_here>",
            "   Memcheck:Addr4",
            "   fun:f",
            "}",
            "Thread 2:",
            "1 errors in context 1 of 2:",
            "3 errors in context 2 of 2:",
            "1 errors (suppressed by r) in context 3 of 3:",
            "For lists of detected and suppressed errors, rerun with: -s",
            "ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)",
            "used_suppression:      1 my rule x.supp:3",
            "Reading syms from /lib/x.so",
            "Discarding syms at 0x1000-0x2000 in /lib/x.so (have_dinfo 1)",
            "More than 1000 different errors detected.  I'm not reporting any more.",
            "program output",
        ];
        let line = (
            prop::sample::select(LEADS),
            prop::sample::select(BODIES),
            prop::sample::select(&["\n", "\n", "\n", "\r\n"][..]),
        )
            .prop_map(|(l, b, e)| format!("{l}{b}{e}"));
        (prop::collection::vec(line, 0..300), any::<bool>()).prop_map(|(lines, cut)| {
            let mut bytes = lines.concat().into_bytes();
            if cut {
                bytes.truncate(bytes.len() * 2 / 3);
            }
            bytes
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn parallel_reading_is_sequential_reading(log in soup(), chunk in 64_u64..2048) {
            let want = sequential(&log);
            let lines = log.split(|b| *b == b'\n').count() as u64;
            for item in &want {
                let line = match item {
                    LogItem::Error(e) => e.line,
                    LogItem::Warning { line, .. } | LogItem::Fatal { line, .. } => *line,
                    LogItem::ContextCount { error_line, .. } => *error_line,
                    _ => 1,
                };
                prop_assert!(line >= 1 && line <= lines, "{item:?}");
            }
            for (never_alone, schedule) in [
                (false, Schedule::Free),
                (true, Schedule::Free),
                (false, Schedule::Lockstep),
                (true, Schedule::AllAhead),
            ] {
                let (got, _) = parallel_as(&log, 2, chunk, never_alone, schedule);
                prop_assert_eq!(&got, &want);
            }
        }
    }
}

#[test]
fn the_cap_on_shown_errors_reads_the_same_in_chunks() {
    // One process shows more errors than are remembered for its listing, then lists some:
    // where the cap falls, and what the listing finds, depend on every error shown before.
    let mut log =
        String::from("==5== Memcheck, a memory error detector\n==5== Command: ./a\n==5== \n");
    for i in 0..10_050 {
        log.push_str(&format!(
            "==5== Invalid read of size 4\n==5==    at 0x{i:X}: f (a.c:1)\n==5== \n"
        ));
    }
    log.push_str("==5== ERROR SUMMARY: 10050 errors from 10050 contexts (suppressed: 0 from 0)\n");
    for i in [0, 9_999, 10_040] {
        log.push_str(&format!(
            "==5== \n==5== 1 errors in context 1 of 10050:\n==5== Invalid read of size 4\n\
             ==5==    at 0x{i:X}: f (a.c:1)\n==5== \n"
        ));
    }
    let want = sequential(log.as_bytes());
    let counts = want
        .iter()
        .filter(|i| matches!(i, LogItem::ContextCount { .. }))
        .count();
    assert_eq!(counts, 2, "the third listed error is past the cap");
    for (never_alone, schedule) in [
        (false, Schedule::Free),
        (true, Schedule::Free),
        (false, Schedule::Lockstep),
        (true, Schedule::AllAhead),
    ] {
        let (got, stats) = parallel_as(log.as_bytes(), 2, 16 << 10, never_alone, schedule);
        assert!(got == want, "{schedule:?}: {stats:?}");
    }
}
