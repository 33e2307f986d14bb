# Sourced by benches/serve/run.sh and ab.sh: the benchmark's site and the helpers both use.

# WORK, a temporary directory, and PIDS, the processes a script starts: both gone at exit.
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# make_site DIR: one 10 KB JSON artifact under DIR/public, its sha256sum manifest, and
# DIR/site.toml serving it as the verb get_post (2026-07-28 only), once the file has settled.
make_site() {
  mkdir -p "$1/public/posts"
  python3 - "$1/public/posts/bench.json" <<'PY'
import json, sys
text = json.dumps({"slug": "bench", "title": "A 10 KB post", "body": ""})
text = text[:-2] + "x" * (10240 - len(text)) + '"}'
open(sys.argv[1], "w").write(text)
PY
  (cd "$1/public" && sha256sum posts/bench.json > site.sha256)
  # mcpseal serve caches a file's verified bytes only once it has been unchanged for SETTLE
  # (2 s, in whole seconds rounded up): waiting 3 s here means every build is measured on cached
  # calls, whatever the warm-up, not the first one measured on reads and hashes.
  sleep 3
  cat > "$1/site.toml" <<TOML
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
}

first_line() { # FILE: wait for the first line of a server's stdout
  for _ in $(seq 1 200); do
    if [ -s "$1" ]; then head -1 "$1"; return; fi
    sleep 0.05
  done
  echo "no URL in $1" >&2
  exit 1
}

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
