#!/usr/bin/env node
// The TypeScript SDK v2 baseline of BENCHMARKS.md "mcpseal serve": one tool, `get_post`, that
// answers from memory with the same artifact `mcpseal serve` verifies on every call.
// Usage: node benches/serve/ts-bench.mjs ARTIFACT_FILE PORT  (prints the URL once listening)
// The SDK comes from tests/peers/npm (installed by tests/peers/install.sh).

import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../../tests/peers/npm/package.json', import.meta.url));
const { McpServer, createMcpHandler } = require('@modelcontextprotocol/server');
const { toNodeHandler } = require('@modelcontextprotocol/node');
const { z } = require('zod');

const [file, portArg] = process.argv.slice(2);
const text = readFileSync(file, 'utf8');

function buildServer() {
  const server = new McpServer({ name: 'ts-bench', version: '0.1.0' });
  server.registerTool(
    'get_post',
    { description: 'One post by slug', inputSchema: z.object({ slug: z.string() }) },
    async () => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const handler = createMcpHandler(() => buildServer(), { legacy: 'reject', responseMode: 'json' });
const nodeHandler = toNodeHandler(handler);
const httpServer = createServer((req, res) => nodeHandler(req, res));
httpServer.listen(Number(portArg ?? 0), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
