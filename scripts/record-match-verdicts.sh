#!/usr/bin/env bash
# Record (or check) the differential matching suite in tests/data/match/.
#
# 1. Builds the programs in tests/valgrind-match/programs/ into the FIXED build root
#    /tmp/vgsupp-match/ (sources are copied to /tmp/vgsupp-match/src first, so debug
#    info paths do not depend on where the repository is checked out).
# 2. For each program P runs Memcheck four times WITHOUT user suppressions:
#       text:           $OPTS -v --log-file=baseline.txt          -> tests/data/match/P/baseline.txt
#       XML:            $OPTS --xml=yes --demangle=no ...          -> .../baseline.xml
#       text, no gen:   $OPTS without --gen-suppressions, -v       -> .../baseline-nogen.txt
#       XML, demangled: $OPTS without --gen-suppressions, --xml=yes (default --demangle=yes)
#                                                                  -> .../baseline-demangled.xml
#    (PIDs and times are normalised), checks that all four logs hold the same errors in
#    the same order and writes tests/data/match/P/errors.tsv. Two more XML runs with
#    --show-below-main=yes (one also with --read-inline-info=no) record the matcher's
#    exact input frames: input.xml, input-noinline.xml -> inputs.tsv.
# 3. Derives single-rule cases from the gen-suppression blocks into ONE file per program,
#    tests/data/match/P/rules.supp (each case starts with its header comment; record
#    name rNNNN.MUTATION), splits it into one temporary file per case, and runs the XML
#    command once per case file with --suppressions=<case file>, in parallel (xargs -P),
#    recording for every (rule, baseline error) whether Valgrind suppressed it:
#    tests/data/match/P/verdicts.tsv.
#
# Usage:
#   scripts/record-match-verdicts.sh            rewrite tests/data/match/*/ (not README.md)
#   scripts/record-match-verdicts.sh --check    record into a temp dir and diff with the
#                                               checked-in files; exit 1 on any difference
#   -j N / --jobs N                             parallelism (default: nproc)
#   --no-runs                                   stop after the baselines and rules.supp
#                                               (rewrites them; verdicts.tsv is left alone)
#   --new-cases                                 record only the cases of rules.supp that
#       have no verdicts yet: records fresh baselines into a temp dir and requires them
#       (and ENVIRONMENT) to equal the checked-in ones, regenerates rules.supp requiring
#       every existing case to stay byte for byte the same (new generator families are
#       appended), runs Valgrind on the new cases only and merges their rows into
#       verdicts.tsv. Nothing else in tests/data/match is rewritten.
#   scripts/record-match-verdicts.sh --live DIR [--sample K|all] [-j N]
#       live check (what `cargo test` runs, tests/cli/match_live.rs): build, record fresh
#       baselines into DIR/P/ (normalised, plus errors.tsv), then run Valgrind on a
#       deterministic sample of the CHECKED-IN cases: every case that is FATAL in
#       tests/data/match/P/verdicts.tsv plus every case whose number N has (N-1) % K == 0
#       (default K=80; `all` = every case). The sampled cases are written to
#       DIR/P/rules.supp and their live verdicts to DIR/P/verdicts.tsv, in the layout of
#       tests/data/match. tests/data/match is neither written nor compared (the caller
#       compares); the script's own consistency checks still apply.
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
# The demangled-only baselines: the same options without --gen-suppressions (and the
# XML one with the default --demangle=yes), what CI plugins and plain logs show.
NOGEN=()
for o in "${OPTS[@]}"; do [[ "$o" == --gen-suppressions=* ]] || NOGEN+=("$o"); done
# Fixed, minimal environment: the client's stack contents (and so any stack address in
# the logs) depend on the environment.
ENV=(env -i PATH=/usr/bin:/bin LC_ALL=C)

die() { echo "record-match-verdicts: $*" >&2; exit 2; }

