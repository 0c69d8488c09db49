//! What `match --explain RULE` needs besides the frame-by-frame walk: that RULE names a
//! rule of the files (else exit 2, with the names closest to it), and why a rule's kind
//! check fails, said with the part that differs (the leak kind, the `Param` string).

use anyhow::{Result, bail};

use vgsupp::matcher::input::ErrorKind;
use vgsupp::matcher::rule::{Rule, RuleExtra};
use vgsupp::replay::Rules;
use vgsupp::supp::model::LeakKind;

/// How many near names an unknown `--explain` target lists.
const SUGGESTED: usize = 5;

/// Whether `target` names a rule of `rules`: by its name, or as `FILE:LINE` (the line of
/// its name). When not, an error naming it and the closest names.
pub fn check_target(rules: &Rules, target: &str) -> Result<()> {
    let names: Vec<String> = rules
        .table
        .iter()
        .map(|r| String::from_utf8_lossy(&r.name).into_owned())
        .collect();
    let found = rules.table.iter().zip(&names).any(|(r, name)| {
        name == target
            || rules
                .files
                .get(r.file)
                .is_some_and(|f| format!("{}:{}", f.path, r.line) == target)
    });
    if found {
        return Ok(());
    }
    let close = closest(&names, target);
    if close.is_empty() {
        bail!(
            "--explain `{target}`: no rule of that name (or FILE:LINE of its name) in the suppression files given"
        );
    }
    let listed: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
    bail!(
        "--explain `{target}`: no rule of that name (or FILE:LINE of its name) in the suppression files given; did you mean {}?",
        listed.join(", ")
    )
}

