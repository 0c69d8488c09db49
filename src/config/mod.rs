//! The project's settings, `vgsupp.yaml` (found upward from the working directory, or
//! given with `--config`), and how every command layers them: a flag beats the file, the
//! file beats the default.
//!
//! What the user typed is kept apart from what was resolved: a [`Config`] is the file as
//! written (each value with its line), a [`Layer`] is what one source says (the flags of
//! a command, or the file), and [`Resolved`] holds each setting's value with where it came
//! from ([`Setting`]), so `-v` can say why a value is what it is.
//!
//! ```yaml
//! valgrind: "3.19"                   # the target release (check, match)
//! suppressions: ["*.supp", "*.sup"]  # file names taken from directories (check, fmt)
//! first-party: ["*my_ext*.so"]      # objects that are ours (gen)
//! owner: "@ml-infra"                 # default owner of generated rules (gen)
//! expires-in: 90                     # expiry of generated rules: days, or never (gen; default 90)
//! sidecar:
//!   required: [reason, owner]        # fields every rule's entry must have (check, VS406)
//!   expiring-within: 14              # days of notice before expiry (check, VS404)
//! lints:                             # severities by code or name: error, warning, info, off
//!   VS901: off
//!   expired: warning
//! profiles:                          # extra origin profiles (gen)
//!   - name: vendor-blas
//!     objects: ["*/libvendorblas*.so*"]
//!     sources: ["*/vendorblas/*"]
//! gate:                              # the CI gate (gate, run)
//!   suppressions: [ci/cuda.supp, "profile:libtorch"]  # rule files, relative to this file
//!   fail-on: [errors, definite, possible]              # what fails (default: all but reachable)
//!   baseline: ci/valgrind-baseline.yaml                # known errors that pass until they expire
//!   source-root: .                                     # report paths relative to it
//!   allow-incomplete: false                            # pass on what a cut log shows
//! ```

pub mod decode;
pub mod discover;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::lint::severity::Severities;
use crate::sidecar::Field;
use crate::supp::Version;

pub use decode::{ConfigError, ConfigWarning, decode};
pub use discover::{FILE_NAME, discover};

/// A value as written in the file, with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Valued<T> {
    /// The value.
    pub value: T,
    /// The 1-based line of its key.
    pub line: u32,
}

/// What one source of settings says; `None`: nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layer {
    /// The target Valgrind release.
    pub valgrind: Option<Version>,
    /// Suppression-file name globs.
    pub suppressions: Option<Vec<String>>,
    /// First-party object globs.
    pub first_party: Option<Vec<String>>,
    /// Default owner of generated rules.
    pub owner: Option<String>,
    /// Expiry of generated rules.
    pub expires_in: Option<Expiry>,
    /// Fields every rule's sidecar entry must have.
    pub required: Option<Vec<Field>>,
    /// Days of notice before a rule expires.
    pub expiring_within: Option<u32>,
    /// The gate's suppression files (`-s`; `profile:NAME` packs).
    pub gate_suppressions: Option<Vec<PathBuf>>,
    /// What fails the gate (`--fail-on` words).
    pub fail_on: Option<Vec<String>>,
    /// The gate's baseline.
    pub baseline: Option<PathBuf>,
    /// Where report paths are relative to.
    pub source_root: Option<PathBuf>,
    /// Whether the gate passes on what an incomplete log shows.
    pub allow_incomplete: Option<bool>,
}

/// The `gate:` section as written: paths as typed, relative to the config's directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateConfig {
    /// `gate.suppressions:` suppression files, directories and `profile:NAME` packs.
    pub suppressions: Option<Valued<Vec<String>>>,
    /// `gate.fail-on:` (checked to be valid `--fail-on` words when read).
    pub fail_on: Option<Valued<Vec<String>>>,
    /// `gate.baseline:`.
    pub baseline: Option<Valued<String>>,
    /// `gate.source-root:`.
    pub source_root: Option<Valued<String>>,
    /// `gate.allow-incomplete:`.
    pub allow_incomplete: Option<Valued<bool>>,
}

