//! Names that survive an upgrade: version-free object globs, clone-suffix globs, and
//! mangled names without their parameter lists.
//!
//! Valgrind's `obj:` compares the full resolved path and its `*` also matches `/`
//! (valgrind-semantics.md §2.5), so `*/libcuda.so*` matches the driver wherever it is
//! installed and whatever its version. A rule never names a directory: install prefixes,
//! distributions and virtual environments differ from machine to machine.

/// A version-free glob for an object path: `*/` and its file name with every version
/// globbed (`/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05` → `*/libcuda.so*`,
/// `…/libpython3.11.so.1.0` → `*/libpython3*.so*`,
/// `…/_ctypes.cpython-311-x86_64-linux-gnu.so` → `*/_ctypes.cpython-*.so`,
/// `…/numpy.libs/libgfortran-040039e1-0352e75f.so.5.0.0` → `*/libgfortran-*.so*`).
/// An executable keeps its directory's name (`*/bin/python3*`): a bare `*/python3*`
/// would also match every path under `lib/python3.11/`.
#[must_use]
pub fn object_glob(path: &[u8]) -> Vec<u8> {
    let path = String::from_utf8_lossy(path);
    let mut parts = path.rsplit('/');
    let name = parts.next().unwrap_or(&path);
    let parent = parts.next().filter(|p| !p.is_empty());
    let mut out = String::from("*/");
    if let Some(at) = name.find(".so") {
        let (stem, rest) = name.split_at(at);
        if stem.ends_with(".cpython") || stem.contains(".cpython-") {
            // A CPython extension module: `X.cpython-311-x86_64-linux-gnu.so`.
            let base = &stem[..stem.find(".cpython").unwrap_or(stem.len())];
            out.push_str(&stem_glob(base));
            out.push_str(".cpython-*.so");
            return out.into_bytes();
        }
        if let Some(abi) = stem.strip_suffix(".abi3") {
            out.push_str(&stem_glob(abi));
            out.push_str(".abi3.so");
            return out.into_bytes();
        }
        out.push_str(&stem_glob(stem));
        out.push_str(".so");
        // `.so` alone, or a version suffix (`.so.1.0`): one `*` covers both.
        if rest.len() > 3 || name.ends_with(".so") {
            out.push('*');
        }
        return out.into_bytes();
    }
    if let Some(dir) = parent
        && !is_versioned(dir)
    {
        out.push_str(dir);
        out.push('/');
    }
    out.push_str(&stem_glob(name));
    out.into_bytes()
}

