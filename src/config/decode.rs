//! Reading `vgsupp.yaml`: bounded YAML ([`Limits::CONFIG`]) into a [`Config`]. A value
//! of the wrong type, an unknown release, an invalid glob, an unknown diagnostic code or
//! sidecar field is an error naming the line; a key vgsupp does not know is a warning (a
//! typo must not pass silently, a newer vgsupp's setting must not stop an older one).

use std::path::Path;

use globset::Glob;

use crate::lint::severity::Level;
use crate::sidecar::Field;
use crate::supp::Version;
use crate::yaml::{self, Limits, Map, Node, ReadError, Value};

use super::{Config, Expiry, Profile, Valued};

/// Why a config file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ConfigError {
    /// The 1-based line.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl From<ReadError> for ConfigError {
    fn from(e: ReadError) -> Self {
        Self {
            line: e.line,
            message: e.kind.to_string(),
        }
    }
}

/// A key vgsupp does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: unknown key `{key}` (ignored)")]
pub struct ConfigWarning {
    /// The 1-based line.
    pub line: u32,
    /// The key, with its parents (`sidecar.expire`).
    pub key: String,
}

fn err<T>(line: u32, message: String) -> Result<T, ConfigError> {
    Err(ConfigError {
        line: line.max(1),
        message,
    })
}

/// Read `vgsupp.yaml`'s bytes; `path` is recorded in the result.
///
/// # Errors
/// See the module documentation.
pub fn decode(src: &[u8], path: &Path) -> Result<Config, ConfigError> {
    let doc = yaml::read(src, &Limits::CONFIG)?;
    let mut config = Config {
        path: path.to_path_buf(),
        ..Config::default()
    };
    let top = match &doc.root {
        None => return Ok(config),
        Some(n) if n.is_null() => return Ok(config),
        Some(Node {
            value: Value::Map(m),
            ..
        }) => m,
        Some(n) => {
            return err(
                n.line,
                format!("vgsupp.yaml must be a mapping, not {}", n.kind_name()),
            );
        }
    };
    for e in &top.entries {
        let line = e.line;
        match e.key.as_str() {
            "valgrind" => {
                let text = scalar(&e.value, line, "valgrind", "a release such as \"3.19\"")?;
                let v = text.parse::<Version>().or_else(|_| {
                    err(
                        line,
                        format!(
                            "`valgrind`: `{text}` is not a release vgsupp models (3.14 … 3.27)"
                        ),
                    )
                })?;
                config.valgrind = Some(Valued { value: v, line });
            }
            "suppressions" => {
                let value = globs(&e.value, line, "suppressions")?;
                // Directories are walked and each file's name is matched, never its path.
                if let Some(g) = value.iter().find(|g| g.contains('/')) {
                    return err(
                        line,
                        format!(
                            "`suppressions`: `{g}` has a `/`; these globs match file names (`*.supp`), not paths"
                        ),
                    );
                }
                config.suppressions = Some(Valued { value, line });
            }
            "first-party" => {
                config.first_party = Some(Valued {
                    value: globs(&e.value, line, "first-party")?,
                    line,
                });
            }
            "owner" => {
                let v = scalar(&e.value, line, "owner", "a string")?;
                config.owner = Some(Valued { value: v, line });
            }
            "expires-in" => {
                let text = scalar(&e.value, line, "expires-in", "a number of days or `never`")?;
                let value = text
                    .parse::<Expiry>()
                    .or_else(|why| err(line, format!("`expires-in` must be {why}")))?;
                config.expires_in = Some(Valued { value, line });
            }
            "sidecar" => sidecar(&e.value, line, &mut config)?,
            "lints" => lints(&e.value, line, &mut config)?,
            "profiles" => config.profiles = profiles(&e.value, line)?,
            "gate" => gate(&e.value, line, &mut config)?,
            other => config.warnings.push(ConfigWarning {
                line,
                key: other.to_owned(),
            }),
        }
    }
    Ok(config)
}

