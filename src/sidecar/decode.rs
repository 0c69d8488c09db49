//! Reading a sidecar: bytes → YAML tree (bounded) → typed [`Sidecar`], with every value
//! that does not fit the schema listed as a [`Problem`] (its field is then left unset, and
//! its text is kept in the file on rewrite).

use crate::date::Date;
use crate::yaml::{self, Limits, Map, Node, ReadError, Value};

use super::{Generated, Retired, Review, RuleEntry, Seen, Sidecar, Source, VERSION};

/// Why a sidecar could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    /// Not YAML vgsupp accepts (syntax, limits, aliases, duplicate keys, …).
    #[error("{0}")]
    Yaml(#[from] ReadError),
    /// The document is not a mapping.
    #[error("line {line}: the sidecar must be a mapping (`version: 1`, `rules: …`), not {found}")]
    NotAMapping {
        /// Where its root starts.
        line: u32,
        /// What it is (`a sequence`, …).
        found: &'static str,
    },
}

impl SidecarError {
    /// The 1-based line the error is at.
    #[must_use]
    pub const fn line(&self) -> u32 {
        match self {
            Self::Yaml(e) => e.line,
            Self::NotAMapping { line, .. } => *line,
        }
    }

    /// What is wrong, without the line (for diagnostics, which give it apart).
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            Self::Yaml(e) => e.kind.to_string(),
            Self::NotAMapping { found, .. } => {
                format!("the sidecar must be a mapping (`version: 1`, `rules: …`), not {found}")
            }
        }
    }
}

/// A value that does not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The 1-based line.
    pub line: u32,
    /// The rule it concerns, if any.
    pub rule: Option<String>,
    /// What is wrong.
    pub kind: ProblemKind,
}

/// What does not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemKind {
    /// A value of the wrong type.
    #[error("`{path}` must be {expected}, not {found}")]
    WrongType {
        /// Where (`rules.NAME.seen.hits`).
        path: String,
        /// What it must be.
        expected: &'static str,
        /// What it is.
        found: &'static str,
    },
    /// A date that is not `YYYY-MM-DD` or does not exist.
    #[error("`{path}`: {error}")]
    BadDate {
        /// Where.
        path: String,
        /// Why.
        error: crate::date::DateError,
    },
    /// `version:` is not one this vgsupp knows; nothing else is read.
    #[error(
        "unknown sidecar version `{0}` (this vgsupp reads version {VERSION}); its rules are not read"
    )]
    UnknownVersion(String),
    /// Rules without `version:`.
    #[error("no `version:` (read as version {VERSION}; add `version: {VERSION}`)")]
    MissingVersion,
}

/// A sidecar as read, and what did not fit the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The model.
    pub sidecar: Sidecar,
    /// Schema problems, in file order.
    pub problems: Vec<Problem>,
}

/// Read a sidecar's bytes.
///
/// # Errors
/// When the bytes are not a YAML mapping within [`Limits::SIDECAR`].
pub fn decode(src: &[u8]) -> Result<Decoded, SidecarError> {
    let doc = yaml::read(src, &Limits::SIDECAR)?;
    let mut cx = Cx::default();
    let mut sidecar = Sidecar::new();
    let empty = Map::default();
    let top = match &doc.root {
        None => &empty,
        Some(n) if n.is_null() => &empty,
        Some(Node {
            value: Value::Map(m),
            ..
        }) => m,
        Some(n) => {
            return Err(SidecarError::NotAMapping {
                line: n.line.max(1),
                found: n.kind_name(),
            });
        }
    };
    match top.entries.iter().find(|e| e.key == "version") {
        Some(e) => {
            let text = e.value.as_scalar().map(|s| s.text.clone());
            match text.as_deref().and_then(|t| t.parse::<u64>().ok()) {
                Some(VERSION) => {}
                number => {
                    let shown = text.unwrap_or_else(|| e.value.kind_name().to_owned());
                    cx.problem(e.line, None, ProblemKind::UnknownVersion(shown));
                    // Not ours to rewrite: `encode` refuses any version but ours.
                    sidecar.version = number.unwrap_or(0);
                    sidecar.doc = doc;
                    return Ok(cx.done(sidecar));
                }
            }
        }
        None if top.get("rules").is_some() => cx.problem(1, None, ProblemKind::MissingVersion),
        None => {}
    }
    if let Some(rules) = cx.map(top, "rules", "rules", None) {
        for e in &rules.entries {
            let path = format!("rules.{}", e.key);
            if let Some(m) = cx.entry_map(e, &path, Some(&e.key)) {
                let mut rule = cx.rule(&e.key, m, &path);
                rule.line = e.line;
                rule.notes = e.notes.clone();
                sidecar.rules.push(rule);
            }
        }
    }
    if let Some(retired) = cx.map(top, "retired", "retired", None) {
        for e in &retired.entries {
            let path = format!("retired.{}", e.key);
            if let Some(m) = cx.entry_map(e, &path, Some(&e.key)) {
                let rule = Some(e.key.as_str());
                sidecar.retired.push(Retired {
                    name: e.key.clone(),
                    retired: cx.date(&m, "retired", &path, rule),
                    why: cx.string(&m, "why", &path, rule),
                    line: e.line,
                    node: m.clone(),
                    notes: e.notes.clone(),
                });
            }
        }
    }
    sidecar.doc = doc;
    Ok(cx.done(sidecar))
}

