//! Baselines: first-party errors known today that must not fail the gate until they are
//! fixed or their entry expires (`--baseline FILE`, `--write-baseline FILE`,
//! `--update-baseline`).
//!
//! ```yaml
//! version: 1
//! errors:
//!   - fingerprint: 5c1e0d6a9b3f4e21a8c7d6e5f4a3b2c1
//!     kind: Leak
//!     function: leak_tensor(int)
//!     file: leaky_ext.cpp
//!     count: 1
//!     owner: ml-platform
//!     reason: known leak, fixed by #1234
//!     expires: 2027-03-01
//! ```
//!
//! An entry covers `count` occurrences of its fingerprint: a second identical error is
//! new. Past `expires` an entry covers nothing (the error fails again, and the report
//! says the entry expired), so a baseline cannot turn into permanent debt. `kind`,
//! `function` and `file` are for people; the fingerprint alone matches.

use crate::date::Date;
use crate::yaml::{self, Document, Limits, Map, Node, Seq, Value};

/// The baseline format's version.
pub const VERSION: u64 = 1;

/// One known error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its fingerprint ([`super::fingerprint::fingerprint`]).
    pub fingerprint: String,
    /// Its kind (`Leak`, `Addr4`), for people.
    pub kind: String,
    /// The function it is reported at, for people.
    pub function: Option<String>,
    /// The source file it is reported at, for people.
    pub file: Option<String>,
    /// How many occurrences it covers.
    pub count: u64,
    /// Who answers for it.
    pub owner: Option<String>,
    /// Why it is accepted for now.
    pub reason: Option<String>,
    /// When it stops covering anything.
    pub expires: Option<Date>,
    /// Its line in the file (0 for entries made by code).
    pub line: u32,
}

impl Entry {
    /// Whether it is past `expires` on `today`.
    #[must_use]
    pub fn expired(&self, today: Date) -> bool {
        self.expires.is_some_and(|e| e < today)
    }
}

/// A baseline file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Its entries, in file order.
    pub entries: Vec<Entry>,
}

/// Why a baseline cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaselineError {
    /// Not YAML within the limits.
    #[error(transparent)]
    Yaml(#[from] yaml::ReadError),
    /// YAML, but not a baseline.
    #[error("line {line}: {message}")]
    Schema {
        /// The 1-based line.
        line: u32,
        /// What is wrong.
        message: String,
    },
}

fn schema(line: u32, message: impl Into<String>) -> BaselineError {
    BaselineError::Schema {
        line: line.max(1),
        message: message.into(),
    }
}

impl Baseline {
    /// Read a baseline's bytes.
    ///
    /// # Errors
    /// When they are not a baseline of this version.
    pub fn decode(src: &[u8]) -> Result<Self, BaselineError> {
        let doc = yaml::read(src, &Limits::SIDECAR)?;
        let top = match &doc.root {
            None => return Ok(Self::default()),
            Some(n) if n.is_null() => return Ok(Self::default()),
            Some(Node {
                value: Value::Map(m),
                ..
            }) => m,
            Some(n) => {
                return Err(schema(
                    n.line,
                    format!("a baseline is a mapping, not {}", n.kind_name()),
                ));
            }
        };
        for e in &top.entries {
            match e.key.as_str() {
                "version" => {
                    let v = scalar(&e.value).and_then(|t| t.parse::<u64>().ok());
                    if v != Some(VERSION) {
                        return Err(schema(
                            e.line,
                            format!("`version` must be {VERSION} (this vgsupp reads no other)"),
                        ));
                    }
                }
                "errors" => {}
                other => {
                    return Err(schema(
                        e.line,
                        format!("unknown key `{other}` (expected `version`, `errors`)"),
                    ));
                }
            }
        }
        if top.get("version").is_none() && top.get("errors").is_some() {
            return Err(schema(1, "no `version: 1`"));
        }
        let mut entries = Vec::new();
        match top.get("errors") {
            None => {}
            Some(n) if n.is_null() => {}
            Some(Node {
                value: Value::Seq(s),
                ..
            }) => {
                for item in &s.items {
                    entries.push(entry(&item.node)?);
                }
            }
            Some(n) => {
                return Err(schema(
                    n.line,
                    format!("`errors` is a list, not {}", n.kind_name()),
                ));
            }
        }
        Ok(Self { entries })
    }

    /// The file's text.
    #[must_use]
    pub fn encode(&self) -> String {
        let mut top = Map::default();
        top.push("version", Node::plain(&VERSION.to_string()));
        let items = self.entries.iter().map(|e| {
            let mut m = Map::default();
            m.push("fingerprint", Node::string(&e.fingerprint));
            m.push("kind", Node::string(&e.kind));
            if let Some(f) = &e.function {
                m.push("function", Node::string(f));
            }
            if let Some(f) = &e.file {
                m.push("file", Node::string(f));
            }
            m.push("count", Node::plain(&e.count.to_string()));
            m.push(
                "owner",
                e.owner
                    .as_deref()
                    .map_or_else(|| Node::plain("null"), Node::string),
            );
            m.push(
                "reason",
                e.reason
                    .as_deref()
                    .map_or_else(|| Node::plain("null"), Node::string),
            );
            m.push(
                "expires",
                e.expires
                    .map_or_else(|| Node::plain("null"), |d| Node::plain(&d.to_string())),
            );
            Node::new(Value::Map(m))
        });
        top.push("errors", Node::new(Value::Seq(Seq::of(items, false))));
        let doc = Document {
            root: Some(Node::new(Value::Map(top))),
            end_comments: Vec::new(),
        };
        let mut text = String::from(
            "# vgsupp baseline: known first-party errors that do not fail `vgsupp gate` until\n\
             # they are fixed or their entry expires. Give each an owner and a reason.\n",
        );
        text.push_str(&yaml::write(&doc));
        text
    }
}

