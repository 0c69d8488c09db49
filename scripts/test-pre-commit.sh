#!/usr/bin/env bash
# The hooks of .pre-commit-hooks.yaml under the real pre-commit (from PyPI), on a scratch
# repository: a clean, formatted file passes both hooks; a file Valgrind refuses fails
# `vgsupp-check` naming it; an unformatted file fails `vgsupp-fmt-check` with its diff, and
# `vgsupp-fmt` rewrites it. pre-commit builds vgsupp with `cargo install` from a commit of
# this repository (HEAD by default), so this takes a release build (minutes) and is not
# part of `cargo test`.
#
# Usage: scripts/test-pre-commit.sh [REV]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:-$(git -C "$repo" rev-parse HEAD)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q pre-commit
pc="$work/venv/bin/pre-commit"
"$pc" --version
export PRE_COMMIT_HOME="$work/cache"

scratch="$work/scratch"
mkdir "$scratch"
cd "$scratch"
git init -q
git config user.email ci@example.invalid
git config user.name ci
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $repo
    rev: $rev
    hooks:
      - id: vgsupp-check
      - id: vgsupp-fmt-check
YAML
printf '{\n   cuda-init\n   Memcheck:Leak\n   match-leak-kinds: definite\n   fun:malloc\n   obj:*/libcuda.so*\n}\n' > good.supp
git add -A
fail=0
expect() { # expect CODE WHAT CMD...: run CMD, check its exit code, keep its output
  local want="$1" what="$2"; shift 2
  set +e; "$@" > "$work/out" 2>&1; local got=$?; set -e
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, wanted $want"; cat "$work/out"; fail=1
  else
    echo "ok: $what (exit $got)"
  fi
}
expect 0 "a clean, formatted file passes both hooks" "$pc" run --all-files

# A file Valgrind refuses: vgsupp-check fails and names the file and line.
printf '{\n   broken\n   Memcheck:Leak\n   fun:malloc\n' > broken.supp
git add broken.supp
expect 1 "a file Valgrind refuses fails vgsupp-check" "$pc" run vgsupp-check --files broken.supp
grep -q 'broken.supp' "$work/out" || { echo "FAIL: the report does not name broken.supp"; cat "$work/out"; fail=1; }
git rm -q --cached broken.supp && rm broken.supp

# An unformatted file: the check hook fails with a diff, and leaves the file as it was.
printf '{\n  messy\n  Memcheck:Leak\n  match-leak-kinds: definite\n  fun:malloc\n}\n' > messy.supp
git add messy.supp
before="$(sha256sum messy.supp)"
expect 1 "an unformatted file fails vgsupp-fmt-check" "$pc" run vgsupp-fmt-check --files messy.supp
grep -q '^+   messy' "$work/out" || { echo "FAIL: no diff in the output"; cat "$work/out"; fail=1; }
[ "$before" = "$(sha256sum messy.supp)" ] || { echo "FAIL: fmt --check changed the file"; fail=1; }

# The rewriting hook formats it in place (pre-commit fails because files changed).
cat >> .pre-commit-config.yaml <<YAML
      - id: vgsupp-fmt
YAML
expect 1 "vgsupp-fmt rewrites the file (pre-commit reports the change)" "$pc" run vgsupp-fmt --files messy.supp
grep -q '^   messy$' messy.supp || { echo "FAIL: messy.supp was not formatted"; cat messy.supp; fail=1; }
git add messy.supp
expect 0 "once formatted, every hook passes" "$pc" run --all-files

exit "$fail"
