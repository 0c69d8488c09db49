//! Matching suppression rules against errors with Valgrind's semantics
//! (valgrind-semantics.md §2): the kind check, prefix stack matching with `...`, and
//! first-match-wins attribution in Valgrind's search order (reverse load order, most
//! recently used first).

pub mod algebra;
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
use crate::supp::loader::{self, LoadError, LoadOptions, Outcome};

/// A suppression file given to the matcher.
#[derive(Debug, Clone)]
pub struct RuleFile {
    /// How to show its path.
    pub path: String,
    /// Its bytes.
    pub source: Vec<u8>,
}

/// A problem that stops Valgrind: it refuses the file, aborts while loading it, or crashes
/// later when it compares an error with one of its rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: Valgrind ({tool}) {}: {message}", describe(*.outcome))]
pub struct RefusedFile {
    /// The file.
    pub file: String,
    /// Valgrind's `near line N` (for a later crash, the rule's tool line).
    pub line: u32,
    /// The tool that refuses it.
    pub tool: Tool,
    /// Valgrind's message.
    pub message: &'static str,
    /// What is wrong.
    pub error: LoadError,
    /// How Valgrind stops.
    pub outcome: Outcome,
}

const fn describe(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Fatal => "refuses this file",
        Outcome::Abort => "aborts while loading this file",
        Outcome::LaterCrash => "crashes when it compares an error with this rule",
    }
}

impl RefusedFile {
    fn new(file: &RuleFile, tool: Tool, p: &loader::LoadProblem) -> Self {
        Self {
            file: file.path.clone(),
            line: p.valgrind_line,
            tool,
            message: p.error.message(),
            error: p.error,
            outcome: p.error.outcome(),
        }
    }
}

/// Rules loaded from files for some tools, in load order, with their index.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// The files, in load order.
    pub files: Vec<RuleFile>,
    /// Every rule of every tool, in load order per tool.
    pub rules: Vec<Rule>,
    /// What stops Valgrind but did not stop loading: rules Valgrind loads and later crashes
    /// on (`FishyValue` without its extra line, `Helgrind:FreeMemLock`), and with
    /// [`RuleSet::load_recovering`] every problem Valgrind refuses or aborts on.
    pub problems: Vec<RefusedFile>,
    index: index::Index,
}

impl RuleSet {
    /// Load `files` (in `--suppressions` order) for each of `tools` as Valgrind `version`
    /// with `--num-callers`. Rules Valgrind loads and later crashes on are loaded (they never
    /// match) and listed in [`RuleSet::problems`].
    ///
    /// # Errors
    /// When Valgrind would refuse (or abort on) a file for one of the tools.
    pub fn load(
        files: Vec<RuleFile>,
        tools: &[Tool],
        version: Version,
        num_callers: u32,
    ) -> Result<Self, RefusedFile> {
        match Self::load_with(files, tools, version, num_callers, false) {
            (_, Some(refused)) => Err(refused),
            (set, None) => Ok(set),
        }
    }

    /// Like [`RuleSet::load`], but past every problem: records Valgrind would not get to (it
    /// stops at the first problem) are loaded where the loader can recover, and every
    /// problem is listed in [`RuleSet::problems`]. For going on where Valgrind would not.
    #[must_use]
    pub fn load_recovering(
        files: Vec<RuleFile>,
        tools: &[Tool],
        version: Version,
        num_callers: u32,
    ) -> Self {
        Self::load_with(files, tools, version, num_callers, true).0
    }

    fn load_with(
        files: Vec<RuleFile>,
        tools: &[Tool],
        version: Version,
        num_callers: u32,
        recover: bool,
    ) -> (Self, Option<RefusedFile>) {
        let mut rules = Vec::new();
        let mut refused = None;
        let mut problems = Vec::new();
        for &tool in tools {
            for (i, f) in files.iter().enumerate() {
                let res = loader::load(
                    &f.source,
                    LoadOptions {
                        tool,
                        version,
                        num_callers,
                    },
                    recover,
                );
                if !recover && let Some(p) = res.verdict() {
                    refused = Some(RefusedFile::new(f, tool, p));
                    break;
                }
                problems.extend(res.problems.iter().map(|p| RefusedFile::new(f, tool, p)));
                rules.extend(
                    res.records
                        .iter()
                        .map(|r| Rule::from_loaded(i, tool, r, &f.source)),
                );
            }
        }
        let index = index::Index::new(&rules);
        let set = Self {
            files,
            rules,
            problems,
            index,
        };
        (set, refused)
    }

    /// Ids of rules that may match `input` under `tool`.
    #[must_use]
    pub fn candidates(&self, tool: Tool, input: &MatchInput) -> Vec<u32> {
        self.index
            .candidates_in(tool, input, &mut stack::Scratch::default())
    }

    /// Whether rule `id` matches `input` (kind check, then stack).
    #[must_use]
    pub fn rule_matches(&self, id: u32, input: &MatchInput) -> Truth {
        self.rule_matches_in(
            id,
            input,
            &stack::Hashes::of(input),
            &mut stack::Scratch::default(),
        )
    }

    fn rule_matches_in(
        &self,
        id: u32,
        input: &MatchInput,
        hashes: &stack::Hashes,
        scratch: &mut stack::Scratch,
    ) -> Truth {
        let rule = &self.rules[id as usize];
        if !rule.kind_matches(&input.kind) {
            return Truth::No;
        }
        stack::stack_matches_in(&rule.frames, input, hashes, scratch)
    }

