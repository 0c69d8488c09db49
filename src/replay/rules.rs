//! The rules a replay uses: every suppression file loaded once per tool as that tool's
//! Valgrind loads it, and one table of every record across tools, so that a record read by
//! several tools (`Memcheck,Helgrind:…`) is one rule in a report.

use crate::matcher::rule::RuleExtra;
use crate::matcher::{RefusedFile, RuleFile, RuleSet};
use crate::replay::credit::{KindMask, RuleId};
use crate::supp::kinds::{Tool, Version};
use crate::supp::model::{LeakKind, Span};

/// A rule's identity: which record of which file it is, so that a command can map what a
/// replay says about it back to the record's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo {
    /// Its name as written.
    pub name: Vec<u8>,
    /// Index of its file in [`Rules::files`].
    pub file: usize,
    /// The line of its name (what Valgrind's `used_suppression` prints).
    pub line: u32,
    /// Which record of the file it is (counting every record, of any tool).
    pub record: u32,
    /// The record's bytes in its file.
    pub span: Span,
}

/// Index of a rule in [`Rules::table`].
pub type Slot = usize;

/// One tool's rules, as that tool's Valgrind loads them.
#[derive(Debug, Clone)]
pub struct ToolRules {
    /// The loaded set.
    pub set: RuleSet,
    /// The [`Slot`] of each rule id of the set.
    slots: Vec<Slot>,
    /// The leak kinds each rule id may match (empty for rules of other kinds).
    kinds: Vec<KindMask>,
}

impl ToolRules {
    /// The slot of rule `id`.
    #[must_use]
    pub fn slot(&self, id: RuleId) -> Slot {
        self.slots[id as usize]
    }

    /// The leak kinds rule `id` may match.
    #[must_use]
    pub fn kinds(&self, id: RuleId) -> KindMask {
        self.kinds.get(id as usize).copied().unwrap_or(0)
    }

    /// Every rule id whose leak kinds meet `mask`.
    pub fn leak_rules(&self, mask: KindMask) -> impl Iterator<Item = RuleId> + '_ {
        self.kinds
            .iter()
            .enumerate()
            .filter(move |(_, k)| **k & mask != 0)
            .map(|(id, _)| RuleId::try_from(id).unwrap_or(RuleId::MAX))
    }
}

/// How to load the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RulesOptions {
    /// The Valgrind release whose loader to follow.
    pub version: Version,
    /// The `--num-callers` the logs were recorded with (rules are truncated to it).
    pub num_callers: u32,
    /// Replay even with files Valgrind would refuse, abort on or crash with: load past the
    /// problems and report them, instead of refusing the tool.
    pub go_on: bool,
}

/// The bit of `kind` in a [`KindMask`].
#[must_use]
pub const fn kind_bit(kind: LeakKind) -> KindMask {
    1 << (kind as u8)
}

/// Every leak kind.
pub const ALL_KINDS: KindMask = 0b1111;

/// Every file loaded for every tool, and the table of rules.
#[derive(Debug, Clone)]
pub struct Rules {
    /// The files, in `--suppressions` order.
    pub files: Vec<RuleFile>,
    /// Every loaded record once, in file and record order.
    pub table: Vec<RuleInfo>,
    /// Per tool, in [`Tool::ALL`] order.
    tools: [Result<ToolRules, RefusedFile>; 3],
    /// With [`RulesOptions::go_on`]: every problem gone past, per tool.
    pub problems: Vec<RefusedFile>,
    /// How they were loaded.
    pub options: RulesOptions,
}

impl Rules {
    /// Load `files` for every tool.
    #[must_use]
    pub fn load(files: Vec<RuleFile>, opts: RulesOptions) -> Self {
        let mut problems = Vec::new();
        let sets: [Result<RuleSet, RefusedFile>; 3] = Tool::ALL.map(|tool| {
            if opts.go_on {
                let set = RuleSet::load_recovering(
                    files.clone(),
                    &[tool],
                    opts.version,
                    opts.num_callers,
                );
                problems.extend(set.problems.iter().cloned());
                Ok(set)
            } else {
                RuleSet::load(files.clone(), &[tool], opts.version, opts.num_callers).and_then(
                    |set| match set.problems.first() {
                        // Valgrind loads it, then crashes comparing an error with a rule.
                        Some(p) => Err(p.clone()),
                        None => Ok(set),
                    },
                )
            }
        });
        // Every rule of every tool, by record: sorted, each distinct record gets the next
        // slot, and each (tool, rule) is told its slot as it goes (no lookup that can miss).
        let mut all: Vec<((usize, u32), usize, usize)> = Vec::new();
        for (t, set) in sets.iter().enumerate() {
            if let Ok(set) = set {
                all.extend(
                    set.rules
                        .iter()
                        .enumerate()
                        .map(|(id, r)| ((r.file, r.record), t, id)),
                );
            }
        }
        all.sort_unstable();
        let mut table: Vec<RuleInfo> = Vec::new();
        let mut slots: [Vec<Slot>; 3] = Default::default();
        for (t, set) in sets.iter().enumerate() {
            if let Ok(set) = set {
                slots[t] = vec![0; set.rules.len()];
            }
        }
        let mut last = None;
        for (key, t, id) in all {
            if let Ok(set) = &sets[t] {
                if last != Some(key) {
                    let r = &set.rules[id];
                    table.push(RuleInfo {
                        name: r.name.clone(),
                        file: r.file,
                        line: r.line,
                        record: r.record,
                        span: r.span,
                    });
                    last = Some(key);
                }
                slots[t][id] = table.len() - 1;
            }
        }
        let mut slots = slots.into_iter();
        let tools = sets.map(|set| {
            let slots = slots.next().unwrap_or_default();
            set.map(|set| {
                let kinds = set
                    .rules
                    .iter()
                    .map(|r| match (&r.extra, r.kind.as_slice()) {
                        (RuleExtra::Leak(k), b"Leak") if !k.none => LeakKind::ALL
                            .into_iter()
                            .filter(|&kind| k.contains(kind))
                            .fold(0, |m, kind| m | kind_bit(kind)),
                        _ => 0,
                    })
                    .collect();
                ToolRules { set, slots, kinds }
            })
        });
        Self {
            files,
            table,
            tools,
            problems,
            options: opts,
        }
    }

