//! The integration test binary (one binary keeps link time down).

mod commands;
mod common;
mod config;
mod corpus;
mod demangle;
mod diagnostics;
mod example_torch;
mod gate;
mod gen_layouts;
mod gen_scenario;
mod gen_write;
#[path = "gen.rs"]
mod generate;
mod grammar;
mod inputs;
mod logs_text;
mod logs_xml;
mod match_credit;
mod match_differential;
mod match_live;
mod match_perf;
mod match_recorded;
mod match_render;
mod match_undecided;
mod matching;
mod objects;
mod output;
mod profiles;
mod properties;
mod prune;
mod run;
mod sidecar;
mod trips;
