//! Path globs as users write them: the rules of `.gitignore`, ripgrep's `--glob` and fd's
//! `--glob --full-path`, on the object and source paths a Valgrind log shows.
//!
//! * A glob **without `/`** matches the last path component: an object's file name
//!   (`libmy_ext.so*`, `*my_ext*`) or a source file's name (`helpers.c`, `*.cpp`). This is
//!   the one form that decides a frame a text log prints as `fn (helpers.c:13)`: such a log
//!   shows only the file's name.
//! * A glob **with `/`** matches the whole path, or a directory above it (`/opt/vendor`
//!   matches everything under `/opt/vendor/`): `*` and `?` stay within one component, `**`
//!   spans any number of them.
//!   - It is **absolute** when it starts with `/`, and matches **anywhere** when it starts
//!     with `**/` (`**/site-packages/nvidia/**`).
//!   - Any other glob with `/` is **relative to the project directory** (where `vgsupp.yaml`
//!     is, else the working directory): `src/**`, `build/lib*.so`, `../common/**`.
//!   - A trailing `/` names a directory and everything under it: `/opt/vendor/` is
//!     `/opt/vendor/**`; a name with only a trailing `/` (`build/`) is a directory of that
//!     name anywhere (`**/build/**`), as in `.gitignore`.
//! * `{a,b}` alternates, `[…]` is a class, `\` escapes.
//!
//! Against a source file that a log prints by name only (text logs), a glob with `/` can
//! decide only when it starts with `**/` and has no other `/` (`**/my_ext*.c`): otherwise
//! where the file lies is not shown, and the answer is undecided ([`Truth::Unknown`]).

use std::borrow::Cow;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::matcher::Truth;

/// Why a glob list cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum GlobError {
    /// A glob does not compile.
    #[error("invalid glob `{glob}` in {what}: {}", .source.kind())]
    Invalid {
        /// The glob, as given.
        glob: String,
        /// Where it came from (`--first-party`, `profile NAME`).
        what: String,
        /// The cause.
        #[source]
        source: globset::Error,
    },
    /// A relative glob where there is no directory to resolve it from.
    #[error(
        "glob `{glob}` in {what} is relative (it has a `/` but starts with neither `/` nor `**/`), and there is no project directory to resolve it from"
    )]
    Relative {
        /// The glob, as given.
        glob: String,
        /// Where it came from.
        what: String,
    },
}

/// What kind of glob a user wrote (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobForm {
    /// No `/`: the last path component.
    Name,
    /// Starts with `/`.
    Absolute,
    /// Starts with `**/`.
    Anywhere,
    /// Has a `/`, resolved from the project directory.
    Relative,
}

/// The form of `glob` (a trailing `/` aside).
#[must_use]
pub fn form(glob: &str) -> GlobForm {
    let g = glob.strip_suffix('/').unwrap_or(glob);
    if !g.contains('/') {
        GlobForm::Name
    } else if g.starts_with('/') {
        GlobForm::Absolute
    } else if g.starts_with("**/") {
        GlobForm::Anywhere
    } else {
        GlobForm::Relative
    }
}

/// A list of path globs, compiled (see the module documentation).
#[derive(Debug, Clone)]
pub struct PathGlobs {
    /// The globs as given.
    given: Vec<String>,
    /// Slash-free globs, on the last component.
    names: GlobSet,
    /// Globs with `/`, made absolute (or `**/…`), on the whole path and its directories.
    paths: GlobSet,
    /// For each `**/NAME` glob (`NAME` without `/`), `NAME`: what decides a bare file name.
    tails: Vec<GlobMatcher>,
    /// Some glob with `/` cannot decide a bare file name.
    undecided_by_name: bool,
}

fn compile_one(glob: &str, given: &str, what: &str) -> Result<globset::Glob, GlobError> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|source| GlobError::Invalid {
            glob: given.to_owned(),
            what: what.to_owned(),
            source,
        })
}

