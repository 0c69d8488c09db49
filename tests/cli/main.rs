//! The integration test binary (one binary keeps link time down).

mod commands;
mod common;
mod config;
mod corpus;
mod demangle;
mod diagnostics;
mod example_torch;
mod gen_scenario;
#[path = "gen.rs"]
mod generate;
mod grammar;
mod logs_text;
mod logs_xml;
mod match_credit;
mod match_differential;
mod match_live;
mod match_perf;
mod match_render;
mod matching;
mod objects;
mod output;
mod profiles;
mod properties;
mod sidecar;
