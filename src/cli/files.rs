//! Finding suppression files: explicit files as given, directories walked.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use globset::{Glob, GlobSet, GlobSetBuilder};
use vgsupp::matcher::RuleFile;

/// Where distributions install Valgrind's default.supp.
pub const DEFAULT_SUPP: [&str; 3] = [
    "/usr/libexec/valgrind/default.supp",
    "/usr/lib/valgrind/default.supp",
    "/usr/local/libexec/valgrind/default.supp",
];

/// File names taken from directories when no `--glob` is given.
pub const DEFAULT_GLOBS: [&str; 2] = ["*.supp", "*.sup"];

/// Directory names never walked into.
const SKIP_DIRS: [&str; 3] = [".git", "target", "node_modules"];

/// The files to process, in a deterministic order (explicit paths first in the order given,
/// each directory's files sorted). Duplicates are dropped.
pub fn collect(paths: &[PathBuf], globs: &[String]) -> Result<Vec<PathBuf>> {
    walk(paths, globs, false)
}

/// [`collect`], and with `skip_hidden` not walking into (or taking) entries whose names
/// start with `.` below the paths given.
fn walk(paths: &[PathBuf], globs: &[String], skip_hidden: bool) -> Result<Vec<PathBuf>> {
    let set = glob_set(globs)?;
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        let meta =
            std::fs::metadata(path).with_context(|| format!("cannot read `{}`", path.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            let walker = walkdir::WalkDir::new(path)
                .follow_links(false)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| {
                    let name = e.file_name().to_str();
                    e.depth() == 0
                        || !((e.file_type().is_dir()
                            && name.is_some_and(|n| SKIP_DIRS.contains(&n)))
                            || (skip_hidden
                                && e.file_name().as_encoded_bytes().first() == Some(&b'.')))
                });
            for entry in walker {
                let entry = entry.with_context(|| format!("cannot walk `{}`", path.display()))?;
                if entry.file_type().is_file() && set.is_match(Path::new(entry.file_name())) {
                    found.push(entry.into_path());
                }
            }
            out.extend(found);
        } else if meta.is_file() {
            out.push(path.clone());
        } else {
            bail!("`{}` is neither a file nor a directory", path.display());
        }
    }
    // The same file named twice (`run.log ./run.log`, or a directory and a log in it, or a
    // link to it) is read once: twice would double every count and every rule's hits.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    Ok(out)
}

/// The suppression files `-s` values name, in the order given: files and directories as
/// [`collect`] takes them, and `profile:NAME` for a pack compiled into the binary
/// ([`vgsupp::packs`]). Returns each one's path (a pack's is `profile:NAME`, which names no
/// file on disk) beside its loaded bytes, index for index.
pub fn rule_files(args: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<RuleFile>)> {
    let mut paths = Vec::new();
    let mut loaded = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for arg in args {
        if let Some(pack) = arg.to_str().and_then(vgsupp::packs::resolve) {
            let pack = pack?;
            let path = PathBuf::from(format!("{}{}", vgsupp::packs::PREFIX, pack.name));
            if seen.insert(path.clone()) {
                loaded.push(RuleFile {
                    path: path.to_string_lossy().into_owned(),
                    source: pack.supp.to_vec(),
                });
                paths.push(path);
            }
            continue;
        }
        let found = collect(std::slice::from_ref(arg), &[])?;
        if found.is_empty() {
            // Only a directory can hold none: a file given is always taken.
            bail!(
                "`{}`: no suppression files in this directory (files named {})",
                arg.display(),
                DEFAULT_GLOBS.join(", ")
            );
        }
        for path in found {
            if seen.insert(path.clone()) {
                loaded.push(RuleFile {
                    path: display(&path),
                    source: read(&path)?,
                });
                paths.push(path);
            }
        }
    }
    Ok((paths, loaded))
}

/// File names taken as logs from directories: what Valgrind logs are usually called
/// (`--log-file=x.log`, `--xml-file=x.xml`, CI artifacts `*.txt`, `*.out`), plain or
/// gzip-compressed.
pub const LOG_GLOBS: [&str; 8] = [
    "*.log", "*.txt", "*.xml", "*.out", "*.log.gz", "*.txt.gz", "*.xml.gz", "*.out.gz",
];

/// Log files: explicit paths are always read, whatever their name; directories are walked
/// (sorted) for files named like logs ([`LOG_GLOBS`]), skipping hidden entries (`.git`,
/// `.cache`, `.x.log`) and the directories [`collect`] skips. Only the names decide: a
/// directory of test artifacts holds sources, binaries and archives too, and reading those
/// as logs would give warnings or nothing.
///
/// A directory that holds no log is an error naming it: a run over nothing would pass
/// silently.
pub fn collect_logs(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let globs: Vec<String> = LOG_GLOBS.iter().map(|g| (*g).to_owned()).collect();
    if paths.is_empty() {
        return walk(paths, &globs, true);
    }
    let mut out = Vec::new();
    for path in paths {
        let found = walk(std::slice::from_ref(path), &globs, true)?;
        if found.is_empty() {
            bail!(
                "`{}`: no logs in this directory (files named {}; give a log's path to read it \
                 whatever its name)",
                path.display(),
                LOG_GLOBS.join(", ")
            );
        }
        out.extend(found);
    }
    // The same file named twice (`run.log ./run.log`, or a directory and a log in it, or a
    // link to it) is read once: twice would double every count and every rule's hits.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    Ok(out)
}

