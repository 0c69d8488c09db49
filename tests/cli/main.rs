//! The integration test binary (one binary keeps link time down).

mod commands;
mod common;
mod corpus;
mod grammar;
mod properties;
