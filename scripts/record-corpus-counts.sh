#!/usr/bin/env bash
# Record Valgrind's own counts of the corpus rules on `import torch` (issue 16): every
# corpus file Valgrind loads (../shared/corpus/supp/, each checked alone with
# `valgrind --suppressions=F /bin/true`) given at once to the run that recorded
# tests/data/logs/torch/import-torch.txt.gz (same options, plus -v for the counts), and
# its `used_suppression` lines written to tests/data/logs/torch/corpus-counts.tsv:
#
#   # loaded: FILE          (one line per corpus file given to Valgrind)
#   file <TAB> line <TAB> name <TAB> count
#
# (file: the corpus file's name; only rules of corpus files). tests/cli/prune.rs holds
# that `vgsupp prune` on those files against the fixture calls none of them stale.
#
# Usage: scripts/record-corpus-counts.sh PYTHON   (a Python with torch; ~40 min)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:?usage: $0 PYTHON}
corpus=$(realpath ../shared/corpus/supp)
out=tests/data/logs/torch/corpus-counts.tsv
work=$(mktemp -d /tmp/vgsupp-corpus-counts.XXXXXX)
trap 'rm -rf "$work"' EXIT
args=()
for f in "$corpus"/*.supp "$corpus"/*.sup; do
  [[ -f $f ]] || continue
  valgrind -q --suppressions="$f" /bin/true >/dev/null 2>&1 && args+=("--suppressions=$f")
done
PYTHONMALLOC=malloc valgrind --tool=memcheck --leak-check=full \
  --show-leak-kinds=definite,indirect,possible --track-origins=yes --num-callers=40 \
  --error-limit=no --trace-children=yes --child-silent-after-fork=yes -v "${args[@]}" \
  --log-file="$work/vg.%p.txt" "$python" -c "import torch" >/dev/null 2>&1 || true
{
for a in "${args[@]}"; do echo "# loaded: ${a##*/}"; done
cat "$work"/vg.*.txt | python3 -c '
import re, sys, collections
counts = collections.Counter()
for line in sys.stdin:
    m = re.search(r"used_suppression:\s+(\d+) (.*) (\S+):(\d+)( suppressed:.*)?$", line)
    if m and "/corpus/supp/" in m.group(3):
        counts[(m.group(3).rsplit("/", 1)[1], int(m.group(4)), m.group(2))] += int(m.group(1))
for (f, line, name), n in sorted(counts.items()):
    print(f"{f}\t{line}\t{name}\t{n}")
'
} >"$out"
echo "$(grep -vc "^#" "$out") rules credited: $out"