#[derive(Default)]
struct Cx {
    problems: Vec<Problem>,
}

impl Cx {
    fn done(mut self, sidecar: Sidecar) -> Decoded {
        self.problems.sort_by_key(|p| p.line);
        Decoded {
            sidecar,
            problems: self.problems,
        }
    }

    fn problem(&mut self, line: u32, rule: Option<&str>, kind: ProblemKind) {
        self.problems.push(Problem {
            line: line.max(1),
            rule: rule.map(str::to_owned),
            kind,
        });
    }

    fn wrong(&mut self, e: &yaml::Entry, path: &str, rule: Option<&str>, expected: &'static str) {
        let line = if e.value.line > 0 {
            e.value.line
        } else {
            e.line
        };
        self.problem(
            line,
            rule,
            ProblemKind::WrongType {
                path: path.to_owned(),
                expected,
                found: e.value.kind_name(),
            },
        );
    }

    /// A rule's (or retired rule's) entry must be a mapping; null counts as empty.
    fn entry_map(&mut self, e: &yaml::Entry, path: &str, rule: Option<&str>) -> Option<Map> {
        match &e.value.value {
            Value::Map(m) => Some(m.clone()),
            _ if e.value.is_null() => Some(Map::default()),
            _ => {
                self.wrong(e, path, rule, "a mapping");
                None
            }
        }
    }

    fn rule(&mut self, name: &str, m: Map, path: &str) -> RuleEntry {
        let rule = Some(name);
        RuleEntry {
            name: name.to_owned(),
            fingerprint: self.string(&m, "fingerprint", path, rule),
            origin: self.string(&m, "origin", path, rule),
            reason: self.string(&m, "reason", path, rule),
            owner: self.string(&m, "owner", path, rule),
            tracking: self.string(&m, "tracking", path, rule),
            created: self.date(&m, "created", path, rule),
            expires: self.date(&m, "expires", path, rule),
            generated: self
                .map(&m, "generated", &format!("{path}.generated"), rule)
                .map(|g| self.generated(&g, &format!("{path}.generated"), rule)),
            seen: self
                .map(&m, "seen", &format!("{path}.seen"), rule)
                .map(|s| self.seen(&s, &format!("{path}.seen"), rule)),
            keep: self.string(&m, "keep", path, rule),
            reviewed: self
                .map(&m, "reviewed", &format!("{path}.reviewed"), rule)
                .map(|r| {
                    let at = format!("{path}.reviewed");
                    Review {
                        date: self.date(&r, "date", &at, rule),
                        by: self.string(&r, "by", &at, rule),
                        reason: self.string(&r, "reason", &at, rule),
                        node: r.clone(),
                    }
                }),
            line: 0,
            node: m,
            notes: yaml::Notes::default(),
        }
    }

