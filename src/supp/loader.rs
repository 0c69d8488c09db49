//! An exact emulation of Valgrind's suppression loader (`load_one_suppressions_file` in
//! `m_errormgr.c`; valgrind-semantics.md §1).
//!
//! Valgrind reads the file differently for each tool (a record for another tool is skipped
//! without validation), release and `--num-callers`, so this runs once per [`LoadOptions`].
//! In strict mode it stops where Valgrind stops; in recovering mode it resumes at the next
//! `{` line after an error, so every problem in a file is found in one pass. The first
//! problem it reports is always the one Valgrind reports, at the line Valgrind names.

use crate::supp::kinds::{self, ExtraSpec, Tool, Version};
use crate::supp::lines::{self, Lines, PhysLine, VALGRIND_MAX_LINE};
use crate::supp::model::{FishyExtra, Frame, LeakKinds, Span};
use crate::supp::syntax;

/// Valgrind's `VG_DEEPEST_BACKTRACE`: at most this many frames in a suppression.
pub const DEEPEST_BACKTRACE: usize = 500;
/// Valgrind's default `--num-callers`.
pub const DEFAULT_NUM_CALLERS: u32 = 12;

/// What Valgrind run to emulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoadOptions {
    /// The running tool.
    pub tool: Tool,
    /// The Valgrind release.
    pub version: Version,
    /// `--num-callers` (frames beyond it are dropped at load time, §1.7).
    pub num_callers: u32,
}

impl LoadOptions {
    /// Options for `tool` with the newest release and the default `--num-callers`.
    #[must_use]
    pub fn new(tool: Tool) -> Self {
        Self {
            tool,
            version: Version::default(),
            num_callers: DEFAULT_NUM_CALLERS,
        }
    }
}

/// Everything Valgrind can refuse or crash on while loading or using a suppression file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LoadError {
    /// `expected '{' or end-of-file`
    ExpectedOpenBrace,
    /// `unexpected '}'` (also at end of file where a name is expected)
    UnexpectedCloseBrace,
    /// `unexpected end-of-file (expecting tool:suppr)`
    EofExpectingTool,
    /// `malformed 'tool1,tool2,...:supp' line`
    MalformedToolLine,
    /// `unknown core suppression type`
    UnknownCoreKind,
    /// `unknown tool suppression type`
    UnknownToolKind,
    /// `unexpected end-of-file (when skipping suppression)`
    EofWhenSkipping,
    /// `bad or missing extra suppression info`
    BadExtra,
    /// `unexpected end-of-file (when reading stack trace)`
    EofInStackTrace,
    /// `missing stack trace`
    MissingStackTrace,
    /// `too many callers in stack trace`
    TooManyCallers,
    /// `location should be "...", or should start with "fun:", "obj:", or "src:"`
    BadLocation,
    /// `suppression must contain at least one location line which is not "..."`
    OnlyEllipsis,
    /// A line of 51200 or more characters: `VG_(get_line)` asserts and Valgrind aborts.
    LineTooLong,
    /// A `FishyValue` record without its `FUNC(ARG)` line loads, then Valgrind crashes when a
    /// FishyValue error is compared with it.
    FishyWithoutExtra,
    /// `Helgrind:FreeMemLock` loads, then Helgrind asserts on the first error compared.
    FreeMemLock,
}

/// How a [`LoadError`] shows in Valgrind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `FATAL: in suppressions file … near line N`, exit status 1.
    Fatal,
    /// An assertion failure while loading.
    Abort,
    /// The file loads; Valgrind crashes later, when an error is compared with the record.
    LaterCrash,
}

impl LoadError {
    /// Valgrind's message (`err_str`), or a description for aborts and crashes.
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            Self::ExpectedOpenBrace => "expected '{' or end-of-file",
            Self::UnexpectedCloseBrace => "unexpected '}'",
            Self::EofExpectingTool => "unexpected end-of-file (expecting tool:suppr)",
            Self::MalformedToolLine => "malformed 'tool1,tool2,...:supp' line",
            Self::UnknownCoreKind => "unknown core suppression type",
            Self::UnknownToolKind => "unknown tool suppression type",
            Self::EofWhenSkipping => "unexpected end-of-file (when skipping suppression)",
            Self::BadExtra => "bad or missing extra suppression info",
            Self::EofInStackTrace => "unexpected end-of-file (when reading stack trace)",
            Self::MissingStackTrace => "missing stack trace",
            Self::TooManyCallers => "too many callers in stack trace",
            Self::BadLocation => {
                "location should be \"...\", or should start with \"fun:\", \"obj:\", or \"src:\""
            }
            Self::OnlyEllipsis => {
                "suppression must contain at least one location line which is not \"...\""
            }
            Self::LineTooLong => "line longer than 100000 chars, aborting",
            Self::FishyWithoutExtra => "FishyValue suppression without its FUNC(ARG) line",
            Self::FreeMemLock => "Helgrind:FreeMemLock suppression",
        }
    }

    /// How Valgrind fails on it.
    #[must_use]
    pub const fn outcome(self) -> Outcome {
        match self {
            Self::LineTooLong => Outcome::Abort,
            Self::FishyWithoutExtra | Self::FreeMemLock => Outcome::LaterCrash,
            _ => Outcome::Fatal,
        }
    }
}

