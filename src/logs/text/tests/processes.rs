//! Processes: where their output ends (and their state is released), the listing after
//! the summary, objects loaded and unloaded, Valgrind's error limit.

use super::{errors, read, warnings};
use crate::logs::record::LogItem;
use crate::logs::text::state::State;

/// The items of `log` that are neither errors nor warnings, as short strings.
fn events(items: &[LogItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            LogItem::Preamble(p) => Some(format!("preamble {:?}", p.pid)),
            LogItem::Summary(s) => Some(format!("summary {:?}", s.pid)),
            LogItem::ProcessEnd { pid } => Some(format!("end {pid:?}")),
            LogItem::ContextCount {
                pid,
                count,
                error_line,
            } => Some(format!("count {pid:?} {count} @{error_line}")),
            LogItem::Error(e) => Some(format!("error {:?} @{}", e.pid, e.line)),
            _ => None,
        })
        .collect()
}

fn run(pid: u32, hint: bool) -> String {
    let mut log = format!(
        "=={pid}== Memcheck, a memory error detector\n=={pid}== Using Valgrind-3.19.0 and \
         LibVEX; rerun with -h for copyright info\n=={pid}== Command: ./t\n=={pid}== \n\
         =={pid}== Invalid read of size 4\n=={pid}==    at 0x1: f (a.c:1)\n=={pid}== \n"
    );
    if hint {
        log.push_str(&format!(
            "=={pid}== For lists of detected and suppressed errors, rerun with: -s\n"
        ));
    }
    log.push_str(&format!(
        "=={pid}== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)\n"
    ));
    log
}

#[test]
fn a_process_ends_after_its_last_summary() {
    // Without a listing (the `-s` hint): the summary is the last line.
    let log = format!("{}{}", run(5, true), run(6, true));
    let items = read(&log);
    assert_eq!(
        events(&items),
        [
            "preamble Some(5)",
            "error Some(5) @5",
            "summary Some(5)",
            "end Some(5)",
            "preamble Some(6)",
            "error Some(6) @14",
            "summary Some(6)",
            "end Some(6)",
        ]
    );
    // Without the hint (`-v` with nothing listed, or `-q`): it ends with the log.
    let items = read(&run(5, false));
    assert_eq!(
        events(&items).last().map(String::as_str),
        Some("end Some(5)")
    );
    assert!(warnings(&items).is_empty());
}

#[test]
fn listed_errors_count_the_errors_shown() {
    let log = "\
==9== Memcheck, a memory error detector
==9== Command: ./t
==9== 
==9== Invalid read of size 4
==9==    at 0x1: f (a.c:1)
==9==    by 0x2: main (a.c:9)
==9== 
==9== Invalid read of size 4
==9==    at 0x1: f (a.c:1)
==9==    by 0x3: main (a.c:10)
==9== 
==9== ERROR SUMMARY: 7 errors from 2 contexts (suppressed: 1 from 1)
==9== 
==9== 2 errors in context 1 of 2:
==9== Invalid read of size 4
==9==    at 0x1: f (a.c:1)
==9==    by 0x3: main (a.c:10)
==9== 
==9== 
==9== 5 errors in context 2 of 2:
==9== Invalid read of size 4
==9==    at 0x1: f (a.c:1)
==9==    by 0x2: main (a.c:9)
==9== 
==9== 1 errors (suppressed by my rule) in context 3 of 3:
==9== Invalid write of size 1
==9==    at 0x9: g (a.c:3)
==9== 
--9-- 
--9-- used_suppression:      1 my rule my.supp:3
==9== 
==9== ERROR SUMMARY: 7 errors from 2 contexts (suppressed: 1 from 1)
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    assert_eq!(
        events(&items),
        [
            "preamble Some(9)",
            "error Some(9) @4",
            "error Some(9) @8",
            "summary Some(9)",
            "count Some(9) 2 @8",
            "count Some(9) 5 @4",
            "summary Some(9)",
            "end Some(9)",
        ]
    );
}

