#!/usr/bin/env bash
# Record (or check) the verdict of the real Valgrind on every suppression file in
# tests/data/corpus/ and tests/data/variants/.
#
# For each file F and each tool T in memcheck helgrind drd this runs, from the repo root,
#
#     valgrind --tool=T --num-callers=NC --suppressions=F /bin/true
#
# with F relative to the repo root, NC = 12 for corpus files and, for variants, the value
# in the file's first line ("# variant: <slug>; num-callers: <N>").
#
# Usage:
#   scripts/record-valgrind-verdicts.sh            rewrite tests/data/valgrind/{corpus,variant}-verdicts.tsv
#                                                  and tests/data/valgrind/VERSION
#   scripts/record-valgrind-verdicts.sh --check    record into a temp dir and diff against the
#                                                  checked-in files; silent and exit 0 when equal,
#                                                  prints the diff and exits 1 otherwise
#   -j N / --jobs N                                parallelism (default: nproc)
#
# See tests/data/valgrind/README.md for the TSV format and the verdict vocabulary.
set -euo pipefail

TOOLS=(memcheck helgrind drd)

die() { echo "record-valgrind-verdicts: $*" >&2; exit 2; }

# ---------------------------------------------------------------------------------------
# Worker mode (internal): --worker OUTDIR IDX FILE TOOL NC
# Runs one valgrind invocation and writes one TSV row to OUTDIR/rows/IDX.
# ---------------------------------------------------------------------------------------
if [[ "${1:-}" == "--worker" ]]; then
    outdir=$2 idx=$3 file=$4 tool=$5 nc=$6
    log="$outdir/logs/$idx.log"
    rc=0
    valgrind --tool="$tool" --num-callers="$nc" --suppressions="$file" /bin/true \
        >"$log" 2>&1 </dev/null || rc=$?

    # Turn a log line into a TSV-safe message: drop the ==PID== prefix, squeeze tabs and
    # CRs into spaces, strip surrounding spaces.
    clean() {
        LC_ALL=C sed -e 's/^==[0-9]*==//' -e 's/[\t\r]/ /g' -e 's/^ *//' -e 's/ *$//'
    }

    verdict='' line='-' msg='-'
    fatal_ln=$(LC_ALL=C grep -a -n -m1 -E '^==[0-9]+== FATAL: in suppressions file ".*" near line [0-9]+:$' "$log" || true)
    if [[ -n "$fatal_ln" ]]; then
        verdict=fatal
        logline=${fatal_ln%%:*}
        line=$(printf '%s\n' "$fatal_ln" | LC_ALL=C sed -E 's/.* near line ([0-9]+):$/\1/')
        fatal_file=$(printf '%s\n' "$fatal_ln" | LC_ALL=C sed -E 's/^[0-9]+:==[0-9]+== FATAL: in suppressions file "(.*)" near line [0-9]+:$/\1/')
        msg=$(LC_ALL=C sed -n "$((logline + 1))p" "$log" | clean)
        [[ -n "$msg" ]] || msg='(no message)'
        if [[ "$fatal_file" != "$file" ]]; then
            # The file under test loaded completely; the error is in the file loaded after
            # it, i.e. Valgrind's own default.supp.
            verdict=default-fatal msg="$fatal_file near line $line: $msg" line='-'
        fi
        if [[ $rc -ne 1 ]]; then
            verdict=other msg="$verdict with exit status $rc: $msg"
        fi
    elif LC_ALL=C grep -a -q -E "Assertion '.*' failed|the 'impossible' happened|Process terminating with default action of signal|valgrind: VG_\(get_line\)" "$log"; then
        verdict=abort
        if LC_ALL=C grep -a -q 'line longer than 100000 chars' "$log"; then
            msg='line longer than 100000 chars'
        elif a=$(LC_ALL=C grep -a -m1 -o -E "Assertion '.*' failed" "$log"); then
            msg=$(printf '%s\n' "$a" | clean)
        elif LC_ALL=C grep -a -q "the 'impossible' happened" "$log"; then
            msg="the 'impossible' happened"
        else
            msg=$(LC_ALL=C grep -a -m1 -o -E 'default action of signal [0-9]+ \([A-Z]+\)' "$log" || echo 'crashed')
        fi
    elif [[ $rc -eq 0 ]] && ! LC_ALL=C grep -a -q 'FATAL' "$log"; then
        verdict=ok
    else
        verdict=other
        last=$(LC_ALL=C grep -a -v -E '^(==[0-9]+==)? *$' "$log" | tail -n 1 | clean || true)
        msg="exit status $rc: ${last:-(no output)}"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$tool" "$nc" "$verdict" "$line" "$msg" \
        >"$outdir/rows/$idx"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# Main mode
