#!/usr/bin/env bash
# Fill fuzz/corpus/<target>/ with seed inputs (fuzz/corpus is git-ignored; run before fuzzing).
# Usage: fuzz/seed.sh [CORPUS_DIR]   (default: ../shared/corpus/supp next to the repository)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../shared/corpus/supp}
pf=$here/corpus/parse_format
ld=$here/corpus/loader
mkdir -p "$pf" "$ld"

# A handful of real files under 4 KiB (the size the targets are run with).
if [ -d "$src" ]; then
  find "$src" -maxdepth 1 -type f -size -4k | LC_ALL=C sort | awk 'NR % 4 == 1' | head -n 30 |
    while read -r f; do cp "$f" "$pf/real-$(basename "$f")"; done
fi

# Hand-written seeds for the loader's quirks (valgrind-semantics.md §1).
w() { printf "$2" > "$pf/quirk-$1"; }
w leak '{\n n\n Memcheck:Leak\n match-leak-kinds:\tpossible,,definite\n fun:malloc\n ...\n}\n'
w leak-bad '{\n n\n Memcheck:Leak\n match-leak-kinds: definite, possible\n fun:f\n}\n'
w leak-old '{\n n\n Memcheck:Leak\n fun:malloc\n}\n'
w param '{\n n\n Memcheck:Param\n write(buf)\n fun:write\n}\n{\nm\nMemcheck:Param\nsrc:x.c\nfun:f\n}\n'
w fishy '{\n n\n Memcheck:FishyValue\n malloc(size)junk\n fun:malloc\n}\n{\n m\n Memcheck:FishyValue\n fun:f\n}\n'
w multi '{\n n\n Memcheck,Helgrind:Addr4\n src:f.c:11x\n}\n{\nh\nHelgrind:FreeMemLock\nobj:*\n}\n{\nd\ndrd:ConflictingAccess\nfun:f\n}\n'
w core '{\n n\n CoreError:FdBadClose\n fun:close\n}\n{\n c\n core:X\n fun:f\n}\n'
w skip '{\n n\n memcheck:Cond\n {\n garbage\n}\n# c\n{\n# c\n a\n\n Memcheck:Cond\n fun:f\n}'
w crlf '{\r\n\ta\r\n  Memcheck:Value8\r\n   fun:f\r\n ...\r\n}\r\n'
w errors '{\n}\n{\nn\nMemcheck\nfun:f\n}\n{\nn\nMemcheck:Addr4:x\n....\n}\n'
w nul '{\n n\0x\n Memcheck:Cond\n fun:a\0b\n}\n'
w cr-only '{\rn\rMemcheck:Cond\rfun:f\r}\r'
w ellipsis '{\n n\n Memcheck:Cond\n ...\n ...\n fun:x\n}\n'
w no-close '{\na\nMemcheck:Cond\nfun:f\n{\nb\nMemcheck:Cond\nfun:g\n}\n'

# Loader seeds: 4 option bytes (tool, release, --num-callers lo, hi) before the file.
i=0
for f in "$pf"/*; do
  opts=$(printf '\\x%02x\\x%02x\\x%02x\\x00' $((i % 3)) $((i % 14)) $(( (i * 7) % 20 )))
  { printf "$opts"; cat "$f"; } > "$ld/$(basename "$f")"
  i=$((i + 1))
done
echo "seeded $(ls "$pf" | wc -l) parse_format and $(ls "$ld" | wc -l) loader inputs"

# The logs target: small test logs (text and XML), each after a chunk-size byte.
lg=$here/corpus/logs
mkdir -p "$lg"
for f in "$here"/../tests/data/logs/text/*.log "$here"/../tests/data/logs/xml/*.xml; do
  [ -f "$f" ] || continue
  { printf '\007'; head -c 6000 "$f"; } > "$lg/seed-$(basename "$f")"
done

# Sidecar and config seeds (YAML): the schema's example, comments, flow and block styles,
# and hostile inputs the readers must refuse (aliases, deep nesting, several documents).
sc=$here/corpus/sidecar
cf=$here/corpus/config
mkdir -p "$sc" "$cf"
y() { printf "$2" > "$sc/$1"; }
y example 'version: 1\nrules:\n  # the driver\n  cuda-driver.Param.ioctl.cuInit:\n    fingerprint: 3f2a9c1b7d0e  # hash\n    origin: cuda-driver\n    reason: libcuda passes ioctl buffers\n    owner: "@ml-infra"\n    created: 2026-11-30\n    expires: 2027-02-28\n    generated:\n      tool: vgsupp 0.1.0 gen\n      from:\n        - {log: ci/a.log, sha256: "ab", valgrind: 3.19.0, command: python t.py, errors: 3}\n      environment: {libcuda: 535.104.05, python: "3.11"}\n    seen: {first: 2026-11-30, last: 2026-12-14, hits: 57, logs: 12}\n    x-note: kept\nretired:\n  old: {retired: 2026-12-20, why: "stale"}\n'
y blocks 'version: 1\nrules:\n  r:\n    reason: |\n      two\n      # lines\n    owner: >-\n      folded\n      text\n  # about s\n\n  s: ~\n'
y invalid 'version: 1\nrules:\n  a:\n    created: soon\n    seen: {hits: many}\n    owner: [x]\n  b: 7\n'
y bomb 'a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n'
y deep '[[[[[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]]]]\n'
y docs 'version: 1\n---\nversion: 2\n'
y quoted 'version: 1\nrules:\n  "a: b":\n    reason: "tab\\there \\u00e9"\n    owner: '"'"'it'"'"''"'"'s'"'"'\n'
c() { printf "$2" > "$cf/$1"; }
c full 'valgrind: "3.19"\nsuppressions: ["*.supp", "*.sup"]\nfirst-party: ["*/ext*.so"]\nowner: "@t"\nexpires-in: 90\nsidecar:\n  required: [reason, owner]\n  expiring-within: 14\nlints:\n  VS901: off\n  expired: warning\nprofiles:\n  - name: vendor\n    objects: ["*/libv*.so*"]\n    sources: ["*/v/*"]\n'
c bad 'valgrind: 4.0\nlints: {VS112: off}\nprofiles: [{name: "a b"}]\n'
