"""py-peer: a small MCP server on the official Python SDK v2 (mcp 2.x), used as a real peer by
the mcpseal test suite.

Usage (from tests/peers/, with the venv made by install.sh):
    .venv/bin/python py-server/server.py stdio
    .venv/bin/python py-server/server.py http [--port P] [--json-response] [--legacy-sessions]

HTTP: binds 127.0.0.1:P (P = 0 picks a free port; default $PORT or 0), serves the MCP endpoint at
/mcp, and once uvicorn has started prints exactly one line `http://127.0.0.1:<port>/mcp` on stdout
(the readiness signal). Logs go to stderr.

Era: the Python SDK v2 is always dual-era (it has no modern-only switch): 2026-07-28 requests
(per-request `_meta`, `MCP-Protocol-Version: 2026-07-28`) are served statelessly by the SDK's
modern single-exchange path; 2025-era `initialize` traffic is served by the legacy path, which
here runs stateless too (`stateless_http=True`) unless --legacy-sessions is given.
"""

from __future__ import annotations

import os
import socket
import sys
import time

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

README_TEXT = "py-peer: a test peer for mcpseal (mcp 2.x).\n"

mcp = MCPServer(name="py-peer", version="0.1.0", instructions="mcpseal test peer (Python SDK v2)")


class AddResult(BaseModel):
    sum: float = Field(description="a + b")


@mcp.tool(description="Echo the message back", structured_output=False)
def echo(message: str = Field(description="The message to echo back")) -> str:
    return message


@mcp.tool(description="Add two numbers; returns structured content {sum}")
def add(
    a: float = Field(description="First addend"),
    b: float = Field(description="Second addend"),
) -> AddResult:
    return AddResult(sum=a + b)


@mcp.tool(
    description="Current time as seconds since the Unix epoch",
    annotations=ToolAnnotations(title="Clock", read_only_hint=True, idempotent_hint=False, open_world_hint=False),
    structured_output=False,
)
def clock() -> str:
    return str(int(time.time()))


@mcp.resource("peer://readme", name="readme", description="About this peer", mime_type="text/plain")
def readme() -> str:
    return README_TEXT


@mcp.resource("peer://items/{id}", name="item", description="An item by id", mime_type="text/plain")
def item(id: str) -> str:
    return f"item {id}\n"


@mcp.prompt(name="greet", description="Greet someone by name")
def greet(name: str = Field(description="Who to greet")) -> str:
    return f"Please greet {name}."


def usage() -> None:
    sys.stderr.write(
        "usage: server.py stdio\n       server.py http [--port P] [--json-response] [--legacy-sessions]\n"
    )
    sys.exit(2)


async def serve_http(port: int, json_response: bool, legacy_sessions: bool) -> None:
    import uvicorn

    app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=json_response,
        stateless_http=not legacy_sessions,
        host="127.0.0.1",
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    actual = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            await anyio.sleep(0.02)
        sys.stderr.write(
            f"py-peer: listening (json_response={json_response}, legacy_sessions={legacy_sessions})\n"
        )
        sys.stdout.write(f"http://127.0.0.1:{actual}/mcp\n")
        sys.stdout.flush()

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await server.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def main() -> None:
    args = sys.argv[1:]
    if not args:
        usage()
    mode, rest = args[0], args[1:]
    port = int(os.environ.get("PORT") or 0)
    json_response = False
    legacy_sessions = False
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--port" and i + 1 < len(rest):
            port = int(rest[i + 1])
            i += 1
        elif a == "--json-response":
            json_response = True
        elif a == "--legacy-sessions":
            legacy_sessions = True
        else:
            usage()
        i += 1
    if mode == "stdio":
        if rest:
            usage()
        sys.stderr.write("py-peer: serving on stdio\n")
        mcp.run("stdio")
    elif mode == "http":
        anyio.run(serve_http, port, json_response, legacy_sessions)
    else:
        usage()


if __name__ == "__main__":
    main()
