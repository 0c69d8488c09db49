//! The text reader end to end, on small logs and on the logs of `tests/data/logs/text`.

use super::state::{Spares, State};
use super::{LineSplitter, MAX_ERROR_LINES, MAX_LINE, TextReader};

mod announcements;
mod excerpts;
mod processes;
use crate::logs::Frame;
use crate::logs::record::{ErrorRecord, GenFrame, LogItem, Stack};
use crate::supp::kinds::Tool;
use crate::supp::model::LeakKind;

fn fun<'a>(f: &Frame<'a>) -> &'a [u8] {
    f.fun.unwrap_or(b"???")
}

pub(super) fn read(log: &str) -> Vec<LogItem> {
    read_bytes(log.as_bytes())
}

pub(super) fn read_bytes(log: &[u8]) -> Vec<LogItem> {
    TextReader::new(log)
        .map(|r| r.expect("in-memory read"))
        .collect()
}

pub(super) fn errors(items: &[LogItem]) -> Vec<&ErrorRecord> {
    items.iter().filter_map(LogItem::as_error).collect()
}

pub(super) fn warnings(items: &[LogItem]) -> Vec<(u64, &str)> {
    items.iter().filter_map(LogItem::as_warning).collect()
}

const MC: &str = "\
==10== Memcheck, a memory error detector
==10== Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.
==10== Using Valgrind-3.19.0-8d3c8034b8-20220411 and LibVEX; rerun with -h for copyright info
==10== Command: ./errs a b
==10== Parent PID: 9
==10== 
--10-- 
--10-- Valgrind options:
--10--    -v
--10--    --gen-suppressions=all
--10-- Contents of /proc/version:
--10-- Reading suppressions file: my.supp
==10== Invalid read of size 4
==10==    at 0x10945E: main (errs.cpp:24)
==10==  Address 0x4d6dca8 is 0 bytes after a block of size 40 alloc'd
==10==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==10==    by 0x109455: main (errs.cpp:23)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:main
}
program output here
==10== Thread 2:
==10== Syscall param write(buf) points to uninitialised byte(s)
==10==    at 0x4B6D350: write (write.c:26)
==10==  Uninitialised value was created by a heap allocation
==10==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Param
   write(buf)
   fun:write
}
==10== 64 (32 direct, 32 indirect) bytes in 1 blocks are definitely lost in loss record 7 of 9
==10==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)
==10==    by 0x109639: main (errs.cpp:45)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Leak
   match-leak-kinds: definite
   fun:malloc
   fun:main
}
==10== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 1 from 1)
==10== 
==10== 1 errors in context 1 of 2:
==10== Thread 1:
==10== Invalid read of size 4
==10==    at 0x10945E: main (errs.cpp:24)
==10== 
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:main
}
--10-- 
--10-- used_suppression:      1 my rule: x my.supp:3
==10== 
==10== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 1 from 1)
";

#[test]
fn memcheck_log() {
    let items = read(MC);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    let LogItem::Preamble(pre) = &items[0] else {
        panic!("preamble first: {:?}", items[0])
    };
    assert_eq!(pre.pid, Some(10));
    assert_eq!(pre.ppid, Some(9));
    assert_eq!(pre.tool, Some(Tool::Memcheck));
    assert_eq!(pre.valgrind_version.as_deref(), Some("3.19.0"));
    assert_eq!(pre.command.as_deref(), Some("./errs a b"));
    assert_eq!(pre.options, ["-v", "--gen-suppressions=all"]);
    assert!(
        matches!(&items[1], LogItem::SuppressionFile { pid: Some(10), path } if path == b"my.supp")
    );

    let errs = errors(&items);
    assert_eq!(errs.len(), 3);
    let e = errs[0];
    assert_eq!(
        (e.kind.as_str(), e.size, e.line, e.tid),
        ("Addr4", Some(4), 13, Some(1))
    );
    assert_eq!(e.stack.len(), 1);
    assert_eq!(e.aux.len(), 1);
    assert_eq!(e.aux[0].stack.len(), 2);
    assert!(!e.aux[0].origin);
    let sup = e.suppression.as_ref().expect("block");
    assert_eq!(sup.kind_line, b"Memcheck:Addr4");
    assert_eq!(sup.frames.to_vec(), [GenFrame::Fun(b"main")]);

    let e = errs[1];
    assert_eq!((e.kind.as_str(), e.tid), ("Param", Some(2)));
    assert_eq!(e.param.as_deref(), Some(&b"write(buf)"[..]));
    assert!(e.aux[0].origin);
    assert_eq!(
        e.suppression.as_ref().and_then(|s| s.extra.as_deref()),
        Some(&b"write(buf)"[..])
    );

    let e = errs[2];
    assert_eq!(e.kind, "Leak");
    let lr = e.leak.expect("loss record");
    assert_eq!(
        (lr.kind, lr.bytes, lr.blocks, lr.index, lr.total),
        (LeakKind::Definite, 64, 1, 7, 9)
    );

    let sums: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::Summary(s) => Some(*s),
            _ => None,
        })
        .collect();
    assert_eq!(sums.len(), 2);
    assert_eq!(
        (
            sums[0].errors,
            sums[0].contexts,
            sums[0].suppressed,
            sums[0].suppressed_contexts
        ),
        (3, 3, 1, 1)
    );
    let used: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::Used(u) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(used.len(), 1);
    assert_eq!(used[0].name, b"my rule: x");
    assert_eq!(used[0].file.as_deref(), Some(&b"my.supp"[..]));
}

