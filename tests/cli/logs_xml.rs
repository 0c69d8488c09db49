//! The XML log reader (`vgsupp::logs::xml`) on real recordings: `tests/data/logs/xml/`
//! (see the README there) and, when the shared fixtures are present, the 575 MB
//! `leaky-ext.xml.gz`. Counts are checked against plain byte searches of the logs.

use std::io::{BufReader, Read};
use std::path::PathBuf;

use memchr::memmem;
use vgsupp::logs::record::{ErrorRecord, GenFrame, LogItem, Preamble};
use vgsupp::logs::xml::{XmlReader, XmlStats};
use vgsupp::supp::kinds::Tool;
use vgsupp::supp::model::LeakKind;

use crate::common::{files_in, repo, shared_fixture};

fn dir() -> PathBuf {
    repo("tests/data/logs/xml")
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read(bytes: &[u8]) -> (Vec<LogItem>, XmlStats) {
    let mut reader = XmlReader::new(bytes);
    let items = reader.by_ref().map(|r| r.expect("no I/O error")).collect();
    (items, *reader.stats())
}

fn count(hay: &[u8], needle: &[u8]) -> usize {
    memmem::find_iter(hay, needle).count()
}

fn errors(items: &[LogItem]) -> Vec<&ErrorRecord> {
    items.iter().filter_map(LogItem::as_error).collect()
}

fn warnings(items: &[LogItem]) -> Vec<(u64, &str)> {
    items.iter().filter_map(LogItem::as_warning).collect()
}

fn preambles(items: &[LogItem]) -> Vec<&Preamble> {
    items
        .iter()
        .filter_map(|i| match i {
            LogItem::Preamble(p) => Some(p),
            _ => None,
        })
        .collect()
}

fn used(items: &[LogItem]) -> Vec<(u64, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            LogItem::Used(u) => Some((u.count, String::from_utf8_lossy(&u.name).into_owned())),
            _ => None,
        })
        .collect()
}

/// `<pair>`s inside the `<suppcounts>` elements, by byte search.
fn suppcount_pairs(bytes: &[u8]) -> usize {
    let mut n = 0;
    let mut rest = bytes;
    while let Some(start) = memmem::find(rest, b"<suppcounts>") {
        rest = &rest[start..];
        let end = memmem::find(rest, b"</suppcounts>").unwrap_or(rest.len());
        n += count(&rest[..end], b"<pair>");
        rest = &rest[end..];
    }
    n
}

/// Whether the log ends its (last) document normally.
fn complete(bytes: &[u8]) -> bool {
    count(bytes, b"<state>FINISHED</state>") == count(bytes, b"<valgrindoutput>")
        && bytes.trim_ascii_end().ends_with(b"</valgrindoutput>")
}

fn xml_fixtures() -> Vec<PathBuf> {
    files_in(&dir(), &["README.md"])
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect()
}

