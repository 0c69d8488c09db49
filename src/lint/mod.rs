//! Checks over a parsed suppression file: the loader's verdicts (`VS1xx`), what Valgrind
//! silently ignores (`VS2xx`, [`rules`]) and style (`VS9xx`); a file against its sidecar
//! (`VS4xx`, [`provenance`]); the severities a project sets ([`severity`]).

pub mod maintenance;
pub mod pipeline;
pub mod provenance;
pub mod rules;
pub mod severity;

use std::collections::BTreeMap;

use crate::catalogue::Lint;
use crate::diagnostic::Diagnostic;
use crate::supp::binary;
use crate::supp::kinds::{self, Tool, Version};
use crate::supp::lines::{self, PhysLine};
use crate::supp::loader::{self, LoadError, LoadOptions};
use crate::supp::model::{Item, SuppFile};
use crate::supp::parse;

/// What to check against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// Tools that will read the file; `None`: every tool the file names.
    pub tools: Option<Vec<Tool>>,
    /// The Valgrind release whose behaviour to apply.
    pub version: Version,
    /// `--num-callers`.
    pub num_callers: u32,
    /// Whether to report style findings (`VS9xx`).
    pub style: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            tools: None,
            version: Version::default(),
            num_callers: loader::DEFAULT_NUM_CALLERS,
            style: true,
        }
    }
}

/// The tools that read suppressions and that some record of `file` names (by Valgrind's
/// `tool_name_present`); Memcheck when it names none.
#[must_use]
pub fn named_tools(file: &SuppFile) -> Vec<Tool> {
    let src = &file.source;
    let mut tools: Vec<Tool> = Tool::ALL
        .into_iter()
        .filter(|t| {
            file.records().any(|r| {
                r.tools_and_kind(src).is_some_and(|(list, _)| {
                    kinds::tool_name_present(t.supp_name().as_bytes(), lines::c_str(list))
                })
            })
        })
        .collect();
    if tools.is_empty() {
        tools.push(Tool::Memcheck);
    }
    tools
}

/// The result of checking one file.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The parsed file.
    pub file: SuppFile,
    /// What was found, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

/// Check one file's bytes. `name` is how diagnostics refer to it.
///
/// A binary file ([`binary::detect`]) that Valgrind refuses gets only what Valgrind says:
/// the problem it stops at (per tool), at the line it names, marked as a binary file. Its
/// other "problems" are bytes that were never rules; listing them would bury the one
/// finding that matters under pages of garbage.
#[must_use]
pub fn check_source(name: &str, source: Vec<u8>, opts: &CheckOptions) -> FileCheck {
    let file = parse(source);
    if let Some(found) = binary::detect(&file.source) {
        let mut diagnostics = loader_diagnostics(name, &file, opts, false);
        if !diagnostics.is_empty() {
            for d in &mut diagnostics {
                d.message.push_str(&format!(
                    "; this is {found}, not a suppression file: only where Valgrind stops \
                     is reported"
                ));
            }
            diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            return FileCheck { file, diagnostics };
        }
    }
    let mut diagnostics = loader_diagnostics(name, &file, opts, true);
    diagnostics.extend(rules::check_records(name, &file, opts));
    if opts.style {
        diagnostics.extend(style_diagnostics(name, &file));
    }
    attach_record_names(&file, &mut diagnostics);
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    FileCheck { file, diagnostics }
}

/// The code of the rule that reports a loader problem.
#[must_use]
pub const fn code_for(error: LoadError) -> Lint {
    match error {
        LoadError::ExpectedOpenBrace => Lint::ExpectedOpenBrace,
        LoadError::UnexpectedCloseBrace => Lint::UnexpectedCloseBrace,
        LoadError::EofExpectingTool => Lint::EofExpectingTool,
        LoadError::MalformedToolLine => Lint::MalformedToolLine,
        LoadError::UnknownCoreKind => Lint::UnknownCoreKind,
        LoadError::UnknownToolKind => Lint::UnknownToolKind,
        LoadError::EofWhenSkipping => Lint::EofWhenSkipping,
        LoadError::BadExtra => Lint::BadExtraLine,
        LoadError::EofInStackTrace => Lint::EofInStackTrace,
        LoadError::MissingStackTrace => Lint::MissingStackTrace,
        LoadError::TooManyCallers => Lint::TooManyCallers,
        LoadError::BadLocation => Lint::BadLocationLine,
        LoadError::OnlyEllipsis => Lint::OnlyWildcardFrames,
        LoadError::FishyWithoutExtra => Lint::FishyValueWithoutExtra,
        LoadError::FreeMemLock => Lint::HelgrindFreeMemLock,
        LoadError::LineTooLong => Lint::LineTooLong,
    }
}

