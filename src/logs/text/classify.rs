//! Line classification: what a line of a process between errors is.

use super::fields::{is_frame, parse_leak, parse_summary};
use super::state::Repeat;
use crate::logs::bytes::{after, after_last, find, rfind, take_num, take_u32, trim, trim_start};
use crate::logs::record::{ErrorSummary, LossRecord};
use crate::supp::kinds::Tool;

/// The facts an error header gives.
#[derive(Debug, Default)]
pub(super) struct Header {
    pub(super) kind: String,
    pub(super) size: Option<u32>,
    pub(super) param: Option<Vec<u8>>,
    pub(super) fishy: Option<(Vec<u8>, Vec<u8>)>,
    pub(super) leak: Option<LossRecord>,
    pub(super) tid: Option<u32>,
}

impl Header {
    pub(super) fn new(kind: &str) -> Self {
        Self {
            kind: kind.to_owned(),
            ..Self::default()
        }
    }

    fn tid(mut self, tid: Option<u32>) -> Self {
        self.tid = tid;
        self
    }
}

/// What a line of a process between errors is.
#[derive(Debug)]
pub(super) enum Class {
    /// An error header or a loss record.
    Header(Header),
    /// `Thread N:` / `Thread N NAME:` before an error (Memcheck, DRD).
    Thread(u32),
    /// An entry of the listing after the first summary: the next error is a repeat.
    Repeat(Repeat),
    Summary(ErrorSummary),
    /// Helgrind `---Thread-Announcement---`.
    Announce,
    /// Helgrind's `-----…` line between errors.
    Separator,
    /// `FATAL: …`, `Process terminating with default action of signal …`.
    Fatal,
    /// A message whose stack belongs to no error.
    Skip,
    /// Helgrind's ` Lock at 0x… was first observed` (or `: no stacktrace for first
    /// observation`), or `Thread #N was created` / `Thread #N is the program's root thread`
    /// outside a `---Thread-Announcement---` block: context of the next error.
    Context,
    /// `For lists of detected and suppressed errors, rerun with: -s` (3.15+) or `For counts
    /// of detected and suppressed errors, rerun with: -v`: the summary that follows is the
    /// process's last.
    NoList,
    /// `More than 1000 different errors detected.  I'm not reporting any more.` or `More
    /// than 10000000 total errors detected.  …`: later errors are not in the log.
    Limit,
    /// Anything else.
    Other,
}

