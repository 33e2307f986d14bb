#!/usr/bin/env node
// The `mcpseal` command of the npm package: finds the binary that npm installed for this
// platform (one of the `@mcpseal/cli-*` optional dependencies; npm installs only the one whose
// `os`/`cpu`/`libc` match) and runs it with the same arguments, stdio, exit code and signals.
//
// No install script exists anywhere in these packages: everything happens here, at run time, so
// `npm install --ignore-scripts`, offline installs and proxied installs all work.
//
// Plain Node (>= 18), no dependencies. `MCPSEAL_BINARY=/path/to/mcpseal` runs that binary
// instead (a local build, or a platform npm has no package for).
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const SCOPE = "@mcpseal/cli-";

/** `linux-x64-gnu`, `linux-x64-musl`, `darwin-arm64`, `win32-x64`, … */
function platformKey() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform !== "linux") return base;
  return `${base}-${isMusl() ? "musl" : "gnu"}`;
}

/** Node's own report says which C library it runs on: glibc builds name a glibc version. */
function isMusl() {
  try {
    const header = process.report.getReport().header;
    return !header.glibcVersionRuntime;
  } catch {
    // No report (very old Node, or reports disabled): musl distributions ship this loader.
    const fs = require("node:fs");
    return ["/lib/ld-musl-x86_64.so.1", "/lib/ld-musl-aarch64.so.1"].some((p) => fs.existsSync(p));
  }
}

function fail(message, hint) {
  process.stderr.write(`error: ${message}\n`);
  if (hint) process.stderr.write(`hint: ${hint}\n`);
  // 2 is mcpseal's "could not run" code: no verdict was reached.
  process.exit(2);
}

function supportedKeys() {
  const pkg = require("../package.json");
  return Object.keys(pkg.optionalDependencies || {})
    .filter((name) => name.startsWith(SCOPE))
    .map((name) => name.slice(SCOPE.length));
}

function findBinary() {
  if (process.env.MCPSEAL_BINARY) return process.env.MCPSEAL_BINARY;
  const key = platformKey();
  const supported = supportedKeys();
  if (!supported.includes(key)) {
    fail(
      `mcpseal has no prebuilt binary for this platform (${key}); prebuilt: ${supported.join(", ")}`,
      "build it from source with `cargo install mcpseal`, then point MCPSEAL_BINARY at it " +
        "(or put it on PATH and call it directly)",
    );
  }
  const pkgName = SCOPE + key;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkgName}/package.json`));
  } catch {
    fail(
      `the package ${pkgName} (the mcpseal binary for this platform, ${key}) is not installed`,
      "it is an optional dependency of mcpseal, so npm leaves it out under " +
        "`--omit=optional`/`--no-optional`, and node_modules copied from another platform lacks " +
        "it; reinstall without those (`npm install mcpseal`), or add it yourself: " +
        `\`npm install ${pkgName}@${require("../package.json").version}\``,
    );
  }
  return path.join(dir, process.platform === "win32" ? "mcpseal.exe" : "mcpseal");
}

function run() {
  const binary = findBinary();
  // Signals sent to this process (a CI runner's SIGTERM, `kill -INT`) go to the binary too; a
  // terminal's Ctrl-C reaches both anyway (same process group), which mcpseal tolerates. The
  // handlers go in before the spawn: a signal that lands between the two must not kill this
  // process the default way and orphan the binary.
  let child = null;
  const pending = [];
  const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGBREAK"];
  const handlers = new Map();
  for (const signal of forwarded) {
    const handler = () => {
      if (!child) pending.push(signal);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    try {
      process.on(signal, handler);
      handlers.set(signal, handler);
    } catch {
      // Not a signal on this platform (SIGBREAK is Windows-only, SIGQUIT/SIGHUP Unix-only).
    }
  }

  child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  for (const signal of pending) child.kill(signal);

  child.on("error", (err) => {
    const hint =
      err.code === "EACCES"
        ? `the file is not executable; \`chmod +x ${binary}\` or reinstall the package`
        : "reinstall mcpseal (`npm install mcpseal`), or set MCPSEAL_BINARY to a working binary";
    fail(`could not start ${binary}: ${err.message}`, hint);
  });

  child.on("exit", (code, signal) => {
    for (const [name, handler] of handlers) process.removeListener(name, handler);
    if (signal) {
      // Die of the same signal, so a shell or supervisor sees 128+n exactly as without us.
      process.kill(process.pid, signal);
      // Still alive (Windows, or the signal was ignored): the conventional code.
      process.exit(1);
    }
    process.exit(code === null ? 1 : code);
  });
}

run();
