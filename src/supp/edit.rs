//! Edits to a suppression file as byte ranges, without I/O: remove records, append new
//! ones, replace one by another, and every other byte stays where it was — the user's
//! comments, blank lines, indentation and line ends (ruff's `Edit`, taplo's `Rewrite`).
//!
//! A record's *extent* is what goes with it: its lines from `{` to `}` with the line end,
//! the comment block directly above it (comment lines with no blank line between them and
//! the record: that is the record's documentation), and one blank line that separates it
//! from what precedes it (or, for a record at the top of the file, from what follows), so
//! that removing it leaves neither a comment about nothing nor a double blank line. A
//! comment block separated from the record by a blank line belongs to the section, not to
//! the record, and stays; so does a comment below the record (it introduces the next one).
//!
//! [`prove`] checks a rewrite with the loader: for every tool, Valgrind must load the new
//! file as the old one less exactly the removed records, plus exactly the added ones.

use crate::supp::kinds::{Tool, Version};
use crate::supp::loader::{self, LoadOptions, RecordView};
use crate::supp::model::{Item, Span, SuppFile};

/// Replace the bytes of `span` with `bytes` (an empty span inserts, empty bytes remove).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes replaced.
    pub span: Span,
    /// What replaces them.
    pub bytes: Vec<u8>,
}

/// Why a rewrite was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Two edits touch the same bytes.
    #[error("edits overlap at bytes {0}..{1}")]
    Overlap(usize, usize),
    /// An edit reaches past the end of the file.
    #[error("an edit reaches past the end of the file ({0} bytes)")]
    OutOfRange(usize),
    /// There is no record with this index.
    #[error("the file has no record number {0}")]
    NoRecord(usize),
    /// The loader does not read the result as it should (a bug; nothing may be written).
    #[error("{tool}: the rewritten file does not load as the edit intends: {why}")]
    NotProven {
        /// The tool whose loader disagrees.
        tool: Tool,
        /// How.
        why: String,
    },
}

/// The bytes of a record's extent: its lines, its leading comment block and one
/// separating blank line (see the module documentation). `record` counts the file's
/// records from 0, in file order.
///
/// # Errors
/// [`EditError::NoRecord`].
pub fn extent(file: &SuppFile, record: usize) -> Result<Span, EditError> {
    let (at, rec) = file
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Item::Record(r) => Some((i, r)),
            _ => None,
        })
        .nth(record)
        .ok_or(EditError::NoRecord(record))?;
    let mut start = rec.span().start;
    let mut end = line_end(&file.source, rec.span().end);
    // The comment block directly above.
    let mut first = at;
    while first > 0 {
        match &file.items[first - 1] {
            Item::Comment(l) => {
                start = l.span.start;
                first -= 1;
            }
            _ => break,
        }
    }
    // One blank line before it; at the top of the file, one after it instead.
    match first.checked_sub(1).map(|i| &file.items[i]) {
        Some(Item::Blank(l)) => start = l.span.start,
        None => {
            if let Some(Item::Blank(l)) = file.items.get(at + 1) {
                end = line_end(&file.source, l.span.end);
            }
        }
        Some(_) => {}
    }
    Ok(Span::new(start, end))
}

/// The end of the line that ends at `at`: past its `\n` when it has one.
fn line_end(src: &[u8], at: usize) -> usize {
    if src.get(at) == Some(&b'\n') {
        at + 1
    } else {
        at
    }
}

/// The index among the file's records of the record whose `{` line starts at byte
/// `start` (the loader's [`loader::LoadedRecord::span`] start).
#[must_use]
pub fn record_at(file: &SuppFile, start: usize) -> Option<usize> {
    file.records().position(|r| r.span().start == start)
}

/// Edits applied together to one file's bytes.
#[derive(Debug, Clone, Default)]
pub struct Rewrite {
    edits: Vec<Edit>,
}

impl Rewrite {
    /// No edit yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Replace `span` with `bytes`.
    pub fn replace(&mut self, span: Span, bytes: Vec<u8>) {
        self.edits.push(Edit { span, bytes });
    }

    /// Remove `span`.
    pub fn remove(&mut self, span: Span) {
        self.replace(span, Vec::new());
    }

    /// Insert `bytes` at byte `at`.
    pub fn insert(&mut self, at: usize, bytes: Vec<u8>) {
        self.replace(Span::new(at, at), bytes);
    }