pub(super) fn classify(t: &[u8], tool: Option<Tool>, minor: Option<u8>) -> Class {
    let Some(&first) = t.first() else {
        return Class::Other;
    };
    match first {
        b'0'..=b'9' => {
            if let Some(lr) = parse_leak(t) {
                return Class::Header(Header {
                    leak: Some(lr),
                    ..Header::new("Leak")
                });
            }
            if t.ends_with(b":") && find(t, b" in context ").is_some() {
                if find(t, b" errors (suppressed by ").is_some() {
                    return Class::Repeat(Repeat::Suppressed);
                }
                if let Some((n, rest)) = take_num(t)
                    && let Some(rest) = rest.strip_prefix(b" errors in context ")
                    && let Some((_, rest)) = take_num(rest)
                    && let Some(rest) = rest.strip_prefix(b" of ")
                    && take_num(rest).is_some_and(|(_, r)| r == b":")
                {
                    return Class::Repeat(Repeat::Shown(n));
                }
            }
        }
        b'I' => {
            if let Some(rest) = t
                .strip_prefix(b"Invalid read of size ")
                .or_else(|| t.strip_prefix(b"Invalid write of size "))
            {
                return sized("Addr", rest);
            }
            if t.starts_with(b"Invalid free() / delete / delete[] / realloc()") {
                return header("Free");
            }
            if t.starts_with(b"Invalid alignment value: ") || t.starts_with(b"Invalid size value: ")
            {
                return header("BadAlign");
            }
            if t.starts_with(b"Illegal memory pool address") {
                return header("Mempool");
            }
        }
        b'U' => {
            if let Some(rest) = t.strip_prefix(b"Use of uninitialised value of size ") {
                return sized("Value", rest);
            }
            if t.ends_with(b" byte(s) found during client check request") {
                return header("User");
            }
            if t.starts_with(b"Unsafe allocation with size of zero") {
                return header("UnsafeZeroSize");
            }
        }
        b'C' => {
            if t.starts_with(b"Conditional jump or move depends on uninitialised value(s)") {
                return header("Cond");
            }
            if t.starts_with(b"Conflicting load by thread ")
                || t.starts_with(b"Conflicting store by thread ")
            {
                let tid = after(t, b" by thread ").and_then(take_u32);
                return Class::Header(Header::new("ConflictingAccess").tid(tid));
            }
        }
        b'S' => {
            if let Some(rest) = t.strip_prefix(b"Syscall param ") {
                let end = [&b" contains "[..], b" points to "]
                    .iter()
                    .filter_map(|n| rfind(rest, n))
                    .max()
                    .unwrap_or(rest.len());
                return Class::Header(Header {
                    param: Some(rest[..end].to_vec()),
                    ..Header::new("Param")
                });
            }
            if t.starts_with(b"Source and destination overlap in ") {
                return header("Overlap");
            }
        }
        b'M' => {
            if t.starts_with(b"More than ") && find(t, b" errors detected.").is_some() {
                return Class::Limit;
            }
            if t.starts_with(b"Mismatched free() / delete / delete []") {
                return header("Free");
            }
            if t.starts_with(b"Mismatched ") {
                if find(t, b" alignment alloc value: ").is_some() {
                    return header("AlignMismatch");
                }
                if find(t, b" size value: ").is_some() {
                    return header("SizeMismatch");
                }
            }
        }
        b'J' if t.starts_with(b"Jump to the invalid address stated on the next line") => {
            return header("Jump");
        }
        b'A' => {
            if let Some(rest) = t.strip_prefix(b"Argument '")
                && let Some(q) = find(rest, b"' of function ")
            {
                let arg = &rest[..q];
                let rest = &rest[q + b"' of function ".len()..];
                if let Some(h) = find(rest, b" has a fishy") {
                    return Class::Header(Header {
                        fishy: Some((rest[..h].to_vec(), arg.to_vec())),
                        ..Header::new("FishyValue")
                    });
                }
            }
            if t == b"Acquired at:" && tool != Some(Tool::Memcheck) {
                return header("HoldtimeErr");
            }
        }
        b'P' => {
            if t.starts_with(b"Possible data race during ") {
                let tid = after_last(t, b" by thread #").and_then(take_u32);
                return Class::Header(Header::new("Race").tid(tid));
            }
            if t.starts_with(b"Process terminating with default action of signal") {
                return Class::Fatal;
            }
            if t.starts_with(b"Probably a race condition: condition variable ") {
                return header("CondRaceErr");
            }
        }
        b'T' => {
            if let Some(rest) = t.strip_prefix(b"Thread #") {
                return helgrind_thread(rest, minor);
            }
            if let Some(rest) = t.strip_prefix(b"Thread ")
                && t.ends_with(b":")
            {
                let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                if n > 0
                    && (rest.len() == n + 1 || rest[n] == b' ')
                    && let Some(tid) = take_u32(rest)
                {
                    return Class::Thread(tid);
                }
            }
            if t.starts_with(b"The annotation macro ") {
                if find(t, b"<valgrind/helgrind.h>").is_some() {
                    return header("UnimpHgClReq");
                }
                return header("UnimpDrdClReq");
            }
            if t.starts_with(b"The object at address ") && t.ends_with(b"is not a mutex.") {
                return header("MutexErr");
            }
        }
        b'E' => {
            if let Some(rest) = t.strip_prefix(b"ERROR SUMMARY: ")
                && let Some(s) = parse_summary(rest)
            {
                return Class::Summary(s);
            }
        }
        b'F' => {
            if t.starts_with(b"FATAL:") {
                return Class::Fatal;
            }
            if t.starts_with(b"For lists of detected and suppressed errors, rerun with: -s")
                || t.starts_with(b"For counts of detected and suppressed errors, rerun with: -v")
            {
                return Class::NoList;
            }
            if let Some(rest) = t.strip_prefix(b"File descriptor ")
                && rest.first().is_some_and(u8::is_ascii_digit)
            {
                if find(rest, b" is already closed").is_some() {
                    return header("FdBadClose");
                }
                return header("FdBadUse");
            }
        }
        b'O' if t.starts_with(b"Open file descriptor ")
            || (t.starts_with(b"Open AF_") && find(t, b" socket").is_some()) =>
        {
            // An error from 3.23 (--track-fds); before that, a listing.
            return if minor.is_none_or(|m| m >= 23) {
                header("FdNotClosed")
            } else {
                Class::Skip
            };
        }
        b'W' if t.starts_with(b"Warning:") || t.starts_with(b"WARNING:") => {
            return Class::Skip;
        }
        b' ' | b'L' => {
            // ` Lock at 0x…` (3.x) or `Lock at 0x…` (older): Helgrind announces a lock.
            let s = trim_start(t);
            if s.starts_with(b"Lock at 0x")
                && (s.ends_with(b" was first observed")
                    || s.ends_with(b": no stacktrace for first observation"))
            {
                return Class::Context;
            }
        }
        b'-' => {
            if t.starts_with(b"---Thread-Announcement") {
                return Class::Announce;
            }
            if t.len() >= 10 && t.iter().all(|c| *c == b'-') {
                return Class::Separator;
            }
        }
        _ => {}
    }
    if t.ends_with(b" contains unaddressable byte(s)") {
        return header("CoreMem");
    }
    if t.ends_with(b"() with size 0") && !t[..t.len() - 14].contains(&b' ') {
        return header("ReallocZero");
    }
    if find(t, b" invalid size value: ").is_some() {
        return header("BadSize");
    }
    if matches!(tool, None | Some(Tool::Drd))
        && let Some(k) = drd_kind(t)
    {
        return header(k);
    }
    Class::Other
}

