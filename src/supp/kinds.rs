//! Tools, Valgrind releases and the suppression kinds each accepts (valgrind-semantics.md
//! §1.4–§1.6, §6).

use std::fmt;
use std::str::FromStr;

/// A Valgrind release, by minor version of the 3.x series (3.14 … 3.27).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    minor: u8,
}

/// The oldest release vgsupp models (`src:` frames appeared in 3.14.0).
pub const OLDEST: Version = Version { minor: 14 };
/// The newest release vgsupp models; the default target.
pub const NEWEST: Version = Version { minor: 27 };

impl Version {
    /// 3.`minor`, if vgsupp models it.
    #[must_use]
    pub const fn new(minor: u8) -> Option<Self> {
        if minor >= OLDEST.minor && minor <= NEWEST.minor {
            Some(Self { minor })
        } else {
            None
        }
    }

    /// The minor version number.
    #[must_use]
    pub const fn minor(self) -> u8 {
        self.minor
    }

    const fn at_least(self, minor: u8) -> bool {
        self.minor >= minor
    }
}

impl Default for Version {
    fn default() -> Self {
        NEWEST
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "3.{}", self.minor)
    }
}

/// Why a version string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unsupported Valgrind version `{0}`: vgsupp models 3.14 to 3.27 (write e.g. 3.19 or 3.19.0)"
)]
pub struct VersionError(pub String);

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || VersionError(s.to_owned());
        let s2 = s.trim().trim_start_matches("valgrind-");
        let mut parts = s2.split('.');
        let (Some("3"), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(err());
        };
        if parts.clone().count() > 1 || parts.any(|p| p.parse::<u32>().is_err()) {
            return Err(err());
        }
        minor.parse::<u8>().ok().and_then(Self::new).ok_or_else(err)
    }
}

/// A Valgrind tool that reads suppression files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tool {
    /// Memcheck (`Memcheck`).
    Memcheck,
    /// Helgrind (`Helgrind`).
    Helgrind,
    /// DRD (`drd`, lower case).
    Drd,
}

impl Tool {
    /// Every tool with errors, in a stable order.
    pub const ALL: [Self; 3] = [Self::Memcheck, Self::Helgrind, Self::Drd];

    /// The name Valgrind compares with the tool list (`VG_(details).name`).
    #[must_use]
    pub const fn supp_name(self) -> &'static str {
        match self {
            Self::Memcheck => "Memcheck",
            Self::Helgrind => "Helgrind",
            Self::Drd => "drd",
        }
    }

    /// The `--tool=` value.
    #[must_use]
    pub const fn cli_name(self) -> &'static str {
        match self {
            Self::Memcheck => "memcheck",
            Self::Helgrind => "helgrind",
            Self::Drd => "drd",
        }
    }

    /// Whether the tool "needs core errors", so that it reads core suppressions (§1.4).
    #[must_use]
    pub const fn needs_core_errors(self, v: Version) -> bool {
        match self {
            Self::Memcheck | Self::Helgrind => true,
            Self::Drd => v.at_least(23),
        }
    }

    /// Whether the tool accepts `kind` in release `v` (`recognised_suppression`).
    #[must_use]
    pub fn recognises(self, kind: &[u8], v: Version) -> bool {
        match self {
            Self::Memcheck => memcheck_kind(kind, v).is_some(),
            Self::Helgrind => {
                HELGRIND_KINDS.contains(&kind) || (kind == b"Dubious" && v.at_least(21))
            }
            Self::Drd => DRD_KINDS.contains(&kind),
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

impl FromStr for Tool {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "memcheck" | "Memcheck" => Ok(Self::Memcheck),
            "helgrind" | "Helgrind" => Ok(Self::Helgrind),
            "drd" => Ok(Self::Drd),
            _ => Err(format!("unknown tool `{s}` (memcheck, helgrind or drd)")),
        }
    }
}

/// Tools that exist but have no errors: they never read suppression files (§1.4).
pub const ERRORLESS_TOOLS: [&str; 7] = [
    "Massif",
    "DHAT",
    "Cachegrind",
    "Callgrind",
    "Lackey",
    "Nulgrind",
    "exp-bbv",
];

const HELGRIND_KINDS: [&[u8]; 8] = [
    b"Race",
    b"FreeMemLock",
    b"UnlockUnlocked",
    b"UnlockForeign",
    b"UnlockBogus",
    b"PthAPIerror",
    b"LockOrder",
    b"Misc",
];

const DRD_KINDS: [&[u8]; 14] = [
    b"ConflictingAccess",
    b"MutexErr",
    b"CondErr",
    b"CondDestrErr",
    b"CondRaceErr",
    b"CondWaitErr",
    b"SemaphoreErr",
    b"BarrierErr",
    b"RwlockErr",
    b"HoldtimeErr",
    b"GenericErr",
    b"InvalidThreadId",
    b"UnimpHgClReq",
    b"UnimpDrdClReq",
];

