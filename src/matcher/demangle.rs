//! Deciding `fun:` patterns against names a log shows only demangled (valgrind-semantics.md
//! §2.5, issue 9 item 5).
//!
//! Valgrind matches `fun:` against the symbol name after Z-decoding and below-main renaming,
//! *before* C++/Rust demangling (call it N). A text log without `--gen-suppressions` blocks,
//! and XML written with the default `--demangle=yes`, show only D = display(N), where
//! display is libiberty's `cplus_demangle(N, DMGL_PARAMS | DMGL_ANSI)` for names starting
//! with `_Z` or `_R` (`coregrind/m_demangle/demangle.c`, 3.19) and N itself otherwise.
//!
//! **The demangler.** Valgrind 3.19 bundles libiberty's demangler (gcc, February 2022).
//! For C++ we call the same `cp-demangle.c` as libstdc++ ships it with g++
//! (`__cxa_demangle`, through the `cxa-demangle` crate of this workspace: the only
//! `unsafe` code of vgsupp), so building needs no `-dev` package. For Rust names, which
//! libiberty tries first (`rust-demangle.c`), we take libiberty's test of what is a Rust
//! name and `rustc-demangle`'s output without hashes, which libiberty's follows. On the
//! 1,579 distinct (N, D) pairs Valgrind itself printed in the torch fixtures, the pairs of
//! the differential suite and those the tests record under the real Valgrind (C++ and Rust
//! programs), it agrees on every one (see ARCHITECTURE.md and tests/cli/demangle.rs).
//!
//! **Soundness.** Demangling is not injective, so for a frame that shows D the candidates
//! are every N with display(N) = D. We assume, as everywhere in vgsupp, that a symbol whose
//! display is not a plain C identifier was named by a C++ (or Rust) compiler following its
//! ABI's mangling rules, so that N is determined by the entity it names (no hand-written
//! symbol is literally called `ns::f(int)`, no non-canonical substitution is emitted).
//! Then a literal pattern P decides the frame:
//!
//! * display(P) ≠ D: N = P is impossible, so the frame does **not** match;
//! * display(P) = D: it matches when P is the only compiler-produced name with display D.
//!   That fails, and the verdict stays unknown, when P (we check P, the only name we have)
//!   belongs to one of these classes, each of which has twins that display the same:
//!   - constructors and destructors: the variants `C1`…`C5`, `CI1`, `CI2`, `D0`…`D5` all
//!     display as `X::X(…)` / `X::~X()`, and Valgrind names an aliased constructor by any
//!     of them (tests/data/match/README.md, "Symbol aliases");
//!   - function template specialisations, and entities local to one: the template's own
//!     signature is mangled (`T_` for a parameter, the return type encoded), but displayed
//!     with the arguments substituted, so `template<class T> T f(T)` and
//!     `template<class T> int f(int)` at `T = int` both display `int f<int>(int)`;
//!   - local names (`Z…E`): the discriminator (`_0`, `__12_`) of a second entity of the same
//!     name in one function is not displayed;
//!   - `(anonymous namespace)`: displayed for every identifier starting `_GLOBAL__N`
//!     (old GCC wrote `_GLOBAL__N_<file>_<hash>`, newer compilers `_GLOBAL__N_1`);
//!   - Rust: legacy names drop their hash, v0 names their crate disambiguators;
//!   - special names (`_ZT…`, `_ZG…`): thunks drop their offsets.
//!
//! The checks are syntactic over-approximations (a `C1` inside an identifier also counts),
//! so they may leave a verdict unknown that could be decided, never the reverse.
//!
//! Inlined frames are displayed by their DWARF name, which is also the name Valgrind
//! matches (§2.5). A frame followed by one with the same IP may be inlined (or a recursive
//! call from the same site); its verdict must then agree for N = D as well.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::matcher::stack::Truth;
use crate::matcher::wildcard::Glob;

