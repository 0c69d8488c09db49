//! Sidecar files: where they are, reading them, and writing them atomically.
//!
//! A write goes to a temporary file in the target's directory, which is flushed to disk and
//! renamed over the target, so a reader sees the old file or the new one, never a part. An
//! existing file keeps its permissions (a new one gets the process's defaults). Only a
//! regular file is replaced: a FIFO, a device, a socket or a directory at the path is
//! refused, never turned into a file. A path that lies in the project but resolves outside
//! it through a symlink is refused: a checked-out repository must not be able to make
//! vgsupp overwrite `~/.bashrc` (PRODUCT.md §8). Files that belong together (a suppression
//! file and its sidecar) are [`Staged`] first and [`commit`]ted together: both land, or
//! neither.

use std::ffi::OsString;
use std::fs::{self, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use super::Sidecar;
use super::decode::{Decoded, SidecarError, decode};
use super::encode::{EncodeError, encode};

/// What can go wrong reading or writing a sidecar file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file system said no.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file is not a sidecar vgsupp can read.
    #[error("{path}: {error}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why (with the line).
        error: SidecarError,
    },
    /// The model cannot be written.
    #[error("{path}: {error}")]
    Encode {
        /// The file.
        path: PathBuf,
        /// Why.
        error: EncodeError,
    },
    /// Something other than a regular file is there (vgsupp replaces only files).
    #[error("{path} is {what}; vgsupp writes only regular files")]
    NotRegular {
        /// The path given.
        path: PathBuf,
        /// What is there (`a FIFO`, `a directory`, …).
        what: String,
    },
    /// A rename failed, and a file renamed before it could not be put back.
    #[error(
        "{path}: {source}; and {} could not be put back{}",
        kept_paths(kept),
        kept_backups(kept)
    )]
    NotRestored {
        /// The file whose rename failed.
        path: PathBuf,
        /// Why.
        source: io::Error,
        /// Each file left with its new contents, and where its old contents are (none
        /// for a file that did not exist before).
        kept: Vec<(PathBuf, Option<PathBuf>)>,
    },
    /// The path lies in the project but resolves outside it.
    #[error("{path}: refusing to write through a symlink to {target}, outside the project {root}")]
    OutsideProject {
        /// The path given.
        path: PathBuf,
        /// Where it resolves.
        target: PathBuf,
        /// The project directory.
        root: PathBuf,
    },
}

fn kept_paths(kept: &[(PathBuf, Option<PathBuf>)]) -> String {
    let names: Vec<String> = kept.iter().map(|(p, _)| p.display().to_string()).collect();
    names.join(", ")
}

fn kept_backups(kept: &[(PathBuf, Option<PathBuf>)]) -> String {
    let saved: Vec<String> = kept
        .iter()
        .filter_map(|(p, b)| {
            b.as_ref()
                .map(|b| format!("{} holds the old {}", b.display(), p.display()))
        })
        .collect();
    if saved.is_empty() {
        String::new()
    } else {
        format!(" ({})", saved.join("; "))
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The sidecar of a suppression file: `NAME.supp` → `NAME.supp.yaml`.
#[must_use]
pub fn path_for(supp: &Path) -> PathBuf {
    let mut s = OsString::from(supp.as_os_str());
    s.push(".yaml");
    PathBuf::from(s)
}

/// The SHA-256 (hex) of the file at `path`, read in blocks: the key by which a rule's
/// sources (`generated.from[].sha256`) are told apart.
///
/// # Errors
/// When the file cannot be read.
pub fn sha256_file(path: &Path) -> Result<String, StoreError> {
    use sha2::{Digest as _, Sha256};
    use std::io::Read as _;
    let mut file = fs::File::open(path).map_err(io_err(path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0_u8; 1 << 20];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(path)(e)),
        };
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Read the sidecar at `path`; `None` when there is no file.
///
/// # Errors
/// When it cannot be read or is not a sidecar vgsupp can read.
pub fn read(path: &Path) -> Result<Option<Decoded>, StoreError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path)(e)),
    };
    decode(&bytes)
        .map(Some)
        .map_err(|error| StoreError::Decode {
            path: path.to_path_buf(),
            error,
        })
}

/// Encode `sidecar` and write it to `path` atomically (see [`write_atomic`]).
///
/// # Errors
/// When it cannot be encoded or written.
pub fn save(path: &Path, sidecar: &Sidecar, project: &Path) -> Result<(), StoreError> {
    let text = encode(sidecar).map_err(|error| StoreError::Encode {
        path: path.to_path_buf(),
        error,
    })?;
    write_atomic(path, text.as_bytes(), project)
}

