#!/usr/bin/env bash
# The share of chunks the parallel log readers take from their reader threads, measured
# (tests cannot assert it: it depends on how the machine schedules the threads, see
# src/logs/parallel/claims.rs). For each log below, `cargo bench --bench ingest -- LOG RUNS
# share CHUNK` reads it RUNS times as the binary does and once in lockstep (the share the
# guesses allow), and prints each run and the spread; then the same with LOAD busy
# processes competing for the cores, and with a consumer that spends ITEM_NS per error
# (as `vgsupp match` does replaying it).
#
#   text-64k:  the first 4 MiB of tests/data/logs/text/leaky-ext.txt.gz in 64 KiB chunks
#              (the layout of the test logs::parallel::tests::a_single_process_log_…);
#   text-1m:   the whole log (about 137 MB) in the binary's 1 MiB chunks;
#   xml-1m:    the first 256 MB of ../shared/fixtures/torch/leaky-ext.xml.gz, 1 MiB
#              chunks, when the shared fixtures are there.
#
# Usage: bench/parallel-share.sh   RUNS=N (default 10) reads per log and setting;
#                                  LOAD=N busy processes for the loaded rows (default:
#                                  the number of cores; 0 skips them);
#                                  ITEM_NS=N for the slow-consumer rows (default 2000;
#                                  0 skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-10}
cores=$(nproc)
load=${LOAD:-$cores}
item_ns=${ITEM_NS:-2000}

work=$(mktemp -d /tmp/vgsupp-share-bench.XXXXXX)
busy=()
cleanup() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

cargo build --release --quiet --benches
logs=()
# zcat stops with SIGPIPE once head has enough.
(zcat tests/data/logs/text/leaky-ext.txt.gz || true) | head -c $((4 << 20)) >"$work/text-64k.log"
logs+=("text-64k $work/text-64k.log $((64 << 10))")
zcat tests/data/logs/text/leaky-ext.txt.gz >"$work/text-1m.log"
logs+=("text-1m $work/text-1m.log $((1 << 20))")
xml_gz=../shared/fixtures/torch/leaky-ext.xml.gz
if [[ -f $xml_gz ]]; then
  (zcat "$xml_gz" || true) | head -c $((256 << 20)) >"$work/xml-1m.xml"
  logs+=("xml-1m $work/xml-1m.xml $((1 << 20))")
else
  echo "skipping the XML log: $xml_gz not found" >&2
fi

# share LABEL LOG CHUNK [ENV…]: the bench's lines for one log and setting.
share() {
  local label=$1 log=$2 chunk=$3
  shift 3
  echo
  echo "== $label"
  env "$@" cargo bench --quiet --bench ingest -- "$log" "$runs" share "$chunk" 2>/dev/null
}

for entry in "${logs[@]}"; do
  read -r name log chunk <<<"$entry"
  cat "$log" >/dev/null # into the page cache
  share "$name, idle machine" "$log" "$chunk"
  if ((item_ns > 0)); then
    share "$name, consumer spending $item_ns ns per error" "$log" "$chunk" INGEST_ITEM_NS="$item_ns"
  fi
done

if ((load > 0)); then
  for ((i = 0; i < load; i++)); do
    (while :; do :; done) &
    busy+=("$!")
  done
  for entry in "${logs[@]}"; do
    read -r name log chunk <<<"$entry"
    share "$name, $load busy processes on $cores cores" "$log" "$chunk"
  done
fi
