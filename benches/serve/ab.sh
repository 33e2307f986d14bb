#!/usr/bin/env bash
# BENCHMARKS.md, "mcpseal serve": two mcpseal builds compared on the verified `tools/call` of
# run.sh, for a change whose effect is smaller than this machine's drift. Both servers run at
# once on the same site; ROUNDS short wrk rounds alternate between them, the order swapped every
# round, so a noisy neighbour or a clock change lands on both. Reported: each build's median CPU
# µs per request and requests/s, and the median and range of the per-round CPU ratio A/B.
#
#   benches/serve/ab.sh NEW_BIN OLD_BIN [ROUNDS=12]     # DUR=2s CONN=16 by default
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
A=${1:?usage: ab.sh A_BIN B_BIN [ROUNDS]}
B=${2:?usage: ab.sh A_BIN B_BIN [ROUNDS]}
ROUNDS=${3:-12}
DUR=${DUR:-2s}
CONN=${CONN:-16}
LUA="$ROOT/benches/serve/call.lua"
# WORK and its cleanup, the site, first_line and cpu_ticks.
. "$ROOT/benches/serve/site.sh"
make_site "$WORK"

"$A" serve --config "$WORK/site.toml" --http 127.0.0.1:0 > "$WORK/a.url" 2> "$WORK/a.err" &
PIDS+=($!)
A_PID=$!
"$B" serve --config "$WORK/site.toml" --http 127.0.0.1:0 > "$WORK/b.url" 2> "$WORK/b.err" &
PIDS+=($!)
B_PID=$!
A_URL=$(first_line "$WORK/a.url")
B_URL=$(first_line "$WORK/b.url")

round() { # URL PID: prints "CPU-µs-per-request requests/s"
  local before after out n rps
  before=$(cpu_ticks "$2")
  out=$(wrk -t1 -c"$CONN" -d"$DUR" -s "$LUA" "$1")
  after=$(cpu_ticks "$2")
  if echo "$out" | grep -qE 'Non-2xx|Socket errors'; then
    echo "errors from $1: $out" >&2
    exit 1
  fi
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  awk -v t=$((after - before)) -v hz="$TICK" -v n="$n" -v r="$rps" \
    'BEGIN { printf "%.2f %s\n", t * 1e6 / hz / n, r }'
}

round "$A_URL" "$A_PID" > /dev/null # warm-up
round "$B_URL" "$B_PID" > /dev/null
echo "A = $A, B = $B; $ROUNDS rounds of wrk -t1 -c$CONN -d$DUR, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$ROUNDS"); do
  if [ $((i % 2)) = 1 ]; then
    a=$(round "$A_URL" "$A_PID"); b=$(round "$B_URL" "$B_PID")
  else
    b=$(round "$B_URL" "$B_PID"); a=$(round "$A_URL" "$A_PID")
  fi
  echo "$a $b" >> "$WORK/rounds"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$WORK/rounds" <<'PY'
import statistics as st, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
a_cpu, a_rps, b_cpu, b_rps = ([r[i] for r in rows] for i in range(4))
ratio = [a / b for a, b in zip(a_cpu, b_cpu)]
print("| build | CPU µs/request (median) | requests/s (median) |")
print("|---|---|---|")
print(f"| A | {st.median(a_cpu):.1f} | {st.median(a_rps):.0f} |")
print(f"| B | {st.median(b_cpu):.1f} | {st.median(b_rps):.0f} |")
print(f"per-round CPU ratio A/B: median {st.median(ratio):.3f}, range {min(ratio):.3f}–{max(ratio):.3f}, "
      f"A used less in {sum(r < 1 for r in ratio)} of {len(ratio)} rounds")
PY
