//! Whose code a frame is: first-party, a third-party origin a profile claims, or unknown.
//!
//! The policy (PRODUCT.md §4), for every reader:
//!
//! * a frame is **first-party** when its object **or** its source (the full path where the
//!   log gives it) matches a first-party glob, or when every object a text log leaves
//!   possible for it is first-party;
//! * it is **third-party** when a profile positively claims it: by an object the log shows
//!   (or proves: every candidate object claimed by the same origin), by its source file, or
//!   by its function name;
//! * it is **unknown** otherwise: a hidden object, a `???` frame of an unloaded library, an
//!   object no profile knows, a source that merely fails the first-party globs. Unknown is
//!   never taken for third-party noise (`gen` reviews what rests on it), unless the user
//!   opts in ([`UnknownCode::Suppress`]): then it is the catch-all origin
//!   [`THIRD_PARTY`](super::profile::THIRD_PARTY).
//!
//! First-party globs the user declared beat every profile (a project may vendor a library
//! a profile would claim). The default first-party — the project directory, when the user
//! declared nothing — yields to profile claims: a virtual environment inside the project
//! (`proj/.venv/…/libtorch_cpu.so`) is still libtorch's.
//!
//! Globs follow [`super::glob`].

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::glob::{GlobError, PathGlobs};
use super::profile::{ALLOCATOR, BUILTIN, FIRST_PARTY, Profile, THIRD_PARTY, UNKNOWN};
use crate::matcher::Truth;

/// An origin, as an index into [`Classifier::origin_name`].
pub type OriginId = u16;

/// [`FIRST_PARTY`]'s id.
pub const FIRST_PARTY_ID: OriginId = 0;
/// [`THIRD_PARTY`]'s id: code no profile claims (only with [`UnknownCode::Suppress`]).
pub const THIRD_PARTY_ID: OriginId = 1;
/// [`ALLOCATOR`]'s id.
pub const ALLOCATOR_ID: OriginId = 2;
/// [`UNKNOWN`]'s id: the origin of a frame nothing places ([`Party::Unknown`]).
pub const UNKNOWN_ID: OriginId = 3;

/// Why a frame cannot be placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unplaced {
    /// A text log prints the frame with a source line and hides its object, and neither
    /// its source nor its function is claimed.
    HiddenObject,
    /// Valgrind knows no object for it (`???`: an unloaded library, JIT code).
    NoObject,
    /// Its object is shown, and neither the first-party globs nor a profile claim it.
    Unclaimed,
}

impl Unplaced {
    /// Why, for reports.
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Self::HiddenObject => {
                "the text log hides its object and no profile claims its source or function"
            }
            Self::NoObject => {
                "Valgrind knows no object for it (`???`: a library unloaded before the report, or generated code)"
            }
            Self::Unclaimed => "no profile claims its object",
        }
    }

    /// What decides it, for reports.
    #[must_use]
    pub const fn remedy(self) -> &'static str {
        match self {
            Self::HiddenObject => {
                "record with --xml=yes, which shows every frame's object and source directory, or name its source file in --first-party or a profile"
            }
            Self::NoObject => {
                "record with --keep-debuginfo=yes, which names the unloaded object in its frames, or with -v, which lists the objects unloaded"
            }
            Self::Unclaimed => {
                "declare the library in a profile of vgsupp.yaml, or in --first-party if it is yours"
            }
        }
    }
}

/// Whose code a frame is: the three-valued answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Party {
    /// First-party: the user's code.
    First,
    /// Claimed by a profile (the allocator's replacements included).
    Third(OriginId),
    /// Neither: see [`Unplaced`].
    Unknown(Unplaced),
}

impl Party {
    /// Whether it is first-party, three-valued: `No` only for a positive third-party claim.
    #[must_use]
    pub const fn first_party(self) -> Truth {
        match self {
            Self::First => Truth::Yes,
            Self::Third(_) => Truth::No,
            Self::Unknown(_) => Truth::Unknown,
        }
    }

