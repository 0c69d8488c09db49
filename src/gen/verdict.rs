//! The verdict on an error (PRODUCT.md §4): *keep* a first-party bug, *review* what the
//! user may be at fault for, *suppress* the rest.
//!
//! * **keep**: the first frame below Valgrind's allocator/interceptor frames is
//!   first-party (and the error is not memory still reachable at exit), or the error is an
//!   uninitialised value whose origin (`--track-origins=yes`) was created in first-party
//!   code (the first frame of the origin stack below the allocator).
//! * **review**: memory still reachable at exit that first-party code allocated (not a
//!   leak unless it grows; no rule is written for first-party code); an error whose first
//!   frame, or origin, vgsupp cannot place ([`crate::origin::Party::Unknown`]: a hidden
//!   object, a `???` frame, a library no profile knows — code it cannot place is possibly
//!   the user's); and third-party code reached from first-party code, or from code it
//!   cannot place, where the user may be at fault: a leak (not still reachable) or an
//!   invalid access in a library called from first-party code — the tensor a user leaks
//!   is allocated, with everything it holds, inside libtorch. `main` and the frames below
//!   it do not count as "reached from": every stack of a program goes through them. An
//!   uninitialised value whose origin is known to be third-party is not the caller's
//!   fault.
//! * **suppress**: everything else. An error with no first-party frame and no first-party
//!   origin is never kept.
//!
//! Whatever the log leaves undecided is never suppressed on a guess: it is reviewed.

use super::candidate::first_frame;
use super::frames::{FrameFacts, Obj};
use crate::logs::record::ErrorRecord;
use crate::matcher::Truth;
use crate::origin::{FIRST_PARTY_ID, OriginId, Party, Unplaced};
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
    /// Review: vgsupp cannot place its first frame below the allocator.
    UnknownFirstFrame(Unplaced),
    /// Review: vgsupp cannot place where its uninitialised value was created.
    UnknownOrigin(Unplaced),
    /// Review: third-party code reached from first-party code.
    ReachedFromFirstParty,
    /// Review: third-party code reached from code vgsupp cannot place.
    ReachedFromUnplaced(Unplaced),
    /// Review: no rule can be written that pins third-party code.
    NoRule,
    /// Review: every rule for it would also hide a kept or reviewed error of the logs.
    WouldHideKept,
    /// Suppress: third-party code.
    ThirdParty,
    /// Suppress: a rule of the `-s` files already hides it.
    Existing,
}

impl Reason {
    /// Why, for reports.
    #[must_use]
    pub fn text(self) -> String {
        match self {
            Self::FirstPartyFrame => "first-party code".into(),
            Self::FirstPartyOrigin => "uninitialised value created in first-party code".into(),
            Self::ReachableFirstParty => {
                "still reachable at exit, allocated by first-party code (not a leak unless it grows)".into()
            }
            Self::UnknownFirstFrame(why) => format!(
                "its first frame cannot be placed as first-party or third-party: {}; to decide: {}",
                why.text(),
                why.remedy()
            ),
            Self::UnknownOrigin(why) => format!(
                "where its uninitialised value was created cannot be placed: {}; to decide: {}",
                why.text(),
                why.remedy()
            ),
            Self::ReachedFromFirstParty => "third-party code reached from first-party code".into(),
            Self::ReachedFromUnplaced(why) => format!(
                "third-party code reached from code that cannot be placed, possibly yours: {}; to decide: {}",
                why.text(),
                why.remedy()
            ),
            Self::NoRule => {
                "no rule can name its third-party frames (the log shows neither their objects nor their mangled names)".into()
            }
            Self::WouldHideKept => {
                "every rule for it would also hide a kept or reviewed error of these logs".into()
            }
            Self::ThirdParty => "third-party code".into(),
            Self::Existing => "already suppressed by a rule of the -s files".into(),
        }
    }

