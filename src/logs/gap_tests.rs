//! Every reader types what a log misses ([`Gap`]): a gate must not pass on it.

use super::record::{Gap, LogItem};
use super::text::TextReader;
use super::xml::XmlReader;

fn gaps(items: impl Iterator<Item = LogItem>) -> Vec<Gap> {
    items.filter_map(|i| i.gap()).collect()
}

fn text(log: &str) -> Vec<Gap> {
    gaps(TextReader::new(log.as_bytes()).filter_map(Result::ok))
}

fn xml(log: &str) -> Vec<Gap> {
    gaps(XmlReader::new(log.as_bytes()).filter_map(Result::ok))
}

const PREAMBLE: &str = "==7== Memcheck, a memory error detector\n==7== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n==7== Command: ./a.out\n==7== \n";

#[test]
fn a_complete_text_log_has_no_gap() {
    let log = format!(
        "{PREAMBLE}==7== Invalid read of size 4\n==7==    at 0x1: f (a.c:1)\n==7== \n==7== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)\n"
    );
    assert_eq!(text(&log), []);
}

#[test]
fn a_text_log_cut_inside_an_error_is_truncated_and_unfinished() {
    let log = format!("{PREAMBLE}==7== Invalid read of size 4\n==7==    at 0x1: f (a.c:1)\n");
    let g = text(&log);
    assert!(
        g.contains(&Gap::Truncated) || g.contains(&Gap::Unfinished),
        "{g:?}"
    );
    assert!(g.contains(&Gap::Unfinished), "{g:?}");
}

#[test]
fn an_error_limit_is_capped() {
    let log = format!(
        "{PREAMBLE}==7== More than 10000000 total errors detected.  I'm not reporting any more.\n==7== Final error counts will be inaccurate.  Go fix your program!\n==7== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)\n"
    );
    assert!(text(&log).contains(&Gap::Capped), "{:?}", text(&log));
}

#[test]
fn binary_data_is_dropped() {
    let log = format!(
        "{PREAMBLE}\u{0}\u{1}\u{2}\u{3}\u{0}\u{0}\u{0}\u{0}\u{0}\n==7== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)\n"
    );
    let g = text(&log);
    assert!(g.contains(&Gap::Dropped), "{g:?}");
}

const XML_HEAD: &str = "<?xml version=\"1.0\"?>\n<valgrindoutput>\n<protocolversion>4</protocolversion>\n<protocoltool>memcheck</protocoltool>\n<pid>7</pid>\n<status><state>RUNNING</state><time>00:00:00:00.100</time></status>\n";

#[test]
fn xml_gaps() {
    let done = format!(
        "{XML_HEAD}<status><state>FINISHED</state><time>00:00:00:01.000</time></status>\n</valgrindoutput>\n"
    );
    assert_eq!(xml(&done), []);
    let cut_error = format!("{XML_HEAD}<error>\n<unique>0x1</unique>\n<kind>InvalidRead</kind>\n");
    assert!(
        xml(&cut_error).contains(&Gap::Truncated),
        "{:?}",
        xml(&cut_error)
    );
    assert_eq!(xml(XML_HEAD), [Gap::Truncated]);
    let killed = format!("{XML_HEAD}</valgrindoutput>\n");
    assert_eq!(xml(&killed), [Gap::Unfinished]);
}