#[test]
fn interleaved_processes_and_blocks() {
    let log = "\
==1== Invalid read of size 4
==2== Conditional jump or move depends on uninitialised value(s)
==1==    at 0x1: rd (fork.c:5)
==2==    at 0x2: cond (fork.c:6)
==1== 
==2==    by 0x3: main (fork.c:11)
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:rd
}
==2== 
{
   <insert_a_suppression_name_here>
   Memcheck:Cond
   fun:cond
   fun:main
}
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    let errs = errors(&items);
    assert_eq!(errs.len(), 2);
    assert_eq!((errs[0].pid, errs[0].kind.as_str()), (Some(1), "Addr4"));
    assert_eq!(
        errs[0].suppression.as_ref().map(|s| s.frames.len()),
        Some(1)
    );
    assert_eq!(
        (errs[1].pid, errs[1].kind.as_str(), errs[1].stack.len()),
        (Some(2), "Cond", 2)
    );
    assert_eq!(
        errs[1].suppression.as_ref().map(|s| s.frames.len()),
        Some(2)
    );
}

#[test]
fn ci_lead_and_nesting() {
    let log = "\
2026-11-30T10:00:00.1234567Z ==5== Invalid write of size 8
2026-11-30T10:00:00.1234568Z ==5==    at 0x1: f (a.c:1)
2026-11-30T10:00:00.1234569Z ==5== 
2026-11-30T10:00:00.1234570Z {
2026-11-30T10:00:00.1234571Z    <insert_a_suppression_name_here>
2026-11-30T10:00:00.1234572Z    Memcheck:Addr8
2026-11-30T10:00:00.1234573Z    fun:f
2026-11-30T10:00:00.1234574Z }
>==6== Invalid read of size 1
>==6==    at 0x2: g (b.c:2)
>==6== 
{
   <insert_a_suppression_name_here>
   Memcheck:Addr1
   fun:g
}
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    let errs = errors(&items);
    assert_eq!(errs.len(), 2);
    assert_eq!(errs[0].kind, "Addr8");
    assert_eq!(
        errs[0].suppression.as_ref().map(|s| s.frames.to_vec()),
        Some(vec![GenFrame::Fun(b"f")])
    );
    assert_eq!((errs[1].pid, errs[1].kind.as_str()), (Some(6), "Addr1"));
    assert!(errs[1].suppression.is_some());
}