/// The names nearest `target`: those that contain it or that it contains (ignoring case),
/// then those within a few edits, nearest first, at most [`SUGGESTED`].
fn closest<'a>(names: &'a [String], target: &str) -> Vec<&'a str> {
    let t = target.to_lowercase();
    let budget = (t.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .filter_map(|n| {
            let l = n.to_lowercase();
            if l.contains(&t) || (!l.is_empty() && t.contains(&l)) {
                return Some((0, n.as_str()));
            }
            let d = edit_distance(&l, &t, budget)?;
            Some((d, n.as_str()))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(SUGGESTED).map(|(_, n)| n).collect()
}

/// Levenshtein distance between `a` and `b` in characters, or `None` when it exceeds
/// `budget` (computed row by row, stopping as soon as every entry of a row is over it).
fn edit_distance(a: &str, b: &str, budget: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > budget {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let swap = prev[j] + usize::from(ca != cb);
            cur[j + 1] = swap.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        if cur.iter().all(|&d| d > budget) {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= budget).then_some(d)
}

/// Why `rule`'s kind check fails for an error of kind `err` (what `--explain` prints after
/// `kind: `): the part that differs, when only the leak kind, the `Param` string or the
/// `FishyValue` call differs; else both kinds.
pub fn kind_mismatch(rule: &Rule, err: &ErrorKind) -> String {
    let rule_kind = String::from_utf8_lossy(&rule.kind);
    let same_kind = rule.kind == err.kind.as_bytes();
    match (&rule.extra, same_kind) {
        (RuleExtra::Leak(set), true) => {
            let wanted: Vec<&str> = LeakKind::ALL
                .into_iter()
                .filter(|k| set.contains(*k))
                .map(LeakKind::token)
                .collect();
            let wanted = if wanted.is_empty() {
                "no leak kind at all (`match-leak-kinds: none`)".to_owned()
            } else {
                format!("`match-leak-kinds: {}`", wanted.join(","))
            };
            match err.leak {
                Some(k) => format!(
                    "the rule is `Leak` with {wanted}, the error is a `{}` leak: no match",
                    k.token()
                ),
                None => format!(
                    "the rule is `Leak` with {wanted}, the log does not say the error's leak kind: no match"
                ),
            }
        }
        (RuleExtra::Param(p), true) => format!(
            "the rule is `Param` of `{}`, the error is `Param` of `{}`: no match",
            String::from_utf8_lossy(p),
            err.param
                .as_deref()
                .map_or_else(|| "?".into(), String::from_utf8_lossy)
        ),
        (RuleExtra::Fishy(f), true) => {
            let show = |x: Option<&(Vec<u8>, Vec<u8>)>| {
                x.map_or_else(
                    || "?".to_owned(),
                    |(a, b)| {
                        format!(
                            "{}({})",
                            String::from_utf8_lossy(a),
                            String::from_utf8_lossy(b)
                        )
                    },
                )
            };
            format!(
                "the rule is `FishyValue` of `{}`, the error is `FishyValue` of `{}`: no match",
                show(f.as_ref()),
                show(err.fishy.as_ref())
            )
        }
        _ => format!(
            "the rule is `{rule_kind}`, the error is `{}`: no match",
            err.kind
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vgsupp::matcher::RuleFile;
    use vgsupp::replay::RulesOptions;
    use vgsupp::supp::Version;

    fn rules(src: &str) -> Rules {
        Rules::load(
            vec![RuleFile {
                path: "a.supp".to_owned(),
                source: src.as_bytes().to_vec(),
            }],
            RulesOptions {
                version: Version::default(),
                num_callers: 12,
                go_on: false,
            },
        )
    }

    const SUPP: &str = "{\n   cuda-driver.Leak.cuInit\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n}\n\n{\n   python.Param.write\n   Memcheck:Param\n   write(buf)\n   fun:write\n}\n";

    #[test]
    fn an_explain_target_must_name_a_rule() {
        let r = rules(SUPP);
        assert!(check_target(&r, "cuda-driver.Leak.cuInit").is_ok());
        assert!(check_target(&r, "a.supp:2").is_ok());
        assert!(check_target(&r, "a.supp:3").is_err());
        let err = check_target(&r, "cuda-driver.Leak.cuinti").expect_err("typo");
        let msg = err.to_string();
        assert!(
            msg.starts_with("--explain `cuda-driver.Leak.cuinti`: no rule"),
            "{msg}"
        );
        assert!(
            msg.ends_with("did you mean `cuda-driver.Leak.cuInit`?"),
            "{msg}"
        );
        let msg = check_target(&r, "write").expect_err("part").to_string();
        assert!(msg.contains("`python.Param.write`"), "{msg}");
        let msg = check_target(&r, "NO-SUCH-RULE")
            .expect_err("none")
            .to_string();
        assert!(!msg.contains("did you mean"), "{msg}");
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting", 5), Some(3));
        assert_eq!(edit_distance("kitten", "sitting", 2), None);
        assert_eq!(edit_distance("", "ab", 2), Some(2));
        assert_eq!(edit_distance("ab", "ab", 0), Some(0));
    }

    #[test]
    fn kind_mismatches_say_what_differs() {
        let r = rules(SUPP);
        let set = &r.tool(vgsupp::supp::Tool::Memcheck).expect("loads").set;
        let leak = &set.rules[0];
        let possible = ErrorKind {
            kind: "Leak".to_owned(),
            leak: Some(LeakKind::Possible),
            ..ErrorKind::default()
        };
        assert_eq!(
            kind_mismatch(leak, &possible),
            "the rule is `Leak` with `match-leak-kinds: definite`, the error is a `possible` leak: no match"
        );
        let addr = ErrorKind {
            kind: "Addr4".to_owned(),
            ..ErrorKind::default()
        };
        assert_eq!(
            kind_mismatch(leak, &addr),
            "the rule is `Leak`, the error is `Addr4`: no match"
        );
        let param = ErrorKind {
            kind: "Param".to_owned(),
            param: Some(b"ioctl(generic)".to_vec()),
            ..ErrorKind::default()
        };
        assert_eq!(
            kind_mismatch(&set.rules[1], &param),
            "the rule is `Param` of `write(buf)`, the error is `Param` of `ioctl(generic)`: no match"
        );
    }
}
