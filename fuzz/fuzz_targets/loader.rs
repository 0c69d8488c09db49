//! Load arbitrary bytes with options taken from the first 4 bytes, strict and recovering,
//! and check that nothing panics, both runs terminate and agree (`checks::check_loader`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use vgsupp_fuzz::{checks, split_options};

fuzz_target!(|data: &[u8]| {
    let (opts, src) = split_options(data);
    if let Err(e) = checks::check_loader(src, opts) {
        panic!("{e}\noptions: {opts:?}\ninput: {}", checks::show(src));
    }
});
