//! What `gen` calls to record the provenance of the rules it wrote: one call reads the
//! sidecar next to `OUT.supp` (if there is one), merges the generated rules into it
//! ([`super::merge()`]: same name → `generated.from` merged by log hash, earliest
//! `created`, fields people set kept) and writes it back atomically ([`super::store`]).
//! [`load`] and [`Loaded`] are the same in steps, for a caller that must know the sidecar
//! reads before it writes anything, and writes the sidecar together with its suppression
//! file ([`super::store::commit`]).
//!
//! ```no_run
//! use std::path::Path;
//! use vgsupp::date::Date;
//! use vgsupp::sidecar::{self, Generated, GeneratedRule, Source};
//!
//! # fn main() -> Result<(), sidecar::store::StoreError> {
//! let supp = Path::new("out.supp");
//! let written = std::fs::read(supp).unwrap_or_default();
//! let mut from = Source::new("ci/run.log", "9f86d081884c7d65…");
//! from.valgrind = Some("3.19.0".into());
//! from.errors = Some(3);
//! let mut generated = Generated::new("vgsupp 0.1.0 gen --style anchored");
//! generated.from.push(from);
//! generated.environment.push(("libcuda".into(), "535.104.05".into()));
//! let rules = sidecar::fingerprint::by_name(&written)
//!     .into_iter()
//!     .map(|(name, fingerprint)| GeneratedRule {
//!         name,
//!         fingerprint,
//!         origin: "cuda-driver".into(),
//!         reason: "libcuda passes ioctl buffers that the kernel fills".into(),
//!         owner: Some("@ml-infra".into()),
//!         created: Date::new(2026, 11, 30).expect("a date"),
//!         expires: Date::new(2027, 2, 28),
//!         generated: generated.clone(),
//!     });
//! let done = sidecar::append(supp, rules, Path::new("."))?;
//! println!("{}: {} added, {} merged", done.path.display(), done.merged.added, done.merged.updated);
//! # Ok(())
//! # }
//! ```

use std::path::{Path, PathBuf};

use crate::date::Date;

use super::merge::{Merged, merge};
use super::store::{self, StoreError};
use super::{Generated, Problem, RuleEntry, Sidecar};

/// One rule `gen` wrote, and its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedRule {
    /// The rule's name (its record's name line).
    pub name: String,
    /// The fingerprint of the record as written ([`super::fingerprint::by_name`] of the
    /// file's bytes, or [`super::fingerprint()`] of the record).
    pub fingerprint: String,
    /// The origin profile (`cuda-driver`, …).
    pub origin: String,
    /// Why the rule exists (per origin and kind).
    pub reason: String,
    /// Who answers for it (`--owner`, `owner:` of vgsupp.yaml), if anyone.
    pub owner: Option<String>,
    /// Today.
    pub created: Date,
    /// When to look at it again (`--expires-in`, `expires-in:` of vgsupp.yaml), if set.
    pub expires: Option<Date>,
    /// How it was made: the command, the logs (with their SHA-256), the environment.
    pub generated: Generated,
}

impl From<GeneratedRule> for RuleEntry {
    fn from(g: GeneratedRule) -> Self {
        Self {
            fingerprint: Some(g.fingerprint),
            origin: Some(g.origin),
            reason: Some(g.reason),
            owner: g.owner,
            created: Some(g.created),
            expires: g.expires,
            generated: Some(g.generated),
            ..Self::new(&g.name)
        }
    }
}

/// What [`append`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The sidecar written (`OUT.supp.yaml`).
    pub path: PathBuf,
    /// Rules added and merged.
    pub merged: Merged,
    /// Values of the existing sidecar that do not fit the schema: kept as written, and
    /// worth a warning (`vgsupp check` reports them as VS408).
    pub problems: Vec<Problem>,
}

