//! Whose code a frame is (PRODUCT.md §4): the first-party / origin decision that `gen`, the
//! CI gate and the maintenance lints share.
//!
//! * [`glob`]: path globs as users write them (`.gitignore`, ripgrep, fd);
//! * [`profile`]: the origin profiles — built-in (CUDA driver and libraries, libtorch,
//!   OpenMP/BLAS, CPython, the system, Valgrind's allocator) and the user's own;
//! * [`classify`]: the three-valued answer per frame, [`Party`]: first-party, claimed by a
//!   profile, or unknown (with why, [`Unplaced`]).
//!
//! No I/O: the callers read logs and configuration and hand over what a frame shows.

pub mod classify;
pub mod environment;
pub mod glob;
pub mod profile;

pub use classify::{
    ALLOCATOR_ID, Cache, Classifier, ClassifyError, FIRST_PARTY_ID, FirstParty, FrameSeen,
    ObjectSeen, OriginId, Party, SourceClass, THIRD_PARTY_ID, UNKNOWN_ID, UnknownCode, Unplaced,
};
pub use glob::{GlobError, GlobForm, PathGlobs};
pub use profile::Profile;
