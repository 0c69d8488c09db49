//! The verdict on an error (PRODUCT.md §4): *keep* a first-party bug, *review* what the
//! user may be at fault for, *suppress* the rest.
//!
//! * **keep**: the first frame below Valgrind's allocator/interceptor frames is
//!   first-party (and the error is not memory still reachable at exit), or the error is an
//!   uninitialised value whose origin (`--track-origins=yes`) was created in first-party
//!   code (the first frame of the origin stack below the allocator).
//! * **review**: memory still reachable at exit that first-party code allocated (not a
//!   leak unless it grows; no rule is written for first-party code); an error whose first
//!   frame, or origin, the log does not tell first-party or not (a text log hides the
//!   object and the `--first-party` globs cannot decide on the source file's name); and
//!   third-party code reached from first-party code where the user may be at fault: a
//!   leak (not still reachable) or an invalid access in a library called from first-party
//!   code — the tensor a user leaks is allocated, with everything it holds, inside
//!   libtorch. `main` and the frames below it do not count as "reached from": every stack
//!   of a program goes through them. An uninitialised value whose origin is known to be
//!   third-party is not the caller's fault.
//! * **suppress**: everything else. An error with no first-party frame and no first-party
//!   origin is never kept.
//!
//! Whatever the log leaves undecided is never suppressed on a guess: it is reviewed.

use super::candidate::first_frame;
use super::classify::{FIRST_PARTY_ID, OriginId};
use super::frames::FrameFacts;
use crate::logs::record::ErrorRecord;
use crate::matcher::Truth;
use crate::supp::model::LeakKind;

/// What to do with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// A first-party bug: shown, never suppressed.
    Keep,
    /// For the user to look at: no rule is written for it.
    Review,
    /// Third-party noise: a rule is written for it.
    Suppress,
}

impl Verdict {
    /// `keep`, `review`, `suppress` (the JSON contract's words).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Keep => "keep",
            Self::Review => "review",
            Self::Suppress => "suppress",
        }
    }
}

/// Why an error got its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// Keep: its first frame is first-party.
    FirstPartyFrame,
    /// Keep: its uninitialised value was created in first-party code.
    FirstPartyOrigin,
    /// Review: still reachable at exit, allocated by first-party code.
    ReachableFirstParty,
    /// Review: the log does not show whether its first frame is first-party.
    UnknownFirstFrame,
    /// Review: the log does not show whether its origin is first-party.
    UnknownOrigin,
    /// Review: third-party code reached from first-party code.
    ReachedFromFirstParty,
    /// Review: no rule can be written that pins third-party code.
    NoRule,
    /// Review: every rule for it would also hide a kept error of the logs.
    WouldHideKept,
    /// Suppress: third-party code.
    ThirdParty,
    /// Suppress: a rule of the `-s` files already hides it.
    Existing,
}

impl Reason {
    /// Why, for reports.
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Self::FirstPartyFrame => "first-party code",
            Self::FirstPartyOrigin => "uninitialised value created in first-party code",
            Self::ReachableFirstParty => {
                "still reachable at exit, allocated by first-party code (not a leak unless it grows)"
            }
            Self::UnknownFirstFrame => {
                "the log does not show whether its first frame is first-party (give --first-party globs that name source files, e.g. '*/my_ext*')"
            }
            Self::UnknownOrigin => {
                "the log does not show whether its uninitialised value was created in first-party code"
            }
            Self::ReachedFromFirstParty => "third-party code reached from first-party code",
            Self::NoRule => {
                "no rule can name its third-party frames (the log shows neither their objects nor their mangled names)"
            }
            Self::WouldHideKept => "every rule for it would also hide a kept error of these logs",
            Self::ThirdParty => "third-party code",
            Self::Existing => "already suppressed by a rule of the -s files",
        }
    }
}

/// A verdict with what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// Why.
    pub reason: Reason,
    /// The origin of the frame the verdict rests on.
    pub origin: OriginId,
    /// Its source line (`file:line`), if it has one.
    pub location: Option<String>,
    /// Its function as printed, if known.
    pub function: Option<String>,
}