#[test]
fn truncated_log() {
    let log = "\
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== 
==3== Invalid write of size 4
==3==    at 0x1: f (a.c:2)
==3==    by 0x";
    // The error the log ends inside is kept with the frames read (the last frame line is
    // cut short), marked truncated; one warning, at the last line.
    let items = read(log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 2);
    assert_eq!((errs[0].kind.as_str(), errs[0].truncated), ("Addr4", false));
    let cut = errs[1];
    assert_eq!(
        (cut.kind.as_str(), cut.line, cut.truncated),
        ("Addr4", 4, true)
    );
    assert_eq!(cut.stack.len(), 1);
    assert!(cut.aux.is_empty(), "{:?}", cut.aux);
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, 6);
    assert!(
        w[0].1
            .contains("inside error `Invalid write of size 4` of process 3: kept with the frames read, marked truncated"),
        "{w:?}"
    );

    // A header without any frame is no error to keep.
    let items = read("==3== Invalid read of size 4\n");
    assert!(errors(&items).is_empty());
    assert!(warnings(&items)[0].1.contains("no frame was read: dropped"));

    // Cut in its aux stack: kept, its own stack complete.
    let items = read(
        "==3== Invalid read of size 4\n==3==    at 0x1: f (a.c:1)\n==3==  Address 0x0 is 0 bytes inside a block of size 4 alloc'd\n==3==    at 0x2: g (a.c:2)\n",
    );
    let e = errors(&items)[0];
    assert_eq!(
        (e.truncated, e.stack.len(), e.aux[0].stack.len()),
        (false, 1, 1)
    );

    // Several processes cut: one warning.
    let items = read(
        "==3== Invalid read of size 4\n==4== Invalid read of size 8\n==3==    at 0x1: f (a.c:1)\n==4==    at 0x1: f (a.c:1)\n",
    );
    assert_eq!(errors(&items).len(), 2);
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].1.starts_with("the log ends inside 2 errors"), "{w:?}");

    // An unrelated line cuts an error: kept, marked truncated, warned at the error.
    let items = read(
        "==3== Memcheck, a memory error detector\n==3== Command: x\n==3== \n==3== Invalid read of size 4\n==3==    at 0x1: f (a.c:1)\n==3== HEAP SUMMARY:\n",
    );
    let e = errors(&items)[0];
    assert!(e.truncated);
    let w = warnings(&items);
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[0].0, 4);
    // The log has a preamble and ends without a summary.
    assert_eq!(w[1].0, 6);
    assert!(w[1].1.contains("final summary of process 3"), "{w:?}");
    assert!(
        w[0].1
            .contains("cut short (an unrelated line interrupts it)")
    );

    let items = read("==3== Invalid read of size 4\n==3==    at 0x1: f (a.c:1)\n==3== \n{\n   x\n");
    assert_eq!(errors(&items).len(), 1);
    assert_eq!(warnings(&items).len(), 1);
}

#[test]
fn garbage_and_long_lines() {
    let mut log = b"==3== Invalid read of size 4\n==3==    at 0x1: f (a.c:1)\n==3== \n".to_vec();
    log.extend_from_slice(b"\0\0\0\0\x01\x02\n\0\0\0\n\xff\xfe\0\n");
    log.extend_from_slice(b"==3== Invalid read of size 2\n==3==    at 0x1: f (a.c:1)\n==3== \n");
    log.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
    log.extend_from_slice(
        b"\n==3== Invalid read of size 8\n==3==    at 0x1: \xff\xfe (a.c:1)\n==3== \n",
    );
    let items = read_bytes(&log);
    let errs = errors(&items);
    assert_eq!(
        errs.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
        ["Addr4", "Addr2", "Addr8"]
    );
    assert_eq!(
        errs[2].stack.get(0).expect("frame").fun,
        Some(&b"\xff\xfe"[..])
    );
    let w = warnings(&items);
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[0].0, 4);
    assert_eq!(w[1].0, 10);
}

