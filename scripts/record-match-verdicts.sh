#!/usr/bin/env bash
# Record (or check) the differential matching suite in tests/data/match/.
#
# 1. Builds the programs in tests/valgrind-match/programs/ into the FIXED build root
#    /tmp/vgsupp-match/ (sources are copied to /tmp/vgsupp-match/src first, so debug
#    info paths do not depend on where the repository is checked out).
# 2. For each program P runs Memcheck twice WITHOUT user suppressions:
#       text: $OPTS -v --log-file=baseline.txt                 -> tests/data/match/P/baseline.txt
#       XML:  $OPTS --xml=yes --xml-file=baseline.xml --demangle=no   -> .../baseline.xml
#    (PIDs and times are normalised), checks that both logs hold the same errors in the
#    same order and writes tests/data/match/P/errors.tsv. Two more XML runs with
#    --show-below-main=yes (one also with --read-inline-info=no) record the matcher's
#    exact input frames: input.xml, input-noinline.xml -> inputs.tsv.
# 3. Derives single-rule suppression files from the gen-suppression blocks
#    (tests/data/match/P/rules/NNNN.supp) and runs the XML command once per rule file
#    with --suppressions=<rule file>, in parallel (xargs -P), recording for every
#    (rule, baseline error) whether Valgrind suppressed it: tests/data/match/P/verdicts.tsv.
#
# Usage:
#   scripts/record-match-verdicts.sh            rewrite tests/data/match/*/ (not README.md)
#   scripts/record-match-verdicts.sh --check    record into a temp dir and diff with the
#                                               checked-in files; exit 1 on any difference
#   -j N / --jobs N                             parallelism (default: nproc)
#   --no-runs                                   stop after the baselines and rule files
#                                               (rewrites them; verdicts.tsv is left alone)
#   scripts/record-match-verdicts.sh --live DIR [--sample K|all] [-j N]
#       live check (what `cargo test` runs, tests/cli/match_live.rs): build, record fresh
#       text and XML baselines into DIR/P/ (normalised, plus errors.tsv), then run Valgrind
#       on a deterministic sample of the CHECKED-IN rule files: every rule that is FATAL in
#       tests/data/match/P/verdicts.tsv plus every rule whose number N has (N-1) % K == 0
#       (default K=80: 194 of 13,590 rules; `all` = every rule). The sampled rule files
#       are copied to DIR/P/rules/ and their live verdicts written to DIR/P/verdicts.tsv,
#       in the layout of tests/data/match. tests/data/match is neither written nor compared
#       (the caller compares); the script's own consistency checks still apply.
#
# Every mode rebuilds /tmp/vgsupp-match/ and holds the lock /tmp/vgsupp-match.lock (flock)
# meanwhile, so concurrent runs (parallel test processes, a manual recording) wait for
# each other instead of colliding.
#
# Needs valgrind 3.19 (with libc6-dbg), gcc, g++, strip, python3, flock.
# See tests/data/match/README.md.
set -euo pipefail

ROOT=/tmp/vgsupp-match
# Outside $ROOT, which is deleted and rebuilt by every run.
LOCK=/tmp/vgsupp-match.lock
PROGRAMS=(basic libuse cxx)
OPTS=(--tool=memcheck --default-suppressions=no --leak-check=full --show-leak-kinds=all
      --track-origins=yes --gen-suppressions=all --num-callers=12)
XMLOPTS=(--xml=yes --demangle=no)
# Fixed, minimal environment: the client's stack contents (and so any stack address in
# the logs) depend on the environment.
ENV=(env -i PATH=/usr/bin:/bin LC_ALL=C)

die() { echo "record-match-verdicts: $*" >&2; exit 2; }

# ---------------------------------------------------------------------------------------
# Worker mode (internal): --worker DATADIR RUNDIR PROG NUM
# ---------------------------------------------------------------------------------------
if [[ "${1:-}" == "--worker" ]]; then
    data=$2 run=$3 prog=$4 num=$5
    rc=0
    "${ENV[@]}" valgrind "${OPTS[@]}" "${XMLOPTS[@]}" --xml-file="$run/$prog/$num.xml" \
        --suppressions="$data/$prog/rules/$num.supp" "$ROOT/bin/$prog" \
        >/dev/null 2>"$run/$prog/$num.err" </dev/null 9>&- || rc=$?
    echo "$rc" >"$run/$prog/$num.rc"
    exit 0
fi

check=0
noruns=0
live=
sample=
jobs=$(nproc)
while [[ $# -gt 0 ]]; do
    case "$1" in
        --check) check=1 ;;
        --no-runs) noruns=1 ;;
        --live) shift; live=${1:?--live needs a directory} ;;
        --sample) shift; sample=${1:?--sample needs K or all} ;;
        -j|--jobs) shift; jobs=${1:?}; ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
    shift
done
if [[ -n "$live" ]]; then
    [[ $check -eq 0 && $noruns -eq 0 ]] || die "--live cannot be combined with --check or --no-runs"
    sample=${sample:-80}
    [[ "$sample" == all || "$sample" =~ ^[1-9][0-9]*$ ]] || die "--sample: K (>= 1) or all, not '$sample'"
    [[ "$sample" == all ]] && sample=1
    mkdir -p "$live"
    live=$(cd "$live" && pwd)
