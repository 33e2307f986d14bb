//! Hand-built reports for the renderer tests. Durations and timestamps are fixed, so snapshots
//! need no redaction.

use mcpseal_report::{
    CrashedRule, Finding, Incomplete, ProbeReport, Remediation, RuleInfo, RunState, Severity,
    Summary, ToolInfo,
};
use serde_json::{Value, json};

const SPEC: &str = "https://modelcontextprotocol.io/specification/2026-07-28";

fn rule(
    id: &str,
    title: &str,
    severity: Severity,
    remediation: Remediation,
    anchor: Option<&str>,
) -> RuleInfo {
    RuleInfo {
        id: id.into(),
        title: title.into(),
        severity,
        remediation,
        spec_ref: format!("{SPEC}/{}", id.to_lowercase()),
        transports: vec!["stdio".into(), "http".into()],
        anchor_id: anchor.map(Into::into),
        rationale: format!("{title}: the 2026-07-28 revision made this a requirement."),
    }
}

/// The rule catalogue every test report carries (deliberately not sorted).
pub fn rules() -> Vec<RuleInfo> {
    use Remediation::{Application, Sdk};
    use Severity::{Error, Warning};
    vec![
        rule(
            "SEAL002",
            "Requests without a session are refused",
            Error,
            Sdk,
            Some("MCP002"),
        ),
        rule(
            "SEAL001",
            "server/discover is not implemented",
            Error,
            Sdk,
            Some("MCP001"),
        ),
        rule(
            "SEAL003",
            "MCP-Protocol-Version header is ignored",
            Error,
            Sdk,
            None,
        ),
        rule(
            "SEAL005",
            "Cache hints are missing or malformed",
            Warning,
            Sdk,
            Some("MCP005"),
        ),
        rule(
            "SEAL008",
            "Removed methods are still implemented",
            Warning,
            Sdk,
            Some("MCP008"),
        ),
        rule(
            "SEAL013",
            "Tool input schema is not JSON Schema 2020-12",
            Error,
            Application,
            Some("MCP013"),
        ),
        rule(
            "SEAL020",
            "Error responses do not echo the request id",
            Error,
            Sdk,
            None,
        ),
    ]
}

fn tool() -> ToolInfo {
    ToolInfo {
        name: "mcpseal".into(),
        version: "0.1.0".into(),
    }
}

/// A JSON-RPC exchange over HTTP, answered.
pub fn http_exchange(method: &str, id: u64, status: u16, response: Value) -> Value {
    json!({
        "transport": "http",
        "request": {"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}},
        "requestHeaders": [
            {"name": "content-type", "value": "application/json"},
            {"name": "MCP-Protocol-Version", "value": "2026-07-28"},
            {"name": "Authorization", "value": "[redacted]"}
        ],
        "response": response,
        "responseHeaders": [{"name": "content-type", "value": "application/json"}],
        "httpStatus": status,
        "notifications": [],
        "durationMs": 7,
        "transportError": null
    })
}

/// A JSON-RPC exchange over stdio, answered, with a log notification that arrived meanwhile.
fn stdio_exchange(method: &str, id: u64, response: Value) -> Value {
    json!({
        "transport": "stdio",
        "request": {"jsonrpc": "2.0", "id": id, "method": method},
        "requestHeaders": [],
        "response": response,
        "responseHeaders": [],
        "httpStatus": null,
        "notifications": [{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "handling request"}}],
        "durationMs": 2,
        "transportError": null
    })
}

/// A request over stdio that timed out.
fn stdio_timeout(method: &str, id: u64) -> Value {
    json!({
        "transport": "stdio",
        "request": {"jsonrpc": "2.0", "id": id, "method": method},
        "requestHeaders": [],
        "response": null,
        "responseHeaders": [],
        "httpStatus": null,
        "notifications": [],
        "durationMs": 10000,
        "transportError": {"kind": "timeout", "message": "no answer within 10000 ms"}
    })
}

fn raw_get() -> Value {
    json!({
        "method": "GET",
        "url": "http://127.0.0.1:7301/mcp",
        "requestHeaders": [{"name": "accept", "value": "text/event-stream"}],
        "status": 200,
        "headers": [{"name": "content-type", "value": "text/event-stream"}, {"name": "mcp-session-id", "value": "[redacted]"}],
        "bodyPreview": "event: endpoint\ndata: /messages?sessionId=[redacted]\n\n",
        "truncated": true,
        "error": null,
        "durationMs": 3000
    })
}

#[expect(
    clippy::too_many_arguments,
    reason = "test data reads best as one call per finding"
)]
fn finding(
    rule_id: &str,
    severity: Severity,
    remediation: Remediation,
    title: &str,
    observed: &str,
    expected: &str,
    fix: &str,
    evidence: Vec<Value>,
) -> Finding {
    Finding {
        rule_id: rule_id.into(),
        severity,
        remediation,
        title: title.into(),
        observed: observed.into(),
        expected: expected.into(),
        fix: fix.into(),
        spec_ref: format!("{SPEC}/{}", rule_id.to_lowercase()),
        evidence,
    }
}

fn report(
    target: &str,
    transport: &str,
    state: RunState,
    findings: Vec<Finding>,
    crashed_rules: Vec<CrashedRule>,
) -> ProbeReport {
    let checks = if state == RunState::Unreachable {
        0
    } else {
        rules().len() - crashed_rules.len()
    };
    let summary = Summary::of(&findings, checks, crashed_rules.len());
    let ready = ProbeReport::compute_ready(state, &summary);
    ProbeReport {
        schema_version: 1,
        tool: tool(),
        target: target.into(),
        transport: transport.into(),
        target_revision: "2026-07-28".into(),
        protocol_version: None,
        started_at: "2026-11-29T12:00:00Z".into(),
        duration_ms: 1234,
        state,
        ready,
        unreachable: None,
        incomplete: None,
        access: None,
        summary,
        findings,
        crashed_rules,
        diagnostics: Vec::new(),
        rules: rules(),
    }
}

