#!/usr/bin/env bash
# Regenerate the curated packs in suppressions/ from the real recordings.
#
# One `vgsupp gen` run over every recording (so rules are deduplicated across logs and each
# rule's sidecar entry lists every log it came from), then the result is split by the rules'
# origin (the sidecar's `origin`, also the first part of each rule's name) into one pack per
# origin. Run from anywhere; the log paths recorded in the sidecars are relative to the
# repository root (`../shared/fixtures/...`), as the tests resolve them.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vgsupp=${VGSUPP:-}
if [[ -z $vgsupp ]]; then
    cargo build --release --quiet
    vgsupp=target/release/vgsupp
fi

logs=(
    ../shared/fixtures/torch/*.txt
    ../shared/fixtures/torch/*.xml
    ../shared/fixtures/torch/*.gz
    examples/torch-extension/logs/leaky-ext.txt.gz
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$vgsupp" gen "${logs[@]}" --first-party '*/leaky_ext*' -o "$tmp/all.supp" >/dev/null

python3 scripts/split-packs.py "$tmp/all.supp" suppressions
for supp in suppressions/*.supp; do
    "$vgsupp" fmt "$supp" >/dev/null
done
"$vgsupp" check suppressions/
"$vgsupp" fmt --check suppressions/
