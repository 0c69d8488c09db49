//! Resuming at a sync line (parallel reading, see `xml::parallel`): the state a reader that
//! starts there is guessed to have, and whether the reader that arrived there from the start
//! of the log has the same.
//!
//! A sync line starts with `<error>` (Valgrind writes each error at the start of a line, at
//! the top level of its document) or starts a document (`<?xml`, `<valgrindoutput`). A
//! reader guessed at an `<error>` is inside the last document read before (its preamble
//! known, nothing else open); one guessed at a document start is between documents. Two
//! states read the rest of a log alike when their [`ResumeKey`]s are equal and neither
//! holds part of a token: what the key leaves out is output already handed out, text of an
//! element not being read (dead until the next element clears it), what matters only to
//! warnings (the count of warnings so far, the line where the document starts: a chunk
//! whose reader warned is read again, as its messages name lines numbered before the
//! chunk's place was known), and the
//! `<unique>`s of the document's errors, which only grow and are consulted only by
//! `<errorcounts>`: a guessed reader starts without them, and its chunk is used only if it
//! never looked one up that it had not seen itself, and the true count plus its own stays
//! below the cap.

use super::XmlStats;
use super::elements::El;
use super::lexer::Lexer;
use super::reader::{Builder, Core, Pair};
use super::state::{Doc, MAX_UNIQUES};
use crate::logs::record::{AuxStack, LogItem};
use crate::logs::text::{CHUNK_BASE, chunk_line};
use crate::supp::kinds::Tool;

/// What a sync line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SyncKind {
    /// `<error>`: an error at the top level of a document.
    Error,
    /// `<?xml` or `<valgrindoutput`: a document.
    Document,
}

/// What readers of later chunks are guessed to know: the last document read (its preamble,
/// none of its errors) and the counts that decide warnings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seed {
    doc: Option<Doc>,
    stats: XmlStats,
}

/// Everything that decides how a reader reads the rest of a log (see the module's docs).
#[derive(Debug, PartialEq)]
pub(crate) struct ResumeKey {
    stack: Vec<El>,
    open: Vec<u8>,
    open_starts: Vec<usize>,
    fresh: bool,
    resync_pending: bool,
    skip_request: Option<usize>,
    skip_from: usize,
    /// The text of the element being read, and whether it was cut.
    collecting: Option<(Vec<u8>, bool)>,
    /// Read only inside the elements that set them.
    other_name: Option<Vec<u8>>,
    pair: Option<Pair>,
    summary: Option<[Option<u64>; 4]>,
    doc: Option<DocKey>,
    /// An error, a fatal signal, an announcement being read.
    pending: (bool, bool, bool),
    /// A document or an error was read (else the end of the log says so).
    seen: bool,
}

#[derive(Debug, PartialEq)]
struct DocKey {
    pid: Option<u32>,
    ppid: Option<u32>,
    tool: Option<Tool>,
    protocol: Option<u64>,
    version: Option<String>,
    command: Option<String>,
    options: Vec<String>,
    supp_files: Vec<Vec<u8>>,
    /// Inside a `<status>` only.
    state: Option<Vec<u8>>,
    preamble_sent: bool,
    implicit: bool,
    context: Vec<AuxStack>,
    uniques_full: bool,
}

impl Doc {
    /// This document as a guess for a later chunk: without its errors' `<unique>`s, the
    /// announcements waiting for the next error, and what its `<status>`es said (see
    /// [`Doc::key`]).
    fn seed(&self) -> Self {
        let Self {
            line,
            pid,
            ppid,
            tool,
            protocol,
            version,
            command,
            options,
            supp_files,
            state: _,
            preamble_sent,
            running: _,
            finished: _,
            implicit,
            context: _,
            by_unique: _,
            uniques_full,
            guessed: _,
        } = self;
        Self {
            line: *line,
            pid: *pid,
            ppid: *ppid,
            tool: *tool,
            protocol: *protocol,
            version: version.clone(),
            command: command.clone(),
            options: options.clone(),
            supp_files: supp_files.clone(),
            state: Vec::new(),
            preamble_sent: *preamble_sent,
            running: false,
            finished: false,
            implicit: *implicit,
            context: Vec::new(),
            by_unique: rustc_hash::FxHashMap::default(),
            uniques_full: *uniques_full,
            guessed: true,
        }
    }

    /// The document's part of a [`ResumeKey`]; `in_status`: a `<status>` is being read.
    ///
    /// What its `<status>`es said (`running`, `finished`) is named only where the document
    /// ends, to warn when it did not finish: a guessed document says it did not (and the
    /// warning this may give makes the consumer read the chunk again); at a chunk's end
    /// the true flags are the true state's or the chunk's own.
    fn key(&self, in_status: bool) -> DocKey {
        let Self {
            // Named only in warnings, which make the consumer read a chunk again.
            line: _,
            pid,
            ppid,
            tool,
            protocol,
            version,
            command,
            options,
            supp_files,
            state,
            preamble_sent,
            running: _,
            finished: _,
            implicit,
            context,
            by_unique: _,
            uniques_full,
            guessed: _,
        } = self;
        DocKey {
            pid: *pid,
            ppid: *ppid,
            tool: *tool,
            protocol: *protocol,
            version: version.clone(),
            command: command.clone(),
            options: options.clone(),
            supp_files: supp_files.clone(),
            state: in_status.then(|| state.clone()),
            preamble_sent: *preamble_sent,
            implicit: *implicit,
            context: context.clone(),
            uniques_full: *uniques_full,
        }
    }
}

