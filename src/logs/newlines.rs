//! Where the `\n`s of a buffer are, found 64 bytes at a time.
//!
//! Why: a Valgrind log's lines are short (about 55 bytes in a large log), and calling
//! `memchr` once per line spends more on each call's set-up, and on its mispredicted loop
//! exits, than on the search. Here one 64-bit mask per 64 bytes is built with four SSE2
//! compares (through `wide`, which keeps this crate free of `unsafe`), and each line end is
//! then one `trailing_zeros`.

use wide::u8x16;

/// Bytes covered by one mask.
const BLOCK: usize = 64;

/// Bit `i` is set when `block[i]` is `\n`.
#[inline]
fn block_mask(block: &[u8; BLOCK]) -> u64 {
    let nl = u8x16::splat(b'\n');
    let mut mask = 0u64;
    for (k, part) in block.chunks_exact(16).enumerate() {
        let mut lanes = [0u8; 16];
        lanes.copy_from_slice(part);
        // `move_mask` gives the 16 lane bits in the low bits of an i32.
        #[allow(clippy::cast_sign_loss)]
        let bits = (u8x16::new(lanes).cmp_eq(nl).move_mask() as u32) & 0xFFFF;
        mask |= u64::from(bits) << (k * 16);
    }
    mask
}

/// The mask of the block that starts at `base` (a shorter last block is padded with bytes
/// that are not `\n`).
#[inline]
fn mask_at(buf: &[u8], base: usize) -> u64 {
    match buf.get(base..base + BLOCK) {
        Some(block) => {
            let mut whole = [0u8; BLOCK];
            whole.copy_from_slice(block);
            block_mask(&whole)
        }
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

    #[test]
    fn only_newlines_count() {
        // Every byte value, and bytes that differ from `\n` in one bit.
        let buf: Vec<u8> = (0..=255u8).chain([0x0b, 0x08, 0x8a, 0x4a, b'\n']).collect();
        assert_eq!(Newlines::new(&buf).collect::<Vec<_>>(), expected(&buf));
    }
}