    /// The edits, in the order given.
    #[must_use]
    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    /// `source` with every edit made.
    ///
    /// # Errors
    /// [`EditError::Overlap`] when two edits touch the same bytes (two insertions at one
    /// place are made in the order given), [`EditError::OutOfRange`].
    pub fn apply(&self, source: &[u8]) -> Result<Vec<u8>, EditError> {
        let mut order: Vec<&Edit> = self.edits.iter().collect();
        order.sort_by_key(|e| (e.span.start, e.span.end));
        let mut out = Vec::with_capacity(source.len());
        let mut at = 0usize;
        for e in order {
            if e.span.end > source.len() || e.span.start > e.span.end {
                return Err(EditError::OutOfRange(source.len()));
            }
            if e.span.start < at {
                return Err(EditError::Overlap(e.span.start, at));
            }
            out.extend_from_slice(&source[at..e.span.start]);
            out.extend_from_slice(&e.bytes);
            at = e.span.end;
        }
        out.extend_from_slice(&source[at..]);
        Ok(out)
    }
}

/// `file` without the records `remove` (indices among its records, with their extents)
/// and with `append` (whole records, already formatted) after everything else, one blank
/// line before them.
///
/// # Errors
/// [`EditError::NoRecord`]; [`EditError::Overlap`] cannot happen for distinct records.
pub fn remove_and_append(
    file: &SuppFile,
    remove: &[usize],
    append: &[u8],
) -> Result<Vec<u8>, EditError> {
    let mut rw = Rewrite::new();
    let mut removed: Vec<usize> = remove.to_vec();
    removed.sort_unstable();
    removed.dedup();
    let mut spans: Vec<Span> = removed
        .iter()
        .map(|&r| extent(file, r))
        .collect::<Result<_, _>>()?;
    // Neighbouring records removed together share a separating blank line: the extents
    // of two adjacent records can touch, never overlap, except through that line, which
    // each counts (the first takes the blank after it at the top of the file).
    spans.sort_by_key(|s| s.start);
    for w in 1..spans.len() {
        if spans[w].start < spans[w - 1].end {
            spans[w].start = spans[w - 1].end;
        }
    }
    for s in spans {
        rw.remove(s);
    }
    if !append.is_empty() {
        let src = &file.source;
        let mut lead = Vec::new();
        // What remains must end with a line end and a blank line before the new records
        // (unless nothing remains).
        let remains_empty = removed.len() == file.records().count()
            && file
                .items
                .iter()
                .all(|i| matches!(i, Item::Record(_) | Item::Blank(_)));
        if !src.is_empty() && !remains_empty {
            if !src.ends_with(b"\n") {
                lead.push(b'\n');
            }
            if !src.ends_with(b"\n\n") {
                lead.push(b'\n');
            }
        }
        lead.extend_from_slice(append);
        rw.insert(src.len(), lead);
    }
    rw.apply(&file.source)
}

/// What the loader reads of `src` for `opts`: the records, as views of their bytes.
fn views(src: &[u8], opts: LoadOptions) -> Result<Vec<RecordView>, String> {
    let loaded = loader::load(src, opts, false);
    if let Some(p) = loaded.verdict() {
        return Err(format!(
            "refused at line {}: {:?}",
            p.valgrind_line, p.error
        ));
    }
    Ok(loader::record_views(src, &loaded))
}

/// Check that Valgrind `version` at `num_callers` loads `after` as `before` without the
/// records whose loader indices are `removed` (per tool), plus exactly the records of
/// `added`, in that order, for every tool.
///
/// # Errors
/// [`EditError::NotProven`] naming the tool and how the records differ.
pub fn prove(
    before: &[u8],
    after: &[u8],
    removed: &dyn Fn(Tool, u32) -> bool,
    added: &[u8],
    version: Version,
    num_callers: u32,
) -> Result<(), EditError> {
    for tool in Tool::ALL {
        let opts = LoadOptions {
            tool,
            version,
            num_callers,
        };
        let not_proven = |why: String| EditError::NotProven { tool, why };
        let loaded = loader::load(before, opts, false);
        if loaded.verdict().is_some() {
            // Valgrind refuses the file as it is for this tool: nothing to keep equal.
            continue;
        }
        let old = loader::record_views(before, &loaded);
        let mut want: Vec<RecordView> = loaded
            .records
            .iter()
            .zip(old)
            .filter(|(r, _)| !removed(tool, r.index))
            .map(|(_, v)| v)
            .collect();
        want.extend(views(added, opts).map_err(&not_proven)?);
        let got = views(after, opts).map_err(&not_proven)?;
        if got != want {
            let first = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            return Err(not_proven(format!(
                "{} records loaded where {} were meant; the first that differs is number {} ({})",
                got.len(),
                want.len(),
                first + 1,
                got.get(first)
                    .or(want.get(first))
                    .map_or_else(String::new, |v| String::from_utf8_lossy(&v.name)
                        .into_owned())
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
