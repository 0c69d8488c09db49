#!/usr/bin/env python3
"""Derive the damaged and decorated logs in this directory from the real recordings.

Run from this directory: python3 make-derived.py
"""
import random
import re

PREFIX = re.compile(rb"^(==|--|\*\*)[0-9]+\1( |$)")


def lines(name):
    with open(name, "rb") as f:
        return f.read().split(b"\n")[:-1]


def write(name, ls, end=b"\n"):
    with open(name, "wb") as f:
        f.write(b"\n".join(ls) + end)


# CI time stamps before every line (GitHub Actions style), prefixed or not.
src = lines("drd-errors.log")
out = []
for n, l in enumerate(src):
    out.append(b"2026-11-30T10:%02d:%02d.%07dZ " % (n // 60 % 60, n % 60, n * 12345 % 10**7) + l)
write("ci-timestamps.log", out)

# Valgrind under Valgrind: the inner run's prefixed lines get one '>' (the outer run's
# own lines have none); unprefixed suppression blocks are not marked.
src = lines("helgrind-race.log")
outer = [
    b"==1000== Memcheck, a memory error detector",
    b"==1000== Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.",
    b"==1000== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info",
    b"==1000== Command: ./vg-in-place --tool=helgrind -s --gen-suppressions=all ./race",
    b"==1000== ",
]
inner = [b">" + l if PREFIX.match(l) else l for l in src]
tail = [
    b"==1000== ",
    b"==1000== HEAP SUMMARY:",
    b"==1000==     in use at exit: 0 bytes in 0 blocks",
    b"==1000==   total heap usage: 0 allocs, 0 frees, 0 bytes allocated",
    b"==1000== ",
    b"==1000== All heap blocks were freed -- no leaks are possible",
    b"==1000== ",
    b"==1000== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)",
]
write("nested.log", outer + inner + tail)


# Two processes writing to one file, line by line, with program output in between. A
# suppression block stays glued to the blank line that ends its error (Valgrind prints
# them in one go); everything else interleaves freely.
def units(ls):
    us = []
    for l in ls:
        if us and not PREFIX.match(l) and (l.startswith(b"{") or l.startswith(b"   ") or l == b"}") \
                and (us[-1][-1].endswith(b"== ") or not PREFIX.match(us[-1][-1])):
            us[-1].append(l)
        else:
            us.append([l])
    return us


rng = random.Random(5)
a, b = units(lines("helgrind-race.log")), units(lines("drd-errors.log"))
out = []
while a or b:
    pick = a if (a and (not b or rng.random() < 0.5)) else b
    out.extend(pick.pop(0))
    if rng.random() < 0.05:
        out.append(b"program output: step %d {not a block}" % len(out))
write("interleaved.log", out)

# Valgrind killed in the middle of an error: the last line is cut and has no newline.
src = lines("memcheck-verbose-fork.log")
cut = next(i for i, l in enumerate(src) if l.endswith(b"Invalid free() / delete / delete[] / realloc()"))
write("truncated.log", src[: cut + 4] + [src[cut + 4][:20]], end=b"")

# A crash that left the end of the file as NUL blocks, after a cut-off error.
src = lines("helgrind-race.log")
cut = next(i for i, l in enumerate(src) if l.endswith(b"lock order \"0x10C0A0 before 0x10C0E0\" violated"))
with open("truncated-garbage.log", "wb") as f:
    f.write(b"\n".join(src[: cut + 6]) + b"\n" + b"\0" * 3000 + b"\n" + b"\0\x01\x02" * 100)