    /// Its origin: first-party, the claiming profile's, or [`UNKNOWN_ID`].
    #[must_use]
    pub const fn origin(self) -> OriginId {
        match self {
            Self::First => FIRST_PARTY_ID,
            Self::Third(o) => o,
            Self::Unknown(_) => UNKNOWN_ID,
        }
    }
}

/// What to do with code no glob or profile places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownCode {
    /// Unknown: `gen` reviews errors that rest on it (the default).
    #[default]
    Review,
    /// Third-party of the catch-all origin: `gen` may suppress them (`--unknown suppress`).
    Suppress,
}

/// What is first-party.
#[derive(Debug, Clone, Default)]
pub struct FirstParty {
    /// The globs.
    pub globs: Vec<String>,
    /// They are vgsupp's default (the project directory), not the user's: profile claims
    /// win over them.
    pub defaulted: bool,
}

impl FirstParty {
    /// The default: everything under the project directory.
    #[must_use]
    pub fn project(dir: &Path) -> Self {
        let escaped = globset::escape(&dir.to_string_lossy());
        let glob = if escaped.ends_with('/') {
            format!("{escaped}**")
        } else {
            format!("{escaped}/**")
        };
        Self {
            globs: vec![glob],
            defaulted: true,
        }
    }

    /// Declared by the user.
    #[must_use]
    pub fn declared(globs: Vec<String>) -> Self {
        Self {
            globs,
            defaulted: false,
        }
    }

    /// Nothing is first-party (`--no-first-party`).
    #[must_use]
    pub const fn none() -> Self {
        Self {
            globs: Vec::new(),
            defaulted: false,
        }
    }
}

/// Why a classifier cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    /// A path glob does not compile, or is relative with nothing to resolve it from.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// A function-name glob does not compile.
    #[error("invalid glob `{glob}` in {what}: {}", .source.kind())]
    Function {
        /// The glob.
        glob: String,
        /// Where it came from.
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
    objects: PathGlobs,
    sources: PathGlobs,
    functions: GlobSet,
}

/// What the classifier says about a source path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceClass {
    /// Whether the first-party globs match it: `Yes`, `No`, or undecided (a bare file name
    /// and a glob that names directories).
    pub first_party: Truth,
    /// The third-party profile whose source globs match, if any.
    pub origin: Option<OriginId>,
}

/// What the log shows of a frame's object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectSeen<'a> {
    /// Shown (or inferred for certain): the full path.
    Shown(&'a [u8]),
    /// Hidden (a text log prints a source line instead); the objects it may be in when the
    /// log narrows them down.
    Hidden(Option<&'a [Vec<u8>]>),
    /// `???`: no object; `Some` names the object the log says held the IP before it was
    /// unloaded (`Discarding syms at A-B in PATH`, `-v`).
    Missing(Option<&'a [u8]>),
}

/// What the log shows of one frame.
#[derive(Debug, Clone, Copy)]
pub struct FrameSeen<'a> {
    /// Its object.
    pub object: ObjectSeen<'a>,
    /// Its source directory (XML `<dir>`).
    pub dir: Option<&'a [u8]>,
    /// Its source file as printed.
    pub file: Option<&'a [u8]>,
    /// Its function name (mangled, C, or as displayed).
    pub function: Option<&'a [u8]>,
}

/// Origins of objects, source files and function names (see the module documentation).
pub struct Classifier {
    names: Vec<String>,
    first_party: PathGlobs,
    first_party_defaulted: bool,
    profiles: Vec<Compiled>,
    unknown: UnknownCode,
}

fn functions(globs: &[&str], what: &str) -> Result<GlobSet, ClassifyError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|source| ClassifyError::Function {
            glob: (*g).to_owned(),
            what: what.to_owned(),
            source,
        })?);
    }
    b.build().map_err(|source| ClassifyError::Function {
        glob: globs.join(", "),
        what: what.to_owned(),
        source,
    })
}

/// A lossy text view of a name (function names are matched as text).
fn text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