# ---------------------------------------------------------------------------------------
# Worker mode (internal): --worker RUNDIR PROG NUM
# Runs the XML command with the one case in RUNDIR/PROG/rules/NUM.supp.
# ---------------------------------------------------------------------------------------
if [[ "${1:-}" == "--worker" ]]; then
    run=$2 prog=$3 num=$4
    rc=0
    "${ENV[@]}" valgrind "${OPTS[@]}" "${XMLOPTS[@]}" --xml-file="$run/$prog/$num.xml" \
        --suppressions="$run/$prog/rules/$num.supp" "$ROOT/bin/$prog" \
        >/dev/null 2>"$run/$prog/$num.err" </dev/null 9>&- || rc=$?
    echo "$rc" >"$run/$prog/$num.rc"
    exit 0
fi

check=0
noruns=0
newcases=0
live=
sample=
jobs=$(nproc)
while [[ $# -gt 0 ]]; do
    case "$1" in
        --check) check=1 ;;
        --no-runs) noruns=1 ;;
        --new-cases) newcases=1 ;;
        --live) shift; live=${1:?--live needs a directory} ;;
        --sample) shift; sample=${1:?--sample needs K or all} ;;
        -j|--jobs) shift; jobs=${1:?}; ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
    shift
done
if [[ -n "$live" ]]; then
    [[ $check -eq 0 && $noruns -eq 0 && $newcases -eq 0 ]] \
        || die "--live cannot be combined with --check, --no-runs or --new-cases"
    sample=${sample:-80}
    [[ "$sample" == all || "$sample" =~ ^[1-9][0-9]*$ ]] || die "--sample: K (>= 1) or all, not '$sample'"
    [[ "$sample" == all ]] && sample=1
    mkdir -p "$live"
    live=$(cd "$live" && pwd)
elif [[ -n "$sample" ]]; then
    die "--sample needs --live"
fi
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "-j: a positive number, not '$jobs'"
if [[ $newcases -eq 1 && ( $check -eq 1 || $noruns -eq 1 ) ]]; then
    die "--new-cases cannot be combined with --check or --no-runs"
fi

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
# Where the baselines are recorded: with --new-cases a scratch copy, compared with the
# checked-in baselines below (new verdicts are only valid against the same errors).
if [[ $newcases -eq 1 ]]; then
    bdata=$tmp/fresh
else
    bdata=$data
fi
mkdir -p "$data" "$bdata" "$run"

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
    echo "text-nogen-baseline: ${NOGEN[*]} -v --log-file=baseline-nogen.txt"
    echo "xml-demangled-baseline: ${NOGEN[*]} --xml=yes --xml-file=baseline-demangled.xml"
    echo "input: ${OPTS[*]} ${XMLOPTS[*]} --show-below-main=yes --xml-file=input.xml"
    echo "input-noinline: ${OPTS[*]} ${XMLOPTS[*]} --show-below-main=yes --read-inline-info=no --xml-file=input-noinline.xml"
    echo "rule-run: ${OPTS[*]} ${XMLOPTS[*]} --xml-file=NNNN.xml --suppressions=NNNN.supp (case NNNN of rules.supp, alone in its file)"
    echo "environment: ${ENV[*]}"
} >"$bdata/ENVIRONMENT"
if [[ $newcases -eq 1 ]] && ! cmp -s tests/data/match/ENVIRONMENT "$bdata/ENVIRONMENT"; then
    diff tests/data/match/ENVIRONMENT "$bdata/ENVIRONMENT" >&2 || true
    die "--new-cases: the tools differ from the recorded ENVIRONMENT"
fi