elif [[ -n "$sample" ]]; then
    die "--sample needs --live"
fi
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "-j: a positive number, not '$jobs'"

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
for tool in valgrind gcc g++ python3 strip flock; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
[[ -f /usr/include/valgrind/memcheck.h ]] || die "/usr/include/valgrind/memcheck.h not found"
# One run at a time: every mode rebuilds $ROOT. The lock is released when the script exits.
exec 9>"$LOCK"
if ! flock -n 9; then
    echo "record-match-verdicts: waiting for $LOCK (another run is using $ROOT)" >&2
    flock 9
fi
VG="python3 $repo/tests/valgrind-match/vgmatch.py"
start=$(date +%s)
stamp() { echo "record-match-verdicts: [$(( $(date +%s) - start ))s] $*" >&2; }

tmp=$(mktemp -d /tmp/vgsupp-match-rec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [[ -n "$live" ]]; then
    data=$live
elif [[ $check -eq 1 ]]; then
    data=$tmp/match
else
    data=tests/data/match
fi
run=$tmp/run
mkdir -p "$data" "$run"

# ---------------------------------------------------------------------------------------
# Build (fixed paths, fixed flags)
# ---------------------------------------------------------------------------------------
stamp "building into $ROOT"
rm -rf "$ROOT"
mkdir -p "$ROOT"/{src,build,bin,opt/vendor/lib,opt/blob/lib,run}
cp -R tests/valgrind-match/programs/. "$ROOT/src/"
build_log=$ROOT/build/build.log
if ! (
    set -e
    exec 2>"$build_log" 9>&-
    cd "$ROOT/src"
    # libvendor: real file + soname and dev symlinks; $ROOT/lib is a symlinked directory.
    gcc -g -O2 -fPIC -shared -Wl,-soname,libvendor.so.1 \
        -o "$ROOT/opt/vendor/lib/libvendor.so.1.2.3" vendor/vendor.c
    ln -s libvendor.so.1.2.3 "$ROOT/opt/vendor/lib/libvendor.so.1"
    ln -s libvendor.so.1 "$ROOT/opt/vendor/lib/libvendor.so"
    ln -s opt/vendor/lib "$ROOT/lib"
    # libblob: hidden visibility, stripped.
    gcc -g -O2 -fPIC -fvisibility=hidden -shared -Wl,-soname,libblob.so.0 \
        -o "$ROOT/opt/blob/lib/libblob.so.0" blob/blob.c
    strip --strip-all "$ROOT/opt/blob/lib/libblob.so.0"
    # programs
    gcc -g -O0 -Wall -Wno-free-nonheap-object -o "$ROOT/bin/basic" basic.c
    gcc -g -O2 -Wall -o "$ROOT/bin/libuse" libuse.c -L"$ROOT/lib" -L"$ROOT/opt/blob/lib" \
        -Wl,-rpath,"$ROOT/lib:$ROOT/opt/blob/lib" -lvendor -l:libblob.so.0
    g++ -g -O1 -Wall -c cxx/main.cc -o "$ROOT/build/cxx-main.o"
    g++ -g -O2 -Wall -c cxx/clone.cc -o "$ROOT/build/cxx-clone.o"
    g++ -o "$ROOT/bin/cxx" "$ROOT/build/cxx-main.o" "$ROOT/build/cxx-clone.o"
); then
    cat "$build_log" >&2
    die "build failed"
fi

{
    echo "valgrind: $(valgrind --version)"
    echo "gcc: $(gcc --version | head -n1)"
    echo "g++: $(g++ --version | head -n1)"
    echo "glibc: $(ldd --version | head -n1)"
    echo "libc6-dbg: $(dpkg-query -W -f='${Version}' libc6-dbg 2>/dev/null || echo absent)"
    echo "options: ${OPTS[*]}"
    echo "text-baseline: ${OPTS[*]} -v --log-file=baseline.txt"
    echo "xml-baseline: ${OPTS[*]} ${XMLOPTS[*]} --xml-file=baseline.xml"
    echo "input: ${OPTS[*]} ${XMLOPTS[*]} --show-below-main=yes --xml-file=input.xml"
    echo "input-noinline: ${OPTS[*]} ${XMLOPTS[*]} --show-below-main=yes --read-inline-info=no --xml-file=input-noinline.xml"
    echo "rule-run: ${OPTS[*]} ${XMLOPTS[*]} --xml-file=NNNN.xml --suppressions=rules/NNNN.supp"
    echo "environment: ${ENV[*]}"
} >"$data/ENVIRONMENT"

# ---------------------------------------------------------------------------------------
# Baselines, index, rule files
# ---------------------------------------------------------------------------------------
for prog in "${PROGRAMS[@]}"; do
    stamp "baseline $prog"
    wd=$ROOT/run/$prog
    mkdir -p "$wd" "$data/$prog" "$run/$prog"
    (
        cd "$wd"
        "${ENV[@]}" valgrind "${OPTS[@]}" -v --log-file=baseline.txt "$ROOT/bin/$prog" \
            >/dev/null 2>&1 </dev/null 9>&- || die "$prog: text baseline failed"
        "${ENV[@]}" valgrind "${OPTS[@]}" "${XMLOPTS[@]}" --xml-file=baseline.xml \
            "$ROOT/bin/$prog" >/dev/null 2>&1 </dev/null 9>&- || die "$prog: XML baseline failed"
    )
    $VG normalize-text "$wd/baseline.txt" "$data/$prog/baseline.txt"
    $VG normalize-xml "$wd/baseline.xml" "$data/$prog/baseline.xml"
    $VG index "$data/$prog"
    if [[ -n "$live" ]]; then
        # The checked-in rule files, not rules derived from the live baseline: the sample
        # is chosen below.
        continue
    fi
    # The matcher's exact input, for cross-checks: every recorded IP inline-expanded
    # with raw below-main names, and one frame per IP (not used for verdicts).
    (
        cd "$wd"
        "${ENV[@]}" valgrind "${OPTS[@]}" "${XMLOPTS[@]}" --show-below-main=yes \
            --xml-file=input.xml "$ROOT/bin/$prog" >/dev/null 2>&1 </dev/null 9>&- \
            || die "$prog: input run failed"
        "${ENV[@]}" valgrind "${OPTS[@]}" "${XMLOPTS[@]}" --show-below-main=yes \
            --read-inline-info=no --xml-file=input-noinline.xml "$ROOT/bin/$prog" \
            >/dev/null 2>&1 </dev/null 9>&- || die "$prog: input-noinline run failed"
    )
    for x in input input-noinline; do
        $VG normalize-xml "$wd/$x.xml" "$data/$prog/$x.xml"
    done
    $VG inputs "$data/$prog"
    $VG mutate "$data/$prog" "$prog" >&2
done

if [[ -n "$live" ]]; then
    # Deterministic sample of the checked-in rules: every FATAL rule and every rule
    # numbered 1, 1+K, 1+2K, ... of each program.
    for prog in "${PROGRAMS[@]}"; do
        rec=tests/data/match/$prog
        [[ -f "$rec/verdicts.tsv" ]] || die "$rec/verdicts.tsv not found"
        rm -rf "$data/$prog/rules"
        mkdir -p "$data/$prog/rules"
        {
            awk -F'\t' 'NR > 1 && $3 == "fatal" { print $1 }' "$rec/verdicts.tsv"
            for f in "$rec"/rules/*.supp; do
                n=${f##*/}
                n=${n%.supp}
                if (( (10#$n - 1) % sample == 0 )); then echo "$n"; fi
            done
        } | sort -u | while read -r n; do
            cp "$rec/rules/$n.supp" "$data/$prog/rules/"
        done
    done
fi

if [[ $noruns -eq 1 ]]; then
    stamp "--no-runs: stopping before the rule runs"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# One Valgrind run per rule file
# ---------------------------------------------------------------------------------------
list=$tmp/jobs
: >"$list"
for prog in "${PROGRAMS[@]}"; do
    for f in "$data/$prog"/rules/*.supp; do
        n=${f##*/}
        echo "$prog ${n%.supp}" >>"$list"
    done
done
total=$(wc -l <"$list")
stamp "running valgrind on $total rule files with $jobs jobs"
xargs -P "$jobs" -n 2 "$self" --worker "$data" "$run" <"$list"
stamp "valgrind runs done"

status=0
for prog in "${PROGRAMS[@]}"; do
    $VG verdicts "$data/$prog" "$run/$prog" || status=1
done
[[ $status -eq 0 ]] || die "inconsistent rule runs (see above)"
stamp "verdicts written"
if [[ -n "$live" ]]; then
    stamp "live: wrote $data"
    exit 0
fi
# Cross-check (informational): a model of the documented 3.19 matcher against the
# recorded verdicts.
for prog in "${PROGRAMS[@]}"; do
    $VG model "$data/$prog" | tail -n 20 >&2 || true
done

if [[ $check -eq 1 ]]; then
    diffs=0
    # The -v lines (--PID--) of the text log list the kernel version, the CPU's hwcaps
    # and ifunc redirections: they are compared only on the recording machine.
    for prog in "${PROGRAMS[@]}"; do
        if ! diff <(grep -v '^--[0-9]*--' tests/data/match/$prog/baseline.txt) \
                  <(grep -v '^--[0-9]*--' "$data/$prog/baseline.txt") >/dev/null; then
            echo "differs: tests/data/match/$prog/baseline.txt" >&2
            diffs=1
        fi
    done
    if ! diff -r -q -x README.md -x baseline.txt tests/data/match "$data" >&2; then
        diffs=1
    fi
    if [[ $diffs -ne 0 ]]; then
        echo "record-match-verdicts: recorded data differs from tests/data/match" >&2
        exit 1
    fi
    stamp "check: no differences"
else
    stamp "wrote tests/data/match"
fi
