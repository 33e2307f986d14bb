use serde_json::json;

use crate::context::ProbeContext;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The server writes output to stdout that is not an MCP message.
    ///
    /// Over stdio, stdout is the protocol: one JSON-RPC message per line, nothing else. The
    /// transport says it plainly — the server MUST NOT write anything to its stdout that is not
    /// a valid MCP message — and keeps stderr for logs (which clients may show, and never treat
    /// as an error). A host that reads stdout strictly fails on the first banner, log line or
    /// progress bar, or on JSON that is not a JSON-RPC message (a structured log line), so a
    /// server that works with a lenient client breaks under a strict one.
    ///
    /// stdio only. Judges what the server wrote to stdout up to the end of the prelude (start-up
    /// and the opening requests, the same for every selection of rules): lines that are not
    /// JSON, and JSON lines that are no JSON-RPC message. The JSON-RPC answers among them are
    /// still read and judged by every other rule; none changes its verdict because of the noise.
    /// Quoted lines are redacted and cut.
    pub static SEAL040 = {
        id: "SEAL040",
        anchor: None,
        title: "Server writes non-MCP output to stdout",
        severity: Error,
        remediation: Application,
        spec: "basic/transports/stdio",
        transports: [Stdio],
        check: check,
    };
}

/// Lines quoted in the finding.
const QUOTED: usize = 3;

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let noise = ctx.stdout_noise();
    if noise.is_empty() {
        return Ok(Vec::new());
    }
    let p = ctx.prelude();
    let quoted = noise
        .iter()
        .take(QUOTED)
        .map(|l| format!("`{}`", cut(l, 120)))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(vec![
        SEAL040
            .finding(
                format!(
                    "During start-up and the probe's opening requests the server wrote {} to stdout that {} not MCP messages; first: {quoted}.",
                    if noise.len() == 1 { "1 line".to_owned() } else { format!("{} lines", noise.len()) },
                    if noise.len() == 1 { "is" } else { "are" },
                ),
                "stdout carries only MCP messages, one JSON-RPC message per line; logs, banners and anything else go to stderr.",
                "Log to stderr, never stdout (e.g. `console.error` in Node, `logging` to `sys.stderr` in Python, `eprintln!` in Rust), and check that libraries and start-up scripts print nothing to stdout.",
            )
            .evidence_value(json!({"stdoutLines": noise.iter().take(20).collect::<Vec<_>>()}))
            .evidence([&p.discover]),
    ])
}
