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

impl RulesOptions {
    /// The release and depth these options load the rules for.
    #[must_use]
    pub const fn settings(&self) -> Settings {
        Settings {
            version: self.version,
            num_callers: self.num_callers,
        }
    }
}

/// What decides how Valgrind loads a suppression file besides the tool: its release and
/// `--num-callers`. Logs recorded with different settings are replayed against the rules
/// loaded for their own ([`Rules::load_groups`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Settings {
    /// The Valgrind release.
    pub version: Version,
    /// `--num-callers`.
    pub num_callers: u32,
}

/// Index of a [`Settings`] group in [`Rules`] (0 for rules loaded with [`Rules::load`]).
pub type Group = usize;

/// A rule while the table is built: its record (file, record index), its group, tool,
/// whether it is only listed (a refused tool's), and its id in its set.
type Entry = ((usize, u32), usize, usize, bool, usize);

/// The index of `tool` in [`Tool::ALL`].
const fn tool_index(tool: Tool) -> usize {
    match tool {
        Tool::Memcheck => 0,
        Tool::Helgrind => 1,
        Tool::Drd => 2,
    }
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
    /// Per settings group: the settings, and the rules per tool in [`Tool::ALL`] order.
    groups: Vec<(Settings, [Result<ToolRules, RefusedFile>; 3])>,
    /// With [`RulesOptions::go_on`]: every problem gone past, per tool.
    pub problems: Vec<RefusedFile>,
    /// How they were loaded (for several groups: the first group's settings).
    pub options: RulesOptions,
}

impl Rules {
    /// Load `files` for every tool.
    #[must_use]
    pub fn load(files: Vec<RuleFile>, opts: RulesOptions) -> Self {
        Self::load_groups(files, &[opts.settings()], opts.go_on)
    }

    /// Load `files` for every tool, once per settings group (each distinct release and
    /// depth that logs were recorded with), with one table of rules across groups: a
    /// record that several groups load is one rule. With no settings, the default release
    /// and depth form the only group.
    #[must_use]
    pub fn load_groups(files: Vec<RuleFile>, settings: &[Settings], go_on: bool) -> Self {
        Self::load_used(files, settings, go_on, &Tool::ALL)
    }

