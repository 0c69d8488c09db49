//! XML events: start and end tags, text, references and CDATA, turned into reader state.

use super::elements::{El, Role, classify, expand_ref, is_blank};
use super::lexer::Lexer;
use super::reader::Builder;
use super::resync::FAST_SKIP;
use super::state::{Doc, FatalBuild};
use super::{ERROR_CAP, MAX_DEPTH, NOT_SKIPPING, TEXT_CAP};
use crate::logs::record::{Gap, GenSuppression};

impl Builder {
    pub(super) fn on_decl(&mut self, lex: &Lexer) {
        if !self.stack.is_empty() || self.doc.is_some() {
            self.cut_by_new_document(lex);
            self.rebuild();
        }
    }

    /// A new document starts before the current one ended.
    pub(super) fn cut_by_new_document(&mut self, lex: &Lexer) {
        let line = lex.line();
        self.ensure_preamble();
        if let Some(err) = self.err.take() {
            let start = err.rec.line;
            let outcome = self.keep_cut_error(err);
            self.warn_gap(
                start,
                Gap::Truncated,
                format!(
                    "the <error> at line {start} is cut by a new document at line {line}: \
                     {outcome}"
                ),
            );
        }
        if let Some(doc) = self.doc.take() {
            self.warn_gap(
                line,
                Gap::Truncated,
                format!(
                    "the document that starts at line {} is cut at line {line}, where a new \
                     document starts (a truncated log concatenated with another, or a child \
                     process's XML written into its parent's file between `fork` and `exec`: \
                     record with --child-silent-after-fork=yes, as `vgsupp run` does)",
                    doc.line
                ),
            );
        }
        self.fatal = None;
        self.stack.clear();
        self.skip_from = NOT_SKIPPING;
        self.collecting = false;
    }