impl Core {
    /// What later chunks are guessed to know, from this (true) state; between documents,
    /// the document of `previous` (the next one may well be another run of it).
    pub(crate) fn seed(&self, previous: &Seed) -> Seed {
        Seed {
            doc: match &self.b.doc {
                Some(doc) => Some(doc.seed()),
                None => previous.doc.clone(),
            },
            stats: self.b.stats,
        }
    }

    /// A reader guessed at the sync line of kind `kind` at `offset`, from `seed`. Its
    /// lines are numbered from `CHUNK_BASE + 1`.
    pub(crate) fn guessed(seed: &Seed, kind: SyncKind, offset: u64, name: &str) -> Self {
        let mut b = Builder::new(name);
        b.fresh = false;
        b.stats = seed.stats;
        if kind == SyncKind::Error {
            b.doc = seed.doc.clone();
            b.stack.push(El::Doc);
            b.open_starts.push(0);
            b.open.extend_from_slice(b"valgrindoutput");
        }
        Self {
            lex: Lexer::new(offset, CHUNK_BASE),
            b,
            fast: true,
        }
    }

    /// This state's [`ResumeKey`]; `None` while part of a token waits for more input.
    ///
    /// Every struct is destructured without `..`: a field added to the reader's state does
    /// not compile until it is either part of the key or named here as not deciding anything.
    pub(crate) fn resume_key(&self) -> Option<ResumeKey> {
        if !self.lex.is_idle() {
            return None;
        }
        let Builder {
            name: _,
            out: _,
            failed,
            done,
            resync_pending,
            skip_request,
            open,
            open_starts,
            fresh,
            stack,
            skip_from,
            text,
            collecting,
            text_truncated,
            other_name,
            doc,
            err,
            fatal,
            announce,
            pair,
            summary,
            stats,
            consulted_guess: _,
            guess_uniques: _,
            // Which gaps were warned about decides only past the warnings' cap.
            gaps_seen: _,
        } = &self.b;
        if *done || failed.is_some() {
            return None;
        }
        let inside = |el: El| stack.contains(&el);
        Some(ResumeKey {
            stack: stack.clone(),
            open: open.clone(),
            open_starts: open_starts.clone(),
            fresh: *fresh,
            resync_pending: *resync_pending,
            skip_request: *skip_request,
            skip_from: *skip_from,
            collecting: collecting.then(|| (text.clone(), *text_truncated)),
            other_name: inside(El::ErrOther).then(|| other_name.clone()),
            pair: inside(El::Pair).then(|| pair.clone()),
            summary: inside(El::ErrorSummary).then_some(*summary),
            doc: doc.as_ref().map(|d| d.key(inside(El::Status))),
            pending: (err.is_some(), fatal.is_some(), announce.is_some()),
            seen: stats.documents > 0 || stats.errors > 0,
        })
    }

    /// Whether this reader, guessed at the start of a chunk and arrived at its end, read the
    /// chunk as `tail` (the true state at its start, with an equal key) would have: it
    /// looked up no `<unique>` it had not seen, and the document's `<unique>`s stay below
    /// the cap.
    pub(crate) fn guesses_hold(&self, tail: &Self) -> bool {
        if self.b.consulted_guess {
            return false;
        }
        match tail.b.doc.as_ref() {
            Some(doc) if !doc.uniques_full && self.b.guess_uniques > 0 => {
                doc.by_unique.len() + self.b.guess_uniques < MAX_UNIQUES
            }
            _ => true,
        }
    }

    /// Takes over from `tail` (see [`Self::guesses_hold`]): this reader's lines, numbered
    /// from `CHUNK_BASE + 1`, are the log's from `first` on, and the `<unique>`s `tail` knew
    /// of its document are added to those this reader saw.
    pub(crate) fn adopt_chunk(&mut self, tail: Self, first: u64) {
        self.lex.renumber(first);
        let b = &mut self.b;
        let at = |line: &mut u64| *line = chunk_line(*line, first);
        if let Some(err) = b.err.as_deref_mut() {
            at(&mut err.rec.line);
        }
        if let Some(fatal) = b.fatal.as_mut() {
            at(&mut fatal.line);
        }
        if let Some(doc) = b.doc.as_mut() {
            at(&mut doc.line);
            for line in doc.by_unique.values_mut() {
                at(line);
            }
            if doc.guessed {
                doc.guessed = false;
                if let Some(known) = tail.b.doc {
                    doc.line = known.line;
                    doc.running |= known.running;
                    doc.finished |= known.finished;
                    let mine = std::mem::replace(&mut doc.by_unique, known.by_unique);
                    doc.by_unique.extend(mine);
                }
            }
        }
        b.guess_uniques = 0;
        // Warnings so far decide which later ones are shown; a chunk used warned none.
        b.stats.warnings = tail.b.stats.warnings;
    }

    /// Moves what is ready to be handed out to the end of `items`.
    pub(crate) fn drain_into(&mut self, items: &mut Vec<LogItem>) {
        items.extend(self.b.out.drain(..));
    }
}

/// Numbers the lines of `items` as the log does: they come from a chunk whose first line
/// is the log's line `first`.
pub(crate) fn shift(items: &mut [LogItem], first: u64) {
    for item in items {
        match item {
            LogItem::Error(e) => e.line = chunk_line(e.line, first),
            LogItem::Warning { line, .. } | LogItem::Fatal { line, .. } => {
                *line = chunk_line(*line, first);
            }
            LogItem::ContextCount { error_line, .. } => {
                *error_line = chunk_line(*error_line, first);
            }
            _ => {}
        }
    }
}
