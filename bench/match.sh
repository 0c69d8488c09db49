#!/usr/bin/env bash
# `vgsupp match` end to end with a real rule set (issue 9, item 8). Builds --release, then:
#
#   1. the real rule set: every file of ../shared/corpus/supp/ that Valgrind 3.19's Memcheck
#      loads (`vgsupp check --valgrind 3.19 --tool memcheck --format json` reports nothing
#      `fatal_in_valgrind`), concatenated; prints its record count;
#   2. the logs (in a temporary directory, with bench/gen_match_logs.py):
#      - many:  15,000 processes (~180 MB), each with its own PID, its preamble, 20 of the
#               first 21 errors of tests/data/match/basic/baseline.txt (with their gen
#               blocks) and its ERROR SUMMARY (runs without -v, as most CI runs are);
#      - one:   the same errors as one process (300,000 errors, 21 distinct stacks);
#      - torch: ../shared/fixtures/torch/leaky-ext.txt.gz unpacked (137 MB, 19,908 errors of
#               up to 40 frames; matched with --num-callers 40);
#      - xml:   ../shared/fixtures/torch/leaky-ext.xml.gz unpacked (565 MB; for the table only);
#   3. for each log, `wc -l`, and `vgsupp match --format json` with no rules and with the
#      real rules (`--valgrind 3.19`; the set holds Helgrind records that 3.19 refuses,
#      which do not stop `match` on Memcheck logs, as they did not stop Valgrind; builds
#      before issue 14 stop on them without --keep-going): CPU time (user + sys, best of $RUNS), wall time
#      (median), the ratio to `wc -l` and to the no-rules run, peak RSS (`/usr/bin/time -v`);
#   4. unless CHECK=0, that the JSON output with the rules is the same bytes on one thread
#      (RAYON_NUM_THREADS=1 VGSUPP_READ_THREADS=1) as on every core, and its sha256 (compare
#      revisions with VGSUPP_BIN=OLD: the sums must be equal).
#
# Usage: bench/match.sh   RUNS=N (default 3); LOGS="one many torch xml" (a subset);
#                         VGSUPP_BIN=PATH measures that binary instead of building this tree;
#                         KEEP=DIR keeps the generated files in DIR (and reuses them).
# The machine may be shared with other work: CPU time (best of N) is the number to compare;
# wall time is noisier.
set -euo pipefail
# Paths given relative to where the script is run from.
[[ -n ${VGSUPP_BIN:-} ]] && VGSUPP_BIN=$(realpath "$VGSUPP_BIN")
[[ -n ${KEEP:-} ]] && KEEP=$(realpath -m "$KEEP")
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
logs=${LOGS:-one many torch xml}
check=${CHECK:-1}
shared=../shared

if ! [[ -x /usr/bin/time ]]; then
  echo "GNU time is missing: installing it (apt-get install time)" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null
fi

if [[ -n ${KEEP:-} ]]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/vgsupp-match-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi

if [[ -n ${VGSUPP_BIN:-} ]]; then
  bin=$VGSUPP_BIN
else
  cargo build --release --quiet
  bin=$PWD/target/release/vgsupp
fi
: >"$work/empty.supp"

