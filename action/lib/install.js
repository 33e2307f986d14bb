// Installs one mcpseal release binary for the runner: picks the target from
// packaging/targets.json, downloads `<base>/v<version>/SHA256SUMS` and the archive, refuses
// anything whose SHA-256 is not the one the checksum file (and the `checksum` input, when set)
// names, extracts it, checks that the binary reports the expected version, and keeps it in the
// runner's tool cache (`$RUNNER_TOOL_CACHE/mcpseal/<version>/<target>/`), where the next step on
// the same runner finds it without a download.
"use strict";

const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

class InstallError extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

const MAX_ARCHIVE = 256 * 1024 * 1024;
const MAX_SUMS = 1024 * 1024;
const TIMEOUT_MS = 5 * 60 * 1000;

/** The targets.json entry for this runner. */
function runnerTarget(actionRoot, env = process.env) {
  const { targets } = JSON.parse(fs.readFileSync(path.join(actionRoot, "packaging", "targets.json"), "utf8"));
  const osName = { Linux: "linux", macOS: "darwin", Windows: "win32" }[env.RUNNER_OS] ?? process.platform;
  const cpu = { X64: "x64", ARM64: "arm64" }[env.RUNNER_ARCH] ?? process.arch;
  let libc = "";
  if (osName === "linux") {
    let glibc = true;
    try {
      glibc = Boolean(process.report.getReport().header.glibcVersionRuntime);
    } catch {
      glibc = !fs.existsSync(`/lib/ld-musl-${cpu === "arm64" ? "aarch64" : "x86_64"}.so.1`);
    }
    libc = glibc ? "glibc" : "musl";
  }
  const hit = targets.find((t) => t.os === osName && t.cpu === cpu && t.libc === libc);
  if (!hit) {
    throw new InstallError(
      `mcpseal has no release binary for this runner (${osName} ${cpu}${libc ? ` ${libc}` : ""})`,
      `released targets: ${targets.map((t) => t.target).join(", ")}; on another runner, build it with \`cargo install mcpseal\``,
    );
  }
  return hit;
}

function assetName(version, t) {
  return `mcpseal-${version}-${t.target}.${t.archive}`;
}

/** Only https, except plain http to a loopback address (a local mirror, the Action's tests). */
function checkBase(base) {
  let url;
  try {
    url = new URL(base);
  } catch {
    throw new InstallError(`release-url "${base}" is not a URL`, "use https://github.com/OWNER/REPO/releases/download");
  }
  const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new InstallError(`release-url "${base}" is not https`, "downloads must use TLS (plain http is allowed only on loopback)");
  }
}

async function download(url, limit) {
  let lastError;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (res.status === 404) throw new InstallError(`${url} does not exist (HTTP 404)`, "check that this version was released (https://github.com/mcpseal/mcpseal/releases)");
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const chunks = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > limit) throw new InstallError(`${url} is larger than ${limit} bytes`, "the release asset is not what this Action expects");
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    } catch (e) {
      if (e instanceof InstallError) throw e;
      lastError = e;
      if (attempt < 3) await new Promise((r) => setTimeout(r, attempt * 2000));
    }
  }
  throw new InstallError(`could not download ${url}: ${lastError?.message ?? lastError}`, "a network problem; re-run the job");
}

function sha256(bytes) {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

/** `<hex>  <name>` or `<hex> *<name>` lines (sha256sum's output). */
function expectedSum(sums, name, url) {
  for (const line of sums.split(/\r?\n/)) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(.+?)\s*$/.exec(line);
    if (m && m[2] === name) return m[1].toLowerCase();
  }
  throw new InstallError(`${url} lists no checksum for ${name}`, "the release is incomplete; pick another version");
}

