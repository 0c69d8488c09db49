# Sourced by the bench/ scripts (from the repository root), which set $work (a scratch
# directory) and $runs.
# Runs a command $runs times under /usr/bin/time -v (stdout to /dev/null) and prints
# "best_cpu_s median_wall_s max_rss_kb".
measure() {
  local i rc
  : >"$work/runs"
  for ((i = 0; i < runs; i++)); do
    rc=0
    /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || rc=$?
    if ((rc != 0)); then
      echo "command failed (exit $rc): $*" >&2
      tail -5 "$work/stderr" >&2
      return 1
    fi
    awk -F': ' '
      /User time/ { u = $2 }
      /System time/ { s = $2 }
      /Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); w = 0
        for (k = 1; k <= n; k++) w = w * 60 + p[k]
      }
      /Maximum resident set size/ { m = $2 }
      END { printf "%.3f %.3f %d\n", u + s, w, m }' "$work/time" >>"$work/runs"
  done
  local cpu wall rss
  cpu=$(sort -n -k1,1 "$work/runs" | head -1 | cut -d' ' -f1)
  wall=$(sort -n -k2,2 "$work/runs" | awk '{ w[NR] = $2 }
    END { print (NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2) }')
  rss=$(sort -n -k3,3 "$work/runs" | tail -1 | cut -d' ' -f3)
  echo "$cpu $wall $rss"
}
