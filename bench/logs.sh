#!/usr/bin/env bash
# Log-ingest benchmark. Builds --release, then, with the logs in the page cache:
#   - a >= 1 GB text log: decompressed copies of tests/data/logs/text/leaky-ext.txt.gz;
#   - a >= 500 MB XML log from ../shared/fixtures/torch/leaky-ext.xml.gz, when it exists;
# and times, for each, `wc -l` and `vgsupp match --format json -s EMPTY.supp LOG`
# (reads every item, matches every error against no rule; the time includes the
# matcher and building the JSON of every error, not only the reader). Reports CPU time
# (user + sys, best of $RUNS) and wall time (median), MB/s (1 MB = 10^6 bytes), the
# ratio to `wc -l`, and peak RSS (`/usr/bin/time -v`). Then a peak-RSS run on a >= 2 GB
# text log (MEM_CHECK=0 skips it).
#
# Then the readers alone (benches/ingest.rs: sequential, and on every core with
# logs::parallel / logs::xml::parallel) on the same text and XML logs, as a ratio to
# `wc -l`'s wall time.
#
# The share of chunks the parallel readers take from their threads (it depends on the
# machine's scheduling): bench/parallel-share.sh.
#
# Targets: text ingest within 3x of `wc -l` and >= 500 MB/s per core (CPU time), XML
# `match` within 8x of `wc -l`, peak memory < 100 MB on a 2 GB log.
#
# Usage: bench/logs.sh   RUNS=N (default 3) runs per measurement; the machine may be shared:
#                        CPU time is the number to compare, wall time is noisier.
#                        VGSUPP_BIN=PATH measures that binary instead of building this tree
#                        (to compare with another revision).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
mem_check=${MEM_CHECK:-1}

if ! [[ -x /usr/bin/time ]]; then
  echo "GNU time is missing: installing it (apt-get install time)" >&2
  apt-get update -qq >/dev/null && apt-get install -y -qq time >/dev/null
fi

work=$(mktemp -d /tmp/vgsupp-logs-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [[ -n ${VGSUPP_BIN:-} ]]; then
  bin=$(realpath "$VGSUPP_BIN")
else
  cargo build --release --quiet
  bin=$PWD/target/release/vgsupp
fi
: >"$work/empty.supp"

# Concatenates decompressed copies of $1 into $2 until it holds at least $3 bytes.
make_log() {
  local gz=$1 out=$2 want=$3
  zcat "$gz" >"$work/one"
  : >"$out"
  while (($(stat -c %s "$out") < want)); do
    cat "$work/one" >>"$out"
  done
  rm -f "$work/one"
}

# measure CMD…: best CPU, median wall and peak RSS of $runs runs (bench/measure.sh).
source bench/measure.sh

rows=()
# Measures wc -l and vgsupp on log $2 (label $1), adds two table rows.
bench() {
  local label=$1 log=$2 size wc vg
  size=$(stat -c %s "$log")
  cat "$log" >/dev/null # into the page cache
  echo "measuring $label ($((size / 1000000)) MB, $runs runs each)..." >&2
  wc=$(measure wc -l "$log")
  vg=$(measure "$bin" match --format json -s "$work/empty.supp" "$log")
  rows+=("$(awk -v l="$label" -v s="$size" -v m="$wc" 'BEGIN {
    split(m, a, " ")
    printf "%-10s %-22s %7d %8.2f %8.2f %9.0f %9.0f %9s %9s %8.1f\n", l, "wc -l", s / 1e6, a[1], a[2],
      s / 1e6 / (a[1] > 0 ? a[1] : 0.001), s / 1e6 / a[2], "1.0", "1.0", a[3] / 1024 }')")
  rows+=("$(awk -v l="$label" -v s="$size" -v m="$vg" -v w="$wc" 'BEGIN {
    split(m, a, " "); split(w, b, " ")
    printf "%-10s %-22s %7d %8.2f %8.2f %9.0f %9.0f %9.1f %9.1f %8.1f\n", l, "vgsupp match (json)", s / 1e6,
      a[1], a[2], s / 1e6 / a[1], s / 1e6 / a[2], a[1] / (b[1] > 0.01 ? b[1] : 0.01), a[2] / b[2], a[3] / 1024 }')")
}

text=$work/leaky-ext.txt
make_log tests/data/logs/text/leaky-ext.txt.gz "$text" 1000000000
bench text "$text"
# The reader alone (no matching, no JSON), sequential and on every core: benches/ingest.rs.
wc_wall=$(measure wc -l "$text" | cut -d' ' -f2)
ingest=$(cargo bench --quiet --bench ingest -- "$text" "$runs" 2>/dev/null | grep -E '^(sequential|parallel)')

xml_gz=../shared/fixtures/torch/leaky-ext.xml.gz
if [[ -f $xml_gz ]]; then
  xml=$work/leaky-ext.xml
  make_log "$xml_gz" "$xml" 500000000
  bench xml "$xml"
  xml_wc_wall=$(measure wc -l "$xml" | cut -d' ' -f2)
  xml_ingest=$(cargo bench --quiet --bench ingest -- "$xml" "$runs" 2>/dev/null | grep -E '^(sequential|parallel)')
  rm -f "$xml"
else
  echo "skipping the XML log: $xml_gz not found" >&2
fi

echo
printf "%-10s %-22s %7s %8s %8s %9s %9s %9s %9s %8s\n" log what MB "cpu s" "wall s" \
  "MB/s cpu" "MB/s wall" "x wc cpu" "x wc wall" "RSS MB"
printf '%s\n' "${rows[@]}"
echo "(cpu: user+sys, best of $runs; wall: median; x wc: time relative to wc -l on the same file)"
echo
echo "text reader alone (benches/ingest.rs, best of $runs; wc -l wall: $wc_wall s):"
while read -r line; do
  wall=$(awk '{ print $3 }' <<<"$line")
  printf '%s  = %.1f x wc -l\n' "$line" "$(awk -v a="$wall" -v b="$wc_wall" 'BEGIN { print a / b }')"
done <<<"$ingest"
if [[ -n ${xml_ingest:-} ]]; then
  echo
  echo "XML reader alone (benches/ingest.rs, best of $runs; wc -l wall: $xml_wc_wall s):"
  while read -r line; do
    wall=$(awk '{ print $3 }' <<<"$line")
    printf '%s  = %.1f x wc -l\n' "$line" "$(awk -v a="$wall" -v b="$xml_wc_wall" 'BEGIN { print a / b }')"
  done <<<"$xml_ingest"
fi

if [[ $mem_check != 0 ]]; then
  one=$work/one.txt
  zcat tests/data/logs/text/leaky-ext.txt.gz >"$one"
  while (($(stat -c %s "$text") < 2000000000)); do
    cat "$one" >>"$text"
  done
  rm -f "$one"
  size=$(stat -c %s "$text")
  echo
  echo "peak memory on a $((size / 1000000)) MB text log..." >&2
  saved=$runs
  runs=1
  m=$(measure "$bin" match --format json -s "$work/empty.supp" "$text")
  runs=$saved
  awk -v s="$size" -v m="$m" 'BEGIN {
    split(m, a, " ")
    printf "vgsupp match (json), %d MB text log: peak RSS %.1f MB, cpu %.2f s (%.0f MB/s), wall %.2f s\n",
      s / 1e6, a[3] / 1024, a[1], s / 1e6 / a[1], a[2] }'
fi
