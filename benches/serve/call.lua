-- wrk script: POST one 2026-07-28 `tools/call` of get_post with its routing headers.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "get_post"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_post","arguments":{"slug":"bench"},' ..
  '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},' ..
  '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"4"}}}}'