/// The extra line a Memcheck kind reads (§1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtraSpec {
    /// No extra line.
    None,
    /// `Param`: mandatory syscall-param string.
    Param,
    /// `Leak`: optional `match-leak-kinds:` line.
    Leak,
    /// `FishyValue`: `FUNC(ARG)` (absent: loads, then crashes Valgrind on a FishyValue error).
    Fishy,
}

/// Memcheck's kinds: `Some(extra)` when `kind` is accepted by release `v`.
#[must_use]
pub fn memcheck_kind(kind: &[u8], v: Version) -> Option<ExtraSpec> {
    let plain = Some(ExtraSpec::None);
    match kind {
        b"Param" => Some(ExtraSpec::Param),
        b"Leak" => Some(ExtraSpec::Leak),
        b"FishyValue" => Some(ExtraSpec::Fishy),
        b"User" | b"CoreMem" | b"Jump" | b"Free" | b"Overlap" | b"Mempool" | b"Cond"
        | b"Value0" | b"Value1" | b"Value2" | b"Value4" | b"Value8" | b"Value16" | b"Value32"
        | b"Addr1" | b"Addr2" | b"Addr4" | b"Addr8" | b"Addr16" | b"Addr32" => plain,
        b"ReallocZero" if v.at_least(21) => plain,
        b"BadAlign" | b"BadSize" | b"SizeMismatch" | b"AlignMismatch" if v.at_least(22) => plain,
        b"UnsafeZeroSize" if v.at_least(26) => plain,
        _ => None,
    }
}

/// The first release (minor) that accepts `kind` for `tool`, when some release does.
#[must_use]
pub fn kind_since(tool: Tool, kind: &[u8]) -> Option<u8> {
    (OLDEST.minor..=NEWEST.minor)
        .find(|&m| Version::new(m).is_some_and(|v| tool.recognises(kind, v)))
}

/// The core pseudo-tool's name in release `v`: `core` up to 3.22, `CoreError` from 3.23.
#[must_use]
pub const fn core_tool_name(v: Version) -> &'static str {
    if v.at_least(23) { "CoreError" } else { "core" }
}

/// Whether release `v` accepts a core suppression kind (§1.5 "Core errors").
#[must_use]
pub fn core_kind_recognised(kind: &[u8], v: Version) -> bool {
    match kind {
        b"FdBadClose" | b"FdNotClosed" => v.at_least(23),
        b"FdBadUse" => v.at_least(25),
        _ => false,
    }
}

/// `tool_name_present` (§1.4): the **first** occurrence of `name` in `list` must be bounded by
/// the start or a `,` on the left and by a `,` or the end on the right; later occurrences are
/// never examined.
#[must_use]
pub fn tool_name_present(name: &[u8], list: &[u8]) -> bool {
    let Some(pos) = memchr::memmem::find(list, name) else {
        return false;
    };
    let left_ok = pos == 0 || list[pos - 1] == b',';
    let right = pos + name.len();
    left_ok && (right == list.len() || list[right] == b',')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_name_present_quirks() {
        // §1.4, P32/P33/P47/P48/P31.
        assert!(!tool_name_present(b"Memcheck", b"MemcheckX,Memcheck"));
        assert!(!tool_name_present(b"Memcheck", b"XMemcheck,Memcheck"));
        assert!(tool_name_present(b"Memcheck", b"Memcheck,MemcheckX"));
        assert!(tool_name_present(b"Memcheck", b",Memcheck"));
        assert!(!tool_name_present(b"Memcheck", b""));
        assert!(!tool_name_present(b"Memcheck", b"Helgrind, Memcheck"));
        assert!(!tool_name_present(b"Memcheck", b"Memcheck "));
        assert!(tool_name_present(b"drd", b"Memcheck,drd"));
    }

    #[test]
    fn versioned_kinds() {
        let v19 = Version::new(19).unwrap();
        let v27 = Version::new(27).unwrap();
        assert!(!Tool::Memcheck.recognises(b"ReallocZero", v19));
        assert!(Tool::Memcheck.recognises(b"ReallocZero", v27));
        assert!(Tool::Memcheck.recognises(b"BadSize", v27));
        assert!(!Tool::Memcheck.recognises(b"UnsafeZeroSize", Version::new(25).unwrap()));
        assert!(!Tool::Helgrind.recognises(b"Dubious", v19));
        assert!(Tool::Drd.recognises(b"ConflictingAccess", v19));
        assert_eq!(kind_since(Tool::Memcheck, b"BadAlign"), Some(22));
        assert!(!core_kind_recognised(
            b"FdBadUse",
            Version::new(24).unwrap()
        ));
        assert!(core_kind_recognised(b"FdBadUse", Version::new(25).unwrap()));
    }

    #[test]
    fn version_parsing() {
        assert_eq!("3.19.0".parse::<Version>().unwrap().minor(), 19);
        assert_eq!("3.27".parse::<Version>().unwrap(), NEWEST);
        assert!("3.13".parse::<Version>().is_err());
        assert!("4.0".parse::<Version>().is_err());
        assert!("3.x".parse::<Version>().is_err());
    }
}
