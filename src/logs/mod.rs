//! Reading Valgrind's logs: text and XML, plain or gzip-compressed, detected by content.
//! Readers stream: memory is bounded by one error, not by the log.

mod bytes;
pub mod detect;
#[cfg(unix)]
pub mod parallel;
pub mod record;
mod scan;
pub mod stack;
pub mod text;
pub mod xml;

#[cfg(test)]
mod gap_tests;

pub use record::{
    ErrorRecord, Frame, GenFrame, GenFrames, GenSuppression, LogFormat, LogItem, ReadError, Stack,
};