/// [`classify`], also reading an error header that an excerpt decorated with Markdown bold
/// (`**35,580,804 bytes in 1 blocks** are definitely lost …`); the header's text without
/// the `**` comes with it.
pub(super) fn classify_relaxed(
    t: &[u8],
    tool: Option<Tool>,
    minor: Option<u8>,
) -> (Class, Option<Vec<u8>>) {
    let class = classify(t, tool, minor);
    if !matches!(class, Class::Other) || find(t, b"**").is_none() {
        return (class, None);
    }
    let mut cleaned = Vec::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = find(rest, b"**") {
        cleaned.extend_from_slice(&rest[..i]);
        rest = &rest[i + 2..];
    }
    cleaned.extend_from_slice(rest);
    match classify(&cleaned, tool, minor) {
        c @ Class::Header(_) => (c, Some(cleaned)),
        _ => (class, None),
    }
}

/// An error header on a line without its `==PID== ` prefix, as excerpts pasted into issues
/// show them: the prefix lost (`Invalid read of size 4`) or damaged (`=11345== Invalid …`).
/// Its text, and the PID that a damaged prefix still shows.
pub(super) fn loose_header(s: &[u8]) -> Option<(Option<u32>, Vec<u8>)> {
    let s = trim(s);
    let (pid, body) = damaged_prefix(s);
    match classify_relaxed(body, None, None) {
        (Class::Header(_), cleaned) => Some((pid, cleaned.unwrap_or_else(|| body.to_vec()))),
        _ => None,
    }
}

/// A prefix with a marker character lost or doubled (`=123== `, `==123=`): the PID and the
/// text after it; `(None, s)` when `s` does not start with one.
fn damaged_prefix(s: &[u8]) -> (Option<u32>, &[u8]) {
    let marks = |from: usize| {
        s[from.min(s.len())..]
            .iter()
            .take(2)
            .take_while(|c| matches!(c, b'=' | b'-' | b'*'))
            .count()
    };
    let lead = marks(0);
    let digits = s[lead..].iter().take_while(|c| c.is_ascii_digit()).count();
    let tail = marks(lead + digits);
    if lead == 0 || tail == 0 || digits == 0 || digits > 10 {
        return (None, s);
    }
    let pid = take_u32(&s[lead..]);
    let rest = &s[lead + digits + tail..];
    (pid, rest.strip_prefix(b" ").unwrap_or(rest))
}

