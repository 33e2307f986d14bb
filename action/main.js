// The mcpseal GitHub Action (action.yml): install one checksummed release binary, run one
// mcpseal command once, and render that one run several ways — the SARIF log becomes
// annotations (and the `sarif` file for code scanning), the Markdown report becomes the job
// summary, the JSON report is the `report-path` output — so no output can contradict another.
// The verdict is mcpseal's exit code (`--fail-on` and friends go in `args`); the Action only
// passes it on.
//
// Plain Node (the runner's node24; works on Node >= 18), no dependencies, no bundling: what runs
// is what is in this directory. Tested by crates/mcpseal-cli/tests/action.rs, which runs this
// file with the GITHUB_*/RUNNER_* variables set against a locally built binary and a fake
// release served on loopback.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawn, spawnSync } = require("node:child_process");

const { splitWords } = require("./lib/words");
const { resolveVersion } = require("./lib/version");
const { install } = require("./lib/install");
const { annotations, command, setOutputs, appendSummary } = require("./lib/report");

const COMMANDS = ["check", "probe", "verify", "registry check"];
const DEFAULT_RELEASES = "https://github.com/mcpseal/mcpseal/releases/download";
const MEANING = {
  0: "ok",
  1: "the check found something (see the annotations and the job summary)",
  2: "usage error, unreachable server, unreadable input, or a run that could not finish",
};

class ActionError extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

/** Inputs arrive as INPUT_<NAME> (upper case, spaces to `_`, hyphens kept). */
function input(name) {
  return (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}

function log(line) {
  process.stdout.write(`${line}\n`);
}

function runChild(binary, argv, cwd) {
  return new Promise((resolve) => {
    // A cancelled job sends SIGINT, then SIGTERM: pass them on so mcpseal stops its servers.
    // Handlers first, so a signal between them and the spawn still reaches the child.
    let child = null;
    const pending = [];
    const forward = (signal) => () => (child ? child.kill(signal) : pending.push(signal));
    const handlers = ["SIGINT", "SIGTERM"].map((s) => [s, forward(s)]);
    for (const [s, h] of handlers) process.on(s, h);
    child = spawn(binary, argv, { cwd, stdio: "inherit" });
    for (const s of pending) child.kill(s);
    const done = (code) => {
      for (const [s, h] of handlers) process.removeListener(s, h);
      resolve(code);
    };
    child.on("error", (e) => {
      log(command("error", { title: "mcpseal action" }, `could not start ${binary}: ${e.message}`));
      done(2);
    });
    child.on("exit", (code, signal) => done(signal ? 2 : (code ?? 2)));
  });
}

async function main() {
  const actionRoot = path.resolve(__dirname, "..");
  const commandWords = splitWords(input("command") || "check");
  const commandName = commandWords.join(" ");
  if (!COMMANDS.includes(commandName)) {
    throw new ActionError(`command "${commandName}" is not one the Action runs`, `one of: ${COMMANDS.join(", ")}`);
  }
  const args = splitWords(input("args"));
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
  const cwd = path.resolve(workspace, input("working-directory") || ".");
  if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
    throw new ActionError(`working-directory ${cwd} is not a directory`, "it is relative to the workspace (the checkout)");
  }

  const { version, source } = resolveVersion({ input: input("version"), workingDirectory: cwd, workspace, actionRoot });
  const from = { input: "the version input", action: "this Action's release" }[source] ?? source;
  log(`mcpseal ${version} (version from ${from})`);
  setOutputs(process.env.GITHUB_OUTPUT, { "mcpseal-version": version });

  const { binary, versionLine } = await install({
    version,
    actionRoot,
    base: input("release-url") || DEFAULT_RELEASES,
    checksum: input("checksum"),
    log,
  });
  log(versionLine);

  // One run, several renderings: that needs `--emit` on the command.
  const help = spawnSync(binary, [...commandWords, "--help"], { encoding: "utf8", timeout: 30000 });
  if (help.status !== 0) {
    throw new ActionError(`mcpseal ${version} has no \`${commandName}\` command`, "pick a version that has it (`version` input or required-version)");
  }
  if (!/--emit\b/.test(help.stdout)) {
    throw new ActionError(
      `mcpseal ${version} \`${commandName}\` cannot write several reports from one run (no --emit)`,
      "pick a version whose command has --emit; the Action never runs a command twice",
    );
  }

  const outDir = fs.mkdtempSync(path.join(process.env.RUNNER_TEMP || os.tmpdir(), "mcpseal-report-"));
  const json = path.join(outDir, "report.json");
  const markdown = path.join(outDir, "report.md");
  const sarif = input("sarif") ? path.resolve(cwd, input("sarif")) : path.join(outDir, "report.sarif");
  fs.mkdirSync(path.dirname(sarif), { recursive: true });
  fs.rmSync(sarif, { force: true }); // a run that writes nothing must not show an old log
  const argv = [...commandWords, "--emit", `json:${json}`, "--emit", `markdown:${markdown}`, "--emit", `sarif:${sarif}`, ...args];

  const code = await runChild(binary, argv, cwd);

  if (fs.existsSync(sarif)) {
    let log_;
    try {
      log_ = JSON.parse(fs.readFileSync(sarif, "utf8"));
    } catch (e) {
      throw new ActionError(`mcpseal wrote an unreadable SARIF log ${sarif}: ${e.message}`);
    }
    for (const line of annotations(log_)) log(line);
  }
  if (fs.existsSync(markdown)) {
    appendSummary(process.env.GITHUB_STEP_SUMMARY, fs.readFileSync(markdown, "utf8"));
  } else {
    appendSummary(
      process.env.GITHUB_STEP_SUMMARY,
      `### mcpseal ${commandName}\n\nmcpseal exited ${code} without writing a report; the step log says why.\n`,
    );
  }
  setOutputs(process.env.GITHUB_OUTPUT, {
    "report-path": fs.existsSync(json) ? json : "",
    "sarif-path": fs.existsSync(sarif) ? sarif : "",
    "exit-code": String(code),
  });
  if (code !== 0) {
    log(command("error", { title: `mcpseal ${commandName}` }, `mcpseal ${commandName} exited ${code}: ${MEANING[code] ?? "unexpected exit code"}`));
  }
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    const known = e && typeof e === "object" && "hint" in e;
    log(command("error", { title: "mcpseal action" }, known ? e.message : String(e?.stack ?? e)));
    if (known && e.hint) log(`hint: ${e.hint}`);
    process.exitCode = 2;
  },
);