    /// Every rule that matches `input` or may match it (verdict not [`Truth::No`]), for
    /// analysis and for attribution, in load order.
    #[must_use]
    pub fn all_matches(&self, tool: Tool, input: &MatchInput) -> Vec<(u32, Truth)> {
        self.all_matches_in(tool, input, &mut stack::Scratch::default())
    }

    /// [`RuleSet::all_matches`], keeping what is worth keeping in `scratch` (see
    /// [`stack::Scratch`] for how long it may be kept).
    pub(crate) fn all_matches_in(
        &self,
        tool: Tool,
        input: &MatchInput,
        scratch: &mut stack::Scratch,
    ) -> Vec<(u32, Truth)> {
        let hashes = stack::Hashes::of(input);
        self.index
            .candidates_in(tool, input, scratch)
            .into_iter()
            .map(|id| (id, self.rule_matches_in(id, input, &hashes, scratch)))
            .filter(|(_, t)| *t != Truth::No)
            .collect()
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

    /// First match in Valgrind's search order, for a sequence of errors: the credited rules.
    fn credits(s: &RuleSet, errors: &[MatchInput]) -> Vec<Option<u32>> {
        let mut order = crate::replay::credit::SearchOrder::new(s.rules.len());
        errors
            .iter()
            .map(|e| {
                let mut c = crate::replay::credit::Candidates::default();
                for (id, t) in s.all_matches(Tool::Memcheck, e) {
                    match t {
                        Truth::Yes => c.yes.push(id),
                        Truth::Unknown => c.maybe.push(id),
                        Truth::No => {}
                    }
                }
                order.group(&[c], 0, |_| 0)[0].certain()
            })
            .collect()
    }

    const A_THEN_B: &str = "{\n A\n Memcheck:Addr4\n fun:leaf_read\n}\n{\n B\n Memcheck:Addr4\n fun:leaf_read\n fun:other_read\n}\n";

    #[test]
    fn mru_order_o1_o2() {
        let s = set(&[A_THEN_B]);
        let x = input("Addr4", &["leaf_read", "mid_read"]);
        let y = input("Addr4", &["leaf_read", "other_read"]);
        // O1: X then Y: A moves to the front and takes Y too.
        assert_eq!(credits(&s, &[x.clone(), y.clone()]), [Some(0), Some(0)]);
        // O2: Y then X: B (later in the file, searched first) takes Y, A takes X.
        assert_eq!(credits(&s, &[y, x]), [Some(1), Some(0)]);
    }

    #[test]
    fn later_file_wins() {
        let one = "{\n first\n Memcheck:Addr4\n fun:leaf_read\n}\n";
        let two = "{\n second\n Memcheck:Addr4\n fun:leaf_*\n}\n";
        let s = set(&[one, two]);
        let c = credits(&s, &[input("Addr4", &["leaf_read"])]);
        assert_eq!(
            c[0].map(|i| s.rules[i as usize].name.clone()),
            Some(b"second".to_vec())
        );
    }

    #[test]
    fn kind_checks() {
        let s = set(&[
            "{\n c\n Memcheck:Value0\n fun:f\n}\n{\n m\n Memcheck:CoreMem\n fun:f\n}\n{\n p\n Memcheck:Param\n write(buf)\n fun:f\n}\n",
        ]);
        let suppressed = |e: &MatchInput| credits(&s, std::slice::from_ref(e))[0].is_some();
        assert!(suppressed(&input("Cond", &["f"]))); // P42
        assert!(!suppressed(&input("CoreMem", &["f"])));
        assert!(!suppressed(&input("Addr8", &["f"]))); // M29
        let mut p = input("Param", &["f"]);
        p.kind.param = Some(b"write(buf)".to_vec());
        assert!(suppressed(&p)); // K01
        p.kind.param = Some(b"write(buf2)".to_vec());
        assert!(!suppressed(&p));
    }

    #[test]
    fn refused_files_are_reported() {
        let files = vec![RuleFile {
            path: "bad.supp".into(),
            source: b"{\n r\n Memcheck:Nope\n fun:f\n}\n".to_vec(),
        }];
        let err = RuleSet::load(files.clone(), &[Tool::Memcheck], Version::default(), 12)
            .expect_err("refused");
        assert_eq!(err.line, 3);
        assert_eq!(err.outcome, Outcome::Fatal);
        let set = RuleSet::load_recovering(files, &[Tool::Memcheck], Version::default(), 12);
        assert_eq!(set.problems, [err]);
    }

    #[test]
    fn rules_valgrind_crashes_on_are_listed() {
        let files = vec![RuleFile {
            path: "fishy.supp".into(),
            source: b"{\n ok\n Memcheck:Cond\n fun:f\n}\n{\n r\n Memcheck:FishyValue\n fun:f\n}\n"
                .to_vec(),
        }];
        let set = RuleSet::load(files, &[Tool::Memcheck], Version::default(), 12).expect("loads");
        assert_eq!(set.rules.len(), 2);
        assert_eq!(set.problems.len(), 1);
        assert_eq!(set.problems[0].outcome, Outcome::LaterCrash);
        assert_eq!(set.problems[0].line, 8);
        assert!(
            set.problems[0]
                .to_string()
                .contains("crashes when it compares")
        );
    }
}
