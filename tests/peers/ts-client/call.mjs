#!/usr/bin/env node
// ts-client: calls one tool through the official TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.x), as a second opinion for `mcpseal call`. Plain ESM, no build.
//
// Usage (from anywhere): node tests/peers/ts-client/call.mjs SPEC.json
//
// SPEC: {
//   "target": {"url": "http://127.0.0.1:P/mcp"} | {"command": "prog", "args": ["..."]},
//   "tool": "forecast", "arguments": {...},
//   "list": true,                      // call tools/list first (the SDK validates only then)
//   "modern": true,                    // negotiate 2026-07-28 (`versionNegotiation: auto`); else 2025
//   "elicitation": {...} | null,       // the ElicitResult the client answers with, if asked
//   "cases": [{"id": "real", "patch": []}, {"id": "requiredRemoved:/city", "patch": [RFC 6902 ops]}]
// }
//
// Every case calls the tool once on the same connection; a case's JSON Patch is applied to the
// `tools/call` result between the transport and the SDK client (a tampering proxy in the
// transport), so the SDK judges exactly the tampered result mcpseal judged. Prints one JSON
// document on stdout: {"sdk": "<version>", "era": "...", "cases": [{"id", "accepted", "error"?}]}.
// `accepted` is true when callTool resolved (an `isError` result resolves too; it is reported in
// `isError`). Dependencies come from ../npm/node_modules via createRequire, like ts-server.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../npm/package.json', import.meta.url));
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
// The package exports no `./package.json`: read it beside the resolved entry point.
const sdkVersion = JSON.parse(
  readFileSync(new URL('../package.json', new URL(`file://${require.resolve('@modelcontextprotocol/client')}`)), 'utf8'),
).version;

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));

// --- RFC 6902 add / remove / replace on a parsed JSON value -------------------------------
function tokens(path) {
  if (path === '') return [];
  return path.slice(1).split('/').map(t => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function applyPatch(doc, ops) {
  const out = structuredClone(doc);
  for (const op of ops) {
    const ts = tokens(op.path);
    const last = ts.pop();
    let parent = out;
    for (const t of ts) parent = parent[Array.isArray(parent) ? Number(t) : t];
    if (Array.isArray(parent)) {
      const at = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(at, 0, op.value);
      else if (op.op === 'remove') parent.splice(at, 1);
      else parent[at] = op.value;
    } else if (op.op === 'remove') {
      delete parent[last];
    } else {
      parent[last] = op.value;
    }
  }
  return out;
}

// --- a transport that tampers `tools/call` results -------------------------------------------
const state = { patch: [] };

function tampering(inner) {
  const toolCalls = new Set();
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'send') {
        return (message, options) => {
          if (message && message.method === 'tools/call' && message.id !== undefined) toolCalls.add(message.id);
          return target.send(message, options);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
    set(target, prop, value) {
      if (prop === 'onmessage' && typeof value === 'function') {
        target.onmessage = (message, extra) => {
          if (message && toolCalls.has(message.id) && message.result !== undefined && state.patch.length > 0) {
            message = { ...message, result: applyPatch(message.result, state.patch) };
          }
          return value(message, extra);
        };
        return true;
      }
      return Reflect.set(target, prop, value);
    },
  });
}

function transport() {
  if (spec.target.url) return new StreamableHTTPClientTransport(new URL(spec.target.url));
  return new StdioClientTransport({ command: spec.target.command, args: spec.target.args ?? [], stderr: 'ignore' });
}

async function main() {
  const client = new Client(
    { name: 'mcpseal-second-opinion', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: spec.modern ? 'auto' : 'legacy' },
    },
  );
  client.setRequestHandler('elicitation/create', async () => {
    if (spec.elicitation) return spec.elicitation;
    return { action: 'cancel' };
  });
  await client.connect(tampering(transport()));
  const era = typeof client.getProtocolEra === 'function' ? client.getProtocolEra() : 'unknown';
  if (spec.list) await client.listTools();
  const cases = [];
  for (const c of spec.cases) {
    state.patch = c.patch ?? [];
    try {
      const result = await client.callTool({ name: spec.tool, arguments: spec.arguments ?? {} });
      cases.push({ id: c.id, accepted: true, isError: result.isError === true });
    } catch (e) {
      cases.push({ id: c.id, accepted: false, error: String(e?.message ?? e).slice(0, 300) });
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify({ sdk: sdkVersion, era, cases }) + '\n');
}

main().catch(e => {
  process.stderr.write(`ts-client: ${e?.stack ?? e}\n`);
  process.exit(1);
});