/// A non-null scalar's text.
fn scalar(n: &Node, line: u32, key: &str, expected: &str) -> Result<String, ConfigError> {
    match n.as_scalar() {
        Some(s) if !n.is_null() => Ok(s.text.clone()),
        _ => err(
            line,
            format!("`{key}` must be {expected}, not {}", n.kind_name()),
        ),
    }
}

fn days(n: &Node, line: u32, key: &str) -> Result<u32, ConfigError> {
    let text = scalar(n, line, key, "a number of days")?;
    match text.parse::<u32>() {
        Ok(d) if text.bytes().all(|b| b.is_ascii_digit()) => Ok(d),
        _ => err(
            line,
            format!("`{key}` must be a number of days, not `{text}`"),
        ),
    }
}

/// A list of strings (a single string is a list of one).
fn strings(n: &Node, line: u32, key: &str) -> Result<Vec<String>, ConfigError> {
    match &n.value {
        Value::Seq(s) => s
            .items
            .iter()
            .map(|i| scalar(&i.node, i.node.line.max(line), key, "a list of strings"))
            .collect(),
        Value::Scalar(_) if !n.is_null() => Ok(vec![scalar(n, line, key, "a string")?]),
        _ => err(
            line,
            format!("`{key}` must be a list of strings, not {}", n.kind_name()),
        ),
    }
}

fn globs(n: &Node, line: u32, key: &str) -> Result<Vec<String>, ConfigError> {
    let list = strings(n, line, key)?;
    for g in &list {
        if let Err(e) = Glob::new(g) {
            return err(line, format!("`{key}`: invalid glob `{g}`: {}", e.kind()));
        }
    }
    Ok(list)
}

fn mapping<'a>(n: &'a Node, line: u32, key: &str) -> Result<Option<&'a Map>, ConfigError> {
    match &n.value {
        Value::Map(m) => Ok(Some(m)),
        _ if n.is_null() => Ok(None),
        _ => err(
            line,
            format!("`{key}` must be a mapping, not {}", n.kind_name()),
        ),
    }
}

fn sidecar(n: &Node, line: u32, config: &mut Config) -> Result<(), ConfigError> {
    let Some(m) = mapping(n, line, "sidecar")? else {
        return Ok(());
    };
    for e in &m.entries {
        match e.key.as_str() {
            "required" => {
                let fields = strings(&e.value, e.line, "sidecar.required")?
                    .iter()
                    .map(|s| s.parse::<Field>())
                    .collect::<Result<Vec<_>, _>>()
                    .or_else(|m| err(e.line, format!("`sidecar.required`: {m}")))?;
                config.required = Some(Valued {
                    value: fields,
                    line: e.line,
                });
            }
            "expiring-within" => {
                config.expiring_within = Some(Valued {
                    value: days(&e.value, e.line, "sidecar.expiring-within")?,
                    line: e.line,
                });
            }
            other => config.warnings.push(ConfigWarning {
                line: e.line,
                key: format!("sidecar.{other}"),
            }),
        }
    }
    Ok(())
}

