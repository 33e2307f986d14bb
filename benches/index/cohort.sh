#!/usr/bin/env bash
# cohort.sh N FIXTURE [RUN]: a simulated index cohort of N targets, all of them the
# mcpseal-fixture binary FIXTURE with generated surfaces (`--tools K`, K from 1 to 13, so the
# fingerprints differ), printed as cohort TOML on stdout. Used by the CI test (200 targets,
# crates/mcpseal-cli/tests/index_scale.rs) and the BENCHMARKS.md measurement (benches/index/scale.sh).
#
# Target i (1-based) is, by i mod 50:
#   0      crashing (`--crash-after 0`): unreachable, never clean
#   10, 30 legacy (`--mode legacy`): findings
#   20, 40 no cache hints (`--no-cache-hints`): findings (MCP005)
#   else   modern, generated tools: ready
# RUN 2 (default 1) is the same cohort a week later: every target with i mod 25 == 5 serves one
# generated tool more under the same version (a change without a bump).
set -euo pipefail
n="${1:?usage: cohort.sh N FIXTURE [RUN]}"
fixture="${2:?usage: cohort.sh N FIXTURE [RUN]}"
run="${3:-1}"
printf '[defaults]\nbudget-seconds = 120\nrequest-timeout-seconds = 20\n'
for ((i = 1; i <= n; i++)); do
  tools=$(( i % 13 + 1 ))
  if [[ "$run" == 2 && $(( i % 25 )) == 5 ]]; then tools=$(( tools + 1 )); fi
  case $(( i % 50 )) in
    0) extra=', "--crash-after", "0"' ;;
    10 | 30) extra=', "--mode", "legacy"' ;;
    20 | 40) extra=', "--no-cache-hints"' ;;
    *) extra='' ;;
  esac
  printf '\n[[target]]\nid = "sim-%05d"\ninstall = "cmd:%s"\nargs = ["--tools", "%d"%s]\n' \
    "$i" "$fixture" "$tools" "$extra"
done
