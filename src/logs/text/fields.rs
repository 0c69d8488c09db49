//! Field parsers: line prefixes, frame lines, loss records, summaries, `used_suppression`.

use memchr::{memchr, memchr3, memrchr};

use super::state::Prefix;
use crate::logs::bytes::{
    find, hex_value, parse_digits, parse_hex, rfind, take_num, trim, trim_end, trim_start,
};
use crate::logs::record::{ErrorSummary, LossRecord, Stack, UsedSuppression};
use crate::logs::scan::last_paren;
use crate::logs::stack::{FrameParts, Span, StackFull};
use crate::supp::model::LeakKind;

/// `s.starts_with(p)` for a `p` of at most 32 bytes, without a call to `memcmp`: two
/// overlapping word compares when `p` has 8 to 16 bytes (`==12345== `).
pub(super) fn starts_with_short(s: &[u8], p: &[u8]) -> bool {
    let n = p.len();
    if s.len() < n {
        return false;
    }
    let word = |b: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        u64::from_ne_bytes(w)
    };
    if (8..=16).contains(&n) {
        return word(s, 0) == word(p, 0) && word(s, n - 8) == word(p, n - 8);
    }
    s.iter().zip(p).all(|(a, b)| a == b)
}

/// Finds the Valgrind prefix of a line, at its start or anywhere in it.
pub(super) fn find_prefix(line: &[u8]) -> Option<Prefix> {
    if let Some(&c) = line.first()
        && matches!(c, b'=' | b'-' | b'*' | b'+')
        && let Some(p) = prefix_at(line, 0)
    {
        return Some(p);
    }
    let mut from = 1;
    while from < line.len() {
        let k = memchr3(b'=', b'-', b'*', &line[from..])?;
        let i = from + k;
        if let Some(p) = prefix_at(line, i) {
            return Some(p);
        }
        from = i + 1;
    }
    None
}

/// Parses `CC[DD:HH:MM:SS.mmm ]PIDCC[ ]` at `i`.
pub(super) fn prefix_at(line: &[u8], i: usize) -> Option<Prefix> {
    let c = line[i];
    if line.get(i + 1) != Some(&c) {
        return None;
    }
    let mut j = i + 2;
    let (mut pid, mut n) = digits_at(line, j);
    j += n;
    if line.get(j) == Some(&b':') {
        // --time-stamp=yes: `DD:HH:MM:SS.mmm ` before the PID.
        while j < line.len() && (line[j].is_ascii_digit() || line[j] == b':' || line[j] == b'.') {
            j += 1;
        }
        if line.get(j) != Some(&b' ') {
            return None;
        }
        j += 1;
        (pid, n) = digits_at(line, j);
        j += n;
    }
    if n == 0 || n > 10 || line.get(j) != Some(&c) || line.get(j + 1) != Some(&c) {
        return None;
    }
    j += 2;
    match line.get(j) {
        Some(b' ') => j += 1,
        None => {}
        Some(_) => return None,
    }
    Some(Prefix {
        start: i,
        kind: c,
        pid: u32::try_from(pid).ok()?,
        body: j,
    })
}

/// The value and length of the decimal digits at `line[j..]` (at most 19 are summed).
pub(super) fn digits_at(line: &[u8], j: usize) -> (u64, usize) {
    let mut v = 0u64;
    let mut n = 0;
    for &d in line.get(j..).unwrap_or_default() {
        if !d.is_ascii_digit() {
            break;
        }
        if n < 19 {
            v = v * 10 + u64::from(d - b'0');
        }
        n += 1;
    }
    (v, n)
}

/// Whether `t` is a frame line (`   at 0x…:` / `   by 0x…:`).
pub(super) fn is_frame(t: &[u8]) -> bool {
    let s = trim_start(t);
    s.len() < t.len() && (s.starts_with(b"at 0x") || s.starts_with(b"by 0x"))
}

