//! YAML for vgsupp's own files (the sidecar `NAME.supp.yaml` and `vgsupp.yaml`): a bounded
//! reader into an ordered tree that keeps comments, and a writer that gives the tree back.
//!
//! Why not a serde data format: the sidecar is read into a typed model, yet a rewrite must
//! keep what the model does not know (unknown keys at every level, in their place, and the
//! comments a person wrote). The typed layers ([`crate::sidecar`], [`crate::config`]) decode
//! from this tree and write their changes into it, so everything else survives. Events come
//! from `saphyr-parser` (pure Rust, YAML 1.2, no `unsafe`); see ARCHITECTURE.md for the
//! choice. What a rewrite loses: anchors and tags (aliases are refused on reading), a
//! comment on a block scalar's header line, the layout inside flow collections and the
//! choice between `|` and `>` (the text is kept).

pub mod read;
pub mod scalar;
pub mod source;
pub mod tree;
pub mod write;

#[cfg(test)]
mod proptests;

pub use read::{Limits, ReadError, ReadErrorKind, read};
pub use tree::{Document, Entry, Item, Map, Node, Notes, Scalar, Seq, Style, Value};
pub use write::write;
