//! Read arbitrary bytes as a sidecar (`NAME.supp.yaml`): nothing panics, hostile YAML is
//! refused within the limits, and what reads writes back the same (`yaml_checks`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use vgsupp_fuzz::{checks, yaml_checks};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = yaml_checks::check_sidecar(data) {
        panic!("{e}\ninput: {}", checks::show(data));
    }
});