pub(super) fn header(kind: &str) -> Class {
    Class::Header(Header::new(kind))
}

/// `AddrN` / `ValueN` from the text after `… of size `.
pub(super) fn sized(kind: &str, rest: &[u8]) -> Class {
    match take_u32(rest) {
        Some(n) => Class::Header(Header {
            kind: format!("{kind}{n}"),
            size: Some(n),
            ..Header::default()
        }),
        None => Class::Other,
    }
}

/// A Helgrind header starting `Thread #` (`rest` follows the `#`).
pub(super) fn helgrind_thread(rest: &[u8], minor: Option<u8>) -> Class {
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let tid = take_u32(rest);
    let r = &rest[n..];
    let kind = if r.starts_with(b" unlocked a not-locked lock at ") {
        "UnlockUnlocked"
    } else if r.starts_with(b" unlocked lock at ") {
        "UnlockForeign"
    } else if r.starts_with(b" unlocked an invalid lock at ") {
        "UnlockBogus"
    } else if r.starts_with(b"'s call to ") {
        "PthAPIerror"
    } else if r.starts_with(b": lock order \"") {
        "LockOrder"
    } else if r.starts_with(b" was created") || r.starts_with(b" is the program's root thread") {
        return Class::Context;
    } else if r.starts_with(b": ") {
        if minor.is_some_and(|m| m >= 21) && find(r, b"dubious").is_some() {
            "Dubious"
        } else {
            "Misc"
        }
    } else {
        return Class::Other;
    };
    Class::Header(Header::new(kind).tid(tid))
}

/// DRD's error kinds other than races, from the message text.
pub(super) fn drd_kind(t: &[u8]) -> Option<&'static str> {
    let has = |n: &[u8]| find(t, n).is_some();
    if has(b": mutex 0x") {
        Some("MutexErr")
    } else if has(b": condition variable 0x") {
        Some("CondWaitErr")
    } else if has(b": cond 0x") {
        Some(if has(b"locked by thread") {
            "CondDestrErr"
        } else {
            "CondErr"
        })
    } else if has(b": semaphore 0x") {
        Some("SemaphoreErr")
    } else if has(b": barrier 0x") {
        Some("BarrierErr")
    } else if has(b": rwlock 0x") {
        Some("RwlockErr")
    } else if has(b"thread ID 0x") || has(b"invalid thread ID") {
        Some("InvalidThreadId")
    } else {
        None
    }
}

/// Whether `t` (not indented), inside an error of `tool`, means the error was cut off.
pub(super) fn breaks_error(tool: Option<Tool>, t: &[u8]) -> bool {
    if tool == Some(Tool::Memcheck) {
        // Every line of a Memcheck error but its header is indented.
        return true;
    }
    t.starts_with(b"ERROR SUMMARY:")
        || t.starts_with(b"HEAP SUMMARY:")
        || t.starts_with(b"LEAK SUMMARY:")
        || t.starts_with(b"Possible data race during ")
        || t.starts_with(b"Conflicting load by thread ")
        || t.starts_with(b"Conflicting store by thread ")
        || t.starts_with(b"---")
        // Without a preamble, the tool is unknown: a Memcheck header (an excerpt whose
        // blank line was lost) starts the next error. No line inside a Helgrind or DRD
        // error reads as one.
        || (tool.is_none() && memcheck_header(t))
}

/// Whether `t` is the header of a Memcheck error or loss record.
fn memcheck_header(t: &[u8]) -> bool {
    matches!(classify(t, Some(Tool::Memcheck), None), Class::Header(h) if !h.kind.is_empty())
}

/// Whether `t`, after a blank line inside an error, continues it (Helgrind's multi-part
/// errors).
pub(super) fn continues_after_blank(tool: Option<Tool>, t: &[u8]) -> bool {
    if matches!(tool, Some(Tool::Memcheck | Tool::Drd)) {
        return false;
    }
    (t[0] == b' ' && !is_frame(t))
        || t.starts_with(b"This conflicts with a previous ")
        || t.starts_with(b"Observed (incorrect) order is: ")
        || t.starts_with(b"Required order was established by ")
        || t.starts_with(b"Locks held:")
}