/// A 2025-era server over HTTP: many errors and warnings, both remediations, evidence with HTTP
/// statuses, a raw GET, two findings of one rule, a crashed rule and diagnostics. Findings are
/// deliberately out of order.
pub fn legacy() -> ProbeReport {
    use Remediation::{Application, Sdk};
    use Severity::{Error, Warning};
    let findings = vec![
        finding(
            "SEAL013",
            Error,
            Application,
            "Tool input schema is not JSON Schema 2020-12",
            "tool `search` declares \"$schema\": \"http://json-schema.org/draft-04/schema#\" | and uses `id`\nsecond line",
            "inputSchema is JSON Schema 2020-12 (no $schema, or the 2020-12 URI)",
            "Drop the draft-04 `$schema` from the `search` tool's inputSchema",
            vec![http_exchange(
                "tools/list",
                4,
                200,
                json!({"jsonrpc": "2.0", "id": 4, "result": {"tools": [{"name": "search", "inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}}]}}),
            )],
        ),
        finding(
            "SEAL001",
            Error,
            Sdk,
            "server/discover is not implemented",
            "server/discover answered HTTP 400 with -32601 Method not found",
            "a DiscoverResult listing supportedVersions including 2026-07-28",
            "Upgrade to an SDK that implements MCP 2026-07-28 (TypeScript @modelcontextprotocol/server 2.x, Python mcp 2.x, rmcp 3.x)",
            vec![http_exchange(
                "server/discover",
                1,
                400,
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
            )],
        ),
        finding(
            "SEAL005",
            Warning,
            Sdk,
            "Cache hints are missing or malformed",
            "tools/list result has no ttlMs",
            "ttlMs: a non-negative integer",
            "Upgrade the SDK, or set ttlMs on list results",
            vec![],
        ),
        finding(
            "SEAL002",
            Error,
            Sdk,
            "Requests without a session are refused",
            "tools/list without Mcp-Session-Id answered HTTP 400: \"Bad Request: No valid session ID provided\"",
            "a ListToolsResult: 2026-07-28 is stateless",
            "Upgrade the SDK and drop session management",
            vec![
                http_exchange(
                    "tools/list",
                    2,
                    400,
                    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}}),
                ),
                raw_get(),
            ],
        ),
        finding(
            "SEAL005",
            Warning,
            Sdk,
            "Cache hints are missing or malformed",
            "tools/list result has cacheScope \"everyone\"",
            "cacheScope: \"user\" or \"shared\"",
            "Upgrade the SDK, or set cacheScope to \"user\" or \"shared\"",
            vec![],
        ),
        finding(
            "SEAL008",
            Warning,
            Application,
            "Removed methods are still implemented",
            "logging/setLevel answered with a result",
            "-32601 Method not found",
            "Remove the logging/setLevel handler",
            vec![],
        ),
    ];
    let mut r = report(
        "http://127.0.0.1:7301/mcp",
        "http",
        RunState::Measured,
        findings,
        vec![CrashedRule {
            rule_id: "SEAL020".into(),
            error:
                "panicked at crates/mcpseal-probe/src/rules/seal020.rs:41:9:\nindex out of bounds"
                    .into(),
        }],
    );
    r.diagnostics = vec![
        "[stderr] Server listening on :7301".into(),
        "[notification] notifications/message {\"level\":\"warning\",\"data\":\"deprecated transport\"}".into(),
    ];
    r
}

/// A 2026-capable server over stdio: READY, with one advisory.
pub fn modern() -> ProbeReport {
    let findings = vec![finding(
        "SEAL008",
        Severity::Warning,
        Remediation::Sdk,
        "Removed methods are still implemented",
        "resources/subscribe answered with a result",
        "-32601 Method not found",
        "Upgrade the SDK to a release that drops resources/subscribe",
        vec![stdio_exchange(
            "resources/subscribe",
            9,
            json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
        )],
    )];
    report(
        "node dist/server.js --stdio",
        "stdio",
        RunState::Measured,
        findings,
        Vec::new(),
    )
}

/// Nothing answered.
pub fn unreachable() -> ProbeReport {
    let mut r = report(
        "http://127.0.0.1:9/mcp",
        "http",
        RunState::Unreachable,
        Vec::new(),
        Vec::new(),
    );
    r.unreachable = Some("connection refused (os error 111)".into());
    r.duration_ms = 12;
    r
}

/// Some probes went unanswered after the server answered the first ones.
pub fn incomplete() -> ProbeReport {
    let findings = vec![finding(
        "SEAL002",
        Severity::Error,
        Remediation::Sdk,
        "Requests without a session are refused",
        "tools/list without initialize answered -32000 \"Server not initialized\"",
        "a ListToolsResult: 2026-07-28 is stateless",
        "Upgrade the SDK",
        vec![
            stdio_exchange(
                "tools/list",
                2,
                json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Server not initialized"}}),
            ),
            stdio_timeout("resources/list", 5),
        ],
    )];
    let mut r = report(
        "python -m server",
        "stdio",
        RunState::Incomplete,
        findings,
        Vec::new(),
    );
    r.incomplete = Some(Incomplete {
        probes: 14,
        failed: 2,
        reason: "no answer within 10000 ms".into(),
    });
    r.diagnostics = vec!["[exit] code=1".into()];
    r
}

/// All four, by name.
pub fn all() -> Vec<(&'static str, ProbeReport)> {
    vec![
        ("legacy", legacy()),
        ("modern", modern()),
        ("unreachable", unreachable()),
        ("incomplete", incomplete()),
    ]
}