/// An origin profile from the config (`profiles:`): the same plain data `gen` builds its
/// classifier from (the config's globs are checked to compile when read).
pub use crate::origin::Profile;

/// `vgsupp.yaml` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Where it was read from.
    pub path: PathBuf,
    /// The settings it gives, each with its line.
    pub valgrind: Option<Valued<Version>>,
    /// `suppressions:`.
    pub suppressions: Option<Valued<Vec<String>>>,
    /// `first-party:`.
    pub first_party: Option<Valued<Vec<String>>>,
    /// `owner:`.
    pub owner: Option<Valued<String>>,
    /// `expires-in:`.
    pub expires_in: Option<Valued<Expiry>>,
    /// `sidecar.required:`.
    pub required: Option<Valued<Vec<Field>>>,
    /// `sidecar.expiring-within:`.
    pub expiring_within: Option<Valued<u32>>,
    /// `lints:`.
    pub severities: Severities,
    /// `profiles:`, in order, each with the line it starts on.
    pub profiles: Vec<Valued<Profile>>,
    /// `gate:`.
    pub gate: GateConfig,
    /// Keys it has that vgsupp does not know (ignored).
    pub warnings: Vec<ConfigWarning>,
}

impl Config {
    /// The settings it gives, without their lines.
    #[must_use]
    pub fn layer(&self) -> Layer {
        Layer {
            valgrind: self.valgrind.as_ref().map(|v| v.value),
            suppressions: self.suppressions.as_ref().map(|v| v.value.clone()),
            first_party: self.first_party.as_ref().map(|v| v.value.clone()),
            owner: self.owner.as_ref().map(|v| v.value.clone()),
            expires_in: self.expires_in.as_ref().map(|v| v.value),
            required: self.required.as_ref().map(|v| v.value.clone()),
            expiring_within: self.expiring_within.as_ref().map(|v| v.value),
            gate_suppressions: self
                .gate
                .suppressions
                .as_ref()
                .map(|v| v.value.iter().map(|p| self.path_from_here(p)).collect()),
            fail_on: self.gate.fail_on.as_ref().map(|v| v.value.clone()),
            baseline: self
                .gate
                .baseline
                .as_ref()
                .map(|v| self.path_from_here(&v.value)),
            source_root: self
                .gate
                .source_root
                .as_ref()
                .map(|v| self.path_from_here(&v.value)),
            allow_incomplete: self.gate.allow_incomplete.as_ref().map(|v| v.value),
        }
    }

    /// A path the file gives, relative to its directory (the project); a `profile:NAME`
    /// pack and an absolute path as they are.
    #[must_use]
    pub fn path_from_here(&self, p: &str) -> PathBuf {
        if p.starts_with(crate::packs::PREFIX) || Path::new(p).is_absolute() {
            PathBuf::from(p)
        } else {
            self.project().join(p)
        }
    }

    /// The directory it applies to (where it is; `.` for a bare file name).
    #[must_use]
    pub fn project(&self) -> &Path {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        }
    }
}

/// Where a resolved setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag.
    Flag,
    /// The config file, at this line.
    Config(u32),
    /// vgsupp's default.
    Default,
}

/// A resolved value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value in force.
    pub value: T,
    /// Where it came from.
    pub origin: Origin,
}

/// Every setting in force for a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The target Valgrind release (default: the newest vgsupp models).
    pub valgrind: Setting<Version>,
    /// Suppression-file name globs (default `*.supp`, `*.sup`).
    pub suppressions: Setting<Vec<String>>,
    /// First-party globs on objects and sources (default: everything under the project
    /// directory).
    pub first_party: Setting<Vec<String>>,
    /// Default owner of generated rules (default: none).
    pub owner: Setting<Option<String>>,
    /// Expiry of generated rules (default: [`DEFAULT_EXPIRES_IN`] days).
    pub expires_in: Setting<Expiry>,
    /// Fields every sidecar entry must have (default: `reason`).
    pub required: Setting<Vec<Field>>,
    /// Days of notice before expiry (default: 14).
    pub expiring_within: Setting<u32>,
    /// Severities set in the config.
    pub severities: Severities,
    /// Extra origin profiles from the config, in order (`gen` tries them before its
    /// built-in ones).
    pub profiles: Vec<Profile>,
    /// The gate's settings (`gate`, `run`).
    pub gate: GateSettings,
    /// The config file in force, if any.
    pub config: Option<PathBuf>,
    /// The project directory: the config's, else the working directory.
    pub project: PathBuf,
}

