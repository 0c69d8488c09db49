//! Per-line grammars of the suppression language, written with `nom` (§1.4, §1.6, §1.7).
//!
//! Each function takes the trimmed text of one line as Valgrind's C code sees it (cut at the
//! first NUL) and the byte offset of that text in the file, and returns spans into the file.

use nom::bytes::complete::{tag, take_till, take_while};
use nom::combinator::rest;
use nom::{IResult, Parser};

use crate::supp::lines::is_space;
use crate::supp::model::{FishyExtra, Frame, LeakKind, LeakKinds, Span, ToolLine};

/// nom's result over byte slices.
type Res<'a, T> = IResult<&'a [u8], T>;

fn span_of(base: usize, whole: &[u8], part: &[u8]) -> Span {
    let start = base + (part.as_ptr() as usize - whole.as_ptr() as usize);
    Span::new(start, start + part.len())
}

/// `is_location_line`: starts with `fun:` or `obj:`, or is exactly `...`. `src:` is **not** a
/// location line (§1.6), which is what decides how extra lines are read.
#[must_use]
pub fn is_location_line(text: &[u8]) -> bool {
    text.starts_with(b"fun:") || text.starts_with(b"obj:") || text == b"..."
}

fn prefixed<'a>(
    prefix: &'static str,
) -> impl Parser<&'a [u8], Output = &'a [u8], Error = nom::error::Error<&'a [u8]>> {
    nom::sequence::preceded(tag(prefix.as_bytes()), rest)
}

/// `setLocationTy`: classify a frame line, or `None` for "location should be …".
#[must_use]
pub fn frame(text: &[u8], base: usize) -> Option<Frame> {
    if let Ok((_, pat)) = prefixed("fun:").parse(text) {
        return Some(Frame::Fun(span_of(base, text, pat)));
    }
    if let Ok((_, pat)) = prefixed("obj:").parse(text) {
        return Some(Frame::Obj(span_of(base, text, pat)));
    }
    if let Ok((_, body)) = prefixed("src:").parse(text) {
        let res: IResult<&[u8], &[u8]> = take_till(|b| b == b':').parse(body);
        let (after, file) = res.ok()?;
        let line = after.strip_prefix(b":").map_or(0, strtoll10_as_uint);
        return Some(Frame::Src {
            file: span_of(base, text, file),
            line,
        });
    }
    (text == b"...").then_some(Frame::Ellipsis)
}

/// `VG_(strtoll10)` then a cast to `UInt`: optional whitespace and sign, leading decimal
/// digits, anything after ignored; no digits gives 0 ("any line").
#[must_use]
pub fn strtoll10_as_uint(s: &[u8]) -> u32 {
    let res: Res<'_, (&[u8], &[u8], &[u8])> = (
        take_while(is_space),
        take_while(|b| b == b'-' || b == b'+'),
        take_while(|b: u8| b.is_ascii_digit()),
    )
        .parse(s);
    let Ok((_, (_, sign, digits))) = res else {
        return 0;
    };
    // Only one sign character is consumed by the C code.
    let (neg, digits) = match sign {
        b"" => (false, digits),
        b"-" => (true, digits),
        b"+" => (false, digits),
        _ => return 0,
    };
    let n = digits.iter().fold(0_i64, |n, d| {
        n.wrapping_mul(10).wrapping_add(i64::from(d - b'0'))
    });
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let v = if neg { n.wrapping_neg() } else { n } as u32;
    v
}

/// Split a tool line at its **first** `:` (§1.4).
#[must_use]
pub fn tool_line(text: &[u8], base: usize) -> ToolLine {
    let res: IResult<&[u8], &[u8]> = take_till(|b| b == b':').parse(text);
    match res {
        Ok((after, tools)) if !after.is_empty() => ToolLine::Split {
            tools: span_of(base, text, tools),
            kind: span_of(base, text, &after[1..]),
        },
        _ => ToolLine::Malformed,
    }
}

/// The longest input `VG_(parse_enum_set)` accepts ("obviously invalid" beyond).
const ENUM_SET_MAX_INPUT: usize = 1000;

/// Parse a `match-leak-kinds:` line (`MC_(read_extra_suppression_info)` and
/// `VG_(parse_enum_set)`): returns the list's span and the set, `None` when Valgrind refuses
/// it. `None` overall when the line does not start with exactly `match-leak-kinds:`.
#[must_use]
pub fn leak_kinds_line(text: &[u8], base: usize) -> Option<(Span, Option<LeakKinds>)> {
    let res: IResult<&[u8], &[u8]> =
        nom::sequence::preceded(tag(&b"match-leak-kinds:"[..]), take_while(is_space)).parse(text);
    let (list, _) = res.ok()?;
    Some((span_of(base, text, list), parse_enum_set(list)))
}