/// One problem found while loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadProblem {
    /// What went wrong.
    pub error: LoadError,
    /// The line Valgrind names (`near line N`): the number of `\n` consumed so far.
    pub valgrind_line: u32,
    /// The physical line where it happened; `None` at end of file.
    pub at: Option<PhysLine>,
}

/// The extra data of a loaded Memcheck record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadedExtra {
    /// No extra line (or the kind takes none).
    None,
    /// `Param` string.
    Param(Span),
    /// `Leak` with or without `match-leak-kinds:` (without: every kind).
    Leak(LeakKinds),
    /// `FishyValue` with its function and argument; `None` when the line was absent.
    Fishy(Option<FishyExtra>),
}

/// A record as Valgrind holds it after loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedRecord {
    /// Which record of the file it is: the number of records (every `{` the loader began a
    /// record at, including records of other tools it skipped) before it.
    pub index: u32,
    /// The record's bytes, from the start of its `{` line to the end of its `}` line (without
    /// the line end).
    pub span: Span,
    /// The trimmed name.
    pub name: Span,
    /// The line Valgrind reports for the record (`sname_lineno`, as in `used_suppression`).
    pub name_line: u32,
    /// The kind (text after the first `:` of the tool line).
    pub kind: Span,
    /// Extra data.
    pub extra: LoadedExtra,
    /// The frames kept, truncated to `--num-callers`.
    pub frames: Vec<Frame>,
}

/// The result of loading a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadResult {
    /// Records loaded, in file order.
    pub records: Vec<LoadedRecord>,
    /// Problems in file order. In strict mode, at most one that stops loading (the last).
    pub problems: Vec<LoadProblem>,
}

impl LoadResult {
    /// The first problem that makes Valgrind refuse or abort while loading: Valgrind's
    /// verdict on the file. `None` when Valgrind loads it.
    #[must_use]
    pub fn verdict(&self) -> Option<&LoadProblem> {
        self.problems
            .iter()
            .find(|p| p.error.outcome() != Outcome::LaterCrash)
    }
}

/// Reader of non-blank non-comment lines (`get_nbnc_line`).
struct Reader<'a> {
    lines: Lines<'a>,
    src: &'a [u8],
    newlines_total: u32,
    lineno: u32,
    long_lines: Vec<PhysLine>,
    /// Where the last line returned ends (after its `\n`).
    last_end: usize,
}

impl<'a> Reader<'a> {
    fn new(src: &'a [u8]) -> Self {
        Self {
            lines: Lines::new(src),
            src,
            newlines_total: lines::newline_count(src),
            lineno: 0,
            long_lines: Vec::new(),
            last_end: 0,
        }
    }

    /// The next non-blank, non-comment line and its C-string text, or `None` at end of file.
    fn next(&mut self) -> Option<(PhysLine, &'a [u8])> {
        for line in self.lines.by_ref() {
            if line.is_blank() {
                continue;
            }
            if line.stored_len() >= VALGRIND_MAX_LINE {
                self.long_lines.push(line);
            }
            self.lineno = line.valgrind_lineno();
            self.last_end = line.span.end;
            if !line.has_newline {
                // `get_nbnc_line` returns a final line without `\n` straight from its read
                // loop: neither trimmed nor checked for `#` (so `}  ` or `# c` there is
                // not `}` or a comment).
                return Some((
                    line,
                    lines::c_str(&self.src[line.text.start..line.span.end]),
                ));
            }
            let text = line.text.slice(self.src);
            if lines::is_comment(text) {
                continue;
            }
            return Some((line, lines::c_str(text)));
        }
        self.lineno = self.newlines_total;
        None
    }
}