/// A sidecar read before a merge: the file, and what it holds (an empty sidecar when there
/// is no file yet). Reading it first lets a caller refuse a sidecar it could not rewrite
/// before it writes anything else (the suppression file it describes).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The sidecar's path.
    pub path: PathBuf,
    /// What it holds.
    pub sidecar: Sidecar,
    /// Values that do not fit the schema: kept as written, worth a warning.
    pub problems: Vec<Problem>,
    /// Whether the file exists.
    pub exists: bool,
}

/// Read the sidecar at `path` (not the suppression file's path: see
/// [`store::path_for`]) for a merge.
///
/// # Errors
/// It cannot be read, is not YAML vgsupp accepts, or has another schema version (it could
/// not be written back).
pub fn load(path: &Path) -> Result<Loaded, StoreError> {
    match store::read(path)? {
        Some(d) if d.sidecar.version != super::VERSION => Err(StoreError::Encode {
            path: path.to_path_buf(),
            error: super::EncodeError::UnknownVersion(d.sidecar.version),
        }),
        Some(d) => Ok(Loaded {
            path: path.to_path_buf(),
            sidecar: d.sidecar,
            problems: d.problems,
            exists: true,
        }),
        None => Ok(Loaded {
            path: path.to_path_buf(),
            sidecar: Sidecar::new(),
            problems: Vec::new(),
            exists: false,
        }),
    }
}

impl Loaded {
    /// Merge `rules` in ([`super::merge()`]).
    pub fn merge(&mut self, rules: impl IntoIterator<Item = GeneratedRule>) -> Merged {
        merge(&mut self.sidecar, rules.into_iter().map(RuleEntry::from))
    }

    /// The text to write.
    ///
    /// # Errors
    /// When the sidecar cannot be encoded (another schema version).
    pub fn encode(&self) -> Result<String, StoreError> {
        super::encode(&self.sidecar).map_err(|error| StoreError::Encode {
            path: self.path.clone(),
            error,
        })
    }
}