/// The gate's settings in force (`gate:` of vgsupp.yaml under the flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateSettings {
    /// Suppression files and packs (default: none).
    pub suppressions: Setting<Vec<PathBuf>>,
    /// `--fail-on` words (default: none, which is the default policy).
    pub fail_on: Setting<Vec<String>>,
    /// The baseline (default: none).
    pub baseline: Setting<Option<PathBuf>>,
    /// Where report paths are relative to (default: none, the repository's root).
    pub source_root: Setting<Option<PathBuf>>,
    /// Pass on what an incomplete log shows (default: no).
    pub allow_incomplete: Setting<bool>,
}

/// The default suppression-file name globs.
pub const DEFAULT_SUPPRESSIONS: [&str; 2] = ["*.supp", "*.sup"];

/// The default notice before expiry, in days.
pub const DEFAULT_EXPIRING_WITHIN: u32 = 14;

/// In how many days from their creation generated rules expire by default: a rule that
/// hides third-party noise is looked at again each quarter, when the library it hides may
/// have been fixed.
pub const DEFAULT_EXPIRES_IN: u32 = 90;

/// The longest expiry in days (100 years): beyond it a date is no promise to look again,
/// and `never` says so honestly.
pub const MAX_EXPIRES_IN: u32 = 36_500;

/// When generated rules expire (`--expires-in`, `expires-in:`): so many days after they
/// are created, or never (no `expires` is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// This many days after creation.
    Days(u32),
    /// Never.
    Never,
}

impl Expiry {
    /// The number of days, `None` for [`Expiry::Never`].
    #[must_use]
    pub const fn days(self) -> Option<u32> {
        match self {
            Self::Days(d) => Some(d),
            Self::Never => None,
        }
    }
}

impl Default for Expiry {
    fn default() -> Self {
        Self::Days(DEFAULT_EXPIRES_IN)
    }
}

impl FromStr for Expiry {
    type Err = String;

    /// `never`, or a number of days (digits only).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "never" {
            return Ok(Self::Never);
        }
        match s.parse::<u32>() {
            Ok(d) if d > MAX_EXPIRES_IN => Err(format!(
                "a number of days up to {MAX_EXPIRES_IN} (100 years) or `never`, not `{s}`"
            )),
            Ok(d) if s.bytes().all(|b| b.is_ascii_digit()) => Ok(Self::Days(d)),
            _ => Err(format!("a number of days or `never`, not `{s}`")),
        }
    }
}

impl fmt::Display for Expiry {
    /// As written on the command line: `90`, `never`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Days(d) => write!(f, "{d}"),
            Self::Never => f.write_str("never"),
        }
    }
}

