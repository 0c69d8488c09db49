//! Stable exported API frames: where an anchored rule stops (PRODUCT.md §4).
//!
//! A rule that names the library's public entry point the allocation (or the bad access)
//! happened under survives a new release: internal functions are renamed, inlined, cloned
//! and reordered from release to release; `cuInit`, `cudaGetDeviceCount`,
//! `PyUnicode_New` and `at::empty_cpu` stay. What counts as API, by what the log shows
//! of a name:
//!
//! * a C name in a stripped library (`??? (in …)` around it): only exported symbols keep
//!   their names there, so any name without a leading `_` is API;
//! * CPython's C API: `Py` + an upper-case letter or `_` (`PyObject_Malloc`, `Py_RunMain`);
//!   CPython ships symbols for its static functions, so other names are internal;
//! * a mangled C++ name that is not local to a function (`_ZZ…`: lambdas, statics) and not
//!   in an anonymous namespace;
//! * any other C name without a leading `_`, outside CPython, and not a GCC clone
//!   (`.isra.0`, `.part.1`: clones are made of static functions).

use crate::origin::{Classifier, OriginId};

/// Whether `name` (the matcher's name: mangled or C) of a frame of `origin` is a stable API
/// frame to anchor a rule at.
#[must_use]
pub fn is_api(classifier: &Classifier, origin: OriginId, name: &[u8]) -> bool {
    if name.is_empty() || name == b"???" || name.starts_with(b"(") || name == b"main" {
        return false;
    }
    if name.contains(&b'.') {
        // A GCC clone or a versioned symbol (`pthread_create@@GLIBC_2.34` has `@`).
        return false;
    }
    if name.starts_with(b"_Z") {
        // The standard library's templates compiled into another library are that
        // library's implementation details, not its API.
        let std = [
            &b"_ZNSt"[..],
            b"_ZNKSt",
            b"_ZSt",
            b"_ZNSa",
            b"_ZN9__gnu_cxx",
            b"_ZNK9__gnu_cxx",
        ]
        .iter()
        .any(|p| name.starts_with(p));
        if std && classifier.origin_name(origin) != "system" {
            return false;
        }
        return !name.starts_with(b"_ZZ")
            && !name.starts_with(b"_ZL")
            && !contains(name, b"_GLOBAL__N")
            && !name.starts_with(b"_ZTh")
            && !name.starts_with(b"_ZTv")
            && !reserved_global(name);
    }
    if !name
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'@')
    {
        // Not a symbol: an inlined function's `DW_AT_name` with template arguments.
        return false;
    }
    if classifier.origin_name(origin) == "python" {
        return name.len() > 2
            && name.starts_with(b"Py")
            && (name[2].is_ascii_uppercase() || name[2] == b'_');
    }
    !name.starts_with(b"_") && !name.contains(&b'@')
}

/// `_Z41__static_initialization_and_destruction_0ii`: a global function whose name is
/// reserved to the implementation (`__…`): compiler-made, one per translation unit.
fn reserved_global(name: &[u8]) -> bool {
    let rest = &name[2..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && rest[digits..].starts_with(b"__")
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_frames() {
        let c = crate::origin::classify::test_classifier(&[]);
        let python = c.object(b"/usr/lib/libpython3.11.so.1.0").origin();
        let cuda = c.object(b"/usr/lib/libcuda.so.1").origin();
        let api = |o, n: &str| is_api(&c, o, n.as_bytes());
        assert!(api(cuda, "cuInit"));
        assert!(api(cuda, "cudaGetDeviceCount"));
        assert!(!api(cuda, "???"));
        assert!(api(python, "PyUnicode_New"));
        assert!(api(python, "Py_RunMain"));
        assert!(!api(python, "_PyObject_Malloc"));
        assert!(!api(python, "new_keys_object"));
        assert!(!api(python, "Python_private"), "Pyt…: not Py + upper case");
        assert!(api(cuda, "_ZN2at6native9empty_cpuEv"));
        assert!(!api(cuda, "_ZZN2at4mainEvENKUlvE_clEv"));
        assert!(!api(cuda, "_ZN2at12_GLOBAL__N_13fooEv"));
        assert!(!api(
            cuda,
            "_ZL23pybind11_init_leaky_extRN8pybind117module_E"
        ));
        assert!(!api(cuda, "foo.isra.0"));
        assert!(!api(cuda, "pthread_create@@GLIBC_2.34"));
        assert!(!api(cuda, "_dl_open"));
        assert!(!api(cuda, "(below main)"));
        assert!(!api(cuda, "main"));
        assert!(!api(cuda, "tget<int>"));
        assert!(!api(
            cuda,
            "_Z41__static_initialization_and_destruction_0ii"
        ));
        // std:: templates: API of libstdc++ only.
        let torch = c.object(b"/x/torch/lib/libtorch_cpu.so").origin();
        let libstdcxx = c
            .object(b"/usr/lib/x86_64-linux-gnu/libstdc++.so.6")
            .origin();
        assert!(!api(torch, "_ZNSt10_HashtableIiiE9_M_rehashEmRKm"));
        assert!(api(libstdcxx, "_ZNSt6locale5_ImplC2Em"));
    }
}