#[test]
fn every_fixture_is_read_completely() {
    let files = xml_fixtures();
    assert!(files.len() >= 11, "{files:?}");
    for path in files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let bytes = std::fs::read(&path).expect("read fixture");
        let (items, stats) = read(&bytes);
        let errs = errors(&items);

        // Every complete <error> is read, and one cut short when a frame of its stack was.
        let starts = count(&bytes, b"<error>");
        let ends = count(&bytes, b"</error>");
        let cut = errs.iter().filter(|e| e.truncated).count();
        assert_eq!(errs.len() - cut, ends, "{name}: errors read");
        assert!(cut <= starts - ends, "{name}");
        assert_eq!(stats.errors, errs.len() as u64, "{name}");
        if starts != ends {
            assert!(
                warnings(&items)
                    .iter()
                    .any(|(_, m)| m.contains("inside the <error>")),
                "{name}: a cut <error> is reported"
            );
        }

        // With --gen-suppressions=all, each error has its <suppression> once, and the copy
        // printed after </error> is skipped.
        if memmem::find(&bytes, b"<arg>--gen-suppressions=all</arg>").is_some() {
            assert!(errs.iter().all(|e| e.suppression.is_some()), "{name}");
            assert_eq!(count(&bytes, b"<suppression>"), 2 * errs.len(), "{name}");
            assert_eq!(stats.suppressions, stats.duplicate_suppressions, "{name}");
            for e in &errs {
                let s = e.suppression.as_ref().expect("suppression");
                assert!(!s.frames.is_empty(), "{name}: line {}", e.line);
                let kind = s.kind_line.split(|&b| b == b':').nth(1).expect("Tool:Kind");
                assert_eq!(kind, e.kind.as_bytes(), "{name}: line {}", e.line);
            }
        } else {
            assert!(errs.iter().all(|e| e.suppression.is_none()), "{name}");
        }

        // Each <error> line number is the line of its start tag.
        for e in &errs {
            let line = bytes
                .split(|&b| b == b'\n')
                .nth(usize::try_from(e.line).expect("line") - 1)
                .expect("line exists");
            assert_eq!(line.trim_ascii(), b"<error>", "{name}: line {}", e.line);
            assert!(!e.stack.is_empty(), "{name}: line {}", e.line);
            assert!(!e.kind.is_empty(), "{name}: line {}", e.line);
        }

        assert_eq!(
            used(&items).len(),
            suppcount_pairs(&bytes),
            "{name}: <suppcounts>"
        );
        assert_eq!(
            preambles(&items).len(),
            count(&bytes, b"<valgrindoutput>"),
            "{name}"
        );
        if complete(&bytes) {
            assert!(warnings(&items).is_empty(), "{name}: {items:#?}");
        } else {
            assert!(
                !warnings(&items).is_empty(),
                "{name}: an incomplete log warns"
            );
        }
    }
}

#[test]
fn memcheck_recording() {
    let (items, _) = read(&fixture("memcheck-3.19-errors-leaks.xml"));
    let p = preambles(&items)[0];
    assert_eq!(p.tool, Some(Tool::Memcheck));
    assert_eq!(p.valgrind_version.as_deref(), Some("3.19.0"));
    assert!(p.options.iter().any(|o| o == "--demangle=no"));
    let errs = errors(&items);
    let kinds: Vec<&str> = errs.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "Addr4",
            "Addr1",
            "Cond",
            "Value8",
            "Param",
            "Free",
            "Free",
            "Overlap",
            "User",
            "FishyValue",
            "Addr4",
            "Param",
            "Leak",
            "Leak",
            "Leak",
            "Leak",
            "Leak",
            "Leak"
        ]
    );
    assert_eq!(errs[4].param.as_deref(), Some(&b"write(buf)"[..]));
    assert_eq!(errs[11].param.as_deref(), Some(&b"exit_group(status)"[..]));
    assert_eq!(errs[9].fishy, Some((b"malloc".to_vec(), b"size".to_vec())));
    assert!(errs[2].aux.iter().any(|a| a.origin && !a.stack.is_empty()));
    // The source directory's name is not UTF-8: its byte survives.
    let dir = errs[0].stack.get(0).expect("frame").dir.expect("dir");
    assert_eq!(dir, b"/tmp/vgx/caf\xe9");
    // --demangle=no: <fn> holds the mangled name, as in the suppression.
    let f = errs[0].stack.get(0).expect("frame").fun.expect("fn");
    assert_eq!(f, b"_ZL9leaf_readPKi");
    let leaks: Vec<_> = errs.iter().filter_map(|e| e.leak).collect();
    assert_eq!(leaks.len(), 6);
    assert!(
        leaks
            .iter()
            .enumerate()
            .all(|(i, l)| l.index == i as u64 + 1 && l.total == 6)
    );
    let kinds: Vec<LeakKind> = leaks.iter().map(|l| l.kind).collect();
    assert_eq!(
        kinds,
        [
            LeakKind::Definite,
            LeakKind::Reachable,
            LeakKind::Indirect,
            LeakKind::Possible,
            LeakKind::Definite,
            LeakKind::Definite
        ]
    );
    assert_eq!((leaks[4].bytes, leaks[4].blocks), (64, 1));
    let supp = errs[17].suppression.as_ref().expect("suppression");
    assert_eq!(errs[17].leak.map(|l| l.bytes), Some(100));
    assert_eq!(
        supp.extra.as_deref(),
        Some(&b"match-leak-kinds: definite"[..])
    );
    assert_eq!(
        supp.frames.to_vec(),
        [
            GenFrame::Fun(b"malloc"),
            GenFrame::Fun(b"_Z13leak_definitev"),
            GenFrame::Fun(b"_Z5leaksv"),
            GenFrame::Fun(b"main")
        ]
    );
}