    fn generated(&mut self, m: &Map, path: &str, rule: Option<&str>) -> Generated {
        let mut from = Vec::new();
        if let Some(e) = m.entries.iter().find(|e| e.key == "from") {
            let list_path = format!("{path}.from");
            match &e.value.value {
                Value::Seq(s) => {
                    for (i, item) in s.items.iter().enumerate() {
                        let item_path = format!("{list_path}[{i}]");
                        match item.node.as_map() {
                            Some(sm) => from.push(Source {
                                log: self.string(sm, "log", &item_path, rule),
                                sha256: self.string(sm, "sha256", &item_path, rule),
                                valgrind: self.string(sm, "valgrind", &item_path, rule),
                                command: self.string(sm, "command", &item_path, rule),
                                errors: self.count(sm, "errors", &item_path, rule),
                                node: sm.clone(),
                            }),
                            None => {
                                let line = item.node.line;
                                self.problem(
                                    line,
                                    rule,
                                    ProblemKind::WrongType {
                                        path: item_path,
                                        expected: "a mapping",
                                        found: item.node.kind_name(),
                                    },
                                );
                            }
                        }
                    }
                }
                _ if e.value.is_null() => {}
                _ => self.wrong(e, &list_path, rule, "a sequence"),
            }
        }
        let mut environment = Vec::new();
        let env_path = format!("{path}.environment");
        if let Some(env) = self.map(m, "environment", &env_path, rule) {
            for e in &env.entries {
                match e.value.as_scalar() {
                    Some(s) if !e.value.is_null() => {
                        environment.push((e.key.clone(), s.text.clone()))
                    }
                    _ => self.wrong(e, &format!("{env_path}.{}", e.key), rule, "a string"),
                }
            }
        }
        Generated {
            tool: self.string(m, "tool", path, rule),
            from,
            environment,
            node: m.clone(),
        }
    }

    fn seen(&mut self, m: &Map, path: &str, rule: Option<&str>) -> Seen {
        Seen {
            first: self.date(m, "first", path, rule),
            last: self.date(m, "last", path, rule),
            hits: self.count(m, "hits", path, rule),
            logs: self.count(m, "logs", path, rule),
            node: m.clone(),
        }
    }

    /// `key` as a nested mapping (`None` when absent or null).
    fn map(&mut self, m: &Map, key: &str, path: &str, rule: Option<&str>) -> Option<Map> {
        let e = m.entries.iter().find(|e| e.key == key)?;
        match &e.value.value {
            Value::Map(inner) => Some(inner.clone()),
            _ if e.value.is_null() => None,
            _ => {
                self.wrong(e, path, rule, "a mapping");
                None
            }
        }
    }

    /// `key` as a string: any scalar but null (`python: 3.11` is the string `3.11`).
    fn string(&mut self, m: &Map, key: &str, path: &str, rule: Option<&str>) -> Option<String> {
        let e = m.entries.iter().find(|e| e.key == key)?;
        match e.value.as_scalar() {
            _ if e.value.is_null() => None,
            Some(s) => Some(s.text.clone()),
            None => {
                self.wrong(e, &format!("{path}.{key}"), rule, "a string");
                None
            }
        }
    }

    fn date(&mut self, m: &Map, key: &str, path: &str, rule: Option<&str>) -> Option<Date> {
        let e = m.entries.iter().find(|e| e.key == key)?;
        let full = format!("{path}.{key}");
        match e.value.as_scalar() {
            _ if e.value.is_null() => None,
            Some(s) => match s.text.parse::<Date>() {
                Ok(d) => Some(d),
                Err(error) => {
                    self.problem(e.line, rule, ProblemKind::BadDate { path: full, error });
                    None
                }
            },
            None => {
                self.wrong(e, &full, rule, "a date (YYYY-MM-DD)");
                None
            }
        }
    }

