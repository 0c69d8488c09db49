//! Byte searches over short spans, a 16-byte SSE2 block at a time: where the `\n`s of a
//! buffer are ([`Newlines`]), and the last parenthesis before a point ([`last_paren`]).
//!
//! Why: a Valgrind log's lines are short (about 55 bytes in a large log), and so are the
//! parts of a line the text reader searches. Calling `memchr` once per line, or looping
//! byte by byte, spends more on set-up and on mispredicted loop exits than on the search.
//! Here a block gives a bit mask from SSE2 compares (through `wide`, which keeps this
//! crate free of `unsafe`), and each hit is then one `trailing_zeros` or `leading_zeros`.

use wide::u8x16;

/// Bytes covered by one mask.
const BLOCK: usize = 64;

/// Bit `i` of the result is set when `lanes[i] == byte`.
#[inline]
fn lane_mask(lanes: [u8; 16], byte: u8) -> u32 {
    // `move_mask` gives the 16 lane bits in the low bits of an i32.
    #[allow(clippy::cast_sign_loss)]
    let bits = u8x16::new(lanes).cmp_eq(u8x16::splat(byte)).move_mask() as u32;
    bits & 0xFFFF
}

/// Bit `i` is set when `block[i]` is `\n`.
#[inline]
fn block_mask(block: &[u8; BLOCK]) -> u64 {
    let mut mask = 0u64;
    for (k, part) in block.chunks_exact(16).enumerate() {
        let mut lanes = [0u8; 16];
        lanes.copy_from_slice(part);
        mask |= u64::from(lane_mask(lanes, b'\n')) << (k * 16);
    }
    mask
}

/// The mask of the block that starts at `base` (a shorter last block is padded with bytes
/// that are not `\n`).
#[inline]
fn mask_at(buf: &[u8], base: usize) -> u64 {
    match buf
        .get(base..base + BLOCK)
        .and_then(|b| <&[u8; BLOCK]>::try_from(b).ok())
    {
        Some(block) => block_mask(block),
        None => {
            let tail = buf.get(base..).unwrap_or_default();
            let mut padded = [0u8; BLOCK];
            padded[..tail.len()].copy_from_slice(tail);
            block_mask(&padded)
        }
    }
}

/// The offsets of the `\n`s of a buffer, in order.
#[derive(Debug, Clone)]
pub(crate) struct Newlines<'a> {
    buf: &'a [u8],
    /// Where the block of `mask` starts.
    base: usize,
    /// The `\n`s of that block not handed out yet.
    mask: u64,
}

impl<'a> Newlines<'a> {
    /// The `\n`s of `buf`.
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self {
            buf,
            base: 0,
            mask: if buf.is_empty() { 0 } else { mask_at(buf, 0) },
        }
    }
}

impl Iterator for Newlines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += BLOCK;
            if self.base >= self.buf.len() {
                return None;
            }
            self.mask = mask_at(self.buf, self.base);
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + bit)
    }
}

/// The last `(` or `)` of `w[..end]`, and the last `/` after it (before `end`).
#[inline]
pub(crate) fn last_paren(w: &[u8], end: usize) -> (Option<usize>, Option<usize>) {
    let mut hi = end.min(w.len());
    let mut slash = None;
    while hi > 0 {
        let lo = hi.saturating_sub(16);
        // The block `w[lo..hi]` in the low lanes; in a short first block the rest are
        // zero, which matches nothing.
        let lanes = match <[u8; 16]>::try_from(&w[lo..hi]) {
            Ok(whole) => whole,
            Err(_) => {
                let mut part = [0u8; 16];
                part[..hi - lo].copy_from_slice(&w[lo..hi]);
                part
            }
        };
        let parens = lane_mask(lanes, b'(') | lane_mask(lanes, b')');
        let slashes = lane_mask(lanes, b'/');
        if parens != 0 {
            let at = highest_bit(parens);
            if slash.is_none() {
                // Only the slashes after the parenthesis.
                let after = slashes & !((2u32 << at) - 1);
                if after != 0 {
                    slash = Some(lo + highest_bit(after));
                }
            }
            return (Some(lo + at), slash);
        }
        if slash.is_none() && slashes != 0 {
            slash = Some(lo + highest_bit(slashes));
        }
        hi = lo;
    }
    (None, slash)
}

/// The index of the highest set bit of a non-zero `bits`.
#[inline]
fn highest_bit(bits: u32) -> usize {
    31 - bits.leading_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(buf: &[u8]) -> Vec<usize> {
        memchr::memchr_iter(b'\n', buf).collect()
    }

    #[test]
    fn finds_every_newline_at_every_position_and_length() {
        // Newlines at block edges, in a short last block, and none at all.
        for len in 0..200 {
            for every in [1, 2, 7, 63, 64, 65, 1000] {
                let buf: Vec<u8> = (0..len)
                    .map(|i| if i % every == every - 1 { b'\n' } else { b'x' })
                    .collect();
                assert_eq!(
                    Newlines::new(&buf).collect::<Vec<_>>(),
                    expected(&buf),
                    "len {len} every {every}"
                );
            }
        }
    }

    /// `last_paren`, a byte at a time.
    fn last_paren_slowly(w: &[u8], end: usize) -> (Option<usize>, Option<usize>) {
        let paren = w[..end].iter().rposition(|&c| c == b'(' || c == b')');
        let from = paren.map_or(0, |p| p + 1);
        let slash = w[from..end]
            .iter()
            .rposition(|&c| c == b'/')
            .map(|s| from + s);
        (paren, slash)
    }

    #[test]
    fn last_paren_finds_the_last_parenthesis_and_the_slash_after_it() {
        // Every string of up to 6 bytes over `()/x`, then the same bytes spread over
        // lengths that cross 16-byte blocks.
        let alphabet = b"()/x";
        for len in 0..=6u32 {
            for mut code in 0..4usize.pow(len) {
                let w: Vec<u8> = (0..len)
                    .map(|_| {
                        let c = alphabet[code % 4];
                        code /= 4;
                        c
                    })
                    .collect();
                for end in 0..=w.len() {
                    assert_eq!(
                        last_paren(&w, end),
                        last_paren_slowly(&w, end),
                        "{w:?} {end}"
                    );
                }
            }
        }
        for len in 0..80 {
            for (p, q) in [(0, 1), (3, 40), (15, 16), (16, 17), (31, 33), (20, 79)] {
                let mut w = vec![b'a'; len];
                for (at, c) in [(p, b'('), (q, b'/')] {
                    if at < len {
                        w[at] = c;
                    }
                }
                for end in 0..=len {
                    assert_eq!(
                        last_paren(&w, end),
                        last_paren_slowly(&w, end),
                        "{len} {end}"
                    );
                }
            }
        }
    }

    #[test]
    fn only_newlines_count() {
        // Every byte value, and bytes that differ from `\n` in one bit.
        let buf: Vec<u8> = (0..=255u8).chain([0x0b, 0x08, 0x8a, 0x4a, b'\n']).collect();
        assert_eq!(Newlines::new(&buf).collect::<Vec<_>>(), expected(&buf));
    }
}
