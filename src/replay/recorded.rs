//! What a log says of the run that recorded it — the tools, the Valgrind release, the
//! stack depth (`--num-callers`) — and how a command settles, from that and what the user
//! set, the release and depth each log is replayed with and whose loader verdicts apply.
//!
//! The facts come from the preambles at the head of a log: the tool line (`Memcheck, a
//! memory error detector`, XML `<tool>`), `Using Valgrind-3.19.0` (XML `<line>` of the
//! preamble), and the options a `-v` text log or any XML log lists (`--num-callers=40`).
//! They are read before the replay, so that a file the recording release or tool refuses
//! stops the run before anything is printed; what a later process of the same log says
//! differently is reported by the replay itself ([`crate::replay::LogReplay`]).

use std::io::{BufRead as _, BufReader};
use std::path::Path;

use crate::logs::detect;
use crate::logs::record::{LogItem, Preamble};
use crate::replay::options::RunOptions;
use crate::replay::rules::Settings;
use crate::supp::kinds::{Tool, Version};
use crate::supp::loader::DEFAULT_NUM_CALLERS;

/// How many items of a log are read looking for its preambles: a preamble opens a log,
/// and an excerpt without one should not be read to its end.
const SCAN_ITEMS: usize = 10_000;

/// What a log's preambles say of how it was recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    /// The tools of the preambles read, each once, in the order seen (empty: the log
    /// names none).
    pub tools: Vec<Tool>,
    /// The release as the first preamble that names one prints it (`3.19.0`).
    pub release: Option<String>,
    /// `--num-callers` of the first preamble that lists the options (a `-v` text log, any
    /// XML log): as given, or Valgrind's default, 12, when not given.
    pub num_callers: Option<u32>,
}

impl Recorded {
    /// The facts of one preamble.
    #[must_use]
    pub fn from_preamble(p: &Preamble) -> Self {
        let mut r = Self::default();
        r.add(p);
        r
    }

    /// Take in another preamble of the same log: its tool is added, and the release and
    /// depth where none was known yet (a later process is checked by the replay).
    pub fn add(&mut self, p: &Preamble) {
        if let Some(t) = p.tool
            && !self.tools.contains(&t)
        {
            self.tools.push(t);
        }
        if self.release.is_none() {
            self.release.clone_from(&p.valgrind_version);
        }
        if self.num_callers.is_none() {
            self.num_callers = stated_depth(&RunOptions::parse(&p.options));
        }
    }

    /// The release whose loader applies, when the log names one: the release itself, or
    /// the nearest one vgsupp models (see [`release_version`]).
    #[must_use]
    pub fn version(&self) -> Option<Version> {
        self.release.as_deref().and_then(release_version)
    }

    /// Whether the log names a release that vgsupp does not model (older than 3.14 or
    /// newer than 3.27): [`Recorded::version`] is then the nearest one it does.
    #[must_use]
    pub fn release_unmodelled(&self) -> bool {
        self.release
            .as_deref()
            .is_some_and(|r| release_version(r).is_some() && r.parse::<Version>().is_err())
    }
}

/// The depth a run's options state: `--num-callers` as given, or Valgrind's default when
/// the options are printed without it; `None` when they are not printed.
#[must_use]
pub fn stated_depth(run: &RunOptions) -> Option<u32> {
    run.known
        .then(|| run.num_callers.unwrap_or(DEFAULT_NUM_CALLERS))
}

/// The release a log's `3.19.0` (or `3.19.0-8d3c8034b8-20220411`, `3.19`) names: 3.x
/// releases outside the modelled range are taken as the nearest modelled one (3.13 as
/// 3.14, 3.28 as 3.27); anything else is `None`.
#[must_use]
pub fn release_version(text: &str) -> Option<Version> {
    let mut parts = text.trim().split(['.', '-']);
    if parts.next()? != "3" {
        return None;
    }
    let minor: u8 = parts.next()?.parse().ok()?;
    let clamped = minor.clamp(
        crate::supp::kinds::OLDEST.minor(),
        crate::supp::kinds::NEWEST.minor(),
    );
    Version::new(clamped)
}