    /// A short name (JSON `reason`).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::FirstPartyFrame => "first-party-frame",
            Self::FirstPartyOrigin => "first-party-origin",
            Self::ReachableFirstParty => "reachable-first-party",
            Self::UnknownFirstFrame(_) => "unplaced-first-frame",
            Self::UnknownOrigin(_) => "unplaced-origin",
            Self::ReachedFromFirstParty => "reached-from-first-party",
            Self::ReachedFromUnplaced(_) => "reached-from-unplaced",
            Self::NoRule => "no-rule",
            Self::WouldHideKept => "would-hide-kept-or-reviewed",
            Self::ThirdParty => "third-party",
            Self::Existing => "existing-rule",
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
        function: f.and_then(function_label),
    }
}

/// How a frame is named to people: its function as printed; for a `???` frame, what the
/// log says of its object (`??? in libfoo.so`, `??? of unloaded libfoo.so`, `??? with no
/// object`), so that frames of different libraries are not taken for one place. (No
/// parentheses: shortened names drop a trailing parameter list.)
fn function_label(f: &FrameFacts<'_>) -> Option<String> {
    if let Some(n) = f.shown.or(f.fun) {
        return Some(String::from_utf8_lossy(n).into_owned());
    }
    let file = |p: &[u8]| {
        String::from_utf8_lossy(p.rsplit(|&b| b == b'/').next().unwrap_or(p)).into_owned()
    };
    match f.obj {
        Obj::Shown(p) => Some(format!("??? in {}", file(p))),
        Obj::Missing(Some(p)) => Some(format!("??? of unloaded {}", file(p))),
        Obj::Missing(None) => Some("??? with no object".to_owned()),
        Obj::Hidden => None,
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
    let first_origin = first.map_or(crate::origin::THIRD_PARTY_ID, |f| f.origin);
    if let Some(f) = first
        && let Party::Unknown(why) = f.party
    {
        return decision(
            Verdict::Review,
            Reason::UnknownFirstFrame(why),
            first_origin,
            Some(f),
        );
    }
    if let Some((o, why)) = origin_firsts.iter().find_map(|o| match o.party {
        Party::Unknown(why) => Some((o, why)),
        _ => None,
    }) {
        return decision(
            Verdict::Review,
            Reason::UnknownOrigin(why),
            first_origin,
            Some(o),
        );
    }
    let origin_known = is_uninitialised(err) && !origin_firsts.is_empty();
    if !reachable && !origin_known {
        let below = f0.map_or(frames.len(), |i| i + 1).min(frames.len());
        // What a library allocates for itself on the way (its one-time initialisation, a
        // thread of its own, a library it loads) is not the caller's.
        let own = |j: usize| {
            frames[f0.unwrap_or(0)..below + j]
                .iter()
                .any(|f| f.fun.or(f.shown).is_some_and(library_lifetime))
        };
        let reached = |t: Truth| {
            frames[below..]
                .iter()
                .position(|f| f.first_party == t && !f.is_shared_entry())
                .filter(|&j| !own(j))
        };
        // First-party code below says more than code that cannot be placed.
        if let Some(j) = reached(Truth::Yes) {
            let f = pointed(frames, below + j);
            return decision(
                Verdict::Review,
                Reason::ReachedFromFirstParty,
                first_origin,
                Some(f),
            );
        }
        if let Some(j) = reached(Truth::Unknown) {
            let f = &frames[below + j];
            let why = match f.party {
                Party::Unknown(why) => why,
                _ => Unplaced::HiddenObject,
            };
            return decision(
                Verdict::Review,
                Reason::ReachedFromUnplaced(why),
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
        let c = crate::origin::classify::test_classifier(fp);
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

    const FP: &[&str] = &["leaky_ext*"];

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
                "==1== 24 bytes in 1 blocks are {kind} in loss record 1 of 1\n{NEW}==1==    by 0x74A3: ??? (in /x/torch/lib/libc10.so)\n==1==    by 0x896B: at::detail::empty_generic() (in /x/torch/lib/libtorch_cpu.so)\n==1==    by 0xCB5A: tensor_leak(long) (leaky_ext.cpp:82)\n{MAIN}"
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
            "==1== 56 bytes in 1 blocks are definitely lost in loss record 1 of 1\n{NEW}==1==    by 0x54E3: ??? (in /x/libcudart.so.12)\n==1==    by 0x4D45: __pthread_once_slow (pthread_once.c:116)\n==1==    by 0x4A4F: cudaGetDeviceCount (in /x/libcudart.so.12)\n==1==    by 0xCB5A: probe_cuda() (leaky_ext.cpp:57)\n{MAIN}"
        );
        assert_eq!(verdict(&once, FP).verdict, Verdict::Suppress);
        // The same with the driver's `???` frames first (dlopened, then unloaded): nothing
        // says whose code allocated.
        let unloaded = once.replace("0x54E3: ??? (in /x/libcudart.so.12)", "0x54E3: ???");
        assert_eq!(
            (
                verdict(&unloaded, FP).verdict,
                verdict(&unloaded, FP).reason
            ),
            (
                Verdict::Review,
                Reason::UnknownFirstFrame(Unplaced::NoObject)
            )
        );
        // Named for people by what the log says of its object.
        assert_eq!(
            verdict(&unloaded, FP).function.as_deref(),
            Some("??? with no object")
        );
        let in_object = once.replace(
            "0x54E3: ??? (in /x/libcudart.so.12)",
            "0x54E3: ??? (in /x/libvendor.so.3)",
        );
        assert_eq!(
            verdict(&in_object, FP).function.as_deref(),
            Some("??? in libvendor.so.3")
        );
        // Reached from code that cannot be placed (a library no profile knows).
        let vendor = format!(
            "==1== 24 bytes in 1 blocks are definitely lost in loss record 1 of 1\n{NEW}==1==    by 0x896B: at::detail::empty_generic() (in /x/torch/lib/libtorch_cpu.so)\n==1==    by 0x7000: vendor_step (in /opt/vendor/libv.so)\n{MAIN}"
        );
        let d = verdict(&vendor, FP);
        assert_eq!(
            (d.verdict, d.reason),
            (
                Verdict::Review,
                Reason::ReachedFromUnplaced(Unplaced::Unclaimed)
            )
        );
        assert!(library_lifetime(
            b"_ZSt9call_onceIRFvvEJEEvRSt9once_flagOT_DpOT0_"
        ));
        assert!(library_lifetime(b"pthread_create@@GLIBC_2.34"));
        assert!(!library_lifetime(b"cudaGetDeviceCount"));
        // Only a first-party `main` above: the program's own code made the call, and may
        // own the block.
        let only_main = format!(
            "==1== 24 bytes in 1 blocks are definitely lost in loss record 1 of 1\n{NEW}==1==    by 0x896B: cudaGetErrorString (in /x/libcudart.so.12)\n==1==    by 0x1091: main (cudart_probe.c:24)\n"
        );
        let d = verdict(&only_main, &["cudart_probe*"]);
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Review, Reason::ReachedFromFirstParty)
        );
        assert_eq!(d.location.as_deref(), Some("cudart_probe.c:24"));
        // A third-party `main` (the interpreter's) is where every stack starts: it says
        // nothing about who called.
        let python_main =
            only_main.replace("main (cudart_probe.c:24)", "main (in /usr/bin/python3.11)");
        let d = verdict(&python_main, &["cudart_probe*"]);
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
            (
                Verdict::Review,
                Reason::UnknownFirstFrame(Unplaced::HiddenObject)
            )
        );
        // No first-party globs: nothing is first-party, but nothing claims `mine.cpp`.
        let d = verdict(&body, &[]);
        assert_eq!(
            (d.verdict, d.reason),
            (
                Verdict::Review,
                Reason::UnknownFirstFrame(Unplaced::HiddenObject)
            )
        );
    }
}
