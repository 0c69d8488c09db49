//! The parallel XML reader gives exactly the sequential reader's items.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::*;
use crate::logs::xml::XmlReader;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn sequential(bytes: &[u8]) -> Vec<LogItem> {
    XmlReader::new(bytes)
        .with_name("log")
        .map(|i| i.expect("item"))
        .collect()
}

fn tempfile_of(bytes: &[u8]) -> File {
    let mut f = tempfile::tempfile().expect("tempfile");
    f.write_all(bytes).expect("write");
    f
}

fn parallel_as(
    bytes: &[u8],
    threads: usize,
    chunk: u64,
    never_alone: bool,
    schedule: Schedule,
) -> (Vec<LogItem>, ParallelStats) {
    let mut r =
        ParallelXmlReader::with_schedule(tempfile_of(bytes), "log", threads, chunk, schedule)
            .expect("open");
    if never_alone {
        r = r.never_alone();
    }
    let items = r.by_ref().map(|i| i.expect("item")).collect();
    (items, r.stats())
}

/// Parallel reading gives exactly the sequential items, for every chunk size: on a free
/// schedule, and on the two that fix the guesses (the freshest, then the stalest). Returns
/// the stats of the last chunk size on the lockstep schedule: which chunks are used there
/// does not depend on the machine's scheduling (the share a machine gets is measured by
/// bench/logs.sh).
fn same_items(label: &str, bytes: &[u8], chunks: &[u64]) -> ParallelStats {
    let want = sequential(bytes);
    let mut lockstep = ParallelStats::default();
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
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{label}: chunk {chunk}, {threads} threads, {schedule:?}: item {i} ({stats:?})"
                );
            }
            assert_eq!(
                got.len(),
                want.len(),
                "{label}: chunk {chunk}, {threads} threads, {schedule:?}: item count ({stats:?})"
            );
            if schedule == Schedule::Lockstep {
                lockstep = stats;
            }
        }
    }
    lockstep
}

/// Every XML log of the test data.
fn xml_logs() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for dir in ["tests/data/logs/xml", "tests/data/match"] {
        for entry in walkdir::WalkDir::new(repo(dir)).into_iter().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "xml") {
                let bytes = std::fs::read(path).expect("read log");
                v.push((path.display().to_string(), bytes));
            }
        }
    }
    v.sort();
    assert!(v.len() > 20, "{}", v.len());
    v
}

/// One document of many errors: the errors of `memcheck-3.19-errors-leaks.xml` repeated.
fn long_document(min_len: usize) -> Vec<u8> {
    let doc = std::fs::read(repo("tests/data/logs/xml/memcheck-3.19-errors-leaks.xml"))
        .expect("read log");
    let first = memchr::memmem::find(&doc, b"\n<error>").expect("an error") + 1;
    let last = memchr::memmem::rfind(&doc, b"</error>").expect("an error") + 9;
    let mut out = doc[..first].to_vec();
    while out.len() < min_len {
        out.extend_from_slice(&doc[first..last]);
    }
    out.extend_from_slice(&doc[last..]);
    out
}

#[test]
fn every_test_log() {
    for (name, bytes) in xml_logs() {
        same_items(&name, &bytes, &[97, 1000, 65_536]);
    }
}

#[test]
fn a_long_document_is_mostly_read_in_parallel() {
    let bytes = long_document(2 << 20);
    // On the lockstep schedule: the guesses, not the machine's scheduling, are under test.
    let stats = same_items("long", &bytes, &[20_000]);
    let used = stats.accepted + stats.reread;
    assert!(
        stats.accepted * 10 >= used * 9 && stats.chunks >= 60,
        "too few chunks taken from the reader threads: {stats:?}"
    );
    // Its `<errorcounts>` name errors of every chunk: the chunk that holds it is read again.
    assert!(stats.reread >= 1, "{stats:?}");
}

#[test]
fn several_documents_cut_and_whole() {
    let logs = xml_logs();
    let mut bytes = Vec::new();
    for (i, (_, log)) in logs.iter().enumerate() {
        match i % 3 {
            // Cut in the middle (a killed run concatenated with the next).
            0 => bytes.extend_from_slice(&log[..log.len() / 2]),
            // With a byte-order mark.
            1 => {
                bytes.extend_from_slice(b"\xef\xbb\xbf");
                bytes.extend_from_slice(log);
            }
            _ => bytes.extend_from_slice(log),
        }
    }
    same_items("documents", &bytes, &[500, 7_000, 100_000]);
    let crlf: Vec<u8> = bytes
        .split(|&b| b == b'\n')
        .flat_map(|l| l.iter().copied().chain(*b"\r\n"))
        .collect();
    same_items("documents, CRLF", &crlf, &[500, 7_000]);
}

