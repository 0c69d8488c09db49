//! What each kind of error is, for reports: the [`Code`] a SARIF result, a JUnit case or
//! a Code Quality issue belongs to (`memcheck/Addr`, `memcheck/Leak/definite`), with its
//! descriptions and help.

use std::borrow::Cow;

use super::Finding;
use super::policy::base_kind;
use crate::diagnostic::{Code, Severity};
use crate::supp::model::LeakKind;

/// The kinds with their own rule: Memcheck's, then one per leak kind.
const MEMCHECK: &[(&str, &str, &str, &str, &str)] = &[
    (
        "Addr",
        "InvalidAccess",
        "Invalid memory access",
        "The program read or wrote memory it does not own: past the end of a block, freed memory, or an address no allocation covers (Memcheck: Invalid read/write).",
        "Look at the access stack and the block's stacks (allocated at, freed at): an index past the end, a pointer used after free, or a dangling reference. Build with -O0 -g for exact lines.",
    ),
    (
        "Value",
        "UninitialisedValue",
        "Use of an uninitialised value",
        "An uninitialised value was used in a way that can change the program's behaviour (Memcheck: Use of uninitialised value). With --track-origins=yes the origin stack shows where it was created.",
        "Initialise the variable or buffer where the origin stack says it was created, or before the use shown.",
    ),
    (
        "Cond",
        "UninitialisedCondition",
        "Conditional jump depends on an uninitialised value",
        "A branch depends on a value that was never initialised (Memcheck: Conditional jump or move depends on uninitialised value(s)).",
        "Initialise the value where the origin stack says it was created (record with --track-origins=yes to see it).",
    ),
    (
        "Param",
        "SyscallParam",
        "System call with an invalid or uninitialised argument",
        "A system call was passed unaddressable or uninitialised memory (Memcheck: Syscall param … points to uninitialised byte(s) / unaddressable byte(s)).",
        "Initialise the whole buffer passed to the call (padding bytes of a struct too), or pass the right length.",
    ),
    (
        "Free",
        "InvalidFree",
        "Invalid or mismatched free",
        "Memory was freed twice, freed when it was never allocated, or freed with the wrong function (Memcheck: Invalid free() / Mismatched free() / delete / delete[]).",
        "Free each block once, with the function matching its allocation (free for malloc, delete for new, delete[] for new[]).",
    ),
    (
        "Overlap",
        "OverlappingCopy",
        "Overlapping source and destination",
        "memcpy, strcpy or a similar function was called with overlapping source and destination (Memcheck: Source and destination overlap).",
        "Use memmove for overlapping ranges, or copy through a separate buffer.",
    ),
    (
        "Jump",
        "InvalidJump",
        "Jump to an invalid address",
        "The program jumped to an address that is not code (Memcheck: Jump to the invalid address): a corrupt function pointer or return address.",
        "Look for stack buffer overflows and function pointers used after their object was freed.",
    ),
    (
        "FishyValue",
        "FishyValue",
        "Suspicious allocation size",
        "An allocation function was called with an argument that looks negative (Memcheck: Argument … of function … has a fishy value).",
        "Check the size computation for overflow or a negative value.",
    ),
    (
        "ReallocZero",
        "ReallocZero",
        "realloc with size zero",
        "realloc was called with a size of zero, whose behaviour differs between C libraries (Memcheck: realloc() with size 0).",
        "Call free instead, or allocate at least one byte.",
    ),
];

const LEAKS: [(LeakKind, &str, &str, &str, &str); 4] = [
    (
        LeakKind::Definite,
        "DefiniteLeak",
        "Memory definitely lost",
        "A block no pointer refers to any more at exit: it can never be freed (Memcheck: definitely lost).",
        "Free the block on every path, or hold it in an owning type (std::unique_ptr, a container).",
    ),
    (
        LeakKind::Indirect,
        "IndirectLeak",
        "Memory indirectly lost",
        "A block only reachable from a lost block (Memcheck: indirectly lost): fixing the definite leak that holds it usually fixes it.",
        "Fix the definitely lost block that points to it.",
    ),
    (
        LeakKind::Possible,
        "PossibleLeak",
        "Memory possibly lost",
        "A block only an interior pointer refers to at exit (Memcheck: possibly lost). Real first-party leaks are often only possibly lost, e.g. objects reached through a pointer to a member or an array element.",
        "Free the block, or keep a pointer to its start for as long as it is used.",
    ),
    (
        LeakKind::Reachable,
        "StillReachable",
        "Memory still reachable at exit",
        "A block still pointed to at exit (Memcheck: still reachable): not a leak unless it grows with the work done.",
        "Free it at shutdown if it grows; a one-time allocation can stay.",
    ),
];

/// The rule of a finding.
#[must_use]
pub fn of(f: &Finding) -> Code {
    info(&f.kind, f.leak_kind)
}

/// The rule of a kind and leak kind.
#[must_use]
pub fn info(kind: &str, leak: Option<LeakKind>) -> Code {
    let code = |id: String, name, summary, why, fix, severity| Code {
        code: Cow::Owned(id),
        name,
        summary,
        why,
        fix,
        severity,
        fatal_in_valgrind: false,
        tags: &["memory", "valgrind", "security"],
    };
    if kind == "Leak" {
        let l = leak.unwrap_or(LeakKind::Definite);
        if let Some((k, name, short, full, help)) = LEAKS.iter().find(|e| e.0 == l) {
            // Still-reachable memory is a note: it fails only when asked.
            let severity = if *k == LeakKind::Reachable {
                Severity::Info
            } else {
                Severity::Error
            };
            return code(
                format!("memcheck/Leak/{}", k.token()),
                name,
                short,
                full,
                help,
                severity,
            );
        }
    }
    let base = base_kind(kind);
    match MEMCHECK.iter().find(|e| e.0 == base) {
        Some((k, name, short, full, help)) => code(
            format!("memcheck/{k}"),
            name,
            short,
            full,
            help,
            Severity::Error,
        ),
        None => code(
            format!("valgrind/{base}"),
            "ValgrindError",
            "Error reported by Valgrind",
            "An error a Valgrind tool reported in first-party code.",
            "See the Valgrind manual for this kind of error and the stacks reported with it.",
            Severity::Error,
        ),
    }
}

/// Every rule, in a stable order (the SARIF driver lists them all, so rule indices do
/// not depend on what was found).
#[must_use]
pub fn all() -> Vec<Code> {
    MEMCHECK
        .iter()
        .map(|e| info(e.0, None))
        .chain(LEAKS.iter().map(|e| info("Leak", Some(e.0))))
        .collect()
}

/// A finding's one-line title: `Memory definitely lost in leak_tensor(int)`.
#[must_use]
pub fn title(f: &Finding) -> String {
    let k = of(f);
    match f
        .function
        .as_deref()
        .or_else(|| f.detail.primary().and_then(|p| p.function.as_deref()))
    {
        Some(fun) => format!("{} in {}", k.summary, crate::r#gen::names::short(fun)),
        None => k.summary.to_owned(),
    }
}