/// Run Valgrind's loader (emulated) once per tool and report its problems, merged across
/// tools: with `recover`, every problem; without, the first, where Valgrind stops.
fn loader_diagnostics(
    name: &str,
    file: &SuppFile,
    opts: &CheckOptions,
    recover: bool,
) -> Vec<Diagnostic> {
    let src = file.source.as_slice();
    let tools = opts.tools.clone().unwrap_or_else(|| named_tools(file));
    let last_line = u32::try_from(lines::Lines::new(src).count())
        .unwrap_or(u32::MAX)
        .max(1);
    // (error, physical line) -> (problem, tools that hit it)
    let mut found: BTreeMap<(u32, LoadError), (loader::LoadProblem, Vec<Tool>)> = BTreeMap::new();
    for &tool in &tools {
        let lo = LoadOptions {
            tool,
            version: opts.version,
            num_callers: opts.num_callers,
        };
        for p in loader::load(src, lo, recover).problems {
            let key = (p.at.map_or(u32::MAX, |l| l.number), p.error);
            found
                .entry(key)
                .or_insert_with(|| (p, Vec::new()))
                .1
                .push(tool);
        }
    }
    found
        .into_values()
        .map(|(p, hit)| {
            let mut message = p.error.message().to_owned();
            if hit.len() < tools.len() {
                let names: Vec<&str> = hit.iter().map(|t| t.supp_name()).collect();
                message.push_str(&format!(" (when read by {})", names.join(", ")));
            }
            let display_line =
                p.at.map_or(p.valgrind_line.clamp(1, last_line), |l| l.number);
            let column = p.at.map_or(1, |l| l.column());
            let mut d = Diagnostic::new(code_for(p.error), name, p.valgrind_line, column, message);
            d.display_line = display_line;
            d.span = p.at.map(|l| l.text);
            d.help =
                p.at.and_then(|l| loader_help(p.error, l, src, opts.version, &hit));
            if p.valgrind_line != display_line && p.error.outcome() == loader::Outcome::Fatal {
                let note = format!("Valgrind reports this as `near line {}`", p.valgrind_line);
                d.help = Some(d.help.map_or(note.clone(), |h| format!("{h}; {note}")));
            }
            d
        })
        .collect()
}

/// Specific advice for a loader problem on `line`.
fn loader_help(
    error: LoadError,
    line: PhysLine,
    src: &[u8],
    v: Version,
    tools: &[Tool],
) -> Option<String> {
    let text = lines::c_str(line.text.slice(src));
    if !line.has_newline
        && error.outcome() == loader::Outcome::Fatal
        && (lines::is_comment(text) || line.text.end < line.span.end)
    {
        return Some("this last line has no final newline: Valgrind then neither trims it nor treats it as a comment; end the file with a newline (`vgsupp fmt` does)".to_owned());
    }
    match error {
        LoadError::UnknownToolKind => {
            let colon = memchr::memchr(b':', text)?;
            let kind = &text[colon + 1..];
            let shown = String::from_utf8_lossy(kind);
            if kind.first().is_some_and(|b| lines::is_space(*b)) {
                return Some(format!("the kind is everything after the first `:`, here `{shown}` with leading whitespace"));
            }
            if kind.contains(&b':') {
                return Some(format!("the kind is everything after the first `:`, here `{shown}`"));
            }
            for &tool in tools {
                if let Some(since) = kinds::kind_since(tool, kind).filter(|s| *s > v.minor()) {
                    return Some(format!("`{shown}` is a {} kind from Valgrind 3.{since}; the target is {v} (see --valgrind)", tool.supp_name()));
                }
                let mis_cased = CANDIDATE_KINDS
                    .iter()
                    .find(|cand| cand.as_bytes().eq_ignore_ascii_case(kind) && kinds::kind_since(tool, cand.as_bytes()).is_some());
                if let Some(cand) = mis_cased {
                    return Some(format!("did you mean `{cand}`? (kinds are case-sensitive)"));
                }
            }
            let names: Vec<&str> = tools.iter().map(|t| t.supp_name()).collect();
            Some(format!("{} does not know this kind; a record listing several tools must be valid for each", names.join(", ")))
        }
        LoadError::BadExtra if text.starts_with(b"src:") => {
            Some("`src:` is not a location line, so it is read as the extra line; put a `fun:` or `obj:` frame first".to_owned())
        }
        LoadError::BadExtra if text.starts_with(b"match-leak-kinds") => Some(
            "write `match-leak-kinds:` then a comma list without spaces of definite, indirect, possible, reachable (or all / none alone)".to_owned(),
        ),
        LoadError::BadLocation if text == b"{" => Some("the previous record is missing its closing `}`".to_owned()),
        LoadError::ExpectedOpenBrace if text.starts_with(b"{") => Some("`{` must be alone on its line".to_owned()),
        LoadError::MalformedToolLine => Some("expected `Tool:Kind`, e.g. `Memcheck:Leak`; is the name line missing?".to_owned()),
        _ => None,
    }
}

