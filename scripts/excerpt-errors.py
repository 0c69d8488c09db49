#!/usr/bin/env python3
"""Errors found in log excerpts, against the errors visible in them.

Usage: scripts/excerpt-errors.py EXCERPTS.txt MANIFEST.tsv [VGSUPP]

EXCERPTS.txt holds excerpts of Valgrind logs, each after a separator line
`#### excerpt NNN <url>`; MANIFEST.tsv has one row per excerpt with the columns
`id url repository project-area lines memcheck_errors_visible notes` (a header row first).
Each excerpt is written to a file of its own and read with
`VGSUPP match --format json -s EMPTY FILE` (VGSUPP defaults to target/release/vgsupp).
Prints, per excerpt, the errors visible, the errors `match` reports and its warnings, then
the totals: errors found (at most the visible ones per excerpt), visible, and extra errors
reported beyond the visible ones (false errors, e.g. announcements read as errors).

The excerpt file is not part of the repository (the threads it quotes ask not to be copied);
tests/data/logs/text/excerpts.log holds hand-written look-alikes of every shape.
"""

import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    excerpts_path, manifest_path = sys.argv[1], sys.argv[2]
    vgsupp = sys.argv[3] if len(sys.argv) > 3 else "target/release/vgsupp"

    visible = {}
    with open(manifest_path, encoding="utf-8") as f:
        next(f)
        for row in f:
            cols = row.rstrip("\n").split("\t")
            visible[cols[0]] = int(cols[5])

    excerpts = []
    current = None
    with open(excerpts_path, "rb") as f:
        for line in f:
            if line.startswith(b"#### excerpt "):
                current = [line.split()[2].decode(), b""]
                excerpts.append(current)
            elif current is not None:
                current[1] += line

    found_total = visible_total = extra_total = 0
    with tempfile.TemporaryDirectory() as tmp:
        supp = os.path.join(tmp, "empty.supp")
        open(supp, "w").close()
        for ident, body in excerpts:
            path = os.path.join(tmp, f"{ident}.log")
            with open(path, "wb") as out:
                out.write(body)
            run = subprocess.run(
                [vgsupp, "match", "--format", "json", "-s", supp, path],
                capture_output=True,
            )
            try:
                errors = json.loads(run.stdout)["errors"]
            except (ValueError, KeyError):
                print(f"{ident}: vgsupp failed: {run.stderr.decode(errors='replace')}")
                return 1
            warnings = [
                l for l in run.stderr.decode(errors="replace").splitlines() if "warning" in l
            ]
            want = visible.get(ident, 0)
            got = len(errors)
            found_total += min(got, want)
            extra_total += max(0, got - want)
            visible_total += want
            mark = "" if got == want else "  <--"
            print(f"{ident}: visible {want}, reported {got}, warnings {len(warnings)}{mark}")
    print(
        f"found {found_total} of {visible_total} visible errors "
        f"({len(excerpts)} excerpts); {extra_total} reported beyond the visible ones"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
