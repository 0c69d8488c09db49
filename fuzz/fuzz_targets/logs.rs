//! Read arbitrary bytes as a text log and as an XML log (each sequentially, and on two
//! threads with a chunk size taken from the first byte), and check the readers' invariants
//! (`log_checks::check_logs`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use vgsupp_fuzz::{checks, log_checks};

fuzz_target!(|data: &[u8]| {
    let (chunk, log) = match data.split_first() {
        Some((c, rest)) => (1 + u64::from(*c % 128), rest),
        None => (1, data),
    };
    if let Err(e) = log_checks::check_logs(log, chunk) {
        panic!("{e}\ninput: {}", checks::show(log));
    }
});
