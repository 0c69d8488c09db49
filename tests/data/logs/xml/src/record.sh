#!/bin/sh
# How the *-3.19-*.xml recordings next to this directory were made (Valgrind 3.19.0,
# Debian 12, amd64, gcc 12). Run in an empty scratch directory; PIDs, addresses and
# timings differ from run to run. The `--xml-file=` names inside the recordings are the
# names used at recording time, before the files were renamed.
set -eu
here=$(dirname "$0")

# leaky.cpp is compiled in a directory whose name is not UTF-8 (`caf\xe9`), so that the
# <dir> elements hold a raw byte: the reader must keep it.
d=$(printf 'caf\351'); mkdir -p "$d"; cp "$here/leaky.cpp" "$d/"
(cd "$d" && g++ -g -O0 -fno-inline -o ../leaky leaky.cpp)
valgrind --xml=yes --xml-file=memcheck.xml --gen-suppressions=all --leak-check=full \
    --show-leak-kinds=all --track-origins=yes --demangle=no ./leaky || true
# -> memcheck-3.19-errors-leaks.xml
valgrind --xml=yes --xml-file=memcheck-supp.xml --suppressions="$here/used.supp" \
    --leak-check=full --demangle=no ./leaky || true
# -> memcheck-3.19-suppressed.xml (two suppressions used: <suppcounts>)
valgrind --xml=yes --xml-file=memcheck-fatal.xml --suppressions="$here/fatal.supp" ./leaky || true
# -> memcheck-3.19-supp-fatal.xml (FATAL in the suppression file: no <status> FINISHED)

gcc -g -O0 -o crash "$here/crash.c"
valgrind --xml=yes --xml-file=crash.xml --gen-suppressions=all --leak-check=full ./crash || true
# -> memcheck-3.19-jump-sigsegv.xml (InvalidJump, then <fatal_signal>)

gcc -g -O0 -o killed "$here/killed.c"
valgrind --xml=yes --xml-file=killed.xml --gen-suppressions=all ./killed &
sleep 3; kill -9 $!
# -> memcheck-3.19-killed.xml (Valgrind killed: the document is cut)

gcc -g -O0 -pthread -o race "$here/race.c"
valgrind --tool=helgrind --xml=yes --xml-file=helgrind.xml --gen-suppressions=all ./race
# -> helgrind-3.19-race.xml
valgrind --tool=drd --xml=yes --xml-file=drd.xml --gen-suppressions=all ./race
# -> drd-3.19-race.xml

gcc -g -O0 -pthread -o locks "$here/locks.c"
valgrind --tool=helgrind --xml=yes --xml-file=helgrind-locks.xml --gen-suppressions=all ./locks
# -> helgrind-3.19-locks.xml