/// Replace (or create) `path` with `contents` atomically, keeping an existing file's
/// permissions and following a symlink at `path` unless it leads out of `project`.
///
/// # Errors
/// I/O errors, [`StoreError::OutsideProject`] and [`StoreError::NotRegular`].
pub fn write_atomic(path: &Path, contents: &[u8], project: &Path) -> Result<(), StoreError> {
    commit(vec![Staged::new(path, contents, project)?])
}

/// Where a write to `path` lands, checked: the file a symlink chain ends at, or the path
/// itself (its directory resolved) when there is no file yet. What is there must be a
/// regular file; a path in `project` must not resolve outside it.
///
/// # Errors
/// [`StoreError::NotRegular`] for a directory, a FIFO, a socket, a device or a symlink to
/// nothing; [`StoreError::OutsideProject`]; I/O errors (a missing directory).
pub fn target(path: &Path, project: &Path) -> Result<PathBuf, StoreError> {
    let target = resolve(path)?;
    check_inside(path, &target, project)?;
    match fs::metadata(&target) {
        Ok(m) if !m.is_file() => Err(StoreError::NotRegular {
            path: path.to_path_buf(),
            what: kind_name(&m.file_type()).to_owned(),
        }),
        Ok(_) => Ok(target),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(target),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// What a file type is, in words (for a refusal).
fn kind_name(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// A file's new contents, written and flushed to a temporary file beside its target,
/// ready for [`commit`]. Dropped uncommitted, the temporary file is removed.
#[derive(Debug)]
pub struct Staged {
    /// The path as given (for messages).
    path: PathBuf,
    /// Where it lands ([`target`]).
    target: PathBuf,
    /// The temporary file, until it is renamed.
    tmp: Option<PathBuf>,
}

impl Staged {
    /// Write `contents` for `path` (checked as [`target`] does) to a temporary file in
    /// the target's directory, with the existing file's permissions, flushed to disk.
    ///
    /// # Errors
    /// As [`target`]; I/O errors.
    pub fn new(path: &Path, contents: &[u8], project: &Path) -> Result<Self, StoreError> {
        let target = target(path, project)?;
        let dir = parent_dir(&target);
        let perms = fs::metadata(&target).ok().map(|m| m.permissions());
        let (tmp_path, mut tmp) = temp_file(dir, &target, "tmp")?;
        let staged = Self {
            path: path.to_path_buf(),
            target,
            tmp: Some(tmp_path),
        };
        let written = (|| {
            tmp.write_all(contents)?;
            if let Some(p) = perms {
                tmp.set_permissions(p)?;
            }
            tmp.sync_all()
        })();
        written.map_err(io_err(path))?;
        Ok(staged)
    }

    /// Where it lands (symlinks followed).
    #[must_use]
    pub fn target(&self) -> &Path {
        &self.target
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(t) = self.tmp.take() {
            let _ = fs::remove_file(t);
        }
    }
}

/// Rename staged files over their targets, in order, all or none: before the first
/// rename, every target that exists except the last is kept in a backup (a hard link, or
/// a copy where the file system has none); when a rename fails, the files already renamed
/// are put back (from their backups; a file that did not exist is removed), so a
/// suppression file and its sidecar never disagree. Each single rename is atomic.
///
/// # Errors
/// The failed rename's I/O error; [`StoreError::NotRestored`] when putting a file back
/// failed too (the message says where its old contents are).
pub fn commit(files: Vec<Staged>) -> Result<(), StoreError> {
    commit_with(files, None)
}

/// [`commit`], with rename number `fail_at` (0-based) failing as if the file system
/// refused it: how tests check that a failure restores what was renamed before.
///
/// # Errors
/// Always at `fail_at` when there is such a file; else as [`commit`].
#[doc(hidden)]
pub fn commit_failing_at(files: Vec<Staged>, fail_at: usize) -> Result<(), StoreError> {
    commit_with(files, Some(fail_at))
}

fn commit_with(mut files: Vec<Staged>, fail_at: Option<usize>) -> Result<(), StoreError> {
    let last = files.len().saturating_sub(1);
    let mut backups: Vec<Option<PathBuf>> = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let exists = fs::symlink_metadata(&f.target).is_ok();
        let backup = if i < last && exists {
            match backup(&f.target) {
                Ok(b) => Some(b),
                Err(e) => {
                    for b in backups.iter().flatten() {
                        let _ = fs::remove_file(b);
                    }
                    return Err(e);
                }
            }
        } else {
            None
        };
        backups.push(backup);
    }
    for i in 0..files.len() {
        let renamed = match (fail_at, files[i].tmp.as_ref()) {
            (Some(n), _) if n == i => Err(io::Error::other("rename refused (injected failure)")),
            (_, Some(tmp)) => fs::rename(tmp, &files[i].target),
            (_, None) => Ok(()),
        };
        if let Err(source) = renamed {
            let mut kept = Vec::new();
            for j in (0..i).rev() {
                let put_back = match backups[j].take() {
                    Some(b) => fs::rename(&b, &files[j].target).map_err(|_| Some(b)),
                    None => fs::remove_file(&files[j].target).map_err(|_| None),
                };
                if let Err(b) = put_back {
                    kept.push((files[j].target.clone(), b));
                }
            }
            for b in backups.iter().flatten() {
                let _ = fs::remove_file(b);
            }
            let path = files[i].path.clone();
            return Err(if kept.is_empty() {
                StoreError::Io { path, source }
            } else {
                StoreError::NotRestored { path, source, kept }
            });
        }
        files[i].tmp = None;
    }
    for b in backups.iter().flatten() {
        let _ = fs::remove_file(b);
    }
    // A rename is durable once its directory is; not every file system lets a directory
    // be synced, and the data is already safe, so a failure here is not an error.
    let mut dirs: Vec<&Path> = files.iter().map(|f| parent_dir(&f.target)).collect();
    dirs.dedup();
    for d in dirs {
        if let Ok(d) = fs::File::open(d) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// A backup of `target` beside it: a hard link (the old contents stay reachable after the
/// rename replaces the name), else a flushed copy with its permissions.
fn backup(target: &Path) -> Result<PathBuf, StoreError> {
    let dir = parent_dir(target);
    let base = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    for n in 0..100 {
        let b = dir.join(format!(".{base}.vgsupp-{pid}-{n}.bak"));
        match fs::hard_link(target, &b) {
            Ok(()) => return Ok(b),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(_) => {
                let (b, mut copy) = temp_file(dir, target, "bak")?;
                let copied = (|| {
                    let mut from = fs::File::open(target)?;
                    io::copy(&mut from, &mut copy)?;
                    copy.set_permissions(from.metadata()?.permissions())?;
                    copy.sync_all()
                })();
                if let Err(e) = copied {
                    let _ = fs::remove_file(&b);
                    return Err(io_err(target)(e));
                }
                return Ok(b);
            }
        }
    }
    Err(io_err(target)(io::Error::other("no backup name left")))
}

/// The directory a file is in (`/` for a bare root).
fn parent_dir(target: &Path) -> &Path {
    target.parent().unwrap_or_else(|| Path::new("/"))
}

/// `path` relative to the directory `base`, both absolute and free of `.`/`..`
/// (`/p/logs/run.log` from `/p/ci` is `../logs/run.log`); `None` when they share no root
/// (another drive), where only the absolute path names the file.
#[must_use]
pub fn relative_to(path: &Path, base: &Path) -> Option<PathBuf> {
    let (mut p, mut b) = (path.components().peekable(), base.components().peekable());
    match (p.peek(), b.peek()) {
        (Some(x), Some(y)) if x == y => {}
        _ => return None,
    }
    while let (Some(x), Some(y)) = (p.peek(), b.peek()) {
        if x != y {
            break;
        }
        p.next();
        b.next();
    }
    let mut out = PathBuf::new();
    for _ in b {
        out.push("..");
    }
    for c in p {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

/// Where a write to `path` lands: the file a symlink chain ends at, or the path itself
/// (with its directory resolved) when there is no file yet.
fn resolve(path: &Path) -> Result<PathBuf, StoreError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() && fs::metadata(path).is_err() => {
            let to = fs::read_link(path).unwrap_or_default();
            Err(StoreError::NotRegular {
                path: path.to_path_buf(),
                what: format!("a symlink to `{}`, which does not exist", to.display()),
            })
        }
        Ok(_) => fs::canonicalize(path).map_err(io_err(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let name = path.file_name().ok_or_else(|| {
                io_err(path)(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a file name",
                ))
            })?;
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            Ok(fs::canonicalize(parent).map_err(io_err(path))?.join(name))
        }
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Refuse a path that is in the project as written but resolves outside it. A path given
/// outside the project is the user's explicit choice and is not checked.
fn check_inside(path: &Path, target: &Path, project: &Path) -> Result<(), StoreError> {
    let root = fs::canonicalize(project).map_err(io_err(project))?;
    let lexical = lexical_absolute(path).map_err(io_err(path))?;
    let project_lexical = lexical_absolute(project).map_err(io_err(project))?;
    let in_project = lexical.starts_with(&root) || lexical.starts_with(&project_lexical);
    if in_project && !target.starts_with(&root) {
        return Err(StoreError::OutsideProject {
            path: path.to_path_buf(),
            target: target.to_path_buf(),
            root,
        });
    }
    Ok(())
}

/// `path` made absolute and `.`/`..` removed without looking at the file system.
fn lexical_absolute(path: &Path) -> io::Result<PathBuf> {
    let abs = std::path::absolute(path)?;
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Ok(out)
}

/// A new file beside `target`, named after it, created exclusively.
fn temp_file(dir: &Path, target: &Path, ext: &str) -> Result<(PathBuf, fs::File), StoreError> {
    let base = target
        .file_name()
        .map_or_else(|| "sidecar".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    let mut last = None;
    for n in 0..100 {
        let p = dir.join(format!(".{base}.vgsupp-{pid}-{n}.{ext}"));
        match OpenOptions::new().write(true).create_new(true).open(&p) {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(io_err(target)(e)),
        }
    }
    Err(io_err(target)(last.unwrap_or_else(|| {
        io::Error::other("no temporary name left")
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_path() {
        assert_eq!(
            path_for(Path::new("a/b.supp")),
            PathBuf::from("a/b.supp.yaml")
        );
    }

    #[test]
    #[cfg(unix)]
    fn atomic_write_keeps_permissions_and_refuses_symlinks_out() {
        use std::os::unix::fs::{PermissionsExt as _, symlink};
        let tmp = tempfile::tempdir().expect("tmp");
        let project = tmp.path().join("proj");
        let outside = tmp.path().join("outside");
        fs::create_dir_all(project.join("sub")).expect("mkdir");
        fs::create_dir_all(&outside).expect("mkdir");

        let f = project.join("a.supp.yaml");
        write_atomic(&f, b"version: 1\n", &project).expect("new file");
        assert_eq!(fs::read(&f).expect("read"), b"version: 1\n");
        fs::set_permissions(&f, fs::Permissions::from_mode(0o640)).expect("chmod");
        write_atomic(&f, b"version: 1\nrules: {}\n", &project).expect("replace");
        assert_eq!(
            fs::metadata(&f).expect("stat").permissions().mode() & 0o777,
            0o640
        );

        // A link inside the project is followed; the link stays a link.
        let link = project.join("sub/l.supp.yaml");
        symlink(&f, &link).expect("symlink");
        write_atomic(&link, b"x: 1\n", &project).expect("through an inner link");
        assert!(
            fs::symlink_metadata(&link)
                .expect("lstat")
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&f).expect("read"), b"x: 1\n");

        // A link (or a linked directory) out of the project is refused; nothing is written.
        let victim = outside.join("bashrc");
        fs::write(&victim, b"keep").expect("write");
        let evil = project.join("evil.supp.yaml");
        symlink(&victim, &evil).expect("symlink");
        let err = write_atomic(&evil, b"x", &project).expect_err("refused");
        assert!(matches!(err, StoreError::OutsideProject { .. }), "{err}");
        symlink(&outside, project.join("out")).expect("symlink dir");
        let err =
            write_atomic(&project.join("out/new.supp.yaml"), b"x", &project).expect_err("refused");
        assert!(matches!(err, StoreError::OutsideProject { .. }), "{err}");
        assert_eq!(fs::read(&victim).expect("read"), b"keep");
        assert!(!outside.join("new.supp.yaml").exists());

        // A path given outside the project is the user's choice.
        write_atomic(&outside.join("explicit.supp.yaml"), b"y", &project).expect("explicit");
        // No temporary files are left behind.
        let left: Vec<_> = fs::read_dir(&project)
            .expect("ls")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty());
    }

    #[test]
    #[cfg(unix)]
    fn only_regular_files_are_targets() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().expect("tmp");
        let p = tmp.path();
        fs::create_dir(p.join("dir")).expect("mkdir");
        let fifo = p.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        symlink(p.join("nowhere"), p.join("dangling")).expect("symlink");
        for (name, what) in [
            ("dir", "a directory"),
            ("fifo", "a FIFO"),
            ("dangling", "a symlink to"),
        ] {
            let err = target(&p.join(name), p).expect_err(name);
            assert!(
                matches!(&err, StoreError::NotRegular { what: w, .. } if w.starts_with(what)),
                "{name}: {err}"
            );
            let err = write_atomic(&p.join(name), b"x", p).expect_err(name);
            assert!(matches!(err, StoreError::NotRegular { .. }), "{err}");
        }
        let err = target(Path::new("/dev/null"), p).expect_err("device");
        assert!(err.to_string().contains("a character device"), "{err}");
        use std::os::unix::fs::FileTypeExt as _;
        let still = fs::symlink_metadata(&fifo).expect("lstat").file_type();
        assert!(still.is_fifo(), "the FIFO is left alone");
        assert_eq!(
            target(&p.join("new"), p).expect("new"),
            fs::canonicalize(p).expect("c").join("new")
        );
    }

    #[test]
    fn a_failed_second_rename_puts_the_first_file_back() {
        let tmp = tempfile::tempdir().expect("tmp");
        let p = tmp.path();
        let (a, b, c) = (p.join("a.supp"), p.join("a.supp.yaml"), p.join("new.supp"));
        fs::write(&a, b"old a").expect("write");
        fs::write(&b, b"old b").expect("write");
        let stage = |path: &Path, text: &[u8]| Staged::new(path, text, p).expect("staged");

        let err = commit_failing_at(vec![stage(&a, b"new a"), stage(&b, b"new b")], 1)
            .expect_err("injected");
        assert!(matches!(err, StoreError::Io { .. }), "{err}");
        assert_eq!(fs::read(&a).expect("a"), b"old a");
        assert_eq!(fs::read(&b).expect("b"), b"old b");
        // A file that did not exist is removed again.
        commit_failing_at(vec![stage(&c, b"new c"), stage(&b, b"new b")], 1).expect_err("x");
        assert!(!c.exists());
        // Nothing is left behind: no temporary files, no backups.
        let mut left: Vec<String> = fs::read_dir(p)
            .expect("ls")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        left.sort();
        assert_eq!(left, ["a.supp", "a.supp.yaml"]);

        commit(vec![stage(&a, b"new a"), stage(&b, b"new b")]).expect("both");
        assert_eq!(fs::read(&a).expect("a"), b"new a");
        assert_eq!(fs::read(&b).expect("b"), b"new b");
        // A staged file dropped uncommitted leaves nothing.
        drop(stage(&c, b"never"));
        assert_eq!(fs::read_dir(p).expect("ls").count(), 2);
    }

    #[test]
    fn relative_paths() {
        let rel = |p: &str, b: &str| relative_to(Path::new(p), Path::new(b));
        assert_eq!(
            rel("/p/logs/run.log", "/p/ci"),
            Some(PathBuf::from("../logs/run.log"))
        );
        assert_eq!(
            rel("/p/ci/run.log", "/p/ci"),
            Some(PathBuf::from("run.log"))
        );
        assert_eq!(
            rel("/p/ci/a/b.log", "/p"),
            Some(PathBuf::from("ci/a/b.log"))
        );
        assert_eq!(
            rel("/x/y.log", "/p/q"),
            Some(PathBuf::from("../../x/y.log"))
        );
        assert_eq!(rel("/p", "/p"), Some(PathBuf::from(".")));
        assert_eq!(rel("relative/x", "/p"), None);
    }

    #[test]
    fn sha256_of_a_file() {
        let tmp = tempfile::tempdir().expect("tmp");
        let p = tmp.path().join("run.log");
        fs::write(&p, b"abc").expect("write");
        assert_eq!(
            sha256_file(&p).expect("hash"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(matches!(
            sha256_file(&tmp.path().join("none")),
            Err(StoreError::Io { .. })
        ));
    }

    #[test]
    fn read_names_file_and_line() {
        let tmp = tempfile::tempdir().expect("tmp");
        let p = tmp.path().join("x.supp.yaml");
        assert!(read(&p).expect("absent").is_none());
        fs::write(&p, "version: 1\nrules:\n  a: &x {}\n  b: *x\n").expect("write");
        let err = read(&p).expect_err("alias");
        let shown = err.to_string();
        assert!(shown.ends_with("x.supp.yaml: line 4: aliases (`*name`) are not allowed: vgsupp does not expand them"), "{shown}");
    }
}