/// Load `src` as Valgrind would with `opts`. With `recover`, resume after each error at the
/// next `{` line and report every problem; without, stop at the first one like Valgrind.
#[must_use]
pub fn load(src: &[u8], opts: LoadOptions, recover: bool) -> LoadResult {
    let mut loader = Loader {
        r: Reader::new(src),
        opts,
        out: LoadResult::default(),
        records: 0,
    };
    let mut pending: Option<(PhysLine, &[u8])> = None;
    loop {
        let start = match pending.take() {
            Some(l) => Some(l),
            None => loader.r.next(),
        };
        let Some(start) = start else { break };
        match loader.record(start) {
            Ok(()) => {}
            Err((error, at)) => {
                loader.problem(error, at);
                if !recover {
                    break;
                }
                // Resume where the broken record ends: after its `}`, or at a `{` that starts
                // the next one. A stray line outside records is reported on its own.
                let at_text = at.map(|l| lines::c_str(l.text.slice(src)));
                pending = match at_text {
                    _ if error == LoadError::ExpectedOpenBrace => None,
                    None | Some(b"}") => None,
                    Some(b"{") => at.map(|l| (l, b"{".as_slice())),
                    Some(_) => loop {
                        match loader.r.next() {
                            Some((l, t)) if t == b"{" => break Some((l, t)),
                            Some((_, t)) if t == b"}" => break None,
                            Some(_) => {}
                            None => break None,
                        }
                    },
                };
            }
        }
        if !recover && loader.flush_long_lines() {
            break;
        }
    }
    loader.flush_long_lines();
    loader.finish(recover)
}

type Step<T> = Result<T, (LoadError, Option<PhysLine>)>;

struct Loader<'a> {
    r: Reader<'a>,
    opts: LoadOptions,
    out: LoadResult,
    /// Records begun so far.
    records: u32,
}

impl<'a> Loader<'a> {
    fn problem(&mut self, error: LoadError, at: Option<PhysLine>) {
        // Long lines read before this point abort Valgrind first.
        self.flush_long_lines();
        let valgrind_line = match (error.outcome(), at) {
            (Outcome::LaterCrash, Some(l)) => l.valgrind_lineno(),
            _ => self.r.lineno,
        };
        self.out.problems.push(LoadProblem {
            error,
            valgrind_line,
            at,
        });
    }

    /// Report long lines read so far; true when there were any.
    fn flush_long_lines(&mut self) -> bool {
        let long = std::mem::take(&mut self.r.long_lines);
        let any = !long.is_empty();
        for l in long {
            self.out.problems.push(LoadProblem {
                error: LoadError::LineTooLong,
                valgrind_line: l.valgrind_lineno(),
                at: Some(l),
            });
        }
        any
    }

    fn finish(mut self, recover: bool) -> LoadResult {
        // Problems are reported in the order Valgrind meets them; a long line is met while it
        // is read, so it sorts before a syntax error raised on a later line.
        self.out
            .problems
            .sort_by_key(|p| p.at.map_or(u32::MAX, |l| l.number));
        let first_stop = self
            .out
            .problems
            .iter()
            .position(|p| p.error.outcome() != Outcome::LaterCrash);
        if let (false, Some(i)) = (recover, first_stop) {
            self.out.problems.truncate(i + 1);
        }
        self.out
    }

    fn next_or(&mut self, error: LoadError) -> Step<(PhysLine, &'a [u8])> {
        self.r.next().ok_or((error, None))
    }