/// Functions under which a library allocates for itself, not for its caller: one-time
/// initialisation (`pthread_once`, `std::call_once`, `c10::call_once`, function-local
/// statics), threads it starts, libraries it loads and their static initialisers, the
/// loader's thread-local storage (allocated on a thread's first access to it).
#[must_use]
pub fn library_lifetime(name: &[u8]) -> bool {
    const EXACT: [&[u8]; 17] = [
        b"__tls_get_addr",
        b"_dl_allocate_tls",
        b"_dl_allocate_tls_init",
        b"pthread_once",
        b"__pthread_once_slow",
        b"__cxa_guard_acquire",
        b"pthread_create",
        b"start_thread",
        b"dlopen",
        b"dlopen_doit",
        b"dlmopen",
        b"_dl_open",
        b"dl_open_worker",
        b"dl_open_worker_begin",
        b"_dl_init",
        b"call_init",
        b"gomp_team_start",
    ];
    let base = &name[..super::generalise::suffix(name).unwrap_or(name.len())];
    EXACT.contains(&base)
        || base.starts_with(b"GOMP_parallel")
        || base.starts_with(b"_GLOBAL__sub_I_")
        || base.starts_with(b"_GLOBAL__I_")
        || base.windows(9).any(|w| w == b"call_once")
        || base
            .windows(39)
            .any(|w| w == b"__static_initialization_and_destruction")
}

/// Whether an error is about an uninitialised value (its origin tells whose it is).
#[must_use]
pub fn is_uninitialised(err: &ErrorRecord) -> bool {
    err.kind == "Cond"
        || err.kind.starts_with("Value")
        || (err.kind == "Param" && err.what.contains("uninitialised"))
        || err.aux.iter().any(|a| a.origin)
}

/// The frame a report points at among `frames` from the one the verdict rests on: the
/// first first-party frame whose source is the user's own (not a library header compiled
/// into first-party code), within the first-party frames that follow, else that frame.
fn pointed<'f, 'a>(frames: &'f [FrameFacts<'a>], at: usize) -> &'f FrameFacts<'a> {
    frames[at..]
        .iter()
        .take_while(|f| f.first_party != Truth::No)
        .find(|f| f.own_source == Truth::Yes)
        .unwrap_or(&frames[at])
}

fn decision(
    verdict: Verdict,
    reason: Reason,
    origin: OriginId,
    f: Option<&FrameFacts<'_>>,
) -> Decision {
    Decision {
        verdict,
        reason,
        origin,
        location: f.and_then(FrameFacts::location),
        function: f
            .and_then(|f| f.shown.or(f.fun))
            .map(|n| String::from_utf8_lossy(n).into_owned()),
    }
}