# 1. The rule set.
rules=$work/real.supp
if ! [[ -s $rules ]]; then
  : >"$rules.tmp"
  taken=0
  skipped=0
  for f in "$shared"/corpus/supp/*; do
    [[ $(basename "$f") == MANIFEST.tsv ]] && continue
    if "$bin" check --valgrind 3.19 --tool memcheck --format json "$f" |
      python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(1 if any(x["fatal_in_valgrind"] for x in d["diagnostics"]) else 0)'; then
      cat "$f" >>"$rules.tmp"
      printf '\n' >>"$rules.tmp"
      taken=$((taken + 1))
    else
      skipped=$((skipped + 1))
    fi
  done
  mv "$rules.tmp" "$rules"
  echo "rule set: $taken files ($skipped skipped: Valgrind 3.19's Memcheck refuses them)" >&2
fi
records=$("$bin" check --valgrind 3.19 --tool memcheck --format json "$rules" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["rules"])')

# 2. The logs.
log_path() {
  case $1 in
    one) echo "$work/one.log" ;;
    many) echo "$work/many.log" ;;
    torch) echo "$work/leaky-ext.txt" ;;
    xml) echo "$work/leaky-ext.xml" ;;
  esac
}
callers() { [[ $1 == torch || $1 == xml ]] && echo 40 || echo 12; }
for l in $logs; do
  p=$(log_path "$l")
  [[ -s $p ]] && continue
  case $l in
    one | many)
      python3 bench/gen_match_logs.py tests/data/match/basic/baseline.txt \
        "$work/one.log" "$work/many.log"
      ;;
    torch) zcat "$shared/fixtures/torch/leaky-ext.txt.gz" >"$p" ;;
    xml) zcat "$shared/fixtures/torch/leaky-ext.xml.gz" >"$p" ;;
  esac
done

# measure CMD…: best CPU, median wall and peak RSS of $runs runs (bench/measure.sh).
source bench/measure.sh

# The command measured: `vgsupp match` on log $2 with rules $1 and --num-callers $3.
match_cmd() {
  cmd=("$bin" match -q --format json --valgrind 3.19 --num-callers "$3" -s "$1" "$2")
}

# 3. Timings.
rows=()
sums=()
row() {
  # label, what, size, measurement, wc measurement, no-rules measurement (or "")
  awk -v l="$1" -v w="$2" -v s="$3" -v m="$4" -v c="$5" -v n="$6" 'BEGIN {
    split(m, a, " "); split(c, b, " ")
    x = "-"
    if (n != "") { split(n, z, " "); x = sprintf("%.2f", a[1] / z[1]) }
    printf "%-6s %-22s %5d %7.2f %7.2f %8.1f %8.1f %8s %7.1f\n", l, w, s / 1e6, a[1], a[2],
      a[1] / (b[1] > 0.01 ? b[1] : 0.01), a[2] / (b[2] > 0.01 ? b[2] : 0.01), x, a[3] / 1024 }'
}
for l in $logs; do
  p=$(log_path "$l")
  nc=$(callers "$l")
  size=$(stat -c %s "$p")
  cat "$p" >/dev/null # into the page cache
  echo "measuring $l ($((size / 1000000)) MB, $runs runs each)..." >&2
  wc=$(measure wc -l "$p")
  match_cmd "$work/empty.supp" "$p" "$nc"
  none=$(measure "${cmd[@]}")
  match_cmd "$rules" "$p" "$nc"
  real=$(measure "${cmd[@]}")
  rows+=("$(row "$l" "wc -l" "$size" "$wc" "$wc" "")")
  rows+=("$(row "$l" "match, no rules" "$size" "$none" "$wc" "")")
  rows+=("$(row "$l" "match, real rules" "$size" "$real" "$wc" "$none")")
  if [[ $check != 0 ]]; then
    echo "checking $l: one thread against every core..." >&2
    all=$("${cmd[@]}" | sha256sum | cut -d' ' -f1)
    one=$(RAYON_NUM_THREADS=1 VGSUPP_READ_THREADS=1 "${cmd[@]}" | sha256sum | cut -d' ' -f1)
    if [[ $all != "$one" ]]; then
      echo "MISMATCH on $l: every core $all, one thread $one" >&2
      exit 1
    fi
    sums+=("$l $all")
  fi
done

echo
echo "real rule set: $records records (files Valgrind 3.19's Memcheck loads, concatenated)"
printf "%-6s %-22s %5s %7s %7s %8s %8s %8s %7s\n" log what MB "cpu s" "wall s" \
  "x wc cpu" "x wc wall" "x none" "RSS MB"
printf '%s\n' "${rows[@]}"
echo "(cpu: user+sys, best of $runs; wall: median; x wc: time relative to wc -l on the same"
echo " file; x none: cpu time relative to the same run with no rules)"
if ((${#sums[@]} > 0)); then
  echo
  echo "sha256 of the JSON with the real rules (the same on one thread and on every core):"
  printf '  %s\n' "${sums[@]}"
fi