#[test]
fn documents_one_after_another_are_read_in_parallel() {
    // Many small documents of different processes (a test suite's runs, one document
    // each): chunks start at the first document start in them, where the guess "between
    // documents" is right.
    let doc = std::fs::read(repo("tests/data/logs/xml/memcheck-3.19-errors-leaks.xml"))
        .expect("read log");
    let pid = memchr::memmem::find(&doc, b"<pid>25150</pid>").expect("a pid");
    let mut bytes = Vec::new();
    for i in 0..200 {
        bytes.extend_from_slice(&doc[..pid]);
        bytes.extend_from_slice(format!("<pid>{}</pid>", 1000 + i).as_bytes());
        bytes.extend_from_slice(&doc[pid + 16..]);
    }
    let len = doc.len() as u64;
    // On the lockstep schedule (see `same_items`).
    let stats = same_items("runs", &bytes, &[len * 5 / 2]);
    assert!(
        stats.accepted * 10 >= (stats.accepted + stats.reread) * 9,
        "{stats:?}"
    );
    // Documents longer than a chunk: the chunks inside one start at an error, guessed in
    // the document before (another process): read again, until the guess catches up.
    same_items("runs in pieces", &bytes, &[len / 3]);
}

#[test]
fn cut_logs() {
    let bytes = long_document(200_000);
    for cut in [
        bytes.len() / 3,
        bytes.len() / 2 + 17,
        bytes.len() - 100,
        bytes.len() - 1,
    ] {
        same_items(&format!("cut at {cut}"), &bytes[..cut], &[333, 4_096]);
    }
}

#[test]
fn huge_elements() {
    // A text longer than the 1 MiB cap of an element, and a token longer than the 16 MiB
    // cap of one token, across many chunks.
    let bytes = long_document(100_000);
    let at = memchr::memmem::find(&bytes, b"<fn>main</fn>").expect("main") + 4;
    let mut big = bytes[..at].to_vec();
    big.extend(std::iter::repeat_n(b'x', (1 << 20) + 10));
    big.extend_from_slice(&bytes[at..]);
    same_items("long text", &big, &[65_536]);
    let mut huge = bytes[..at].to_vec();
    huge.extend(std::iter::repeat_n(b'y', (16 << 20) + 5));
    huge.extend_from_slice(&bytes[at..]);
    same_items("longer token", &huge, &[1 << 20]);
}

#[test]
fn announcements_stay_with_their_error() {
    let doc = std::fs::read(repo("tests/data/logs/xml/helgrind-3.19-locks.xml")).expect("log");
    let bytes = doc.repeat(30);
    same_items("helgrind", &bytes, &[300, 3_000]);
}

#[test]
fn damaged_logs() {
    // Deterministic damage: lines dropped, doubled or cut in half.
    let bytes = long_document(150_000);
    for round in 0..4u64 {
        let mut out = Vec::new();
        for (i, l) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            match (i as u64).wrapping_mul(2_654_435_761 + round) % 97 {
                0 => {}
                1 => {
                    out.extend_from_slice(l);
                    out.extend_from_slice(l);
                }
                2 => out.extend_from_slice(&l[..l.len() / 2]),
                _ => out.extend_from_slice(l),
            }
        }
        same_items(&format!("damaged {round}"), &out, &[333, 5_000]);
    }
}

#[test]
fn for_each_ref_sees_the_same_items_and_stops_when_asked() {
    let bytes = long_document(300_000);
    let want = sequential(&bytes);
    let reader = ParallelXmlReader::new(tempfile_of(&bytes), "log", 2, 4096).expect("open");
    let mut got = Vec::new();
    reader
        .for_each_ref(|i| {
            got.push(i.expect("item").clone());
            Ok::<(), ()>(())
        })
        .expect("no stop");
    assert_eq!(got, want);

    let reader = ParallelXmlReader::new(tempfile_of(&bytes), "log", 2, 4096).expect("open");
    let mut seen = 0;
    let stop = reader.for_each_ref(|_| {
        seen += 1;
        if seen == 10 { Err("enough") } else { Ok(()) }
    });
    assert_eq!((stop, seen), (Err("enough"), 10));
}

#[test]
fn dropping_a_reader_early_stops_its_threads() {
    let bytes = long_document(300_000);
    for n in [0, 1, 5] {
        let mut reader = ParallelXmlReader::new(tempfile_of(&bytes), "log", 3, 1000).expect("open");
        for _ in 0..n {
            reader.next();
        }
        drop(reader);
    }
}
