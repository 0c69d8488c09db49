//! `VS3xx`: the maintenance of a suppression set, across every file checked together —
//! placeholder and duplicate names, exact duplicates, rules another rule subsumes
//! (decided on the pattern languages: [`crate::matcher::algebra`]), overly broad rules,
//! versioned sonames and distribution paths, and rules that match the project's own code.
//!
//! Rules are read as Valgrind's loader reads them (every tool a record names, past any
//! problem the file has: those are `VS1xx`), so a rule is judged by what it matches.

use std::collections::{BTreeSet, HashMap};

use crate::catalogue::Lint;
use crate::diagnostic::Diagnostic;
use crate::lint::CheckOptions;
use crate::matcher::algebra::rule_covers_rule;
use crate::matcher::rule::{Pattern, Rule, RuleExtra};
use crate::matcher::{RuleFile, RuleSet};
use crate::origin::PathGlobs as Globs;
use crate::supp::kinds::Tool;

/// Valgrind's `--gen-suppressions` placeholder name.
const PLACEHOLDERS: [&[u8]; 2] = [
    b"<insert_a_suppression_name_here>",
    b"insert_a_suppression_name_here",
];

/// Directories that exist on one distribution's layout only.
const DISTRO_DIRS: [&str; 6] = [
    "-linux-gnu/",
    "/lib64/",
    "/usr/lib/gcc/",
    "/nix/store/",
    "/opt/homebrew/",
    "/usr/local/Cellar/",
];

/// Every `VS3xx` finding over `files` (name, bytes), checked as one set. `first_party`:
/// the project's own code (`first-party:` of vgsupp.yaml), for `VS307`.
#[must_use]
pub fn check_set(
    files: &[(String, Vec<u8>)],
    opts: &CheckOptions,
    first_party: Option<&Globs>,
) -> Vec<Diagnostic> {
    let rule_files: Vec<RuleFile> = files
        .iter()
        .map(|(name, source)| RuleFile {
            path: name.clone(),
            source: source.clone(),
        })
        .collect();
    let set = RuleSet::load_recovering(rule_files, &Tool::ALL, opts.version, opts.num_callers);
    // Each record once (a record several tools read is one rule), in file order, with
    // every tool's reading.
    let mut records: Vec<((usize, u32), Vec<&Rule>)> = Vec::new();
    let mut at: HashMap<(usize, u32), usize> = HashMap::new();
    for r in &set.rules {
        let key = (r.file, r.record);
        match at.get(&key) {
            Some(&i) => records[i].1.push(r),
            None => {
                at.insert(key, records.len());
                records.push((key, vec![r]));
            }
        }
    }
    records.sort_by_key(|(k, _)| *k);
    let mut out = Finder {
        files,
        out: Vec::new(),
        said: BTreeSet::new(),
    };
    names(&records, &mut out);
    duplicates_and_subsumed(&records, &mut out);
    for (_, readings) in &records {
        let r = readings[0];
        broad(r, &mut out);
        versioned(r, &mut out);
        if let Some(fp) = first_party {
            mine(r, fp, &mut out);
        }
    }
    out.out
}

/// Collects findings, one per rule and lint.
struct Finder<'a> {
    files: &'a [(String, Vec<u8>)],
    out: Vec<Diagnostic>,
    said: BTreeSet<(usize, u32, Lint)>,
}

impl Finder<'_> {
    fn say(&mut self, lint: Lint, r: &Rule, message: String, help: Option<String>) {
        if !self.said.insert((r.file, r.record, lint)) {
            return;
        }
        let file = self.files.get(r.file).map_or("", |f| f.0.as_str());
        let mut d = Diagnostic::new(lint, file, r.line, 1, message);
        d.help = help;
        d.record = Some(String::from_utf8_lossy(&r.name).into_owned());
        self.out.push(d);
    }

    fn place(&self, r: &Rule) -> String {
        let file = self.files.get(r.file).map_or("", |f| f.0.as_str());
        format!("{file}:{}", r.line)
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `VS301` and `VS302`.
fn names(records: &[((usize, u32), Vec<&Rule>)], out: &mut Finder<'_>) {
    let mut first: HashMap<&[u8], &Rule> = HashMap::new();
    for (_, readings) in records {
        let r = readings[0];
        if PLACEHOLDERS.contains(&r.name.as_slice()) {
            out.say(
                Lint::PlaceholderName,
                r,
                "the rule is still named `<insert_a_suppression_name_here>`".to_owned(),
                Some(
                    "name it after what it hides; counts and sidecar entries go by name".to_owned(),
                ),
            );
            continue;
        }
        match first.get(r.name.as_slice()) {
            Some(earlier) => {
                let place = out.place(earlier);
                out.say(
                    Lint::DuplicateName,
                    r,
                    format!(
                        "rule `{}` has the same name as the rule at {place}",
                        lossy(&r.name)
                    ),
                    None,
                );
            }
            None => {
                first.insert(&r.name, r);
            }
        }
    }
}

/// What a rule matches, without its name and place.
fn same_body(a: &Rule, b: &Rule) -> bool {
    a.tool == b.tool && a.kind == b.kind && a.extra == b.extra && a.frames == b.frames
}

/// The rules of one tool and kind, each with its record's place in file order.
type Group<'a> = Vec<(usize, &'a Rule)>;

