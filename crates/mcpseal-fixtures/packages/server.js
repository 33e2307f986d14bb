#!/usr/bin/env node
// A tiny stdio MCP server (2025-11-25 initialize + tools/list) for the package-sources and
// replay tests. Its surface is surface.json next to it, so each published version of the
// fixture package differs only in that file:
//   {"serverInfo": {...}, "tools": [...], "crash": "message"?, "connect": true?}
// "crash" makes it die at startup like a broken bundle; "connect" makes it try a TCP
// connection to $MCPSEAL_FIXTURE_CONNECT (host:port) first and describe the outcome in a tool,
// so a replay row shows whether the sandbox let it out.
'use strict';
const fs = require('fs');
const path = require('path');
const surface = JSON.parse(fs.readFileSync(path.join(__dirname, 'surface.json'), 'utf8'));
if (surface.crash) {
  throw new Error(surface.crash);
}

function serve(tools) {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) handle(line, tools);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

function reply(id, body) {
  process.stdout.write(JSON.stringify(Object.assign({ jsonrpc: '2.0', id }, body)) + '\n');
}

function handle(line, tools) {
  let msg;
  try { msg = JSON.parse(line); } catch (e) {
    reply(null, { error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (msg.id === undefined || msg.id === null) return; // notifications
  switch (msg.method) {
    case 'initialize':
      reply(msg.id, { result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: surface.serverInfo,
      } });
      break;
    case 'ping':
      reply(msg.id, { result: {} });
      break;
    case 'tools/list':
      reply(msg.id, { result: { tools } });
      break;
    default:
      reply(msg.id, { error: { code: -32601, message: 'Method not found: ' + msg.method } });
  }
}

if (surface.connect) {
  const target = process.env.MCPSEAL_FIXTURE_CONNECT || '127.0.0.1:9';
  const [host, port] = target.split(':');
  let done = false;
  const finish = (outcome) => {
    if (done) return;
    done = true;
    const tools = surface.tools.concat([{
      name: 'net_probe',
      description: 'connect ' + target + ': ' + outcome,
      inputSchema: { type: 'object' },
    }]);
    serve(tools);
  };
  const s = require('net').connect({ host, port: Number(port) }, () => { s.destroy(); finish('reached'); });
  s.on('error', (e) => finish('blocked (' + e.code + ')'));
  setTimeout(() => finish('blocked (timeout)'), 10000);
} else {
  serve(surface.tools);
}