/// Read a log's preambles: those before its first error (and in its first
/// [`SCAN_ITEMS`] items). Only regular files are read (a FIFO cannot be read twice), one
/// thread each; a log that cannot be read says nothing here (its replay reports why).
#[must_use]
pub fn read(path: &Path) -> Recorded {
    let mut r = Recorded::default();
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return r;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return r;
    };
    let mut raw = BufReader::new(file);
    let gz = raw.fill_buf().is_ok_and(|b| b.starts_with(&[0x1f, 0x8b]));
    let reader: Box<dyn std::io::BufRead> = if gz {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    };
    let Ok((_, items)) = detect::from_reader(reader, &path.display().to_string()) else {
        return r;
    };
    let mut seen = false;
    for item in items.take(SCAN_ITEMS) {
        match item {
            Ok(LogItem::Preamble(p)) => {
                r.add(&p);
                seen = true;
            }
            Ok(LogItem::Error(_)) if seen => break,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    r
}

/// What several logs say together, for a command that loads one set of rules for all of
/// them (`gen`): the oldest release (the rules must load in every run) and the deepest
/// stack (rules are cut to the depth; the deepest keeps every frame a log shows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Combined {
    /// The oldest release a log names.
    pub version: Option<Version>,
    /// The largest depth a log states.
    pub num_callers: Option<u32>,
}

impl Combined {
    /// Combine the facts of `logs`.
    #[must_use]
    pub fn of<'a>(logs: impl IntoIterator<Item = &'a Recorded>) -> Self {
        let mut c = Self::default();
        for r in logs {
            if let Some(n) = r.num_callers {
                c.num_callers = Some(c.num_callers.map_or(n, |m| m.max(n)));
            }
            if let Some(v) = r.version() {
                c.version = Some(c.version.map_or(v, |w| w.min(v)));
            }
        }
        c
    }
}

/// What the user set, for settling each log's replay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    /// `--valgrind`: beats every log.
    pub version_flag: Option<Version>,
    /// The project's release (`valgrind:` of vgsupp.yaml): for logs that name none. A log
    /// names the release that recorded it, which is what its replay must follow.
    pub version_config: Option<Version>,
    /// `--num-callers`: beats every log.
    pub num_callers: Option<u32>,
    /// `--tool`: the tools whose loader verdicts apply, instead of those the logs name;
    /// the first is the tool of logs that name none.
    pub tools: Vec<Tool>,
}

/// How one log is replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogPlan {
    /// The settings group of its rules (an index into [`Plan::groups`]).
    pub group: usize,
    /// The tool of its errors where the log names none.
    pub tool: Tool,
}

/// How a run replays its logs: the settings groups to load the rules for, each log's
/// group, and the tools whose loader verdicts decide whether Valgrind would have run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Each distinct release and depth, in the order of the first log that uses it.
    pub groups: Vec<Settings>,
    /// Per log, in the order given.
    pub logs: Vec<LogPlan>,
    /// The tools that recorded the logs (or `--tool`'s): a file any of them refuses stops
    /// the run, as it stopped Valgrind; a file only other tools refuse loads.
    pub tools: Vec<Tool>,
    /// What the user should know, one sentence each: logs that disagree with each other,
    /// with `--tool` or with the project's release.
    pub notes: Vec<String>,
}

