//! The frames of an error's stacks and of its suppression, read straight from the buffer
//! when they are written as Valgrind writes them.
//!
//! Why: frames are most of a log (40 of them per error in a deep run, each some 14 tags and
//! 13 text runs), and token by token they cost several times what one pass over their bytes
//! does. A frame whose children are the known ones, each `<name>text</name>` without
//! attributes, comments or CDATA, with only whitespace between them, all in the bytes
//! already read, is read here with the effect the token path has on it: the same fields, the
//! same state after it (`tests::frames_read_fast_as_token_by_token` compares both). Anything
//! else, and a frame not yet wholly read, goes the token path.

use super::elements::{El, expand_ref};
use super::reader::Core;
use super::state::FrameText;
use super::{ERROR_CAP, MAX_DEPTH, NOT_SKIPPING, TEXT_CAP};
use wide::u8x16;

use crate::logs::bytes::{hex_number, parse_num};

/// A child of a `<frame>` or `<sframe>`.
#[derive(Clone, Copy)]
enum Child {
    Ip,
    Line,
    Text(FrameText),
    /// `<fun>` or `<obj>` of an `<sframe>`: whether it is `<obj>`.
    SFrame(bool),
}

/// What a frame's children say, before they are stored.
struct Read<'a> {
    /// Each child's raw text, and whether it holds a `&`, in order; at most 8 kept (more
    /// goes the token path).
    children: [(Child, &'a [u8], bool); 8],
    n: usize,
    /// Bytes read, through the end tag of the frame.
    len: usize,
}

impl Core {
    /// Right after the start tag of a `<frame>` of an error's stack (or an `<sframe>` of its
    /// suppression), as the token path left the state: reads the rest of the element when
    /// it can. False: nothing was read.
    pub(super) fn fast_frame(&mut self, sframe: bool) -> bool {
        let b = &self.b;
        let Some(err) = b.err.as_deref() else {
            return false;
        };
        if b.resync_pending
            || b.skip_request.is_some()
            || b.skip_from != NOT_SKIPPING
            || b.collecting
            || b.stack.len() >= MAX_DEPTH
            || b.stack.last() != Some(if sframe { &El::SFrame } else { &El::Frame })
            || (sframe && (b.stack.len() < 2 || b.stack[b.stack.len() - 2] != El::Suppression))
        {
            return false;
        }
        let rest = self.lex.rest();
        let Some(read) = parse(rest, sframe) else {
            return false;
        };
        // The token path checks the size of the error at each start tag: within it here.
        if (self.lex.offset() + read.len as u64).saturating_sub(err.start) > ERROR_CAP {
            return false;
        }
        let b = &mut self.b;
        for &(child, raw, amp) in &read.children[..read.n] {
            b.text.clear();
            if amp {
                decode(raw, &mut b.text);
            } else {
                b.text.extend_from_slice(raw);
            }
            let Some(err) = b.err.as_deref_mut() else {
                return false;
            };
            let text = &b.text;
            match child {
                Child::Ip => err.frame.ip = hex_number(text),
                Child::Line => {
                    err.frame.line = parse_num(text).and_then(|n| u32::try_from(n).ok());
                }
                Child::Text(which) => err.frame.set(which, text),
                Child::SFrame(obj) => {
                    err.sframe = Some(obj);
                    err.sframe_text.clear();
                    err.sframe_text.extend_from_slice(text);
                }
            }
        }
        if read.n > 0 {
            // As the token path leaves it: the last child's text (in `text` now), not cut.
            b.text_truncated = false;
        }
        self.lex.advance(read.len);
        // The end tag, as the token path reads it.
        let name: &[u8] = if sframe { b"sframe" } else { b"frame" };
        let b = &mut self.b;
        if let Some(start) = b.open_starts.pop() {
            b.open.truncate(start);
        }
        b.on_end(&self.lex, name, true);
        true
    }
}

/// The children of a frame and its end tag at the start of `rest`, when written plainly.
fn parse(rest: &[u8], sframe: bool) -> Option<Read<'_>> {
    let mut read = Read {
        children: [(Child::Ip, &b""[..], false); 8],
        n: 0,
        len: 0,
    };
    let mut i = 0;
    loop {
        while i < rest.len() && matches!(rest[i], b' ' | b'\n' | b'\t' | b'\r') {
            i += 1;
        }
        if rest.get(i) != Some(&b'<') {
            return None;
        }
        i += 1;
        // Tags here are short: plain loops beat search calls.
        let close = rest[i..(i + 12).min(rest.len())]
            .iter()
            .position(|&b| b == b'>')?;
        let tag = &rest[i..i + close];
        i += close + 1;
        let child = match (sframe, tag) {
            (false, b"/frame") | (true, b"/sframe") => {
                read.len = i;
                return Some(read);
            }
            (false, b"ip") => Child::Ip,
            (false, b"obj") => Child::Text(FrameText::Obj),
            (false, b"fn") => Child::Text(FrameText::Fn),
            (false, b"dir") => Child::Text(FrameText::Dir),
            (false, b"file") => Child::Text(FrameText::File),
            (false, b"line") => Child::Line,
            (true, b"fun") => Child::SFrame(false),
            (true, b"obj") => Child::SFrame(true),
            _ => return None,
        };
        let (end, amp) = text_end(&rest[i..])?;
        let end = i + end;
        let text = &rest[i..end];
        if text.len() > TEXT_CAP || read.n == read.children.len() {
            return None;
        }
        // `</tag>`, exactly.
        let after = rest.get(end + 2..end + 3 + tag.len())?;
        if rest[end + 1] != b'/'
            || !after[..tag.len()].iter().zip(tag).all(|(a, b)| a == b)
            || after[tag.len()] != b'>'
        {
            return None;
        }
        read.children[read.n] = (child, text, amp);
        read.n += 1;
        i = end + 3 + tag.len();
    }
}

