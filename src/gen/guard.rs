//! The guarantee (PRODUCT.md §4): no rule `gen` writes matches a kept error of the logs
//! it was given. The candidates are written as a suppression file, loaded with the replay
//! library's [`Rules`] exactly as Valgrind would load them (for the release and
//! `--num-callers` of the logs: a rule longer than `--num-callers` is cut, and so matches
//! more), and every kept error's matcher input — built while the log was replayed, with
//! the objects inferred for its process — is compared with each of them. A match the log
//! cannot decide ([`Truth::Unknown`]: a hidden object, a name shown only demangled, frames
//! below `main`) counts as a match.

use rustc_hash::FxHashMap;

use super::candidate::{Kinds, Shape, record};
use crate::matcher::{MatchInput, RefusedFile, RuleFile, Truth};
use crate::replay::{Rules, RulesOptions};
use crate::supp::kinds::Tool;

/// Which candidates may match which of `inputs`: for each candidate (same order), the
/// indexes of the inputs it matches ([`Truth::Yes`]) or may match ([`Truth::Unknown`]).
///
/// # Errors
/// When Valgrind would not load the candidates (a bug in `gen`: reported, never written).
pub fn matches(
    cands: &[(&Shape, Kinds)],
    inputs: &[(Tool, &MatchInput)],
    opts: RulesOptions,
) -> Result<Vec<Vec<(usize, Truth)>>, RefusedFile> {
    let mut out = vec![Vec::new(); cands.len()];
    if cands.is_empty() || inputs.is_empty() {
        return Ok(out);
    }
    let mut source = Vec::new();
    for (i, (shape, kinds)) in cands.iter().enumerate() {
        source.extend(record(&format!("candidate-{i}"), shape, *kinds));
    }
    let rules = Rules::load(
        vec![RuleFile {
            path: "<generated rules>".into(),
            source,
        }],
        RulesOptions {
            go_on: false,
            ..opts
        },
    );
    // Table slots are records of the one file: record index = candidate index.
    let by_slot: FxHashMap<usize, usize> = rules
        .table
        .iter()
        .enumerate()
        .map(|(slot, info)| (slot, info.record as usize))
        .collect();
    for (k, (tool, input)) in inputs.iter().enumerate() {
        let tool_rules = rules.tool(*tool).map_err(Clone::clone)?;
        for (id, truth) in tool_rules.set.all_matches(*tool, input) {
            if truth == Truth::No {
                continue;
            }
            if let Some(&c) = by_slot.get(&tool_rules.slot(id))
                && let Some(v) = out.get_mut(c)
            {
                v.push((k, truth));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r#gen::candidate::Pat;
    use crate::matcher::input::{ErrorKind, InputFrame, Known, SrcInfo};
    use crate::supp::kinds::Version;

    fn frame(fun: Option<&str>, obj: Known<Vec<u8>>) -> InputFrame {
        InputFrame {
            fun: fun.map_or(Known::Unknown, |f| Known::Yes(f.as_bytes().to_vec())),
            obj,
            src: Known::Yes(SrcInfo::None),
        }
    }

    #[test]
    fn undecided_matches_count() {
        let shape = Shape {
            tool: Tool::Memcheck,
            kind: "Cond".into(),
            extra: None,
            frames: vec![Pat::Obj(b"*/libpython3*.so*".to_vec())],
        };
        let other = Shape {
            frames: vec![Pat::Fun(b"elsewhere".to_vec())],
            ..shape.clone()
        };
        let kept = |obj| MatchInput {
            kind: ErrorKind {
                kind: "Cond".into(),
                ..ErrorKind::default()
            },
            frames: vec![frame(Some("PyLong_FromSsize_t"), obj)],
            ..MatchInput::default()
        };
        // A text log hid the object: one of two candidates, one of them libpython.
        let hidden = kept(Known::OneOf(
            vec![
                b"/opt/lib/libpython3.11.so.1.0".to_vec(),
                b"/x/ext.so".to_vec(),
            ]
            .into(),
        ));
        let shown = kept(Known::Yes(b"/x/ext.so".to_vec()));
        let opts = RulesOptions {
            version: Version::new(19).expect("3.19"),
            num_callers: 12,
            go_on: false,
        };
        let m = matches(
            &[(&shape, 0), (&other, 0)],
            &[(Tool::Memcheck, &hidden), (Tool::Memcheck, &shown)],
            opts,
        )
        .expect("loads");
        assert_eq!(m, [vec![(0, Truth::Unknown)], vec![]]);
        let sure = kept(Known::Yes(b"/opt/lib/libpython3.11.so.1.0".to_vec()));
        let m = matches(&[(&shape, 0)], &[(Tool::Memcheck, &sure)], opts).expect("loads");
        assert_eq!(m, [vec![(0, Truth::Yes)]]);
    }
}
