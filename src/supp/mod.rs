//! The suppression language: line splitting, the lossless model, the structural parser, the
//! exact loader emulation and the canonical formatter. No I/O happens here.

pub mod binary;
pub mod edit;
pub mod format;
pub mod kinds;
pub mod lines;
pub mod loader;
pub mod model;
pub mod parser;
pub mod syntax;

pub use format::{canonical_body, format, format_source, is_formatted};
pub use kinds::{Tool, Version};
pub use loader::{LoadError, LoadOptions, LoadResult, load};
pub use model::{Span, SuppFile};
pub use parser::{classify, parse};