impl Resolved {
    /// Layer `flags` over `config` over the defaults. `cwd` is the project directory when
    /// there is no config.
    #[must_use]
    pub fn resolve(flags: &Layer, config: Option<&Config>, cwd: &Path) -> Self {
        let project = config.map_or_else(|| cwd.to_path_buf(), |c| c.project().to_path_buf());
        fn file<T>(v: Option<&Valued<T>>) -> Option<(&T, u32)> {
            v.map(|v| (&v.value, v.line))
        }
        let c = config;
        let first_party_default = crate::origin::FirstParty::project(&project).globs;
        let expires_in = pick(
            flags.expires_in.as_ref(),
            file(c.and_then(|c| c.expires_in.as_ref())),
            Expiry::default(),
        );
        let owner = match (&flags.owner, c.and_then(|c| c.owner.as_ref())) {
            (None, None) => Setting {
                value: None,
                origin: Origin::Default,
            },
            (f, v) => {
                let s = pick(f.as_ref(), file(v), String::new());
                Setting {
                    value: Some(s.value),
                    origin: s.origin,
                }
            }
        };
        Self {
            valgrind: pick(
                flags.valgrind.as_ref(),
                file(c.and_then(|c| c.valgrind.as_ref())),
                Version::default(),
            ),
            suppressions: pick(
                flags.suppressions.as_ref(),
                file(c.and_then(|c| c.suppressions.as_ref())),
                DEFAULT_SUPPRESSIONS
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            ),
            first_party: pick(
                flags.first_party.as_ref(),
                file(c.and_then(|c| c.first_party.as_ref())),
                first_party_default,
            ),
            owner,
            expires_in,
            required: pick(
                flags.required.as_ref(),
                file(c.and_then(|c| c.required.as_ref())),
                vec![Field::Reason],
            ),
            expiring_within: pick(
                flags.expiring_within.as_ref(),
                file(c.and_then(|c| c.expiring_within.as_ref())),
                DEFAULT_EXPIRING_WITHIN,
            ),
            gate: GateSettings::resolve(flags, c),
            severities: c.map(|c| c.severities.clone()).unwrap_or_default(),
            profiles: c
                .map(|c| c.profiles.iter().map(|p| p.value.clone()).collect())
                .unwrap_or_default(),
            config: c.map(|c| c.path.clone()),
            project,
        }
    }

    /// One line per setting: `name = value (from …)`, for `-v`.
    #[must_use]
    pub fn describe(&self) -> Vec<String> {
        let from = |o: &Origin| match (o, &self.config) {
            (Origin::Flag, _) => "flag".to_owned(),
            (Origin::Config(line), Some(p)) => format!("{}:{line}", p.display()),
            (Origin::Config(line), None) => format!("config line {line}"),
            (Origin::Default, _) => "default".to_owned(),
        };
        let list = |v: &[String]| v.join(", ");
        let fields = |v: &[Field]| v.iter().map(|f| f.key()).collect::<Vec<_>>().join(", ");
        vec![
            format!(
                "valgrind = {} ({})",
                self.valgrind.value,
                from(&self.valgrind.origin)
            ),
            format!(
                "suppressions = {} ({})",
                list(&self.suppressions.value),
                from(&self.suppressions.origin)
            ),
            format!(
                "first-party = {} ({})",
                list(&self.first_party.value),
                from(&self.first_party.origin)
            ),
            format!(
                "owner = {} ({})",
                self.owner.value.as_deref().unwrap_or("none"),
                from(&self.owner.origin)
            ),
            format!(
                "expires-in = {} ({})",
                match self.expires_in.value {
                    Expiry::Days(d) => format!("{d} days"),
                    Expiry::Never => "never".to_owned(),
                },
                from(&self.expires_in.origin)
            ),
            format!(
                "sidecar.required = {} ({})",
                fields(&self.required.value),
                from(&self.required.origin)
            ),
            format!(
                "sidecar.expiring-within = {} days ({})",
                self.expiring_within.value,
                from(&self.expiring_within.origin)
            ),
            format!(
                "gate.suppressions = {} ({})",
                paths(&self.gate.suppressions.value),
                from(&self.gate.suppressions.origin)
            ),
            format!(
                "gate.fail-on = {} ({})",
                if self.gate.fail_on.value.is_empty() {
                    "the default: every kind but still-reachable leaks".to_owned()
                } else {
                    list(&self.gate.fail_on.value)
                },
                from(&self.gate.fail_on.origin)
            ),
            format!(
                "gate.baseline = {} ({})",
                paths(self.gate.baseline.value.as_slice()),
                from(&self.gate.baseline.origin)
            ),
            format!(
                "gate.source-root = {} ({})",
                self.gate.source_root.value.as_ref().map_or_else(
                    || "the repository's root".to_owned(),
                    |p| p.display().to_string()
                ),
                from(&self.gate.source_root.origin)
            ),
            format!(
                "gate.allow-incomplete = {} ({})",
                self.gate.allow_incomplete.value,
                from(&self.gate.allow_incomplete.origin)
            ),
        ]
    }
}