    /// [`Rules::load_groups`] for logs that only `used` tools recorded: `go_on` applies to
    /// them only. Another tool that would refuse the files is refused ([`Rules::tool_in`]),
    /// not gone past, and its problems are not listed (Valgrind never ran it with these
    /// files), but every record it reads is in the table as when it loads them.
    #[must_use]
    pub fn load_used(
        files: Vec<RuleFile>,
        settings: &[Settings],
        go_on: bool,
        used: &[Tool],
    ) -> Self {
        let default = [Settings {
            version: Version::default(),
            num_callers: crate::supp::loader::DEFAULT_NUM_CALLERS,
        }];
        let settings = if settings.is_empty() {
            &default[..]
        } else {
            settings
        };
        let mut problems = Vec::new();
        // Per group and tool: the rules, or why that tool's Valgrind would not run with
        // them. A tool no log used that refuses the files keeps that answer (a process of
        // it found later in a log stops the replay), but its records still go into the
        // table (`listed`), loaded past the problems, as they do when it loads them.
        let mut listed: Vec<[Option<RuleSet>; 3]> = Vec::with_capacity(settings.len());
        let sets: Vec<[Result<RuleSet, RefusedFile>; 3]> = settings
            .iter()
            .map(|s| {
                let mut only_listed: [Option<RuleSet>; 3] = Default::default();
                let group = Tool::ALL.map(|tool| {
                    let recovering = || {
                        RuleSet::load_recovering(files.clone(), &[tool], s.version, s.num_callers)
                    };
                    if go_on && used.contains(&tool) {
                        let set = recovering();
                        for p in &set.problems {
                            if !problems.contains(p) {
                                problems.push(p.clone());
                            }
                        }
                        return Ok(set);
                    }
                    let strict = RuleSet::load(files.clone(), &[tool], s.version, s.num_callers)
                        .and_then(|set| match set.problems.first() {
                            // Valgrind loads it, then crashes comparing an error with a rule.
                            Some(p) => Err(p.clone()),
                            None => Ok(set),
                        });
                    if strict.is_err() && !used.contains(&tool) {
                        only_listed[tool_index(tool)] = Some(recovering());
                    }
                    strict
                });
                listed.push(only_listed);
                group
            })
            .collect();
        // Every rule of every group and tool, by record: sorted, each distinct record gets
        // the next slot, and each (group, tool, rule) is told its slot as it goes (no lookup
        // that can miss).
        let set_of = |g: usize, t: usize, only: bool| -> Option<&RuleSet> {
            if only {
                listed[g][t].as_ref()
            } else {
                sets[g][t].as_ref().ok()
            }
        };
        let mut all: Vec<Entry> = Vec::new();
        for g in 0..sets.len() {
            for t in 0..Tool::ALL.len() {
                for only in [false, true] {
                    if let Some(set) = set_of(g, t, only) {
                        all.extend(
                            set.rules
                                .iter()
                                .enumerate()
                                .map(|(id, r)| ((r.file, r.record), g, t, only, id)),
                        );
                    }
                }
            }
        }
        all.sort_unstable();
        let mut table: Vec<RuleInfo> = Vec::new();
        let mut slots: Vec<[Vec<Slot>; 3]> = sets
            .iter()
            .map(|group| {
                let mut s: [Vec<Slot>; 3] = Default::default();
                for (t, set) in group.iter().enumerate() {
                    if let Ok(set) = set {
                        s[t] = vec![0; set.rules.len()];
                    }
                }
                s
            })
            .collect();
        let mut last = None;
        for (key, g, t, only, id) in all {
            if let Some(set) = set_of(g, t, only) {
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
                if !only {
                    slots[g][t][id] = table.len() - 1;
                }
            }
        }
        let groups = sets
            .into_iter()
            .zip(slots)
            .zip(settings)
            .map(|((group, slots), s)| {
                let mut slots = slots.into_iter();
                let tools = group.map(|set| {
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
                (*s, tools)
            })
            .collect();
        Self {
            files,
            table,
            groups,
            problems,
            options: RulesOptions {
                version: settings[0].version,
                num_callers: settings[0].num_callers,
                go_on,
            },
        }
    }

    /// The rules of `tool` (in the first settings group), or why Valgrind would not run
    /// with them.
    ///
    /// # Errors
    /// When Valgrind (running `tool`) refuses a file, aborts on it or crashes on one of its
    /// rules, and the rules were not loaded with [`RulesOptions::go_on`].
    pub fn tool(&self, tool: Tool) -> Result<&ToolRules, &RefusedFile> {
        self.tool_in(0, tool)
    }

    /// The rules of `tool` as loaded for settings group `group` (the first group when
    /// there is no such group), or why Valgrind would not run with them.
    ///
    /// # Errors
    /// As [`Rules::tool`].
    pub fn tool_in(&self, group: Group, tool: Tool) -> Result<&ToolRules, &RefusedFile> {
        let at = tool_index(tool);
        let tools = &self.groups.get(group).unwrap_or_else(|| &self.groups[0]).1;
        tools[at].as_ref()
    }

    /// The settings of every group, in the order given to [`Rules::load_groups`].
    pub fn groups(&self) -> impl Iterator<Item = Settings> + '_ {
        self.groups.iter().map(|(s, _)| *s)
    }

    /// The settings of group `group` (the first group's when there is no such group).
    #[must_use]
    pub fn settings(&self, group: Group) -> Settings {
        self.groups.get(group).unwrap_or(&self.groups[0]).0
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

    /// Logs recorded with different releases and depths: one load per group, one table.
    #[test]
    fn groups_load_their_own_rules_into_one_table() {
        let v = |m| Version::new(m).expect("modelled");
        let src = "{\n deep\n Memcheck:Cond\n fun:a\n fun:b\n fun:c\n fun:d\n}\n{\n zero\n Memcheck:ReallocZero\n fun:realloc\n}\n";
        let groups = [
            Settings {
                version: v(27),
                num_callers: 40,
            },
            Settings {
                version: v(27),
                num_callers: 2,
            },
            Settings {
                version: v(19),
                num_callers: 40,
            },
        ];
        let rules = Rules::load_groups(vec![file("r.supp", src)], &groups, false);
        assert_eq!(rules.groups().collect::<Vec<_>>(), groups);
        assert_eq!(rules.table.len(), 2);
        let deep = rules.tool_in(0, Tool::Memcheck).expect("3.27 loads it");
        let shallow = rules.tool_in(1, Tool::Memcheck).expect("3.27 loads it");
        assert_eq!(deep.set.rules[0].frames.len(), 4);
        assert_eq!(shallow.set.rules[0].frames.len(), 2, "cut at --num-callers");
        assert_eq!((deep.slot(1), shallow.slot(1)), (1, 1));
        // 3.19 has no ReallocZero: Valgrind 3.19 refuses the file.
        let refused = rules.tool_in(2, Tool::Memcheck).expect_err("3.19 refuses");
        assert_eq!(refused.line, 11);
        assert_eq!(rules.tool(Tool::Memcheck).map(|t| t.set.rules.len()), Ok(2));
        assert_eq!(rules.settings(2).version, v(19));
        // Going on: the refused record is skipped in its group only, and the problem is
        // listed once.
        let rules = Rules::load_groups(vec![file("r.supp", src)], &groups, true);
        assert_eq!(
            rules.tool_in(2, Tool::Memcheck).map(|t| t.set.rules.len()),
            Ok(1)
        );
        assert_eq!(rules.problems.len(), 1);
        assert_eq!(rules.table.len(), 2);
        // For Helgrind logs only, Memcheck's problems are not listed, not even gone past
        // with `go_on` (a Memcheck process found later still stops the replay), and its
        // records are still in the table.
        for go_on in [false, true] {
            let rules =
                Rules::load_used(vec![file("r.supp", src)], &groups, go_on, &[Tool::Helgrind]);
            assert!(rules.tool_in(2, Tool::Memcheck).is_err());
            assert!(rules.problems.is_empty());
            assert_eq!(rules.table.len(), 2);
        }
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
