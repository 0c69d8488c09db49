//! Severities the project sets for diagnostic codes (`lints:` in vgsupp.yaml): a code or
//! its name mapped to `error`, `warning`, `info` or `off`.
//!
//! What Valgrind refuses or crashes on (`VS1xx`, `fatal_in_valgrind`) stays an error: a
//! setting cannot make a file Valgrind will not load look clean.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::catalogue::{self as registry, LintMeta as RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};

/// A configured level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Not reported.
    Off,
    /// Reported at this severity.
    At(Severity),
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "off" | "allow" => Ok(Self::Off),
            "info" | "note" => Ok(Self::At(Severity::Info)),
            "warning" | "warn" => Ok(Self::At(Severity::Warning)),
            "error" | "deny" => Ok(Self::At(Severity::Error)),
            _ => Err(format!("unknown level `{s}` (error, warning, info or off)")),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Off => f.write_str("off"),
            Self::At(s) => f.write_str(s.as_str()),
        }
    }
}

/// Why a severity setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeverityError {
    /// No such code or name.
    #[error("unknown diagnostic `{0}` (see docs/rules/)")]
    UnknownCode(String),
    /// A `VS1xx` code set below error.
    #[error("{0} cannot be set to `{1}`: Valgrind refuses or crashes on what it finds")]
    Fatal(&'static str, Level),
}

/// Levels by code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Severities {
    levels: BTreeMap<&'static str, Level>,
}

impl Severities {
    /// Set the level of a code (`VS403`) or name (`expired`).
    ///
    /// # Errors
    /// An unknown code, or a `VS1xx` code below error.
    pub fn set(&mut self, code: &str, level: Level) -> Result<(), SeverityError> {
        let rule: &'static RuleMeta =
            registry::lookup(code).ok_or_else(|| SeverityError::UnknownCode(code.to_owned()))?;
        if rule.fatal_in_valgrind && level != Level::At(Severity::Error) {
            return Err(SeverityError::Fatal(rule.code, level));
        }
        self.levels.insert(rule.code, level);
        Ok(())
    }

    /// The level set for `code`, if any.
    #[must_use]
    pub fn get(&self, code: &str) -> Option<Level> {
        self.levels.get(code).copied()
    }

    /// Whether nothing is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Apply the levels: drop what is off, change severities.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.levels.is_empty() {
            return;
        }
        diagnostics.retain_mut(|d| match self.levels.get(&*d.rule.code) {
            Some(Level::Off) => false,
            Some(Level::At(s)) => {
                d.severity = *s;
                true
            }
            None => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_by_code_or_name() {
        let mut s = Severities::default();
        s.set("missing-name", Level::At(Severity::Info))
            .expect("by name");
        s.set("VS901", Level::Off).expect("by code");
        s.set("vs112", Level::At(Severity::Error))
            .expect("fatal stays error");
        assert_eq!(
            s.set("VS112", Level::At(Severity::Warning)),
            Err(SeverityError::Fatal("VS112", Level::At(Severity::Warning)))
        );
        assert_eq!(
            s.set("VS999", Level::Off),
            Err(SeverityError::UnknownCode("VS999".into()))
        );
        let mut ds = vec![
            Diagnostic::new(
                crate::catalogue::Lint::MissingName,
                "a",
                1,
                1,
                String::new(),
            ),
            Diagnostic::new(
                crate::catalogue::Lint::NotFormatted,
                "a",
                1,
                1,
                String::new(),
            ),
            Diagnostic::new(
                crate::catalogue::Lint::UnknownTool,
                "a",
                1,
                1,
                String::new(),
            ),
        ];
        s.apply(&mut ds);
        let got: Vec<(&str, Severity)> = ds.iter().map(|d| (&*d.rule.code, d.severity)).collect();
        assert_eq!(
            got,
            [("VS203", Severity::Info), ("VS201", Severity::Warning)]
        );
        assert_eq!("deny".parse::<Level>(), Ok(Level::At(Severity::Error)));
        assert!("loud".parse::<Level>().is_err());
    }
}