#[test]
fn suppressed_recording() {
    let (items, _) = read(&fixture("memcheck-3.19-suppressed.xml"));
    assert!(items.iter().any(|i| matches!(
        i,
        LogItem::SuppressionFile { path, .. } if path == b"used.supp"
    )));
    assert_eq!(
        used(&items),
        [
            (1, "leak: definite, from leak_definite".to_owned()),
            (1, "overlap <strncpy> & friends".to_owned())
        ]
    );
    assert!(warnings(&items).is_empty());
}

#[test]
fn stopped_and_cut_recordings_warn() {
    let bytes = fixture("memcheck-3.19-supp-fatal.xml");
    let (items, _) = read(&bytes);
    assert!(matches!(items[0], LogItem::Preamble(_)));
    assert!(matches!(items[1], LogItem::SuppressionFile { .. }));
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    assert!(w[0].1.contains("without <status> FINISHED"), "{}", w[0].1);

    let bytes = fixture("memcheck-3.19-killed.xml");
    let (items, _) = read(&bytes);
    assert_eq!(errors(&items).len(), 1);
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    let last_line = bytes.split(|&b| b == b'\n').count() as u64 - 1;
    assert_eq!(w[0].0, last_line, "{}", w[0].1);
    assert!(w[0].1.contains("before </valgrindoutput>"), "{}", w[0].1);

    // A public log that stops without FINISHED and continues with stray <stack>s.
    let (items, _) = read(&fixture("062-librecraft-opengl-xml-truncated.xml"));
    assert_eq!(errors(&items).len(), 5);
    let w = warnings(&items);
    assert_eq!(w.len(), 2, "{w:#?}");
    assert_eq!(w[0].0, 297);
    assert_eq!(w[1].0, 298);

    // Cut in the middle of an error.
    let bytes = fixture("memcheck-3.19-errors-leaks.xml");
    let at = memmem::rfind(&bytes, b"<leakedblocks>").expect("leak");
    let (items, _) = read(&bytes[..at]);
    assert_eq!(errors(&items).len(), 17);
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].1.contains("inside the <error> that starts at line"),
        "{}",
        w[0].1
    );
}

#[test]
fn fatal_signal_recording() {
    let (items, _) = read(&fixture("memcheck-3.19-jump-sigsegv.xml"));
    assert_eq!(errors(&items)[0].kind, "Jump");
    let fatal = items.iter().find_map(|i| match i {
        LogItem::Fatal { message, .. } => Some(message.as_str()),
        _ => None,
    });
    assert_eq!(
        fatal,
        Some(
            "Process terminating with default action of signal 11 (SIGSEGV): Bad permissions \
             for mapped region at address 0x1234 (thread 1)"
        )
    );
}

#[test]
fn helgrind_and_drd_recordings() {
    let (items, _) = read(&fixture("helgrind-3.19-race.xml"));
    let errs = errors(&items);
    let kinds: Vec<&str> = errs.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["Race", "Race", "UnlockBogus"]);
    assert!(errs.iter().all(|e| e.tool == Some(Tool::Helgrind)));
    assert_eq!(errs[0].aux[0].stack.len(), errs[0].stack.len());
    assert!(
        errs[0].aux[0]
            .what
            .starts_with("This conflicts with a previous write")
    );

    let (items, _) = read(&fixture("drd-3.19-race.xml"));
    let errs = errors(&items);
    let kinds: Vec<&str> = errs.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "ConflictingAccess",
            "ConflictingAccess",
            "ConflictingAccess",
            "MutexErr"
        ]
    );
    assert!(errs.iter().all(|e| e.tool == Some(Tool::Drd)));
    assert_eq!(used(&items).len(), 1);
}

