//! Sidecar files: where they are, reading them, and writing them atomically.
//!
//! A write goes to a temporary file in the target's directory, which is flushed to disk and
//! renamed over the target, so a reader sees the old file or the new one, never a part. An
//! existing file keeps its permissions (a new one gets the process's defaults). A path that
//! lies in the project but resolves outside it through a symlink is refused: a checked-out
//! repository must not be able to make vgsupp overwrite `~/.bashrc` (PRODUCT.md §8).

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
/// I/O errors, and [`StoreError::OutsideProject`].
pub fn write_atomic(path: &Path, contents: &[u8], project: &Path) -> Result<(), StoreError> {
    let target = resolve(path)?;
    check_inside(path, &target, project)?;
    let dir = target.parent().unwrap_or_else(|| Path::new("/"));
    let perms = fs::metadata(&target).ok().map(|m| m.permissions());
    let (tmp_path, mut tmp) = temp_file(dir, &target)?;
    let written = (|| {
        tmp.write_all(contents)?;
        tmp.sync_all()?;
        if let Some(p) = perms {
            fs::set_permissions(&tmp_path, p)?;
        }
        drop(tmp);
        fs::rename(&tmp_path, &target)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(io_err(path)(e));
    }
    // The rename is durable once the directory is; not every file system lets a directory
    // be synced, and the data is already safe, so a failure here is not an error.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Where a write to `path` lands: the file a symlink chain ends at, or the path itself
/// (with its directory resolved) when there is no file yet.
fn resolve(path: &Path) -> Result<PathBuf, StoreError> {
    match fs::symlink_metadata(path) {
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
fn temp_file(dir: &Path, target: &Path) -> Result<(PathBuf, fs::File), StoreError> {
    let base = target
        .file_name()
        .map_or_else(|| "sidecar".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    let mut last = None;
    for n in 0..100 {
        let p = dir.join(format!(".{base}.vgsupp-{pid}-{n}.tmp"));
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