/// Record `rules` in the sidecar of the suppression file `supp` (`supp` + `.yaml`):
/// create it, or merge into the one there, and write it atomically. `project` is the
/// project directory: a sidecar inside it that resolves outside through a symlink is
/// refused.
///
/// # Errors
/// The existing sidecar cannot be read, is not YAML vgsupp accepts, or has another
/// schema version (nothing is written then); the write fails or is refused.
pub fn append(
    supp: &Path,
    rules: impl IntoIterator<Item = GeneratedRule>,
    project: &Path,
) -> Result<Appended, StoreError> {
    let mut loaded = load(&store::path_for(supp))?;
    let merged = loaded.merge(rules);
    store::save(&loaded.path, &loaded.sidecar, project)?;
    Ok(Appended {
        path: loaded.path,
        merged,
        problems: loaded.problems,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::sidecar::{Source, decode, fingerprint};

    const SUPP: &str = "{\n   cuda-driver.Param.ioctl.cuInit\n   Memcheck:Param\n   ioctl(generic)\n   obj:*/libcuda.so*\n   ...\n   fun:cuInit\n}\n\n{\n   python.Leak.PyObject_Malloc\n   Memcheck:Leak\n   match-leak-kinds: possible\n   fun:malloc\n   fun:PyObject_Malloc\n}\n";

    fn day(d: u8) -> Date {
        Date::new(2026, 12, d).expect("a date")
    }

    fn source(log: &str, sha: &str, errors: u64) -> Source {
        let mut s = Source::new(log, sha);
        s.valgrind = Some("3.19.0".into());
        s.command = Some("python test_ext.py".into());
        s.errors = Some(errors);
        s
    }

    /// What `gen` would pass for the rules of [`SUPP`], from one log.
    fn generated(on: Date, log: &str, sha: &str) -> Vec<GeneratedRule> {
        fingerprint::by_name(SUPP.as_bytes())
            .into_iter()
            .map(|(name, fingerprint)| {
                let mut g = Generated::new("vgsupp 0.1.0 gen --style anchored");
                g.from.push(source(log, sha, 3));
                g.environment.push(("python".into(), "3.11".into()));
                GeneratedRule {
                    origin: name.split('.').next().unwrap_or_default().to_owned(),
                    reason: format!("generated reason for {name}"),
                    name,
                    fingerprint,
                    owner: Some("@ml-infra".into()),
                    created: on,
                    expires: Some(Date::new(2027, 3, 1).expect("a date")),
                    generated: g,
                }
            })
            .collect()
    }

    #[test]
    fn creates_then_merges_keeping_what_people_edited() {
        let tmp = tempfile::tempdir().expect("tmp");
        let supp = tmp.path().join("out.supp");
        fs::write(&supp, SUPP).expect("write");

        let done = append(&supp, generated(day(1), "a.log", "aa"), tmp.path()).expect("append");
        assert_eq!(done.path, tmp.path().join("out.supp.yaml"));
        assert_eq!((done.merged.added, done.merged.updated), (2, 0));
        let text = fs::read_to_string(&done.path).expect("read");
        let first = decode(text.as_bytes()).expect("decodes");
        assert_eq!(first.problems, []);
        assert_eq!(first.sidecar.rules.len(), 2);
        let fp = fingerprint::by_name(SUPP.as_bytes());
        assert_eq!(first.sidecar.rules[0].fingerprint.as_ref(), Some(&fp[0].1));

        // A person edits the file: a comment, the second rule's owner, an unknown key.
        let py = text
            .find("  python.Leak.PyObject_Malloc:\n")
            .expect("second rule");
        let (cuda, python) = text.split_at(py);
        let edited = format!(
            "{cuda}  # reviewed with the CPython team\n{}",
            python
                .replacen(":\n", ":\n    ticket-note: see PY-12\n", 1)
                .replace("owner: \"@ml-infra\"", "owner: \"@python-team\"")
        );
        fs::write(&done.path, &edited).expect("edit");

        // gen again: the same log (by hash, under another path), a new one, a day later.
        let mut again = generated(day(2), "elsewhere/a.log", "aa");
        for r in &mut again {
            r.generated.from.push(source("b.log", "bb", 5));
            r.reason = "a newer generated reason".into();
        }
        let done = append(&supp, again, tmp.path()).expect("append");
        assert_eq!((done.merged.added, done.merged.updated), (0, 2));
        let text = fs::read_to_string(&done.path).expect("read");
        let second = decode(text.as_bytes()).expect("decodes").sidecar;
        let py = second.rule("python.Leak.PyObject_Malloc").expect("rule");
        assert_eq!(py.owner.as_deref(), Some("@python-team"), "edited: kept");
        assert_eq!(
            py.reason.as_deref(),
            Some("generated reason for python.Leak.PyObject_Malloc"),
            "set: kept"
        );
        assert_eq!(py.created, Some(day(1)), "the earliest");
        let from: Vec<(Option<&str>, Option<&str>)> = py
            .generated
            .as_ref()
            .expect("generated")
            .from
            .iter()
            .map(|s| (s.log.as_deref(), s.sha256.as_deref()))
            .collect();
        assert_eq!(
            from,
            [(Some("a.log"), Some("aa")), (Some("b.log"), Some("bb"))]
        );
        assert!(
            text.contains("  # reviewed with the CPython team\n  python.Leak.PyObject_Malloc:\n    ticket-note: see PY-12\n"),
            "comments and unknown keys stay:\n{text}"
        );

        // Appending the same again changes no byte.
        let mut same = generated(day(2), "elsewhere/a.log", "aa");
        for r in &mut same {
            r.generated.from.push(source("b.log", "bb", 5));
        }
        append(&supp, same, tmp.path()).expect("append");
        assert_eq!(fs::read_to_string(&done.path).expect("read"), text);
    }

    #[test]
    fn an_absolute_source_path_gives_way_to_a_relative_one() {
        let tmp = tempfile::tempdir().expect("tmp");
        let supp = tmp.path().join("out.supp");
        fs::write(&supp, SUPP).expect("write");
        let logs = |supp: &Path| -> Vec<Vec<String>> {
            let loaded = load(&store::path_for(supp)).expect("load");
            loaded
                .sidecar
                .rules
                .iter()
                .map(|r| {
                    let g = r.generated.as_ref().expect("generated");
                    g.from.iter().filter_map(|s| s.log.clone()).collect()
                })
                .collect()
        };
        append(
            &supp,
            generated(day(1), "/home/ci/logs/a.log", "aa"),
            tmp.path(),
        )
        .expect("a");
        append(&supp, generated(day(2), "../logs/a.log", "aa"), tmp.path()).expect("b");
        assert_eq!(logs(&supp), [["../logs/a.log"], ["../logs/a.log"]]);
        // A relative path stays what it was (the same log, found under another name).
        append(
            &supp,
            generated(day(3), "elsewhere/a.log", "aa"),
            tmp.path(),
        )
        .expect("c");
        assert_eq!(logs(&supp), [["../logs/a.log"], ["../logs/a.log"]]);
    }

    #[test]
    fn load_refuses_another_version_and_reads_nothing_as_empty() {
        let tmp = tempfile::tempdir().expect("tmp");
        let side = tmp.path().join("x.supp.yaml");
        let none = load(&side).expect("absent");
        assert!(!none.exists && none.sidecar.rules.is_empty());
        assert_eq!(none.encode().expect("encodes"), "version: 1\n");
        fs::write(&side, "version: 3\n").expect("write");
        assert!(matches!(load(&side), Err(StoreError::Encode { .. })));
    }

    #[test]
    fn refuses_what_it_cannot_read_and_writes_nothing() {
        let tmp = tempfile::tempdir().expect("tmp");
        let supp = tmp.path().join("out.supp");
        let side = tmp.path().join("out.supp.yaml");
        for bad in [
            "version: 1\nrules:\n  a: &x {}\n  b: *x\n",
            "version: 1\nrules: [\n",
            "version: 2\nrules: {}\n",
        ] {
            fs::write(&side, bad).expect("write");
            let err =
                append(&supp, generated(day(1), "a.log", "aa"), tmp.path()).expect_err("refused");
            assert!(
                matches!(err, StoreError::Decode { .. } | StoreError::Encode { .. }),
                "{err}"
            );
            assert_eq!(fs::read_to_string(&side).expect("read"), bad);
        }
    }

    #[test]
    #[cfg(unix)]
    fn keeps_permissions_and_refuses_a_symlink_out_of_the_project() {
        use std::os::unix::fs::{PermissionsExt as _, symlink};
        let tmp = tempfile::tempdir().expect("tmp");
        let project = tmp.path().join("proj");
        fs::create_dir_all(&project).expect("mkdir");
        let supp = project.join("out.supp");
        append(&supp, generated(day(1), "a.log", "aa"), &project).expect("append");
        let side = store::path_for(&supp);
        fs::set_permissions(&side, fs::Permissions::from_mode(0o600)).expect("chmod");
        append(&supp, generated(day(2), "b.log", "bb"), &project).expect("append");
        let mode = fs::metadata(&side).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);

        let victim = tmp.path().join("victim.yaml");
        fs::write(&victim, "version: 1\n").expect("write");
        let other = project.join("other.supp");
        symlink(&victim, store::path_for(&other)).expect("symlink");
        let err = append(&other, generated(day(1), "a.log", "aa"), &project).expect_err("refused");
        assert!(matches!(err, StoreError::OutsideProject { .. }), "{err}");
        assert_eq!(fs::read_to_string(&victim).expect("read"), "version: 1\n");
    }
}