    fn count(&mut self, m: &Map, key: &str, path: &str, rule: Option<&str>) -> Option<u64> {
        let e = m.entries.iter().find(|e| e.key == key)?;
        if e.value.is_null() {
            return None;
        }
        let n = e
            .value
            .as_scalar()
            .filter(|s| s.style == yaml::Style::Plain && s.text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|s| s.text.parse::<u64>().ok());
        if n.is_none() {
            let found = match e.value.as_scalar().map(yaml::Scalar::resolve) {
                Some(yaml::scalar::Resolved::Int) => "an integer out of range",
                _ => e.value.kind_name(),
            };
            self.problem(
                e.line,
                rule,
                ProblemKind::WrongType {
                    path: format!("{path}.{key}"),
                    expected: "a non-negative integer",
                    found,
                },
            );
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "version: 1
rules:
  cuda-driver.Param.ioctl.cuInit:
    fingerprint: 3f2a9c1b7d0e        # hash of the rule's canonical body (name excluded)
    origin: cuda-driver
    reason: libcuda passes ioctl buffers that the kernel fills; memcheck cannot see the writes
    owner: \"@ml-infra\"
    tracking: https://example.org/issues/123
    created: 2026-11-30
    expires: 2027-02-28
    generated:
      tool: vgsupp 0.1.0 gen --style anchored
      from:
        - {log: ci/logs/test_ext.log, sha256: \"ab12\", valgrind: 3.19.0, command: python test_ext.py, errors: 3}
      environment: {libcuda: 535.104.05, libcudart: \"12\", python: \"3.11\", torch: 2.5.1}
    seen: {first: 2026-11-30, last: 2026-12-14, hits: 57, logs: 12}
retired:
  old-rule: {retired: 2026-12-20, why: \"stale: 0 hits in 14 logs that loaded libcuda\"}
";

    #[test]
    fn the_product_example_reads() {
        let d = decode(FULL.as_bytes()).expect("reads");
        assert_eq!(d.problems, []);
        let r = &d.sidecar.rules[0];
        assert_eq!(r.name, "cuda-driver.Param.ioctl.cuInit");
        assert_eq!(r.line, 3);
        assert_eq!(r.owner.as_deref(), Some("@ml-infra"));
        assert_eq!(r.expires, "2027-02-28".parse().ok());
        let g = r.generated.as_ref().expect("generated");
        assert_eq!(g.from[0].errors, Some(3));
        assert_eq!(g.from[0].valgrind.as_deref(), Some("3.19.0"));
        assert_eq!(g.environment[2], ("python".to_owned(), "3.11".to_owned()));
        assert_eq!(r.seen.as_ref().and_then(|s| s.hits), Some(57));
        assert_eq!(
            d.sidecar.retired[0].why.as_deref(),
            Some("stale: 0 hits in 14 logs that loaded libcuda")
        );
    }

    #[test]
    fn schema_problems_are_listed_with_lines() {
        let src = "version: 1\nrules:\n  a:\n    owner: [x]\n    created: 2026-02-30\n    expires: soon\n    seen: {hits: many, logs: -1}\n    generated:\n      from: [3, {errors: \"4\"}]\n      environment: {x: {y: 1}}\n  b: 7\n  c:\n";
        let d = decode(src.as_bytes()).expect("reads");
        let shown: Vec<String> = d
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.line, p.kind))
            .collect();
        assert_eq!(
            shown,
            [
                "4: `rules.a.owner` must be a string, not a sequence",
                "5: `rules.a.created`: `2026-02-30` is not a date (expected YYYY-MM-DD; no such day)",
                "6: `rules.a.expires`: `soon` is not a date (expected YYYY-MM-DD)",
                "7: `rules.a.seen.hits` must be a non-negative integer, not a string",
                "7: `rules.a.seen.logs` must be a non-negative integer, not an integer out of range",
                "9: `rules.a.generated.from[0]` must be a mapping, not an integer",
                "9: `rules.a.generated.from[1].errors` must be a non-negative integer, not a string",
                "10: `rules.a.generated.environment.x` must be a string, not a mapping",
                "11: `rules.b` must be a mapping, not an integer",
            ]
        );
        assert!(
            d.problems
                .iter()
                .all(|p| p.rule.as_deref().is_some_and(|r| r == "a" || r == "b"))
        );
        let names: Vec<&str> = d.sidecar.rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(d.sidecar.rules[0].owner, None);
    }

    #[test]
    fn versions_and_roots() {
        let d = decode(b"version: 2\nrules:\n  a: {}\n").expect("reads");
        assert_eq!(d.problems[0].kind, ProblemKind::UnknownVersion("2".into()));
        assert!(d.sidecar.rules.is_empty());
        assert_eq!(d.sidecar.version, 2);
        let d = decode(b"version: one\n").expect("reads");
        assert_eq!(
            d.problems[0].kind,
            ProblemKind::UnknownVersion("one".into())
        );
        assert_eq!(d.sidecar.version, 0);
        let d = decode(b"rules:\n  a: {}\n").expect("reads");
        assert_eq!(d.problems[0].kind, ProblemKind::MissingVersion);
        assert_eq!(d.sidecar.rules.len(), 1);
        assert!(decode(b"").expect("empty").problems.is_empty());
        assert!(
            decode(b"# nothing yet\n")
                .expect("comments")
                .sidecar
                .rules
                .is_empty()
        );
        assert_eq!(
            decode(b"- a\n").map_err(|e| e.to_string()),
            Err(
                "line 1: the sidecar must be a mapping (`version: 1`, `rules: …`), not a sequence"
                    .into()
            )
        );
        let e = decode(b"version: 1\nrules: &r {}\nx: *r\n").expect_err("alias");
        assert_eq!(e.line(), 3);
    }
}
