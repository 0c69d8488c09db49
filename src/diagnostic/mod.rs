//! Diagnostics: what a check found, where, and how bad it is; rendered by [`render`].

pub mod render;

use crate::lint::registry::{self, RuleMeta};
use crate::supp::Span;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational.
    Info,
    /// Probably wrong, but Valgrind loads the file.
    Warning,
    /// Valgrind refuses or crashes, or the rule can never work.
    Error,
}

impl Severity {
    /// Lower-case name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// One finding in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule that found it.
    pub rule: &'static RuleMeta,
    /// Severity (the rule's default unless configured otherwise).
    pub severity: Severity,
    /// The file, as the user named it.
    pub file: String,
    /// The line to report: for problems Valgrind's loader refuses, the line Valgrind names
    /// (`near line N`); otherwise the 1-based physical line.
    pub line: u32,
    /// The 1-based physical line where the problem is (for editors and the source excerpt).
    pub display_line: u32,
    /// 1-based column (in bytes) of the start of the problem on `display_line`.
    pub column: u32,
    /// The bytes to underline, when known.
    pub span: Option<Span>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is something specific to say.
    pub help: Option<String>,
    /// Valgrind refuses the file (or crashes, or aborts) because of this.
    pub fatal_in_valgrind: bool,
    /// The name of the record it is about, if any.
    pub record: Option<String>,
}

impl Diagnostic {
    /// A diagnostic for `code` with the rule's default severity.
    ///
    /// # Panics
    /// When `code` is not in the registry: codes are compile-time constants of this crate.
    #[must_use]
    pub fn new(code: &str, file: &str, line: u32, column: u32, message: String) -> Self {
        let rule =
            registry::lookup(code).unwrap_or_else(|| panic!("unregistered rule code {code}"));
        Self {
            rule,
            severity: rule.severity,
            file: file.to_owned(),
            line,
            display_line: line,
            column,
            span: None,
            message,
            help: None,
            fatal_in_valgrind: rule.fatal_in_valgrind,
            record: None,
        }
    }

    /// The sort key that makes output deterministic: file, line, column, code.
    #[must_use]
    pub fn sort_key(&self) -> (&str, u32, u32, &str) {
        (&self.file, self.display_line, self.column, self.rule.code)
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
    /// Sources of the files, by name, for rendering excerpts.
    pub sources: std::collections::BTreeMap<String, Vec<u8>>,
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