/// Where the text at the start of `rest` ends (its `<`), and whether it holds a `&`: 16
/// bytes at a time (most texts are a number, a name or a path; `memchr` calls cost more
/// than they search there), `memchr` past 256 bytes.
fn text_end(rest: &[u8]) -> Option<(usize, bool)> {
    let mut amp = false;
    let mut base = 0;
    while base < rest.len().min(256) {
        let (lt, amps) = masks(&rest[base..]);
        if lt != 0 {
            let i = lt.trailing_zeros();
            return Some((base + i as usize, amp || amps & ((1 << i) - 1) != 0));
        }
        amp |= amps != 0;
        base += 16;
    }
    let end = memchr::memchr(b'<', rest)?;
    Some((end, amp || memchr::memchr(b'&', &rest[..end]).is_some()))
}

/// Bit `i` set where byte `i` of the (up to) 16 bytes at the start of `bytes` is `<`, and
/// where it is `&`.
#[inline]
fn masks(bytes: &[u8]) -> (u32, u32) {
    let mut lanes = [0u8; 16];
    let n = bytes.len().min(16);
    lanes[..n].copy_from_slice(&bytes[..n]);
    let v = u8x16::new(lanes);
    // `move_mask` gives the 16 lane bits in the low bits of an i32; the padding matches
    // neither byte.
    #[allow(clippy::cast_sign_loss)]
    let bits = |b: u8| (v.cmp_eq(u8x16::splat(b)).move_mask() as u32) & 0xFFFF;
    (bits(b'<'), bits(b'&'))
}

/// Appends `raw` with its references replaced, as the tokens of a text run are read: a
/// `&` without its `;` before the next `&` (or the end) is text.
fn decode(raw: &[u8], out: &mut Vec<u8>) {
    let mut rest = raw;
    while let Some(amp) = memchr::memchr(b'&', rest) {
        out.extend_from_slice(&rest[..amp]);
        let after = &rest[amp + 1..];
        match memchr::memchr2(b';', b'&', after) {
            Some(j) if after[j] == b';' => {
                let mut tmp = [0u8; 4];
                for piece in expand_ref(&after[..j], &mut tmp) {
                    out.extend_from_slice(piece);
                }
                rest = &after[j + 1..];
            }
            Some(j) => {
                out.extend_from_slice(&rest[amp..=amp + j]);
                rest = &after[j..];
            }
            None => {
                out.extend_from_slice(&rest[amp..]);
                rest = &[];
            }
        }
    }
    out.extend_from_slice(rest);
}
