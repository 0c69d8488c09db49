//! Which origin a frame's object or source file belongs to, and whether it is first-party.
//!
//! First-party is what the user declares (`--first-party` globs; the CLI's default is the
//! objects under the current directory). A glob is matched against an object's full path.
//! For a frame that a text log prints with a source line, and so without its object, the
//! glob is matched against the source path instead: the full path when the log gives the
//! directory (XML `<dir>`), and otherwise — a text log shows only the file name — only
//! globs of the form `*/NAME-PATTERN` (or `**/…`) can decide, by their last component:
//! `*/leaky_ext*` declares `leaky_ext.cpp` first-party, `/home/me/proj/*` cannot say
//! anything about a bare `leaky_ext.cpp`.

use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};

use super::profile::{ALLOCATOR, BUILTIN, FIRST_PARTY, Profile, THIRD_PARTY};
use crate::matcher::Truth;

/// An origin, as an index into [`Classifier::origin_name`].
pub type OriginId = u16;

/// [`FIRST_PARTY`]'s id.
pub const FIRST_PARTY_ID: OriginId = 0;
/// [`THIRD_PARTY`]'s id.
pub const THIRD_PARTY_ID: OriginId = 1;
/// [`ALLOCATOR`]'s id.
pub const ALLOCATOR_ID: OriginId = 2;

/// Why a classifier cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    /// A glob does not compile.
    #[error("invalid glob `{glob}` in {what}: {source}")]
    Glob {
        /// The glob.
        glob: String,
        /// Where it came from (`--first-party`, `profile NAME`).
        what: String,
        /// The cause.
        #[source]
        source: globset::Error,
    },
}

struct Compiled {
    origin: OriginId,
    /// From `vgsupp.yaml` (tried first).
    extra: bool,
    objects: GlobSet,
    sources: GlobSet,
    functions: GlobSet,
}

/// What the classifier says about a source path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceClass {
    /// First-party: by a glob that matched (`Yes`), by every glob deciding it does not
    /// (`No`), or undecided (a bare file name and a glob that names directories).
    pub first_party: Truth,
    /// The third-party profile whose source globs match, if any.
    pub origin: Option<OriginId>,
}

/// Origins of objects, source files and function names (see the module documentation).
pub struct Classifier {
    names: Vec<String>,
    first_party: GlobSet,
    /// For each first-party glob of the form `*/TAIL` (`TAIL` without `/`), `TAIL`;
    /// `None` for a glob that cannot decide on a bare file name.
    first_party_tails: Vec<Option<GlobMatcher>>,
    profiles: Vec<Compiled>,
}

fn compile(globs: &[&str], what: &str) -> Result<GlobSet, ClassifyError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(glob(g, what)?);
    }
    b.build().map_err(|source| ClassifyError::Glob {
        glob: globs.join(", "),
        what: what.to_owned(),
        source,
    })
}

fn glob(g: &str, what: &str) -> Result<Glob, ClassifyError> {
    Glob::new(g).map_err(|source| ClassifyError::Glob {
        glob: g.to_owned(),
        what: what.to_owned(),
        source,
    })
}

/// `TAIL` of a glob `*/TAIL` or `**/TAIL` whose `TAIL` has no `/`.
fn tail_of(g: &str) -> Option<&str> {
    let rest = g.strip_prefix("**/").or_else(|| g.strip_prefix("*/"))?;
    (!rest.is_empty() && !rest.contains('/')).then_some(rest)
}

fn text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