/// Whether a path component is (or holds) a version: `3.11.7`, `python3.11`, `cu13`.
fn is_versioned(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

/// A file-name stem with versions and build hashes globbed: a trailing version
/// (`libpython3.11` → `libpython3*`: the major version stays, the rest is a `*`),
/// `-HASH` parts of vendored wheels' libraries (`libgfortran-040039e1-0352e75f` →
/// `libgfortran-*`).
fn stem_glob(stem: &str) -> String {
    // Hash parts: `-` followed by 8+ hex digits, to the end.
    let mut s = stem.to_owned();
    if let Some(at) = s
        .match_indices('-')
        .map(|(i, _)| i)
        .find(|&i| is_hash_run(&s[i + 1..]))
    {
        s.truncate(at + 1);
        s.push('*');
        return s;
    }
    // A trailing dotted version after a letter: keep its first digit (a major version
    // is part of the name: `libpython3` is not `libpython2`).
    let bytes = s.as_bytes();
    let mut start = bytes.len();
    while start > 0 && (bytes[start - 1].is_ascii_digit() || bytes[start - 1] == b'.') {
        start -= 1;
    }
    let version = &s[start..];
    if version.contains('.') && start > 0 && bytes[start - 1].is_ascii_alphabetic() {
        let major_end = version.find('.').unwrap_or(version.len());
        let mut out = s[..start + major_end].to_owned();
        out.push('*');
        return out;
    }
    s
}

/// `040039e1-0352e75f` or `32a4b2a6`: hex runs of 8+ digits separated by `-`.
fn is_hash_run(s: &str) -> bool {
    !s.is_empty()
        && s.split('-')
            .all(|p| p.len() >= 8 && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The start of a GCC clone suffix (`.isra.0`, `.part.3`, `.cold`, `.constprop.0`,
/// `.lto_priv.0`, and combinations), if the name has one.
fn clone_suffix(name: &[u8]) -> Option<usize> {
    const CLONES: [&[u8]; 6] = [
        b".isra",
        b".part",
        b".cold",
        b".constprop",
        b".lto_priv",
        b".localalias",
    ];
    name.windows(5)
        .enumerate()
        .filter(|(i, _)| name[*i] == b'.')
        .map(|(i, _)| i)
        .find(|&i| CLONES.iter().any(|c| name[i..].starts_with(c)))
}

/// Where a name's generated suffix starts: a GCC clone suffix, or a symbol version
/// (`pthread_create@@GLIBC_2.34`: glibc debug symbols carry it, older glibcs another).
pub(crate) fn suffix(name: &[u8]) -> Option<usize> {
    let version = name.iter().position(|&b| b == b'@').filter(|&i| i > 0);
    match (clone_suffix(name), version) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `fun:` pattern for a name as it is: only GCC clone suffixes and symbol versions
/// globbed (`foo.isra.0` → `foo*`: a new compiler may clone it differently, or not at
/// all; `pthread_create@@GLIBC_2.34` → `pthread_create*`) and `operator new`'s size type
/// (`_Znwm`/`_Znwj` → `_Znw*`).
#[must_use]
pub fn fun_glob(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 1);
    write_fun_glob(name, &mut out);
    out
}

/// [`fun_glob`], appended to `out`.
pub fn write_fun_glob(name: &[u8], out: &mut Vec<u8>) {
    let base = &name[..suffix(name).unwrap_or(name.len())];
    if let Some(op) = allocation_operator(base) {
        out.extend_from_slice(op);
        return;
    }
    out.extend_from_slice(base);
    if base.len() != name.len() {
        out.push(b'*');
    }
}

/// `operator new`/`new[]`/`delete`/`delete[]` in any of their overloads, as one glob:
/// the size type differs between 32- and 64-bit (`_Znwm`, `_Znwj`), and the aligned and
/// nothrow overloads are the same allocation for a rule's purpose.
fn allocation_operator(name: &[u8]) -> Option<&'static [u8]> {
    const OPS: [(&[u8], &[u8]); 4] = [
        (b"_Znw", b"_Znw*"),
        (b"_Zna", b"_Zna*"),
        (b"_Zdl", b"_Zdl*"),
        (b"_Zda", b"_Zda*"),
    ];
    OPS.iter()
        .find(|(p, _)| name.starts_with(p) && name.len() > p.len())
        .map(|(_, g)| *g)
}

/// The mangled name of Valgrind's replacement for a C++ allocation operator shown
/// demangled (`operator new(unsigned long)` → `_Znw*`), for logs without mangled names.
#[must_use]
pub fn demangled_operator(shown: &[u8]) -> Option<&'static [u8]> {
    const OPS: [(&[u8], &[u8]); 4] = [
        (b"operator new[](", b"_Zna*"),
        (b"operator new(", b"_Znw*"),
        (b"operator delete[](", b"_Zda*"),
        (b"operator delete(", b"_Zdl*"),
    ];
    OPS.iter()
        .find(|(p, _)| shown.starts_with(p))
        .map(|(_, g)| *g)
}

/// `fun:` pattern for an anchor: a mangled C++ name without what changes between
/// releases — its parameter list and template arguments (`_ZN2at6native9empty_cpuEN3c10…`
/// → `_ZN2at6native9empty_cpu*`) — and clone suffixes. A C name is kept (`cuInit`).
#[must_use]
pub fn anchor_glob(name: &[u8]) -> Vec<u8> {
    let base = &name[..suffix(name).unwrap_or(name.len())];
    if let Some(op) = allocation_operator(base) {
        return op.to_vec();
    }
    match mangled_prefix(base) {
        Some(end) if end < base.len() => {
            let mut out = base[..end].to_vec();
            out.push(b'*');
            out
        }
        _ => fun_glob(name),
    }
}

/// Where the qualified name of a mangled function ends: after the last `<length><id>`
/// component of `_ZN…E` (or `_Z<length><id>`), before template arguments, special
/// members and the parameter list. `None` when the name is not of that simple shape
/// (local entities `_ZZ`, substitutions, operators): then it is kept whole.
fn mangled_prefix(name: &[u8]) -> Option<usize> {
    let rest = name.strip_prefix(b"_Z")?;
    let mut i = 2;
    let nested = rest.first() == Some(&b'N');
    if nested {
        i += 1;
        // CV- and ref-qualifiers of a member function.
        while matches!(name.get(i), Some(b'K' | b'V' | b'r' | b'R' | b'O')) {
            i += 1;
        }
        if name[i..].starts_with(b"St") {
            i += 2;
        }
    }
    let mut components = 0;
    loop {
        let digits = name[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            break;
        }
        let len: usize = std::str::from_utf8(&name[i..i + digits])
            .ok()?
            .parse()
            .ok()?;
        let end = i.checked_add(digits)?.checked_add(len)?;
        if end > name.len() {
            return None;
        }
        i = end;
        components += 1;
        if !nested {
            break;
        }
    }
    // One component is a namespace-less function (`_Z3foov`); a nested name needs two.
    (components >= if nested { 2 } else { 1 }).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(p: &str) -> String {
        String::from_utf8(object_glob(p.as_bytes())).expect("utf-8")
    }

    #[test]
    fn object_globs_have_no_versions_or_directories() {
        let cases = [
            (
                "/home/dev/libcuda-535/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.309.01",
                "*/libcuda.so*",
            ),
            (
                "/home/dev/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcublasLt.so.13",
                "*/libcublasLt.so*",
            ),
            (
                "/home/dev/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so",
                "*/libtorch_cpu.so*",
            ),
            (
                "/opt/python/3.11.7/lib/libpython3.11.so.1.0",
                "*/libpython3*.so*",
            ),
            ("/opt/python/3.11.7/bin/python3.11", "*/bin/python3*"),
            (
                "/opt/python/3.11.7/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so",
                "*/_ctypes.cpython-*.so",
            ),
            (
                "/home/dev/venv/lib/python3.11/site-packages/numpy.libs/libgfortran-040039e1-0352e75f.so.5.0.0",
                "*/libgfortran-*.so*",
            ),
            (
                "/home/dev/venv/lib/python3.11/site-packages/numpy.libs/libscipy_openblas64_-32a4b2a6.so",
                "*/libscipy_openblas64_-*.so*",
            ),
            (
                "/home/dev/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc-builtins.so.13.2",
                "*/libnvrtc-builtins.so*",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
                "*/libstdc++.so*",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                "*/ld-linux-x86-64.so*",
            ),
            ("/usr/lib/x86_64-linux-gnu/libc.so.6", "*/libc.so*"),
            ("/opt/x/foo.abi3.so", "*/foo.abi3.so"),
            ("/usr/bin/prog", "*/bin/prog"),
            (
                "/home/dev/leaky_ext/build/cudart_probe_cu12",
                "*/build/cudart_probe_cu12",
            ),
        ];
        for (path, want) in cases {
            assert_eq!(o(path), want, "{path}");
        }
    }

    #[test]
    fn object_globs_match_other_versions_and_prefixes() {
        use crate::matcher::wildcard::glob_match;
        let pairs = [
            (
                "/home/dev/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcudart.so.13",
                "/opt/conda/envs/x/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12",
            ),
            (
                "/opt/python/3.11.7/lib/libpython3.11.so.1.0",
                "/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0",
            ),
            (
                "/opt/python/3.11.7/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so",
                "/usr/lib/python3.12/lib-dynload/_ctypes.cpython-312-x86_64-linux-gnu.so",
            ),
            (
                "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.104.05",
                "/usr/lib64/libcuda.so.550.54.15",
            ),
        ];
        for (a, b) in pairs {
            let g = object_glob(a.as_bytes());
            assert!(glob_match(&g, a.as_bytes()), "{a}");
            assert!(
                glob_match(&g, b.as_bytes()),
                "{} vs {b}",
                String::from_utf8_lossy(&g)
            );
        }
        // …but not neighbours.
        assert!(!glob_match(b"*/libcuda.so*", b"/usr/lib/libcudart.so.12"));
        assert!(!glob_match(
            b"*/bin/python3*",
            b"/home/dev/venv/lib/python3.11/site-packages/torch/lib/libtorch.so"
        ));
    }

    #[test]
    fn clone_suffixes_and_operators() {
        let f = |n: &str| String::from_utf8(fun_glob(n.as_bytes())).expect("utf-8");
        assert_eq!(f("pyinit_core.constprop.0"), "pyinit_core*");
        assert_eq!(
            f("_ZN2at6native12_GLOBAL__N_13fooEv.isra.0"),
            "_ZN2at6native12_GLOBAL__N_13fooEv*"
        );
        assert_eq!(f("foo.part.3.cold"), "foo*");
        assert_eq!(f("_Znwm"), "_Znw*");
        assert_eq!(f("_Znaj"), "_Zna*");
        assert_eq!(f("_ZdlPvm"), "_Zdl*");
        assert_eq!(f("malloc"), "malloc");
        assert_eq!(f("a.b"), "a.b");
        assert_eq!(f("pthread_setspecific@@GLIBC_2.34"), "pthread_setspecific*");
        assert_eq!(f("@x"), "@x");
        assert_eq!(
            demangled_operator(b"operator new[](unsigned long)"),
            Some(&b"_Zna*"[..])
        );
        assert_eq!(
            demangled_operator(b"operator new(unsigned long, std::nothrow_t const&)"),
            Some(&b"_Znw*"[..])
        );
        assert_eq!(demangled_operator(b"malloc"), None);
    }

    #[test]
    fn anchors_lose_their_parameters() {
        let a = |n: &str| String::from_utf8(anchor_glob(n.as_bytes())).expect("utf-8");
        assert_eq!(
            a("_ZN2at6native9empty_cpuEN3c108ArrayRefIlEESt8optionalINS2_10ScalarTypeEE"),
            "_ZN2at6native9empty_cpu*"
        );
        assert_eq!(
            a("_ZNK3c1010TensorImpl5sizesEv"),
            "_ZNK3c1010TensorImpl5sizes*"
        );
        assert_eq!(a("_ZN3c109alloc_cpuEm"), "_ZN3c109alloc_cpu*");
        assert_eq!(a("_Z13uninit_branchv"), "_Z13uninit_branch*");
        // Template arguments: cut before them.
        assert_eq!(
            a(
                "_ZN3c104impl28wrap_kernel_functor_unboxed_INS0_6detail24WrapFunctionIntoFunctor_EE4callEv"
            ),
            "_ZN3c104impl28wrap_kernel_functor_unboxed_*"
        );
        // Kept whole: C names, local entities, std:: shorthand without a second part.
        assert_eq!(a("cuInit"), "cuInit");
        assert_eq!(
            a("_ZZN2at4mainEvENKUlvE_clEv"),
            "_ZZN2at4mainEvENKUlvE_clEv"
        );
        assert_eq!(a("_Z3foo"), "_Z3foo");
        assert_eq!(a("_ZN3fooE"), "_ZN3fooE");
        assert_eq!(a("_ZNSt6locale5_ImplC2Em"), "_ZNSt6locale5_Impl*");
        assert_eq!(a("_ZN9999999999x"), "_ZN9999999999x");
    }
}
