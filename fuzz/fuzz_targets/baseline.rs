//! Read arbitrary bytes as a gate baseline (`vgsupp gate --baseline`): nothing panics, and
//! what reads encodes and reads back the same (`yaml_checks::check_baseline`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use vgsupp_fuzz::{checks, yaml_checks};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = yaml_checks::check_baseline(data) {
        panic!("{e}\ninput: {}", checks::show(data));
    }
});
