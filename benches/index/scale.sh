#!/usr/bin/env bash
# scale.sh N [JOBS]: the simulated cohort (cohort.sh) of N targets through `mcpseal index run`
# (run 1, then run 2 with --previous, where 1 target in 25 drifts), `merge --history` after
# each, and `site`; prints one line per step: wall seconds, the mcpseal process's own peak RSS
# (VmHWM, kB) and CPU seconds (scripts/peak-rss: the process itself, not the fixture servers it
# starts), and sizes. RUNS=1 stops after run 1's merge and the site. BIN (default target/debug) holds mcpseal and mcpseal-fixture; WORK
# (default a new temp dir) the outputs. Run from the repository root.
set -euo pipefail
n="${1:?usage: benches/index/scale.sh N [JOBS]}"
jobs="${2:-2}"
bin="${BIN:-target/debug}"
work="${WORK:-$(mktemp -d)}"
mcpseal="$(realpath "$bin/mcpseal")"
fixture="$(realpath "$bin/mcpseal-fixture")"
here="$(cd "$(dirname "$0")" && pwd)"
peak="$here/../../scripts/peak-rss"
mkdir -p "$work"
"$here/cohort.sh" "$n" "$fixture" 1 > "$work/cohort-1.toml"
"$here/cohort.sh" "$n" "$fixture" 2 > "$work/cohort-2.toml"

step() { # NAME CMD...: one measured step
  local name="$1" t0 t1 out
  shift
  t0=$(date +%s.%N)
  out=$("$peak" "$@")
  t1=$(date +%s.%N)
  printf '%-8s N=%-6s wall %7.1f s  VmHWM %7s kB  CPU %7s s  %s  load %s\n' "$name" "$n" \
    "$(echo "$t1 - $t0" | bc)" "${out%% *}" "$(echo "$out" | cut -d' ' -f2)" \
    "$(echo "$out" | cut -d' ' -f3)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

cache="$work/cache"
step run1 "$mcpseal" index run "$work/cohort-1.toml" --out "$work/run1" --run-id r1 \
  --cache "$cache" --jobs "$jobs"
step merge1 "$mcpseal" index merge "$work/run1" --out "$work/merged1" --history "$work/history.sqlite"
if [[ "${RUNS:-2}" == 1 ]]; then
  step site "$mcpseal" index site --from "$work/merged1" --db "$work/history.sqlite" --out "$work/public"
  exit 0
fi
step run2 "$mcpseal" index run "$work/cohort-2.toml" --out "$work/run2" --run-id r2 \
  --cache "$cache" --jobs "$jobs" --previous "$work/merged1"
step merge2 "$mcpseal" index merge "$work/run2" --out "$work/merged2" --history "$work/history.sqlite"
step site "$mcpseal" index site --from "$work/merged2" --db "$work/history.sqlite" --out "$work/public"
printf 'sizes    N=%-6s index.json %s B, history %s B, index.html %s B, pages %s, evidence files %s\n' "$n" \
  "$(stat -c %s "$work/merged2/index.json")" "$(stat -c %s "$work/history.sqlite")" \
  "$(stat -c %s "$work/public/index.html")" "$(find "$work/public/servers" -type f | wc -l)" \
  "$(find "$work/merged2/evidence" -type f | wc -l)"
"$mcpseal" index history --db "$work/history.sqlite" | sed 's/^/history  /'
