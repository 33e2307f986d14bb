#!/usr/bin/env bash
# peers.sh: a cohort of the test peers (tests/peers; run tests/peers/install.sh first) as cohort
# TOML on stdout — the four reference npm servers and the two reference PyPI servers pinned at the
# versions tests/peers pins (installed by mcpseal's own installer from the public registries,
# npm integrity from tests/peers/npm/package-lock.json), and the three SDK peers (TypeScript,
# Python, rmcp) as local programs. Used for the targets-per-minute row of BENCHMARKS.md.
set -euo pipefail
peers="$(cd "$(dirname "$0")/../../tests/peers" && pwd)"
printf '[defaults]\nbudget-seconds = 300\nrequest-timeout-seconds = 30\n'
for p in server-everything server-filesystem server-memory server-sequential-thinking; do
  read -r version integrity < <(python3 -c "
import json, sys
p = json.load(open('$peers/npm/package-lock.json'))['packages']['node_modules/@modelcontextprotocol/$p']
print(p['version'], p['integrity'])")
  args=''
  if [[ "$p" == server-filesystem ]]; then args=$'\nargs = ["/tmp"]'; fi
  printf '\n[[target]]\nid = "%s"\ninstall = "npm:@modelcontextprotocol/%s@%s"\nintegrity = "%s"%s\n' \
    "$p" "$p" "$version" "$integrity" "$args"
done
for p in mcp-server-time mcp-server-git; do
  version=$(sed -n "s/^$p==//p" "$peers/python/requirements.txt")
  printf '\n[[target]]\nid = "%s"\ninstall = "pypi:%s==%s"\n' "$p" "$p" "$version"
done
printf '\n[[target]]\nid = "ts-peer"\ninstall = "cmd:node"\nargs = ["%s", "stdio"]\n' "$peers/ts-server/server.mjs"
printf '\n[[target]]\nid = "py-peer"\ninstall = "cmd:%s"\nargs = ["%s", "stdio"]\n' "$peers/.venv/bin/python" "$peers/py-server/server.py"
printf '\n[[target]]\nid = "rmcp-peer"\ninstall = "cmd:%s"\nargs = ["stdio"]\n' "$peers/bin/rmcp-peer"
