//! Matching suppression rules against errors with Valgrind's semantics
//! (valgrind-semantics.md §2): the kind check, prefix stack matching with `...`, and
//! first-match-wins attribution in Valgrind's search order (reverse load order, most
//! recently used first).

pub mod demangle;
pub mod index;
pub mod input;
pub mod objects;
pub mod rule;
pub mod stack;
pub mod wildcard;

pub use input::MatchInput;
pub use rule::Rule;
pub use stack::Truth;

use crate::supp::kinds::{Tool, Version};
use crate::supp::loader::{self, LoadOptions};

/// A suppression file given to the matcher.
#[derive(Debug, Clone)]
pub struct RuleFile {
    /// How to show its path.
    pub path: String,
    /// Its bytes.
    pub source: Vec<u8>,
}

/// A file Valgrind would refuse: matching cannot happen with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: Valgrind ({tool}) refuses this file: {message}")]
pub struct RefusedFile {
    /// The file.
    pub file: String,
    /// Valgrind's `near line N`.
    pub line: u32,
    /// The tool that refuses it.
    pub tool: Tool,
    /// Valgrind's message.
    pub message: &'static str,
}

/// Rules loaded from files for some tools, in load order, with their index.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// The files, in load order.
    pub files: Vec<RuleFile>,
    /// Every rule of every tool, in load order per tool.
    pub rules: Vec<Rule>,
    index: index::Index,
}

impl RuleSet {
    /// Load `files` (in `--suppressions` order) for each of `tools` as Valgrind `version`
    /// with `--num-callers`.
    ///
    /// # Errors
    /// When Valgrind would refuse (or abort on) a file for one of the tools.
    pub fn load(
        files: Vec<RuleFile>,
        tools: &[Tool],
        version: Version,
        num_callers: u32,
    ) -> Result<Self, RefusedFile> {
        let mut rules = Vec::new();
        for &tool in tools {
            for (i, f) in files.iter().enumerate() {
                let res = loader::load(
                    &f.source,
                    LoadOptions {
                        tool,
                        version,
                        num_callers,
                    },
                    false,
                );
                if let Some(p) = res.verdict() {
                    return Err(RefusedFile {
                        file: f.path.clone(),
                        line: p.valgrind_line,
                        tool,
                        message: p.error.message(),
                    });
                }
                rules.extend(
                    res.records
                        .iter()
                        .map(|r| Rule::from_loaded(i, tool, r, &f.source)),
                );
            }
        }
        let index = index::Index::new(&rules);
        Ok(Self {
            files,
            rules,
            index,
        })
    }

    /// Ids of rules that may match `input` under `tool`.
    #[must_use]
    pub fn candidates(&self, tool: Tool, input: &MatchInput) -> Vec<u32> {
        self.index.candidates(tool, input)
    }

    /// Whether rule `id` matches `input` (kind check, then stack).
    #[must_use]
    pub fn rule_matches(&self, id: u32, input: &MatchInput) -> Truth {
        let rule = &self.rules[id as usize];
        if !rule.kind_matches(&input.kind) {
            return Truth::No;
        }
        stack::stack_matches(&rule.frames, input)
    }

    /// Every rule that matches `input` or may match it (verdict not [`Truth::No`]), for
    /// analysis and for attribution, in load order.
    #[must_use]
    pub fn all_matches(&self, tool: Tool, input: &MatchInput) -> Vec<(u32, Truth)> {
        self.candidates(tool, input)
            .into_iter()
            .map(|id| (id, self.rule_matches(id, input)))
            .filter(|(_, t)| *t != Truth::No)
            .collect()
    }
}

/// Valgrind's verdict on one error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The rule that suppresses it (first match in search order), if any.
    pub suppressed_by: Option<u32>,
    /// The log did not show enough to be sure (a rule earlier in the search order, or the
    /// winner itself, could not be decided).
    pub approximate: bool,
}

/// First-match-wins attribution in Valgrind's search order, with most-recently-used moves
/// (§2.2). Feed errors in log order.
#[derive(Debug, Clone)]
pub struct Replay<'a> {
    set: &'a RuleSet,
    /// Search position per rule: smaller is searched first.
    position: Vec<i64>,
    next_front: i64,
    /// First-match counts per rule.
    pub hits: Vec<u64>,
}

impl<'a> Replay<'a> {
    /// Start with Valgrind's initial order: the reverse of load order.
    #[must_use]
    pub fn new(set: &'a RuleSet) -> Self {
        let n = set.rules.len();
        // Each tool's list is separate in Valgrind; positions only compare within a tool.
        let position = (0..n)
            .map(|i| i64::try_from(n - i).unwrap_or(i64::MAX))
            .collect();
        Self {
            set,
            position,
            next_front: 0,
            hits: vec![0; n],
        }
    }

    /// Attribute one error.
    pub fn attribute(&mut self, tool: Tool, input: &MatchInput) -> Verdict {
        let matches = self.set.all_matches(tool, input);
        self.attribute_matches(&matches)
    }