/// `VS303` and `VS304`: rules compared with the rules of their tool and kind.
fn duplicates_and_subsumed(records: &[((usize, u32), Vec<&Rule>)], out: &mut Finder<'_>) {
    let mut groups: HashMap<(Tool, &[u8]), Group<'_>> = HashMap::new();
    for (order, (_, readings)) in records.iter().enumerate() {
        for r in readings {
            groups
                .entry((r.tool, r.kind.as_slice()))
                .or_default()
                .push((order, r));
        }
    }
    let mut keys: Vec<_> = groups.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let group = &groups[&key];
        for (j, &(oj, b)) in group.iter().enumerate() {
            if let Some(&(_, a)) = group[..j].iter().find(|(_, a)| same_body(a, b)) {
                let place = out.place(a);
                out.say(
                    Lint::ExactDuplicate,
                    b,
                    format!(
                        "rule `{}` matches exactly what `{}` ({place}) matches",
                        lossy(&b.name),
                        lossy(&a.name)
                    ),
                    None,
                );
                continue;
            }
            // Another rule covers it; of two rules that cover each other, the later one
            // is reported.
            let wider = group.iter().find(|&&(oa, a)| {
                oa != oj
                    && !same_body(a, b)
                    && rule_covers_rule(a, b)
                    && (oa < oj || !rule_covers_rule(b, a))
            });
            if let Some(&(_, a)) = wider {
                let place = out.place(a);
                out.say(
                    Lint::SubsumedRule,
                    b,
                    format!(
                        "every error rule `{}` matches is matched by `{}` ({place})",
                        lossy(&b.name),
                        lossy(&a.name)
                    ),
                    None,
                );
            }
        }
    }
}

fn is_star(g: &[u8]) -> bool {
    g.iter().all(|&b| b == b'*')
}

/// `VS305`.
fn broad(r: &Rule, out: &mut Finder<'_>) {
    let kind = r.kind.as_slice();
    let anywhere = kind == b"Cond" || kind.starts_with(b"Value") || kind.starts_with(b"Addr");
    let f = &r.frames;
    let one_obj = match f.as_slice() {
        [Pattern::Ellipsis, Pattern::Obj(g)]
        | [Pattern::Ellipsis, Pattern::Obj(g), Pattern::Ellipsis] => Some(g.as_bytes()),
        _ => None,
    };
    if r.tool == Tool::Memcheck
        && anywhere
        && let Some(g) = one_obj
    {
        out.say(
            Lint::OverlyBroad,
            r,
            format!(
                "`...` and one `obj:{}`: every {} error anywhere below that library, calls from your own code included",
                lossy(g),
                lossy(kind)
            ),
            Some("anchor it at the library's first frames: `obj:` at the top, then a stable entry point".to_owned()),
        );
        return;
    }
    if let RuleExtra::Leak(k) = &r.extra
        && !k.none
        && k.bits & 0b1111 == 0b1111
    {
        out.say(
            Lint::OverlyBroad,
            r,
            "the leak rule matches every leak kind, definite leaks included (no `match-leak-kinds:`, or `all`)".to_owned(),
            Some("add `match-leak-kinds: reachable` (or the kinds the leak really is)".to_owned()),
        );
        return;
    }
    if let [.., Pattern::Ellipsis, Pattern::Fun(g)] = f.as_slice()
        && g.as_bytes() == b"main"
    {
        out.say(
            Lint::OverlyBroad,
            r,
            "the stack ends in `...` then `fun:main`: it matches any stack that reaches main"
                .to_owned(),
            Some("end the stack at the frame that decides the error".to_owned()),
        );
    }
}