# ---------------------------------------------------------------------------------------
check=0
jobs=$(nproc 2>/dev/null || echo 2)
while [[ $# -gt 0 ]]; do
    case $1 in
        --check) check=1 ;;
        -j|--jobs) [[ $# -ge 2 ]] || die "$1 needs an argument"; jobs=$2; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
    shift
done

self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/.." && pwd)
cd "$root"

command -v valgrind >/dev/null || die "valgrind not found in PATH"
[[ -x /bin/true ]] || die "/bin/true not found"
[[ -d tests/data/corpus && -d tests/data/variants ]] || die "tests/data/corpus or tests/data/variants missing"
# Anything that injects options would change the verdicts.
[[ ! -e .valgrindrc ]] || die "./.valgrindrc exists in the repo root; it would add options"
unset VALGRIND_OPTS
export LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vgverdicts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Keep ~/.valgrindrc out of it too.
mkdir -p "$tmp/home" "$tmp/rows" "$tmp/logs" "$tmp/out"
export HOME="$tmp/home"

start=$SECONDS

# Build the job list: IDX FILE TOOL NC, NUL-separated, in output order
# (file path in C-locale byte order, then memcheck, helgrind, drd).
: >"$tmp/jobs"
: >"$tmp/kinds"     # one line per job: corpus|variant
idx=0
add_jobs() { # kind file nc
    local t
    for t in "${TOOLS[@]}"; do
        idx=$((idx + 1))
        printf '%06d\0%s\0%s\0%s\0' "$idx" "$2" "$t" "$3" >>"$tmp/jobs"
        printf '%06d %s\n' "$idx" "$1" >>"$tmp/kinds"
    done
}

while IFS= read -r -d '' f; do
    [[ "$(basename "$f")" == MANIFEST.tsv ]] && continue
    add_jobs corpus "$f" 12
done < <(find tests/data/corpus -maxdepth 1 -type f -print0 | sort -z)

nvariants=0
while IFS= read -r -d '' f; do
    nc=$(sed -n '1{s/^# variant: [^;]*; num-callers: \([0-9][0-9]*\).*$/\1/p;q}' "$f")
    [[ -n "$nc" ]] || die "$f: first line is not '# variant: <slug>; num-callers: <N>'"
    add_jobs variant "$f" "$nc"
    nvariants=$((nvariants + 1))
done < <(find tests/data/variants -maxdepth 1 -type f -name '*.supp' -print0 | sort -z)

[[ $idx -gt 0 ]] || die "no input files"

xargs -0 -n 4 -P "$jobs" "$self" --worker "$tmp" <"$tmp/jobs"

header=$(printf 'file\ttool\tnum_callers\tverdict\tline\tmessage')
for kind in corpus variant; do
    {
        printf '%s\n' "$header"
        awk -v k="$kind" -v d="$tmp/rows/" '$2 == k { print d $1 }' "$tmp/kinds" | xargs -r cat
    } >"$tmp/out/$kind-verdicts.tsv"
done
valgrind --version >"$tmp/out/VERSION"

dest=tests/data/valgrind
if [[ $check -eq 1 ]]; then
    status=0
    for f in VERSION corpus-verdicts.tsv variant-verdicts.tsv; do
        if [[ ! -f "$dest/$f" ]]; then
            echo "record-valgrind-verdicts --check: $dest/$f is missing" >&2
            status=1
        elif ! diff -u --label "$dest/$f (checked in)" --label "$dest/$f (this valgrind)" \
                "$dest/$f" "$tmp/out/$f" >&2; then
            status=1
        fi
    done
    if [[ $status -ne 0 ]]; then
        echo "record-valgrind-verdicts --check: verdicts differ (regenerate with scripts/record-valgrind-verdicts.sh)" >&2
    fi
    exit $status
fi

mkdir -p "$dest"
cp "$tmp/out/VERSION" "$tmp/out/corpus-verdicts.tsv" "$tmp/out/variant-verdicts.tsv" "$dest/"
{
    echo "recorded $idx runs ($nvariants variants) with $(cat "$dest/VERSION") in $((SECONDS - start))s using $jobs jobs"
    for kind in corpus variant; do
        echo "$kind verdicts (tool verdict count):"
        awk -F'\t' 'NR > 1 { n[$2 "\t" $4]++ } END { for (k in n) print "  " k "\t" n[k] }' \
            "$dest/$kind-verdicts.tsv" | sort
    done
    if awk -F'\t' 'NR > 1 && $4 == "other"' "$dest"/*-verdicts.tsv | grep -q .; then
        echo "WARNING: some runs got verdict 'other':"
        awk -F'\t' 'NR > 1 && $4 == "other"' "$dest"/*-verdicts.tsv
    fi
} >&2