impl Plan {
    /// Settle the replay of logs `names` (display names) whose preambles say `recorded`.
    #[must_use]
    pub fn new(names: &[String], recorded: &[Recorded], given: &Given) -> Self {
        let mut notes = Vec::new();
        let default_tool = given.tools.first().copied().unwrap_or(Tool::Memcheck);
        let mut tools: Vec<Tool> = given.tools.clone();
        let mut groups: Vec<Settings> = Vec::new();
        let mut logs = Vec::with_capacity(recorded.len());
        let mut releases: Vec<(Version, Vec<&str>)> = Vec::new();
        let mut depths: Vec<(u32, Vec<&str>)> = Vec::new();
        let mut unmodelled: Vec<(&str, &str)> = Vec::new();
        let mut against_config: Vec<(&str, Version)> = Vec::new();
        for (r, name) in recorded.iter().zip(names) {
            let name = name.as_str();
            if given.tools.is_empty() {
                let named = if r.tools.is_empty() {
                    &[Tool::Memcheck][..]
                } else {
                    &r.tools[..]
                };
                for t in named {
                    if !tools.contains(t) {
                        tools.push(*t);
                    }
                }
            } else if let Some(other) = r.tools.iter().find(|t| !given.tools.contains(t)) {
                notes.push(format!(
                    "{name} was recorded with {}, not with the --tool given: its {} errors are still matched with {}'s rules",
                    other.supp_name(),
                    other.supp_name(),
                    other.supp_name()
                ));
            }
            let stated = r.version();
            if let Some(v) = stated {
                match releases.iter_mut().find(|(w, _)| *w == v) {
                    Some((_, n)) => n.push(name),
                    None => releases.push((v, vec![name])),
                }
                if r.release_unmodelled()
                    && let Some(text) = r.release.as_deref()
                {
                    unmodelled.push((name, text));
                }
                if given.version_flag.is_none()
                    && let Some(c) = given.version_config
                    && c != v
                {
                    against_config.push((name, v));
                }
            }
            if let Some(n) = r.num_callers {
                match depths.iter_mut().find(|(m, _)| *m == n) {
                    Some((_, l)) => l.push(name),
                    None => depths.push((n, vec![name])),
                }
            }
            let settings = Settings {
                version: given
                    .version_flag
                    .or(stated)
                    .or(given.version_config)
                    .unwrap_or_default(),
                num_callers: given
                    .num_callers
                    .or(r.num_callers)
                    .unwrap_or(DEFAULT_NUM_CALLERS),
            };
            let group = groups
                .iter()
                .position(|s| *s == settings)
                .unwrap_or_else(|| {
                    groups.push(settings);
                    groups.len() - 1
                });
            logs.push(LogPlan {
                group,
                tool: match (given.tools.first(), r.tools.first()) {
                    (Some(t), _) | (None, Some(t)) => *t,
                    (None, None) => default_tool,
                },
            });
        }
        if tools.is_empty() {
            tools.push(default_tool);
        }
        if groups.is_empty() {
            groups.push(Settings {
                version: given
                    .version_flag
                    .or(given.version_config)
                    .unwrap_or_default(),
                num_callers: given.num_callers.unwrap_or(DEFAULT_NUM_CALLERS),
            });
        }
        for (name, text) in unmodelled {
            notes.push(format!(
                "{name} was recorded by Valgrind {text}, which vgsupp does not model (3.14 to 3.27): its rules are loaded as the nearest release, {}, loads them",
                release_version(text).unwrap_or_default()
            ));
        }
        if given.version_flag.is_none() && releases.len() > 1 {
            notes.push(format!(
                "the logs were recorded by different Valgrind releases ({}): each log is replayed with its own release's loader",
                listing(&releases)
            ));
        }
        if let (Some(c), false) = (given.version_config, against_config.is_empty()) {
            let names: Vec<&str> = against_config.iter().map(|(n, _)| *n).collect();
            notes.push(format!(
                "the project's release is Valgrind {c} (`valgrind:` of vgsupp.yaml), but {} {} recorded by {}: a log is replayed with the release that recorded it (--valgrind overrides)",
                names_text(&names),
                if names.len() == 1 { "was" } else { "were" },
                against_config
                    .iter()
                    .map(|(_, v)| v.to_string())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
        if given.num_callers.is_none() && depths.len() > 1 {
            notes.push(format!(
                "the logs were recorded with different --num-callers ({}): each log is replayed with the rules read at its own depth",
                listing(&depths)
            ));
        }
        Self {
            groups,
            logs,
            tools,
            notes,
        }
    }
}

/// `3.19: a.log; 3.22: b.log, c.log` (at most three names each).
fn listing<T: std::fmt::Display>(values: &[(T, Vec<&str>)]) -> String {
    values
        .iter()
        .map(|(v, names)| format!("{v}: {}", names_text(names)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `a.log, b.log and 3 more`.
fn names_text(names: &[&str]) -> String {
    const SHOWN: usize = 3;
    let mut s = names
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(tools: &[Tool], release: Option<&str>, depth: Option<u32>) -> Recorded {
        Recorded {
            tools: tools.to_vec(),
            release: release.map(str::to_owned),
            num_callers: depth,
        }
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("l{i}.log")).collect()
    }

    fn v(minor: u8) -> Version {
        Version::new(minor).expect("modelled")
    }

    #[test]
    fn releases_as_logs_print_them() {
        assert_eq!(release_version("3.19.0"), Some(v(19)));
        assert_eq!(release_version("3.19.0-8d3c8034b8-20220411"), Some(v(19)));
        assert_eq!(release_version("3.22"), Some(v(22)));
        assert_eq!(release_version("3.12.0"), Some(v(14)));
        assert_eq!(release_version("3.30.1"), Some(v(27)));
        assert_eq!(release_version("2.4.0"), None);
        assert_eq!(release_version("x"), None);
        assert!(rec(&[], Some("3.30.0"), None).release_unmodelled());
        assert!(!rec(&[], Some("3.19.0"), None).release_unmodelled());
    }

    #[test]
    fn depth_stated_only_with_the_options() {
        let parse =
            |o: &[&str]| RunOptions::parse(&o.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(stated_depth(&parse(&[])), None);
        assert_eq!(stated_depth(&parse(&["-v"])), Some(12));
        assert_eq!(stated_depth(&parse(&["-v", "--num-callers=40"])), Some(40));
        let mut r = Recorded::from_preamble(&Preamble {
            tool: Some(Tool::Memcheck),
            valgrind_version: Some("3.19.0".into()),
            options: vec!["--num-callers=40".into()],
            ..Preamble::default()
        });
        // A later process: its tool is added, the first's release and depth kept.
        r.add(&Preamble {
            tool: Some(Tool::Helgrind),
            valgrind_version: Some("3.22.0".into()),
            options: vec!["--num-callers=3".into()],
            ..Preamble::default()
        });
        assert_eq!(
            r,
            rec(&[Tool::Memcheck, Tool::Helgrind], Some("3.19.0"), Some(40))
        );
    }

    #[test]
    fn the_log_decides_unless_a_flag_does() {
        let logs = [rec(&[Tool::Memcheck], Some("3.19.0"), Some(40))];
        let p = Plan::new(&names(1), &logs, &Given::default());
        assert_eq!(
            p.groups,
            [Settings {
                version: v(19),
                num_callers: 40
            }]
        );
        assert_eq!(p.tools, [Tool::Memcheck]);
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        // The log beats the project's release, with a note; a flag beats both, silently
        // (the replay says where a log disagrees with the settings it is replayed with).
        let config = Given {
            version_config: Some(v(27)),
            ..Given::default()
        };
        let p = Plan::new(&names(1), &logs, &config);
        assert_eq!(p.groups[0].version, v(19));
        assert!(p.notes[0].contains("vgsupp.yaml"), "{:?}", p.notes);
        let flags = Given {
            version_flag: Some(v(22)),
            version_config: Some(v(27)),
            num_callers: Some(12),
            ..Given::default()
        };
        let p = Plan::new(&names(1), &logs, &flags);
        assert_eq!(
            p.groups,
            [Settings {
                version: v(22),
                num_callers: 12
            }]
        );
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        // A log that states nothing: config, then the defaults.
        let p = Plan::new(&names(1), &[Recorded::default()], &config);
        assert_eq!(
            p.groups,
            [Settings {
                version: v(27),
                num_callers: 12
            }]
        );
        assert_eq!(p.tools, [Tool::Memcheck]);
        assert!(p.notes.is_empty());
    }

    #[test]
    fn logs_that_disagree_get_groups_of_their_own() {
        let logs = [
            rec(&[Tool::Memcheck], Some("3.19.0"), Some(40)),
            rec(&[Tool::Helgrind], Some("3.22.0"), Some(40)),
            rec(&[Tool::Memcheck], Some("3.19.0"), Some(12)),
            rec(&[Tool::Memcheck], Some("3.19.0"), Some(40)),
        ];
        let p = Plan::new(&names(4), &logs, &Given::default());
        assert_eq!(p.groups.len(), 3);
        assert_eq!(
            p.logs.iter().map(|l| l.group).collect::<Vec<_>>(),
            [0, 1, 2, 0]
        );
        assert_eq!(p.logs[1].tool, Tool::Helgrind);
        assert_eq!(p.tools, [Tool::Memcheck, Tool::Helgrind]);
        assert_eq!(p.notes.len(), 2, "{:?}", p.notes);
        assert!(p.notes[0].contains("3.19: l0.log, l2.log, l3.log; 3.22: l1.log"));
        assert!(p.notes[1].contains("40: l0.log, l1.log, l3.log; 12: l2.log"));
        // --tool replaces the tools the logs name, with a note for each log it contradicts.
        let p = Plan::new(
            &names(4),
            &logs,
            &Given {
                tools: vec![Tool::Memcheck],
                ..Given::default()
            },
        );
        assert_eq!(p.tools, [Tool::Memcheck]);
        assert!(
            p.notes
                .iter()
                .any(|n| n.starts_with("l1.log was recorded with Helgrind"))
        );
        assert!(p.logs.iter().all(|l| l.tool == Tool::Memcheck));
    }

    #[test]
    fn gen_takes_the_oldest_release_and_the_deepest_stack() {
        let logs = [
            rec(&[], Some("3.22.0"), Some(12)),
            rec(&[], Some("3.19.0"), None),
            rec(&[], None, Some(40)),
        ];
        assert_eq!(
            Combined::of(&logs),
            Combined {
                version: Some(v(19)),
                num_callers: Some(40)
            }
        );
        assert_eq!(Combined::of(&[]), Combined::default());
    }

    #[test]
    fn reads_the_preamble_of_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = dir.path().join("t.log");
        std::fs::write(
            &text,
            "==7== Helgrind, a thread error detector\n==7== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n==7== Command: ./t\n==7== \n--7-- Valgrind options:\n--7--    --tool=helgrind\n--7--    --num-callers=3\n--7--    -v\n--7-- Contents of /proc/version:\n",
        )
        .expect("write");
        assert_eq!(read(&text), rec(&[Tool::Helgrind], Some("3.19.0"), Some(3)));
        // Not a regular file, or missing: nothing is read.
        assert_eq!(read(dir.path()), Recorded::default());
        assert_eq!(read(&dir.path().join("missing")), Recorded::default());
    }
}