fn scalar(n: &Node) -> Option<String> {
    match &n.value {
        Value::Scalar(s) if !n.is_null() => Some(s.text.clone()),
        _ => None,
    }
}

fn entry(n: &Node) -> Result<Entry, BaselineError> {
    let Value::Map(m) = &n.value else {
        return Err(schema(
            n.line,
            format!("an entry of `errors` is a mapping, not {}", n.kind_name()),
        ));
    };
    for e in &m.entries {
        if !matches!(
            e.key.as_str(),
            "fingerprint" | "kind" | "function" | "file" | "count" | "owner" | "reason" | "expires"
        ) {
            return Err(schema(
                e.line,
                format!(
                    "unknown key `{}` (expected fingerprint, kind, function, file, count, owner, reason, expires)",
                    e.key
                ),
            ));
        }
    }
    let text = |key: &str| -> Result<Option<String>, BaselineError> {
        match m.entries.iter().find(|e| e.key == key) {
            None => Ok(None),
            Some(e) if e.value.is_null() => Ok(None),
            Some(e) => scalar(&e.value).map(Some).ok_or_else(|| {
                schema(
                    e.line,
                    format!("`{key}` is a scalar, not {}", e.value.kind_name()),
                )
            }),
        }
    };
    let line = n.line;
    let fingerprint = text("fingerprint")?
        .filter(|f| f.len() == 32 && f.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| schema(line, "an entry needs a `fingerprint` of 32 hex digits"))?;
    let count =
        match text("count")? {
            None => 1,
            Some(c) => c.parse::<u64>().ok().filter(|&c| c > 0).ok_or_else(|| {
                schema(line, format!("`count: {c}` is not a positive whole number"))
            })?,
        };
    let expires = match text("expires")? {
        None => None,
        Some(d) => Some(d.parse::<Date>().map_err(|e| schema(line, e.to_string()))?),
    };
    Ok(Entry {
        fingerprint: fingerprint.to_ascii_lowercase(),
        kind: text("kind")?.unwrap_or_default(),
        function: text("function")?,
        file: text("file")?,
        count,
        owner: text("owner")?,
        reason: text("reason")?,
        expires,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Baseline {
        Baseline {
            entries: vec![Entry {
                fingerprint: "0123456789abcdef0123456789abcdef".into(),
                kind: "Leak".into(),
                function: Some("leak_tensor(int)".into()),
                file: Some("leaky_ext.cpp".into()),
                count: 2,
                owner: Some("ml: platform".into()),
                reason: None,
                expires: "2027-03-01".parse().ok(),
                line: 0,
            }],
        }
    }

    #[test]
    fn round_trips() {
        let b = sample();
        let text = b.encode();
        let mut back = Baseline::decode(text.as_bytes()).unwrap();
        for e in &mut back.entries {
            e.line = 0;
        }
        assert_eq!(back, b);
        assert!(text.starts_with("# vgsupp baseline"));
    }

    #[test]
    fn refuses_what_is_not_a_baseline() {
        for (src, want) in [
            ("- a\n", "a baseline is a mapping"),
            ("version: 2\nerrors: []\n", "`version` must be 1"),
            ("errors: []\n", "no `version: 1`"),
            ("version: 1\nerrors:\n  - kind: Leak\n", "32 hex digits"),
            (
                "version: 1\nerrors:\n  - fingerprint: 0123456789abcdef0123456789abcdef\n    count: 0\n",
                "not a positive",
            ),
            (
                "version: 1\nerrors:\n  - fingerprint: 0123456789abcdef0123456789abcdef\n    expires: soon\n",
                "not a date",
            ),
            ("version: 1\nfoo: 1\n", "unknown key `foo`"),
        ] {
            let e = Baseline::decode(src.as_bytes()).unwrap_err().to_string();
            assert!(e.contains(want), "{src:?}: {e}");
        }
        assert_eq!(Baseline::decode(b"").unwrap(), Baseline::default());
    }

    #[test]
    fn expiry() {
        let e = &sample().entries[0];
        assert!(!e.expired("2027-03-01".parse().unwrap()));
        assert!(e.expired("2027-03-02".parse().unwrap()));
    }

    proptest::proptest! {
        #[test]
        fn any_entries_round_trip(
            entries in proptest::collection::vec(
                (
                    "[0-9a-f]{32}",
                    "[A-Za-z0-9]{0,8}",
                    proptest::option::of("\\PC{0,40}"),
                    proptest::option::of("[ -~]{0,20}"),
                    1u64..1000,
                    proptest::option::of("\\PC{0,30}"),
                    proptest::option::of("[ -~\n]{0,60}"),
                    proptest::option::of(0i64..30_000),
                ),
                0..6,
            )
        ) {
            let b = Baseline {
                entries: entries
                    .into_iter()
                    .map(|(fingerprint, kind, function, file, count, owner, reason, days)| Entry {
                        fingerprint,
                        kind,
                        function,
                        file,
                        count,
                        owner,
                        reason,
                        expires: days.and_then(Date::from_unix_days),
                        line: 0,
                    })
                    .collect(),
            };
            let text = b.encode();
            let mut back = Baseline::decode(text.as_bytes()).map_err(|e| {
                proptest::test_runner::TestCaseError::fail(format!("{e}\n{text}"))
            })?;
            for e in &mut back.entries {
                e.line = 0;
            }
            proptest::prop_assert_eq!(back, b, "{}", text);
        }
    }
}
