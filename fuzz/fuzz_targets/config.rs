//! Read arbitrary bytes as `vgsupp.yaml`: nothing panics and hostile YAML is refused
//! within the limits (`yaml_checks`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use vgsupp_fuzz::{checks, yaml_checks};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = yaml_checks::check_config(data) {
        panic!("{e}\ninput: {}", checks::show(data));
    }
});
