//! Matching scale: 10,000 rules × 1,000,000 error stacks (target < 5 s on the 2-core
//! machine, PRODUCT.md §7). A plain timing harness: one pass, printed.

#![allow(clippy::print_stdout)]

use std::hint::black_box;

use rayon::prelude::*;
use std::time::Instant;

use vgsupp::matcher::input::{ErrorKind, InputFrame, Known, MatchInput, SrcInfo};
use vgsupp::matcher::{RuleFile, RuleSet, Truth};
use vgsupp::replay::credit::{Candidates, SearchOrder};
use vgsupp::supp::{Tool, Version};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const KINDS: [&str; 6] = ["Leak", "Cond", "Value8", "Addr4", "Addr8", "Free"];

fn fun_name(i: u64) -> String {
    format!("_ZN5torch8autograd{}Fn{i}Ev", i % 97)
}

fn obj_name(i: u64) -> String {
    format!(
        "/opt/lib/python3.11/site-packages/torch/lib/libtorch_{}.so",
        i % 40
    )
}

fn rules(n: usize, rng: &mut Rng) -> String {
    let mut s = String::new();
    for r in 0..n {
        let kind = KINDS[rng.below(KINDS.len() as u64) as usize];
        s.push_str(&format!("{{\n   rule-{r}\n   Memcheck:{kind}\n"));
        if kind == "Leak" {
            s.push_str("   match-leak-kinds: definite,possible\n");
        }
        let depth = 2 + rng.below(8);
        for d in 0..depth {
            let f = rng.below(50_000);
            let last = d + 1 == depth;
            let line = match (d, rng.below(20)) {
                _ if last => format!("   fun:{}\n", fun_name(f)),
                (0, 0) => "   ...\n".to_owned(),
                (_, 1) => format!("   obj:*/libtorch_{}.so\n", f % 40),
                (_, 2) => format!("   fun:_ZN5torch8autograd{}Fn*\n", f % 97),
                (_, 3) => "   ...\n".to_owned(),
                _ => format!("   fun:{}\n", fun_name(f)),
            };
            s.push_str(&line);
        }
        s.push_str("}\n");
    }
    s
}

fn inputs(n: usize, rng: &mut Rng) -> Vec<MatchInput> {
    (0..n)
        .map(|_| {
            let kind = KINDS[rng.below(KINDS.len() as u64) as usize];
            let frames = (0..12)
                .map(|_| {
                    let f = rng.below(50_000);
                    InputFrame {
                        fun: Known::Yes(fun_name(f).into_bytes()),
                        obj: Known::Yes(obj_name(f).into_bytes()),
                        src: Known::Yes(SrcInfo::None),
                    }
                })
                .collect();
            let leak = (kind == "Leak").then_some(vgsupp::supp::model::LeakKind::Definite);
            MatchInput {
                kind: ErrorKind {
                    kind: kind.to_owned(),
                    leak,
                    ..ErrorKind::default()
                },
                frames,
                open_ended: false,
                hidden_below_main: false,
                demangled_names: false,
            }
        })
        .collect()
}

fn main() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let text = rules(10_000, &mut rng);
    let set = RuleSet::load(
        vec![RuleFile {
            path: "bench.supp".into(),
            source: text.into_bytes(),
        }],
        &[Tool::Memcheck],
        Version::default(),
        500,
    )
    .expect("generated rules load");
    let mut stacks = inputs(100_000, &mut rng);
    // Make some errors match: copy a rule's literal frames into a stack now and then.
    for (i, s) in stacks.iter_mut().enumerate().step_by(7) {
        let r = &set.rules[i % set.rules.len()];
        s.kind.kind = String::from_utf8_lossy(&r.kind).into_owned();
        for (f, p) in s.frames.iter_mut().zip(&r.frames) {
            if let vgsupp::matcher::rule::Pattern::Fun(g) = p
                && g.is_literal()
            {
                f.fun = Known::Yes(g.as_bytes().to_vec());
            }
        }
    }
    let start = Instant::now();
    let mut order = SearchOrder::new(set.rules.len());
    let mut suppressed = 0_u64;
    // 1,000,000 stacks: ten passes over 100,000 distinct ones. Which rules match each error
    // is computed in parallel (rayon, both cores); the first-match choice, which depends on
    // the search order, runs in log order.
    for _ in 0..10 {
        for chunk in stacks.chunks(4096) {
            let matches: Vec<_> = chunk
                .par_iter()
                .map(|s| set.all_matches(Tool::Memcheck, black_box(s)))
                .collect();
            for m in &matches {
                let mut c = Candidates::default();
                for &(id, t) in m {
                    match t {
                        Truth::Yes => c.yes.push(id),
                        Truth::Unknown => c.maybe.push(id),
                        Truth::No => {}
                    }
                }
                if order.group(&[c], 0, |_| 0)[0].surely_suppressed {
                    suppressed += 1;
                }
            }
        }
    }
    let el = start.elapsed();
    println!(
        "matching: {} rules x 1,000,000 error stacks in {:.2} s ({suppressed} suppressed; target < 5 s)",
        set.rules.len(),
        el.as_secs_f64()
    );
}