#[test]
fn concatenated_recordings() {
    let names = [
        "memcheck-3.19-errors-leaks.xml",
        "helgrind-3.19-race.xml",
        "memcheck-3.19-killed.xml",
        "drd-3.19-race.xml",
        "064-raylib-arpg-radeonsi-xml.xml",
    ];
    let mut all = Vec::new();
    let mut expected_errors = Vec::new();
    let mut expected_pids = Vec::new();
    for name in names {
        let bytes = fixture(name);
        let (items, _) = read(&bytes);
        expected_pids.push(preambles(&items)[0].pid);
        expected_errors.extend(errors(&items).iter().map(|e| (e.pid, e.kind.clone())));
        all.extend_from_slice(&bytes);
    }
    let (items, stats) = read(&all);
    let pids: Vec<_> = preambles(&items).iter().map(|p| p.pid).collect();
    assert_eq!(pids, expected_pids);
    let got: Vec<_> = errors(&items)
        .iter()
        .map(|e| (e.pid, e.kind.clone()))
        .collect();
    assert_eq!(got, expected_errors);
    assert_eq!(stats.documents, names.len() as u64);
    // Only the killed log's document is cut (by the next one).
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(w[0].1.contains("cut"), "{}", w[0].1);
}

/// Counts needles in the bytes passing through, across read boundaries.
struct Counting<R> {
    inner: R,
    needles: Vec<&'static [u8]>,
    counts: Vec<u64>,
    tail: Vec<u8>,
    bytes: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.bytes += n as u64;
        let keep = self.needles.iter().map(|n| n.len()).max().unwrap_or(1) - 1;
        let mut window = std::mem::take(&mut self.tail);
        let old = window.len();
        window.extend_from_slice(&out[..n]);
        for (needle, count) in self.needles.iter().zip(&mut self.counts) {
            // Matches wholly inside the old tail were counted before.
            *count += memmem::find_iter(&window, needle)
                .filter(|&at| at + needle.len() > old)
                .count() as u64;
        }
        self.tail = window[window.len().saturating_sub(keep)..].to_vec();
        Ok(n)
    }
}

/// The 575 MB XML recording of the torch scenario (`shared/fixtures/torch/`), streamed
/// from its gzip file; skipped when the shared fixtures are absent. Unoptimized builds read
/// only its first 48 MiB (a cut log) unless `VGSUPP_FULL_FIXTURES=1`.
#[test]
fn leaky_ext_xml_gz() {
    let Some(path) = shared_fixture("fixtures/torch/leaky-ext.xml.gz", "leaky_ext_xml_gz") else {
        return;
    };
    let full =
        !cfg!(debug_assertions) || std::env::var("VGSUPP_FULL_FIXTURES").is_ok_and(|v| v == "1");
    let limit = if full { u64::MAX } else { 48 << 20 };
    let file = std::fs::File::open(&path).expect("open");
    let mut counting = Counting {
        inner: flate2::read::GzDecoder::new(file).take(limit),
        needles: vec![b"<error>", b"</error>", b"<suppression>"],
        counts: vec![0; 3],
        tail: Vec::new(),
        bytes: 0,
    };
    let reader = BufReader::with_capacity(1 << 16, &mut counting);
    let mut xml = XmlReader::new(reader).with_name(path.display().to_string());
    let mut n_errors = 0u64;
    let mut with_supp = 0u64;
    let mut leaks = 0u64;
    let mut other = Vec::new();
    for item in xml.by_ref() {
        match item.expect("no I/O error") {
            LogItem::Error(e) => {
                n_errors += 1;
                with_supp += u64::from(e.suppression.is_some());
                leaks += u64::from(e.leak.is_some());
            }
            item => other.push(item),
        }
    }
    let stats = *xml.stats();
    drop(xml);
    let [starts, ends, supps] = [counting.counts[0], counting.counts[1], counting.counts[2]];
    // Read in part, the last error may be cut short: kept when a frame was read.
    let cut = n_errors - ends;
    assert!(cut <= 1, "{n_errors} {ends}");
    assert_eq!(with_supp, ends);
    assert_eq!(stats.suppressions, ends);
    assert!(matches!(other[0], LogItem::Preamble(_)));
    // The run used no suppression file of its own: <suppcounts> is empty.
    assert!(!other.iter().any(|i| matches!(i, LogItem::Used(_))));
    let warnings = warnings(&other);
    if full {
        assert!(counting.bytes > 500_000_000, "{}", counting.bytes);
        assert_eq!((n_errors, cut), (starts, 0));
        assert_eq!(n_errors, 19_909);
        assert_eq!(leaks, 12 + 395 + 43 + 19_402);
        assert_eq!(supps, 2 * n_errors);
        assert_eq!(stats.duplicate_suppressions, n_errors);
        assert!(warnings.is_empty(), "{warnings:#?}");
    } else {
        eprintln!(
            "leaky-ext.xml.gz: read the first {} MiB only (set VGSUPP_FULL_FIXTURES=1 for all)",
            limit >> 20
        );
        assert!(n_errors > 1_000, "{n_errors}");
        assert!(starts - ends <= 1);
        assert!(supps.abs_diff(2 * n_errors) <= 2, "{supps} {n_errors}");
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
    }
}

