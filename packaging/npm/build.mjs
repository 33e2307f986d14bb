#!/usr/bin/env node
// Assembles the npm packages from built binaries and packs them (`npm pack`).
//
//   node packaging/npm/build.mjs --out DIR [--binary TARGET=PATH]... [--version V] [--no-main]
//
// - `mcpseal`: the launcher (bin/mcpseal.js) and a package.json whose optionalDependencies name
//   one `@mcpseal/cli-<platform>` package per entry of packaging/targets.json, all at VERSION.
// - `@mcpseal/cli-<platform>`, one per `--binary TARGET=PATH` (TARGET a Rust target triple from
//   targets.json): the binary plus `os`/`cpu`/`libc`, so npm installs only the matching one.
//
// VERSION defaults to the `mcpseal` package's version in the Cargo workspace (`cargo metadata`),
// so npm, PyPI, crates.io and the GitHub release always carry one number. No package gets an
// install script. Prints the tarball paths, one per line. Plain Node, no dependencies.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");

function die(message, hint) {
  process.stderr.write(`error: ${message}\n${hint ? `hint: ${hint}\n` : ""}`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { out: null, binaries: [], version: null, main: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) die(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "--out") opts.out = path.resolve(value());
    else if (arg === "--version") opts.version = value();
    else if (arg === "--no-main") opts.main = false;
    else if (arg === "--binary") {
      const raw = value();
      const eq = raw.indexOf("=");
      if (eq <= 0) die(`--binary ${raw}: expected TARGET=PATH`, "e.g. --binary x86_64-unknown-linux-gnu=target/release/mcpseal");
      opts.binaries.push({ target: raw.slice(0, eq), file: path.resolve(raw.slice(eq + 1)) });
    } else die(`unknown argument ${arg}`, "usage: build.mjs --out DIR [--binary TARGET=PATH]... [--version V] [--no-main]");
  }
  if (!opts.out) die("--out DIR is required");
  return opts;
}

function workspaceVersion() {
  let meta;
  try {
    meta = JSON.parse(
      execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1", "--manifest-path", path.join(root, "Cargo.toml")], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      }),
    );
  } catch (e) {
    die(`could not read the workspace version with cargo metadata: ${e.message}`, "run from a checkout with cargo on PATH, or pass --version");
  }
  const cli = meta.packages.find((p) => p.name === "mcpseal");
  if (!cli) die("the workspace has no package named mcpseal");
  return cli.version;
}

const targets = JSON.parse(fs.readFileSync(path.join(root, "packaging", "targets.json"), "utf8")).targets;
const template = JSON.parse(fs.readFileSync(path.join(here, "mcpseal", "package.json"), "utf8"));

function copyLicences(dir) {
  for (const name of ["LICENSE-MIT", "LICENSE-APACHE"]) fs.copyFileSync(path.join(root, name), path.join(dir, name));
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function assembleMain(out, version) {
  const dir = path.join(out, "mcpseal");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  const launcher = path.join(dir, "bin", "mcpseal.js");
  fs.copyFileSync(path.join(here, "mcpseal", "bin", "mcpseal.js"), launcher);
  fs.chmodSync(launcher, 0o755);
  fs.copyFileSync(path.join(here, "mcpseal", "README.md"), path.join(dir, "README.md"));
  copyLicences(dir);
  const pkg = { ...template, version, optionalDependencies: {} };
  for (const t of targets) pkg.optionalDependencies[`@mcpseal/cli-${t.npm}`] = version;
  writeJson(path.join(dir, "package.json"), pkg);
  return dir;
}

function assemblePlatform(out, version, { target, file }) {
  const t = targets.find((x) => x.target === target);
  if (!t) die(`--binary ${target}: not a target of packaging/targets.json`, `one of: ${targets.map((x) => x.target).join(", ")}`);
  if (!fs.existsSync(file)) die(`--binary ${target}: ${file} does not exist`, "build it first (cargo build --release --target …)");
  const dir = path.join(out, `cli-${t.npm}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const exe = `mcpseal${t.exe}`;
  fs.copyFileSync(file, path.join(dir, exe));
  fs.chmodSync(path.join(dir, exe), 0o755);
  copyLicences(dir);
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# @mcpseal/cli-${t.npm}\n\nThe \`mcpseal\` binary for ${t.target}. Install [\`mcpseal\`](https://www.npmjs.com/package/mcpseal) instead: it depends on this package (and its siblings for other platforms) and runs the one npm installed.\n`,
  );
  const pkg = {
    name: `@mcpseal/cli-${t.npm}`,
    version,
    description: `The mcpseal binary for ${t.target}`,
    homepage: template.homepage,
    license: template.license,
    repository: { ...template.repository, directory: "packaging/npm" },
    os: [t.os],
    cpu: [t.cpu],
    ...(t.libc ? { libc: [t.libc] } : {}),
    files: [exe, "LICENSE-MIT", "LICENSE-APACHE"],
    // Yarn PnP would otherwise keep the binary inside a zip archive it cannot exec.
    preferUnplugged: true,
  };
  writeJson(path.join(dir, "package.json"), pkg);
  return dir;
}

function pack(dir, out) {
  const raw = execFileSync("npm", ["pack", "--json", "--pack-destination", out, dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [{ filename }] = JSON.parse(raw);
  return path.join(out, filename);
}

const opts = parseArgs(process.argv.slice(2));
const version = opts.version ?? workspaceVersion();
fs.mkdirSync(opts.out, { recursive: true });
const dirs = [];
if (opts.main) dirs.push(assembleMain(opts.out, version));
for (const b of opts.binaries) dirs.push(assemblePlatform(opts.out, version, b));
for (const dir of dirs) process.stdout.write(`${pack(dir, opts.out)}\n`);
