//! Error kinds: an XML `<kind>` mapped to the suppression kind, with its parameters.

use crate::logs::bytes::{after, find, leading_number, rfind, trim};
use crate::logs::record::LossRecord;
use crate::supp::model::LeakKind;

/// The suppression kind of an error and the facts that come with it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct KindInfo {
    pub(super) name: String,
    pub(super) size: Option<u32>,
    pub(super) param: Option<Vec<u8>>,
    pub(super) fishy: Option<(Vec<u8>, Vec<u8>)>,
    pub(super) leak: Option<LossRecord>,
}

/// Maps an XML `<kind>` to the suppression kind, as `MC_(get_error_name)` names Memcheck's;
/// Helgrind's, DRD's and core kinds are their own names. `what` is the raw `<what>` text,
/// `extra` the generated suppression's extra line if any.
pub(super) fn error_kind(
    xml_kind: &str,
    what: &[u8],
    extra: Option<&[u8]>,
    leaked: (Option<u64>, Option<u64>),
    new_names: bool,
) -> KindInfo {
    let mut info = KindInfo::default();
    let name: String = match xml_kind {
        "InvalidRead" | "InvalidWrite" => {
            info.size = size_after(what, b"of size ");
            info.size
                .map_or_else(|| "Addr".to_owned(), |n| format!("Addr{n}"))
        }
        "UninitValue" => {
            info.size = size_after(what, b"of size ");
            info.size
                .map_or_else(|| "Value".to_owned(), |n| format!("Value{n}"))
        }
        "UninitCondition" => "Cond".to_owned(),
        "SyscallParam" => {
            info.param = syscall_param(what).or_else(|| extra.map(|e| trim(e).to_vec()));
            "Param".to_owned()
        }
        "ClientCheck" => "User".to_owned(),
        "InvalidFree" | "MismatchedFree" => "Free".to_owned(),
        "InvalidJump" => "Jump".to_owned(),
        "Overlap" => "Overlap".to_owned(),
        "InvalidMemPool" => "Mempool".to_owned(),
        "CoreMemError" => "CoreMem".to_owned(),
        "FishyValue" => {
            info.fishy = fishy_value(what).or_else(|| extra.and_then(fishy_extra));
            "FishyValue".to_owned()
        }
        "ReallocSizeZero" => "ReallocZero".to_owned(),
        "InvalidSizeAndAlignment" | "InvalidAlignment" => "BadAlign".to_owned(),
        "InvalidSize" => if new_names {
            "UnsafeZeroSize"
        } else {
            "BadSize"
        }
        .to_owned(),
        "MismatchedAllocateDeallocateSize" => "SizeMismatch".to_owned(),
        "MismatchedAllocateDeallocateAlignment" => "AlignMismatch".to_owned(),
        k if k.starts_with("Leak_") => {
            info.leak = Some(loss_record(k, what, leaked));
            "Leak".to_owned()
        }
        // Helgrind, DRD and core errors: `<kind>` is the suppression kind.
        k => k.to_owned(),
    };
    info.name = name;
    info
}

/// `N` in `… of size N`.
pub(super) fn size_after(what: &[u8], needle: &[u8]) -> Option<u32> {
    after(what, needle)
        .and_then(leading_number)
        .and_then(|n| u32::try_from(n).ok())
}

/// `write(buf)` in `Syscall param write(buf) points to uninitialised byte(s)`.
pub(super) fn syscall_param(what: &[u8]) -> Option<Vec<u8>> {
    let rest = what.strip_prefix(b"Syscall param ")?;
    let end = [&b" points to "[..], b" contains "]
        .iter()
        .filter_map(|n| rfind(rest, n))
        .max()?;
    Some(rest[..end].to_vec())
}

/// `(malloc, size)` in `Argument 'size' of function malloc has a fishy (possibly negative)
/// value: -1`.
pub(super) fn fishy_value(what: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let rest = what.strip_prefix(b"Argument '")?;
    let q = memchr::memchr(b'\'', rest)?;
    let arg = &rest[..q];
    let after = after(&rest[q..], b" of function ")?;
    let end = find(after, b" has a fishy")?;
    Some((after[..end].to_vec(), arg.to_vec()))
}

/// `(malloc, size)` from the extra line `malloc(size)`.
pub(super) fn fishy_extra(extra: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let open = memchr::memchr(b'(', extra)?;
    let close = open + memchr::memchr(b')', &extra[open..])?;
    Some((
        trim(&extra[..open]).to_vec(),
        extra[open + 1..close].to_vec(),
    ))
}

pub(super) fn loss_record(
    kind: &str,
    what: &[u8],
    leaked: (Option<u64>, Option<u64>),
) -> LossRecord {
    let leak_kind = match kind {
        "Leak_DefinitelyLost" => LeakKind::Definite,
        "Leak_IndirectlyLost" => LeakKind::Indirect,
        "Leak_PossiblyLost" => LeakKind::Possible,
        "Leak_StillReachable" => LeakKind::Reachable,
        _ if find(what, b"indirectly lost").is_some() => LeakKind::Indirect,
        _ if find(what, b"possibly lost").is_some() => LeakKind::Possible,
        _ if find(what, b"still reachable").is_some() => LeakKind::Reachable,
        _ => LeakKind::Definite,
    };
    let bytes = leaked.0.or_else(|| leading_number(what)).unwrap_or(0);
    let blocks = leaked
        .1
        .or_else(|| after(what, b" bytes in ").and_then(leading_number))
        .unwrap_or(0);
    let (index, total) = after(what, b"loss record ")
        .map(|rest| {
            let index = leading_number(rest);
            let total = after(rest, b" of ").and_then(leading_number);
            (index.unwrap_or(0), total.unwrap_or(0))
        })
        .unwrap_or((0, 0));
    LossRecord {
        kind: leak_kind,
        bytes,
        blocks,
        index,
        total,
    }
}
