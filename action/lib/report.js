// What the Action says to GitHub, all derived from the files one mcpseal run wrote:
// annotations from its SARIF log, the job summary from its Markdown report, step outputs.
// Nothing here re-judges the run: the verdict is mcpseal's exit code.
"use strict";

const fs = require("node:fs");
const crypto = require("node:crypto");

/** Workflow-command escaping: data and property values differ (`:` and `,` in properties). */
function escapeData(s) {
  return String(s).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function escapeProperty(s) {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::error file=…,line=…,title=…::message` */
function command(name, props, message) {
  const list = Object.entries(props)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(",");
  return `::${name}${list ? ` ${list}` : ""}::${escapeData(message)}`;
}

const LEVEL = { error: "error", warning: "warning", note: "notice", none: "notice" };

/** A repository file path from a SARIF artifact URI (not a URL of a live server). */
function filePath(uri) {
  if (!uri || /^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) {
    if (uri && uri.startsWith("file://")) return decodeURIComponent(new URL(uri).pathname);
    return undefined;
  }
  return decodeURIComponent(uri);
}

/**
 * One annotation line per SARIF result, and one per tool execution notification (why a run
 * failed). A result with a physical location in a file (a lock file line) is pinned to it.
 * @param {object} sarif a parsed SARIF 2.1.0 log
 * @returns {string[]}
 */
function annotations(sarif) {
  const lines = [];
  for (const run of sarif?.runs ?? []) {
    const rules = run?.tool?.driver?.rules ?? [];
    for (const r of run?.results ?? []) {
      const rule = (Number.isInteger(r.ruleIndex) ? rules[r.ruleIndex] : undefined) ?? rules.find((x) => x.id === r.ruleId);
      const level = LEVEL[r.level ?? rule?.defaultConfiguration?.level ?? "warning"] ?? "warning";
      const phys = r.locations?.[0]?.physicalLocation;
      const file = filePath(phys?.artifactLocation?.uri);
      const region = file ? phys?.region : undefined;
      const title = [r.ruleId, rule?.shortDescription?.text].filter(Boolean).join(": ");
      lines.push(
        command(
          level,
          {
            file,
            line: region?.startLine,
            endLine: region?.endLine,
            col: region?.startColumn,
            endColumn: region?.endColumn,
            title,
          },
          r.message?.text ?? title,
        ),
      );
    }
    for (const inv of run?.invocations ?? []) {
      for (const n of inv?.toolExecutionNotifications ?? []) {
        const level = LEVEL[n.level ?? "error"] ?? "error";
        lines.push(command(level, { title: "mcpseal run" }, n.message?.text ?? "the run did not finish"));
      }
    }
  }
  return lines;
}

/** Appends `name=value` pairs to $GITHUB_OUTPUT with a random heredoc delimiter. */
function setOutputs(file, outputs) {
  if (!file) return;
  let text = "";
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `mcpseal_${crypto.randomBytes(8).toString("hex")}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  fs.appendFileSync(file, text);
}

/** Appends Markdown to $GITHUB_STEP_SUMMARY (GitHub caps a step's summary at 1 MiB). */
function appendSummary(file, markdown) {
  if (!file) return;
  const cap = 1024 * 1024 - 256;
  let text = markdown.endsWith("\n") ? markdown : `${markdown}\n`;
  if (Buffer.byteLength(text) > cap) {
    text = `${Buffer.from(text).subarray(0, cap).toString("utf8")}\n\n_(cut at GitHub's 1 MiB summary limit; the full report is the step's report-path output)_\n`;
  }
  fs.appendFileSync(file, text);
}

module.exports = { annotations, command, setOutputs, appendSummary, escapeData, escapeProperty };
