#!/usr/bin/env python3
"""Writes a large Valgrind text log made of many short Memcheck runs, as a CI job that
runs a test suite under Valgrind into one log file would.

Usage: bench/multiproc-log.py OUT [--processes N] [--errors K] [--interleave J] [--one-pid]
                              [--verbose]

Each run is one process: its preamble, K errors (invalid reads with an alloc'd aux stack,
conditional jumps, loss records), each followed by its `--gen-suppressions=all` block, the
heap and leak summaries, the `-s` hint and its ERROR SUMMARY. With --verbose the runs look
like `-v` runs instead: `Reading syms from` lines, no hint, the `N errors in context` listing
of the non-leak errors and a second ERROR SUMMARY. Defaults: 15,000 processes of 20 errors
(about 300 MB); PIDs 100000, 100001, …

--interleave J writes J runs at a time, their lines interleaved in small runs (as parallel
test workers writing to one file); suppression blocks stay right after their error's blank
line, as Valgrind writes them in one go. --one-pid gives every run the same PID and drops
all preambles but the first: the same bytes as one long process.
"""

import argparse
import random


def frames(rng, depth, lib):
    out = []
    for i in range(depth):
        ip = rng.randrange(0x400000, 0x7FFFFFFF)
        if i % 3 == 2:
            out.append((ip, f"helper_{rng.randrange(50)}", f"in /usr/lib/x86_64-linux-gnu/{lib}"))
        else:
            out.append((ip, f"test_fn_{rng.randrange(200)}", f"tests/t{rng.randrange(40)}.c:{rng.randrange(1, 900)}"))
    return out


def stack_lines(fr):
    lines = []
    for i, (ip, fn, loc) in enumerate(fr):
        word = "at" if i == 0 else "by"
        lines.append(f"   {word} 0x{ip:X}: {fn} ({loc})")
    return lines


def block(kind, extra, fr):
    lines = ["{", "   <insert_a_suppression_name_here>", f"   Memcheck:{kind}"]
    if extra:
        lines.append(f"   {extra}")
    for ip, fn, loc in fr:
        lines.append(f"   fun:{fn}" if not loc.startswith("in ") else f"   obj:{loc[3:]}")
    lines.append("}")
    return lines


def run(rng, errors, verbose, with_preamble):
    """One process's output as units of (text, prefixed) lines that stay together (an
    error's blank line and its suppression block); prefixed lines get `==PID== ` (or
    `--PID-- ` when the text starts with `--`)."""
    out = []
    p = lambda t: out.append([(t, True)])
    d = lambda t: out.append([("--" + t, True)])
    raw = lambda t: out[-1].append((t, False))
    if with_preamble:
        p("Memcheck, a memory error detector")
        p("Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.")
        p("Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info")
        p(f"Command: ./tests/t{rng.randrange(1000)} --case {rng.randrange(100)}")
        p("Parent PID: 4242")
        p("")
        if verbose:
            for lib in ["ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libtest.so.1"]:
                d(f"Reading syms from /usr/lib/x86_64-linux-gnu/{lib}")
    shown = []
    leaks = 0
    for e in range(errors):
        choice = e % 4
        if choice == 0:
            fr = frames(rng, 8, "libtest.so.1")
            head = ["Invalid read of size 4"] + stack_lines(fr)
            head += [" Address 0x4a5b040 is 0 bytes after a block of size 16 alloc'd"]
            head += stack_lines(frames(rng, 5, "libc.so.6"))
            kind, extra = "Addr4", None
            shown.append(head)
        elif choice == 1:
            fr = frames(rng, 10, "libtest.so.1")
            head = ["Conditional jump or move depends on uninitialised value(s)"] + stack_lines(fr)
            kind, extra = "Cond", None
            shown.append(head)
        else:
            leaks += 1
            fr = frames(rng, 12, "libtest.so.1")
            head = [f"{16 * (e + 1)} bytes in 1 blocks are definitely lost in loss record {leaks} of {errors // 2}"]
            head += stack_lines(fr)
            kind, extra = "Leak", "match-leak-kinds: definite"
        for t in head:
            p(t)
        p("")
        for t in block(kind, extra, fr):
            raw(t)
    p("LEAK SUMMARY:")
    p(f"   definitely lost: {leaks * 16} bytes in {leaks} blocks")
    p("")
    n_err = errors
    contexts = errors
    if not verbose:
        p("For lists of detected and suppressed errors, rerun with: -s")
    p(f"ERROR SUMMARY: {n_err} errors from {contexts} contexts (suppressed: 0 from 0)")
    if verbose:
        for i, head in enumerate(shown):
            p("")
            p(f"1 errors in context {i + 1} of {contexts}:")
            for t in head:
                p(t)
            p("")
        d("")
        p("")
        p(f"ERROR SUMMARY: {n_err} errors from {contexts} contexts (suppressed: 0 from 0)")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--processes", type=int, default=15000)
    ap.add_argument("--errors", type=int, default=20)
    ap.add_argument("--interleave", type=int, default=1)
    ap.add_argument("--one-pid", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    rng = random.Random(9)
    # A few run shapes, reused with other PIDs: writing 300 MB stays fast.
    shapes = [run(rng, args.errors, args.verbose, True) for _ in range(16)]
    bodies = [run(rng, args.errors, args.verbose, False) for _ in range(16)]

    def rendered(k):
        pid = 100000 + (0 if args.one_pid else k)
        units = (bodies if args.one_pid and k > 0 else shapes)[k % 16]
        out = []
        for unit in units:
            lines = []
            for t, prefixed in unit:
                if not prefixed:
                    lines.append(t)
                elif t.startswith("--"):
                    lines.append(f"--{pid}-- {t[2:]}")
                else:
                    lines.append(f"=={pid}== {t}")
            out.append("\n".join(lines) + "\n")
        return out

    with open(args.out, "w") as f:
        k = 0
        while k < args.processes:
            group = [rendered(k + j) for j in range(min(args.interleave, args.processes - k))]
            k += len(group)
            pos = [0] * len(group)
            while any(pos[j] < len(group[j]) for j in range(len(group))):
                for j, units in enumerate(group):
                    end = min(pos[j] + rng.randrange(1, 6), len(units))
                    f.write("".join(units[pos[j]:end]))
                    pos[j] = end


if __name__ == "__main__":
    main()
