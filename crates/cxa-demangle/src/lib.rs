//! A safe wrapper over `abi::__cxa_demangle` from libstdc++.
//!
//! libstdc++'s `__cxa_demangle` is libiberty's `cp-demangle.c` compiled into the C++
//! runtime, called with `DMGL_PARAMS | DMGL_TYPES`. For a name starting with `_Z` that is
//! the string `cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI)` gives (`DMGL_ANSI` is not
//! read by the v3 demangler, `DMGL_TYPES` only matters for names that do not start with
//! `_Z`), so it reproduces the C++ display of Valgrind, which bundles the same demangler.
//! It ships with g++ (every machine that builds C++ has it), so no `-dev` package is
//! needed to build.
//!
//! This crate holds the only `unsafe` code of vgsupp: one foreign call and one `free`.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

#[link(name = "stdc++")]
unsafe extern "C" {
    /// `char* abi::__cxa_demangle(const char* mangled, char* buf, size_t* n, int* status)`.
    fn __cxa_demangle(
        mangled: *const c_char,
        output_buffer: *mut c_char,
        length: *mut usize,
        status: *mut c_int,
    ) -> *mut c_char;
}

unsafe extern "C" {
    /// libc's `free`, which releases what `__cxa_demangle` allocated with `malloc`.
    fn free(ptr: *mut c_void);
}

/// The demangled form of `mangled` as libstdc++ prints it, or `None` when it is not a
/// valid mangled name (status -2), contains a NUL byte, or memory ran out (status -1).
///
/// Names that do not start with `_Z` are demangled as types (`i` → `int`), as
/// `__cxa_demangle` does; callers that want only symbol names check the prefix first.
#[must_use]
pub fn demangle(mangled: &str) -> Option<String> {
    let c = CString::new(mangled).ok()?;
    let mut status: c_int = 0;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call; a null
    // output buffer and length ask __cxa_demangle to allocate the result with malloc;
    // `status` is a valid place for the status code.
    let out = unsafe {
        __cxa_demangle(
            c.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &raw mut status,
        )
    };
    if out.is_null() {
        return None;
    }
    // SAFETY: on success __cxa_demangle returns a NUL-terminated string it allocated;
    // it stays valid until the `free` below.
    let text = unsafe { CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: `out` was allocated by malloc inside __cxa_demangle and is freed once.
    unsafe { free(out.cast()) };
    (status == 0).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn demangles_like_libiberty() {
        assert_eq!(
            demangle("_Znwm").as_deref(),
            Some("operator new(unsigned long)")
        );
        assert_eq!(
            demangle("_ZNK2ns3Box3getEi").as_deref(),
            Some("ns::Box::get(int) const")
        );
        assert_eq!(
            demangle("_ZNK2ns3Box3getEi.isra.0").as_deref(),
            Some("ns::Box::get(int) const [clone .isra.0]")
        );
        assert_eq!(
            demangle("_Z3maxIiET_S0_S0_").as_deref(),
            Some("int max<int>(int, int)")
        );
    }

    #[test]
    fn refuses_what_is_not_mangled() {
        assert_eq!(demangle("_Z"), None);
        assert_eq!(demangle("_Zxyz"), None);
        assert_eq!(demangle("a\0b"), None);
        assert_eq!(demangle(""), None);
    }

    #[test]
    fn is_thread_safe() {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..2000 {
                        assert_eq!(
                            demangle("_ZN1VIiE4pushERKi").as_deref(),
                            Some("V<int>::push(int const&)")
                        );
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread");
        }
    }
}