/// Reads a frame line (`VG_(describe_IP)`): `at 0xADDR: WHAT` gives the address and WHAT
/// (a part of `t`, which [`describe`] reads from the right).
pub(super) fn frame_text(t: &[u8]) -> Option<(Option<u64>, &[u8])> {
    let s = trim_start(t);
    let rest = match s {
        [b'a', b't', b' ', b'0', b'x', rest @ ..] | [b'b', b'y', b' ', b'0', b'x', rest @ ..] => {
            rest
        }
        _ => return None,
    };
    // The address and its colon, in one pass (the usual case), else as Valgrind's
    // printer may have left it.
    let mut v = 0u64;
    let mut hex = 0;
    for &c in rest {
        let Some(d) = hex_value(c) else { break };
        v = (v << 4) | u64::from(d);
        hex += 1;
    }
    let (colon, ip) = if rest.get(hex) == Some(&b':') {
        (hex, (1..=16).contains(&hex).then_some(v))
    } else {
        let colon = memchr(b':', rest)?;
        (colon, parse_hex(&rest[..colon]))
    };
    let what = &rest[colon + 1..];
    Some((ip, trim(what.strip_prefix(b" ").unwrap_or(what))))
}

/// Appends the frame at `ip` described by `what` to `stack`, copying `what` once. One
/// function from the description to the stored slot: the parts stay in registers.
#[inline(never)]
pub(super) fn push_described(
    stack: &mut Stack,
    ip: Option<u64>,
    what: &[u8],
) -> Result<(), StackFull> {
    stack.push_parts(what, &describe(ip, what))
}

/// The frame at `ip` whose text is `w` (`fn (file:line)`, `fn (in obj)`, `???`, …), as
/// parts of `w`.
#[inline]
pub(super) fn describe(ip: Option<u64>, w: &[u8]) -> FrameParts {
    let mut f = FrameParts::new(ip);
    if w == b"???" {
        return f;
    }
    let n = w.len();
    if w.last() == Some(&b')') {
        let found = file_line_parens(w).or_else(|| {
            let p = location_parens(w)?;
            let line = p.colon.and_then(|c| parse_u32(&w[c + 1..n - 1]));
            Some((p, line))
        });
        if let Some((Parens { open, colon, slash }, line)) = found
            && open >= 1
            && w[open - 1] == b' '
        {
            let fun = (&w[..open - 1] != b"???").then(|| Span::of(0, open - 1));
            if w[open + 1..n - 1].starts_with(b"in ") {
                f.obj = Span::of(open + 4, n - 1);
                f.fun = fun.unwrap_or(f.fun);
                return f;
            }
            if let Some(c) = colon
                && let Some(line) = line
            {
                f.file = Span::of(open + 1, c);
                if let Some(s) = slash {
                    f.dir = Span::of(open + 1, s);
                }
                f.line = Some(line);
                f.fun = fun.unwrap_or(f.fun);
                return f;
            }
        }
    }
    f.fun = Span::of(0, n);
    f
}

/// [`location_parens`] and the line number for the usual `… (file.c:123)`, read in one
/// backward pass that parses the digits on the way; `None` for any other form (the
/// general search then decides).
pub(super) fn file_line_parens(w: &[u8]) -> Option<(Parens, Option<u32>)> {
    let close = w.len().checked_sub(1)?;
    // At most 9 digits: they always fit a u32 (longer numbers take the general path).
    let mut i = close;
    let mut line = 0u32;
    let mut scale = 1u32;
    while i > 0 && close - i < 9 {
        let d = w[i - 1].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        line += u32::from(d) * scale;
        scale = scale.wrapping_mul(10);
        i -= 1;
    }
    if i == close || i == 0 || w[i - 1] != b':' {
        return None;
    }
    let colon = i - 1;
    match last_paren(w, colon) {
        (Some(open), slash) if w[open] == b'(' => {
            let parens = Parens {
                open,
                colon: Some(colon),
                slash,
            };
            Some((parens, Some(line)))
        }
        _ => None,
    }
}