impl Classifier {
    /// A classifier for `first_party`, the extra profiles `extra` (tried before the
    /// built-in ones) and what to do with unknown code. Relative globs (first-party, and
    /// the extra profiles') are resolved from `project`.
    ///
    /// # Errors
    /// When a glob does not compile, or is relative and there is no project directory.
    pub fn new(
        first_party: &FirstParty,
        extra: &[Profile],
        project: Option<&Path>,
        unknown: UnknownCode,
    ) -> Result<Self, ClassifyError> {
        let fp = PathGlobs::new(&first_party.globs, project, "--first-party")?;
        let mut names: Vec<String> = vec![
            FIRST_PARTY.into(),
            THIRD_PARTY.into(),
            ALLOCATOR.into(),
            UNKNOWN.into(),
        ];
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
        let builtin = |b: &super::profile::Builtin, names: &mut Vec<String>| {
            Ok::<_, ClassifyError>(Compiled {
                extra: false,
                origin: id_of(b.name, names),
                objects: PathGlobs::new(b.objects, None, b.name)?,
                sources: PathGlobs::new(b.sources, None, b.name)?,
                functions: functions(b.functions, b.name)?,
            })
        };
        // The allocator profile first: Valgrind's own objects are never anyone's code.
        let (alloc, rest) = BUILTIN.split_at(1);
        for b in alloc {
            profiles.push(builtin(b, &mut names)?);
        }
        for p in extra {
            let what = format!("profile `{}`", p.name);
            let fns: Vec<&str> = p.functions.iter().map(String::as_str).collect();
            profiles.push(Compiled {
                extra: true,
                origin: id_of(&p.name, &mut names),
                objects: PathGlobs::new(&p.objects, project, &what)?,
                sources: PathGlobs::new(&p.sources, project, &what)?,
                functions: functions(&fns, &what)?,
            });
        }
        for b in rest {
            profiles.push(builtin(b, &mut names)?);
        }
        Ok(Self {
            names,
            first_party: fp,
            first_party_defaulted: first_party.defaulted,
            profiles,
            unknown,
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

    /// The first-party globs.
    #[must_use]
    pub fn first_party_globs(&self) -> &PathGlobs {
        &self.first_party
    }

    /// What is done with unknown code.
    #[must_use]
    pub const fn unknown(&self) -> UnknownCode {
        self.unknown
    }

    /// The profile that claims an object (the allocator's first), if any.
    fn object_claim(&self, path: &[u8]) -> Option<OriginId> {
        self.profiles
            .iter()
            .find(|p| p.objects.matches_path(path))
            .map(|p| p.origin)
    }

    /// An unknown frame, or the catch-all third party when the user opted in.
    const fn unknown_as(&self, why: Unplaced) -> Party {
        match self.unknown {
            UnknownCode::Review => Party::Unknown(why),
            UnknownCode::Suppress => Party::Third(THIRD_PARTY_ID),
        }
    }

    /// Whose code an object (its full path) is.
    #[must_use]
    pub fn object(&self, path: &[u8]) -> Party {
        if let Some(alloc) = self.profiles.first()
            && alloc.objects.matches_path(path)
        {
            return Party::Third(alloc.origin);
        }
        let fp = self.first_party.matches_path(path);
        if fp && !self.first_party_defaulted {
            return Party::First;
        }
        if let Some(o) = self.object_claim(path) {
            return Party::Third(o);
        }
        if fp {
            return Party::First;
        }
        self.unknown_as(Unplaced::Unclaimed)
    }

    /// Whether an object path is first-party.
    #[must_use]
    pub fn object_is_first_party(&self, path: &[u8]) -> bool {
        self.object(path) == Party::First
    }

    /// What a source path says: `dir` when the log gives it, `file` as printed.
    #[must_use]
    pub fn source(&self, dir: Option<&[u8]>, file: &[u8]) -> SourceClass {
        // The user's profiles first; then glibc's file names before CPython's
        // (`dl-object.c` is glibc's, `*object.c` otherwise CPython's).
        let system = self.names.iter().position(|n| n == "system");
        let claims = |p: &&Compiled| p.sources.matches_source(dir, file) == Truth::Yes;
        let is_system = |p: &&Compiled| Some(usize::from(p.origin)) == system;
        let origin = self
            .profiles
            .iter()
            .filter(|p| p.extra)
            .find(claims)
            .or_else(|| self.profiles.iter().filter(is_system).find(claims))
            .or_else(|| self.profiles.iter().find(claims))
            .map(|p| p.origin);
        let mut first_party = self.first_party.matches_source(dir, file);
        if self.first_party_defaulted && origin.is_some() && first_party != Truth::No {
            // The default yields to a profile's claim.
            first_party = Truth::No;
        }
        SourceClass {
            first_party,
            origin: if first_party == Truth::Yes {
                None
            } else {
                origin
            },
        }
    }

    /// The origin a function name (mangled, C, or as displayed) is claimed by, if any.
    #[must_use]
    pub fn function(&self, name: &[u8]) -> Option<OriginId> {
        let s = text(name);
        self.profiles
            .iter()
            .find(|p| p.functions.is_match(s.as_ref()))
            .map(|p| p.origin)
    }

    /// Whose code a frame is, from everything the log shows of it (see the module
    /// documentation); `cache` keeps answers by name across the frames of a log.
    #[must_use]
    pub fn place(&self, frame: &FrameSeen<'_>, cache: &mut Cache) -> Party {
        let src = frame.file.map(|f| cache.source(self, frame.dir, f));
        let by_source = src.and_then(|s| s.origin);
        let by_function = frame.function.and_then(|n| cache.function(self, n));
        let source_first = src.is_some_and(|s| s.first_party == Truth::Yes);
        // A declared first-party source decides; the default (the project directory)
        // yields to a profile's claim on the object.
        if source_first && !self.first_party_defaulted {
            return Party::First;
        }
        match frame.object {
            ObjectSeen::Shown(path) | ObjectSeen::Missing(Some(path)) => {
                // The log shows the object: it decides. A source or function name a
                // profile knows says nothing against it (a project's `py_shim.c` defining
                // `PyShim_alloc` in its own library is not CPython).
                match cache.object(self, path) {
                    Party::First => Party::First,
                    _ if source_first => Party::First,
                    p => p,
                }
            }
            _ if source_first => Party::First,
            ObjectSeen::Missing(None) => by_source
                .or(by_function)
                .map_or_else(|| self.unknown_as(Unplaced::NoObject), Party::Third),
            ObjectSeen::Hidden(one_of) => {
                let set = one_of.unwrap_or_default();
                let summary = cache.set_summary(self, set);
                if !set.is_empty() && summary.all_first {
                    return Party::First;
                }
                // A source or function name is a claim unless the objects the log leaves
                // possible rule its origin out.
                let possible = |o: OriginId| set.is_empty() || summary.thirds.contains(&o);
                if let Some(o) = by_source.filter(|&o| possible(o)) {
                    return Party::Third(o);
                }
                if let Some(o) = by_function.filter(|&o| possible(o)) {
                    return Party::Third(o);
                }
                // Every object it may be in is claimed by the same origin.
                let agreed = summary.agreed;
                agreed.unwrap_or_else(|| self.unknown_as(Unplaced::HiddenObject))
            }
        }
    }
}

/// Classification results by name, kept across the frames of a log (a log names the same
/// few hundred objects and source files millions of times).
#[derive(Default)]
pub struct Cache {
    objects: FxHashMap<Box<[u8]>, Party>,
    /// By directory, a NUL and the file (no path holds a NUL).
    sources: FxHashMap<Box<[u8]>, SourceClass>,
    key: Vec<u8>,
    functions: FxHashMap<Box<[u8]>, Option<OriginId>>,
    /// Sets of objects a hidden frame may be in (the matcher's shared sets, by address),
    /// each with what its objects are: a text log's frames share a few such sets of
    /// dozens of objects. Each entry holds its set, so no other set can take its address
    /// while it is here.
    sets: FxHashMap<(usize, usize), PinnedSet>,
}

/// A pinned set of objects (held, so its address stays its own) and its summary.
type PinnedSet = (Arc<[Vec<u8>]>, Arc<SetSummary>);

/// At most this many sets are remembered (then the memo starts over).
const MAX_SETS: usize = 4096;

/// What a set of objects a hidden frame may be in says about it.
#[derive(Debug, Clone, Default)]
pub struct SetSummary {
    /// Every object is first-party.
    all_first: bool,
    /// The origins that claim one of them.
    thirds: Vec<OriginId>,
    /// The one origin that claims all of them (not the catch-all third party).
    agreed: Option<Party>,
}

impl Cache {
    /// [`Classifier::object`], cached.
    pub fn object(&mut self, c: &Classifier, path: &[u8]) -> Party {
        if let Some(o) = self.objects.get(path) {
            return *o;
        }
        let o = c.object(path);
        self.objects.insert(path.into(), o);
        o
    }

    /// Remember `set` (a matcher's shared set of objects) so that [`Classifier::place`]
    /// classifies its objects once, not once per frame.
    pub fn pin_set(&mut self, c: &Classifier, set: &Arc<[Vec<u8>]>) {
        let key = (set.as_ptr() as usize, set.len());
        if self.sets.contains_key(&key) {
            return;
        }
        if self.sets.len() >= MAX_SETS {
            self.sets.clear();
        }
        let summary = Arc::new(self.summarise(c, set));
        self.sets.insert(key, (Arc::clone(set), summary));
    }

    /// What the objects of `set` are: remembered when the set was pinned, else worked out.
    fn set_summary(&mut self, c: &Classifier, set: &[Vec<u8>]) -> Arc<SetSummary> {
        match self.sets.get(&(set.as_ptr() as usize, set.len())) {
            Some((_, s)) => Arc::clone(s),
            None => Arc::new(self.summarise(c, set)),
        }
    }

    fn summarise(&mut self, c: &Classifier, set: &[Vec<u8>]) -> SetSummary {
        let parties: Vec<Party> = set.iter().map(|p| self.object(c, p)).collect();
        let mut thirds: Vec<OriginId> = parties
            .iter()
            .filter_map(|p| match p {
                Party::Third(o) => Some(*o),
                _ => None,
            })
            .collect();
        thirds.sort_unstable();
        thirds.dedup();
        let agreed = parties.first().copied().filter(|first| {
            matches!(first, Party::Third(o) if *o != THIRD_PARTY_ID)
                && parties.iter().all(|p| p == first)
        });
        SetSummary {
            all_first: parties.iter().all(|p| *p == Party::First),
            thirds,
            agreed,
        }
    }

    /// [`Classifier::source`], cached.
    pub fn source(&mut self, c: &Classifier, dir: Option<&[u8]>, file: &[u8]) -> SourceClass {
        self.key.clear();
        self.key.extend_from_slice(dir.unwrap_or_default());
        self.key.push(0);
        self.key.extend_from_slice(file);
        if let Some(s) = self.sources.get(&self.key[..]) {
            return *s;
        }
        let s = c.source(dir, file);
        self.sources.insert(self.key.as_slice().into(), s);
        s
    }

    /// [`Classifier::function`], cached.
    pub fn function(&mut self, c: &Classifier, name: &[u8]) -> Option<OriginId> {
        if let Some(o) = self.functions.get(name) {
            return *o;
        }
        let o = c.function(name);
        self.functions.insert(name.into(), o);
        o
    }
}

/// A classifier with the built-in profiles and the declared first-party `globs`, for the
/// library's unit tests.
#[cfg(test)]
pub(crate) fn test_classifier(globs: &[&str]) -> Classifier {
    test_classifier_with(globs, UnknownCode::Review)
}

/// [`test_classifier`], with what to do with unknown code.
#[cfg(test)]
pub(crate) fn test_classifier_with(globs: &[&str], unknown: UnknownCode) -> Classifier {
    Classifier::new(
        &FirstParty::declared(globs.iter().map(|g| (*g).to_owned()).collect()),
        &[],
        Some(Path::new("/home/dev/proj")),
        unknown,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests;
