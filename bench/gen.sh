#!/usr/bin/env bash
# `vgsupp gen` over more than 1 GB of logs (issue 10; PRODUCT.md §7: under 10 s on the
# 2-core machine). Builds --release, then:
#
#   1. the logs (in a temporary directory), from ../shared/fixtures/torch/leaky-ext.txt.gz
#      (137 MB, 19,908 errors of up to 40 frames, 16 of them first-party):
#      - many:  8 copies of it, one file each (CI keeps one log per test run);
#      - one:   the 8 copies as one file, each copy a process of its own PID (a
#               multi-process log, read by the parallel text reader);
#      - torch: the log itself;
#   2. for each, `wc -l` and `vgsupp gen --first-party 'leaky_ext*' --format json -o OUT`:
#      CPU time (user + sys, best of $RUNS), wall time (median), peak RSS
#      (`/usr/bin/time -v`), and the number of rules written;
#   3. unless CHECK=0, that the rules and the JSON report are the same bytes on one thread
#      (RAYON_NUM_THREADS=1 VGSUPP_READ_THREADS=1) as on every core, and their sha256
#      (compare revisions with VGSUPP_BIN=OLD).
#
# Usage: bench/gen.sh   RUNS=N (default 3); LOGS="many one torch" (a subset);
#                       VGSUPP_BIN=PATH measures that binary instead of building this tree;
#                       KEEP=DIR keeps the generated logs in DIR (and reuses them).
# The machine may be shared with other work: CPU time (best of N) is the number to compare;
# wall time is noisier.
set -euo pipefail
[[ -n ${VGSUPP_BIN:-} ]] && VGSUPP_BIN=$(realpath "$VGSUPP_BIN")
[[ -n ${KEEP:-} ]] && KEEP=$(realpath -m "$KEEP")
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
logs=${LOGS:-many one torch}
check=${CHECK:-1}
shared=../shared
copies=8

if ! [[ -x /usr/bin/time ]]; then
  echo "GNU time is missing: installing it (apt-get install time)" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null
fi

if [[ -n ${KEEP:-} ]]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/vgsupp-gen-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi

if [[ -n ${VGSUPP_BIN:-} ]]; then
  bin=$VGSUPP_BIN
else
  cargo build --release --quiet
  bin=$PWD/target/release/vgsupp
fi

# 1. The logs.
torch=$work/leaky-ext.txt
[[ -s $torch ]] || zcat "$shared/fixtures/torch/leaky-ext.txt.gz" >"$torch"
if [[ $logs == *many* ]] && ! [[ -s $work/many/copy-$copies.txt ]]; then
  mkdir -p "$work/many"
  for ((i = 1; i <= copies; i++)); do
    cp "$torch" "$work/many/copy-$i.txt"
  done
fi
if [[ $logs == *one* ]] && ! [[ -s $work/one.txt ]]; then
  : >"$work/one.txt.tmp"
  for ((i = 1; i <= copies; i++)); do
    # Each copy a process of its own: PID 31893 becomes 41001, 41002, …
    sed "s/^\\([=-]\\{2\\}\\)31893\\([=-]\\{2\\}\\)/\\1$((41000 + i))\\2/" "$torch" >>"$work/one.txt.tmp"
  done
  mv "$work/one.txt.tmp" "$work/one.txt"
fi
log_args() {
  case $1 in
    many) for ((i = 1; i <= copies; i++)); do echo "$work/many/copy-$i.txt"; done ;;
    one) echo "$work/one.txt" ;;
    torch) echo "$torch" ;;
  esac
}

# measure CMD…: best CPU, median wall and peak RSS of $runs runs (bench/measure.sh).
source bench/measure.sh

# 2. Timings.
rows=()
sums=()
row() {
  # label, what, size, measurement, wc measurement, rules
  awk -v l="$1" -v w="$2" -v s="$3" -v m="$4" -v c="$5" -v r="$6" 'BEGIN {
    split(m, a, " "); split(c, b, " ")
    printf "%-6s %-8s %6d %7.2f %7.2f %8.1f %8.1f %7.1f %6s\n", l, w, s / 1e6, a[1], a[2],
      a[1] / (b[1] > 0.01 ? b[1] : 0.01), a[2] / (b[2] > 0.01 ? b[2] : 0.01), a[3] / 1024, r }'
}
for l in $logs; do
  mapfile -t paths < <(log_args "$l")
  size=$(cat "${paths[@]}" | wc -c)
  cat "${paths[@]}" >/dev/null # into the page cache
  echo "measuring $l ($((size / 1000000)) MB in ${#paths[@]} files, $runs runs each)..." >&2
  wc=$(measure wc -l "${paths[@]}")
  cmd=("$bin" gen -q --format json --first-party 'leaky_ext*' -o "$work/out-$l.supp" "${paths[@]}")
  gen=$(measure "${cmd[@]}")
  n=$(grep -c '^{' "$work/out-$l.supp" || true)
  rows+=("$(row "$l" "wc -l" "$size" "$wc" "$wc" "")")
  rows+=("$(row "$l" "gen" "$size" "$gen" "$wc" "$n")")
  if [[ $check != 0 ]]; then
    echo "checking $l: one thread against every core..." >&2
    all=$("${cmd[@]}" | sha256sum | cut -d' ' -f1)
    all_supp=$(sha256sum <"$work/out-$l.supp" | cut -d' ' -f1)
    one=$(RAYON_NUM_THREADS=1 VGSUPP_READ_THREADS=1 "${cmd[@]}" | sha256sum | cut -d' ' -f1)
    one_supp=$(sha256sum <"$work/out-$l.supp" | cut -d' ' -f1)
    if [[ $all != "$one" || $all_supp != "$one_supp" ]]; then
      echo "MISMATCH on $l: every core $all $all_supp, one thread $one $one_supp" >&2
      exit 1
    fi
    sums+=("$l report $all rules $all_supp")
  fi
done

echo
printf "%-6s %-8s %6s %7s %7s %8s %8s %7s %6s\n" log what MB "cpu s" "wall s" \
  "x wc cpu" "x wc wall" "RSS MB" rules
printf '%s\n' "${rows[@]}"
echo "(cpu: user+sys, best of $runs; wall: median; x wc: time relative to wc -l on the same"
echo " files; target: gen over 1 GB in under 10 s wall on 2 cores)"
if ((${#sums[@]} > 0)); then
  echo
  echo "sha256 of the JSON report and the rules (the same on one thread and on every core):"
  printf '  %s\n' "${sums[@]}"
fi