/// The verdict on `err`, from its own frames and the frames of its origin stacks.
#[must_use]
pub fn decide(
    err: &ErrorRecord,
    frames: &[FrameFacts<'_>],
    origins: &[Vec<FrameFacts<'_>>],
) -> Decision {
    let f0 = first_frame(frames);
    let first = f0.map(|i| &frames[i]);
    let reachable = err.leak.is_some_and(|l| l.kind == LeakKind::Reachable);
    let origin_firsts: Vec<&FrameFacts<'_>> = origins
        .iter()
        .filter_map(|o| first_frame(o).map(|i| &o[i]))
        .collect();
    if let Some(i) = f0
        && frames[i].first_party == Truth::Yes
    {
        let f = pointed(frames, i);
        return if reachable {
            decision(
                Verdict::Review,
                Reason::ReachableFirstParty,
                FIRST_PARTY_ID,
                Some(f),
            )
        } else {
            decision(
                Verdict::Keep,
                Reason::FirstPartyFrame,
                FIRST_PARTY_ID,
                Some(f),
            )
        };
    }
    let origin_first = origins.iter().find_map(|o| {
        let i = first_frame(o)?;
        (o[i].first_party == Truth::Yes).then(|| pointed(o, i))
    });
    if let Some(o) = origin_first {
        return decision(
            Verdict::Keep,
            Reason::FirstPartyOrigin,
            FIRST_PARTY_ID,
            Some(o),
        );
    }
    let first_origin = first.map_or(super::classify::THIRD_PARTY_ID, |f| f.origin);
    if let Some(f) = first
        && f.first_party == Truth::Unknown
    {
        return decision(
            Verdict::Review,
            Reason::UnknownFirstFrame,
            first_origin,
            Some(f),
        );
    }
    if let Some(o) = origin_firsts
        .iter()
        .find(|o| o.first_party == Truth::Unknown)
    {
        return decision(
            Verdict::Review,
            Reason::UnknownOrigin,
            first_origin,
            Some(o),
        );
    }
    let origin_known = is_uninitialised(err) && !origin_firsts.is_empty();
    if !reachable && !origin_known {
        let below = f0.map_or(frames.len(), |i| i + 1).min(frames.len());
        let reached = frames[below..]
            .iter()
            .position(|f| f.first_party != Truth::No && !f.is_entry());
        // What a library allocates for itself on the way (its one-time initialisation, a
        // thread of its own, a library it loads) is not the caller's.
        let own = |j: usize| {
            frames[f0.unwrap_or(0)..below + j]
                .iter()
                .any(|f| f.fun.or(f.shown).is_some_and(library_lifetime))
        };
        if let Some(j) = reached.filter(|&j| !own(j)) {
            let f = pointed(frames, below + j);
            return decision(
                Verdict::Review,
                Reason::ReachedFromFirstParty,
                first_origin,
                Some(f),
            );
        }
    }
    decision(Verdict::Suppress, Reason::ThirdParty, first_origin, first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r#gen::classify::Classifier;
    use crate::r#gen::frames::{Cache, ProcessObjects, of_error, of_stack};
    use crate::logs::text::TextReader;
    use crate::matcher::MatchInput;

    const HEAD: &str =
        "==1== Memcheck, a memory error detector\n==1== Command: python t.py\n==1== \n";
    const NEW: &str = "==1==    at 0x4843: operator new[](unsigned long) (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n";
    const PY: &str =
        "==1==    by 0x49F9: cfunction_vectorcall_FASTCALL_KEYWORDS (methodobject.c:443)\n";
    const MAIN: &str = "==1==    by 0x4B0C: main (python.c:15)\n";

    fn verdict(body: &str, fp: &[&str]) -> Decision {
        let log = format!("{HEAD}{body}==1== \n");
        let err = TextReader::new(log.as_bytes())
            .find_map(|i| i.ok()?.as_error().cloned())
            .expect("an error");
        let input = MatchInput::from_record(&err, false);
        let c = Classifier::new(&fp.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), &[])
            .expect("compiles");
        let procs = ProcessObjects::default();
        let mut cache = Cache::default();
        let frames = of_error(&err, &input, &procs, &c, &mut cache);
        let origins: Vec<_> = err
            .aux
            .iter()
            .filter(|a| a.origin)
            .map(|a| of_stack(&a.stack, false, &procs, &c, &mut cache))
            .collect();
        decide(&err, &frames, &origins)
    }

    const FP: &[&str] = &["*/leaky_ext*"];

    #[test]
    fn first_party_leaks_are_kept_unless_still_reachable() {
        let d = verdict(
            &format!(
                "==1== 4,000 bytes in 1 blocks are possibly lost in loss record 1 of 1\n{NEW}==1==    by 0xCB5A: dangerous_function() (leaky_ext.cpp:11)\n{PY}"
            ),
            FP,
        );
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Keep, Reason::FirstPartyFrame)
        );
        assert_eq!(d.location.as_deref(), Some("leaky_ext.cpp:11"));
        assert_eq!(d.function.as_deref(), Some("dangerous_function()"));
        let d = verdict(
            &format!(
                "==1== 8 bytes in 1 blocks are still reachable in loss record 1 of 1\n{NEW}==1==    by 0xCB5A: init() (leaky_ext.cpp:102)\n{PY}"
            ),
            FP,
        );
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Review, Reason::ReachableFirstParty)
        );
    }

    #[test]
    fn uninitialised_values_follow_their_origin() {
        let body = format!(
            "==1== Conditional jump or move depends on uninitialised value(s)\n==1==    at 0x49E1: PyLong_FromSsize_t (longobject.c:1164)\n==1==    by 0xCB5E: pybind11::cast(long) (cast.h:323)\n{PY}==1==  Uninitialised value was created by a heap allocation\n{NEW}==1==    by 0xCB5A: uninit_return() (leaky_ext.cpp:36)\n"
        );
        let d = verdict(&body, FP);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Keep, Reason::FirstPartyOrigin)
        );
        assert_eq!(d.location.as_deref(), Some("leaky_ext.cpp:36"));
        // A third-party origin: not the caller's fault, even when reached from it.
        let body = "==1== Conditional jump or move depends on uninitialised value(s)\n==1==    at 0x89CB: at::meta::f() (in /x/torch/lib/libtorch_cpu.so)\n==1==    by 0xCB5A: torch_ops(long) (leaky_ext.cpp:71)\n==1==  Uninitialised value was created by a stack allocation\n==1==    at 0x54FD: THPVariable_norm(_object*) (in /x/torch/lib/libtorch_python.so)\n";
        let d = verdict(body, FP);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Suppress, Reason::ThirdParty)
        );
        assert_eq!(d.location, None);
        // No origin recorded: the caller may have passed it.
        let body = "==1== Conditional jump or move depends on uninitialised value(s)\n==1==    at 0x89CB: at::meta::f() (in /x/torch/lib/libtorch_cpu.so)\n==1==    by 0xCB5A: torch_ops(long) (leaky_ext.cpp:71)\n";
        let d = verdict(body, FP);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Review, Reason::ReachedFromFirstParty)
        );
        assert_eq!(d.location.as_deref(), Some("leaky_ext.cpp:71"));
    }

    #[test]
    fn third_party_reached_from_first_party() {
        let leak = |kind: &str| {
            format!(
                "==1== 24 bytes in 1 blocks are {kind} in loss record 1 of 1\n{NEW}==1==    by 0x74A3: ???\n==1==    by 0x896B: at::detail::empty_generic() (in /x/torch/lib/libtorch_cpu.so)\n==1==    by 0xCB5A: tensor_leak(long) (leaky_ext.cpp:82)\n{MAIN}"
            )
        };
        let d = verdict(&leak("indirectly lost"), FP);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Review, Reason::ReachedFromFirstParty)
        );
        assert_eq!(d.location.as_deref(), Some("leaky_ext.cpp:82"));
        // Still reachable: third-party caches, whoever called.
        let d = verdict(&leak("still reachable"), FP);
        assert_eq!(d.verdict, Verdict::Suppress);
        // A library's own one-time state, reached from first-party code: not the caller's.
        let once = format!(
            "==1== 56 bytes in 1 blocks are definitely lost in loss record 1 of 1\n{NEW}==1==    by 0x54E3: ???\n==1==    by 0x4D45: __pthread_once_slow (pthread_once.c:116)\n==1==    by 0x4A4F: cudaGetDeviceCount (in /x/libcudart.so.12)\n==1==    by 0xCB5A: probe_cuda() (leaky_ext.cpp:57)\n{MAIN}"
        );
        assert_eq!(verdict(&once, FP).verdict, Verdict::Suppress);
        assert!(library_lifetime(
            b"_ZSt9call_onceIRFvvEJEEvRSt9once_flagOT_DpOT0_"
        ));
        assert!(library_lifetime(b"pthread_create@@GLIBC_2.34"));
        assert!(!library_lifetime(b"cudaGetDeviceCount"));
        // Only `main` above: every stack passes through it.
        let only_main = format!(
            "==1== 24 bytes in 1 blocks are definitely lost in loss record 1 of 1\n{NEW}==1==    by 0x896B: cudaGetErrorString (in /x/libcudart.so.12)\n==1==    by 0x1091: main (cudart_probe.c:24)\n"
        );
        let d = verdict(&only_main, &["*/cudart_probe*"]);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Suppress, Reason::ThirdParty)
        );
    }

    #[test]
    fn undecidable_first_frames_are_reviewed() {
        let body = format!(
            "==1== 40 bytes in 1 blocks are definitely lost in loss record 1 of 1\n{NEW}==1==    by 0xCB5A: f() (mine.cpp:3)\n"
        );
        let d = verdict(&body, &["/home/me/proj/*"]);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Review, Reason::UnknownFirstFrame)
        );
        let d = verdict(&body, &[]);
        assert_eq!(
            d.verdict,
            Verdict::Suppress,
            "no first-party globs: nothing is first-party"
        );
    }
}
