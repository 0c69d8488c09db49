//! Finding suppression files: explicit files as given, directories walked.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use globset::{Glob, GlobSet, GlobSetBuilder};

/// File names taken from directories when no `--glob` is given.
pub const DEFAULT_GLOBS: [&str; 2] = ["*.supp", "*.sup"];

/// Directory names never walked into.
const SKIP_DIRS: [&str; 3] = [".git", "target", "node_modules"];

/// The files to process, in a deterministic order (explicit paths first in the order given,
/// each directory's files sorted). Duplicates are dropped.
pub fn collect(paths: &[PathBuf], globs: &[String]) -> Result<Vec<PathBuf>> {
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
                    e.depth() == 0
                        || !(e.file_type().is_dir()
                            && e.file_name()
                                .to_str()
                                .is_some_and(|n| SKIP_DIRS.contains(&n)))
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
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    Ok(out)
}

/// Log files: explicit files as given; directories walked for every regular file (sorted),
/// skipping hidden directories.
pub fn collect_logs(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    collect(paths, &["*".to_owned()])
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