/// The tool named by a preamble's first line (`Memcheck, a memory error detector`).
pub(super) fn tool_line(t: &[u8]) -> Option<Option<Tool>> {
    const TOOLS: [(&str, Option<Tool>); 13] = [
        ("Memcheck", Some(Tool::Memcheck)),
        ("Helgrind", Some(Tool::Helgrind)),
        ("DRD", Some(Tool::Drd)),
        ("drd", Some(Tool::Drd)),
        ("Massif", None),
        ("Cachegrind", None),
        ("Callgrind", None),
        ("DHAT", None),
        ("Lackey", None),
        ("Nulgrind", None),
        ("exp-bbv", None),
        ("exp-sgcheck", None),
        ("exp-dhat", None),
    ];
    TOOLS.iter().find_map(|(name, tool)| {
        let rest = t.strip_prefix(name.as_bytes())?;
        (rest.starts_with(b", a ") || rest.starts_with(b", an ") || rest.starts_with(b", the "))
            .then_some(*tool)
    })
}

pub(super) fn starts_tool_line(t: &[u8]) -> bool {
    matches!(
        t.first(),
        Some(b'M' | b'H' | b'D' | b'd' | b'C' | b'L' | b'N' | b'e')
    ) && tool_line(t).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supp::model::LeakKind;

    use crate::logs::text::state::Repeat;

    #[test]
    fn memcheck_headers() {
        let kind = |t: &str| match classify(t.as_bytes(), Some(Tool::Memcheck), Some(27)) {
            Class::Header(h) => h.kind,
            other => format!("{other:?}"),
        };
        assert_eq!(kind("Invalid read of size 4"), "Addr4");
        assert_eq!(kind("Invalid write of size 16"), "Addr16");
        assert_eq!(kind("Use of uninitialised value of size 8"), "Value8");
        assert_eq!(
            kind("Conditional jump or move depends on uninitialised value(s)"),
            "Cond"
        );
        assert_eq!(
            kind("Syscall param write(buf) points to uninitialised byte(s)"),
            "Param"
        );
        assert_eq!(
            kind("Invalid free() / delete / delete[] / realloc()"),
            "Free"
        );
        assert_eq!(kind("Mismatched free() / delete / delete []"), "Free");
        assert_eq!(
            kind("Source and destination overlap in strncpy(0x1ffefffe11, 0x1ffefffe10, 5)"),
            "Overlap"
        );
        assert_eq!(
            kind("Jump to the invalid address stated on the next line"),
            "Jump"
        );
        assert_eq!(
            kind("Argument 'size' of function malloc has a fishy (possibly negative) value: -1"),
            "FishyValue"
        );
        assert_eq!(kind("Illegal memory pool address"), "Mempool");
        assert_eq!(
            kind("Unaddressable byte(s) found during client check request"),
            "User"
        );
        assert_eq!(
            kind("Uninitialised byte(s) found during client check request"),
            "User"
        );
        assert_eq!(
            kind("signal frame contains unaddressable byte(s)"),
            "CoreMem"
        );
        assert_eq!(kind("realloc() with size 0"), "ReallocZero");
        assert_eq!(
            kind("Invalid alignment value: 3 (should be power of 2)"),
            "BadAlign"
        );
        assert_eq!(
            kind("Invalid size value: 16 alignment value: 3 (should be power of 2)"),
            "BadAlign"
        );
        assert_eq!(kind("aligned_alloc() invalid size value: 0"), "BadSize");
        assert_eq!(
            kind("Unsafe allocation with size of zero is implementation-defined"),
            "UnsafeZeroSize"
        );
        assert_eq!(kind("Mismatched new/delete size value: 8"), "SizeMismatch");
        assert_eq!(
            kind("Mismatched new/delete alignment alloc value: 8 dealloc value: default-aligned"),
            "AlignMismatch"
        );
        assert_eq!(
            kind("File descriptor 3: file /tmp/x is already closed"),
            "FdBadClose"
        );
        assert_eq!(
            kind("File descriptor 99 Invalid file descriptor"),
            "FdBadUse"
        );
        assert_eq!(kind("Open file descriptor 3: /dev/pts/1"), "FdNotClosed");
        assert!(matches!(
            classify(
                b"Open file descriptor 3: /x",
                Some(Tool::Memcheck),
                Some(19)
            ),
            Class::Skip
        ));
        assert_eq!(kind("HEAP SUMMARY:"), "Other");

        let Class::Header(h) = classify(
            b"Syscall param sendmsg(msg.msg_iov[0]) contains uninitialised byte(s)",
            None,
            None,
        ) else {
            panic!("param")
        };
        assert_eq!(h.param.as_deref(), Some(&b"sendmsg(msg.msg_iov[0])"[..]));
        let Class::Header(h) = classify(
            b"Argument 'size' of function malloc has a fishy (possibly negative) value: -1",
            None,
            None,
        ) else {
            panic!("fishy")
        };
        assert_eq!(h.fishy, Some((b"malloc".to_vec(), b"size".to_vec())));
        let Class::Header(h) = classify(b"Invalid read of size 4", None, None) else {
            panic!("size")
        };
        assert_eq!(h.size, Some(4));
    }

    #[test]
    fn leak_headers() {
        let lr = parse_leak(b"4 bytes in 1 blocks are definitely lost in loss record 1 of 9")
            .expect("simple");
        assert_eq!(
            (lr.kind, lr.bytes, lr.blocks, lr.index, lr.total),
            (LeakKind::Definite, 4, 1, 1, 9)
        );
        let lr = parse_leak(
            b"1,016 (232 direct, 784 indirect) bytes in 1 blocks are definitely lost in loss record 2,117 of 2,140",
        )
        .expect("direct/indirect");
        assert_eq!((lr.bytes, lr.index, lr.total), (1016, 2117, 2140));
        let lr = parse_leak(
            b"1,000 (+1,000) bytes in 3 (+3) blocks are possibly lost in new loss record 2 of 3",
        )
        .expect("delta");
        assert_eq!(
            (lr.kind, lr.bytes, lr.blocks, lr.index),
            (LeakKind::Possible, 1000, 3, 2)
        );
        let lr = parse_leak(b"32 bytes in 1 blocks are indirectly lost in loss record 5 of 9")
            .expect("indirect");
        assert_eq!(lr.kind, LeakKind::Indirect);
        let lr = parse_leak(b"16,384 bytes in 1 blocks are still reachable in loss record 6 of 6")
            .expect("reachable");
        assert_eq!((lr.kind, lr.bytes), (LeakKind::Reachable, 16384));
        assert!(parse_leak(b"4 bytes in 1 blocks").is_none());
    }

    #[test]
    fn helgrind_and_drd_headers() {
        let kind = |t: &str, tool| match classify(t.as_bytes(), Some(tool), Some(19)) {
            Class::Header(h) => (h.kind, h.tid),
            other => (format!("{other:?}"), None),
        };
        let hg = Tool::Helgrind;
        assert_eq!(
            kind(
                "Possible data race during read of size 4 at 0x10C080 by thread #1",
                hg
            ),
            ("Race".into(), Some(1))
        );
        assert_eq!(
            kind("Thread #1 unlocked a not-locked lock at 0x10C0A0", hg).0,
            "UnlockUnlocked"
        );
        assert_eq!(
            kind(
                "Thread #3 unlocked lock at 0x1 currently held by thread #2",
                hg
            ),
            ("UnlockForeign".into(), Some(3))
        );
        assert_eq!(
            kind("Thread #1 unlocked an invalid lock at 0x524B1D0", hg).0,
            "UnlockBogus"
        );
        assert_eq!(
            kind("Thread #1's call to pthread_mutex_unlock failed", hg).0,
            "PthAPIerror"
        );
        assert_eq!(
            kind(
                "Thread #1: lock order \"0x10C0A0 before 0x10C0E0\" violated",
                hg
            )
            .0,
            "LockOrder"
        );
        assert_eq!(
            kind(
                "Thread #1: Attempt to re-lock a non-recursive lock I already hold",
                hg
            )
            .0,
            "Misc"
        );
        let drd = Tool::Drd;
        assert_eq!(
            kind("Conflicting load by thread 1 at 0x0010c080 size 4", drd),
            ("ConflictingAccess".into(), Some(1))
        );
        assert_eq!(
            kind(
                "Mutex not locked by calling thread: mutex 0x10c0a0, recursion count 0, owner 1.",
                drd
            )
            .0,
            "MutexErr"
        );
        assert_eq!(
            kind("The object at address 0x526c180 is not a mutex.", drd).0,
            "MutexErr"
        );
        assert_eq!(
            kind(
                "Destroying condition variable that is being waited upon: cond 0x1",
                drd
            )
            .0,
            "CondErr"
        );
        assert_eq!(
            kind("Invalid semaphore: semaphore 0x1", drd).0,
            "SemaphoreErr"
        );
        assert_eq!(kind("Acquired at:", drd).0, "HoldtimeErr");
        assert!(matches!(
            classify(b"Thread 2:", None, None),
            Class::Thread(2)
        ));
        assert!(matches!(
            classify(b"Thread 3 rustc:", None, None),
            Class::Thread(3)
        ));
        assert!(matches!(
            classify(b"1,234 errors in context 2 of 17:", None, None),
            Class::Repeat(Repeat::Shown(1234))
        ));
        assert!(matches!(
            classify(
                b"3 errors (suppressed by my rule) in context 4 of 9:",
                None,
                None
            ),
            Class::Repeat(Repeat::Suppressed)
        ));
        assert!(matches!(
            classify(b"1 errors in context of mine:", None, None),
            Class::Other
        ));
    }

    #[test]
    fn announcements_hints_and_limits() {
        for t in [
            &b" Lock at 0x10C0C0 was first observed"[..],
            b"Lock at 0x10C0C0 was first observed",
            b" Lock at 0x5A3C0 : no stacktrace for first observation",
            b"Thread #2 was created",
            b"Thread #1 is the program's root thread",
        ] {
            let class = classify(t, Some(Tool::Helgrind), Some(19));
            assert!(matches!(class, Class::Context), "{t:?}: {class:?}");
        }
        assert!(matches!(
            classify(b" Lock at 0x10C0C0 is held", None, None),
            Class::Other
        ));
        for t in [
            &b"For lists of detected and suppressed errors, rerun with: -s"[..],
            b"For counts of detected and suppressed errors, rerun with: -v",
        ] {
            assert!(matches!(classify(t, None, None), Class::NoList));
        }
        for t in [
            &b"More than 1000 different errors detected.  I'm not reporting any more."[..],
            b"More than 10000000 total errors detected.  I'm not reporting any more.",
        ] {
            assert!(matches!(classify(t, None, None), Class::Limit));
        }
    }

    #[test]
    fn headers_that_lost_their_prefix() {
        let h = |t: &[u8]| {
            loose_header(t).map(|(pid, text)| (pid, String::from_utf8(text).expect("utf-8")))
        };
        assert_eq!(
            h(b"Invalid read of size 8"),
            Some((None, "Invalid read of size 8".to_owned()))
        );
        assert_eq!(
            h(b"=11345== Invalid read of size 1"),
            Some((Some(11345), "Invalid read of size 1".to_owned()))
        );
        assert_eq!(
            h(b"  2,304 bytes in 1 blocks are possibly lost in loss record 108 of 134"),
            Some((
                None,
                "2,304 bytes in 1 blocks are possibly lost in loss record 108 of 134".to_owned()
            ))
        );
        // Markdown bold inside a header.
        assert_eq!(
            h(b"**472 (8 direct, 464 indirect) bytes in 1 blocks** are definitely lost in loss record 7 of 9"),
            Some((
                None,
                "472 (8 direct, 464 indirect) bytes in 1 blocks are definitely lost in loss record 7 of 9"
                    .to_owned()
            ))
        );
        assert_eq!(h(b"a program's own output"), None);
        assert_eq!(h(b"=11345== a warning"), None);
        assert_eq!(h(b"   at 0x4A66154: f (a.c:1)"), None);
    }
}
