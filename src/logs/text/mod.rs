//! Text logs: a streaming reader of Valgrind's text output (valgrind-semantics.md §3, §5).
//!
//! [`TextReader`] turns the lines of a log into [`LogItem`]s, in log order. It reads bytes
//! (names and paths need not be UTF-8), one line at a time through a reused buffer, and
//! keeps at most one error per process in memory, and nothing of a process whose output
//! is complete.
//!
//! What it understands:
//!
//! * Line prefixes `==PID== `, `--PID-- `, `**PID** ` (and the old `++PID++ `), with
//!   `--time-stamp=yes` (`==DD:HH:MM:SS.mmm PID== `), with one `>` per nesting level, and
//!   with any text before them on the same line (CI time stamps, `[job 5] `, a Markdown
//!   quote `> `, the spaces of an indented code block): the prefix is looked for anywhere
//!   in the line. Lines without a prefix are program output and are ignored, except the
//!   `--gen-suppressions` blocks, `valgrind: ` failure lines and excerpts' lines whose
//!   prefix was lost (below).
//! * Several processes in one file, their lines interleaved: the state is kept per PID
//!   (found by PID, whatever the number of processes). A suppression block carries no PID;
//!   it is attached to the most recently completed error that has no block yet.
//! * Each process's preamble (tool, version, command, parent PID, `-v` options), emitted
//!   once as [`LogItem::Preamble`] at the first line that is not part of it. A process that
//!   `exec`s under `--trace-children=yes` prints a new preamble with the same PID: the run
//!   before ends there, and the reader starts that PID afresh.
//! * The end of a process's output: [`LogItem::ProcessEnd`] after its last
//!   `ERROR SUMMARY:` (the second one with `-s`/`-v`; the only one when the
//!   `For lists of detected and suppressed errors, rerun with: -s` hint says no listing
//!   follows, or before 3.15 without `-v`), at an `exec`, and at the end of the log for the
//!   processes still open, in the order they started. The process's state is released
//!   then; a later line of its PID starts a new run.
//! * Errors and loss records of Memcheck, Helgrind and DRD, and the core fd errors of
//!   3.23+, with their stacks, aux and origin stacks and `--gen-suppressions` blocks. The
//!   kind comes from the block's `Tool:Kind` line when there is one (it is authoritative),
//!   otherwise from the header text. An unrecognised header that is directly followed by a
//!   stack is still read as an error (DRD `GenericErr`, Helgrind `Misc`, otherwise an empty
//!   kind and a [`LogItem::Warning`]).
//! * Helgrind's announcements: `---Thread-Announcement---` paragraphs (`Thread #N was
//!   created` with its stack, `Thread #1 is the program's root thread`), and the
//!   ` Lock at 0x… was first observed` (or `: no stacktrace for first observation`)
//!   paragraphs printed before a race: [`ErrorRecord::context`] of the error that follows,
//!   never errors.
//! * `Reading suppressions file:`, `used_suppression:` (parsed from the right, using the
//!   announced suppression files to split the name from the file), `ERROR SUMMARY:` (with
//!   `-v`/`-s` it is printed twice per process and both copies are emitted), `FATAL:`
//!   blocks, `Process terminating with default action of signal …`, and `valgrind: `
//!   failure lines (consecutive ones are one [`LogItem::Fatal`], without a PID).
//! * `-v`: `Reading syms from PATH` ([`LogItem::ObjectLoaded`]) and `Discarding syms at
//!   0xA-0xB in PATH` / `Archiving syms at …` ([`LogItem::ObjectUnloaded`]).
//! * The `N errors in context i of C:` listing that `-s`/`-v` print after the summary: each
//!   listed error is matched, by its header and the IPs of its stack, to the error its
//!   process showed earlier, which gets the count ([`LogItem::ContextCount`]); a warning
//!   when several match, or when too many were shown to remember (10,000 per process).
//!   When none matches, the listed copy is read as the error, with a warning (an excerpt
//!   that starts at the listing), unless another process of the log showed it (a forked
//!   child lists the contexts it inherited). The 3.23+ `N errors (suppressed by NAME) in
//!   context …` entries are dropped.
//! * `More than 1000 different errors detected` / `More than 10000000 total errors
//!   detected`: a warning where Valgrind stopped showing errors.
//! * Excerpts pasted into issues: an error header whose prefix was lost (`Invalid read of
//!   size 4` at column 0) or damaged (`=123== …`) starts an error when a frame line follows
//!   it (of the damaged prefix's PID); lines with no prefix at all (header at column 0,
//!   frames `   at 0x…`) are read as a process without a PID; Markdown bold inside a
//!   header; without a preamble (tool unknown), a Memcheck header ends the error in
//!   progress.
//! * Damage: lines longer than 1 MiB are truncated (one warning each); runs of binary
//!   garbage give one warning per run. An error cut short (by the end of the log, an
//!   unrelated line, an `exec`) is kept with the frames read when it has one, with
//!   [`ErrorRecord::truncated`] set when frames of its own stack may be missing (the cut
//!   came while its stack was read, or a frame line was cut short, or frame lines followed
//!   its blank line); the end of the log warns once for all such errors, an interruption
//!   at the error. Frame lines without an error header before them (an excerpt that starts
//!   inside a stack) give one warning per run. A suppression block cut off by the end of
//!   the log is dropped with a warning. Nothing panics.

use std::io::BufRead;

#[cfg(doc)]
use super::record::ErrorRecord;
use super::record::{LogItem, ReadError};
use super::scan::Newlines;