    fn record(&mut self, (open, open_text): (PhysLine, &'a [u8])) -> Step<()> {
        if open_text != b"{" {
            return Err((LoadError::ExpectedOpenBrace, Some(open)));
        }
        let index = self.records;
        self.records += 1;
        let (name_line, name_text) = self
            .r
            .next()
            .ok_or((LoadError::UnexpectedCloseBrace, None))?;
        if name_text == b"}" {
            return Err((LoadError::UnexpectedCloseBrace, Some(name_line)));
        }
        let name = Span::new(name_line.text.start, name_line.text.start + name_text.len());
        let name_lineno = name_line.valgrind_lineno();
        let (tool_line, tool_text) = self.next_or(LoadError::EofExpectingTool)?;
        let base = tool_line.text.start;
        let Some(colon) = memchr::memchr(b':', tool_text) else {
            return Err((LoadError::MalformedToolLine, Some(tool_line)));
        };
        let tools = &tool_text[..colon];
        let kind_text = &tool_text[colon + 1..];
        let kind = Span::new(base + colon + 1, base + tool_text.len());
        let v = self.opts.version;
        let tool = self.opts.tool;
        if tool.needs_core_errors(v)
            && kinds::tool_name_present(kinds::core_tool_name(v).as_bytes(), tools)
        {
            if kinds::core_kind_recognised(kind_text, v) {
                // Core suppressions take no extra line.
                let frames = self.frames(None)?;
                self.out.records.push(LoadedRecord {
                    index,
                    span: Span::new(open.span.start, self.r.last_end),
                    name,
                    name_line: name_lineno,
                    kind,
                    extra: LoadedExtra::None,
                    frames,
                });
                return Ok(());
            }
            return Err((LoadError::UnknownCoreKind, Some(tool_line)));
        }
        if !kinds::tool_name_present(tool.supp_name().as_bytes(), tools) {
            // Skip the record without validating it.
            loop {
                let (_, text) = self.next_or(LoadError::EofWhenSkipping)?;
                if text == b"}" {
                    return Ok(());
                }
            }
        }
        if !tool.recognises(kind_text, v) {
            return Err((LoadError::UnknownToolKind, Some(tool_line)));
        }
        if tool == Tool::Helgrind && kind_text == b"FreeMemLock" {
            self.problem(LoadError::FreeMemLock, Some(tool_line));
        }
        let spec = if tool == Tool::Memcheck {
            kinds::memcheck_kind(kind_text, v).unwrap_or(ExtraSpec::None)
        } else {
            ExtraSpec::None
        };
        let (extra, reread) = self.extra(spec, tool_line)?;
        let frames = self.frames(reread)?;
        self.out.records.push(LoadedRecord {
            index,
            span: Span::new(open.span.start, self.r.last_end),
            name,
            name_line: name_lineno,
            kind,
            extra,
            frames,
        });
        Ok(())
    }

    /// `MC_(read_extra_suppression_info)`: returns the extra data and, when the tool read a
    /// location line, that line (reused as the first frame).
    #[allow(clippy::type_complexity)]
    fn extra(
        &mut self,
        spec: ExtraSpec,
        tool_line: PhysLine,
    ) -> Step<(LoadedExtra, Option<(PhysLine, &'a [u8])>)> {
        if spec == ExtraSpec::None {
            return Ok((LoadedExtra::None, None));
        }
        // `VG_(get_line)`: end of file or a location line means "no extra line".
        let line = self.r.next();
        let location = line.filter(|(_, t)| syntax::is_location_line(t));
        let extra_line = line.filter(|(_, t)| !syntax::is_location_line(t));
        match spec {
            ExtraSpec::Param => {
                let (l, t) = extra_line.ok_or((LoadError::BadExtra, line.map(|(l, _)| l)))?;
                Ok((
                    LoadedExtra::Param(Span::new(l.text.start, l.text.start + t.len())),
                    None,
                ))
            }
            ExtraSpec::Leak => match extra_line {
                None => Ok((LoadedExtra::Leak(LeakKinds::everything()), location)),
                Some((l, t)) => match syntax::leak_kinds_line(t, l.text.start) {
                    Some((_, Some(set))) => Ok((LoadedExtra::Leak(set), None)),
                    _ => Err((LoadError::BadExtra, Some(l))),
                },
            },
            ExtraSpec::Fishy => match extra_line {
                None => {
                    self.problem(LoadError::FishyWithoutExtra, Some(tool_line));
                    Ok((LoadedExtra::Fishy(None), location))
                }
                Some((l, t)) => match syntax::fishy(t, l.text.start) {
                    Some(f) => Ok((LoadedExtra::Fishy(Some(f)), None)),
                    None => Err((LoadError::BadExtra, Some(l))),
                },
            },
            ExtraSpec::None => Ok((LoadedExtra::None, None)),
        }
    }

    /// The frame-reading loop, `--num-callers` truncation and the "only `...`" check.
    fn frames(&mut self, mut reread: Option<(PhysLine, &'a [u8])>) -> Step<Vec<Frame>> {
        let mut frames = Vec::new();
        let nc = usize::try_from(self.opts.num_callers).unwrap_or(usize::MAX);
        let mut close = None;
        loop {
            let (line, text) = match reread.take() {
                Some(l) => l,
                None => self.next_or(LoadError::EofInStackTrace)?,
            };
            if text == b"}" {
                if frames.is_empty() {
                    return Err((LoadError::MissingStackTrace, Some(line)));
                }
                close = Some(line);
                break;
            }
            if frames.len() == DEEPEST_BACKTRACE {
                return Err((LoadError::TooManyCallers, Some(line)));
            }
            if !frames.is_empty() && frames.len() >= nc {
                break;
            }
            let frame =
                syntax::frame(text, line.text.start).ok_or((LoadError::BadLocation, Some(line)))?;
            frames.push(frame);
        }
        if close.is_none() {
            // Beyond --num-callers: discard lines, unvalidated, up to a `}` (or end of file).
            while let Some((l, t)) = self.r.next() {
                if t == b"}" {
                    close = Some(l);
                    break;
                }
            }
        }
        if frames.iter().all(|f| matches!(f, Frame::Ellipsis)) {
            return Err((LoadError::OnlyEllipsis, close));
        }
        Ok(frames)
    }
}

/// A loaded frame, as bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FrameView {
    /// `fun:`
    Fun(Vec<u8>),
    /// `obj:`
    Obj(Vec<u8>),
    /// `src:` file and line.
    Src(Vec<u8>, u32),
    /// `...`
    Ellipsis,
}

/// A loaded extra, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtraView {
    /// None.
    None,
    /// `Param` string.
    Param(Vec<u8>),
    /// Leak kinds.
    Leak(LeakKinds),
    /// `FishyValue` function and argument.
    Fishy(Option<(Vec<u8>, Vec<u8>)>),
}

/// A loaded record as its bytes, not its place: what Valgrind holds of it, which stays
/// the same when the file around it changes (edits, formatting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordView {
    /// Name.
    pub name: Vec<u8>,
    /// Kind.
    pub kind: Vec<u8>,
    /// Extra data.
    pub extra: ExtraView,
    /// Frames kept.
    pub frames: Vec<FrameView>,
}