/// `a, b`, or `none`.
fn paths(v: &[PathBuf]) -> String {
    if v.is_empty() {
        return "none".to_owned();
    }
    v.iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl GateSettings {
    /// The flags over the config's `gate:` (its paths joined to the project directory:
    /// [`Config::layer`]).
    fn resolve(flags: &Layer, config: Option<&Config>) -> Self {
        let layer = config.map(Config::layer).unwrap_or_default();
        let g = config.map(|c| &c.gate);
        // The config's value (as its layer resolved it) with the line it is on.
        fn at<'a, T, U>(value: Option<&'a T>, written: Option<&Valued<U>>) -> Option<(&'a T, u32)> {
            value.zip(written.map(|v| v.line))
        }
        let optional = |s: Setting<PathBuf>| Setting {
            value: (s.origin != Origin::Default).then_some(s.value),
            origin: s.origin,
        };
        Self {
            suppressions: pick(
                flags.gate_suppressions.as_ref(),
                at(
                    layer.gate_suppressions.as_ref(),
                    g.and_then(|g| g.suppressions.as_ref()),
                ),
                Vec::new(),
            ),
            fail_on: pick(
                flags.fail_on.as_ref(),
                at(layer.fail_on.as_ref(), g.and_then(|g| g.fail_on.as_ref())),
                Vec::new(),
            ),
            baseline: optional(pick(
                flags.baseline.as_ref(),
                at(layer.baseline.as_ref(), g.and_then(|g| g.baseline.as_ref())),
                PathBuf::new(),
            )),
            source_root: optional(pick(
                flags.source_root.as_ref(),
                at(
                    layer.source_root.as_ref(),
                    g.and_then(|g| g.source_root.as_ref()),
                ),
                PathBuf::new(),
            )),
            allow_incomplete: pick(
                flags.allow_incomplete.as_ref(),
                at(
                    layer.allow_incomplete.as_ref(),
                    g.and_then(|g| g.allow_incomplete.as_ref()),
                ),
                false,
            ),
        }
    }
}