/// `project` + `/` + `rel`, with `./` and leading `../` components resolved lexically.
fn join(project: &Path, rel: &str) -> String {
    let mut base: Vec<String> = project
        .to_string_lossy()
        .split('/')
        .filter(|c| !c.is_empty())
        .map(globset::escape)
        .collect();
    let mut rest = rel;
    loop {
        if let Some(r) = rest.strip_prefix("./") {
            rest = r;
        } else if let Some(r) = rest.strip_prefix("../") {
            base.pop();
            rest = r;
        } else {
            break;
        }
    }
    let mut out = String::new();
    for c in &base {
        out.push('/');
        out.push_str(c);
    }
    out.push('/');
    out.push_str(rest);
    out
}

/// `abs` with its literal leading directories (those before the first component with a
/// glob character) replaced by their real path, when that differs: `/tmp/link/**` →
/// `/tmp/real dir/**`. `None` when the directory does not exist here or has no link in it.
/// `dir`: `abs` names a directory (the glob ended in `/`), so its last component is
/// resolved too.
fn real_prefix(abs: &str, dir: bool) -> Option<String> {
    if !abs.starts_with('/') {
        return None;
    }
    let comps: Vec<&str> = abs.split('/').collect();
    let literal = comps
        .iter()
        .position(|c| c.contains(['*', '?', '[', '{', '\\']))
        .unwrap_or(comps.len());
    // Else the last component may name a file; only directories are resolved.
    let literal = if dir {
        literal
    } else {
        literal.min(comps.len() - 1)
    };
    if literal <= 1 {
        return None;
    }
    let prefix = comps[..literal].join("/");
    let real = std::fs::canonicalize(&prefix).ok()?;
    let real = real.to_str()?;
    if real == prefix {
        return None;
    }
    let mut out = globset::escape(real);
    for c in &comps[literal..] {
        out.push('/');
        out.push_str(c);
    }
    Some(out)
}

/// A path as globset sees it (bytes on Unix: object paths need not be UTF-8).
fn as_path(bytes: &[u8]) -> Cow<'_, Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        Cow::Borrowed(Path::new(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        Cow::Owned(std::path::PathBuf::from(
            String::from_utf8_lossy(bytes).into_owned(),
        ))
    }
}