/// The records of `res` (loaded from `src`) as views.
#[must_use]
pub fn record_views(src: &[u8], res: &LoadResult) -> Vec<RecordView> {
    let bytes = |s: Span| {
        src.get(s.start..s.end)
            .map_or_else(Vec::new, <[u8]>::to_vec)
    };
    res.records
        .iter()
        .map(|r| RecordView {
            name: bytes(r.name),
            kind: bytes(r.kind),
            extra: match r.extra {
                LoadedExtra::None => ExtraView::None,
                LoadedExtra::Param(s) => ExtraView::Param(bytes(s)),
                LoadedExtra::Leak(k) => ExtraView::Leak(k),
                LoadedExtra::Fishy(None) => ExtraView::Fishy(None),
                LoadedExtra::Fishy(Some(FishyExtra { function, argument })) => {
                    ExtraView::Fishy(Some((bytes(function), bytes(argument))))
                }
            },
            frames: r
                .frames
                .iter()
                .map(|f| match *f {
                    Frame::Fun(s) => FrameView::Fun(bytes(s)),
                    Frame::Obj(s) => FrameView::Obj(bytes(s)),
                    Frame::Src { file, line } => FrameView::Src(bytes(file), line),
                    Frame::Ellipsis => FrameView::Ellipsis,
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (verdict error, Valgrind line) in strict mode, `None` when the file loads.
    fn verdict(src: &str, tool: Tool, minor: u8, nc: u32) -> Option<(LoadError, u32)> {
        let opts = LoadOptions {
            tool,
            version: Version::new(minor).unwrap(),
            num_callers: nc,
        };
        load(src.as_bytes(), opts, false)
            .verdict()
            .map(|p| (p.error, p.valgrind_line))
    }

    fn mc(src: &str) -> Option<(LoadError, u32)> {
        verdict(src, Tool::Memcheck, 19, 12)
    }

    use LoadError as E;

    #[test]
    fn cases_from_valgrind_semantics_section_8() {
        let rec = |tool: &str, body: &str| format!("{{\n n\n {tool}\n{body}}}\n");
        // P01/P02: indented braces, tabs, CRLF.
        assert_eq!(
            mc("\t{\r\n n\r\n Memcheck:Cond\r\n fun:f\r\n   }\r\n"),
            None
        );
        // P03: missing `}` at EOF: the count of newlines.
        assert_eq!(
            mc("{\nn\nMemcheck:Cond\nfun:f\n\n"),
            Some((E::EofInStackTrace, 5))
        );
        // P04: missing `}` before the next `{`.
        assert_eq!(
            mc("{\nn\nMemcheck:Cond\nfun:f\n{\nm\n"),
            Some((E::BadLocation, 5))
        );
        // P06 loads; P07/P08/P12/P31/P32/P47 skipped.
        for tools in [
            "Foo:Addr4",
            "memcheck:Addr4",
            "Memcheck :Addr4",
            "Helgrind, Memcheck:Addr4",
            "MemcheckX,Memcheck:Addr4",
            ":Addr4",
        ] {
            assert_eq!(mc(&rec(tools, "garbage\n{\n")), None, "{tools}");
        }
        // P10/H03, P11, P46.
        assert_eq!(
            mc(&rec("Helgrind,Memcheck:Race", "fun:f\n")),
            Some((E::UnknownToolKind, 3))
        );
        assert_eq!(
            verdict(
                &rec("Memcheck,Helgrind:Addr4", "fun:f\n"),
                Tool::Helgrind,
                19,
                12
            ),
            Some((E::UnknownToolKind, 3))
        );
        assert_eq!(
            mc(&rec("Memcheck: Addr4", "fun:f\n")),
            Some((E::UnknownToolKind, 3))
        );
        assert_eq!(
            mc(&rec("Memcheck:Addr4:x", "fun:f\n")),
            Some((E::UnknownToolKind, 3))
        );
        // P13/P15.
        assert_eq!(
            mc(&rec("Memcheck", "fun:f\n")),
            Some((E::MalformedToolLine, 3))
        );
        assert_eq!(mc("{ name }\n"), Some((E::ExpectedOpenBrace, 1)));
        // P14/E1.
        assert_eq!(mc("{\n}\n"), Some((E::UnexpectedCloseBrace, 2)));
        assert_eq!(mc("{\n\n\n"), Some((E::UnexpectedCloseBrace, 3)));
        // P16/P17/P18.
        assert_eq!(
            mc(&rec("Memcheck:Cond", "")),
            Some((E::MissingStackTrace, 4))
        );
        assert_eq!(
            mc(&rec("Memcheck:Cond", "...\n")),
            Some((E::OnlyEllipsis, 5))
        );
        assert_eq!(
            mc(&rec("Memcheck:Cond", "foo:bar\n")),
            Some((E::BadLocation, 4))
        );
        assert_eq!(
            mc(&rec("Memcheck:Cond", "....\n")),
            Some((E::BadLocation, 4))
        );
        // P19/N1/N2: beyond --num-callers nothing is validated, a missing `}` swallows.
        assert_eq!(
            verdict(
                &rec("Memcheck:Cond", "fun:a\nfun:b\njunk\n"),
                Tool::Memcheck,
                19,
                2
            ),
            None
        );
        assert_eq!(
            verdict(
                "{\nn\nMemcheck:Cond\nfun:a\nfun:b\nfun:c\n",
                Tool::Memcheck,
                19,
                2
            ),
            None
        );
        let swallowed = "{\nn\nMemcheck:Cond\nfun:a\nfun:b\nfun:c\n{\nm\nMemcheck:Cond\nfun:x\n}\n";
        let r = load(
            swallowed.as_bytes(),
            LoadOptions {
                tool: Tool::Memcheck,
                version: Version::new(19).unwrap(),
                num_callers: 2,
            },
            false,
        );
        assert!(r.problems.is_empty());
        assert_eq!(r.records.len(), 1);
        // P20/P21.
        let many = |n: usize| format!("{{\nn\nMemcheck:Cond\n{}}}\n", "fun:f\n".repeat(n));
        assert_eq!(
            verdict(&many(501), Tool::Memcheck, 19, 500),
            Some((E::TooManyCallers, 504))
        );
        assert_eq!(verdict(&many(600), Tool::Memcheck, 19, 12), None);
        assert_eq!(verdict(&many(500), Tool::Memcheck, 19, 500), None);
        // P22/P23/P24/P25.
        assert_eq!(
            mc(&rec(
                "Memcheck:Leak",
                "match-leak-kinds: definite, possible\nfun:f\n"
            )),
            Some((E::BadExtra, 4))
        );
        assert_eq!(
            mc(&rec("Memcheck:Leak", "src:x.c\n")),
            Some((E::BadExtra, 4))
        );
        assert_eq!(
            mc(&rec("Memcheck:Param", "fun:f\n")),
            Some((E::BadExtra, 4))
        );
        assert_eq!(mc(&rec("Memcheck:Param", "src:x.c\nfun:f\n")), None);
        // P26/P27.
        assert_eq!(mc(""), None);
        assert_eq!(mc("# a\n\n  # b\n"), None);
        // P28/P36.
        assert_eq!(
            mc("{\nn\nMemcheck:Cond\nfun:f\n}\njunk\n"),
            Some((E::ExpectedOpenBrace, 6))
        );
        assert_eq!(mc("{ x\n"), Some((E::ExpectedOpenBrace, 1)));
        // P29.
        assert_eq!(
            mc("{\nn\nHelgrind:Race\nfun:f\n"),
            Some((E::EofWhenSkipping, 4))
        );
        // P34/P35.
        assert_eq!(
            mc(&rec("core:Foo", "fun:f\n")),
            Some((E::UnknownCoreKind, 3))
        );
        assert_eq!(
            verdict(&rec("core:Foo", "fun:f\n"), Tool::Drd, 19, 12),
            None
        );
        assert_eq!(mc(&rec("CoreError:FdNotClosed", "fun:f\n")), None);
        // P37.
        assert_eq!(
            mc("{\nn\nMemcheck:Cond\nfun:f\n} x\n"),
            Some((E::BadLocation, 5))
        );
        // P44.
        assert_eq!(
            verdict(
                &rec("Memcheck:Cond", "...\n...\nfun:x\n"),
                Tool::Memcheck,
                19,
                2
            ),
            Some((E::OnlyEllipsis, 7))
        );
        // P51–P57.
        for bad in ["", ",", "all,definite", "Definite", "none,definite"] {
            assert_eq!(
                mc(&rec(
                    "Memcheck:Leak",
                    &format!("match-leak-kinds: {bad}\nfun:f\n")
                )),
                Some((E::BadExtra, 4)),
                "{bad}"
            );
        }
        assert_eq!(
            mc(&rec("Memcheck:Leak", "match-leak-kinds :definite\nfun:f\n")),
            Some((E::BadExtra, 4))
        );
        assert_eq!(
            mc(&rec(
                "Memcheck:Leak",
                "match-leak-kinds: ,,definite,\nfun:f\n"
            )),
            None
        );
        assert_eq!(
            mc(&rec("Memcheck:FishyValue", "malloc(size\nfun:f\n")),
            Some((E::BadExtra, 4))
        );
        // P58 and the 3.2x kinds.
        assert_eq!(
            mc(&rec("Memcheck:ReallocZero", "fun:f\n")),
            Some((E::UnknownToolKind, 3))
        );
        assert_eq!(
            verdict(
                &rec("Memcheck:ReallocZero", "fun:f\n"),
                Tool::Memcheck,
                27,
                12
            ),
            None
        );
        assert_eq!(
            verdict(
                &rec("Memcheck,CoreError:Addr4", "fun:f\n"),
                Tool::Memcheck,
                27,
                12
            ),
            Some((E::UnknownCoreKind, 3))
        );
        assert_eq!(
            verdict(&rec("core:X", "fun:f\n"), Tool::Memcheck, 27, 12),
            None
        );
        assert_eq!(
            verdict(
                &rec("CoreError:FdBadUse", "fun:f\n"),
                Tool::Memcheck,
                24,
                12
            ),
            Some((E::UnknownCoreKind, 3))
        );
        assert_eq!(
            verdict(
                &rec("CoreError:FdBadUse", "fun:f\n"),
                Tool::Memcheck,
                25,
                12
            ),
            None
        );
        // H05: `DRD:` is skipped by drd.
        assert_eq!(
            verdict(&rec("DRD:ConflictingAccess", "fun:f\n"), Tool::Drd, 19, 12),
            None
        );
        // CR-only file: one line.
        assert_eq!(
            mc("{\rn\rMemcheck:Cond\rfun:f\r}\r"),
            Some((E::ExpectedOpenBrace, 0))
        );
        // Z1/Z2 names; Z3/Z4.
        assert_eq!(
            mc("{\n{\nMemcheck:Cond\nfun:f\n}\n{\nfun:x\nMemcheck:Cond\nfun:f\n}\n"),
            None
        );
        assert_eq!(mc(&rec("Memcheck:Leak", "")), Some((E::BadExtra, 4)));
        assert_eq!(
            mc("{\nn\nMemcheck:Param\n}\n{\nm\nMemcheck:Cond\nfun:f\n}\n"),
            Some((E::BadLocation, 5))
        );
        // A final line without `\n` is neither trimmed nor a comment.
        assert_eq!(
            mc("{\nn\nMemcheck:Cond\nfun:f\n}  "),
            Some((E::BadLocation, 4))
        );
        assert_eq!(
            mc("{\nn\nMemcheck:Cond\nfun:f\n}\n# c"),
            Some((E::ExpectedOpenBrace, 5))
        );
        assert_eq!(
            mc("{\r\nn\r\nMemcheck:Cond\r\nfun:f\r\n}\r"),
            Some((E::BadLocation, 4))
        );
        assert_eq!(mc("{\nn\nMemcheck:Cond\nfun:f\n}"), None);
        // Final line without `\n` is reported one lower (§1.1).
        assert_eq!(mc("{\nn\nMemcheck:Cond\nfoo"), Some((E::BadLocation, 3)));
    }

    #[test]
    fn crashes_are_reported_without_stopping() {
        let r = load(
            b"{\nn\nMemcheck:FishyValue\nfun:f\n}\n",
            LoadOptions::new(Tool::Memcheck),
            false,
        );
        assert_eq!(r.records.len(), 1);
        assert_eq!(r.problems[0].error, E::FishyWithoutExtra);
        assert!(r.verdict().is_none());
        let r = load(
            b"{\nn\nHelgrind:FreeMemLock\nfun:f\n}\n",
            LoadOptions::new(Tool::Helgrind),
            false,
        );
        assert_eq!(r.problems[0].error, E::FreeMemLock);
        assert!(r.verdict().is_none());
    }

    #[test]
    fn long_lines_abort_where_read() {
        let ok = format!(
            "{{\nn\nMemcheck:Cond\nfun:{}\n}}\n",
            "x".repeat(VALGRIND_MAX_LINE - 5)
        );
        assert_eq!(mc(&ok), None);
        let long = format!(
            "{{\nn\nMemcheck:Cond\nfun:{}\n}}\n",
            "x".repeat(VALGRIND_MAX_LINE - 4)
        );
        assert_eq!(mc(&long), Some((E::LineTooLong, 4)));
        // Leading whitespace does not count, trailing does.
        let lead = format!(
            "{{\nn\nMemcheck:Cond\n   fun:{}\n}}\n",
            "x".repeat(VALGRIND_MAX_LINE - 5)
        );
        assert_eq!(mc(&lead), None);
        let trail = format!(
            "{{\nn\nMemcheck:Cond\nfun:{} \n}}\n",
            "x".repeat(VALGRIND_MAX_LINE - 5)
        );
        assert_eq!(mc(&trail), Some((E::LineTooLong, 4)));
        // A long line after a fatal error is never read.
        let after = format!("junk\n# {}\n", "x".repeat(VALGRIND_MAX_LINE));
        assert_eq!(mc(&after), Some((E::ExpectedOpenBrace, 1)));
    }

    #[test]
    fn recovery_reports_every_problem() {
        let src = "{\nn\nMemcheck:Cond\nfoo\n}\njunk\n{\nm\nMemcheck:Leak\nmatch-leak-kinds: x\nfun:f\n}\n{\nok\nMemcheck:Cond\nfun:f\n}\n";
        let r = load(src.as_bytes(), LoadOptions::new(Tool::Memcheck), true);
        let got: Vec<_> = r
            .problems
            .iter()
            .map(|p| (p.error, p.valgrind_line))
            .collect();
        assert_eq!(
            got,
            vec![
                (E::BadLocation, 4),
                (E::ExpectedOpenBrace, 6),
                (E::BadExtra, 10)
            ]
        );
        assert_eq!(r.records.len(), 1);
    }

    #[test]
    fn records_know_their_index_and_bytes() {
        // The helgrind record is skipped under Memcheck but still counts as a record.
        let src = b"# c\n{\n a\n Memcheck:Addr4\n fun:f\n}\n\n{\n h\n Helgrind:Race\n fun:g\n}\n  {\n b\n Memcheck:Cond\n obj:*\n}";
        let r = load(src, LoadOptions::new(Tool::Memcheck), false);
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.records[0].index, 0);
        assert_eq!(
            r.records[0].span.slice(src),
            b"{\n a\n Memcheck:Addr4\n fun:f\n}"
        );
        assert_eq!(r.records[1].index, 2);
        assert_eq!(
            r.records[1].span.slice(src),
            b"  {\n b\n Memcheck:Cond\n obj:*\n}"
        );
    }
}