/// `VG_(parse_enum_set)` with Memcheck's leak-kind tokens and `all` allowed (§1.6): split on
/// `,` only, empty items ignored, every word exact, `all`/`none` alone, at least one kind.
#[must_use]
pub fn parse_enum_set(list: &[u8]) -> Option<LeakKinds> {
    if list.len() > ENUM_SET_MAX_INPUT {
        return None;
    }
    let mut set = LeakKinds::default();
    let (mut all, mut none) = (false, false);
    for word in list.split(|&b| b == b',').filter(|w| !w.is_empty()) {
        match word {
            b"all" => all = true,
            b"none" => none = true,
            _ => set.insert(
                LeakKind::ALL
                    .into_iter()
                    .find(|k| k.token().as_bytes() == word)?,
            ),
        }
    }
    if all {
        (!none && set.bits == 0).then_some(LeakKinds {
            all: true,
            ..LeakKinds::everything()
        })
    } else if none {
        (set.bits == 0).then_some(LeakKinds {
            none: true,
            ..LeakKinds::default()
        })
    } else {
        (set.bits != 0).then_some(set)
    }
}

/// Parse a `FishyValue` extra line `FUNC(ARG)`: split at the first `(`, the argument runs to
/// the next `)`, anything after is ignored; `None` when either parenthesis is missing.
#[must_use]
pub fn fishy(text: &[u8], base: usize) -> Option<FishyExtra> {
    let res: Res<'_, (&[u8], &[u8], &[u8])> = (
        take_till(|b| b == b'('),
        tag(&b"("[..]),
        take_till(|b| b == b')'),
    )
        .parse(text);
    let (after, (func, _, arg)) = res.ok()?;
    after.starts_with(b")").then(|| FishyExtra {
        function: span_of(base, text, func),
        argument: span_of(base, text, arg),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        assert_eq!(frame(b"fun:x", 10), Some(Frame::Fun(Span::new(14, 15))));
        assert_eq!(frame(b"obj:", 0), Some(Frame::Obj(Span::new(4, 4))));
        assert_eq!(frame(b"...", 0), Some(Frame::Ellipsis));
        assert_eq!(frame(b"....", 0), None);
        assert_eq!(frame(b"foo:bar", 0), None);
        assert_eq!(
            frame(b"src:f.c:11x", 0),
            Some(Frame::Src {
                file: Span::new(4, 7),
                line: 11
            })
        );
        assert_eq!(
            frame(b"src:f.c:abc", 0),
            Some(Frame::Src {
                file: Span::new(4, 7),
                line: 0
            })
        );
        assert_eq!(
            frame(b"src:f.c", 0),
            Some(Frame::Src {
                file: Span::new(4, 7),
                line: 0
            })
        );
    }

    #[test]
    fn tool_lines() {
        assert_eq!(
            tool_line(b"Memcheck:Addr4:x", 0),
            ToolLine::Split {
                tools: Span::new(0, 8),
                kind: Span::new(9, 16)
            }
        );
        assert_eq!(tool_line(b"Memcheck", 0), ToolLine::Malformed);
        assert_eq!(
            tool_line(b":Addr4", 0),
            ToolLine::Split {
                tools: Span::new(0, 0),
                kind: Span::new(1, 6)
            }
        );
    }

    #[test]
    fn leak_kind_sets() {
        let ok = |s: &[u8]| parse_enum_set(s).map(|k| k.canonical());
        assert_eq!(
            ok(b"definite,possible").as_deref(),
            Some("definite,possible")
        );
        assert_eq!(
            ok(b"possible,definite").as_deref(),
            Some("definite,possible")
        );
        assert_eq!(ok(b",,definite,").as_deref(), Some("definite"));
        assert_eq!(ok(b"all").as_deref(), Some("all"));
        assert_eq!(ok(b"none").as_deref(), Some("none"));
        assert_eq!(ok(b"definite, possible"), None);
        assert_eq!(ok(b"Definite"), None);
        assert_eq!(ok(b"all,definite"), None);
        assert_eq!(ok(b""), None);
        assert_eq!(ok(b","), None);
        assert!(leak_kinds_line(b"match-leak-kinds :definite", 0).is_none());
        let (_, set) = leak_kinds_line(b"match-leak-kinds:\tdefinite", 0).unwrap();
        assert_eq!(set.unwrap().canonical(), "definite");
    }

    #[test]
    fn fishy_lines() {
        assert!(fishy(b"malloc(size)", 0).is_some());
        let f = fishy(b"malloc(size)junk", 0).unwrap();
        assert_eq!(f.argument, Span::new(7, 11));
        assert!(fishy(b"malloc(size", 0).is_none());
        assert!(fishy(b"malloc", 0).is_none());
    }

    #[test]
    fn strtoll() {
        assert_eq!(strtoll10_as_uint(b"11x"), 11);
        assert_eq!(strtoll10_as_uint(b""), 0);
        assert_eq!(strtoll10_as_uint(b"+7"), 7);
        assert_eq!(strtoll10_as_uint(b"-1"), u32::MAX);
    }
}
