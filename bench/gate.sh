#!/usr/bin/env bash
# `vgsupp gate` beside `vgsupp match` on the torch recordings (../shared/fixtures/torch/),
# end to end, the commands a user runs: the median of RUNS (default 7) wall times of each,
# alternated, and their ratio. Target (issue 15): gate costs at most 1.2x match.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
fixtures=../shared/fixtures/torch
cargo build --release --quiet
bin=target/release/vgsupp
supp=(-s examples/torch-extension/cuda-torch.supp -s examples/torch-extension/leaky-ext.supp)
wall() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  python3 -c "print($end - $start)"
}
for log in leaky-ext.txt.gz leaky-ext.xml.gz; do
  m=(); g=()
  for _ in $(seq "$runs"); do
    m+=("$(wall "$bin" match -q "${supp[@]}" "$fixtures/$log")")
    g+=("$(wall "$bin" gate -q "${supp[@]}" --first-party 'leaky_ext*' "$fixtures/$log")")
  done
  python3 - "$log" "${m[*]}" "${g[*]}" <<'PY'
import statistics, sys
log, m, g = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
mm, gm = statistics.median(m), statistics.median(g)
print(f"{log}: match {mm:.3f} s, gate {gm:.3f} s, gate/match {gm / mm:.2f}x (median of {len(m)})")
PY
done