    /// The rules of `tool`, or why Valgrind would not run with them.
    ///
    /// # Errors
    /// When Valgrind (running `tool`) refuses a file, aborts on it or crashes on one of its
    /// rules, and the rules were not loaded with [`RulesOptions::go_on`].
    pub fn tool(&self, tool: Tool) -> Result<&ToolRules, &RefusedFile> {
        let at = match tool {
            Tool::Memcheck => 0,
            Tool::Helgrind => 1,
            Tool::Drd => 2,
        };
        self.tools[at].as_ref()
    }

    /// A display name for a rule: its name, file and line.
    #[must_use]
    pub fn describe(&self, slot: Slot) -> String {
        let r = &self.table[slot];
        format!(
            "{} ({}:{})",
            String::from_utf8_lossy(&r.name),
            self.files[r.file].path,
            r.line
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, src: &str) -> RuleFile {
        RuleFile {
            path: path.into(),
            source: src.as_bytes().to_vec(),
        }
    }

    fn opts(go_on: bool) -> RulesOptions {
        RulesOptions {
            version: Version::new(19).expect("3.19"),
            num_callers: 12,
            go_on,
        }
    }

    #[test]
    fn rules_of_every_tool_share_one_table() {
        let rules = Rules::load(
            vec![
                file(
                    "a.supp",
                    "{\n both\n Memcheck,MemcheckX:Free\n fun:f\n}\n{\n leak\n Memcheck:Leak\n match-leak-kinds: definite,reachable\n fun:malloc\n}\n",
                ),
                file("b.supp", "{\n race\n Helgrind:Race\n fun:g\n}\n"),
            ],
            opts(false),
        );
        let names: Vec<&[u8]> = rules.table.iter().map(|r| r.name.as_slice()).collect();
        assert_eq!(names, [&b"both"[..], b"leak", b"race"]);
        let mc = rules.tool(Tool::Memcheck).expect("memcheck");
        let hg = rules.tool(Tool::Helgrind).expect("helgrind");
        assert_eq!(mc.set.rules.len(), 2);
        assert_eq!((mc.slot(0), mc.slot(1), hg.slot(0)), (0, 1, 2));
        // A record two tools read is one rule, and must be valid for both (§1.4).
        let both = Rules::load(
            vec![file(
                "c.supp",
                "{\n both\n Memcheck,Helgrind:Race\n fun:f\n}\n",
            )],
            opts(false),
        );
        assert!(both.tool(Tool::Memcheck).is_err());
        assert_eq!(both.tool(Tool::Helgrind).expect("helgrind").slot(0), 0);
        assert_eq!(both.table.len(), 1);
        assert_eq!(
            mc.kinds(1),
            kind_bit(LeakKind::Definite) | kind_bit(LeakKind::Reachable)
        );
        assert_eq!(mc.kinds(0), 0);
        assert_eq!(
            mc.leak_rules(kind_bit(LeakKind::Reachable))
                .collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(rules.describe(2), "race (b.supp:2)");
    }

    #[test]
    fn a_rule_valgrind_crashes_on_refuses_the_tool_unless_going_on() {
        let src = "{\n ok\n Memcheck:Cond\n fun:f\n}\n{\n r\n Memcheck:FishyValue\n fun:f\n}\n";
        let rules = Rules::load(vec![file("f.supp", src)], opts(false));
        let err = rules.tool(Tool::Memcheck).expect_err("refused");
        assert_eq!(err.line, 8);
        // Helgrind skips Memcheck records unread.
        assert!(rules.tool(Tool::Helgrind).is_ok());
        let rules = Rules::load(vec![file("f.supp", src)], opts(true));
        assert_eq!(
            rules.tool(Tool::Memcheck).expect("go on").set.rules.len(),
            2
        );
        assert_eq!(rules.problems.len(), 1);
        // A refused file: the records before and after the broken one still load.
        let broken = "{\n a\n Memcheck:Cond\n fun:f\n}\n{\n b\n Memcheck:Nope\n fun:f\n}\n{\n c\n Memcheck:Cond\n fun:g\n}\n";
        let rules = Rules::load(vec![file("x.supp", broken)], opts(true));
        assert_eq!(
            rules.tool(Tool::Memcheck).expect("go on").set.rules.len(),
            2
        );
        assert_eq!(rules.problems[0].line, 8);
        let rules = Rules::load(vec![file("x.supp", broken)], opts(false));
        assert!(rules.tool(Tool::Memcheck).is_err());
    }
}