fn glob_set(globs: &[String]) -> Result<GlobSet> {
    let mut b = GlobSetBuilder::new();
    if globs.is_empty() {
        for g in DEFAULT_GLOBS {
            b.add(Glob::new(g)?);
        }
    }
    for g in globs {
        b.add(Glob::new(g).with_context(|| format!("invalid --glob `{g}`"))?);
    }
    Ok(b.build()?)
}

/// How a path is shown in output: as given, with `./` dropped.
pub fn display(path: &Path) -> String {
    let s = path.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_owned()
}

/// Read a file's bytes, naming it on failure.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))
}

/// Replace `path`'s contents atomically: write a temporary file beside the real target
/// (symlinks are followed, so the link stays a link), give it the original permissions,
/// flush it to disk and rename it over the target.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let target = std::fs::canonicalize(path)
        .with_context(|| format!("cannot resolve `{}`", path.display()))?;
    let dir = target.parent().context("file has no parent directory")?;
    let perms = std::fs::metadata(&target)
        .with_context(|| format!("cannot stat `{}`", path.display()))?
        .permissions();
    let mut tmp = tempfile::Builder::new()
        .prefix(".vgsupp-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in `{}`", dir.display()))?;
    tmp.write_all(contents)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("cannot sync `{}`", path.display()))?;
    std::fs::set_permissions(tmp.path(), perms)
        .with_context(|| format!("cannot set permissions on `{}`", path.display()))?;
    tmp.persist(&target)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace `{}`", path.display()))?;
    Ok(())
}

/// A unified diff (3 lines of context) of a file's change (`fmt`, `prune`); bytes that are not UTF-8 are
/// shown lossily.
pub fn unified_diff(name: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let (a, b) = if name.starts_with('/') {
        (name.to_owned(), name.to_owned())
    } else {
        (format!("a/{name}"), format!("b/{name}"))
    };
    let mut s = diff
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, rel: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, b"==1== x\n").expect("write");
    }

    fn names(dir: &Path, found: &[PathBuf]) -> Vec<String> {
        found
            .iter()
            .map(|p| {
                p.strip_prefix(dir)
                    .expect("under dir")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn logs_from_directories_by_name_without_hidden_entries() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path();
        for f in [
            "a.log",
            "b.xml",
            "c.txt.gz",
            "sub/d.out",
            "sub/e.log.gz",
            // not logs by name
            "notes.md",
            "prog.c",
            "archive.tar.gz",
            "core",
            // hidden: never walked into or taken
            ".hidden.log",
            ".git/objects/x.log",
            ".cache/y.xml",
            "sub/.z.txt",
            // skipped directories, as for suppression files
            "target/t.log",
        ] {
            touch(d, f);
        }
        let found = collect_logs(&[d.to_path_buf()]).expect("walk");
        assert_eq!(
            names(d, &found),
            ["a.log", "b.xml", "c.txt.gz", "sub/d.out", "sub/e.log.gz"]
        );
    }

    #[test]
    fn a_directory_without_logs_or_rules_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path();
        touch(d, "notes.md");
        touch(d, "sub/prog.c");
        let err = collect_logs(&[d.to_path_buf()]).expect_err("no logs");
        let msg = format!("{err:#}");
        assert!(
            msg.starts_with(&format!("`{}`: no logs in this directory", d.display())),
            "{msg}"
        );
        let err = rule_files(&[d.to_path_buf()]).expect_err("no rules");
        let msg = format!("{err:#}");
        assert!(
            msg.starts_with(&format!("`{}`: no suppression files", d.display())),
            "{msg}"
        );
        // With a log (or a rule file) in it, or given beside one, nothing changes: only the
        // empty directory fails.
        touch(d, "a.log");
        assert_eq!(collect_logs(&[d.to_path_buf()]).expect("walk").len(), 1);
        let empty = d.join("empty");
        std::fs::create_dir(&empty).expect("mkdir");
        let err = collect_logs(&[d.join("a.log"), empty.clone()]).expect_err("empty dir");
        assert!(format!("{err:#}").contains(&empty.display().to_string()));
        std::fs::write(d.join("r.supp"), b"").expect("write");
        assert_eq!(rule_files(&[d.to_path_buf()]).expect("rules").0.len(), 1);
    }

    #[test]
    fn explicit_log_paths_are_always_read() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path();
        touch(d, ".hidden.log");
        touch(d, "core");
        touch(d, ".dir/in-hidden.log");
        let given = [d.join(".hidden.log"), d.join("core"), d.join(".dir")];
        let found = collect_logs(&given).expect("walk");
        // A hidden directory given by name is walked (its own name is the user's choice).
        assert_eq!(
            names(d, &found),
            [".hidden.log", "core", ".dir/in-hidden.log"]
        );
    }

    #[test]
    fn suppression_walk_keeps_hidden_files() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path();
        touch(d, ".valgrind.supp");
        touch(d, "x/y.supp");
        touch(d, ".git/z.supp");
        let found = collect(&[d.to_path_buf()], &[]).expect("walk");
        assert_eq!(names(d, &found), [".valgrind.supp", "x/y.supp"]);
    }
}
