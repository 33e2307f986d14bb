"""A tiny stdio MCP server (2025-11-25 initialize + tools/list) for the package-sources and
replay tests. make_dist.py writes the surface of each fixture version into SURFACE below; a
"crash" key makes it fail at startup, like a release that never starts."""
import json
import sys

SURFACE = json.loads(r'''__SURFACE__''')


def reply(msg_id, body):
    body = dict(body)
    body["jsonrpc"] = "2.0"
    body["id"] = msg_id
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def main():
    if SURFACE.get("crash"):
        raise RuntimeError(SURFACE["crash"])
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            reply(None, {"error": {"code": -32700, "message": "Parse error"}})
            continue
        if msg.get("id") is None:
            continue
        method = msg.get("method")
        if method == "initialize":
            reply(msg["id"], {"result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": SURFACE["serverInfo"],
            }})
        elif method == "ping":
            reply(msg["id"], {"result": {}})
        elif method == "tools/list":
            reply(msg["id"], {"result": {"tools": SURFACE["tools"]}})
        else:
            reply(msg["id"], {"error": {"code": -32601, "message": "Method not found: %s" % method}})
