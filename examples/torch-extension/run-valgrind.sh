#!/bin/sh
# Run test_extension.py under Memcheck exactly as the recordings in
# ../shared/fixtures/torch/ were made (see that directory's README.md):
#
#   ./run-valgrind.sh text     logs/leaky-ext.txt   every report with its gen block, -v
#   ./run-valgrind.sh xml      logs/leaky-ext.xml   the same as XML
#   ./run-valgrind.sh article  logs/leaky-ext-article-command.txt
#                                                   the seed article's command: no gen
#                                                   blocks, demangled names only
#
# PYTHON names the interpreter whose torch the extension was built for (default:
# python); extra arguments go to Valgrind (e.g. --suppressions=leaky-ext.supp).
# A run takes 20-40 minutes and ~2 GB of memory: libtorch and the CUDA libraries are
# large, and --track-origins=yes doubles the work.
set -eu
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python}
mode=${1:-text}
[ $# -gt 0 ] && shift
mkdir -p logs

COMMON="--tool=memcheck --leak-check=full --show-leak-kinds=all --track-origins=yes"
case "$mode" in
text)
    exec valgrind $COMMON --gen-suppressions=all --num-callers=40 -v \
        --log-file=logs/leaky-ext.txt "$@" "$PYTHON" test_extension.py
    ;;
xml)
    exec valgrind $COMMON --gen-suppressions=all --num-callers=40 -v \
        --xml=yes --xml-file=logs/leaky-ext.xml "$@" "$PYTHON" test_extension.py
    ;;
article)
    exec valgrind $COMMON --verbose \
        --log-file=logs/leaky-ext-article-command.txt "$@" "$PYTHON" test_extension.py
    ;;
*)
    echo "usage: $0 [text|xml|article] [VALGRIND-OPTION...]" >&2
    exit 2
    ;;
esac
