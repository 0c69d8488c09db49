//! The Valgrind options of a recorded run that change what a replay can know: which loss
//! records the log prints, the stack depth, the names shown (valgrind-semantics.md §2.8).

use crate::replay::credit::KindMask;
use crate::replay::rules::{ALL_KINDS, kind_bit};
use crate::supp::model::LeakKind;

/// `--leak-check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeakCheck {
    /// `no`: no leak search.
    No,
    /// `summary` (the default): every loss record is matched, none printed.
    Summary,
    /// `full`/`yes`: records of the kinds in `--show-leak-kinds` are printed.
    Full,
}

/// What a run's options say, as far as the log shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// The options were printed (text `-v`, XML), so defaults apply to the rest.
    pub known: bool,
    /// `--num-callers`, when given.
    pub num_callers: Option<u32>,
    /// `--leak-check`.
    pub leak_check: LeakCheck,
    /// The leak kinds whose records are printed (`--show-leak-kinds`).
    pub shown: KindMask,
    /// `--keep-debuginfo=yes`: unloaded objects keep their symbols (and stacks may name
    /// them after they are gone).
    pub keep_debuginfo: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            known: false,
            num_callers: None,
            leak_check: LeakCheck::Summary,
            shown: kind_bit(LeakKind::Definite) | kind_bit(LeakKind::Possible),
            keep_debuginfo: false,
        }
    }
}

fn kinds(list: &str) -> Option<KindMask> {
    match list {
        "all" => Some(ALL_KINDS),
        "none" => Some(0),
        _ => list
            .split(',')
            .filter(|w| !w.is_empty())
            .map(|w| {
                LeakKind::ALL
                    .into_iter()
                    .find(|k| k.token() == w)
                    .map(kind_bit)
            })
            .try_fold(0, |m, k| k.map(|k| m | k)),
    }
}

impl RunOptions {
    /// Read the options printed in a preamble (Valgrind's own, not the program's). Later
    /// options override earlier ones, as on Valgrind's command line.
    #[must_use]
    pub fn parse(options: &[String]) -> Self {
        let mut o = Self {
            known: !options.is_empty(),
            ..Self::default()
        };
        for opt in options {
            let (name, value) = opt.split_once('=').unwrap_or((opt.as_str(), ""));
            match name {
                "--num-callers" => o.num_callers = value.parse().ok(),
                "--leak-check" => {
                    o.leak_check = match value {
                        "no" => LeakCheck::No,
                        "summary" => LeakCheck::Summary,
                        _ => LeakCheck::Full,
                    }
                }
                "--show-leak-kinds" => {
                    if let Some(k) = kinds(value) {
                        o.shown = k;
                    }
                }
                "--show-reachable" => {
                    if value == "yes" {
                        o.shown = ALL_KINDS;
                    } else {
                        o.shown &= !(kind_bit(LeakKind::Reachable) | kind_bit(LeakKind::Indirect));
                    }
                }
                "--keep-debuginfo" => o.keep_debuginfo = value == "yes",
                "--show-possibly-lost" => {
                    if value == "no" {
                        o.shown &= !kind_bit(LeakKind::Possible);
                    } else {
                        o.shown |= kind_bit(LeakKind::Possible);
                    }
                }
                _ => {}
            }
        }
        o
    }

    /// The kinds of loss records that Valgrind matches but the log may not print: every kind
    /// when the options are unknown.
    #[must_use]
    pub const fn hidden(&self) -> KindMask {
        if !self.known {
            return ALL_KINDS;
        }
        match self.leak_check {
            LeakCheck::No => 0,
            LeakCheck::Summary => ALL_KINDS,
            LeakCheck::Full => ALL_KINDS & !self.shown,
        }
    }

    /// Whether loss records are printed with their numbers, so that the records left out
    /// can be counted from the gaps: false when the options say no record is printed.
    #[must_use]
    pub const fn records_numbered(&self) -> bool {
        !self.known || matches!(self.leak_check, LeakCheck::Full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(opts: &[&str]) -> RunOptions {
        RunOptions::parse(&opts.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn leak_visibility() {
        let def = kind_bit(LeakKind::Definite);
        let pos = kind_bit(LeakKind::Possible);
        assert_eq!(parse(&[]).hidden(), ALL_KINDS);
        assert_eq!(parse(&["--tool=memcheck"]).hidden(), ALL_KINDS); // summary by default
        let full = parse(&["--leak-check=full"]);
        assert_eq!(full.hidden(), ALL_KINDS & !(def | pos));
        assert!(full.records_numbered());
        assert_eq!(
            parse(&["--leak-check=full", "--show-leak-kinds=all"]).hidden(),
            0
        );
        assert_eq!(
            parse(&["--leak-check=yes", "--show-leak-kinds=definite"]).hidden(),
            ALL_KINDS & !def
        );
        assert_eq!(
            parse(&["--leak-check=full", "--show-reachable=yes"]).hidden(),
            0
        );
        assert_eq!(
            parse(&["--leak-check=full", "--show-possibly-lost=no"]).hidden(),
            ALL_KINDS & !def
        );
        assert_eq!(parse(&["--leak-check=no"]).hidden(), 0);
        assert!(!parse(&["--leak-check=summary"]).records_numbered());
        assert_eq!(parse(&["--num-callers=40"]).num_callers, Some(40));
        assert!(parse(&["--keep-debuginfo=yes"]).keep_debuginfo);
        assert!(!parse(&["-v"]).keep_debuginfo);
        // An unknown kind: Valgrind refuses the option; keep the default.
        assert_eq!(
            parse(&["--leak-check=full", "--show-leak-kinds=bogus"]).hidden(),
            ALL_KINDS & !(def | pos)
        );
    }
}
