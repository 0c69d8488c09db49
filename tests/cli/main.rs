//! The integration test binary (one binary keeps link time down).

mod commands;
mod common;
mod corpus;
mod diagnostics;
mod grammar;
mod logs_text;
mod logs_xml;
mod match_differential;
mod match_live;
mod matching;
mod output;
mod properties;