# ---------------------------------------------------------------------------------------
# Baselines, index, rule cases
# ---------------------------------------------------------------------------------------
for prog in "${PROGRAMS[@]}"; do
    stamp "baselines $prog"
    wd=$ROOT/run/$prog
    mkdir -p "$wd" "$data/$prog" "$bdata/$prog" "$run/$prog"
    (
        cd "$wd"
        "${ENV[@]}" valgrind "${OPTS[@]}" -v --log-file=baseline.txt "$ROOT/bin/$prog" \
            >/dev/null 2>&1 </dev/null 9>&- || die "$prog: text baseline failed"
        "${ENV[@]}" valgrind "${OPTS[@]}" "${XMLOPTS[@]}" --xml-file=baseline.xml \
            "$ROOT/bin/$prog" >/dev/null 2>&1 </dev/null 9>&- || die "$prog: XML baseline failed"
        "${ENV[@]}" valgrind "${NOGEN[@]}" -v --log-file=baseline-nogen.txt "$ROOT/bin/$prog" \
            >/dev/null 2>&1 </dev/null 9>&- || die "$prog: text (no gen) baseline failed"
        "${ENV[@]}" valgrind "${NOGEN[@]}" --xml=yes --xml-file=baseline-demangled.xml \
            "$ROOT/bin/$prog" >/dev/null 2>&1 </dev/null 9>&- \
            || die "$prog: XML (demangled) baseline failed"
    )
    for x in baseline baseline-nogen; do
        $VG normalize-text "$wd/$x.txt" "$bdata/$prog/$x.txt"
    done
    for x in baseline baseline-demangled; do
        $VG normalize-xml "$wd/$x.xml" "$bdata/$prog/$x.xml"
    done
    $VG index "$bdata/$prog"
    if [[ -n "$live" ]]; then
        # The checked-in cases, not rules derived from the live baseline: the sample is
        # taken below.
        continue
    fi
    if [[ $newcases -eq 1 ]]; then
        # New verdicts are only comparable with the recorded ones when this machine
        # reproduces the recorded errors exactly.
        rec=tests/data/match/$prog
        for f in errors.tsv baseline.xml baseline-demangled.xml; do
            cmp -s "$rec/$f" "$bdata/$prog/$f" \
                || die "--new-cases: $prog/$f differs from the recorded one (another machine?)"
        done
        for f in baseline.txt baseline-nogen.txt; do
            diff -q <(grep -v '^--[0-9]*--' "$rec/$f") <(grep -v '^--[0-9]*--' "$bdata/$prog/$f") \
                >/dev/null || die "--new-cases: $prog/$f differs from the recorded one"
        done
        $VG mutate "$data/$prog" "$prog" --keep-existing >&2
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
    # Deterministic sample of the checked-in cases: every FATAL case and every case
    # numbered 1, 1+K, 1+2K, ... of each program.
    for prog in "${PROGRAMS[@]}"; do
        rec=tests/data/match/$prog
        [[ -f "$rec/verdicts.tsv" ]] || die "$rec/verdicts.tsv not found"
        $VG sample "$rec" "$sample" "$data/$prog"
    done
fi

if [[ $noruns -eq 1 ]]; then
    stamp "--no-runs: stopping before the rule runs"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# One Valgrind run per case, each case alone in its own file
# ---------------------------------------------------------------------------------------
list=$tmp/jobs
: >"$list"
for prog in "${PROGRAMS[@]}"; do
    if [[ $newcases -eq 1 ]]; then
        $VG split "$data/$prog" "$run/$prog/rules" --new
    else
        $VG split "$data/$prog" "$run/$prog/rules"
    fi
    for f in "$run/$prog"/rules/*.supp; do
        [[ -e "$f" ]] || continue
        n=${f##*/}
        echo "$prog ${n%.supp}" >>"$list"
    done
done
total=$(wc -l <"$list")
stamp "running valgrind on $total rule cases with $jobs jobs"
xargs -r -P "$jobs" -n 2 "$self" --worker "$run" <"$list"
stamp "valgrind runs done"

status=0
merge=()
[[ $newcases -eq 1 ]] && merge=(--merge)
for prog in "${PROGRAMS[@]}"; do
    $VG verdicts "$data/$prog" "$run/$prog" "${merge[@]}" || status=1
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
        for f in baseline.txt baseline-nogen.txt; do
            if ! diff <(grep -v '^--[0-9]*--' tests/data/match/$prog/$f) \
                      <(grep -v '^--[0-9]*--' "$data/$prog/$f") >/dev/null; then
                echo "differs: tests/data/match/$prog/$f" >&2
                diffs=1
            fi
        done
    done
    if ! diff -r -q -x README.md -x baseline.txt -x baseline-nogen.txt tests/data/match "$data" >&2; then
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
