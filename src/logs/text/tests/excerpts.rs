//! Excerpts as people paste them into issues: cut anywhere, prefixes lost or damaged,
//! indented, decorated, starting inside a stack.

use super::{errors, read, warnings};

#[test]
fn a_header_that_lost_its_prefix() {
    // The header line alone lost its prefix (a CI time stamp precedes the others).
    let log = "\
Syscall param write(buf) points to uninitialised byte(s)
04:47:36 ==1635==    at 0x3D6980E6FD: ??? (in /lib64/libpthread-2.12.so)
04:47:36 ==1635==    by 0x7B811C2: send_bytes (usock_sendrecv.c:52)
";
    let items = read(log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 1);
    let e = errs[0];
    assert_eq!((e.kind.as_str(), e.pid, e.line), ("Param", Some(1635), 1));
    assert_eq!(e.param.as_deref(), Some(&b"write(buf)"[..]));
    assert_eq!((e.stack.len(), e.truncated), (2, true));

    // A damaged prefix still names the process.
    let log = "=11345== Invalid read of size 1\n==11345==    at 0x47CC63: subtype_dealloc (typeobject.c:1343)\n";
    let errs_items = read(log);
    let e = errors(&errs_items)[0];
    assert_eq!((e.kind.as_str(), e.pid), ("Addr1", Some(11345)));

    // Another process's frame does not take it.
    let log = "=11345== Invalid read of size 1\n==7==    at 0x47CC63: subtype_dealloc (typeobject.c:1343)\n";
    let items = read(log);
    assert!(errors(&items).is_empty());
    assert_eq!(warnings(&items).len(), 1, "the orphan frame");
}

#[test]
fn lines_without_any_prefix() {
    let log = "\
```
Conditional jump or move depends on uninitialised value(s)
   at 0x4A66154: tok_get_fstring_mode (/home/runner/work/Parser/tokenizer.c:2705)
   by 0x4A63925: tok_get (/home/runner/work/Parser/tokenizer.c:2857)

Invalid read of size 8
   at 0x1: f (a.c:1)
 Address 0x0 is 8 bytes after a block of size 16 alloc'd
   at 0x2: malloc (vg_replace_malloc.c:381)
```
";
    let items = read(log);
    let errs = errors(&items);
    assert_eq!(errs.len(), 2, "{items:#?}");
    assert_eq!((errs[0].kind.as_str(), errs[0].pid), ("Cond", None));
    assert_eq!((errs[0].stack.len(), errs[0].truncated), (2, false));
    assert_eq!(errs[1].kind, "Addr8");
    assert_eq!((errs[1].stack.len(), errs[1].aux[0].stack.len()), (1, 1));
    // The closing fence ends the second error; its own stack was complete.
    assert!(!errs[1].truncated);

    // A poster's abbreviation without addresses is no error.
    let log = "Invalid read of size 8\n   at jit_alloc (jit.c:12)\n   by _PyJIT_Compile\n";
    assert!(errors(&read(log)).is_empty());
    // Nor is a header-like line of program output alone.
    assert!(errors(&read("Invalid read of size 8\nsomething else\n")).is_empty());
}

#[test]
fn indented_quoted_and_decorated() {
    // A Markdown code block (four spaces), a quote, bold inside a header.
    let log = "\
    ==29308== Use of uninitialised value of size 8
    ==29308==    at 0x4E6C623: tolower (ctype.c:46)
> ==23733== 16 bytes in 1 blocks are still reachable in loss record 504 of 22,149
> ==23733==    at 0x4C2FB55: calloc (in /usr/lib/valgrind/vgpreload_memcheck-amd64-linux.so)

==209== **35,580,804 (472 direct, 35,580,332 indirect) bytes in 1 blocks** are definitely lost in loss record 4,810 of 4,817
==209==    at 0x483BE63: operator new(unsigned long) (in /usr/lib/x86_64-linux-gnu/valgrind/vgpreload_memcheck-amd64-linux.so)
";
    let items = read(log);
    let errs = errors(&items);
    let kinds: Vec<(&str, Option<u32>, usize)> = errs
        .iter()
        .map(|e| (e.kind.as_str(), e.pid, e.stack.len()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("Value8", Some(29308), 1),
            ("Leak", Some(23733), 1),
            ("Leak", Some(209), 1)
        ]
    );
    let lr = errs[2].leak.expect("a loss record");
    assert_eq!((lr.bytes, lr.index, lr.total), (35_580_804, 4810, 4817));
    assert_eq!(
        errs[2].what,
        "35,580,804 (472 direct, 35,580,332 indirect) bytes in 1 blocks are definitely lost in \
         loss record 4,810 of 4,817"
    );
    assert!(errs.iter().all(|e| e.truncated));
}

#[test]
fn starting_inside_a_stack() {
    let log = "\
==31== 
==31==    by 0x5147832: ??? (in /usr/lib/x86_64-linux-gnu/libcuda.so.384.130)
==31==    by 0x50EAB09: ??? (in /usr/lib/x86_64-linux-gnu/libcuda.so.384.130)
==31== 
==31== 32 bytes in 1 blocks are still reachable in loss record 507 of 22,149
==31==    at 0x4C2FB55: calloc (in /usr/lib/valgrind/vgpreload_memcheck-amd64-linux.so)
==31== 
";
    let items = read(log);
    assert_eq!(errors(&items).len(), 1);
    let w = warnings(&items);
    assert_eq!(w.len(), 1, "one warning for the run of frames: {w:?}");
    assert_eq!(w[0].0, 2);
    assert!(w[0].1.contains("the log starts inside a"));
}

#[test]
fn frames_after_an_errors_blank_line() {
    // A blank line inserted inside a stack: what follows is not added (it may not belong to
    // the error), and the error's stack is marked truncated.
    let log = "\
==5== Memcheck, a memory error detector
==5== Command: ./a
==5== 
==5== Invalid read of size 4
==5==    at 0x1: f (a.c:1)
==5== 
==5==    by 0x2: main (a.c:2)
==5== 
==5== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)
";
    let items = read(log);
    let e = errors(&items)[0];
    assert_eq!((e.stack.len(), e.truncated), (1, true));
    assert_eq!(warnings(&items).len(), 1);
}
