//! The rules that hid errors from a log: every rule a log's `used_suppression` counts
//! name. A log recorded without a rule's file still says nothing of the errors other rules
//! suppressed; the rule could have taken them only if it may match what those rules
//! match ([`crate::matcher::algebra::rules_meet`]). So the files the logs name are read
//! (through the caller's reader: the library does no I/O) and their rules looked up by
//! file and line, or by name where the log gives no file (XML).

use std::collections::HashMap;

use super::{LogEvidence, UsedCount, file_name};
use crate::matcher::rule::Rule;
use crate::matcher::{RuleFile, RuleSet};
use crate::replay::rules::Rules;
use crate::supp::kinds::Tool;

/// The rules of the suppression files the logs name that are not among the rules being
/// judged.
#[derive(Debug, Default)]
pub struct Foreign {
    /// Per file as named (path as given): its rules, or `None` when it cannot be read.
    files: Vec<(Vec<u8>, Option<RuleSet>)>,
    /// Rule name → (file, rule index), over every readable file.
    by_name: HashMap<Vec<u8>, Vec<(usize, usize)>>,
}

impl Foreign {
    /// Read the files the logs name (and `extra`, e.g. Valgrind's `default.supp`, which
    /// XML logs do not name) with `read`, except files named like one of `ours`.
    pub fn load(
        logs: &[LogEvidence],
        ours: &Rules,
        extra: &[Vec<u8>],
        read: impl Fn(&[u8]) -> Option<Vec<u8>>,
    ) -> Self {
        let our_names: Vec<&[u8]> = ours
            .files
            .iter()
            .map(|f| file_name(f.path.as_bytes()))
            .collect();
        let mut paths: Vec<Vec<u8>> = Vec::new();
        let named = logs.iter().flat_map(|l| {
            l.suppression_files
                .iter()
                .chain(l.used.iter().filter_map(|u| u.file.as_ref()))
        });
        for p in named.chain(extra) {
            if !our_names.contains(&file_name(p)) && !paths.contains(p) {
                paths.push(p.clone());
            }
        }
        let opts = ours.options;
        let mut me = Self::default();
        for path in paths {
            let set = read(&path).map(|source| {
                RuleSet::load_recovering(
                    vec![RuleFile {
                        path: String::from_utf8_lossy(&path).into_owned(),
                        source,
                    }],
                    &Tool::ALL,
                    opts.version,
                    opts.num_callers,
                )
            });
            let at = me.files.len();
            if let Some(set) = &set {
                for (i, r) in set.rules.iter().enumerate() {
                    me.by_name.entry(r.name.clone()).or_default().push((at, i));
                }
            }
            me.files.push((path, set));
        }
        me
    }

    /// The rules `used` may name (every tool's reading of them), `ours` included; `None`
    /// when they cannot be known (a file that cannot be read, a name found nowhere).
    #[must_use]
    pub fn lookup<'a>(
        &'a self,
        used: &UsedCount,
        ours: &'a Rules,
        our_rules: &'a [Vec<&'a Rule>],
    ) -> Option<Vec<&'a Rule>> {
        let mine = |file: Option<usize>| -> Vec<&'a Rule> {
            ours.table
                .iter()
                .enumerate()
                .filter(|(_, info)| {
                    info.name == used.name
                        && file.is_none_or(|f| f == info.file)
                        && used.line.is_none_or(|l| l == info.line)
                })
                .flat_map(|(slot, _)| our_rules[slot].iter().copied())
                .collect()
        };
        if let Some(file) = &used.file {
            if let Some(at) = ours
                .files
                .iter()
                .position(|f| file_name(f.path.as_bytes()) == file_name(file))
            {
                let found = mine(Some(at));
                return (!found.is_empty()).then_some(found);
            }
            let (_, set) = self.files.iter().find(|(p, _)| p == file)?;
            let found: Vec<&Rule> = set
                .as_ref()?
                .rules
                .iter()
                .filter(|r| r.name == used.name && used.line.is_none_or(|l| l == r.line))
                .collect();
            return (!found.is_empty()).then_some(found);
        }
        // No file (XML): every rule of that name anywhere, if every file could be read.
        if self.files.iter().any(|(_, set)| set.is_none()) {
            return None;
        }
        let mut found = mine(None);
        if let Some(hits) = self.by_name.get(&used.name) {
            for &(f, i) in hits {
                if let Some(set) = &self.files[f].1 {
                    found.push(&set.rules[i]);
                }
            }
        }
        (!found.is_empty()).then_some(found)
    }
}