impl Classifier {
    /// A classifier for the first-party globs `first_party` and the extra profiles
    /// `extra` (tried before the built-in ones).
    ///
    /// # Errors
    /// When a glob does not compile.
    pub fn new(first_party: &[String], extra: &[Profile]) -> Result<Self, ClassifyError> {
        let fp: Vec<&str> = first_party.iter().map(String::as_str).collect();
        let first_party_set = compile(&fp, "--first-party")?;
        let first_party_tails = fp
            .iter()
            .map(|g| {
                tail_of(g)
                    .map(|t| glob(t, "--first-party").map(|g| g.compile_matcher()))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        let mut names: Vec<String> = vec![FIRST_PARTY.into(), THIRD_PARTY.into(), ALLOCATOR.into()];
        let id_of = |name: &str, names: &mut Vec<String>| -> OriginId {
            match names.iter().position(|n| n == name) {
                Some(i) => OriginId::try_from(i).unwrap_or(THIRD_PARTY_ID),
                None => {
                    names.push(name.to_owned());
                    OriginId::try_from(names.len() - 1).unwrap_or(THIRD_PARTY_ID)
                }
            }
        };
        let mut profiles = Vec::new();
        // The allocator profile first: Valgrind's own objects are never anyone's code.
        let (alloc, rest) = BUILTIN.split_at(1);
        for b in alloc {
            profiles.push(Compiled {
                extra: false,
                origin: id_of(b.name, &mut names),
                objects: compile(b.objects, b.name)?,
                sources: compile(b.sources, b.name)?,
                functions: compile(b.functions, b.name)?,
            });
        }
        for p in extra {
            let what = format!("profile `{}`", p.name);
            let objects: Vec<&str> = p.objects.iter().map(String::as_str).collect();
            let sources: Vec<&str> = p.sources.iter().map(String::as_str).collect();
            profiles.push(Compiled {
                extra: true,
                origin: id_of(&p.name, &mut names),
                objects: compile(&objects, &what)?,
                sources: compile(&sources, &what)?,
                functions: GlobSet::empty(),
            });
        }
        for b in rest {
            profiles.push(Compiled {
                extra: false,
                origin: id_of(b.name, &mut names),
                objects: compile(b.objects, b.name)?,
                sources: compile(b.sources, b.name)?,
                functions: compile(b.functions, b.name)?,
            });
        }
        Ok(Self {
            names,
            first_party: first_party_set,
            first_party_tails,
            profiles,
        })
    }

    /// The name of an origin.
    #[must_use]
    pub fn origin_name(&self, id: OriginId) -> &str {
        self.names
            .get(usize::from(id))
            .map_or(THIRD_PARTY, String::as_str)
    }

    /// Every origin's name, by id.
    #[must_use]
    pub fn origin_names(&self) -> &[String] {
        &self.names
    }

    /// Whether first-party globs were given at all.
    #[must_use]
    pub fn has_first_party(&self) -> bool {
        !self.first_party.is_empty()
    }

    /// The origin of an object (full path): the allocator profile, first-party, a
    /// profile's, or third-party.
    #[must_use]
    pub fn object(&self, path: &[u8]) -> OriginId {
        let s = text(path);
        let s = s.as_ref();
        if let Some(alloc) = self.profiles.first()
            && alloc.objects.is_match(s)
        {
            return alloc.origin;
        }
        if self.first_party.is_match(s) {
            return FIRST_PARTY_ID;
        }
        self.profiles
            .iter()
            .skip(1)
            .find(|p| p.objects.is_match(s))
            .map_or(THIRD_PARTY_ID, |p| p.origin)
    }

    /// Whether an object path is first-party.
    #[must_use]
    pub fn object_is_first_party(&self, path: &[u8]) -> bool {
        self.first_party.is_match(text(path).as_ref())
    }

    /// What a source path says: `dir` when the log gives it, `file` as printed.
    #[must_use]
    pub fn source(&self, dir: Option<&[u8]>, file: &[u8]) -> SourceClass {
        let full = match dir {
            Some(d) if !d.is_empty() => {
                let mut p = text(d).into_owned();
                p.push('/');
                p.push_str(&text(file));
                Some(p)
            }
            _ => None,
        };
        // The user's profiles first; then glibc's file names before CPython's
        // (`dl-object.c` is glibc's, `*object.c` otherwise CPython's).
        let system = self.names.iter().position(|n| n == "system");
        let origin = |path: &str| {
            let by = |p: &&Compiled| p.sources.is_match(path);
            let is_system = |p: &&Compiled| Some(usize::from(p.origin)) == system;
            self.profiles
                .iter()
                .filter(|p| p.extra)
                .find(by)
                .or_else(|| self.profiles.iter().filter(is_system).find(by))
                .or_else(|| self.profiles.iter().find(by))
                .map(|p| p.origin)
        };
        if let Some(path) = full {
            let fp = self.first_party.is_match(path.as_str());
            return SourceClass {
                first_party: Truth::of(fp),
                origin: if fp { None } else { origin(&path) },
            };
        }
        // Only the file name (or a path relative to somewhere unknown): the globs that
        // end in a name pattern decide by the last component.
        let file = text(file);
        let name = file.rsplit('/').next().unwrap_or(&file);
        let mut undecided = false;
        for tail in &self.first_party_tails {
            match tail {
                Some(t) if t.is_match(name) => {
                    return SourceClass {
                        first_party: Truth::Yes,
                        origin: None,
                    };
                }
                Some(_) => {}
                None => undecided = true,
            }
        }
        SourceClass {
            first_party: if undecided { Truth::Unknown } else { Truth::No },
            origin: origin(name),
        }
    }

    /// The built-in origin a function name (mangled, C, or as displayed) suggests, for a
    /// frame whose object the log hides.
    #[must_use]
    pub fn function(&self, name: &[u8]) -> Option<OriginId> {
        let s = text(name);
        self.profiles
            .iter()
            .find(|p| p.functions.is_match(s.as_ref()))
            .map(|p| p.origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cls(fp: &[&str]) -> Classifier {
        Classifier::new(&fp.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), &[])
            .expect("compiles")
    }

    #[test]
    fn objects_of_the_recordings() {
        let c = cls(&["*/leaky_ext*"]);
        let name = |p: &str| c.origin_name(c.object(p.as_bytes())).to_owned();
        assert_eq!(
            name("/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"),
            "allocator"
        );
        assert_eq!(
            name("/home/dev/leaky_ext/build/lib/leaky_ext.cpython-311-x86_64-linux-gnu.so"),
            "first-party"
        );
        assert_eq!(
            name(
                "/home/dev/libcuda-535/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.309.01"
            ),
            "cuda-driver"
        );
        assert_eq!(
            name("/home/dev/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcublasLt.so.13"),
            "cuda-libs"
        );
        assert_eq!(
            name("/home/dev/cu12rt/nvidia/cuda_runtime/lib/libcudart.so.12"),
            "cuda-libs"
        );
        assert_eq!(
            name("/home/dev/venv/lib/python3.11/site-packages/torch/lib/libgomp.so.1"),
            "openmp-blas"
        );
        assert_eq!(
            name("/home/dev/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so"),
            "libtorch"
        );
        assert_eq!(
            name(
                "/home/dev/venv/lib/python3.11/site-packages/torch/_C.cpython-311-x86_64-linux-gnu.so"
            ),
            "libtorch"
        );
        assert_eq!(
            name("/opt/python/3.11.7/lib/libpython3.11.so.1.0"),
            "python"
        );
        assert_eq!(name("/opt/python/3.11.7/bin/python3.11"), "python");
        assert_eq!(
            name(
                "/opt/python/3.11.7/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so"
            ),
            "python"
        );
        assert_eq!(
            name(
                "/home/dev/venv/lib/python3.11/site-packages/numpy.libs/libscipy_openblas64_-32a4b2a6.so"
            ),
            "openmp-blas"
        );
        assert_eq!(
            name(
                "/home/dev/venv/lib/python3.11/site-packages/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so"
            ),
            "python"
        );
        assert_eq!(
            name("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"),
            "system"
        );
        assert_eq!(name("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13"), "system");
        assert_eq!(name("/opt/vendor/libfoo.so"), "third-party");
        assert_eq!(name("???"), "third-party");
    }

    #[test]
    fn extra_profiles_come_before_the_builtin_ones() {
        let c = Classifier::new(
            &[],
            &[Profile {
                name: "vendor-blas".into(),
                objects: vec!["*/libopenblas*".into()],
                sources: vec!["*/OpenBLAS/*".into()],
            }],
        )
        .expect("compiles");
        assert_eq!(
            c.origin_name(c.object(b"/usr/lib/libopenblas.so.0")),
            "vendor-blas"
        );
        let s = c.source(Some(b"/build/OpenBLAS/kernel"), b"gemm.c");
        assert_eq!(s.origin.map(|o| c.origin_name(o)), Some("vendor-blas"));
        // Valgrind's own objects stay the allocator's even if a profile claims them.
        let c = Classifier::new(
            &["/usr/*".into()],
            &[Profile {
                name: "x".into(),
                objects: vec!["*".into()],
                sources: vec![],
            }],
        )
        .expect("compiles");
        assert_eq!(
            c.object(b"/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"),
            ALLOCATOR_ID
        );
    }

    #[test]
    fn sources_decide_by_full_path_or_by_a_name_glob() {
        let c = cls(&["*/leaky_ext*"]);
        assert_eq!(
            c.source(None, b"leaky_ext.cpp").first_party,
            Truth::Yes,
            "a bare file name against */NAME*"
        );
        assert_eq!(c.source(None, b"ceval.c").first_party, Truth::No);
        assert_eq!(
            c.source(Some(b"/home/dev/leaky_ext/src"), b"leaky_ext.cpp")
                .first_party,
            Truth::Yes
        );
        // pybind11's headers compiled into the extension are not its sources.
        assert_eq!(
            c.source(
                Some(b"/home/dev/venv/lib/python3.11/site-packages/torch/include/pybind11"),
                b"cast.h"
            )
            .first_party,
            Truth::No
        );
        // A directory glob cannot decide on a bare name.
        let d = c_dir();
        assert_eq!(d.source(None, b"leaky_ext.cpp").first_party, Truth::Unknown);
        assert_eq!(
            d.source(Some(b"/home/dev/proj/src"), b"x.cpp").first_party,
            Truth::Yes
        );
        let none = cls(&[]);
        assert_eq!(none.source(None, b"x.cpp").first_party, Truth::No);
        assert!(!none.has_first_party());
    }

    fn c_dir() -> Classifier {
        cls(&["/home/dev/proj/*"])
    }

    #[test]
    fn source_profiles_name_third_party_origins() {
        let c = cls(&[]);
        let o = c.source(
            Some(b"/tmp/python-build.20260509073455.222/Python-3.11.7/Objects"),
            b"obmalloc.c",
        );
        assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("python"));
        let o = c.source(Some(b"./elf/./elf"), b"dl-open.c");
        assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("system"));
        // Text logs: the file name alone.
        let o = c.source(None, b"longobject.c");
        assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("python"));
        let o = c.source(None, b"dl-init.c");
        assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("system"));
        let o = c.source(None, b"dl-object.c");
        assert_eq!(o.origin.map(|o| c.origin_name(o)), Some("system"));
        assert_eq!(c.source(None, b"leaky_ext.cpp").origin, None);
    }

    #[test]
    fn function_names_suggest_an_origin() {
        let c = cls(&[]);
        let f = |n: &str| {
            c.function(n.as_bytes())
                .map(|o| c.origin_name(o).to_owned())
        };
        assert_eq!(f("PyUnicode_New").as_deref(), Some("python"));
        assert_eq!(f("_PyObject_Malloc").as_deref(), Some("python"));
        assert_eq!(f("_ZN3c109alloc_cpuEm").as_deref(), Some("libtorch"));
        assert_eq!(
            f("at::native::empty_cpu(long)").as_deref(),
            Some("libtorch")
        );
        assert_eq!(f("GOMP_parallel").as_deref(), Some("openmp-blas"));
        assert_eq!(f("uninit_branch()"), None);
    }

    #[test]
    fn bad_globs_are_reported() {
        let e = Classifier::new(&["a[".into()], &[]).err().expect("refused");
        assert!(e.to_string().contains("--first-party"), "{e}");
    }
}