function extract(archive, t, dest) {
  // Windows' own bsdtar reads zip and tar.gz; Git's GNU tar earlier on PATH reads neither zip nor
  // drive-letter paths, so name it explicitly.
  const tar = process.platform === "win32" ? path.join(process.env.SystemRoot || "C:\\Windows", "System32", "tar.exe") : "tar";
  const flags = t.archive === "zip" ? "-xf" : "-xzf";
  try {
    execFileSync(tar, [flags, archive, "-C", dest], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    throw new InstallError(`could not unpack ${archive}: ${String(e.stderr || e.message).trim()}`, "the archive is damaged; re-run the job");
  }
}

function binaryVersionLine(binary) {
  try {
    return execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 30000 }).trim();
  } catch (e) {
    throw new InstallError(`${binary} does not run: ${e.message}`, "the release binary does not fit this runner");
  }
}

/**
 * @returns {Promise<{binary: string, cached: boolean, versionLine: string}>}
 */
async function install({ version, actionRoot, base, checksum, log }) {
  const t = runnerTarget(actionRoot);
  const exe = `mcpseal${t.exe}`;
  const cacheRoot = process.env.RUNNER_TOOL_CACHE || path.join(os.tmpdir(), "mcpseal-tool-cache");
  const dir = path.join(cacheRoot, "mcpseal", version, t.target);
  const binary = path.join(dir, exe);
  const marker = path.join(dir, ".complete");
  const pinned = checksum ? checksum.trim().toLowerCase() : "";
  if (pinned && !/^[0-9a-f]{64}$/.test(pinned)) throw new InstallError(`checksum "${checksum}" is not a SHA-256 (64 hex digits)`);

  // A cached copy counts only if the binary is still the one that was verified.
  if (fs.existsSync(marker) && fs.existsSync(binary)) {
    const [archiveSum, binarySum] = fs.readFileSync(marker, "utf8").trim().split(/\s+/);
    if ((!pinned || pinned === archiveSum) && binarySum === sha256(fs.readFileSync(binary))) {
      log(`mcpseal ${version} (${t.target}) found in the tool cache: ${dir}`);
      return { binary, cached: true, versionLine: binaryVersionLine(binary), target: t.target };
    }
    log(`the cached mcpseal in ${dir} does not match what was verified; downloading again`);
  }

  checkBase(base);
  const root = `${base.replace(/\/+$/, "")}/v${version}`;
  const name = assetName(version, t);
  const sumsUrl = `${root}/SHA256SUMS`;
  log(`downloading ${root}/${name}`);
  const sums = (await download(sumsUrl, MAX_SUMS)).toString("utf8");
  const want = expectedSum(sums, name, sumsUrl);
  const bytes = await download(`${root}/${name}`, MAX_ARCHIVE);
  const got = sha256(bytes);
  if (got !== want) {
    throw new InstallError(
      `checksum mismatch for ${name}: SHA256SUMS says ${want}, the download is ${got}`,
      "the asset was changed or damaged in transit; nothing was installed or run",
    );
  }
  if (pinned && got !== pinned) {
    throw new InstallError(`checksum mismatch for ${name}: the \`checksum\` input says ${pinned}, the download is ${got}`, "nothing was installed or run");
  }
  log(`SHA-256 ${got} matches ${sumsUrl}${pinned ? " and the checksum input" : ""}`);

  const work = fs.mkdtempSync(path.join(process.env.RUNNER_TEMP || os.tmpdir(), "mcpseal-dl-"));
  try {
    const archive = path.join(work, name);
    fs.writeFileSync(archive, bytes);
    extract(archive, t, work);
    const unpacked = path.join(work, `mcpseal-${version}-${t.target}`, exe);
    if (!fs.existsSync(unpacked)) throw new InstallError(`${name} has no mcpseal-${version}-${t.target}/${exe}`, "the release asset has an unexpected layout");
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(unpacked, binary);
    fs.chmodSync(binary, 0o755);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const versionLine = binaryVersionLine(binary);
  if (versionLine !== `mcpseal ${version}` && !versionLine.startsWith(`mcpseal ${version} (`)) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new InstallError(`${name} says "${versionLine}", not mcpseal ${version}`, "the release asset is mislabelled");
  }
  fs.writeFileSync(marker, `${got} ${sha256(fs.readFileSync(binary))}\n`);
  return { binary, cached: false, versionLine, target: t.target };
}

module.exports = { install, runnerTarget, assetName, InstallError };
