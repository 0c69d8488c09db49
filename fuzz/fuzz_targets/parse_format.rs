//! Parse arbitrary bytes, format them, and check that nothing panics, formatting is
//! idempotent and canonical, and Valgrind would load the same thing (`checks::check_format`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use vgsupp_fuzz::checks;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = checks::check_format(data) {
        panic!("{e}\ninput: {}", checks::show(data));
    }
});