/// How Valgrind displays a name it matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Display {
    /// Demangled by libiberty.
    Demangled(String),
    /// Displayed as is (not `_Z`/`_R`, or libiberty does not demangle it).
    AsIs,
    /// We cannot tell: not UTF-8, or contains NUL (which Valgrind never passes).
    Unavailable,
}

/// Why a mangled name may share its display with another compiler-produced name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Twin {
    /// A constructor or destructor (`C1`…`C5`, `CI1`, `CI2`, `D0`…`D5`).
    CtorDtor,
    /// A function template specialisation, or an entity local to one.
    FunctionTemplate,
    /// A local name, whose discriminator is not displayed.
    LocalName,
    /// An identifier displayed as `(anonymous namespace)`.
    AnonymousNamespace,
    /// A Rust name (hash or disambiguators not displayed).
    Rust,
    /// A special name (`_ZT…`, `_ZG…`: thunks, vtables, guards).
    SpecialName,
}

/// What we know about one name used as a pattern.
#[derive(Debug)]
struct NameInfo {
    display: Display,
    twin: Option<Twin>,
}

/// libiberty's C++ demangler with Valgrind's flags (`DMGL_PARAMS | DMGL_ANSI`), as libstdc++
/// ships it (`__cxa_demangle`: the same `cp-demangle.c`, see the `cxa-demangle` crate).
fn cxx(name: &str) -> Option<String> {
    cxa_demangle::demangle(name)
}

/// libiberty's test for the hash of a legacy Rust name: `h` and 16 lowercase hex digits,
/// at least 5 of them distinct (`is_legacy_prefixed_hash`).
fn is_legacy_hash(ident: &[u8]) -> bool {
    if ident.len() != 17 || ident[0] != b'h' {
        return false;
    }
    let mut seen = 0u16;
    for &b in &ident[1..] {
        let nibble = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return false,
        };
        seen |= 1 << nibble;
    }
    seen.count_ones() >= 5
}

/// The part of a Rust name libiberty demangles, when it takes `name` for one
/// (`rust_demangle_callback`): a v0 name (`_R` + an uppercase letter, `[_0-9A-Za-z]` up to
/// an ignored `.suffix`), or a legacy one (`_ZN…17h<hash>E`, `[_0-9A-Za-z$.:@]`, an
/// ignored `.suffix` after the final `E`). Any suffix is dropped, as libiberty drops it.
fn rust_base(name: &str) -> Option<&str> {
    let b = name.as_bytes();
    if let Some(rest) = b.strip_prefix(b"_R") {
        if !rest.first().is_some_and(u8::is_ascii_uppercase) {
            return None;
        }
        let end = b.iter().position(|&c| c == b'.').unwrap_or(b.len());
        if !b[2..end]
            .iter()
            .all(|&c| c == b'_' || c.is_ascii_alphanumeric())
        {
            return None;
        }
        return Some(&name[..end]);
    }
    if !b.starts_with(b"_ZN") {
        return None;
    }
    if !b[3..]
        .iter()
        .all(|&c| c == b'_' || c.is_ascii_alphanumeric() || matches!(c, b'$' | b'.' | b':' | b'@'))
    {
        return None;
    }
    // Strip a `.suffix` after the last `E` that ends the path (libiberty's loop).
    let mut len = b.len();
    let mut dot_suffix = true;
    while len > 3 && !(dot_suffix && b[len - 1] == b'E') {
        dot_suffix = b[len - 1] == b'.';
        len -= 1;
    }
    if len <= 3 || b[len - 1] != b'E' {
        return None;
    }
    // The last path component is the hash: `17h` + 16 hex digits.
    let path = &b[3..len - 1];
    if path.len() <= 19 || !path[path.len() - 19..].starts_with(b"17") {
        return None;
    }
    if !is_legacy_hash(&path[path.len() - 17..]) {
        return None;
    }
    Some(&name[..len])
}

/// Valgrind's display of a Rust name (libiberty's `rust-demangle.c`, which follows
/// `rustc-demangle`: no hash, no disambiguators, no `.suffix`).
fn rust(name: &str) -> Option<Option<String>> {
    let base = rust_base(name)?;
    Some(
        rustc_demangle::try_demangle(base)
            .ok()
            .map(|d| format!("{d:#}")),
    )
}