    /// Attribute one error from its precomputed [`RuleSet::all_matches`] (which can be
    /// computed in parallel, since only the choice among them depends on the search order).
    pub fn attribute_matches(&mut self, matches: &[(u32, Truth)]) -> Verdict {
        let mut cands: Vec<(i64, u32, Truth)> = matches
            .iter()
            .map(|&(id, t)| (self.position[id as usize], id, t))
            .collect();
        cands.sort_unstable();
        let mut approximate = false;
        for (_, id, truth) in cands {
            match truth {
                Truth::Yes => {
                    self.hits[id as usize] += 1;
                    self.next_front -= 1;
                    self.position[id as usize] = self.next_front;
                    return Verdict {
                        suppressed_by: Some(id),
                        approximate,
                    };
                }
                Truth::Unknown => approximate = true,
                Truth::No => {}
            }
        }
        Verdict {
            suppressed_by: None,
            approximate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::input::{ErrorKind, InputFrame, Known, SrcInfo};

    fn input(kind: &str, funs: &[&str]) -> MatchInput {
        MatchInput {
            kind: ErrorKind {
                kind: kind.to_owned(),
                ..ErrorKind::default()
            },
            frames: funs
                .iter()
                .map(|f| InputFrame {
                    fun: Known::Yes(f.as_bytes().to_vec()),
                    obj: Known::Yes(b"/x".to_vec()),
                    src: Known::Yes(SrcInfo::None),
                })
                .collect(),
            ..MatchInput::default()
        }
    }

    fn set(files: &[&str]) -> RuleSet {
        let files = files
            .iter()
            .enumerate()
            .map(|(i, s)| RuleFile {
                path: format!("{i}.supp"),
                source: s.as_bytes().to_vec(),
            })
            .collect();
        RuleSet::load(
            files,
            &[Tool::Memcheck],
            Version::new(19).expect("3.19"),
            12,
        )
        .expect("loads")
    }

    const A_THEN_B: &str = "{\n A\n Memcheck:Addr4\n fun:leaf_read\n}\n{\n B\n Memcheck:Addr4\n fun:leaf_read\n fun:other_read\n}\n";

    #[test]
    fn mru_order_o1_o2() {
        let s = set(&[A_THEN_B]);
        let x = input("Addr4", &["leaf_read", "mid_read"]);
        let y = input("Addr4", &["leaf_read", "other_read"]);
        // O1: X then Y: A moves to the front and takes Y too.
        let mut r = Replay::new(&s);
        r.attribute(Tool::Memcheck, &x);
        r.attribute(Tool::Memcheck, &y);
        assert_eq!(r.hits, vec![2, 0]);
        // O2: Y then X: B (later in the file, searched first) takes Y, A takes X.
        let mut r = Replay::new(&s);
        r.attribute(Tool::Memcheck, &y);
        r.attribute(Tool::Memcheck, &x);
        assert_eq!(r.hits, vec![1, 1]);
    }

    #[test]
    fn later_file_wins() {
        let one = "{\n first\n Memcheck:Addr4\n fun:leaf_read\n}\n";
        let two = "{\n second\n Memcheck:Addr4\n fun:leaf_*\n}\n";
        let s = set(&[one, two]);
        let mut r = Replay::new(&s);
        let v = r.attribute(Tool::Memcheck, &input("Addr4", &["leaf_read"]));
        assert_eq!(
            v.suppressed_by.map(|i| s.rules[i as usize].name.clone()),
            Some(b"second".to_vec())
        );
    }

    #[test]
    fn kind_checks() {
        let s = set(&[
            "{\n c\n Memcheck:Value0\n fun:f\n}\n{\n m\n Memcheck:CoreMem\n fun:f\n}\n{\n p\n Memcheck:Param\n write(buf)\n fun:f\n}\n",
        ]);
        let mut r = Replay::new(&s);
        assert!(
            r.attribute(Tool::Memcheck, &input("Cond", &["f"]))
                .suppressed_by
                .is_some()
        ); // P42
        assert!(
            r.attribute(Tool::Memcheck, &input("CoreMem", &["f"]))
                .suppressed_by
                .is_none()
        );
        assert!(
            r.attribute(Tool::Memcheck, &input("Addr8", &["f"]))
                .suppressed_by
                .is_none()
        ); // M29
        let mut p = input("Param", &["f"]);
        p.kind.param = Some(b"write(buf)".to_vec());
        assert!(r.attribute(Tool::Memcheck, &p).suppressed_by.is_some()); // K01
        p.kind.param = Some(b"write(buf2)".to_vec());
        assert!(r.attribute(Tool::Memcheck, &p).suppressed_by.is_none());
    }

    #[test]
    fn refused_files_are_reported() {
        let files = vec![RuleFile {
            path: "bad.supp".into(),
            source: b"{\n r\n Memcheck:Nope\n fun:f\n}\n".to_vec(),
        }];
        let err =
            RuleSet::load(files, &[Tool::Memcheck], Version::default(), 12).expect_err("refused");
        assert_eq!(err.line, 3);
    }
}
