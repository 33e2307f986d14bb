#!/usr/bin/env bash
# BENCHMARKS.md, "mcpseal serve": requests/s and p50/p99 latency of a 2026-07-28 `tools/call`
# returning a verified 10 KB artifact (manifest cached), beside (a) the TypeScript SDK v2 server
# answering the same call from memory and (b) nginx serving the same file: the floor.
# Loopback only, bounded duration, one run per server, same wrk settings for all three.
#
#   cargo build --release -p mcpseal && tests/peers/install.sh && apt-get install wrk nginx-light
#   benches/serve/run.sh            # DUR=10s WARM=3s CONN=16 THREADS=1 by default
#   MCPSEAL_BASE=/path/to/older/mcpseal benches/serve/run.sh   # also measure another build, same run
#   SKIP_TS=1 benches/serve/run.sh  # leave out the TypeScript server (quicker iterations)
#   PIN=1 benches/serve/run.sh      # servers on CPU 0, wrk on CPU 1: each server has one core,
#                                   # so requests/s measure the server, not wrk's own ceiling
#   benches/serve/ab.sh NEW OLD     # two builds only, interleaved rounds (small changes)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DUR=${DUR:-10s}
WARM=${WARM:-3s}
CONN=${CONN:-16}
THREADS=${THREADS:-1}
MCPSEAL=${MCPSEAL:-$ROOT/target/release/mcpseal}
# WORK and its cleanup, the site, first_line and cpu_ticks.
. "$ROOT/benches/serve/site.sh"
make_site "$WORK"

# PIN: every server process on one CPU and the load generator on another.
SRV=()
CLI=()
if [ -n "${PIN:-}" ]; then
  SRV=(taskset -c "${SERVER_CPU:-0}")
  CLI=(taskset -c "${CLIENT_CPU:-1}")
fi

"${SRV[@]}" "$MCPSEAL" serve --config "$WORK/site.toml" --http 127.0.0.1:0 > "$WORK/mcpseal.url" 2> "$WORK/mcpseal.err" &
PIDS+=($!)
MCPSEAL_PID=$!
if [ -n "${MCPSEAL_BASE:-}" ]; then
  "${SRV[@]}" "$MCPSEAL_BASE" serve --config "$WORK/site.toml" --http 127.0.0.1:0 > "$WORK/base.url" 2> "$WORK/base.err" &
  PIDS+=($!)
  BASE_PID=$!
fi
if [ -z "${SKIP_TS:-}" ]; then
  "${SRV[@]}" node "$ROOT/benches/serve/ts-bench.mjs" "$WORK/public/posts/bench.json" 0 > "$WORK/ts.url" 2> "$WORK/ts.err" &
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
"${SRV[@]}" nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
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

measure() { # NAME URL LUA|"" PID...
  local name=$1 url=$2 lua=$3
  shift 3
  local out rps p50 p99 errors before after requests cpu
  local script=()
  if [ -n "$lua" ]; then script=(-s "$lua"); fi
  # Warm-up (not measured): the JIT of the Node server, caches, connection set-up.
  "${CLI[@]}" wrk -t"$THREADS" -c"$CONN" -d"$WARM" "${script[@]}" "$url" > /dev/null
  before=$(cpu_ticks "$@")
  out=$("${CLI[@]}" wrk -t"$THREADS" -c"$CONN" -d"$DUR" --latency "${script[@]}" "$url")
  after=$(cpu_ticks "$@")
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  cpu=$(awk -v t=$((after - before)) -v hz="$TICK" -v n="$requests" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  errors=$(echo "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$rps" "$p50" "$p99" "$cpu" "${errors:-none}"
}

echo "wrk -t$THREADS -c$CONN -d$DUR --latency, $(nproc) cores${PIN:+, servers on CPU ${SERVER_CPU:-0} and wrk on CPU ${CLIENT_CPU:-1}}, $(date -u +%Y-%m-%dT%H:%MZ)"
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