/// How libiberty displays `name`: a Rust name first (legacy Rust names overlap C++ ones,
/// and libiberty tries Rust first), then C++.
fn libiberty(name: &str) -> Option<String> {
    match rust(name) {
        Some(shown) if name.starts_with("_R") => shown,
        Some(Some(shown)) => Some(shown),
        _ if name.starts_with("_Z") => cxx(name),
        _ => None,
    }
}

/// The name part of a demangled function's display, without its parameters: what
/// libiberty prints without `DMGL_PARAMS` (it prints neither parameters nor a return
/// type), except that a function template keeps its return type in front. Only used to
/// see whether the name ends with template arguments, for which the leading return type
/// does not matter. `None` when the parameter list cannot be found.
fn without_params(shown: &str) -> Option<&str> {
    // Clone suffixes, then the qualifiers libiberty prints after the parameter list.
    let mut s = shown.find(" [clone ").map_or(shown, |i| &shown[..i]);
    const QUALIFIERS: [&str; 7] = [
        " const",
        " volatile",
        " restrict",
        " &&",
        " &",
        " noexcept",
        " transaction_safe",
    ];
    while let Some(q) = QUALIFIERS.iter().find(|q| s.ends_with(*q)) {
        s = &s[..s.len() - q.len()];
    }
    if !s.ends_with(')') {
        // Not a function: a variable, printed the same with and without parameters.
        return Some(s);
    }
    let mut depth = 0usize;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

fn mangled_start(name: &[u8]) -> bool {
    name.starts_with(b"_Z") || name.starts_with(b"_R")
}

/// Valgrind's display of `name` (a matcher name: already Z-decoded).
#[must_use]
pub fn display(name: &[u8]) -> Display {
    if !mangled_start(name) {
        return Display::AsIs;
    }
    match std::str::from_utf8(name) {
        Ok(s) if !s.contains('\0') => libiberty(s).map_or(Display::AsIs, Display::Demangled),
        _ => Display::Unavailable,
    }
}

/// The legacy Rust hash component `17h` + 16 hex digits + `E`.
fn has_rust_hash(name: &[u8]) -> bool {
    name.windows(20).any(|w| {
        w.starts_with(b"17h") && w[19] == b'E' && w[3..19].iter().all(u8::is_ascii_hexdigit)
    })
}

/// Why `name` (mangled, displayed as `shown`) may have a twin, if it may.
fn twin_of(name: &[u8], shown: &str) -> Option<Twin> {
    // A legacy Rust name holds `..` (for `::`), so test for Rust on the whole name.
    let rust_name = std::str::from_utf8(name).ok().and_then(rust_base).is_some();
    // The mangled part: a clone suffix (`.isra.0`) starts at the first `.`.
    let base = &name[..name.iter().position(|&b| b == b'.').unwrap_or(name.len())];
    if rust_name || base.starts_with(b"_R") || has_rust_hash(base) {
        return Some(Twin::Rust);
    }
    if base.starts_with(b"_ZT") || base.starts_with(b"_ZG") {
        return Some(Twin::SpecialName);
    }
    let ctor_dtor = base.windows(2).any(|w| {
        (w[0] == b'C' && (b'1'..=b'5').contains(&w[1]))
            || (w[0] == b'D' && (b'0'..=b'5').contains(&w[1]))
    }) || base.windows(3).any(|w| w == b"CI1" || w == b"CI2");
    if ctor_dtor {
        return Some(Twin::CtorDtor);
    }
    if base.get(2..).is_some_and(|rest| rest.contains(&b'Z')) {
        return Some(Twin::LocalName);
    }
    if shown.contains("(anonymous namespace)") {
        return Some(Twin::AnonymousNamespace);
    }
    // Without DMGL_PARAMS libiberty prints the top-level name only: a function template's
    // ends with its template arguments. An enclosing function (of a local name, or a
    // function inside a template argument) keeps its parameters: `f<int>(int)::…`.
    match without_params(shown) {
        Some(np) if !np.ends_with('>') && !np.contains(">(") => None,
        _ => Some(Twin::FunctionTemplate),
    }
}

thread_local! {
    /// Pattern names seen so far on this thread: rule sets are loaded once and their
    /// patterns compared with many frames, and the demangler costs microseconds per call.
    static INFO: RefCell<FxHashMap<Vec<u8>, Rc<NameInfo>>> = RefCell::new(FxHashMap::default());
}

fn info(name: &[u8]) -> Rc<NameInfo> {
    INFO.with(|cache| {
        if let Some(i) = cache.borrow().get(name) {
            return Rc::clone(i);
        }
        let display = display(name);
        let twin = match &display {
            Display::Demangled(d) => twin_of(name, d),
            Display::AsIs | Display::Unavailable => None,
        };
        let i = Rc::new(NameInfo { display, twin });
        cache.borrow_mut().insert(name.to_vec(), Rc::clone(&i));
        i
    })
}

/// Why the mangled name `name` may share its display with another name, if it may (also
/// `None` when libiberty does not demangle it).
#[must_use]
pub fn twin(name: &[u8]) -> Option<Twin> {
    info(name).twin
}

/// A shown name split into its base and the raw clone suffix that libiberty displayed as
/// ` [clone .isra.0]` parts (`.isra.0`).
fn split_clones(shown: &[u8]) -> Option<(&[u8], Vec<u8>)> {
    const OPEN: &[u8] = b" [clone ";
    let Some(start) = shown.windows(OPEN.len()).position(|w| w == OPEN) else {
        return Some((shown, Vec::new()));
    };
    let (base, mut rest) = shown.split_at(start);
    let mut raw = Vec::new();
    while !rest.is_empty() {
        let part = rest.strip_prefix(OPEN)?;
        let end = part.iter().position(|&b| b == b']')?;
        if part.first().is_none_or(|&b| b != b'.') {
            return None;
        }
        raw.extend_from_slice(&part[..end]);
        rest = &part[end + 1..];
    }
    Some((base, raw))
}

/// The qualified name `a::b::c` every name that a pattern `_ZN[rVKRO]*<len><id>…<len><id>*`
/// matches displays (the nested name's first components, spelt out; `(anonymous
/// namespace)` for `_GLOBAL__N…`), when the pattern has that form: the anchors `gen`
/// writes (`_ZN2at6native9empty_cpu*`).
fn nested_prefix(p: &[u8]) -> Option<String> {
    let mut rest = p.strip_prefix(b"_ZN")?.strip_suffix(b"*")?;
    while let Some((&c, tail)) = rest.split_first() {
        if !matches!(c, b'r' | b'V' | b'K' | b'R' | b'O') {
            break;
        }
        rest = tail;
    }
    let mut parts: Vec<String> = Vec::new();
    while !rest.is_empty() {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || rest[0] == b'0' {
            return None;
        }
        let len: usize = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        let id = rest.get(digits..digits + len)?;
        if !id.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let id = std::str::from_utf8(id).ok()?;
        parts.push(if id.starts_with("_GLOBAL__N") {
            "(anonymous namespace)".to_owned()
        } else {
            id.to_owned()
        });
        rest = &rest[digits + len..];
    }
    (!parts.is_empty()).then(|| parts.join("::"))
}

/// Global operator new/delete: any name starting with the prefix displays with `shown`
/// first (a template placement form puts its return type first, hence the second check).
const OPERATORS: [(&[u8], &[u8]); 4] = [
    (b"_Znw", b"operator new("),
    (b"_Zna", b"operator new[]("),
    (b"_Zdl", b"operator delete("),
    (b"_Zda", b"operator delete[]("),
];

/// The verdict of `g` on a real (not inlined) frame whose display is `shown`, which is
/// not a plain C identifier.
fn real_verdict(g: &Glob, shown: &[u8]) -> Truth {
    let p = g.as_bytes();
    if p.iter().all(|&b| b == b'*') {
        return Truth::Yes;
    }
    if mangled_start(shown) {
        // Shown as is: a name libiberty refused. Not worth deciding.
        return Truth::Unknown;
    }
    // Every candidate starts with `_Z` or `_R`.
    if !g.may_start_with(b"_Z") && !g.may_start_with(b"_R") {
        return Truth::No;
    }
    if g.is_literal() {
        let i = info(p);
        return match &i.display {
            Display::Demangled(d) if d.as_bytes() != shown => Truth::No,
            Display::Demangled(_) if i.twin.is_none() => Truth::Yes,
            Display::Demangled(_) => Truth::Unknown,
            // display(P) = P: N = P needs shown = P, which starts `_Z`/`_R`: excluded above.
            Display::AsIs => Truth::No,
            Display::Unavailable => Truth::Unknown,
        };
    }
    // `BASE` + a glob over the clone suffix: when BASE is the only name displaying as
    // shown's base, N is BASE + shown's raw suffix, and the glob decides on it.
    let base_end = p
        .iter()
        .position(|&b| matches!(b, b'.' | b'*' | b'?'))
        .unwrap_or(p.len());
    let base = &p[..base_end];
    if let Some((shown_base, raw_suffix)) = split_clones(shown) {
        let i = info(base);
        if let Display::Demangled(d) = &i.display
            && d.as_bytes() == shown_base
            && i.twin.is_none()
        {
            let mut n = base.to_vec();
            n.extend_from_slice(&raw_suffix);
            return Truth::of(g.matches(&n));
        }
    }
    // `_ZN2at6native9empty_cpu*`: every match displays `at::native::empty_cpu` somewhere
    // (after a return type, before its parameters, template arguments or members).
    if let Some(qualified) = nested_prefix(p)
        && !shown
            .windows(qualified.len())
            .any(|w| w == qualified.as_bytes())
    {
        return Truth::No;
    }
    for (prefix, op) in OPERATORS {
        if p.len() == prefix.len() + 1 && p.starts_with(prefix) && p.ends_with(b"*") {
            // A name starting with the prefix displays `operator new(…`, or, for a
            // template, `RET operator new<…>(…`. A local entity of the operator
            // (`_ZZnwm…`) shows `operator new(…)::…` but does not start with the prefix.
            let local = shown.windows(3).any(|w| w == b")::");
            let mut template = op[..op.len() - 1].to_vec();
            template.push(b'<');
            let is_template = shown.windows(template.len()).any(|w| w == template);
            if shown.starts_with(op) && !local {
                return Truth::Yes;
            }
            if !shown.starts_with(op) && !is_template {
                return Truth::No;
            }
            return Truth::Unknown;
        }
    }
    Truth::Unknown
}

/// The verdict of `fun:` pattern `g` on a frame that shows the demangled name `shown`
/// (not a plain C identifier); `maybe_inlined` when the next frame has the same IP.
#[must_use]
pub fn fun_verdict(g: &Glob, shown: &[u8], maybe_inlined: bool) -> Truth {
    let real = real_verdict(g, shown);
    if !maybe_inlined {
        return real;
    }
    // An inlined frame is matched by the name it shows.
    let inlined = Truth::of(g.matches(shown));
    if inlined == real {
        real
    } else {
        Truth::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(p: &str, shown: &str) -> Truth {
        fun_verdict(&Glob::new(p.as_bytes()), shown.as_bytes(), false)
    }

    #[test]
    fn literal_patterns() {
        // C01/C02 of §8, shown demangled.
        let shown = "ns::Box::get(int) const [clone .isra.0]";
        assert_eq!(v("_ZNK2ns3Box3getEi.isra.0", shown), Truth::Yes);
        assert_eq!(v("_ZNK2ns3Box3getEi", shown), Truth::No);
        assert_eq!(
            v("_ZNK2ns3Box3getEi", "ns::Box::get(int) const"),
            Truth::Yes
        );
        // C04/C05: a demangled pattern never equals a mangled name.
        assert_eq!(
            v("ns::Box::get(int) const", "ns::Box::get(int) const"),
            Truth::No
        );
        assert_eq!(v("malloc", "ns::Box::get(int) const"), Truth::No);
        assert_eq!(
            v("_ZN2ns11clone_entryEi", "ns::Box::get(int) const"),
            Truth::No
        );
        assert_eq!(v("_Znwm", "operator new(unsigned long)"), Truth::Yes);
    }

    #[test]
    fn twins_stay_unknown() {
        // Constructor variants: C1 and C2 both show `ns::Box::Box(int)`.
        assert_eq!(twin(b"_ZN2ns3BoxC1Ei"), Some(Twin::CtorDtor));
        assert_eq!(v("_ZN2ns3BoxC1Ei", "ns::Box::Box(int)"), Truth::Unknown);
        assert_eq!(v("_ZN2ns3BoxC2Ei", "ns::Box::Box(int)"), Truth::Unknown);
        assert_eq!(v("_ZN2ns3BoxD1Ev", "ns::Box::~Box()"), Truth::Unknown);
        assert_eq!(v("_ZN2ns3BoxD2Ev", "ns::Box::Box(int)"), Truth::No);
        // Function templates: `T_` and the concrete type display the same.
        let t = "int max<int>(int, int)";
        assert_eq!(display(b"_Z3maxIiET_S0_S0_"), Display::Demangled(t.into()));
        assert_eq!(display(b"_Z3maxIiEiii"), Display::Demangled(t.into()));
        assert_eq!(twin(b"_Z3maxIiEiii"), Some(Twin::FunctionTemplate));
        assert_eq!(v("_Z3maxIiET_S0_S0_", t), Truth::Unknown);
        assert_eq!(v("_Z3maxIiEiii", t), Truth::Unknown);
        // … and entities local to one (the enclosing function keeps its parameters).
        assert_eq!(twin(b"_ZZ1fIiEvT_ENKUlvE_clEv"), Some(Twin::LocalName));
        // Members of class templates are not templates themselves: decided.
        assert_eq!(twin(b"_ZN1VIiE4pushERKi"), None);
        assert_eq!(
            v("_ZN1VIiE4pushERKi", "V<int>::push(int const&)"),
            Truth::Yes
        );
        // Local names: the discriminator `_0` is not displayed.
        assert_eq!(display(b"_ZZ4mainEN1S1gE_0v"), display(b"_ZZ4mainEN1S1gEv"));
        assert_eq!(v("_ZZ4mainEN1S1gEv", "main::S::g()"), Truth::Unknown);
        // Anonymous namespaces, old and new spelling.
        assert_eq!(
            display(b"_ZN21_GLOBAL__N_foo.cc_ABC1fEv"),
            display(b"_ZN12_GLOBAL__N_11fEv")
        );
        assert_eq!(
            v("_ZN12_GLOBAL__N_11fEv", "(anonymous namespace)::f()"),
            Truth::Unknown
        );
        // Rust legacy names lose their hash.
        assert_eq!(
            twin(b"_ZN4core3fmt5write17h0123456789abcdefE"),
            Some(Twin::Rust)
        );
        assert_eq!(
            v("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write"),
            Truth::Unknown
        );
        // Thunks lose their offset.
        assert_eq!(display(b"_ZThn8_N1X1fEv"), display(b"_ZThn16_N1X1fEv"));
        assert_eq!(
            v("_ZThn8_N1X1fEv", "non-virtual thunk to X::f()"),
            Truth::Unknown
        );
        // ABI tags are displayed: no twin.
        assert_eq!(twin(b"_ZNK3foo3strB5cxx11Ev"), None);
        assert_eq!(
            v("_ZNK3foo3strEv", "foo::str[abi:cxx11]() const"),
            Truth::No
        );
    }

    #[test]
    fn globs() {
        let shown = "ns::Box::get(int) const [clone .isra.0]";
        assert_eq!(v("*", shown), Truth::Yes);
        assert_eq!(v("**", shown), Truth::Yes);
        // C03: the mangled base and a glob over the clone suffix.
        assert_eq!(v("_ZNK2ns3Box3getEi*", shown), Truth::Yes);
        assert_eq!(v("_ZNK2ns3Box3getEi.isra.?", shown), Truth::Yes);
        assert_eq!(v("_ZNK2ns3Box3getEi.constprop*", shown), Truth::No);
        assert_eq!(
            v("_ZNK2ns3Box3getEi*", "ns::Box::get(int) const"),
            Truth::Yes
        );
        // A prefix that is a complete name of another function: `_Z1fi*` matches `_Z1fii`.
        assert_eq!(v("_Z1fi*", "f(int, int)"), Truth::Unknown);
        // Patterns that cannot match a mangled name.
        assert_eq!(v("*alloc", shown), Truth::Unknown);
        assert_eq!(v("Py*", shown), Truth::No);
        assert_eq!(v("?Z*", shown), Truth::Unknown);
        // operator new/delete.
        assert_eq!(v("_Znw*", "operator new(unsigned long)"), Truth::Yes);
        assert_eq!(
            v(
                "_Znw*",
                "operator new(unsigned long, std::nothrow_t const&)"
            ),
            Truth::Yes
        );
        assert_eq!(v("_Znw*", "operator new[](unsigned long)"), Truth::No);
        assert_eq!(v("_Zna*", "operator new[](unsigned long)"), Truth::Yes);
        assert_eq!(
            v("_Zdl*", "operator delete(void*, unsigned long)"),
            Truth::Yes
        );
        assert_eq!(v("_Znw*", "ns::Box::get(int) const"), Truth::No);
        // A local entity of operator new starts the same but is `_ZZnw…`.
        assert_eq!(
            v(
                "_Znw*",
                "operator new(unsigned long)::{lambda()#1}::operator()() const"
            ),
            Truth::Unknown
        );
    }

    #[test]
    fn nested_name_prefixes_decide_names_they_cannot_display() {
        assert_eq!(
            nested_prefix(b"_ZN2at6native9empty_cpu*").as_deref(),
            Some("at::native::empty_cpu")
        );
        assert_eq!(
            nested_prefix(b"_ZNK2at10TensorBase14const_data_ptr*").as_deref(),
            Some("at::TensorBase::const_data_ptr")
        );
        assert_eq!(
            nested_prefix(b"_ZN12_GLOBAL__N_13fooE*").as_deref(),
            None,
            "not only components"
        );
        assert_eq!(
            nested_prefix(b"_ZN12_GLOBAL__N_13foo*").as_deref(),
            Some("(anonymous namespace)::foo")
        );
        assert_eq!(nested_prefix(b"_ZNSt6vector*"), None);
        assert_eq!(nested_prefix(b"_ZN2at6native9empty_cpu"), None);
        let g = Glob::new(b"_ZN2at6native9empty_cpu*");
        assert_eq!(
            fun_verdict(&g, b"at::native::zeros(c10::ArrayRef<long>)", false),
            Truth::No
        );
        assert_eq!(
            fun_verdict(
                &g,
                b"at::native::empty_cpu(c10::ArrayRef<long>, std::optional<c10::ScalarType>)",
                false
            ),
            Truth::Unknown
        );
        // Every name the glob matches, demangled, holds the qualified prefix.
        for n in [
            "_ZN2at6native9empty_cpuEv",
            "_ZN2at6native9empty_cpuIiEEvT_",
            "_ZN2at6native9empty_cpuC2Ev",
            "_ZN2at6native9empty_cpuB5cxx11Ev",
            "_ZN2at6native9empty_cpu3fooEv",
            "_ZN2at6native9empty_cpuEv.isra.0",
        ] {
            let Display::Demangled(d) = display(n.as_bytes()) else {
                panic!("{n} demangles");
            };
            assert_ne!(fun_verdict(&g, d.as_bytes(), false), Truth::No, "{n}: {d}");
        }
    }

    #[test]
    fn inlined_frames_are_matched_by_their_shown_name() {
        let g = Glob::new(b"tget<int>");
        assert_eq!(fun_verdict(&g, b"tget<int>", true), Truth::Unknown);
        assert_eq!(fun_verdict(&g, b"tget<int>", false), Truth::No);
        let g = Glob::new(b"tget<*");
        assert_eq!(fun_verdict(&g, b"tget<int>", true), Truth::Unknown);
        let g = Glob::new(b"zzz");
        assert_eq!(fun_verdict(&g, b"tget<int>", true), Truth::No);
        let g = Glob::new(b"*");
        assert_eq!(fun_verdict(&g, b"tget<int>", true), Truth::Yes);
    }

    #[test]
    fn rust_names_as_libiberty_shows_them() {
        let shown = |n: &str| match display(n.as_bytes()) {
            Display::Demangled(d) => d,
            other => panic!("{n}: {other:?}"),
        };
        // v0: disambiguators and the `.suffix` are not shown.
        assert_eq!(
            shown("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal"),
            "std::rt::lang_start_internal"
        );
        assert_eq!(
            shown("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal.cold"),
            "std::rt::lang_start_internal"
        );
        // Legacy: the hash and the `.suffix` are not shown; `..` is `::`, `$LT$` is `<`.
        assert_eq!(
            shown("_ZN4core3fmt5write17h0123456789abcdefE"),
            "core::fmt::write"
        );
        assert_eq!(
            shown("_ZN4core3fmt5write17h0123456789abcdefE.llvm.42"),
            "core::fmt::write"
        );
        assert_eq!(
            shown(
                "_ZN58_$LT$alloc..string..String$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE"
            ),
            "<alloc::string::String as core::fmt::Debug>::fmt"
        );
        // A hash with fewer than 5 distinct digits is not Rust's: demangled as C++.
        assert_eq!(
            shown("_ZN3foo17h0000000000000000E"),
            "foo::h0000000000000000"
        );
        // `_R` followed by a lowercase letter is not a Rust name; not demangled.
        assert_eq!(display(b"_Rabc"), Display::AsIs);
        // Every Rust name may have twins (hashes, disambiguators), even with `..`.
        assert_eq!(
            twin(b"_ZN58_$LT$alloc..string..String$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE"),
            Some(Twin::Rust)
        );
        assert_eq!(
            twin(b"_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal"),
            Some(Twin::Rust)
        );
    }

    #[test]
    fn parameters_are_stripped_from_the_end() {
        assert_eq!(without_params("f(int)"), Some("f"));
        assert_eq!(
            without_params("int max<int>(int, int)"),
            Some("int max<int>")
        );
        assert_eq!(
            without_params("A::operator()(int) const && [clone .isra.0]"),
            Some("A::operator()")
        );
        assert_eq!(
            without_params("void (*f<int>())(int)"),
            Some("void (*f<int>())")
        );
        assert_eq!(without_params("ns::x"), Some("ns::x"));
        assert_eq!(without_params("f)"), None);
        // Function templates have twins; member functions of class templates do not.
        assert_eq!(twin(b"_Z3maxIiEiii"), Some(Twin::FunctionTemplate));
        assert_eq!(twin(b"_Z1fIiEPFviEv"), Some(Twin::FunctionTemplate));
        assert_eq!(twin(b"_ZN1VIiE4pushERKi.isra.0"), None);
        assert_eq!(twin(b"_ZN1A1fEv"), None);
    }

    #[test]
    fn clone_suffixes_split() {
        assert_eq!(
            split_clones(b"f() [clone .constprop.0] [clone .isra.0]"),
            Some((&b"f()"[..], b".constprop.0.isra.0".to_vec()))
        );
        assert_eq!(split_clones(b"f()"), Some((&b"f()"[..], Vec::new())));
        assert_eq!(split_clones(b"f() [clone x]"), None);
    }
}
