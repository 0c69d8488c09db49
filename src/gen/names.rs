//! Rule names: `ORIGIN.KIND.ANCHOR` (PRODUCT.md §4), unique within the file and stable
//! across runs: a name depends only on the rule itself, never on the order rules were
//! found in. Rules that would share a name get a suffix from a hash of their body.

use std::collections::BTreeMap;

/// A demangled name shortened for a label: no parameter list, qualifiers, clone suffix,
/// template arguments or return type (`void ns::f<int>(int) const [clone .isra.0]` →
/// `ns::f`).
#[must_use]
pub fn short(name: &str) -> String {
    let mut s = name;
    if let Some(at) = s.find(" [clone ") {
        s = &s[..at];
    }
    s = s
        .trim_end_matches(" const")
        .trim_end_matches(" &&")
        .trim_end_matches(" &");
    if s.ends_with(')') {
        let mut depth = 0usize;
        for (i, c) in s.char_indices().rev() {
            match c {
                ')' => depth += 1,
                '(' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        if i > 0 {
                            s = &s[..i];
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // Template arguments out (keeping `operator<` and friends).
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' if !out.ends_with("operator") && !out.ends_with("operator<") => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    // A return type before the name (`operator new` has a space of its own).
    let cut = if out.starts_with('(') {
        0
    } else if let Some(op) = out.rfind("operator") {
        out[..op].rfind(' ').map_or(0, |i| i + 1)
    } else {
        out.rfind(' ').map_or(0, |i| i + 1)
    };
    let out = out[cut..].to_owned();
    if out.is_empty() { name.to_owned() } else { out }
}

/// Characters a rule name keeps; anything else becomes `_` (a name is one line, and must
/// not start like a comment or a brace).
fn clean(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.:+~@".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// The base name of a rule: `ORIGIN.KIND.LABEL`; a `Param` rule's kind carries its
/// system call (`Param.ioctl`).
#[must_use]
pub fn base(origin: &str, kind: &str, extra: Option<&[u8]>, label: &str) -> String {
    let kind = match (kind, extra) {
        ("Param", Some(p)) => {
            let p = String::from_utf8_lossy(p);
            let call = p.split('(').next().unwrap_or(&p).trim().to_owned();
            if call.is_empty() {
                "Param".to_owned()
            } else {
                format!("Param.{call}")
            }
        }
        _ => kind.to_owned(),
    };
    format!("{}.{}.{}", clean(origin), clean(&kind), clean(label))
}

/// What a rule's first frame allocates with, for telling rules apart by name (`malloc`,
/// `new`, `new[]`), when it starts with an allocation function.
#[must_use]
pub fn allocator(shape: &super::candidate::Shape) -> Option<&'static str> {
    use super::candidate::Pat;
    const NAMES: [(&[u8], &str); 9] = [
        (b"_Znw*", "new"),
        (b"_Zna*", "new[]"),
        (b"malloc", "malloc"),
        (b"calloc", "calloc"),
        (b"realloc", "realloc"),
        (b"memalign", "memalign"),
        (b"posix_memalign", "posix_memalign"),
        (b"aligned_alloc", "aligned_alloc"),
        (b"strdup", "strdup"),
    ];
    match shape.frames.first() {
        Some(Pat::Fun(f)) => NAMES.iter().find(|(n, _)| n == f).map(|(_, s)| *s),
        _ => None,
    }
}

/// FNV-1a, for name suffixes: stable across runs, platforms and releases of the standard
/// library (unlike `DefaultHasher`).
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Members of groups of equal names.
fn collisions(names: &[String]) -> Vec<(String, Vec<usize>)> {
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, b) in names.iter().enumerate() {
        by_name.entry(b.as_str()).or_default().push(i);
    }
    by_name
        .into_iter()
        .filter(|(_, m)| m.len() > 1)
        .map(|(n, m)| (n.to_owned(), m))
        .collect()
}

/// Unique names for rules with base names `bases`, more specific names `alternates`
/// (`ORIGIN.KIND.PIN.ANCHOR`) and bodies `bodies` (same order): a base name used once is
/// kept; rules sharing one take their alternate; those still sharing a name get `.` and 4
/// hex digits of their body's hash (more digits if those collide, then a counter).
#[must_use]
pub fn unique(bases: &[String], alternates: &[Option<String>], bodies: &[Vec<u8>]) -> Vec<String> {
    let mut names = bases.to_vec();
    for (_, members) in collisions(&names) {
        for i in members {
            if let Some(Some(a)) = alternates.get(i) {
                names[i].clone_from(a);
            }
        }
    }
    for (base, members) in collisions(&names) {
        let base = base.as_str();
        if members.len() == 1 {
            continue;
        }
        for digits in [4usize, 8, 16] {
            let named: Vec<String> = members
                .iter()
                .map(|&i| {
                    format!("{base}.{:016x}", fnv(&bodies[i]))[..base.len() + 1 + digits].to_owned()
                })
                .collect();
            let mut sorted = named.clone();
            sorted.sort();
            sorted.dedup();
            if sorted.len() == named.len() || digits == 16 {
                for (&i, n) in members.iter().zip(named) {
                    names[i] = n;
                }
                break;
            }
        }
    }
    // Identical bodies under one base (never from `gen`, which merges them) or a name
    // equal to another rule's base: a counter settles it, in input order.
    let mut seen = std::collections::HashSet::new();
    for n in &mut names {
        if !seen.insert(n.clone()) {
            let mut k = 2;
            while !seen.insert(format!("{n}.{k}")) {
                k += 1;
            }
            *n = format!("{n}.{k}");
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names() {
        assert_eq!(short("c10::alloc_cpu(unsigned long)"), "c10::alloc_cpu");
        assert_eq!(short("void ns::f<int>(int) const [clone .isra.0]"), "ns::f");
        assert_eq!(
            short(
                "pybind11::cpp_function::initialize_generic(std::unique_ptr<a, b>&&, char const*)"
            ),
            "pybind11::cpp_function::initialize_generic"
        );
        assert_eq!(short("cuInit"), "cuInit");
        assert_eq!(short("(below main)"), "(below main)");
        assert_eq!(short("bool operator<(a, b)"), "operator<");
        assert_eq!(short("operator new[](unsigned long)"), "operator new[]");
    }

    #[test]
    fn base_names() {
        assert_eq!(
            base("cuda-driver", "Param", Some(b"ioctl(generic)"), "cuInit"),
            "cuda-driver.Param.ioctl.cuInit"
        );
        assert_eq!(
            base("libtorch", "Leak", None, "c10::alloc_cpu"),
            "libtorch.Leak.c10::alloc_cpu"
        );
        assert_eq!(
            base("my profile", "Cond", None, "(below main)"),
            "my_profile.Cond._below_main_"
        );
    }

    #[test]
    fn names_are_unique_and_do_not_depend_on_order() {
        let bases = vec![
            "a.Leak.x".to_owned(),
            "a.Leak.x".to_owned(),
            "b.Cond.y".to_owned(),
        ];
        let bodies = vec![b"one".to_vec(), b"two".to_vec(), b"three".to_vec()];
        let n = unique(&bases, &[None, None, None], &bodies);
        assert_eq!(n[2], "b.Cond.y");
        assert!(n[0].starts_with("a.Leak.x.") && n[0].len() == "a.Leak.x.".len() + 4);
        assert_ne!(n[0], n[1]);
        // Reversed input: the same rule gets the same name.
        let r = unique(
            &[bases[1].clone(), bases[0].clone()],
            &[None, None],
            &[bodies[1].clone(), bodies[0].clone()],
        );
        assert_eq!(
            (r[0].as_str(), r[1].as_str()),
            (n[1].as_str(), n[0].as_str())
        );
        // Identical bodies still end unique.
        let same = unique(
            &["x".into(), "x".into()],
            &[None, None],
            &[b"b".to_vec(), b"b".to_vec()],
        );
        assert_ne!(same[0], same[1]);
        // Alternates first: the pinned library tells two `call_init` rules apart.
        let alt = unique(
            &[
                "c.Leak.call_init".into(),
                "c.Leak.call_init".into(),
                "c.Leak.z".into(),
            ],
            &[
                Some("c.Leak.libcublas.call_init".into()),
                Some("c.Leak.libcufft.call_init".into()),
                None,
            ],
            &[b"1".to_vec(), b"2".to_vec(), b"3".to_vec()],
        );
        assert_eq!(
            alt,
            [
                "c.Leak.libcublas.call_init",
                "c.Leak.libcufft.call_init",
                "c.Leak.z"
            ]
        );
    }
}
