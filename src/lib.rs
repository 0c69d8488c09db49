//! vgsupp: manage Valgrind suppression files.
//!
//! Data flows one way: bytes → model → analysis → report.
//! - [`supp`] reads `.supp` files exactly as Valgrind's loader does and formats them;
//! - [`lint`] checks them and produces [`diagnostic::Diagnostic`]s;
//! - [`diagnostic`] renders those for people and machines;
//! - [`logs`] reads Valgrind's logs, [`matcher`] and [`replay`] match rules against them as
//!   Valgrind does, [`origin`] says whose code each frame is, and `gen` (the module
//!   `r#gen`) writes rules for their third-party noise;
//! - [`packs`] holds the curated rule packs of `suppressions/`, compiled in.
//!
//! The library never prints or exits; the `vgsupp` binary's `cli` module does.

pub mod catalogue;
pub mod config;
pub mod date;
pub mod diagnostic;
pub mod evidence;
pub mod gate;
pub mod r#gen;
pub mod lint;
pub mod logs;
pub mod matcher;
pub mod origin;
pub mod packs;
pub mod replay;
pub mod sidecar;
pub mod supp;
pub mod yaml;
