//! Byte helpers shared by the log readers: trimming, numbers (decimal with or without
//! thousands separators, hex), searches over short texts, lossy UTF-8.

use memchr::{memchr, memrchr};

/// The value of each hex digit; 0xFF for other bytes (a table: frame addresses are parsed
/// for every frame line).
pub(crate) const HEX_VALUES: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The value of a hex digit.
pub(crate) fn hex_value(c: u8) -> Option<u8> {
    let v = HEX_VALUES[usize::from(c)];
    (v != 0xFF).then_some(v)
}

pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The text with invalid UTF-8 replaced and surrounding whitespace removed.
pub(crate) fn lossy_trim(b: &[u8]) -> String {
    lossy(trim(b))
}

/// `*s = lossy(b)`, reusing `s`'s allocation.
pub(crate) fn set_lossy(s: &mut String, b: &[u8]) {
    s.clear();
    s.push_str(&String::from_utf8_lossy(b));
}

#[inline(always)]
pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &s[n..]
}

#[inline(always)]
pub(crate) fn trim_end(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_whitespace())
        .count();
    &s[..s.len() - n]
}

#[inline(always)]
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    // Most texts trimmed have nothing to trim.
    match (s.first(), s.last()) {
        (Some(a), Some(z)) if !a.is_ascii_whitespace() && !z.is_ascii_whitespace() => s,
        _ => trim_end(trim_start(s)),
    }
}

pub(crate) fn trim_start_byte(s: &[u8], b: u8) -> &[u8] {
    let n = s.iter().take_while(|c| **c == b).count();
    &s[n..]
}

pub(crate) fn trim_end_byte(s: &[u8], b: u8) -> &[u8] {
    let n = s.iter().rev().take_while(|c| **c == b).count();
    &s[..s.len() - n]
}

/// Plain decimal digits (no sign, no separators).
pub(crate) fn parse_digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')))
}

/// A leading number with optional thousands separators (`1,234`), and the rest.
pub(crate) fn take_num(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut n: u64 = 0;
    let mut len = 0;
    let mut digits = 0;
    for &c in s {
        match c {
            b'0'..=b'9' => {
                n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                digits += 1;
            }
            b',' if digits > 0 => {}
            _ => break,
        }
        len += 1;
    }
    (digits > 0).then_some((n, &s[len..]))
}

pub(crate) fn take_u32(s: &[u8]) -> Option<u32> {
    take_num(s).and_then(|(n, _)| u32::try_from(n).ok())
}

pub(crate) fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut n = 0u64;
    for &c in s {
        if n >> 60 != 0 {
            return None; // a 17th significant digit: too large
        }
        n = (n << 4) | u64::from(hex_value(c)?);
    }
    Some(n)
}

/// A hex number as XML elements hold it (`<ip>0x4C2B955</ip>`, `<unique>0x1a</unique>`):
/// whitespace around it, an optional `0x`/`0X`.
pub(crate) fn hex_number(b: &[u8]) -> Option<u64> {
    let b = trim(b);
    parse_hex(
        b.strip_prefix(b"0x")
            .or_else(|| b.strip_prefix(b"0X"))
            .unwrap_or(b),
    )
}

/// A decimal number, possibly with thousands separators (`1,024`: XML 3.26+ summaries),
/// with whitespace around it.
pub(crate) fn parse_num(b: &[u8]) -> Option<u64> {
    let b = trim(b);
    if b.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &c in b {
        match c {
            b'0'..=b'9' => n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?,
            b',' => {}
            _ => return None,
        }
    }
    Some(n)
}

/// The number ([`take_num`]) at the start of `b`, after leading whitespace.
pub(crate) fn leading_number(b: &[u8]) -> Option<u64> {
    take_num(trim_start(b)).map(|(n, _)| n)
}

/// Where `needle` first occurs in `hay` (for short lines: no searcher to set up).
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(k) = memchr(first, &hay[from..]) {
        let i = from + k;
        if hay[i + 1..].starts_with(rest) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// Where `needle` last occurs in `hay`.
pub(crate) fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut end = hay.len();
    while let Some(i) = memrchr(first, &hay[..end]) {
        if hay[i + 1..].starts_with(rest) {
            return Some(i);
        }
        end = i;
    }
    None
}

/// The text after the first `needle`.
pub(crate) fn after<'a>(t: &'a [u8], needle: &[u8]) -> Option<&'a [u8]> {
    find(t, needle).map(|p| &t[p + needle.len()..])
}

/// The text after the last `needle`.
pub(crate) fn after_last<'a>(t: &'a [u8], needle: &[u8]) -> Option<&'a [u8]> {
    rfind(t, needle).map(|p| &t[p + needle.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits() {
        for c in 0..=255u8 {
            let want = (c as char).to_digit(16).map(|d| d as u8);
            assert_eq!(hex_value(c), want, "{c:#x}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_num(b" 1,024 "), Some(1024));
        assert_eq!(parse_num(b"x"), None);
        assert_eq!(parse_num(b""), None);
        assert_eq!(parse_num(b"99999999999999999999999"), None);
        assert_eq!(take_num(b"1,234 bytes"), Some((1234, &b" bytes"[..])));
        assert_eq!(take_num(b",1"), None);
        assert_eq!(leading_number(b"  12 bytes"), Some(12));
        assert_eq!(parse_digits(b"0012"), Some(12));
        assert_eq!(parse_digits(b"1,2"), None);
    }

    #[test]
    fn hex_numbers() {
        assert_eq!(parse_hex(b"4C2B955"), Some(0x4C2B955));
        assert_eq!(parse_hex(b"ffffffffffffffff"), Some(u64::MAX));
        // Leading zeros do not count; a 17th significant digit does.
        assert_eq!(parse_hex(b"0000ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_hex(b"10000000000000000"), None);
        assert_eq!(parse_hex(b""), None);
        assert_eq!(parse_hex(b"0x1"), None);
        assert_eq!(hex_number(b" 0x1A\n"), Some(26));
        assert_eq!(hex_number(b"0X1a"), Some(26));
        assert_eq!(hex_number(b"0x"), None);
    }

    #[test]
    fn searches() {
        assert_eq!(find(b"a bb b", b"b "), Some(3));
        assert_eq!(rfind(b"a bb b", b"b"), Some(5));
        assert_eq!(find(b"abc", b""), None);
        assert_eq!(after(b"x of size 4", b"of size "), Some(&b"4"[..]));
        assert_eq!(after_last(b"#1 by thread #2", b"#"), Some(&b"2"[..]));
        assert_eq!(trim(b" \t x \r"), b"x");
        assert_eq!(lossy_trim(b" \xff "), "\u{fffd}");
    }
}
