//! Shared invariants for the `vgsupp` fuzz targets (see `README.md`).

pub mod checks;
pub mod log_checks;
pub mod yaml_checks;

use vgsupp::supp::kinds::{Tool, Version};
use vgsupp::supp::loader::LoadOptions;

/// Split a fuzz input into loader options (from its first 4 bytes) and the file's bytes:
/// byte 0 picks the tool, byte 1 the release (3.14 ..= 3.27), bytes 2–3 `--num-callers`
/// (1 ..= 500). Inputs shorter than 4 bytes use the defaults for Memcheck.
#[must_use]
pub fn split_options(data: &[u8]) -> (LoadOptions, &[u8]) {
    let Some((head, src)) = data.split_first_chunk::<4>() else {
        return (LoadOptions::new(Tool::Memcheck), data);
    };
    let tool = Tool::ALL[usize::from(head[0]) % Tool::ALL.len()];
    let version = Version::new(14 + head[1] % 14).unwrap_or_default();
    let num_callers = 1 + u32::from(u16::from_le_bytes([head[2], head[3]])) % 500;
    (
        LoadOptions {
            tool,
            version,
            num_callers,
        },
        src,
    )
}