mod blocks;
mod classify;
mod contexts;
mod errors;
mod fields;
mod lines;
mod resume;
mod state;
#[cfg(test)]
mod tests;

pub(crate) use resume::{CHUNK_BASE, ResumeKey, chunk_line, is_sync_pair};
pub(crate) use state::{Spares, State};

/// The longest line kept; longer lines are truncated to this many bytes.
pub const MAX_LINE: usize = 1 << 20;

/// An error longer than this many lines is not one (it would need 40 stacks of 500
/// frames); it is dropped rather than kept growing.
const MAX_ERROR_LINES: u32 = 20_000;

/// Fatal messages are cut at this many bytes.
const MAX_MESSAGE: usize = 64 * 1024;

/// A suppression block longer than this many lines is not one (Valgrind prints at most
/// 500 frames, a few more with inlining).
const MAX_BLOCK_LINES: usize = 10_000;

/// Reads a Valgrind text log as a stream of [`LogItem`]s.
///
/// ```
/// use vgsupp::logs::text::TextReader;
/// use vgsupp::logs::LogItem;
///
/// let log = "==7== Invalid read of size 4\n==7==    at 0x1091B8: rd (a.c:5)\n==7== \n";
/// let items: Vec<LogItem> = TextReader::new(log.as_bytes()).map(Result::unwrap).collect();
/// assert!(matches!(&items[0], LogItem::Error(e) if e.kind == "Addr4"));
/// ```
pub struct TextReader<R: BufRead> {
    reader: R,
    lines: LineSplitter,
    done: bool,
    st: State,
}

impl<R: BufRead> TextReader<R> {
    /// A reader of the text log `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            lines: LineSplitter::default(),
            done: false,
            st: State::new("<text log>"),
        }
    }

    /// Names the log in [`ReadError::Io`] (default `<text log>`).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.st.name = name.into();
        self
    }

    /// Reads and processes lines until something is ready to hand out, or handles the end
    /// of the input.
    fn step(&mut self) -> std::io::Result<()> {
        let st = &mut self.st;
        let eof = self.lines.pump(&mut self.reader, |line, truncated| {
            st.line(line, truncated);
            st.out.is_empty()
        })?;
        if eof {
            self.st.finish();
            self.done = true;
        }
        Ok(())
    }
}

/// Splits a byte stream into lines (without their `\n`), cut at [`MAX_LINE`], keeping the
/// line that spans two of the reader's buffers.
#[derive(Debug, Default)]
pub(crate) struct LineSplitter {
    /// A line that spans the reader's buffer boundary.
    partial: Vec<u8>,
    /// Whether `partial` was cut at [`MAX_LINE`].
    partial_truncated: bool,
}

impl LineSplitter {
    /// Hands lines of `reader` to `on_line(line, truncated)` until it returns false (after
    /// at least one line) or the input ends; true when it ended (the last line, without
    /// `\n`, has then been handed out too).
    pub(crate) fn pump<R: BufRead + ?Sized>(
        &mut self,
        reader: &mut R,
        mut on_line: impl FnMut(&[u8], bool) -> bool,
    ) -> std::io::Result<bool> {
        loop {
            let avail = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if !self.partial.is_empty() || self.partial_truncated {
                    on_line(&self.partial, self.partial_truncated);
                    self.partial.clear();
                    self.partial_truncated = false;
                }
                return Ok(true);
            }
            let mut ends = Newlines::new(avail);
            let Some(first) = ends.next() else {
                let n = avail.len();
                push_capped(&mut self.partial, avail, &mut self.partial_truncated);
                reader.consume(n);
                continue;
            };
            // The line that started in an earlier buffer.
            let mut used = first + 1;
            let mut more = if self.partial.is_empty() && !self.partial_truncated {
                let (line, truncated) = cap(&avail[..first]);
                on_line(line, truncated)
            } else {
                push_capped(
                    &mut self.partial,
                    &avail[..first],
                    &mut self.partial_truncated,
                );
                let more = on_line(&self.partial, self.partial_truncated);
                self.partial.clear();
                self.partial_truncated = false;
                more
            };
            // Whole lines in this buffer, without going back to the reader for each.
            while more {
                let Some(end) = ends.next() else {
                    break;
                };
                let (line, truncated) = cap(&avail[used..end]);
                more = on_line(line, truncated);
                used = end + 1;
            }
            reader.consume(used);
            return Ok(false);
        }
    }
}

impl<R: BufRead> Iterator for TextReader<R> {
    type Item = Result<LogItem, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.st.out.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            if let Err(source) = self.step() {
                // Report the error, then hand out what was complete before it.
                self.done = true;
                self.st.finish();
                return Some(Err(ReadError::Io {
                    path: self.st.name.clone(),
                    source,
                }));
            }
        }
    }
}

/// `line`, cut at [`MAX_LINE`].
fn cap(line: &[u8]) -> (&[u8], bool) {
    if line.len() > MAX_LINE {
        (&line[..MAX_LINE], true)
    } else {
        (line, false)
    }
}

/// Appends `more` to `buf` without letting it grow past [`MAX_LINE`].
fn push_capped(buf: &mut Vec<u8>, more: &[u8], truncated: &mut bool) {
    let room = MAX_LINE.saturating_sub(buf.len());
    if more.len() > room {
        *truncated = true;
        buf.extend_from_slice(&more[..room]);
    } else {
        buf.extend_from_slice(more);
    }
}
