#!/usr/bin/env bash
# How much of each torch fixture `vgsupp match` decides: for every log of
# ../shared/fixtures/torch/ (text and XML), with the bundled example rules and with the
# object-glob rules of bench/rules/object-globs.supp, the errors and loss records and how
# many of them are approximate (whether suppressed, or which rule is credited, depends on
# something the log hides): how many may or may not be suppressed (`"suppressed": "maybe"`),
# how many are surely suppressed by a rule that is uncertain, and how many are approximate
# only because the order in which Valgrind tries the rules is unknown (loss records tied
# in size, or the rows before). VGSUPP_BIN=PATH measures another build (e.g. an older revision).
#
# Usage: bench/approximate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fixtures=../shared/fixtures/torch
[[ -d $fixtures ]] || { echo "no $fixtures: nothing to measure" >&2; exit 1; }
if [[ -n ${VGSUPP_BIN:-} ]]; then
  bin=$(realpath "$VGSUPP_BIN")
else
  cargo build --release --quiet
  bin=$PWD/target/release/vgsupp
fi
printf '%-40s %-13s %7s %16s %16s %16s %16s\n' log rules errors approximate "maybe suppressed" \
  "credit uncertain" "order only"
for log in "$fixtures"/*.txt "$fixtures"/*.txt.gz "$fixtures"/*.xml "$fixtures"/*.xml.gz; do
  [[ -e $log ]] || continue
  for rules in examples/torch-extension/cuda-torch.supp bench/rules/object-globs.supp; do
    # The recordings were made with --num-callers=40 (their preambles say so: match reads
    # it from them).
    "$bin" match --format json -s "$rules" "$log" 2>/dev/null |
      python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["errors"]
a = sum(1 for x in e if x["approximate"])
# Whether the error is suppressed is undecided ("maybe"), or it surely is and only the
# credited rule is uncertain; older builds have no "suppressed" (taken from suppressed_by).
def word(x):
    if "suppressed" in x:
        return x["suppressed"]
    return "yes" if x["suppressed_by"] is not None and not x["approximate"] else "?"
m = sum(1 for x in e if word(x) == "maybe")
c = sum(1 for x in e if x["approximate"] and word(x) == "yes")
# Rows whose only doubt is which rule Valgrind tries first (not what the log hides about
# the error itself); older builds do not say why.
o = sum(1 for x in e if x["approximate"] and x.get("why") == ["search-order"])
n = max(len(e), 1)
pc = lambda k: f"{k:>7} ({100*k/n:5.1f}%)"
print(f"{sys.argv[1]:<40} {sys.argv[2]:<13} {len(e):>7} {pc(a)} {pc(m)} {pc(c)} {pc(o)}")
' "$(basename "$log")" "$(basename "$rules" .supp)"
  done
done