/// Where the parts of a frame's final `(…)` are.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Parens {
    /// The `(` matching the final `)`.
    pub(super) open: usize,
    /// The last `:` inside.
    pub(super) colon: Option<usize>,
    /// The last `/` between `open` and `colon` (the end of the file's directory).
    pub(super) slash: Option<usize>,
}

/// For a `w` that ends in `)`: where the matching `(`, the last `:` inside and the last
/// `/` before that `:` are.
pub(super) fn location_parens(w: &[u8]) -> Option<Parens> {
    // Usually the last parenthesis before the final `)` is the `(` that opens it
    // (`(file.c:12)`, `(in /path/lib.so)`): no other parenthesis inside.
    let inner_end = w.len().checked_sub(1)?;
    if let (Some(open), _) = last_paren(w, inner_end)
        && w[open] == b'('
    {
        let inner = open + 1;
        let colon = memrchr(b':', &w[inner..inner_end]).map(|c| inner + c);
        let slash = colon.and_then(|c| memrchr(b'/', &w[inner..c]).map(|s| inner + s));
        return Some(Parens { open, colon, slash });
    }
    nested_parens(w, inner_end)
}

/// [`location_parens`] for a location with parentheses inside
/// (`(in /opt/My App (x86)/lib.so)`): they are counted from the end.
pub(super) fn nested_parens(w: &[u8], inner_end: usize) -> Option<Parens> {
    let mut depth = 0usize;
    for (i, &c) in w.iter().enumerate().rev() {
        if c == b')' {
            depth += 1;
        } else if c == b'(' {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                let colon = w[i + 1..inner_end]
                    .iter()
                    .rposition(|&b| b == b':')
                    .map(|c| i + 1 + c);
                let slash = colon.and_then(|c| {
                    w[i + 1..c]
                        .iter()
                        .rposition(|&b| b == b'/')
                        .map(|s| i + 1 + s)
                });
                return Some(Parens {
                    open: i,
                    colon,
                    slash,
                });
            }
        }
    }
    None
}

/// Plain decimal digits that fit a `u32`.
pub(super) fn parse_u32(s: &[u8]) -> Option<u32> {
    parse_digits(s).and_then(|n| u32::try_from(n).ok())
}

/// `N[ (…)] bytes in M[ (…)] blocks are KIND in [new ]loss record i of n`.
pub(super) fn parse_leak(t: &[u8]) -> Option<LossRecord> {
    let (bytes, _) = take_num(t)?;
    let b = find(t, b" bytes in ")?;
    let (blocks, _) = take_num(&t[b + b" bytes in ".len()..])?;
    let k = find(t, b" blocks are ")?;
    let rest = &t[k + b" blocks are ".len()..];
    let kind = if rest.starts_with(b"definitely lost") {
        LeakKind::Definite
    } else if rest.starts_with(b"indirectly lost") {
        LeakKind::Indirect
    } else if rest.starts_with(b"possibly lost") {
        LeakKind::Possible
    } else if rest.starts_with(b"still reachable") {
        LeakKind::Reachable
    } else {
        return None;
    };
    let r = rfind(rest, b"loss record ")?;
    let rest = &rest[r + b"loss record ".len()..];
    let (index, rest) = take_num(rest)?;
    let (total, _) = take_num(rest.strip_prefix(b" of ")?)?;
    Some(LossRecord {
        kind,
        bytes,
        blocks,
        index,
        total,
    })
}

/// The object of `Reading syms from PATH` (`-v`; before 3.9 with ` (0xADDR)` after it).
pub(super) fn parse_reading_syms(t: &[u8]) -> Option<&[u8]> {
    let path = t.strip_prefix(b"Reading syms from ")?;
    let path = match rfind(path, b" (0x") {
        Some(p) if path.ends_with(b")") && parse_hex(&path[p + 4..path.len() - 1]).is_some() => {
            &path[..p]
        }
        _ => path,
    };
    (!path.is_empty()).then_some(path)
}

