#!/usr/bin/env python3
"""Start every peer listed in peers.json exactly as described there and probe it.

Standard library only; run with any python3 >= 3.9 after ./install.sh:

    python3 tests/peers/check_peers.py            # all peers
    python3 tests/peers/check_peers.py ts-http    # peers whose id contains "ts-http"
    python3 tests/peers/check_peers.py -v ...     # also print the raw answers

For each peer it runs, on fresh processes for stdio:
  * modern: `server/discover` then `tools/list`, both with 2026-07-28 per-request `_meta`
    (HTTP: MCP-Protocol-Version: 2026-07-28 and Mcp-Method headers);
  * legacy: `initialize` (protocolVersion 2025-11-25), `notifications/initialized`, `tools/list`
    (HTTP: Mcp-Session-Id echoed when the server mints one, MCP-Protocol-Version after init).
It then checks the observed era against the entry's `era` and exits 1 on any mismatch.

This is a verification aid for the people maintaining tests/peers; the Rust suite has its own
client. It documents, in code, how peers.json is meant to be interpreted.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

PEERS_DIR = Path(__file__).resolve().parent
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TIMEOUT = 10.0
VERBOSE = False

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "check_peers", "version": "0"},
}


def req(id_: int | None, method: str, params: dict | None = None) -> dict:
    m: dict = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        m["id"] = id_
    if params is not None:
        m["params"] = params
    return m


def modern_req(id_: int, method: str, params: dict | None = None) -> dict:
    p = dict(params or {})
    p["_meta"] = dict(MODERN_META)
    return req(id_, method, p)


INIT_PARAMS = {
    "protocolVersion": LEGACY,
    "capabilities": {},
    "clientInfo": {"name": "check_peers", "version": "0"},
}


# ---------------------------------------------------------------- placeholders / process start


class Ctx:
    def __init__(self) -> None:
        self.tmp: list[str] = []
        self.values: dict[str, str] = {}

    def tempdir(self) -> str:
        d = tempfile.mkdtemp(prefix="mcpseal-peer-")
        self.tmp.append(d)
        return d

    def value(self, name: str) -> str:
        if name in self.values:
            return self.values[name]
        if name == "tempdir":
            v = self.tempdir()
            Path(v, "hello.txt").write_text("hello from a peer test\n")
        elif name == "gitrepo":
            v = self.tempdir()
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
            subprocess.run(["git", "init", "-q", "-b", "main", v], check=True, env=env)
            Path(v, "README.md").write_text("peer test repo\n")
            subprocess.run(["git", "-C", v, "add", "README.md"], check=True, env=env)
            subprocess.run(["git", "-C", v, "commit", "-q", "-m", "init"], check=True, env=env)
        elif name == "port":
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            v = str(s.getsockname()[1])
            s.close()
        else:
            raise KeyError(f"unknown placeholder {{{name}}}")
        self.values[name] = v
        return v

    def subst(self, s: str) -> str:
        out = s
        for name in ("tempdir", "gitrepo", "port"):
            if "{" + name + "}" in out:
                out = out.replace("{" + name + "}", self.value(name))
        return out

    def cleanup(self) -> None:
        for d in self.tmp:
            shutil.rmtree(d, ignore_errors=True)


class Proc:
    """A started peer: stdout lines (stdio JSON-RPC or the URL line) and stderr lines."""

    def __init__(self, entry: dict, ctx: Ctx) -> None:
        argv = [ctx.subst(a) for a in entry["command"]]
        cwd = PEERS_DIR / entry.get("cwd", ".")
        env = dict(os.environ)
        for k, v in (entry.get("env") or {}).items():
            env[k] = ctx.subst(v)
        self.argv = argv
        self.p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, start_new_session=True)
        self.out: list[str] = []
        self.err: list[str] = []
        self.cv = threading.Condition()
        threading.Thread(target=self._pump, args=(self.p.stdout, self.out), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.p.stderr, self.err), daemon=True).start()

    def _pump(self, f, sink: list[str]) -> None:
        for raw in iter(f.readline, b""):
            with self.cv:
                sink.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
                self.cv.notify_all()
        with self.cv:
            self.cv.notify_all()

    def wait_for(self, pred, timeout: float = TIMEOUT):
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                r = pred()
                if r is not None:
                    return r
                if self.p.poll() is not None and pred() is None:
                    # allow pumps to drain
                    self.cv.wait(0.2)
                    r = pred()
                    if r is not None:
                        return r
                    raise RuntimeError(f"process exited with {self.p.returncode}; stderr: {self.err[-5:]}")
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def send(self, msg: dict) -> None:
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def stdio_call(self, msg: dict, timeout: float = 5.0):
        start = len(self.out)
        self.send(msg)
        want = msg["id"]

        def find():
            for line in self.out[start:]:
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                if isinstance(m, dict) and m.get("id") == want and ("result" in m or "error" in m):
                    return m
            return None

        return self.wait_for(find, timeout)

    def stop(self, graceful_eof: bool = True) -> None:
        """stdio: close stdin (servers exit on EOF), then SIGTERM/SIGKILL the process group.
        HTTP servers ignore stdin: they get SIGTERM straight away (graceful_eof=False)."""
        if self.p.poll() is None:
            try:
                self.p.stdin.close()
            except OSError:
                pass
            try:
                self.p.wait(2 if graceful_eof else 0.01)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGTERM)
                try:
                    self.p.wait(3)
                except subprocess.TimeoutExpired:
                    os.killpg(self.p.pid, signal.SIGKILL)
                    self.p.wait()


def wait_ready(proc: Proc, entry: dict, ctx: Ctx) -> str | None:
    """Returns the endpoint URL for HTTP peers (None for stdio)."""
    ready = entry.get("ready") or {"kind": "none"}
    kind = ready["kind"]
    t = ready.get("timeout_ms", 15000) / 1000
    if kind == "none":
        return None  # stdio: no signal; requests may be written at once (allow timeout_ms for the 1st answer)
    if kind == "stdout_url":
        line = proc.wait_for(lambda: next((l for l in proc.out if l.startswith("http")), None), t)
        if line is None:
            raise RuntimeError(f"no URL on stdout within {t}s; stderr: {proc.err[-5:]}")
        return line.strip()
    if kind == "stderr_contains":
        text = ctx.subst(ready["text"])
        hit = proc.wait_for(lambda: next((l for l in proc.err if text in l), None), t)
        if hit is None:
            raise RuntimeError(f"no stderr line containing {text!r} within {t}s; stderr: {proc.err[-5:]}")
        return ctx.subst(entry["url"])
    if kind == "tcp":
        port = int(ctx.subst("{port}"))
        deadline = time.monotonic() + t
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return ctx.subst(entry["url"])
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("port never opened")
    raise RuntimeError(f"unknown ready kind {kind}")


# ---------------------------------------------------------------- HTTP


def http_post(url: str, msg: dict, headers: dict) -> tuple[int, dict, dict | None, str]:
    """POST one JSON-RPC message; returns (status, headers, matching JSON-RPC message or None, raw)."""
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers)
    r = urllib.request.Request(url, data=json.dumps(msg).encode(), headers=h, method="POST")
    try:
        resp = urllib.request.urlopen(r, timeout=TIMEOUT)
    except urllib.error.HTTPError as e:
        resp = e
    status = resp.status if hasattr(resp, "status") else resp.code
    rh = {k.lower(): v for k, v in resp.headers.items()}
    ctype = rh.get("content-type", "")
    want = msg.get("id")
    raw_parts: list[str] = []
    found = None
    if "text/event-stream" in ctype:
        data: list[str] = []
        while True:
            line = resp.readline()
            if not line:
                break
            s = line.decode("utf-8", "replace").rstrip("\r\n")
            raw_parts.append(s)
            if s.startswith("data:"):
                data.append(s[5:].lstrip(" "))
            elif s == "" and data:
                try:
                    m = json.loads("\n".join(data))
                except ValueError:
                    m = None
                data = []
                if isinstance(m, dict) and m.get("id") == want and ("result" in m or "error" in m):
                    found = m
                    break
        resp.close()
    else:
        body = resp.read().decode("utf-8", "replace")
        raw_parts.append(body)
        try:
            m = json.loads(body) if body.strip() else None
        except ValueError:
            m = None
        if isinstance(m, dict):
            found = m
    return status, rh, found, "\n".join(raw_parts)


# ---------------------------------------------------------------- probes


def summarize(m: dict | None) -> str:
    if m is None:
        return "no answer"
    if "error" in m:
        e = m["error"]
        return f"error {e.get('code')} {e.get('message')!r}"
    r = m["result"]
    if "supportedVersions" in r:
        info = (r.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or r.get("serverInfo")
        return f"supportedVersions={r['supportedVersions']} serverInfo={info}"
    if "protocolVersion" in r:
        return f"protocolVersion={r['protocolVersion']} serverInfo={r.get('serverInfo')}"
    if "tools" in r:
        return f"{len(r['tools'])} tools: {[t['name'] for t in r['tools']]}"
    return json.dumps(r)[:200]


def ok(m) -> bool:
    return isinstance(m, dict) and "result" in m


SURFACE_CALLS = [
    # (method, params, check(result) -> bool, Mcp-Name header value)
    ("tools/call", {"name": "echo", "arguments": {"message": "hi"}},
     lambda r: r["content"][0]["text"] == "hi", "echo"),
    ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}},
     lambda r: r.get("structuredContent", {}).get("sum") == 5, "add"),
    ("tools/call", {"name": "clock", "arguments": {}},
     lambda r: r["content"][0]["text"].isdigit(), "clock"),
    ("tools/list", None,
     lambda r: any(t["name"] == "add" and t.get("outputSchema", {}).get("properties", {}).get("sum", {}).get("type") == "number"
                   for t in r["tools"])
     and any(t["name"] == "clock" and (t.get("annotations") or {}).get("readOnlyHint") is True for t in r["tools"]), None),
    ("resources/list", None, lambda r: [x["uri"] for x in r["resources"]] == ["peer://readme"], None),
    ("resources/templates/list", None,
     lambda r: [x["uriTemplate"] for x in r["resourceTemplates"]] == ["peer://items/{id}"], None),
    ("resources/read", {"uri": "peer://readme"}, lambda r: "test peer" in r["contents"][0]["text"], "peer://readme"),
    ("resources/read", {"uri": "peer://items/42"}, lambda r: r["contents"][0]["text"].strip() == "item 42",
     "peer://items/42"),
    ("prompts/list", None,
     lambda r: any(p["name"] == "greet" and any(a["name"] == "name" and a.get("required") for a in p.get("arguments", []))
                   for p in r["prompts"]), None),
    ("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}},
     lambda r: "Ada" in r["messages"][0]["content"]["text"], "greet"),
]


def check_surface(call) -> list[str]:
    """Runs SURFACE_CALLS through call(id, method, params, mcp_name) -> message; returns failures."""
    bad = []
    for n, (method, params, check, name) in enumerate(SURFACE_CALLS, start=10):
        m = call(n, method, params, name)
        try:
            good = ok(m) and check(m["result"])
        except (KeyError, IndexError, TypeError, AttributeError):
            good = False
        if not good:
            bad.append(f"{method} {json.dumps(params)} -> {json.dumps(m)[:300]}")
    return bad


def probe_stdio(entry: dict, ctx: Ctx) -> dict:
    res: dict = {}
    first = (entry.get("ready") or {}).get("timeout_ms", 10000) / 1000
    # modern on a fresh process
    p = Proc(entry, ctx)
    try:
        wait_ready(p, entry, ctx)
        d = p.stdio_call(modern_req(1, "server/discover"), first)
        res["discover"] = d
        res["modern_tools"] = p.stdio_call(modern_req(2, "tools/list")) if ok(d) else None
        if entry.get("standard_surface") and ok(d):
            res["surface"] = check_surface(lambda n, m, pr, _name: p.stdio_call(modern_req(n, m, pr)))
    finally:
        p.stop()
    # legacy on a fresh process
    p = Proc(entry, ctx)
    try:
        wait_ready(p, entry, ctx)
        i = p.stdio_call(req(1, "initialize", INIT_PARAMS), first)
        res["initialize"] = i
        if ok(i):
            p.send(req(None, "notifications/initialized"))
            res["legacy_tools"] = p.stdio_call(req(2, "tools/list"))
    finally:
        p.stop()
    return res


def probe_http(entry: dict, ctx: Ctx) -> dict:
    res: dict = {}
    p = Proc(entry, ctx)
    try:
        url = wait_ready(p, entry, ctx)
        res["url"] = url
        mh = {"MCP-Protocol-Version": MODERN}
        st, hd, d, raw = http_post(url, modern_req(1, "server/discover"), dict(mh, **{"Mcp-Method": "server/discover"}))
        res["discover"], res["discover_http"] = d, (st, hd.get("content-type"), raw if d is None else None)
        if ok(d):
            st, hd, t, raw = http_post(url, modern_req(2, "tools/list"), dict(mh, **{"Mcp-Method": "tools/list"}))
            res["modern_tools"] = t
            if entry.get("standard_surface"):
                def call(n, m, pr, name):
                    h = dict(mh, **{"Mcp-Method": m})
                    if name is not None:
                        h["Mcp-Name"] = name
                    return http_post(url, modern_req(n, m, pr), h)[2]
                res["surface"] = check_surface(call)
        st, hd, i, raw = http_post(url, req(1, "initialize", INIT_PARAMS), {})
        res["initialize"], res["initialize_http"] = i, (st, hd.get("content-type"), raw if i is None else None)
        if ok(i):
            lh = {"MCP-Protocol-Version": i["result"].get("protocolVersion", LEGACY)}
            if "mcp-session-id" in hd:
                lh["Mcp-Session-Id"] = hd["mcp-session-id"]
                res["session"] = True
            st, _, _, _ = http_post(url, req(None, "notifications/initialized"), lh)
            res["initialized_status"] = st
            st, hd, t, raw = http_post(url, req(2, "tools/list"), lh)
            res["legacy_tools"] = t
    finally:
        p.stop(graceful_eof=False)
    return res


def main() -> int:
    global VERBOSE
    args = sys.argv[1:]
    if "-v" in args:
        VERBOSE = True
        args.remove("-v")
    peers = json.loads((PEERS_DIR / "peers.json").read_text())
    if args:
        peers = [e for e in peers if any(a in e["id"] for a in args)]
    failures = 0
    for e in peers:
        ctx = Ctx()
        t0 = time.monotonic()
        try:
            r = probe_stdio(e, ctx) if e["transport"] == "stdio" else probe_http(e, ctx)
        except Exception as ex:  # noqa: BLE001
            print(f"FAIL {e['id']}: {ex}")
            failures += 1
            ctx.cleanup()
            continue
        ctx.cleanup()
        modern_ok = ok(r.get("discover")) and ok(r.get("modern_tools"))
        legacy_ok = ok(r.get("initialize")) and ok(r.get("legacy_tools"))
        observed = {(True, True): "dual", (True, False): MODERN, (False, True): LEGACY}.get((modern_ok, legacy_ok), "none")
        infos = []
        if ok(r.get("discover")):
            infos.append((r["discover"]["result"].get("_meta") or {}).get("io.modelcontextprotocol/serverInfo"))
        if ok(r.get("initialize")):
            infos.append(r["initialize"]["result"].get("serverInfo"))
        want = e.get("server_info")
        info_ok = want is None or all(
            isinstance(i, dict) and i.get("name") == want["name"] and i.get("version") == want["version"] for i in infos
        )
        if not info_ok:
            print(f"       serverInfo mismatch: declared {want}, observed {infos}")
        good = observed == e["era"] and not r.get("surface") and info_ok
        failures += 0 if good else 1
        print(f"{'ok  ' if good else 'FAIL'} {e['id']:<32} era={observed:<10} (declared {e['era']}) {time.monotonic() - t0:.1f}s")
        print(f"       discover:   {summarize(r.get('discover'))}")
        if ok(r.get("discover")):
            print(f"       tools/list: {summarize(r.get('modern_tools'))}")
        print(f"       initialize: {summarize(r.get('initialize'))}" + (" [session]" if r.get("session") else ""))
        if ok(r.get("initialize")):
            print(f"       tools/list: {summarize(r.get('legacy_tools'))}")
        if "surface" in r:
            print(f"       surface:    {'ok (' + str(len(SURFACE_CALLS)) + ' calls)' if not r['surface'] else 'FAILED'}")
            for b in r["surface"]:
                print(f"         {b}")
        if VERBOSE:
            for k in ("discover", "discover_http", "initialize", "initialize_http", "url"):
                if k in r:
                    print(f"       {k} = {json.dumps(r[k])[:600]}")
    print(f"{len(peers) - failures}/{len(peers)} peers as declared")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