/// The flag's value, else the file's (with its line), else the default.
fn pick<T: Clone>(flag: Option<&T>, file: Option<(&T, u32)>, default: T) -> Setting<T> {
    match (flag, file) {
        (Some(v), _) => Setting {
            value: v.clone(),
            origin: Origin::Flag,
        },
        (None, Some((v, line))) => Setting {
            value: v.clone(),
            origin: Origin::Config(line),
        },
        (None, None) => Setting {
            value: default,
            origin: Origin::Default,
        },
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag => f.write_str("flag"),
            Self::Config(line) => write!(f, "config line {line}"),
            Self::Default => f.write_str("default"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_beats_config_beats_default() {
        let src = "valgrind: \"3.19\"\nsuppressions: [\"*.vgsupp\"]\nowner: \"@team\"\nsidecar:\n  expiring-within: 30\n";
        let mut config = decode(src.as_bytes(), Path::new("/p/vgsupp.yaml")).expect("reads");
        config.path = PathBuf::from("/p/vgsupp.yaml");
        let flags = Layer {
            valgrind: "3.22".parse().ok(),
            ..Layer::default()
        };
        let r = Resolved::resolve(&flags, Some(&config), Path::new("/elsewhere"));
        assert_eq!(r.valgrind.value.to_string(), "3.22");
        assert_eq!(r.valgrind.origin, Origin::Flag);
        assert_eq!(r.suppressions.value, ["*.vgsupp"]);
        assert_eq!(r.suppressions.origin, Origin::Config(2));
        assert_eq!(r.owner.value.as_deref(), Some("@team"));
        assert_eq!(r.expiring_within.value, 30);
        assert_eq!(r.expiring_within.origin, Origin::Config(5));
        assert_eq!(r.expires_in.value, Expiry::Days(DEFAULT_EXPIRES_IN));
        assert_eq!(r.expires_in.origin, Origin::Default);
        assert_eq!(r.required.value, [Field::Reason]);
        assert_eq!(r.required.origin, Origin::Default);
        assert_eq!(r.project, PathBuf::from("/p"));
        assert_eq!(r.first_party.value, ["/p/**"]);
        assert!(r.describe()[0].starts_with("valgrind = 3.22 (flag)"));
        assert_eq!(
            r.describe()[1],
            "suppressions = *.vgsupp (/p/vgsupp.yaml:2)"
        );

        assert_eq!(r.profiles, []);

        let none = Resolved::resolve(&Layer::default(), None, Path::new("/w[1]"));
        assert_eq!(none.valgrind.value, Version::default());
        assert_eq!(none.suppressions.value, DEFAULT_SUPPRESSIONS);
        assert_eq!(none.first_party.value, ["/w[[]1[]]/**"]);
        assert_eq!(none.config, None);
    }

    #[test]
    fn gate_paths_are_the_projects_and_flags_win() {
        let src = "gate:\n  suppressions: [ci/a.supp, \"profile:system\", /abs/b.supp]\n  baseline: base.yaml\n  fail-on: [definite]\n";
        let config = decode(src.as_bytes(), Path::new("/p/vgsupp.yaml")).expect("reads");
        let r = Resolved::resolve(&Layer::default(), Some(&config), Path::new("/p/sub"));
        assert_eq!(
            r.gate.suppressions.value,
            [
                PathBuf::from("/p/ci/a.supp"),
                PathBuf::from("profile:system"),
                PathBuf::from("/abs/b.supp")
            ]
        );
        assert_eq!(r.gate.suppressions.origin, Origin::Config(2));
        assert_eq!(r.gate.baseline.value, Some(PathBuf::from("/p/base.yaml")));
        assert_eq!(r.gate.fail_on.value, ["definite"]);
        assert_eq!(r.gate.source_root.value, None);
        assert_eq!(r.gate.source_root.origin, Origin::Default);
        assert!(!r.gate.allow_incomplete.value);
        let flags = Layer {
            gate_suppressions: Some(vec![PathBuf::from("x.supp")]),
            fail_on: Some(vec!["all".into()]),
            allow_incomplete: Some(true),
            ..Layer::default()
        };
        let r = Resolved::resolve(&flags, Some(&config), Path::new("/p"));
        assert_eq!(r.gate.suppressions.value, [PathBuf::from("x.supp")]);
        assert_eq!(r.gate.suppressions.origin, Origin::Flag);
        assert_eq!(r.gate.fail_on.value, ["all"]);
        assert!(r.gate.allow_incomplete.value);
        assert_eq!(r.gate.baseline.origin, Origin::Config(3));
        assert!(
            r.describe()
                .iter()
                .any(|l| l == "gate.fail-on = all (flag)"),
            "{:?}",
            r.describe()
        );
        let none = Resolved::resolve(&Layer::default(), None, Path::new("/w"));
        assert_eq!(none.gate.baseline.value, None);
        assert!(none.gate.suppressions.value.is_empty());
    }

    #[test]
    fn profiles_pass_through_as_plain_data() {
        let src = "profiles:\n  - name: vendor\n    objects: [\"*/libv*.so*\"]\n  - name: tools\n    sources: [\"*/tools/*\"]\n";
        let config = decode(src.as_bytes(), Path::new("vgsupp.yaml")).expect("reads");
        assert_eq!(config.project(), Path::new("."), "a bare file name is here");
        let r = Resolved::resolve(&Layer::default(), Some(&config), Path::new("/w"));
        assert_eq!(
            r.profiles,
            [
                Profile {
                    name: "vendor".into(),
                    objects: vec!["*/libv*.so*".into()],
                    sources: Vec::new(),
                    functions: Vec::new(),
                },
                Profile {
                    name: "tools".into(),
                    objects: Vec::new(),
                    sources: vec!["*/tools/*".into()],
                    functions: Vec::new(),
                },
            ]
        );
        assert_eq!(config.profiles[1].line, 4);
    }
}