/// Kind names used to suggest a fix for a mis-cased kind.
const CANDIDATE_KINDS: [&str; 55] = [
    "Param",
    "User",
    "CoreMem",
    "Jump",
    "Free",
    "Overlap",
    "Mempool",
    "Leak",
    "Cond",
    "Value0",
    "Value1",
    "Value2",
    "Value4",
    "Value8",
    "Value16",
    "Value32",
    "Addr1",
    "Addr2",
    "Addr4",
    "Addr8",
    "Addr16",
    "Addr32",
    "FishyValue",
    "ReallocZero",
    "BadAlign",
    "BadSize",
    "SizeMismatch",
    "AlignMismatch",
    "UnsafeZeroSize",
    "Race",
    "FreeMemLock",
    "UnlockUnlocked",
    "UnlockForeign",
    "UnlockBogus",
    "PthAPIerror",
    "LockOrder",
    "Misc",
    "Dubious",
    "ConflictingAccess",
    "MutexErr",
    "CondErr",
    "CondDestrErr",
    "CondRaceErr",
    "CondWaitErr",
    "SemaphoreErr",
    "BarrierErr",
    "RwlockErr",
    "HoldtimeErr",
    "GenericErr",
    "InvalidThreadId",
    "UnimpHgClReq",
    "UnimpDrdClReq",
    "FdBadClose",
    "FdNotClosed",
    "FdBadUse",
];

/// `VS901`: one finding at the first line that formatting would change.
fn style_diagnostics(name: &str, file: &SuppFile) -> Option<Diagnostic> {
    let formatted = crate::supp::format_source(&file.source);
    let src = file.source.as_slice();
    if formatted == src {
        return None;
    }
    let first_diff = src
        .iter()
        .zip(&formatted)
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| src.len().min(formatted.len()));
    let line =
        u32::try_from(memchr::memchr_iter(b'\n', &src[..first_diff.min(src.len())]).count() + 1)
            .unwrap_or(u32::MAX);
    let mut d = Diagnostic::new(
        Lint::NotFormatted,
        name,
        line,
        1,
        "file is not canonically formatted".to_owned(),
    );
    d.help = Some("run `vgsupp fmt` (or `vgsupp fmt --diff` to see the change)".to_owned());
    Some(d)
}

/// Fill in [`Diagnostic::record`] from the record that spans each diagnostic's line.
fn attach_record_names(file: &SuppFile, diagnostics: &mut [Diagnostic]) {
    let src = file.source.as_slice();
    let ranges: Vec<(u32, u32, Option<String>)> = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Record(r) => Some((
                r.first_line(),
                r.lines.last().map_or(0, |l| l.line.number),
                r.name(src).map(|n| String::from_utf8_lossy(n).into_owned()),
            )),
            _ => None,
        })
        .collect();
    for d in diagnostics
        .iter_mut()
        .filter(|d| d.record.is_none() && d.rule.code != Lint::NotFormatted.code())
    {
        let idx = ranges.partition_point(|r| r.1 < d.display_line);
        if let Some((_, _, name)) = ranges.get(idx).filter(|r| r.0 <= d.display_line) {
            d.record.clone_from(name);
        }
    }
}
