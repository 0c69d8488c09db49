//! Diagnostics: what a check or a gate found, where, and how bad it is; rendered by
//! [`render`] for people and for CI platforms (SARIF, GitHub annotations, GitLab Code
//! Quality). One model serves both: a lint of a suppression file (`vgsupp check`) points
//! at a line of that file; a Valgrind error (`vgsupp gate`) points at a source line of the
//! user's code, at the log that reported it, and carries its stacks as related locations
//! ([`Flow`]) and a fingerprint that survives edits.

pub mod render;
pub mod source;

use std::borrow::Cow;

use crate::catalogue::{Lint, LintMeta};
use crate::supp::Span;

pub use source::Source;

pub use crate::catalogue::Severity;

/// What a diagnostic is an instance of, as every output format describes it: a lint of
/// the catalogue (`VS201`, from [`crate::catalogue`]) or a kind of Valgrind error
/// (`memcheck/Addr`, [`crate::gate::kinds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    /// Its stable id (`VS201`, `memcheck/Leak/definite`).
    pub code: Cow<'static, str>,
    /// Its name (`unknown-tool`, `DefiniteLeak`).
    pub name: &'static str,
    /// One line: what it finds.
    pub summary: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// Its default severity.
    pub severity: Severity,
    /// Whether findings mean Valgrind refuses the file, aborts, or crashes later.
    pub fatal_in_valgrind: bool,
    /// Categories for CI platforms (SARIF `tags`: GitHub filters alerts by them); none for
    /// lints.
    pub tags: &'static [&'static str],
}

impl Code {
    /// Whether it is a lint of the catalogue (`VS…`), not a kind of Valgrind error.
    #[must_use]
    pub fn is_lint(&self) -> bool {
        self.tags.is_empty()
    }
}

impl From<&'static LintMeta> for Code {
    fn from(r: &'static LintMeta) -> Self {
        Self {
            code: Cow::Borrowed(r.code),
            name: r.name,
            summary: r.summary,
            why: r.why,
            fix: r.fix,
            severity: r.severity,
            fatal_in_valgrind: r.fatal_in_valgrind,
            tags: &[],
        }
    }
}

/// How a finding compares with the accepted ones (SARIF `baselineState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaselineState {
    /// Not in the baseline.
    New,
    /// In the baseline (some or all of its occurrences).
    Unchanged,
}

/// Where a log reports a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPoint {
    /// The log, as named to the user.
    pub log: String,
    /// The line of the error there.
    pub line: u64,
}

/// A sequence of related locations: one stack of a Valgrind error (the access, where the
/// block was allocated or freed, where an uninitialised value was created).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// What the stack shows (`Address 0x… is 0 bytes after a block of size 4,000
    /// alloc'd`).
    pub label: String,
    /// Its frames, innermost first.
    pub steps: Vec<Step>,
}

/// One frame of a [`Flow`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Its source file relative to the source root, when it is there.
    pub file: Option<String>,
    /// Its line in that file.
    pub line: Option<u32>,
    /// Its function.
    pub function: Option<String>,
    /// The frame as a report shows it (`leaky_ext.cpp:46 overflow(int)`).
    pub text: String,
    /// Whether it is the user's code (shown as important).
    pub important: bool,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What it is an instance of.
    pub rule: Code,
    /// Severity (the rule's default unless configured otherwise).
    pub severity: Severity,
    /// The file it is in, as the user named it (`check`), or relative to the source root
    /// (`gate`); empty when it has no file (a Valgrind error in code whose source is not
    /// in the repository: [`Diagnostic::function`] then says where).
    pub file: String,
    /// The line to report: for problems Valgrind's loader refuses, the line Valgrind names
    /// (`near line N`); otherwise the 1-based physical line (0: none).
    pub line: u32,
    /// The 1-based physical line where the problem is (for editors and the source
    /// excerpt; 0: none).
    pub display_line: u32,
    /// 1-based column (in bytes) of the start of the problem on `display_line` (0: none).
    pub column: u32,
    /// The bytes to underline, when known.
    pub span: Option<Span>,
    /// A short headline (GitHub's annotation title, the head of a SARIF message); none:
    /// the rule's code and name.
    pub title: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is something specific to say.
    pub help: Option<String>,
    /// Valgrind refuses the file (or crashes, or aborts) because of this.
    pub fatal_in_valgrind: bool,
    /// The name of the record it is about, if any.
    pub record: Option<String>,
    /// The function it is in (a logical location), when known.
    pub function: Option<String>,
    /// Where a log reports it.
    pub log: Option<LogPoint>,
    /// Related locations (the stacks of a Valgrind error).
    pub flows: Vec<Flow>,
    /// A stable identity that survives edits elsewhere in the file (no line numbers).
    pub fingerprint: Option<String>,
    /// How it compares with a baseline, when one was given.
    pub baseline: Option<BaselineState>,
    /// Why it is accepted (a baseline entry covers it): reported, not failing.
    pub accepted: Option<String>,
    /// More facts for machine formats (SARIF `properties`), in order.
    pub properties: Vec<(String, serde_json::Value)>,
}

impl Diagnostic {
    /// A diagnostic for lint `code` with the rule's default severity.
    ///
    /// # Panics
    /// When `code` is not in the registry: codes are compile-time constants of this crate.
    #[must_use]
    pub fn new(lint: Lint, file: &str, line: u32, column: u32, message: String) -> Self {
        let mut d = Self::of(lint.meta().into(), message);
        d.file = file.to_owned();
        d.line = line;
        d.display_line = line;
        d.column = column;
        d
    }

    /// A diagnostic of `rule` with its default severity, and no location yet.
    #[must_use]
    pub fn of(rule: Code, message: String) -> Self {
        Self {
            severity: rule.severity,
            fatal_in_valgrind: rule.fatal_in_valgrind,
            rule,
            file: String::new(),
            line: 0,
            display_line: 0,
            column: 0,
            span: None,
            title: None,
            message,
            help: None,
            record: None,
            function: None,
            log: None,
            flows: Vec::new(),
            fingerprint: None,
            baseline: None,
            accepted: None,
            properties: Vec::new(),
        }
    }

    /// Its headline: [`Diagnostic::title`], else the rule's code and name.
    #[must_use]
    pub fn headline(&self) -> String {
        self.title
            .clone()
            .unwrap_or_else(|| format!("{} {}", self.rule.code, self.rule.name))
    }

    /// The sort key that makes output deterministic: file, line, column, code.
    #[must_use]
    pub fn sort_key(&self) -> (&str, u32, u32, &str) {
        (&self.file, self.display_line, self.column, &self.rule.code)
    }
}

/// The result of checking a set of files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Files checked.
    pub files: usize,
    /// Records (rules) found across them.
    pub rules: usize,
    /// Diagnostics, sorted by [`Diagnostic::sort_key`].
    pub diagnostics: Vec<Diagnostic>,
    /// Sources of the files, by name, for rendering excerpts and columns.
    pub sources: std::collections::BTreeMap<String, Source>,
}

impl Report {
    /// Number of diagnostics at `severity`.
    #[must_use]
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}
