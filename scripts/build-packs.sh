#!/usr/bin/env bash
# Regenerate the curated packs in suppressions/ from the real recordings.
#
# One `vgsupp gen` run over every recording (so rules are deduplicated across logs and each
# rule's sidecar entry lists every log it came from), then the result is split by the rules'
# origin (the sidecar's `origin`, also the first part of each rule's name) into one pack per
# origin. Run from anywhere. The one run writes into suppressions/ (as a hidden
# `.all.supp`, removed after the split), so that the log paths its sidecar records are
# relative to suppressions/, where the packs' sidecars are (`../../shared/fixtures/...`).
# Rules are cut at --num-callers 12, Valgrind's default, and checked as loaded there: a
# longer rule, cut by a user's Valgrind at 12 frames, would hide more than it was checked
# to. (The recordings have 12 and 40 frames.)
# The packs never expire (`--expires-in never`): they ship inside the binary, and an
# `expires` date would fail `vgsupp check` on the packs one day. `created` is today: set
# VGSUPP_TODAY=YYYY-MM-DD to keep the dates of the packs as they are.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vgsupp=${VGSUPP:-}
if [[ -z $vgsupp ]]; then
    cargo build --release --quiet
    vgsupp=target/release/vgsupp
fi

# Text logs only: each XML recording has a text twin recorded with -v, which lists the
# objects unloaded before the leak check (libcuda, libc10), so their `???` frames can be
# placed; the XML does not, its errors there are reviewed, and the guarantee would then
# keep the rules from hiding their text twins too.
logs=(
    ../shared/fixtures/torch/*.txt
    ../shared/fixtures/torch/*.txt.gz
    examples/torch-extension/logs/leaky-ext.txt.gz
)
all=suppressions/.all.supp
rm -f "$all" "$all.yaml"
trap 'rm -f "$all" "$all.yaml"' EXIT

"$vgsupp" gen "${logs[@]}" --first-party 'leaky_ext*' --num-callers 12 --expires-in never -o "$all" >/dev/null

python3 scripts/split-packs.py "$all" suppressions
rm -f "$all" "$all.yaml"
for supp in suppressions/*.supp; do
    "$vgsupp" fmt "$supp" >/dev/null
done
"$vgsupp" check suppressions/
"$vgsupp" fmt --check suppressions/