#[test]
fn helgrind_multi_part_error() {
    let log = "\
==7== Helgrind, a thread error detector
==7== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info
==7== Command: ./race
==7== 
==7== ---Thread-Announcement------------------------------------------
==7== 
==7== Thread #2 was created
==7==    at 0x496CB3F: clone (clone.S:76)
==7== 
==7== ----------------------------------------------------------------
==7== 
==7== Possible data race during read of size 4 at 0x10C080 by thread #1
==7== Locks held: none
==7==    at 0x109229: main (race.c:11)
==7== 
==7== This conflicts with a previous write of size 4 by thread #2
==7== Locks held: none
==7==    at 0x1091AA: worker (race.c:6)
==7==  Address 0x10c080 is 0 bytes inside data symbol \"counter\"
==7== 
{
   <insert_a_suppression_name_here>
   Helgrind:Race
   fun:main
}
==7== ----------------------------------------------------------------
==7== 
==7== Possible data race during write of size 4 at 0x10C02C by thread #2
==7== Locks held: none
==7==    at 0x109178: worker (in /tmp/hg/race)
==7==    by 0x484C7D6: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7==    by 0x48ED1F4: start_thread (pthread_create.c:442)
==7==    by 0x496CB4F: clone (clone.S:100)
==7== 
==7== This conflicts with a previous write of size 4 by thread #1
==7== Locks held: none
==7==    at 0x1091B2: main (in /tmp/hg/race)
==7==  Address 0x10c02c is 0 bytes inside data symbol \"shared\"
==7== 
{
   <insert_a_suppression_name_here>
   Helgrind:Race
   fun:worker
   obj:/usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so
   fun:start_thread
   fun:clone
}
==7== ----------------------------------------------------------------
==7== 
==7== Thread #1 unlocked an invalid lock at 0x524B1D0
==7==    at 0x4849C86: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7== 
==7== ERROR SUMMARY: 2 errors from 2 contexts (suppressed: 0 from 0)
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    let errs = errors(&items);
    assert_eq!(errs.len(), 3);
    let e = errs[0];
    assert_eq!((e.kind.as_str(), e.tid, e.line), ("Race", Some(1), 12));
    assert_eq!(e.stack.len(), 1);
    assert_eq!(fun(&e.stack.get(0).expect("frame")), b"main");
    // `Locks held:` before the stack describes the access (XML has no such line); the
    // conflicting access and the address are the aux stacks, as in XML.
    let aux: Vec<(&str, usize)> = e
        .aux
        .iter()
        .map(|a| (a.what.as_str(), a.stack.len()))
        .collect();
    assert_eq!(
        aux,
        [
            (
                "This conflicts with a previous write of size 4 by thread #2\nLocks held: none",
                1
            ),
            (
                "Address 0x10c080 is 0 bytes inside data symbol \"counter\"",
                0
            ),
        ]
    );
    assert!(e.suppression.is_some());
    // The race in a thread: all four frames are the error's own, aligned with its block
    // (the frames after the first once went to a `Locks held` aux stack).
    let w = errs[1];
    let frames: Vec<(&[u8], Option<&[u8]>)> = w.stack.iter().map(|f| (fun(&f), f.obj)).collect();
    assert_eq!(
        frames,
        [
            (&b"worker"[..], Some(&b"/tmp/hg/race"[..])),
            (
                b"???",
                Some(b"/usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so")
            ),
            (b"start_thread", None),
            (b"clone", None),
        ]
    );
    assert_eq!(w.suppression.as_ref().map(|b| b.frames.len()), Some(4));
    assert_eq!(
        w.aux.iter().map(|a| a.stack.len()).collect::<Vec<_>>(),
        [1, 0]
    );
    assert_eq!(
        (errs[2].kind.as_str(), errs[2].tool),
        ("UnlockBogus", Some(Tool::Helgrind))
    );
}

#[test]
fn generic_and_block_kinds() {
    // An unknown DRD message followed by a stack is a GenericErr; the block's kind wins.
    let log = "\
==8== drd, a thread error detector
==8== Command: ./x
==8== 
==8== Something odd happened here
==8==    at 0x1: f (a.c:1)
==8== 
{
   <insert_a_suppression_name_here>
   drd:CondErr
   fun:f
}
==8== Something else
==8==    at 0x1: f (a.c:1)
==8== 
";
    let items = read(log);
    // This process prints blocks, so the last error's missing block is worth a word (and
    // the log, cut there, has no summary either).
    let w = warnings(&items);
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[0].0, 12);
    assert!(
        w[1].1
            .starts_with("the log ends before Valgrind's final summary of process 8")
    );
    let errs = errors(&items);
    assert_eq!(errs.len(), 2);
    assert_eq!((errs[0].kind.as_str(), errs[0].line), ("CondErr", 4));
    assert_eq!(errs[0].what, "Something odd happened here");
    assert_eq!(errs[1].kind, "GenericErr");

    // Memcheck: an unknown header gets an empty kind and a warning.
    let items = read(
        "==8== Memcheck, a memory error detector\n==8== Command: x\n==8== \n==8== Brand new error\n==8==    at 0x1: f (a.c:1)\n==8== \n==8== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)\n",
    );
    assert_eq!(errors(&items)[0].kind, "");
    assert_eq!(warnings(&items).len(), 1);
}