    pub(super) fn on_start(&mut self, lex: &Lexer, name: &[u8]) {
        if self.stack.len() >= MAX_DEPTH {
            self.malformed(lex, &format!("elements nested deeper than {MAX_DEPTH}"));
            return;
        }
        if name == b"valgrindoutput" && !self.stack.is_empty() {
            self.cut_by_new_document(lex);
            self.rebuild();
        } else if name == b"error" && self.err.is_some() {
            self.error_in_error(lex);
        }
        if self.skip_from != NOT_SKIPPING {
            self.stack.push(El::Skip);
            return;
        }
        let el = classify(name);
        if let Some(err) = &self.err {
            let start = err.start;
            if lex.offset().saturating_sub(start) > ERROR_CAP {
                self.oversized_error(lex);
                return;
            }
        }
        let parent = self.stack.last().copied();
        let role = match (parent, el) {
            (None, El::Doc) => {
                self.begin_doc(lex);
                Role::Container
            }
            (None | Some(El::Doc), El::Error) => {
                if parent.is_none() {
                    // An <error> outside any document (a fragment): read it anyway.
                    let line = lex.line();
                    self.doc.get_or_insert_with(|| Doc::implicit(line));
                    self.stack.push(El::Doc);
                }
                self.begin_error(lex);
                Role::Container
            }
            (None, El::Unique | El::Kind) => {
                // An excerpt that starts inside an <error>.
                self.begin_fragment(lex);
                Role::Leaf
            }
            (None, _) => {
                let shown = String::from_utf8_lossy(&name[..name.len().min(64)]).into_owned();
                self.malformed(lex, &format!("<{shown}> outside <valgrindoutput>"));
                return;
            }
            (
                Some(El::Doc),
                El::ProtocolVersion | El::ProtocolTool | El::Pid | El::Ppid | El::Tool,
            )
            | (Some(El::Preamble), El::Line)
            | (Some(El::Vargv | El::Argv), El::Exe | El::Arg)
            | (Some(El::Status), El::State)
            | (Some(El::Error), El::Unique | El::Tid | El::Kind | El::What | El::AuxWhat)
            | (Some(El::XWhat), El::Text | El::LeakedBytes | El::LeakedBlocks)
            | (Some(El::XAuxWhat), El::Text)
            | (Some(El::Frame), El::Ip | El::Obj | El::Fn | El::Dir | El::File | El::Line)
            | (Some(El::Suppression), El::SKind | El::SKaux)
            | (Some(El::SFrame), El::Fun | El::Obj)
            | (Some(El::Pair), El::Count | El::Name)
            | (
                Some(El::ErrorSummary),
                El::Errors | El::ErrorContexts | El::Suppressed | El::SuppressedContexts,
            )
            | (Some(El::FatalSignal), El::Tid | El::Signo | El::Signame | El::Event | El::Siaddr) => {
                Role::Leaf
            }
            (Some(El::Doc), El::Status) => {
                // A `<status>` is read from its own `<state>` only (a stale one would set
                // a flag already set; cleared, it is dead between statuses: `resume`).
                if let Some(doc) = self.doc.as_mut() {
                    doc.state.clear();
                }
                Role::Container
            }
            (Some(El::Doc), El::Preamble | El::Args) | (Some(El::Args), El::Vargv | El::Argv) => {
                Role::Container
            }
            (Some(El::Doc), El::SuppCounts | El::ErrorSummary | El::ErrorCounts) => {
                self.ensure_preamble();
                self.summary = [None; 4];
                Role::Container
            }
            (Some(El::Doc), El::AnnounceThread) => {
                self.announce = Some(Box::default());
                Role::Container
            }
            (Some(El::AnnounceThread), El::HThreadId | El::IsRootThread) => Role::Leaf,
            (Some(El::AnnounceThread), El::Stack) => Role::Container,
            (Some(El::ErrorCounts), El::Pair) => {
                self.pair = (None, None, None);
                Role::Container
            }
            (Some(El::Pair), El::Unique) => Role::Leaf,
            (Some(El::Doc), El::FatalSignal) => {
                self.ensure_preamble();
                let line = lex.line();
                self.fatal = Some(FatalBuild {
                    line,
                    ..FatalBuild::default()
                });
                Role::Container
            }
            (Some(El::Doc), El::Suppression) => {
                self.stats.duplicate_suppressions += 1;
                Role::Skip
            }
            (Some(El::Error), El::XWhat) => Role::Container,
            (Some(El::Error), El::XAuxWhat) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.push_aux(String::new());
                }
                Role::Container
            }
            (Some(El::Error), El::Stack) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.begin_stack(None);
                }
                Role::Container
            }
            (Some(El::ErrOther), El::Stack) => {
                let what = String::from_utf8_lossy(&self.other_name).into_owned();
                if let Some(err) = self.err.as_deref_mut() {
                    err.begin_stack(Some(what));
                }
                Role::Container
            }
            (Some(El::Error), El::Suppression) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.supp = Some(GenSuppression::default());
                }
                Role::Container
            }
            (Some(El::Error), El::Other) => {
                self.other_name.clear();
                self.other_name
                    .extend_from_slice(&name[..name.len().min(256)]);
                Role::ErrOther
            }
            (Some(El::Stack), El::Frame) if self.err.is_some() || self.announce.is_some() => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.frame.reset();
                } else if let Some(a) = self.announce.as_deref_mut() {
                    a.frame.reset();
                }
                Role::Container
            }
            (Some(El::Suppression), El::SFrame) => {
                if let Some(err) = self.err.as_deref_mut() {
                    err.sframe = None;
                }
                Role::Container
            }
            (Some(El::SuppCounts), El::Pair) => {
                self.pair = (None, None, None);
                Role::Container
            }
            _ => Role::Skip,
        };
        match role {
            Role::Container => self.stack.push(el),
            Role::Leaf => {
                self.stack.push(el);
                self.collecting = true;
                self.text_truncated = false;
                self.text.clear();
            }
            Role::ErrOther => self.stack.push(El::ErrOther),
            Role::Skip => {
                self.skip_from = self.stack.len();
                self.stack.push(El::Skip);
                // Its content is passed over without tokenizing it.
                self.skip_request = FAST_SKIP.iter().position(|n| *n == name);
            }
        }
    }

    /// An `<error>` starts inside another (output of two processes interleaved, or an error
    /// cut short): the outer one is cut short there.
    pub(super) fn error_in_error(&mut self, lex: &Lexer) {
        let line = lex.line();
        if let Some(err) = self.err.take() {
            let start = err.rec.line;
            let outcome = self.keep_cut_error(err);
            self.warn_gap(
                line,
                Gap::Truncated,
                format!(
                    "an <error> starts at line {line} inside the <error> at line {start} (output \
                     of several processes interleaved, or cut short?): {outcome}"
                ),
            );
        }
        self.rebuild();
        self.collecting = false;
        self.skip_from = NOT_SKIPPING;
        self.stack.clear();
        self.stack.push(El::Doc);
    }

    /// An `<error>` whose start tag is not in the log: its elements are read as one.
    pub(super) fn begin_fragment(&mut self, lex: &Lexer) {
        let line = lex.line();
        self.doc.get_or_insert_with(|| Doc::implicit(line));
        self.stack.clear();
        self.stack.push(El::Doc);
        self.stack.push(El::Error);
        self.begin_error(lex);
    }

    pub(super) fn on_end(&mut self, lex: &Lexer, name: &[u8], verified: bool) {
        let Some(&top) = self.stack.last() else {
            let shown = String::from_utf8_lossy(&name[..name.len().min(64)]).into_owned();
            self.malformed(lex, &format!("</{shown}> without a start tag"));
            return;
        };
        if !verified && top != El::Skip {
            let el = classify(name);
            let same = el == top || (el == El::Other && top == El::ErrOther);
            if !same {
                let shown = String::from_utf8_lossy(&name[..name.len().min(64)]).into_owned();
                self.malformed(lex, &format!("</{shown}> does not close the open element"));
                return;
            }
        }
        self.stack.pop();
        if self.skip_from != NOT_SKIPPING {
            if self.stack.len() <= self.skip_from {
                self.skip_from = NOT_SKIPPING;
            }
            return;
        }
        if self.collecting {
            self.collecting = false;
            if self.text_truncated {
                let line = lex.line();
                self.warn(
                    line,
                    format!(
                        "text of an element ending at line {line} is longer than {} MiB: cut",
                        TEXT_CAP >> 20
                    ),
                );
            }
            self.leaf_end(top);
        } else {
            self.container_end(lex, top);
        }
    }

    pub(super) fn on_text(&mut self, lex: &Lexer, text: &[u8]) {
        if self.skip_from != NOT_SKIPPING {
            return;
        }
        if self.collecting {
            self.push_text(text);
        } else {
            if !is_blank(text) {
                self.stray_text(lex);
            }
        }
    }

    pub(super) fn on_ref(&mut self, lex: &Lexer, name: &[u8]) {
        if self.skip_from != NOT_SKIPPING {
            return;
        }
        if !self.collecting {
            self.stray_text(lex);
            return;
        }
        let mut tmp = [0u8; 4];
        for piece in expand_ref(name, &mut tmp) {
            self.push_text(piece);
        }
    }

    pub(super) fn on_cdata(&mut self, data: &[u8]) {
        if self.skip_from != NOT_SKIPPING || !self.collecting {
            return;
        }
        self.push_text(data);
    }

    pub(super) fn stray_text(&mut self, lex: &Lexer) {
        match self.stack.last() {
            Some(El::ErrOther) => {}
            None => self.malformed(lex, "text outside <valgrindoutput>"),
            Some(el) => {
                let el = *el;
                self.malformed(lex, &format!("unexpected text in <{}>", el.name()));
            }
        }
    }

    pub(super) fn push_text(&mut self, bytes: &[u8]) {
        let room = TEXT_CAP.saturating_sub(self.text.len());
        if bytes.len() > room {
            self.text.extend_from_slice(&bytes[..room]);
            self.text_truncated = true;
        } else {
            self.text.extend_from_slice(bytes);
        }
    }
}
