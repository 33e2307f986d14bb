// Which mcpseal version the Action installs. Never a floating "latest": in order,
//
// 1. the `version` input;
// 2. the repository's pin, `required-version`, from its project config (`mcpseal.toml` at the
//    top level, `[tool.mcpseal]` in pyproject.toml, or `"mcpseal": {"required-version": …}` in
//    package.json), looked up in the working directory, then the workspace root; two places
//    that disagree are an error;
// 3. the version this Action was released with: the workspace version in the Cargo.toml that
//    sits next to action.yml (the Action and the binary are tagged from the same commit).
//
// A pin is one exact version (`1.2.3`, `v1.2.3`, `=1.2.3`, prereleases allowed); a range is
// refused, since a range would make two runs of the same commit install different binaries.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

class VersionError extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

const EXACT = /^(?:=|v)?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;

/** An exact version without `v`/`=`, or a VersionError naming `where` it came from. */
function exact(raw, where) {
  const m = EXACT.exec(String(raw).trim());
  if (!m) {
    throw new VersionError(
      `${where} asks for mcpseal version "${raw}", which is not one exact version`,
      "write an exact version such as 0.3.1 (ranges and `latest` are refused so that every run " +
        "of a commit installs the same binary)",
    );
  }
  return m[1];
}

/**
 * The string value of `key` inside TOML table `table` ("" = top level) — a line scanner for the
 * one key we need, not a TOML parser: `key = "…"` or `key = '…'` on one line.
 */
function tomlString(text, table, key) {
  let current = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([^\]]+?)\s*\]\s*(#.*)?$/.exec(line);
    if (header && !line.startsWith("[[")) {
      current = header[1].replace(/\s+/g, "");
      continue;
    }
    if (line.startsWith("[[")) {
      current = "\u0000array-table";
      continue;
    }
    if (current !== table) continue;
    const kv = /^("?)([A-Za-z0-9_-]+)\1\s*=\s*("([^"\\]*)"|'([^']*)')\s*(#.*)?$/.exec(line);
    if (kv && kv[2] === key) return kv[4] ?? kv[5];
  }
  return undefined;
}

/** Every `required-version` pin in `dir`: [{ where, version }]. */
function pinsIn(dir) {
  const pins = [];
  const read = (name) => {
    try {
      return fs.readFileSync(path.join(dir, name), "utf8");
    } catch {
      return undefined;
    }
  };
  const toml = read("mcpseal.toml");
  if (toml !== undefined) {
    const v = tomlString(toml, "", "required-version");
    if (v !== undefined) pins.push({ where: path.join(dir, "mcpseal.toml"), version: v });
  }
  const pyproject = read("pyproject.toml");
  if (pyproject !== undefined) {
    const v = tomlString(pyproject, "tool.mcpseal", "required-version");
    if (v !== undefined) pins.push({ where: `${path.join(dir, "pyproject.toml")} [tool.mcpseal]`, version: v });
  }
  const pkg = read("package.json");
  if (pkg !== undefined) {
    let v;
    try {
      v = JSON.parse(pkg)?.mcpseal?.["required-version"];
    } catch {
      v = undefined; // not ours to judge; npm will complain about a broken package.json
    }
    if (v !== undefined) pins.push({ where: `${path.join(dir, "package.json")} "mcpseal"`, version: v });
  }
  return pins;
}

/** The version in `[workspace.package]` of the Cargo.toml next to action.yml. */
function ownVersion(actionRoot) {
  const file = path.join(actionRoot, "Cargo.toml");
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new VersionError(`cannot read ${file} to learn this Action's own version: ${e.message}`, "set the `version` input");
  }
  const v = tomlString(text, "workspace.package", "version");
  if (v === undefined) throw new VersionError(`${file} has no [workspace.package] version`, "set the `version` input");
  return { version: exact(v, file), source: "action" };
}

/**
 * @param {{input: string, workingDirectory: string, workspace: string|undefined, actionRoot: string}} o
 * @returns {{version: string, source: string}}
 */
function resolveVersion({ input, workingDirectory, workspace, actionRoot }) {
  if (input && input.trim()) return { version: exact(input, "the `version` input"), source: "input" };
  const dirs = [path.resolve(workingDirectory)];
  if (workspace && !dirs.includes(path.resolve(workspace))) dirs.push(path.resolve(workspace));
  for (const dir of dirs) {
    const pins = pinsIn(dir).map((p) => ({ ...p, version: exact(p.version, p.where) }));
    if (pins.length === 0) continue;
    const distinct = [...new Set(pins.map((p) => p.version))];
    if (distinct.length > 1) {
      throw new VersionError(
        `required-version disagrees: ${pins.map((p) => `${p.where} says ${p.version}`).join(", ")}`,
        "keep one pin (mcpseal reads one project config), or set the `version` input",
      );
    }
    return { version: distinct[0], source: pins[0].where };
  }
  return ownVersion(actionRoot);
}

module.exports = { resolveVersion, tomlString, VersionError };
