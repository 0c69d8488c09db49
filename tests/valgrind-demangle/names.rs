// Rust names whose display the tests compare with the real Valgrind's
// (tests/cli/demangle.rs): v0 names of generic functions, const generics, trait impls,
// closures, and std's own allocations.
use std::collections::HashMap;

#[inline(never)]
fn make<T: Default + Clone>(n: usize) -> Vec<T> {
    vec![T::default(); n]
}

struct S<const N: usize>;

impl<const N: usize> S<N> {
    #[inline(never)]
    fn go(&self) -> Vec<u8> {
        make::<u8>(N)
    }
}

mod inner {
    #[inline(never)]
    pub fn closure_leak() -> Vec<u64> {
        let f = |x: usize| super::make::<u64>(x);
        f(3)
    }
}

fn main() {
    std::mem::forget(make::<u32>(5));
    std::mem::forget(S::<17>.go());
    std::mem::forget(inner::closure_leak());
    let mut h: HashMap<String, Vec<i8>> = HashMap::new();
    h.insert("k".into(), make(9));
    std::mem::forget(h);
}
