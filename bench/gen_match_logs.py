#!/usr/bin/env python3
"""Generate the two synthetic logs of bench/match.sh from a small real Valgrind log.

The first 21 errors of tests/data/match/basic/baseline.txt (none of them a loss record,
each followed by its --gen-suppressions block) are repeated:

  * MANY: PROCS processes one after another, each with its own PID, the log's preamble
    (Valgrind's -v lines included), ERRORS errors and its ERROR SUMMARY;
  * ONE_PROCESS: the same bytes as one process: one preamble, then the errors repeated
    until the file is as large as MANY, one ERROR SUMMARY.

Both stay valid Valgrind text logs (`==PID==` prefixes, gen blocks unprefixed).

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

    # The real preamble (with -v: options, `Reading syms` lines), up to the first error.
    head = []
    for line in lines:
        if line.startswith("==1000== Invalid "):
            break
        head.append(line)

    def preamble(pid):
        return "".join(
            re.sub(r"^(==|--)1000(==|--)", lambda m: f"{m[1]}{pid}{m[2]}", l) for l in head
        )

    def summary(pid, n):
        return f"=={pid}== ERROR SUMMARY: {n} errors from {n} contexts (suppressed: 0 from 0)\n"

    size = 0
    with open(many_path, "w", encoding="utf-8") as many:
        k = 0
        for p in range(procs):
            pid = 10000 + p
            chunk = [preamble(pid)]
            for _ in range(per):
                chunk.append(render(errors[k % DISTINCT], pid))
                k += 1
            chunk.append(summary(pid, per))
            text = "".join(chunk)
            size += len(text.encode())
            many.write(text)
    with open(one_path, "w", encoding="utf-8") as one:
        pid = 10000
        rendered = [render(e, pid) for e in errors]
        written = len(preamble(pid).encode())
        one.write(preamble(pid))
        k = 0
        while written < size:
            one.write(rendered[k % DISTINCT])
            written += len(rendered[k % DISTINCT].encode())
            k += 1
        one.write(summary(pid, k))


if __name__ == "__main__":
    main()