#[test]
fn a_listing_without_the_errors_it_repeats() {
    // An excerpt that starts at the listing: the listed error is read, with its count.
    let log = "\
==826== 3 errors in context 1 of 14:
==826== Thread 11:
==826== Conditional jump or move depends on uninitialised value(s)
==826==    at 0x4B78450: ??? (in /usr/lib/libc.so.6)
==826==    by 0x41C677: ini_puts (minIni.c:837)
==826== 
";
    let items = read(log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert_eq!((errs[0].kind.as_str(), errs[0].tid), ("Cond", Some(11)));
    assert!(events(&items).contains(&"count Some(826) 3 @3".to_owned()));
    let w = warnings(&items);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].1
            .contains("repeats no error shown earlier in this log")
    );

    // The same listing cut short: matched on the frames read.
    let log = "\
==8== Invalid read of size 4
==8==    at 0x1: f (a.c:1)
==8==    by 0x2: main (a.c:9)
==8== 
==8== Invalid read of size 4
==8==    at 0x5: f (a.c:1)
==8==    by 0x2: main (a.c:9)
==8== 
==8== ERROR SUMMARY: 2 errors from 2 contexts (suppressed: 0 from 0)
==8== 
==8== 1 errors in context 1 of 2:
==8== Invalid read of size 4
==8==    at 0x5: f (a.c:1)
";
    let items = read(log);
    assert!(events(&items).contains(&"count Some(8) 1 @5".to_owned()));
    assert_eq!(errors(&items).len(), 2);
}

#[test]
fn a_forked_child_lists_what_it_inherited() {
    // The child (no preamble) lists the context its parent showed before fork(): nothing new.
    let log = "\
==1== Memcheck, a memory error detector
==1== Command: ./fork
==1== 
==1== Invalid read of size 4
==1==    at 0x1: f (a.c:1)
==1== 
==2== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)
==2== 
==2== 1 errors in context 1 of 1:
==2== Invalid read of size 4
==2==    at 0x1: f (a.c:1)
==2== 
==2== 
==2== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)
==1== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    assert_eq!(errors(&items).len(), 1);
    assert!(!events(&items).iter().any(|e| e.starts_with("count")));
}

#[test]
fn exec_and_the_end_of_the_log_end_processes() {
    let log = "\
==3== Memcheck, a memory error detector
==3== Command: ./a
==3== 
==3== Invalid read of size 4
==3==    at 0x1: f (a.c:1)
==3== Memcheck, a memory error detector
==3== Command: ./b
==3== 
==4== Invalid read of size 8
==4==    at 0x1: f (a.c:1)
==4== 
==3== Invalid read of size 2
==3==    at 0x1: f (a.c:1)
==3== 
";
    let items = read(log);
    assert_eq!(
        events(&items),
        [
            "preamble Some(3)",
            "error Some(3) @4",
            "end Some(3)",
            "preamble Some(3)",
            // At the end of the log, in the order the runs started (pending errors are
            // emitted then: no line of theirs followed their blank line).
            "error Some(3) @12",
            "end Some(3)",
            "error Some(4) @9",
            "end Some(4)",
        ]
    );
    // The error cut by the exec is kept and marked.
    assert!(errors(&items)[0].truncated);
}

#[test]
fn ended_processes_are_forgotten() {
    // 10,000 processes, each complete: the reader keeps none of them.
    let mut st = State::new("log");
    for pid in 0..10_000u32 {
        for line in run(100 + pid, true).lines() {
            st.line(line.as_bytes(), false);
        }
        let mut items = Vec::new();
        st.drain_into(&mut items);
        assert!(matches!(items.last(), Some(LogItem::ProcessEnd { .. })));
    }
    assert!(st.procs.is_empty() && st.by_pid.is_empty());
    assert!(st.after_blank.len() <= 16, "{}", st.after_blank.len());
    // A debug line of an ended process does not bring it back; a user line starts a new
    // run of its PID.
    st.line(b"--100-- memcheck GC: 1000 nodes", false);
    assert!(st.procs.is_empty());
    st.line(b"==100== Invalid read of size 4", false);
    assert_eq!(st.procs.len(), 1);
}

#[test]
fn before_3_15_a_run_without_v_has_one_summary() {
    let log = "\
==3== Memcheck, a memory error detector
==3== Using Valgrind-3.13.0 and LibVEX; rerun with -h for copyright info
==3== Command: ./a
==3== 
==3== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)
==4== Memcheck, a memory error detector
==4== Using Valgrind-3.13.0 and LibVEX; rerun with -h for copyright info
==4== Command: ./a
==4== 
--4-- Valgrind options:
--4--    -v
==4== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)
==4== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)
";
    let items = read(log);
    assert_eq!(
        events(&items),
        [
            "preamble Some(3)",
            "summary Some(3)",
            "end Some(3)",
            "preamble Some(4)",
            "summary Some(4)",
            "summary Some(4)",
            "end Some(4)",
        ]
    );
}