fn gate(n: &Node, line: u32, config: &mut Config) -> Result<(), ConfigError> {
    let Some(m) = mapping(n, line, "gate")? else {
        return Ok(());
    };
    for e in &m.entries {
        let line = e.line;
        let g = &mut config.gate;
        match e.key.as_str() {
            "suppressions" => {
                let value = strings(&e.value, line, "gate.suppressions")?;
                if let Some(unknown) = value
                    .iter()
                    .filter_map(|v| crate::packs::resolve(v))
                    .find_map(Result::err)
                {
                    return err(line, format!("`gate.suppressions`: {unknown}"));
                }
                g.suppressions = Some(Valued { value, line });
            }
            "fail-on" => {
                let value = strings(&e.value, line, "gate.fail-on")?;
                if let Err(why) = crate::gate::Policy::parse(&value) {
                    return err(line, format!("`gate.fail-on`: {why}"));
                }
                g.fail_on = Some(Valued { value, line });
            }
            "baseline" => {
                let value = scalar(&e.value, line, "gate.baseline", "a path")?;
                g.baseline = Some(Valued { value, line });
            }
            "source-root" => {
                let value = scalar(&e.value, line, "gate.source-root", "a path")?;
                g.source_root = Some(Valued { value, line });
            }
            "allow-incomplete" => {
                let text = scalar(&e.value, line, "gate.allow-incomplete", "true or false")?;
                let value = match text.as_str() {
                    "true" | "True" | "TRUE" => true,
                    "false" | "False" | "FALSE" => false,
                    _ => {
                        return err(
                            line,
                            format!("`gate.allow-incomplete` must be true or false, not `{text}`"),
                        );
                    }
                };
                g.allow_incomplete = Some(Valued { value, line });
            }
            other => config.warnings.push(ConfigWarning {
                line,
                key: format!("gate.{other}"),
            }),
        }
    }
    Ok(())
}

fn lints(n: &Node, line: u32, config: &mut Config) -> Result<(), ConfigError> {
    let Some(m) = mapping(n, line, "lints")? else {
        return Ok(());
    };
    for e in &m.entries {
        let text = scalar(&e.value, e.line, &format!("lints.{}", e.key), "a level")?;
        let level = text
            .parse::<Level>()
            .or_else(|m| err(e.line, format!("`lints.{}`: {m}", e.key)))?;
        config
            .severities
            .set(&e.key, level)
            .or_else(|m| err(e.line, format!("`lints`: {m}")))?;
    }
    Ok(())
}