/// `Discarding syms at 0xA-0xB in PATH (have_dinfo N)` (`-v`; `Archiving` with
/// `--keep-debuginfo=yes`; `… in PATH due to munmap()` before 3.16): the start and end
/// (exclusive: the text section's start plus its size) of the object's code, and its path.
pub(super) fn parse_discarding(t: &[u8]) -> Option<(u64, u64, &[u8])> {
    let rest = t
        .strip_prefix(b"Discarding syms at 0x")
        .or_else(|| t.strip_prefix(b"Archiving syms at 0x"))?;
    let dash = memchr(b'-', rest)?;
    let start = parse_hex(&rest[..dash])?;
    let rest = rest[dash + 1..].strip_prefix(b"0x")?;
    let sp = find(rest, b" in ")?;
    let end = parse_hex(&rest[..sp])?;
    let mut path = &rest[sp + 4..];
    if let Some(p) = rfind(path, b" (have_dinfo ") {
        path = &path[..p];
    } else if let Some(p) = rfind(path, b" due to ")
        && path.ends_with(b"()")
    {
        path = &path[..p];
    }
    (!path.is_empty()).then_some((start, end, path))
}

/// `E errors from C contexts (suppressed: S from SC)`.
pub(super) fn parse_summary(t: &[u8]) -> Option<ErrorSummary> {
    let (errors, rest) = take_num(t)?;
    let rest = &rest[find(rest, b" from ")? + 6..];
    let (contexts, rest) = take_num(rest)?;
    let rest = &rest[find(rest, b"(suppressed: ")? + 13..];
    let (suppressed, rest) = take_num(rest)?;
    let rest = &rest[find(rest, b" from ")? + 6..];
    let (suppressed_contexts, _) = take_num(rest)?;
    Some(ErrorSummary {
        pid: None,
        errors,
        contexts,
        suppressed,
        suppressed_contexts,
    })
}

