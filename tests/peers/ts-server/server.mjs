#!/usr/bin/env node
// ts-peer: a small MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.x),
// used as a real peer by the mcpseal test suite. Plain ESM, no build step.
//
// Usage (from tests/peers/):
//   node ts-server/server.mjs stdio [--modern-only]
//   node ts-server/server.mjs http [--port P] [--modern-only] [--json-response]
//
// Dependencies are loaded from ../npm/node_modules (installed by ../install.sh), via createRequire,
// so this file needs no node_modules of its own. (The SDK ships CJS and ESM builds; we use the CJS
// build for every package so that zod and the SDK share one instance.)
//
// HTTP: binds 127.0.0.1:P (P = 0 picks a free port; default $PORT or 0), serves the MCP endpoint at
// /mcp, and once listening prints exactly one line `http://127.0.0.1:<port>/mcp` on stdout (the
// readiness signal). Logs go to stderr.
//
// Default = the SDK's dual-era defaults: createMcpHandler(legacy: 'stateless') / serveStdio(legacy:
// 'serve'): 2026-07-28 per-request `_meta` traffic is served statelessly, 2025-era `initialize`
// traffic too. --modern-only = legacy: 'reject' on both transports (2025-era requests get the
// unsupported-protocol-version error naming 2026-07-28).

import { createRequire } from 'node:module';
import { createServer } from 'node:http';

const require = createRequire(new URL('../npm/package.json', import.meta.url));
const { McpServer, ResourceTemplate, createMcpHandler } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const { toNodeHandler, localhostHostValidation, localhostOriginValidation } = require('@modelcontextprotocol/node');
const { z } = require('zod');

const VERSION = '0.1.0';
const README_TEXT = 'ts-peer: a test peer for mcpseal (@modelcontextprotocol/server 2.x).\n';

function usage() {
  process.stderr.write(
    'usage: server.mjs stdio [--modern-only]\n       server.mjs http [--port P] [--modern-only] [--json-response]\n',
  );
  process.exit(2);
}

function buildServer() {
  const server = new McpServer(
    { name: 'ts-peer', version: VERSION },
    { instructions: 'mcpseal test peer (TypeScript SDK v2)' },
  );

  server.registerTool(
    'echo',
    {
      description: 'Echo the message back',
      inputSchema: z.object({ message: z.string().describe('The message to echo back') }),
    },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );

  server.registerTool(
    'add',
    {
      description: 'Add two numbers; returns structured content {sum}',
      inputSchema: z.object({ a: z.number().describe('First addend'), b: z.number().describe('Second addend') }),
      outputSchema: z.object({ sum: z.number().describe('a + b') }),
    },
    async ({ a, b }) => {
      const out = { sum: a + b };
      return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
    },
  );

  server.registerTool(
    'clock',
    {
      description: 'Current time as seconds since the Unix epoch',
      annotations: { title: 'Clock', readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    },
    async () => ({ content: [{ type: 'text', text: String(Math.floor(Date.now() / 1000)) }] }),
  );

  server.registerResource(
    'readme',
    'peer://readme',
    { description: 'About this peer', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: README_TEXT }] }),
  );

  server.registerResource(
    'item',
    new ResourceTemplate('peer://items/{id}', { list: undefined }),
    { description: 'An item by id', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `item ${id}\n` }] }),
  );

  server.registerPrompt(
    'greet',
    {
      description: 'Greet someone by name',
      argsSchema: z.object({ name: z.string().describe('Who to greet') }),
    },
    ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }],
    }),
  );

  return server;
}

const argv = process.argv.slice(2);
const mode = argv[0];
let modernOnly = false;
let jsonResponse = false;
let port = process.env.PORT !== undefined && process.env.PORT !== '' ? Number(process.env.PORT) : 0;
for (let i = 1; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--modern-only') modernOnly = true;
  else if (a === '--json-response') jsonResponse = true;
  else if (a === '--port' && i + 1 < argv.length) port = Number(argv[++i]);
  else usage();
}
if (!Number.isInteger(port) || port < 0 || port > 65535) usage();

const onerror = (err) => process.stderr.write(`ts-peer: ${err?.stack ?? err}\n`);

if (mode === 'stdio') {
  process.stderr.write(`ts-peer: serving on stdio (modernOnly=${modernOnly})\n`);
  serveStdio(() => buildServer(), { legacy: modernOnly ? 'reject' : 'serve', onerror });
} else if (mode === 'http') {
  const handler = createMcpHandler(() => buildServer(), {
    legacy: modernOnly ? 'reject' : 'stateless',
    responseMode: jsonResponse ? 'json' : 'auto',
    onerror,
  });
  const nodeHandler = toNodeHandler(handler, { onerror });
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const httpServer = createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    nodeHandler(req, res);
  });
  httpServer.listen(port, '127.0.0.1', () => {
    const { port: actual } = httpServer.address();
    process.stderr.write(`ts-peer: listening (modernOnly=${modernOnly}, jsonResponse=${jsonResponse})\n`);
    process.stdout.write(`http://127.0.0.1:${actual}/mcp\n`);
  });
  const shutdown = () => {
    handler.close().finally(() => httpServer.close(() => process.exit(0)));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
} else {
  usage();
}