/// Whether `name` (the part after the last `/`) is a soname with more than its major
/// version (`libcuda.so.535.104.05`, `libz.so.1.2.11`).
fn versioned_soname(name: &[u8]) -> bool {
    let text = String::from_utf8_lossy(name);
    let Some((_, version)) = text.split_once(".so.") else {
        return false;
    };
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .take(2)
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `VS306`.
fn versioned(r: &Rule, out: &mut Finder<'_>) {
    for p in &r.frames {
        let Pattern::Obj(g) = p else { continue };
        let g = g.as_bytes();
        let name = g.rsplit(|&b| b == b'/').next().unwrap_or(g);
        let text = lossy(g);
        let why = if versioned_soname(name) {
            "a versioned soname"
        } else if DISTRO_DIRS.iter().any(|d| text.contains(d)) {
            "a distribution-specific path"
        } else {
            continue;
        };
        let stem = text
            .rsplit('/')
            .next()
            .and_then(|n| n.split_once(".so").map(|(s, _)| s.to_owned()));
        out.say(
            Lint::VersionedObject,
            r,
            format!("`obj:{text}` names {why}: it stops matching after an upgrade or elsewhere"),
            stem.map(|s| format!("use a version-free glob: `obj:*/{s}.so*`")),
        );
        return;
    }
}

/// A name a glob matches, its wildcards taken as nothing (`*/libmy.so*` → `/libmy.so`).
fn example_of(glob: &[u8]) -> Vec<u8> {
    glob.iter()
        .filter(|&&b| b != b'*')
        .map(|&b| if b == b'?' { b'x' } else { b })
        .collect()
}

/// `VS307`.
fn mine(r: &Rule, first_party: &Globs, out: &mut Finder<'_>) {
    for p in &r.frames {
        let (what, g) = match p {
            Pattern::Obj(g) if !is_star(g.as_bytes()) => ("obj", g.as_bytes()),
            Pattern::Src(g, _) if !is_star(g.as_bytes()) => ("src", g.as_bytes()),
            _ => continue,
        };
        if first_party.matches_path(&example_of(g)) {
            out.say(
                Lint::MatchesFirstParty,
                r,
                format!(
                    "`{what}:{}` matches the project's own code (`first-party:` {})",
                    lossy(g),
                    first_party.given().join(", ")
                ),
                Some(
                    "fix the bug, or give a deliberate rule a `keep:` reason in its sidecar"
                        .to_owned(),
                ),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str, fp: Option<&Globs>) -> Vec<(String, u32)> {
        check_set(
            &[("a.supp".to_owned(), src.as_bytes().to_vec())],
            &CheckOptions::default(),
            fp,
        )
        .into_iter()
        .map(|d| (d.rule.code.into_owned(), d.line))
        .collect()
    }

    #[test]
    fn names_duplicates_and_subsumption() {
        let src = "{\n   <insert_a_suppression_name_here>\n   Memcheck:Cond\n   fun:f\n}\n\
{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n   ...\n}\n\
{\n   a\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n   fun:strdup\n}\n\
{\n   c\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n   ...\n}\n";
        let got = codes(src, None);
        assert!(got.contains(&("VS301".into(), 2)), "{got:?}");
        assert!(got.contains(&("VS302".into(), 14)), "{got:?}");
        assert!(got.contains(&("VS304".into(), 14)), "{got:?}");
        assert!(got.contains(&("VS303".into(), 21)), "{got:?}");
        // The earlier of two equal rules is not reported as subsumed by the later.
        assert!(!got.contains(&("VS304".into(), 7)), "{got:?}");
    }

    #[test]
    fn broad_versioned_and_first_party() {
        let src = "{\n   any\n   Memcheck:Addr4\n   ...\n   obj:*/libfoo.so\n}\n\
{\n   leak\n   Memcheck:Leak\n   fun:malloc\n}\n\
{\n   main\n   Memcheck:Cond\n   fun:f\n   ...\n   fun:main\n}\n\
{\n   cuda\n   Memcheck:Cond\n   obj:/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05\n}\n\
{\n   mine\n   Memcheck:Cond\n   obj:*/libmy_ext.so*\n}\n";
        let fp = Globs::new(&["libmy_ext*"], None, "first-party").expect("globs");
        let got = codes(src, Some(&fp));
        for want in [
            ("VS305", 2),
            ("VS305", 8),
            ("VS305", 13),
            ("VS306", 20),
            ("VS307", 25),
        ] {
            assert!(
                got.contains(&(want.0.into(), want.1)),
                "{want:?} in {got:?}"
            );
        }
        assert!(!codes(src, None).iter().any(|(c, _)| c == "VS307"));
        assert!(versioned_soname(b"libz.so.1.2.11"));
        assert!(!versioned_soname(b"libc.so.6"));
        assert!(!versioned_soname(b"libcuda.so*"));
    }
}