/// `%6d NAME FILE:LINE[ suppressed: B bytes in K blocks]` (3.9+) or `%6d NAME`, parsed
/// from the right. `files` are the process's announced suppression files.
pub(super) fn parse_used(t: &[u8], files: &[Vec<u8>]) -> Option<UsedSuppression> {
    let s = trim_start(t);
    let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let count = parse_digits(&s[..n])?;
    let mut rest = trim_end(s[n..].strip_prefix(b" ")?);
    let mut leak = None;
    if rest.ends_with(b" blocks")
        && let Some(p) = rfind(rest, b" suppressed: ")
    {
        let tail = &rest[p + b" suppressed: ".len()..];
        if let Some((bytes, r)) = take_num(tail)
            && let Some(r) = r.strip_prefix(b" bytes in ")
            && let Some((blocks, r)) = take_num(r)
            && r == b" blocks"
        {
            leak = Some((bytes, blocks));
            rest = &rest[..p];
        }
    }
    let mut used = UsedSuppression {
        pid: None,
        count,
        name: rest.to_vec(),
        file: None,
        line: None,
        leak,
    };
    let Some(c) = memrchr(b':', rest) else {
        return Some(used);
    };
    let Some(line) = parse_digits(&rest[c + 1..]).and_then(|n| u32::try_from(n).ok()) else {
        return Some(used);
    };
    let before = &rest[..c];
    let known = files
        .iter()
        .filter(|f| {
            !f.is_empty()
                && before.len() > f.len()
                && before.ends_with(f)
                && before[before.len() - f.len() - 1] == b' '
        })
        .max_by_key(|f| f.len());
    let split = match known {
        Some(f) => Some(before.len() - f.len() - 1),
        None => memrchr(b' ', before),
    };
    if let Some(sp) = split {
        used.name = before[..sp].to_vec();
        used.file = Some(before[sp + 1..].to_vec());
        used.line = Some(line);
    }
    Some(used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::Frame;
    use crate::logs::bytes::lossy;

    /// A frame line as the reader stores it.
    fn parse_frame(t: &[u8]) -> Option<Frame<'_>> {
        let (ip, what) = frame_text(t)?;
        Some(describe(ip, what).view(what))
    }

    fn fun<'a>(f: &Frame<'a>) -> &'a [u8] {
        f.fun.unwrap_or(b"???")
    }

    #[test]
    fn prefixes() {
        let p = find_prefix(b"==123== Invalid read").expect("plain");
        assert_eq!((p.start, p.kind, p.pid, p.body), (0, b'=', 123, 8));
        let p = find_prefix(b"--9-- used").expect("debug");
        assert_eq!((p.kind, p.pid), (b'-', 9));
        let p = find_prefix(b"**77** client").expect("client");
        assert_eq!((p.kind, p.pid), (b'*', 77));
        let p = find_prefix(b"==00:00:00:01.239 26593== HEAP SUMMARY:").expect("time stamp");
        assert_eq!((p.pid, p.body), (26593, 26));
        let p = find_prefix(b">>==5== x").expect("nested");
        assert_eq!((p.start, p.pid), (2, 5));
        let p = find_prefix(b"2026-11-30T10:00:00.123Z ==123== Invalid").expect("ci");
        assert_eq!((p.start, p.pid), (25, 123));
        let p = find_prefix(b"[job 5] --4-- x").expect("job");
        assert_eq!((p.start, p.kind, p.pid), (8, b'-', 4));
        let p = find_prefix(b"==12==").expect("blank without trailing space");
        assert_eq!(p.body, 6);
        assert!(find_prefix(b"a == b == c").is_none());
        assert!(find_prefix(b"==12==x").is_none());
        assert!(find_prefix(b"==99999999999== x").is_none());
        assert!(find_prefix(b"   fun:x86_64-linux--gnu").is_none());
        assert!(find_prefix(b"").is_none());
        assert!(find_prefix(b"=").is_none());
    }

    /// [`location_parens`] as first written: one backward pass a byte at a time (then
    /// the same count of nested parentheses).
    fn location_parens_slowly(w: &[u8]) -> Option<Parens> {
        let inner_end = w.len().checked_sub(1)?;
        let (mut colon, mut slash) = (None, None);
        for i in (0..inner_end).rev() {
            match w[i] {
                b'(' => {
                    return Some(Parens {
                        open: i,
                        colon,
                        slash,
                    });
                }
                b')' => break,
                b':' if colon.is_none() => colon = Some(i),
                b'/' if colon.is_some() && slash.is_none() => slash = Some(i),
                _ => {}
            }
        }
        nested_parens(w, inner_end)
    }

    #[test]
    fn file_line_parens_agrees_with_the_general_search() {
        // Every string of up to 7 bytes over the bytes that matter, ending in `)`.
        let alphabet = b"():/ 0a9";
        let mut checked = 0;
        for len in 0..7u32 {
            for mut code in 0..8usize.pow(len) {
                let mut w: Vec<u8> = (0..len)
                    .map(|_| {
                        let c = alphabet[code % 8];
                        code /= 8;
                        c
                    })
                    .collect();
                w.push(b')');
                assert_eq!(
                    location_parens(&w),
                    location_parens_slowly(&w),
                    "{:?}",
                    lossy(&w)
                );
                if let Some((p, line)) = file_line_parens(&w) {
                    let general = location_parens(&w).expect("the general search finds it");
                    let n = w.len();
                    let general_line = general.colon.and_then(|c| parse_u32(&w[c + 1..n - 1]));
                    assert_eq!((&p, line), (&general, general_line), "{:?}", lossy(&w));
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // Long line numbers: up to 9 digits here, longer ones (leading zeros) in general.
        let nine = b"f (a.c:123456789)";
        assert_eq!(
            file_line_parens(nine).map(|(_, l)| l),
            Some(Some(123_456_789))
        );
        assert_eq!(file_line_parens(b"f (a.c:0123456789)"), None);
        let f = parse_frame(b"   by 0x1: f (a.c:00000000042)").expect("f");
        assert_eq!((f.file, f.line), (Some(&b"a.c"[..]), Some(42)));
        let f = parse_frame(b"   by 0x1: f (a.c:4294967296)").expect("f");
        assert_eq!((f.fun, f.line), (Some(&b"f (a.c:4294967296)"[..]), None));
    }

    #[test]
    fn frames() {
        let f = parse_frame(b"   at 0x4C2B955: calloc (vg_replace_malloc.c:711)").expect("f");
        assert_eq!(f.ip, Some(0x4C2B955));
        assert_eq!(fun(&f), b"calloc");
        assert_eq!(f.file, Some(&b"vg_replace_malloc.c"[..]));
        assert_eq!((f.line, f.dir, f.obj), (Some(711), None, None));

        let f = parse_frame(b"   by 0x1: fn (src/dir/file.c:12)").expect("f");
        assert_eq!(f.file, Some(&b"src/dir/file.c"[..]));
        assert_eq!(f.dir, Some(&b"src/dir"[..]));

        let f = parse_frame(b"   by 0x52B5E71: g_private_get (in /usr/lib64/libglib-2.0.so.0)")
            .expect("f");
        assert_eq!(fun(&f), b"g_private_get");
        assert_eq!(f.obj, Some(&b"/usr/lib64/libglib-2.0.so.0"[..]));
        assert_eq!(f.file, None);

        let f = parse_frame(b"   by 0x1: fn (in ???)").expect("f");
        assert_eq!((fun(&f), f.obj), (&b"fn"[..], Some(&b"???"[..])));

        let f = parse_frame(b"   by 0x52B5E71: ??? (in /usr/lib/x.so)").expect("f");
        assert_eq!((f.fun, f.obj), (None, Some(&b"/usr/lib/x.so"[..])));

        let f = parse_frame(b"   by 0x2: ??? (file.c:3)").expect("f");
        assert_eq!((f.fun, f.line), (None, Some(3)));

        let f = parse_frame(b"   by 0x1FFEFFF986: ???").expect("f");
        assert_eq!((f.ip, f.fun, f.obj), (Some(0x1FFEFFF986), None, None));

        let f =
            parse_frame(b"   by 0x4E3C249: (below main) (libc_start_call_main.h:58)").expect("f");
        assert_eq!(fun(&f), b"(below main)");
        assert_eq!(f.line, Some(58));

        let f = parse_frame(b"   by 0x4E3C249: (below main)").expect("f");
        assert_eq!((fun(&f), f.file), (&b"(below main)"[..], None));

        let f = parse_frame(
            b"   at 0x484320F: operator new[](unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)",
        )
        .expect("f");
        assert_eq!(fun(&f), b"operator new[](unsigned long)");

        let f = parse_frame(
            b"   by 0x7: pybind11::cpp_function::initialize<f, int, int>(f&&, int (*)(int))::{lambda(pybind11::detail::function_call&)#3}::operator()(pybind11::detail::function_call&) const (pybind11.h:600)",
        )
        .expect("f");
        assert_eq!(
            fun(&f),
            &b"pybind11::cpp_function::initialize<f, int, int>(f&&, int (*)(int))::{lambda(pybind11::detail::function_call&)#3}::operator()(pybind11::detail::function_call&) const"[..]
        );
        assert_eq!((f.file, f.line), (Some(&b"pybind11.h"[..]), Some(600)));

        let f = parse_frame(b"   by 0x8: ns::Box<long>::get(int) const").expect("no location");
        assert_eq!(fun(&f), b"ns::Box<long>::get(int) const");

        let f = parse_frame(b"   at 0x9: f (in /opt/My App (x86)/lib.so)").expect("parens");
        assert_eq!(f.obj, Some(&b"/opt/My App (x86)/lib.so"[..]));

        // The file's directory ends at its last `/`, wherever the other `:`, `/` and
        // parentheses are.
        let loc = |line: &'static [u8]| {
            let f = parse_frame(line).expect("frame");
            (f.fun, f.dir, f.file, f.line)
        };
        assert_eq!(
            loc(b"   by 0x9: f (/opt/My App (x86)/src/x.c:7)"),
            (
                Some(&b"f"[..]),
                Some(&b"/opt/My App (x86)/src"[..]),
                Some(&b"/opt/My App (x86)/src/x.c"[..]),
                Some(7)
            )
        );
        assert_eq!(
            loc(b"   by 0x9: f (C:/dir/f.c:3)"),
            (
                Some(&b"f"[..]),
                Some(&b"C:/dir"[..]),
                Some(&b"C:/dir/f.c"[..]),
                Some(3)
            )
        );
        assert_eq!(
            loc(b"   by 0x9: f (/x.c:3)"),
            (Some(&b"f"[..]), Some(&b""[..]), Some(&b"/x.c"[..]), Some(3))
        );
        // Not a location: the whole text is the function.
        assert_eq!(
            loc(b"   by 0x9: f (x.c:1/2)"),
            (Some(&b"f (x.c:1/2)"[..]), None, None, None)
        );
        assert_eq!(
            loc(b"   by 0x9: g(int) (x:y)"),
            (Some(&b"g(int) (x:y)"[..]), None, None, None)
        );

        assert!(parse_frame(b" Address 0x1 is on thread 1's stack").is_none());
        assert!(parse_frame(b"   (thread finished, call stack no longer available)").is_none());
    }

    #[test]
    fn used_suppressions() {
        let files = vec![
            b"my.supp".to_vec(),
            b"/usr/libexec/valgrind/default.supp".to_vec(),
        ];
        let u = parse_used(
            b"      1 my overlap rule: see x.c:12 (#42) my.supp:3",
            &files,
        )
        .expect("used");
        assert_eq!(u.count, 1);
        assert_eq!(u.name, b"my overlap rule: see x.c:12 (#42)");
        assert_eq!(u.file.as_deref(), Some(&b"my.supp"[..]));
        assert_eq!((u.line, u.leak), (Some(3), None));

        let u = parse_used(
            b"      5 reachable keep rule my.supp:9 suppressed: 1,100 bytes in 5 blocks",
            &files,
        )
        .expect("leak");
        assert_eq!(
            (u.count, u.name.as_slice()),
            (5, &b"reachable keep rule"[..])
        );
        assert_eq!((u.line, u.leak), (Some(9), Some((1100, 5))));

        let u = parse_used(
            b" 1234567 zlib-1.2.x trickyness (1a): See http://www.zlib.net/zlib_faq.html#faq36 /usr/libexec/valgrind/default.supp:512",
            &files,
        )
        .expect("default.supp");
        assert_eq!(
            u.name,
            b"zlib-1.2.x trickyness (1a): See http://www.zlib.net/zlib_faq.html#faq36"
        );
        assert_eq!(u.count, 1_234_567);

        let u =
            parse_used(b"     12 a name with spaces /unknown/file.supp:7", &[]).expect("fallback");
        assert_eq!(u.name, b"a name with spaces");
        assert_eq!(u.file.as_deref(), Some(&b"/unknown/file.supp"[..]));

        let u = parse_used(b"     12 old style name", &[]).expect("old");
        assert_eq!(
            (u.name.as_slice(), u.file.as_deref(), u.line),
            (&b"old style name"[..], None, None)
        );
        assert!(parse_used(b"   x", &[]).is_none());
    }
}
