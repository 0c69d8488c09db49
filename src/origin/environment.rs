//! What an object's path says of the environment it ran in: driver, CUDA, Python and
//! torch versions (`gen`'s provenance, `prune`'s environments).

/// Versions an object path shows: `libcuda` (the driver, `libcuda.so.535.104.05`),
/// `libcudart` (`libcudart.so.12`), `cuda` (a wheel's `nvidia/cu13` directory), `python`
/// (`libpython3.11.so`, `python3.11`, `cpython-311`), `torch` (`torch-2.5.1…` or
/// `pytorch-2.5.1…` directories of wheels and conda packages).
#[must_use]
pub fn environment(path: &[u8]) -> Vec<(String, String)> {
    let path = String::from_utf8_lossy(path);
    let mut out = Vec::new();
    let name = path.rsplit('/').next().unwrap_or(&path);
    let so_version = |prefix: &str| {
        name.strip_prefix(prefix)
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
            .map(str::to_owned)
    };
    if let Some(v) = so_version("libcuda.so.") {
        out.push(("libcuda".to_owned(), v));
    }
    if let Some(v) = so_version("libcudart.so.") {
        out.push(("libcudart".to_owned(), v));
    }
    for comp in path.split('/') {
        if let Some(v) = comp.strip_prefix("cu")
            && !v.is_empty()
            && v.len() <= 3
            && v.bytes().all(|b| b.is_ascii_digit())
        {
            out.push(("cuda".to_owned(), v.to_owned()));
        }
        for prefix in ["torch-", "pytorch-"] {
            if let Some(rest) = comp.strip_prefix(prefix) {
                let v: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let v = v.trim_end_matches('.');
                if v.contains('.') {
                    out.push(("torch".to_owned(), v.to_owned()));
                }
            }
        }
    }
    let python = name
        .strip_prefix("libpython")
        .or_else(|| name.strip_prefix("python"))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect::<String>()
                .trim_end_matches('.')
                .to_owned()
        })
        .filter(|v| v.contains('.'))
        .or_else(|| {
            let at = name.find(".cpython-")?;
            let digits: String = name[at + 9..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (digits.len() >= 2).then(|| format!("{}.{}", &digits[..1], &digits[1..]))
        });
    if let Some(v) = python {
        out.push(("python".to_owned(), v));
    }
    out
}