#[test]
fn fatal_lines() {
    let log = "\
==4== Memcheck, a memory error detector
==4== Command: /bin/true
==4== 
location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\"
==4== FATAL: in suppressions file \"bad.supp\" near line 4:
==4==    location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\"
==4== exiting now.
valgrind: m_mallocfree.c:303 (get_bszB_as_is): Assertion 'bszB_lo == bszB_hi' failed.
valgrind: Heap block lo/hi size mismatch: lo = 96, hi = 0.
This is probably caused by your program erroneously writing past the
host stacktrace:
==4==    at 0x58047D4A: show_sb_profile (m_mallocfree.c:1)
";
    let items = read(log);
    let fatals: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::Fatal { pid, line, message } => Some((*pid, *line, message.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(fatals.len(), 2, "{items:?}");
    assert_eq!(fatals[0].0, Some(4));
    assert_eq!(fatals[0].1, 5);
    assert!(
        fatals[0].2.starts_with(
            "FATAL: in suppressions file \"bad.supp\" near line 4:\nlocation should be"
        )
    );
    assert_eq!(fatals[1].0, None);
    assert_eq!(fatals[1].1, 8);
    assert!(fatals[1].2.contains("\nHeap block lo/hi size mismatch"));
    assert!(errors(&items).is_empty());
}

#[test]
fn exec_restarts_a_process() {
    let log = "\
==9== Memcheck, a memory error detector
==9== Command: ./a
==9== 
==9== Memcheck, a memory error detector
==9== Command: ./b
==9== 
==9== Invalid read of size 4
==9==    at 0x1: f (a.c:1)
==9== 
";
    let items = read(log);
    let cmds: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::Preamble(p) => p.command.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(cmds, ["./a", "./b"]);
    assert_eq!(errors(&items).len(), 1);
}

#[test]
fn summaries_after_an_error_are_not_part_of_it() {
    // No preamble (-q), so the tool is unknown: the leak summary's indented lines
    // must not continue the last error the way Helgrind's parts do.
    let log = "\
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== 
==3== LEAK SUMMARY:
==3==    definitely lost: 4 bytes in 1 blocks
==3== end-marker
==3== 
";
    let items = read(log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].aux.is_empty(), "{:?}", errs[0].aux);

    // --error-markers: the end marker comes between the blank line and the block.
    let log = "\
==3== begin-marker
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== 
==3== end-marker
{
   <insert_a_suppression_name_here>
   Memcheck:Addr4
   fun:f
}
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    assert!(errors(&items)[0].suppression.is_some());
}

#[test]
fn runaway_errors_are_dropped() {
    let mut log = String::from("==3== Invalid read of size 4\n");
    for _ in 0..(MAX_ERROR_LINES + 5) {
        log.push_str("==3==    by 0x1: f (a.c:1)\n");
    }
    log.push_str("==3== \n==3== Invalid read of size 2\n==3==    at 0x1: f (a.c:1)\n==3== \n");
    let items = read(&log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].kind, "Addr2");
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, 1);
}

#[test]
fn io_errors_name_the_log() {
    struct Failing;
    impl std::io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("boom"))
        }
    }
    let mut r = TextReader::new(std::io::BufReader::new(Failing)).with_name("x.log");
    let err = r.next().expect("an item").expect_err("an error");
    assert_eq!(err.to_string(), "x.log: boom");
    assert!(r.next().is_none());
}

/// The items of `bytes` read by `State::line` (with its fast paths) or by
/// `State::any_line` alone, and how many lines took a fast path.
fn read_by(bytes: &[u8], fast_paths: bool) -> (Vec<LogItem>, usize) {
    let mut st = State::new("log");
    let mut items = Vec::new();
    let mut fast = 0;
    let mut splitter = LineSplitter::default();
    let mut input = bytes;
    loop {
        let eof = splitter
            .pump(&mut input, |line, truncated| {
                if fast_paths
                    && !truncated
                    && (st.block_frame_line(line) || st.stack_frame_line(line))
                {
                    fast += 1;
                } else {
                    st.any_line(line, truncated);
                }
                st.drain_into(&mut items);
                true
            })
            .expect("in-memory read");
        if eof {
            break;
        }
    }
    st.finish();
    st.drain_into(&mut items);
    (items, fast)
}

fn test_log(name: &str) -> Vec<u8> {
    use std::io::Read as _;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    let raw = std::fs::read(&path).expect("read log");
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return raw;
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(raw.as_slice())
        .take(8 << 20)
        .read_to_end(&mut out)
        .expect("gunzip");
    out
}

