#!/usr/bin/env bash
# `vgsupp prune` over more than 1 GB of logs (issue 16; target: under 10 s here). Builds
# --release, then:
#
#   1. the logs (in a temporary directory): 8 copies of
#      ../shared/fixtures/torch/leaky-ext.txt.gz unpacked (137 MB each, 19,908 errors of up
#      to 40 frames), one file each, as CI keeps one log per test run; and the XML twin
#      (575 MB unpacked) once;
#   2. the rules: every corpus file Valgrind loads (../shared/corpus/supp/, checked with
#      `valgrind --suppressions=F /bin/true`) and the bundled packs (suppressions/*.supp);
#   3. `vgsupp prune RULES… --logs LOGS --format json`: wall time (median of $RUNS), CPU
#      time (user + sys, best), peak RSS, and the statuses counted;
#   4. unless CHECK=0, that the report is the same bytes on one thread
#      (RAYON_NUM_THREADS=1 VGSUPP_READ_THREADS=1) as on every core.
#
# Usage: bench/prune.sh   RUNS=N (default 3); VGSUPP_BIN=PATH measures that binary;
#                         KEEP=DIR keeps the generated logs in DIR (and reuses them).
set -euo pipefail
[[ -n ${VGSUPP_BIN:-} ]] && VGSUPP_BIN=$(realpath "$VGSUPP_BIN")
[[ -n ${KEEP:-} ]] && KEEP=$(realpath -m "$KEEP")
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
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
  work=$(mktemp -d /tmp/vgsupp-prune-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
if [[ -n ${VGSUPP_BIN:-} ]]; then
  bin=$VGSUPP_BIN
else
  cargo build --release --quiet
  bin=$PWD/target/release/vgsupp
fi

# 1. The logs.
mkdir -p "$work/logs"
torch=$work/logs/copy-1.txt
[[ -s $torch ]] || zcat "$shared/fixtures/torch/leaky-ext.txt.gz" >"$torch"
for ((i = 2; i <= copies; i++)); do
  [[ -s $work/logs/copy-$i.txt ]] || cp "$torch" "$work/logs/copy-$i.txt"
done
[[ -s $work/logs/leaky-ext.xml ]] || zcat "$shared/fixtures/torch/leaky-ext.xml.gz" >"$work/logs/leaky-ext.xml"
bytes=$(cat "$work"/logs/* | wc -c)

# 2. The rules.
rules=()
for f in "$shared"/corpus/supp/*.supp "$shared"/corpus/supp/*.sup; do
  [[ -f $f ]] || continue
  if command -v valgrind >/dev/null && ! valgrind -q --suppressions="$f" /bin/true >/dev/null 2>&1; then
    continue
  fi
  rules+=("$f")
done
rules+=(suppressions/*.supp)
nrules=$(cat "${rules[@]}" | grep -c '^{' || true)

# 3. The runs.
walls=()
best_cpu=
for ((r = 1; r <= runs; r++)); do
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
    "$bin" --no-config prune "${rules[@]}" --logs "$work/logs" --format json >"$work/report.json" 2>/dev/null
  read -r wall user sys rss <"$work/time"
  walls+=("$wall")
  cpu=$(echo "$user + $sys" | bc)
  if [[ -z $best_cpu ]] || (($(echo "$cpu < $best_cpu" | bc))); then best_cpu=$cpu; fi
done
median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
printf 'prune: %d files (%d records) over %d logs, %.2f GB: wall %ss (median of %d), cpu %ss (best), peak RSS %d MB\n' \
  "${#rules[@]}" "$nrules" "$((copies + 1))" "$(echo "$bytes / 1000000000" | bc -l)" "$median" "$runs" "$best_cpu" "$((rss / 1024))"
python3 - "$work/report.json" <<'EOF'
import json, sys, collections
r = json.load(open(sys.argv[1]))
print("statuses:", dict(collections.Counter(x["status"] for x in r["rules"])))
EOF

# 4. Deterministic whatever the thread count.
if [[ $check == 1 ]]; then
  RAYON_NUM_THREADS=1 VGSUPP_READ_THREADS=1 "$bin" --no-config prune "${rules[@]}" --logs "$work/logs" --format json >"$work/one.json" 2>/dev/null
  if cmp -s "$work/one.json" "$work/report.json"; then
    echo "one thread: same report"
  else
    echo "one thread: the report differs" >&2
    exit 1
  fi
fi
