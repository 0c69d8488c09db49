#!/usr/bin/env bash
# End-to-end benchmark: the corpus concatenated to >= 50 MB, then
#   - parse + format in-process (criterion: cargo bench --bench parse_format), and
#   - the vgsupp binary: `fmt` (rewrite in place) and `check` over that file.
# Prints MB/s for each. Target (PRODUCT.md §7): parse + format >= 200 MB/s on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
python3 - "$work/big.supp" <<'PY'
import glob, sys
files = sorted(f for f in glob.glob("tests/data/corpus/*") if not f.endswith("MANIFEST.tsv"))
one = b"".join(open(f, "rb").read() + b"\n" for f in files)
out = bytearray()
while len(out) < 50 * 1024 * 1024:
    out += one
open(sys.argv[1], "wb").write(out)
PY
size=$(stat -c %s "$work/big.supp")
echo "input: $size bytes"

rate() { python3 -c "import sys; print(f'{int(sys.argv[1]) / float(sys.argv[2]) / 1e6:.0f} MB/s')" "$1" "$2"; }
timeit() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

for i in 1 2 3; do
  cp "$work/big.supp" "$work/fmt.supp"
  t=$(timeit ./target/release/vgsupp fmt "$work/fmt.supp")
  echo "vgsupp fmt (read, parse, format, atomic write), run $i: ${t}s, $(rate "$size" "$t")"
done
for i in 1 2 3; do
  t=$(timeit ./target/release/vgsupp check --no-style --tool memcheck --format json "$work/big.supp")
  echo "vgsupp check --tool memcheck (load, recover, lint), run $i: ${t}s, $(rate "$size" "$t")"
done
echo "in-process parse / parse+format / load: cargo bench --bench parse_format"