/// The last component of a path.
#[must_use]
pub fn last_component(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

impl PathGlobs {
    /// No globs: matches nothing.
    #[must_use]
    pub fn empty() -> Self {
        Self {
            given: Vec::new(),
            names: GlobSet::empty(),
            paths: GlobSet::empty(),
            tails: Vec::new(),
            undecided_by_name: false,
        }
    }

    /// Compile `globs`, resolving relative ones from `project` (`None`: a relative glob is
    /// an error). `what` names them in errors (`--first-party`, `profile vendor`).
    ///
    /// # Errors
    /// When a glob does not compile, or is relative without a project directory.
    pub fn new<S: AsRef<str>>(
        globs: &[S],
        project: Option<&Path>,
        what: &str,
    ) -> Result<Self, GlobError> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let mut tails = Vec::new();
        let mut undecided_by_name = false;
        for given in globs {
            let given = given.as_ref();
            let dir = given.ends_with('/') && given.len() > 1;
            let body = if dir {
                &given[..given.len() - 1]
            } else {
                given
            };
            match form(given) {
                GlobForm::Name if dir => {
                    // `build/`: a directory of that name anywhere.
                    let g = format!("**/{body}/**");
                    paths.add(compile_one(&g, given, what)?);
                    undecided_by_name = true;
                }
                GlobForm::Name => {
                    names.add(compile_one(body, given, what)?);
                }
                f => {
                    let abs = match f {
                        GlobForm::Relative => match project {
                            Some(p) => join(p, body),
                            None => {
                                return Err(GlobError::Relative {
                                    glob: given.to_owned(),
                                    what: what.to_owned(),
                                });
                            }
                        },
                        _ => body.to_owned(),
                    };
                    // Valgrind prints the paths the loader opened with links resolved:
                    // a glob under a symlinked directory (`/home/me/link/**`) also means
                    // that directory's real path.
                    if let Some(real) = real_prefix(&abs, dir) {
                        let g = if dir { format!("{real}/**") } else { real };
                        paths.add(compile_one(&g, given, what)?);
                    }
                    let g = if dir { format!("{abs}/**") } else { abs };
                    paths.add(compile_one(&g, given, what)?);
                    match g.strip_prefix("**/") {
                        Some(tail) if !tail.contains('/') => {
                            tails.push(compile_one(tail, given, what)?.compile_matcher());
                        }
                        _ => undecided_by_name = true,
                    }
                }
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|source| GlobError::Invalid {
                glob: globs
                    .iter()
                    .map(AsRef::as_ref)
                    .collect::<Vec<_>>()
                    .join(", "),
                what: what.to_owned(),
                source,
            })
        };
        Ok(Self {
            given: globs.iter().map(|g| g.as_ref().to_owned()).collect(),
            names: build(names)?,
            paths: build(paths)?,
            tails,
            undecided_by_name,
        })
    }

    /// The globs as given.
    #[must_use]
    pub fn given(&self) -> &[String] {
        &self.given
    }

    /// Whether there are no globs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.given.is_empty()
    }

    /// Whether a path (as the log prints it: an object's full path, a source's directory
    /// and file joined) matches: by its last component, or the whole path or one of its
    /// directories.
    #[must_use]
    pub fn matches_path(&self, path: &[u8]) -> bool {
        if self.names.is_match(as_path(last_component(path))) {
            return true;
        }
        if self.paths.is_empty() {
            return false;
        }
        if self.paths.is_match(as_path(path)) {
            return true;
        }
        // A directory above it (`/opt/vendor` matches `/opt/vendor/lib/x.so`).
        path.iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'/' && i > 0)
            .any(|(i, _)| self.paths.is_match(as_path(&path[..i])))
    }

    /// Whether a source file matches: `dir` as the log gives it (XML `<dir>`), `file` as
    /// printed. Decided when the full path is known (an absolute `dir`, or a `file`
    /// printed with an absolute path), and for a bare name by the slash-free and `**/NAME`
    /// globs; otherwise a glob with `/` leaves it undecided.
    #[must_use]
    pub fn matches_source(&self, dir: Option<&[u8]>, file: &[u8]) -> Truth {
        if file.starts_with(b"/") {
            return Truth::of(self.matches_path(file));
        }
        if let Some(d) = dir.filter(|d| d.starts_with(b"/")) {
            let mut full = d.to_vec();
            if !full.ends_with(b"/") {
                full.push(b'/');
            }
            full.extend_from_slice(file);
            return Truth::of(self.matches_path(&full));
        }
        // Where the file lies is not shown (text logs; a relative `<dir>` of a build tree).
        let name = last_component(file);
        if self.names.is_match(as_path(name))
            || self.tails.iter().any(|t| t.is_match(as_path(name)))
        {
            return Truth::Yes;
        }
        if self.undecided_by_name {
            Truth::Unknown
        } else {
            Truth::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(globs: &[&str]) -> PathGlobs {
        PathGlobs::new(globs, Some(Path::new("/home/me/proj")), "test").expect("compiles")
    }

    #[test]
    fn slash_free_globs_match_the_last_component() {
        let fp = g(&["*leaky_ext*"]);
        assert!(fp.matches_path(
            b"/home/dev/leaky_ext/build/lib/leaky_ext.cpython-311-x86_64-linux-gnu.so"
        ));
        assert!(!fp.matches_path(b"/home/dev/leaky_ext/venv/lib/libtorch_cpu.so"));
        assert_eq!(fp.matches_source(None, b"leaky_ext.cpp"), Truth::Yes);
        assert_eq!(fp.matches_source(None, b"ceval.c"), Truth::No);
        let lib = g(&["libmy_ext.so"]);
        assert!(lib.matches_path(b"/x/build/libmy_ext.so"));
        assert!(!lib.matches_path(b"/x/build/libmy_ext.so.1"));
    }

    #[test]
    fn globs_with_a_slash_match_the_whole_path() {
        let abs = g(&["/opt/vendor/*.so"]);
        assert!(abs.matches_path(b"/opt/vendor/libv.so"));
        assert!(
            !abs.matches_path(b"/opt/vendor/sub/libv.so"),
            "* stays in a component"
        );
        let deep = g(&["/opt/vendor/**"]);
        assert!(deep.matches_path(b"/opt/vendor/sub/libv.so"));
        // A directory matches everything under it.
        let dir = g(&["/opt/vendor"]);
        assert!(dir.matches_path(b"/opt/vendor/sub/libv.so"));
        assert!(!dir.matches_path(b"/opt/vendors/libv.so"));
        let anywhere = g(&["**/site-packages/nvidia/**"]);
        assert!(
            anywhere.matches_path(b"/h/venv/lib/python3.11/site-packages/nvidia/cu13/lib/x.so")
        );
        // Relative: from the project directory.
        let rel = g(&["build/*.so"]);
        assert!(rel.matches_path(b"/home/me/proj/build/libx.so"));
        assert!(!rel.matches_path(b"/elsewhere/build/libx.so"));
        let up = g(&["../common/**"]);
        assert!(up.matches_path(b"/home/me/common/a.c"));
        let dot = g(&["./src/**"]);
        assert!(dot.matches_path(b"/home/me/proj/src/a/b.c"));
        // `*/x*` is relative too: one directory below the project.
        let star = g(&["*/leaky_ext*"]);
        assert!(star.matches_path(b"/home/me/proj/src/leaky_ext.cpp"));
        assert!(!star.matches_path(b"/home/dev/leaky_ext/leaky_ext.cpp"));
    }

    #[test]
    fn globs_under_a_symlinked_directory_match_its_real_path() {
        let dir = tempfile::tempdir().expect("tmp");
        let real = dir.path().join("my proj");
        std::fs::create_dir_all(real.join("plugins")).expect("mkdir");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let real = std::fs::canonicalize(&real).expect("real");
        let lib = format!("{}/plugins/libplug.so", real.display());
        for glob in [
            format!("{}/**", link.display()),
            format!("{}/", link.display()),
            format!("{}/plugins/lib*.so", link.display()),
        ] {
            let g = PathGlobs::new(&[glob.as_str()], None, "--first-party").expect("globs");
            assert!(g.matches_path(lib.as_bytes()), "{glob}");
            assert!(!g.matches_path(b"/usr/lib/libc.so.6"), "{glob}");
        }
    }

    #[test]
    fn trailing_slashes_name_directories() {
        let d = g(&["/opt/vendor/"]);
        assert!(d.matches_path(b"/opt/vendor/a/b.so"));
        let named = g(&["build/"]);
        assert!(named.matches_path(b"/anything/build/lib/x.so"));
        assert!(!named.matches_path(b"/anything/builder/x.so"));
        assert_eq!(named.matches_source(None, b"x.c"), Truth::Unknown);
    }

    #[test]
    fn bare_source_names_are_decided_only_by_names() {
        let dir = g(&["src/**"]);
        assert_eq!(dir.matches_source(None, b"helpers.c"), Truth::Unknown);
        assert_eq!(
            dir.matches_source(Some(b"/home/me/proj/src"), b"helpers.c"),
            Truth::Yes
        );
        assert_eq!(
            dir.matches_source(Some(b"/usr/include"), b"stdio.h"),
            Truth::No
        );
        assert_eq!(
            dir.matches_source(None, b"/home/me/proj/src/x.c"),
            Truth::Yes
        );
        let tail = g(&["**/my_ext*.c"]);
        assert_eq!(tail.matches_source(None, b"my_ext_main.c"), Truth::Yes);
        assert_eq!(tail.matches_source(None, b"other.c"), Truth::No);
        // A relative `<dir>` (a build tree's) does not place the file either.
        assert_eq!(
            dir.matches_source(Some(b"./elf/./elf"), b"dl-open.c"),
            Truth::Unknown
        );
    }

    #[test]
    fn errors_name_the_glob() {
        let e = PathGlobs::new(&["a["], None, "--first-party").expect_err("invalid");
        assert!(e.to_string().contains("`a[`") && e.to_string().contains("--first-party"));
        let e = PathGlobs::new(&["src/*"], None, "profile x").expect_err("relative");
        assert!(e.to_string().contains("relative"), "{e}");
        assert!(PathGlobs::new(&["/abs/*", "name*", "**/x/*"], None, "p").is_ok());
    }

    #[test]
    fn forms() {
        assert_eq!(form("*.so"), GlobForm::Name);
        assert_eq!(form("build/"), GlobForm::Name);
        assert_eq!(form("/opt/*"), GlobForm::Absolute);
        assert_eq!(form("**/x/*"), GlobForm::Anywhere);
        assert_eq!(form("src/*"), GlobForm::Relative);
        assert_eq!(form("*/x*"), GlobForm::Relative);
    }
}
