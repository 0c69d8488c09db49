//! Helgrind's thread and lock announcements are context of the error that follows them,
//! never errors (`ErrorRecord::context`).

use super::{errors, read, warnings};

/// What Helgrind 3.19 prints for a race between a thread holding lock `a` and `main`
/// holding lock `b` (tests/data/logs/text/helgrind-locks.log, shortened).
const RACE: &str = "\
==25184== Helgrind, a thread error detector
==25184== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info
==25184== Command: ./hg-locks
==25184== 
==25184== ---Thread-Announcement------------------------------------------
==25184== 
==25184== Thread #1 is the program's root thread
==25184== 
==25184== ---Thread-Announcement------------------------------------------
==25184== 
==25184== Thread #2 was created
==25184==    at 0x496CB3F: clone (clone.S:76)
==25184==    by 0x10923A: main (hg-locks.c:22)
==25184== 
==25184== ----------------------------------------------------------------
==25184== 
==25184==  Lock at 0x10C0C0 was first observed
==25184==    at 0x484976E: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==25184==    by 0x109253: main (hg-locks.c:24)
==25184==  Address 0x10c0c0 is 0 bytes inside data symbol \"b\"
==25184== 
==25184==  Lock at 0x10C080 : no stacktrace for first observation
==25184== 
==25184== Possible data race during read of size 4 at 0x10C060 by thread #1
==25184== Locks held: 1, at address 0x10C0C0
==25184==    at 0x109254: main (hg-locks.c:25)
==25184== 
==25184== This conflicts with a previous write of size 4 by thread #2
==25184== Locks held: 1, at address 0x10C080
==25184==    at 0x1091AD: locked_writer (hg-locks.c:11)
==25184==  Address 0x10c060 is 0 bytes inside data symbol \"counter\"
==25184== 
==25184== ----------------------------------------------------------------
==25184== 
==25184== Possible data race during write of size 4 at 0x10C060 by thread #1
==25184== Locks held: 1, at address 0x10C0C0
==25184==    at 0x10925D: main (hg-locks.c:25)
==25184== 
==25184== ERROR SUMMARY: 2 errors from 2 contexts (suppressed: 0 from 0)
";

#[test]
fn announcements_go_to_the_next_error() {
    let items = read(RACE);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    let errs = errors(&items);
    assert_eq!(errs.len(), 2, "{errs:#?}");
    let race = errs[0];
    assert_eq!((race.kind.as_str(), race.line), ("Race", 24));
    let context: Vec<(&str, usize)> = race
        .context
        .iter()
        .map(|c| (c.what.as_str(), c.stack.len()))
        .collect();
    assert_eq!(
        context,
        [
            ("Thread #1 is the program's root thread", 0),
            ("Thread #2 was created", 2),
            (
                "Lock at 0x10C0C0 was first observed\nAddress 0x10c0c0 is 0 bytes inside data \
                 symbol \"b\"",
                2
            ),
            ("Lock at 0x10C080 : no stacktrace for first observation", 0),
        ]
    );
    assert_eq!(
        race.context[1].stack.get(1).and_then(|f| f.fun),
        Some(&b"main"[..])
    );
    // The error's own stack and aux stacks are untouched by them.
    assert_eq!(race.stack.len(), 1);
    // (`Locks held:` before the stack is no aux stack: the conflict and the address are.)
    assert_eq!(race.aux.len(), 2);
    // Announced once: the next error has none.
    assert!(errs[1].context.is_empty());
}

#[test]
fn announcements_without_their_block_line() {
    // An excerpt that starts at `Thread #2 was created`, or a log whose tool is unknown (no
    // preamble): still context, never an error with an empty kind.
    let log = "\
==7== Thread #2 was created
==7==    at 0x496CB3F: clone (clone.S:76)
==7== 
==7==  Lock at 0x10C0C0 was first observed
==7==    at 0x484976E: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7== 
==7== Thread #1 unlocked a not-locked lock at 0x10C0C0
==7==    at 0x4849C86: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7==    by 0x1092DD: main (race.c:19)
==7== 
";
    let items = read(log);
    assert!(warnings(&items).is_empty(), "{:?}", warnings(&items));
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].kind, "UnlockUnlocked");
    assert_eq!(
        errs[0]
            .context
            .iter()
            .map(|c| c.stack.len())
            .collect::<Vec<_>>(),
        [1, 1]
    );
}

#[test]
fn a_lock_announced_inside_an_error_stays_an_aux_stack() {
    // After the error's header, `Lock at … was first observed` is part of the error.
    let log = "\
==7== Helgrind, a thread error detector
==7== Command: ./race
==7== 
==7== Thread #1 unlocked a not-locked lock at 0x10C0A0
==7==    at 0x4849C86: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7==  Lock at 0x10C0A0 was first observed
==7==    at 0x484976E: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64-linux.so)
==7== 
";
    let errs_items = read(log);
    let errs = errors(&errs_items);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].context.is_empty());
    assert_eq!(errs[0].aux[0].what, "Lock at 0x10C0A0 was first observed");
    assert_eq!(errs[0].aux[0].stack.len(), 1);
}

#[test]
fn announcements_before_a_summary_are_dropped() {
    let log = "\
==7== Thread #2 was created
==7==    at 0x496CB3F: clone (clone.S:76)
==7== 
==7== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)
==7== Invalid read of size 4
==7==    at 0x1: f (a.c:1)
==7== 
";
    let items = read(log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    assert!(errs[0].context.is_empty());
}