/// `<errorcounts>`: each pair gives the occurrences of the `<error>` of its `<unique>`.
#[test]
fn error_counts_name_their_errors() {
    for name in [
        "memcheck-3.19-errors-leaks.xml",
        "helgrind-3.19-race.xml",
        "helgrind-3.19-locks.xml",
        "drd-3.19-race.xml",
        "064-raylib-arpg-radeonsi-xml.xml",
    ] {
        let bytes = fixture(name);
        let (items, _) = read(&bytes);
        let errs = errors(&items);
        let counts: Vec<(u64, u64)> = items
            .iter()
            .filter_map(|i| match i {
                LogItem::ContextCount {
                    count, error_line, ..
                } => Some((*count, *error_line)),
                _ => None,
            })
            .collect();
        let section = memmem::find(&bytes, b"<errorcounts>").map_or(&b""[..], |s| {
            let rest = &bytes[s..];
            &rest[..memmem::find(rest, b"</errorcounts>").unwrap_or(rest.len())]
        });
        assert_eq!(counts.len(), count(section, b"<pair>"), "{name}");
        assert!(!counts.is_empty(), "{name}");
        for (n, line) in counts {
            assert!(n >= 1, "{name}");
            let e = errs.iter().find(|e| e.line == line);
            assert!(e.is_some_and(|e| e.leak.is_none()), "{name}: line {line}");
        }
    }
}

/// Helgrind's `<announcethread>`s are context of the next `<error>`.
#[test]
fn thread_announcements_are_context() {
    let (items, _) = read(&fixture("helgrind-3.19-locks.xml"));
    assert!(warnings(&items).is_empty(), "{items:#?}");
    let errs = errors(&items);
    assert_eq!(
        errs.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
        ["Race", "Race", "LockOrder"]
    );
    let context: Vec<(&str, usize)> = errs[0]
        .context
        .iter()
        .map(|c| (c.what.as_str(), c.stack.len()))
        .collect();
    assert_eq!(
        context,
        [
            ("Thread #1 is the program's root thread", 0),
            ("Thread #2 was created", 6)
        ]
    );
    assert_eq!(
        errs[0].context[1].stack.get(5).and_then(|f| f.fun),
        Some(&b"main"[..])
    );
    assert!(errs[1].context.is_empty() && errs[2].context.is_empty());
}

/// An `<error>` cut short is kept with the frames read, marked truncated while its
/// `<stack>` had not ended; the frame being read is left out.
#[test]
fn a_cut_error_is_kept() {
    let bytes = fixture("memcheck-3.19-errors-leaks.xml");
    let (full, _) = read(&bytes);
    let last = *errors(&full).last().expect("errors");
    // Cut inside the last error's stack, in its third frame.
    let error_start = memmem::rfind(&bytes, b"<error>").expect("an error");
    let third = error_start
        + memmem::find_iter(&bytes[error_start..], b"<frame>")
            .nth(2)
            .expect("three frames");
    let (items, _) = read(&bytes[..third + 20]);
    let cut = *errors(&items).last().expect("errors");
    assert_eq!(
        (cut.line, cut.truncated, cut.stack.len()),
        (last.line, true, 2)
    );
    assert_eq!(cut.kind, last.kind);
    assert_eq!(cut.stack.get(1), last.stack.get(1));
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].1
            .contains("it is kept with the 2 frames read, marked truncated")
    );
    // Cut after its stack ended: kept, not truncated.
    let stack_end = error_start + memmem::find(&bytes[error_start..], b"</stack>").expect("stack");
    let (items, _) = read(&bytes[..stack_end + 10]);
    let cut = *errors(&items).last().expect("errors");
    assert_eq!((cut.truncated, cut.stack.len()), (false, last.stack.len()));
}