#[test]
fn fast_paths_read_like_the_general_one() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/logs/text");
    let mut logs: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log") || n.ends_with(".txt") || n.ends_with(".gz"))
        .map(|n| {
            let bytes = test_log(&format!("tests/data/logs/text/{n}"));
            (n, bytes)
        })
        .collect();
    for p in ["basic", "cxx", "libuse"] {
        let name = format!("tests/data/match/{p}/baseline.txt");
        let bytes = test_log(&name);
        logs.push((name, bytes));
    }
    // Variants: CRLF line ends; lines dropped, doubled and cut (a fixed seed); an
    // error and a block at and past their length limits.
    let mut variants = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for (name, bytes) in &logs {
        let crlf: Vec<u8> = bytes
            .split_inclusive(|b| *b == b'\n')
            .flat_map(|l| match l.strip_suffix(b"\n") {
                Some(l) => [l, b"\r\n"].concat(),
                None => l.to_vec(),
            })
            .collect();
        variants.push((format!("{name} (CRLF)"), crlf));
        let mut damaged = Vec::new();
        for l in bytes.split_inclusive(|b| *b == b'\n') {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            match seed % 40 {
                0 => {}
                1 => damaged.extend_from_slice(&[l, l].concat()),
                2 => damaged.extend_from_slice(&l[..l.len() / 2]),
                _ => damaged.extend_from_slice(l),
            }
        }
        variants.push((format!("{name} (damaged)"), damaged));
    }
    for frames in [
        MAX_ERROR_LINES - 2,
        MAX_ERROR_LINES - 1,
        MAX_ERROR_LINES + 3,
    ] {
        let mut log = String::from("==7== Invalid read of size 4\n");
        for i in 0..frames {
            log.push_str(&format!("==7==    by 0x{i:X}: f (a.c:{i})\n"));
        }
        log.push_str("==7== \n{\n   x\n   Memcheck:Addr4\n");
        for i in 0..frames / 2 {
            log.push_str(&format!("   fun:f{i}\n"));
        }
        log.push_str("}\n");
        variants.push((format!("{frames} frames"), log.into_bytes()));
    }
    logs.extend(variants);
    let mut fast_total = 0;
    for (name, bytes) in &logs {
        let (general, none) = read_by(bytes, false);
        assert_eq!(none, 0);
        let (fast, n) = read_by(bytes, true);
        fast_total += n;
        assert_eq!(fast.len(), general.len(), "{name}: item count");
        for (i, (f, g)) in fast.iter().zip(&general).enumerate() {
            assert_eq!(f, g, "{name}: item {i}");
        }
    }
    // Not vacuous: most lines of the big logs took a fast path.
    let leaky = test_log("tests/data/logs/text/leaky-ext.txt.gz");
    let lines = leaky.iter().filter(|b| **b == b'\n').count();
    let (_, fast) = read_by(&leaky, true);
    assert!(fast * 10 > lines * 8, "{fast} of {lines} lines");
    assert!(fast_total > fast);
}

#[test]
fn spares_keep_the_storage_of_errors_handed_back() {
    let log = "==7== Invalid read of size 4\n==7==    at 0x1: f (a.c:1)\n==7==    by 0x2: g (b.c:2)\n==7== \n{\n   x\n   Memcheck:Addr4\n   fun:f\n   fun:g\n}\n";
    let mut items = read(&log.repeat(3));
    items.push(LogItem::Warning {
        line: 1,
        message: "not an error".to_owned(),
        gap: None,
    });
    items.push(LogItem::Error(ErrorRecord {
        stack: Stack::with_capacity(Spares::MAX_KEPT_FRAMES + 1, 0),
        ..ErrorRecord::default()
    }));
    let mut spares = Spares::default();
    spares.recycle(&mut items);
    assert!(items.is_empty());
    // Three stacks and blocks kept, emptied, with their storage; the huge one is not.
    assert_eq!((spares.stacks.len(), spares.frames.len()), (3, 3));
    assert!(
        spares
            .stacks
            .iter()
            .all(|s| s.is_empty() && s.capacity().0 >= 2)
    );
    assert!(
        spares
            .frames
            .iter()
            .all(|g| g.is_empty() && g.capacity().1 >= 2)
    );
    // A state given them reads its next errors into them, without new stacks.
    let mut st = State::new("log");
    st.give_spares(spares);
    st.line(b"==7== Invalid read of size 4", false);
    assert_eq!(st.spares.stacks.len(), 2);
    st.line(b"==7==    at 0x1: f (a.c:1)", false);
    assert_eq!(
        st.procs[0].cur.as_ref().map(|c| c.rec.stack.to_vec()),
        Some(vec![Frame {
            ip: Some(1),
            fun: Some(b"f"),
            file: Some(b"a.c"),
            line: Some(1),
            ..Frame::default()
        }])
    );
    // Never more than MAX_KEPT.
    let mut many = read(&log.repeat(Spares::MAX_KEPT + 5));
    let mut spares = st.take_spares();
    spares.recycle(&mut many);
    assert_eq!(spares.stacks.len(), Spares::MAX_KEPT);
    assert_eq!(spares.frames.len(), Spares::MAX_KEPT);
    assert_eq!(st.take_spares().stacks.len(), 0, "taken out");
}