fn profiles(n: &Node, line: u32) -> Result<Vec<Valued<Profile>>, ConfigError> {
    let items = match &n.value {
        Value::Seq(s) => &s.items,
        _ if n.is_null() => return Ok(Vec::new()),
        _ => {
            return err(
                line,
                format!("`profiles` must be a list, not {}", n.kind_name()),
            );
        }
    };
    let mut out: Vec<Valued<Profile>> = Vec::new();
    for item in items {
        let at = item.node.line.max(line);
        let Some(m) = item.node.as_map() else {
            return err(
                at,
                format!(
                    "a profile must be a mapping (name, objects, sources, functions), not {}",
                    item.node.kind_name()
                ),
            );
        };
        let mut p = Profile {
            name: String::new(),
            objects: Vec::new(),
            sources: Vec::new(),
            functions: Vec::new(),
        };
        for e in &m.entries {
            match e.key.as_str() {
                "name" => p.name = scalar(&e.value, e.line, "profiles.name", "a string")?,
                "objects" => p.objects = globs(&e.value, e.line, "profiles.objects")?,
                "sources" => p.sources = globs(&e.value, e.line, "profiles.sources")?,
                "functions" => p.functions = globs(&e.value, e.line, "profiles.functions")?,
                other => {
                    return err(
                        e.line,
                        format!(
                            "unknown profile key `{other}` (name, objects, sources, functions)"
                        ),
                    );
                }
            }
        }
        let valid_name = !p.name.is_empty()
            && p.name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
        if !valid_name {
            return err(
                at,
                format!(
                    "a profile needs a `name` of letters, digits, `-` and `_` (got `{}`)",
                    p.name
                ),
            );
        }
        if p.objects.is_empty() && p.sources.is_empty() && p.functions.is_empty() {
            return err(
                at,
                format!(
                    "profile `{}` has no `objects`, `sources` or `functions` globs",
                    p.name
                ),
            );
        }
        if let Some(first) = out.iter().find(|q| q.value.name == p.name) {
            return err(
                at,
                format!(
                    "profile `{}` is defined twice (first at line {})",
                    p.name, first.line
                ),
            );
        }
        out.push(Valued { value: p, line: at });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<Config, ConfigError> {
        decode(s.as_bytes(), Path::new("vgsupp.yaml"))
    }

    fn error(s: &str) -> String {
        read(s).expect_err("refused").to_string()
    }

    #[test]
    fn every_setting() {
        let c = read("# project settings\nvalgrind: \"3.19\"\nsuppressions: [\"*.supp\", \"*.valgrind\"]\nfirst-party: \"leaky_ext*.so\"\nowner: \"@ml-infra\"\nexpires-in: 90\nsidecar:\n  required: [reason, owner]\n  expiring-within: 30\nlints:\n  VS901: off\n  missing-name: info\nprofiles:\n  - name: vendor-blas\n    objects: [\"*/libvendorblas*.so*\"]\n    sources: [\"*/vendorblas/*\"]\nfuture-setting: 1\n").expect("reads");
        assert_eq!(
            c.valgrind.as_ref().map(|v| (v.value.to_string(), v.line)),
            Some(("3.19".into(), 2))
        );
        assert_eq!(
            c.suppressions.as_ref().map(|v| v.value.clone()),
            Some(vec!["*.supp".into(), "*.valgrind".into()])
        );
        assert_eq!(
            c.first_party.as_ref().map(|v| v.value.clone()),
            Some(vec!["leaky_ext*.so".into()])
        );
        assert_eq!(
            c.expires_in.as_ref().map(|v| v.value),
            Some(Expiry::Days(90))
        );
        assert_eq!(
            c.required.as_ref().map(|v| v.value.clone()),
            Some(vec![Field::Reason, Field::Owner])
        );
        assert_eq!(
            c.expiring_within.as_ref().map(|v| (v.value, v.line)),
            Some((30, 9))
        );
        assert_eq!(c.severities.get("VS901"), Some(Level::Off));
        assert_eq!(
            c.severities.get("VS203").map(|l| l.to_string()),
            Some("info".into())
        );
        assert_eq!(
            c.profiles[0].value,
            Profile {
                name: "vendor-blas".into(),
                objects: vec!["*/libvendorblas*.so*".into()],
                sources: vec!["*/vendorblas/*".into()],
                functions: Vec::new(),
            }
        );
        assert_eq!(c.profiles[0].line, 14);
        assert_eq!(
            c.warnings,
            [ConfigWarning {
                line: 17,
                key: "future-setting".into()
            }]
        );
        assert_eq!(
            read("").expect("empty"),
            Config {
                path: "vgsupp.yaml".into(),
                ..Config::default()
            }
        );
    }

    #[test]
    fn the_gate_section() {
        let c = read("gate:\n  suppressions: [ci/cuda.supp, \"profile:libtorch\"]\n  fail-on: [errors, possible]\n  baseline: ci/base.yaml\n  source-root: ..\n  allow-incomplete: true\n  colour: red\n").expect("reads");
        let g = &c.gate;
        assert_eq!(
            g.suppressions.as_ref().map(|v| (v.value.clone(), v.line)),
            Some((vec!["ci/cuda.supp".into(), "profile:libtorch".into()], 2))
        );
        assert_eq!(
            g.fail_on.as_ref().map(|v| v.value.clone()),
            Some(vec!["errors".into(), "possible".into()])
        );
        assert_eq!(
            g.baseline.as_ref().map(|v| (v.value.as_str(), v.line)),
            Some(("ci/base.yaml", 4))
        );
        assert_eq!(g.source_root.as_ref().map(|v| v.value.as_str()), Some(".."));
        assert_eq!(g.allow_incomplete.as_ref().map(|v| v.value), Some(true));
        assert_eq!(
            c.warnings,
            [ConfigWarning {
                line: 7,
                key: "gate.colour".into()
            }]
        );
        assert_eq!(
            error("gate:\n  fail-on: [errors, sometimes]\n"),
            "line 2: `gate.fail-on`: unknown fail-on value `sometimes` (expected: all, errors, leaks, definite, indirect, possible, reachable, review, or an error kind: Addr, Value, Cond, Param, Free, Overlap, Jump, FishyValue, ReallocZero, Race, UnlockUnlocked, LockOrder, Misc, PthAPIerror)"
        );
        assert_eq!(
            error("gate:\n  suppressions: [\"profile:system\", \"profile:nope\"]\n"),
            "line 2: `gate.suppressions`: unknown profile `nope` (the packs are: cpython, cuda-driver, cuda-libs, libtorch, openmp-blas, system; see `vgsupp profiles list`)"
        );
        assert_eq!(
            error("gate:\n  allow-incomplete: sometimes\n"),
            "line 2: `gate.allow-incomplete` must be true or false, not `sometimes`"
        );
        assert_eq!(
            error("gate: [a]\n"),
            "line 1: `gate` must be a mapping, not a sequence"
        );
    }

    #[test]
    fn expires_in_is_days_or_never() {
        let c = read("expires-in: never\n").expect("reads");
        assert_eq!(c.expires_in.map(|v| v.value), Some(Expiry::Never));
        let c = read("expires-in: \"30\"\n").expect("reads");
        assert_eq!(c.expires_in.map(|v| v.value), Some(Expiry::Days(30)));
        assert_eq!(
            error("expires-in: soon\n"),
            "line 1: `expires-in` must be a number of days or `never`, not `soon`"
        );
        // Too far to be a date (it used to become `never` without a word).
        let c = read("expires-in: 36500\n").expect("reads");
        assert_eq!(c.expires_in.map(|v| v.value), Some(Expiry::Days(36_500)));
        assert_eq!(
            error("expires-in: 3000000\n"),
            "line 1: `expires-in` must be a number of days up to 36500 (100 years) or `never`, not `3000000`"
        );
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            error("valgrind: 4.0\n"),
            "line 1: `valgrind`: `4.0` is not a release vgsupp models (3.14 … 3.27)"
        );
        assert_eq!(
            error("\nsuppressions: [\"a[\"]\n"),
            "line 2: `suppressions`: invalid glob `a[`: unclosed character class; missing ']'"
        );
        assert_eq!(
            error("suppressions: [\"*.supp\", \"rules/*.supp\"]\n"),
            "line 1: `suppressions`: `rules/*.supp` has a `/`; these globs match file names (`*.supp`), not paths"
        );
        assert_eq!(
            error("expires-in: -3\n"),
            "line 1: `expires-in` must be a number of days or `never`, not `-3`"
        );
        assert_eq!(
            error("sidecar:\n  required: [reason, colour]\n"),
            "line 2: `sidecar.required`: unknown sidecar field `colour` (one of fingerprint, origin, reason, owner, tracking, created, expires, generated, seen)"
        );
        assert_eq!(
            error("lints:\n  VS112: off\n"),
            "line 2: `lints`: VS112 cannot be set to `off`: Valgrind refuses or crashes on what it finds"
        );
        assert_eq!(
            error("lints:\n  VS901: loud\n"),
            "line 2: `lints.VS901`: unknown level `loud` (error, warning, info or off)"
        );
        assert_eq!(
            error("owner: [a]\n"),
            "line 1: `owner` must be a string, not a sequence"
        );
        assert_eq!(
            error("profiles:\n  - name: a\n    objects: [x]\n  - name: a\n    sources: [y]\n"),
            "line 4: profile `a` is defined twice (first at line 2)"
        );
        assert_eq!(
            error("profiles:\n  - name: a b\n    objects: [x]\n"),
            "line 2: a profile needs a `name` of letters, digits, `-` and `_` (got `a b`)"
        );
        assert_eq!(
            error("- a\n"),
            "line 1: vgsupp.yaml must be a mapping, not a sequence"
        );
        assert_eq!(
            error("a: &x 1\nb: *x\n"),
            "line 2: aliases (`*name`) are not allowed: vgsupp does not expand them"
        );
        let deep = format!("x: {}{}\n", "[".repeat(20), "]".repeat(20));
        assert_eq!(error(&deep), "line 1: nested more than 8 levels deep");
    }
}