/// An excerpt that starts inside an `<error>` (at `<kind>`), after a Markdown fence.
#[test]
fn an_error_fragment() {
    let bytes = fixture("memcheck-3.19-errors-leaks.xml");
    let kind = memmem::rfind(&bytes, b"<kind>").expect("a kind");
    let end = memmem::find(&bytes[kind..], b"</stack>").expect("a stack") + kind;
    let mut excerpt = b"```\n".to_vec();
    excerpt.extend_from_slice(&bytes[kind..end]);
    let (items, _) = read(&excerpt);
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].truncated);
    assert_eq!(errs[0].kind, "Leak");
    assert!(!errs[0].stack.is_empty());
}

/// A log of `min_len` bytes or more: one document of the errors of a recording repeated,
/// then another recording (two documents).
fn large_log(min_len: usize) -> Vec<u8> {
    let doc = fixture("memcheck-3.19-errors-leaks.xml");
    let first = memmem::find(&doc, b"\n<error>").expect("an error") + 1;
    let last = memmem::rfind(&doc, b"</error>").expect("an error") + 9;
    let mut out = doc[..first].to_vec();
    while out.len() < min_len {
        out.extend_from_slice(&doc[first..last]);
    }
    out.extend_from_slice(&doc[last..]);
    out.extend_from_slice(&fixture("helgrind-3.19-locks.xml"));
    out
}

/// A large plain XML log is read on several threads (`logs::xml::parallel`): the items are
/// the sequential reader's, and `vgsupp match` prints the same with one reader thread or
/// several.
#[test]
fn large_logs_read_on_several_threads_give_the_same_items() {
    use std::io::Write as _;
    // Above the 8 MiB parallel threshold.
    let data = large_log(10 << 20);
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("big.xml");
    std::fs::File::create(&log)
        .and_then(|mut f| f.write_all(&data))
        .expect("write log");

    let (sequential, _) = read(&data);
    let file = std::fs::File::open(&log).expect("open");
    // On the lockstep schedule: which chunks are used does not depend on the machine's
    // scheduling (bench/logs.sh measures that).
    let mut reader = vgsupp::logs::xml::parallel::ParallelXmlReader::with_schedule(
        file,
        "big.xml",
        2,
        1 << 20,
        vgsupp::logs::parallel::Schedule::Lockstep,
    )
    .expect("parallel reader");
    let parallel: Vec<LogItem> = reader.by_ref().map(|i| i.expect("item")).collect();
    assert_eq!(parallel, sequential);
    let stats = reader.stats();
    assert!(
        stats.accepted >= 8 && stats.reread <= 3 && !stats.alone,
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
    assert!(count(&one.stdout, b"\"line\"") > 1_000);
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stderr, two.stderr);
}

/// The torch XML recording, cut after 24 MiB (an excerpt of a real, deep log: 40-frame
/// stacks, templates, origins), read on two threads: the sequential reader's items.
#[test]
fn leaky_ext_xml_prefix_read_on_several_threads() {
    use std::io::Write as _;
    let Some(path) = shared_fixture(
        "fixtures/torch/leaky-ext.xml.gz",
        "leaky_ext_xml_prefix_read_on_several_threads",
    ) else {
        return;
    };
    let mut data = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("open"))
        .take(24 << 20)
        .read_to_end(&mut data)
        .expect("gunzip");
    let (sequential, _) = read(&data);
    let mut file = tempfile::tempfile().expect("tempfile");
    file.write_all(&data).expect("write");
    for chunk in [256 << 10, 1 << 20] {
        let file = file.try_clone().expect("clone");
        // Lockstep: the share of chunks used is the guesses', not the scheduler's.
        let mut reader = vgsupp::logs::xml::parallel::ParallelXmlReader::with_schedule(
            file,
            "torch.xml",
            2,
            chunk,
            vgsupp::logs::parallel::Schedule::Lockstep,
        )
        .expect("parallel reader");
        let parallel: Vec<LogItem> = reader.by_ref().map(|i| i.expect("item")).collect();
        assert!(
            parallel == sequential,
            "chunks of {chunk}: {:?}",
            reader.stats()
        );
        let stats = reader.stats();
        assert!(
            stats.accepted + 2 >= stats.chunks - stats.empty,
            "chunks of {chunk}: {stats:?}"
        );
    }
}