#[test]
fn objects_loaded_and_unloaded() {
    let log = "\
==5== Memcheck, a memory error detector
==5== Command: ./a
==5== 
--5-- Reading syms from /usr/lib/x86_64-linux-gnu/libm.so.6
--5-- Reading syms from /lib/ld-2.11.so (0x4000000)
--5-- Discarding syms at 0x62e0340-0x62f2003 in /usr/lib/x86_64-linux-gnu/libz.so.1.2.13 (have_dinfo 1)
--5-- Archiving syms at 0x4881230-0x48f43d8 in /opt/My App (x86)/libm.so.6 (have_dinfo 1)
--5-- Discarding syms at 0x5000-0x6000 in /usr/lib/libold.so due to munmap()
--5-- Discarding syms at 0xzz-0x6000 in /usr/lib/libold.so due to munmap()
";
    let items = read(log);
    let objects: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            LogItem::ObjectLoaded { pid, path } => {
                Some(format!("load {pid:?} {}", String::from_utf8_lossy(path)))
            }
            LogItem::ObjectUnloaded {
                pid,
                path,
                start,
                end,
            } => Some(format!(
                "unload {pid:?} {start:#x}-{end:#x} {}",
                String::from_utf8_lossy(path)
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        objects,
        [
            "load Some(5) /usr/lib/x86_64-linux-gnu/libm.so.6",
            "load Some(5) /lib/ld-2.11.so",
            "unload Some(5) 0x62e0340-0x62f2003 /usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
            "unload Some(5) 0x4881230-0x48f43d8 /opt/My App (x86)/libm.so.6",
            "unload Some(5) 0x5000-0x6000 /usr/lib/libold.so",
        ]
    );
    // The preamble comes first.
    assert!(matches!(items[0], LogItem::Preamble(_)));
}

#[test]
fn valgrind_stops_showing_errors() {
    let log = "\
==5== Invalid read of size 4
==5==    at 0x1: f (a.c:1)
==5== 
==5== More than 1000 different errors detected.  I'm not reporting any more.
==5== Final error counts will be inaccurate.  Go fix your program!
==5== Rerun with --error-limit=no to disable this cutoff.  Note
==5== that errors may occur in your program without prior warning from
==5== Valgrind, because errors are no longer being displayed.
==5== 
";
    let items = read(log);
    assert_eq!(errors(&items).len(), 1);
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, 4);
    assert!(
        w[0].1
            .contains("Valgrind stopped showing errors of process 5 here")
    );
}

#[test]
fn a_log_without_its_summary_says_so_once() {
    // A log still being written (or Valgrind killed): its preamble, an error, no summary.
    let unfinished = |pid: u32| {
        format!(
            "=={pid}== Memcheck, a memory error detector\n=={pid}== Command: ./t\n=={pid}== \n\
             =={pid}== Invalid read of size 4\n=={pid}==    at 0x1: f (a.c:1)\n=={pid}== \n"
        )
    };
    let items = read(&unfinished(5));
    assert_eq!(errors(&items).len(), 1);
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, 6, "at the last line");
    assert!(
        w[0].1.starts_with(
            "the log ends before Valgrind's final summary of process 5 (no last `ERROR SUMMARY`)"
        ) && w[0].1.contains("still being written")
            && w[0].1.ends_with("errors and counts may be incomplete"),
        "{w:?}"
    );
    // Once per log, however many processes it leaves open; a finished one is not counted.
    let log = format!("{}{}{}", unfinished(5), run(6, true), unfinished(7));
    let items = read(&log);
    let w = warnings(&items)
        .into_iter()
        .filter(|(_, m)| m.contains("final summary"))
        .collect::<Vec<_>>();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].1.contains("of 2 processes (the first: 5)"), "{w:?}");
    // Valgrind said why it stopped: no warning.
    let fatal = "==4== Memcheck, a memory error detector\n==4== Command: /bin/true\n==4== \n\
                 ==4== FATAL: in suppressions file \"bad.supp\" near line 4:\n\
                 ==4==    location should be \"...\"\n==4== exiting now.\n";
    assert!(
        warnings(&read(fatal)).is_empty(),
        "{:?}",
        warnings(&read(fatal))
    );
    let crashed = format!(
        "{}valgrind: m_mallocfree.c:303 (get_bszB_as_is): Assertion 'x' failed.\n",
        unfinished(5)
    );
    assert!(
        !warnings(&read(&crashed))
            .iter()
            .any(|(_, m)| m.contains("final summary"))
    );
    // An excerpt (no preamble) is not a log being written.
    let excerpt = "==5== Invalid read of size 4\n==5==    at 0x1: f (a.c:1)\n==5== \n";
    assert!(warnings(&read(excerpt)).is_empty());
}
