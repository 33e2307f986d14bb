#!/usr/bin/env bash
# BENCHMARKS.md, "mcpseal serve": requests/s and p50/p99 latency of a 2026-07-28 `tools/call`
# returning a verified 10 KB artifact (manifest cached), beside (a) the TypeScript SDK v2 server
# answering the same call from memory and (b) nginx serving the same file: the floor.
# Loopback only, bounded duration, one run per server, same wrk settings for all three.
#
#   cargo build --release -p mcpseal-cli && tests/peers/install.sh && apt-get install wrk nginx-light
#   benches/serve/run.sh            # DUR=10s WARM=3s CONN=16 THREADS=1 by default
#   MCPSEAL_BASE=/path/to/older/mcpseal benches/serve/run.sh   # also measure another build, same run
#   SKIP_TS=1 benches/serve/run.sh  # leave out the TypeScript server (quicker iterations)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DUR=${DUR:-10s}
WARM=${WARM:-3s}
CONN=${CONN:-16}
THREADS=${THREADS:-1}
MCPSEAL=${MCPSEAL:-$ROOT/target/release/mcpseal}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# The site: one 10 KB JSON artifact and its manifest.
mkdir -p "$WORK/public/posts"
python3 - "$WORK/public/posts/bench.json" <<'PY'
import json, sys
text = json.dumps({"slug": "bench", "title": "A 10 KB post", "body": ""})
text = text[:-2] + "x" * (10240 - len(text)) + '"}'
open(sys.argv[1], "w").write(text)
PY
(cd "$WORK/public" && sha256sum posts/bench.json > site.sha256)
cat > "$WORK/site.toml" <<TOML
[server]
name = "bench-site"
version = "1.0.0"
legacy = false
[origin]
base_url = "public"
api_prefix = ""
[[verbs]]
id = "get_post"
description = "One post by slug"
path = "posts/{slug}.json"
input_schema = { type = "object", required = ["slug"], properties = { slug = { type = "string" } } }
TOML

first_line() { # FILE: wait for the first line of a server's stdout
  for _ in $(seq 1 200); do
    if [ -s "$1" ]; then head -1 "$1"; return; fi
    sleep 0.05
  done
  echo "no URL in $1" >&2
  exit 1
}

"$MCPSEAL" serve --config "$WORK/site.toml" --http 127.0.0.1:0 > "$WORK/mcpseal.url" 2> "$WORK/mcpseal.err" &
PIDS+=($!)
MCPSEAL_PID=$!
if [ -n "${MCPSEAL_BASE:-}" ]; then
  "$MCPSEAL_BASE" serve --config "$WORK/site.toml" --http 127.0.0.1:0 > "$WORK/base.url" 2> "$WORK/base.err" &
  PIDS+=($!)
  BASE_PID=$!
fi
if [ -z "${SKIP_TS:-}" ]; then
  node "$ROOT/benches/serve/ts-bench.mjs" "$WORK/public/posts/bench.json" 0 > "$WORK/ts.url" 2> "$WORK/ts.err" &
  PIDS+=($!)
  TS_PID=$!
fi
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/nginx/logs"
cat > "$WORK/nginx/nginx.conf" <<NGINX
user root;
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  types { application/json json; }
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/public; }
}
NGINX
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
PIDS+=($NGINX_PID)

MCPSEAL_URL=$(first_line "$WORK/mcpseal.url")
[ -n "${MCPSEAL_BASE:-}" ] && BASE_URL=$(first_line "$WORK/base.url")
[ -z "${SKIP_TS:-}" ] && TS_URL=$(first_line "$WORK/ts.url")
FILE_URL="http://127.0.0.1:$NGINX_PORT/posts/bench.json"
for _ in $(seq 1 100); do curl -sf -o /dev/null "$FILE_URL" && break; sleep 0.05; done

# Each server answers the right thing before it is measured.
call() {
  curl -sf "$1" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_post' \
    --data '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_post","arguments":{"slug":"bench"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
}
call "$MCPSEAL_URL" | grep -q '"sha256":"' || { echo "mcpseal serve did not verify the artifact" >&2; exit 1; }
if [ -n "${MCPSEAL_BASE:-}" ]; then
  call "$BASE_URL" | grep -q '"sha256":"' || { echo "the baseline mcpseal did not verify the artifact" >&2; exit 1; }
fi
if [ -z "${SKIP_TS:-}" ]; then
  call "$TS_URL" | grep -q '"resultType":"complete"' || { echo "the TS server did not answer" >&2; exit 1; }
fi
[ "$(curl -sf "$FILE_URL" | wc -c)" = 10240 ] || { echo "nginx did not serve the file" >&2; exit 1; }

# CPU time (user + system, all threads) the server processes used: robust to the machine's
# load, unlike requests/s, which measure the CPU share the server got as much as its cost.
TICK=$(getconf CLK_TCK)
cpu_ticks() { # PID...
  local total=0 p f
  for p in "$@"; do
    read -r -a f < <(sed 's/^.*) //' "/proc/$p/stat")
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}

measure() { # NAME URL LUA|"" PID...
  local name=$1 url=$2 lua=$3
  shift 3
  local out rps p50 p99 errors before after requests cpu
  # Warm-up (not measured): the JIT of the Node server, caches, connection set-up.
  if [ -n "$lua" ]; then
    wrk -t"$THREADS" -c"$CONN" -d"$WARM" -s "$lua" "$url" > /dev/null
  else
    wrk -t"$THREADS" -c"$CONN" -d"$WARM" "$url" > /dev/null
  fi
  before=$(cpu_ticks "$@")
  if [ -n "$lua" ]; then
    out=$(wrk -t"$THREADS" -c"$CONN" -d"$DUR" --latency -s "$lua" "$url")
  else
    out=$(wrk -t"$THREADS" -c"$CONN" -d"$DUR" --latency "$url")
  fi
  after=$(cpu_ticks "$@")
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  cpu=$(awk -v t=$((after - before)) -v hz="$TICK" -v n="$requests" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  errors=$(echo "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$rps" "$p50" "$p99" "$cpu" "${errors:-none}"
}

echo "wrk -t$THREADS -c$CONN -d$DUR --latency, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| server | requests/s | p50 | p99 | server CPU µs/request | errors |"
echo "|---|---|---|---|---|---|"
measure "mcpseal serve --http (verified tools/call)" "$MCPSEAL_URL" "$ROOT/benches/serve/call.lua" "$MCPSEAL_PID"
if [ -n "${MCPSEAL_BASE:-}" ]; then
  measure "mcpseal serve --http, baseline build (\$MCPSEAL_BASE)" "$BASE_URL" "$ROOT/benches/serve/call.lua" "$BASE_PID"
fi
if [ -z "${SKIP_TS:-}" ]; then
  measure "TypeScript SDK v2 (tools/call from memory)" "$TS_URL" "$ROOT/benches/serve/call.lua" "$TS_PID"
fi
measure "nginx (GET of the file)" "$FILE_URL" "" "$NGINX_PID" $(pgrep -P "$NGINX_PID")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
