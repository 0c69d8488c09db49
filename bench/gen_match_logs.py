#!/usr/bin/env python3
"""Generate the two synthetic logs of bench/match.sh from a small real Valgrind log.

The first 21 errors of tests/data/match/basic/baseline.txt (none of them a loss record,
each followed by its --gen-suppressions block) are repeated:

  * MANY: PROCS processes one after another, each with its own PID, its preamble, ERRORS
    errors and its ERROR SUMMARY (a run without -v, as most CI runs are: Valgrind prints
    one summary and no context listing);
  * ONE_PROCESS: the same errors as one process: one preamble, the PROCS x ERRORS errors,
    one ERROR SUMMARY.

Both are valid Valgrind text logs (`==PID==` prefixes, gen blocks unprefixed).

Usage: gen_match_logs.py BASELINE ONE_PROCESS MANY [PROCS [ERRORS]]
"""
import re
import sys

DISTINCT = 21


def errors_of(lines):
    """The first DISTINCT errors: the `==1000==` lines of each error, then its gen block."""
    out = []
    cur = []
    in_gen = False
    started = False
    for line in lines:
        if in_gen:
            cur.append(line)
            if line == "}\n":
                out.append(cur)
                cur = []
                in_gen = False
                if len(out) == DISTINCT:
                    return out
            continue
        if line == "{\n" and started:
            cur.append(line)
            in_gen = True
            continue
        if not line.startswith("==1000== "):
            continue  # -v lines (REDIR, Reading syms) between errors
        body = line[len("==1000== "):]
        if not started:
            # The first error header: `Invalid read of size 4`.
            if body.startswith("Invalid "):
                started = True
            else:
                continue
        cur.append(body)
    raise SystemExit(f"fewer than {DISTINCT} errors with gen blocks")


def main():
    base, one_path, many_path = sys.argv[1:4]
    procs = int(sys.argv[4]) if len(sys.argv) > 4 else 15000
    per = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    with open(base, encoding="utf-8") as f:
        lines = f.readlines()
    errors = errors_of(lines)
    # Error lines are stored without their prefix; gen-block lines keep theirs (none).
    def render(err, pid):
        prefix = f"=={pid}== "
        out = []
        gen = False
        for l in err:
            if l == "{\n":
                gen = True
            out.append(l if gen else prefix + l)
            if l == "}\n":
                gen = False
        return "".join(out)

    # The preamble Valgrind prints without -v: the log's lines up to its first blank
    # `==1000== ` line (what follows it in the log is -v output).
    head = []
    for line in lines:
        if not line.startswith("==1000== "):
            continue
        head.append(line)
        if line == "==1000== \n":
            break

    def preamble(pid):
        return "".join(re.sub(r"^==1000==", f"=={pid}==", l) for l in head)

    def summary(pid, n):
        # Without -v, 3.15+ prints the hint, then its only summary.
        return (
            f"=={pid}== For lists of detected and suppressed errors, rerun with: -s\n"
            f"=={pid}== ERROR SUMMARY: {n} errors from {n} contexts (suppressed: 0 from 0)\n"
        )

    with open(many_path, "w", encoding="utf-8") as many:
        k = 0
        for p in range(procs):
            pid = 10000 + p
            chunk = [preamble(pid)]
            for _ in range(per):
                chunk.append(render(errors[k % DISTINCT], pid))
                k += 1
            chunk.append(summary(pid, per))
            many.write("".join(chunk))
    with open(one_path, "w", encoding="utf-8") as one:
        pid = 10000
        rendered = [render(e, pid) for e in errors]
        one.write(preamble(pid))
        for k in range(procs * per):
            one.write(rendered[k % DISTINCT])
        one.write(summary(pid, procs * per))


if __name__ == "__main__":
    main()
