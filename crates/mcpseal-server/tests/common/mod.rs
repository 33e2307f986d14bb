//! A small handler with every list, for the server's own tests, and probe helpers.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use mcpseal_client::{Connection, Target};
use mcpseal_probe::{ProbeOptions, probe};
use mcpseal_protocol::ListKind;
use mcpseal_report::{ProbeReport, Severity};
use mcpseal_server::{Answer, Context, Handler, Implementation, Raw, RpcError};
use serde_json::{Map, Value, json};

/// A demo server: four tools (one slow, one reporting progress, one naming the thread that ran
/// it), two resources, a template, a
/// prompt.
pub struct Demo {
    me: Implementation,
    lists: [Arc<[Value]>; 4],
}

impl Demo {
    pub fn new() -> Demo {
        let tools = vec![
            json!({"name": "echo", "description": "Echo the message back",
                "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                                "required": ["message"], "additionalProperties": false},
                "annotations": {"readOnlyHint": true}}),
            json!({"name": "slow", "description": "Answers after the given milliseconds",
                "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}}),
            json!({"name": "count", "description": "Reports progress three times, then answers",
                "inputSchema": {"type": "object", "additionalProperties": false}}),
            json!({"name": "where", "description": "Names the thread that ran the call",
                "inputSchema": {"type": "object", "additionalProperties": false}}),
        ];
        let resources = vec![
            json!({"uri": "demo://readme", "name": "readme", "mimeType": "text/plain"}),
            json!({"uri": "demo://about", "name": "about", "mimeType": "text/plain"}),
        ];
        let templates = vec![json!({"uriTemplate": "demo://items/{id}", "name": "item"})];
        let prompts = vec![json!({"name": "greet", "description": "Greet someone",
            "arguments": [{"name": "name", "required": true}]})];
        Demo {
            me: Implementation::new("demo", "1.2.3"),
            lists: [
                tools.into(),
                resources.into(),
                templates.into(),
                prompts.into(),
            ],
        }
    }
}

impl Handler for Demo {
    fn implementation(&self) -> &Implementation {
        &self.me
    }

    fn instructions(&self) -> Option<&str> {
        Some("A demo server")
    }

    fn list(&self, kind: ListKind) -> Option<Arc<[Value]>> {
        Some(Arc::clone(&self.lists[kind.index()]))
    }

    async fn call_tool(
        &self,
        name: &str,
        args: Map<String, Value>,
        ctx: &Context,
    ) -> Result<Answer, RpcError> {
        match name {
            // Pre-written content: the transports write it as the `Value` would be written.
            "echo" => match args.get("message").and_then(Value::as_str) {
                Some(m) => Ok(Answer::default().with_raw(
                    "content",
                    Raw::new()
                        .text("[{\"text\":")
                        .shared(Arc::from(serde_json::to_string(m).unwrap_or_default()))
                        .text(",\"type\":\"text\"}]"),
                )),
                None => Ok(
                    json!({"content": [{"type": "text", "text": "`message` must be a string"}], "isError": true}).into(),
                ),
            },
            "where" => {
                let here = std::thread::current().name().unwrap_or("unnamed").to_owned();
                Ok(json!({"content": [{"type": "text", "text": here}]}).into())
            }
            "slow" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(json!({"content": [{"type": "text", "text": "done"}]}).into())
            }
            _ => {
                for i in 1..=3 {
                    ctx.progress(f64::from(i), Some(3.0), Some("counting"))
                        .await;
                }
                Ok(json!({"content": [{"type": "text", "text": "3"}]}).into())
            }
        }
    }

    async fn read_resource(&self, uri: &str, _: &Context) -> Result<Answer, RpcError> {
        let text = match uri {
            "demo://readme" => "read me".to_owned(),
            "demo://about" => "about".to_owned(),
            u => match u.strip_prefix("demo://items/") {
                Some(id) if !id.is_empty() => format!("item {id}"),
                _ => return Err(RpcError::resource_not_found(uri)),
            },
        };
        Ok(json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}).into())
    }

    async fn get_prompt(
        &self,
        _: &str,
        args: Map<String, Value>,
        _: &Context,
    ) -> Result<Value, RpcError> {
        let Some(name) = args.get("name").and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("Missing required argument: name"));
        };
        Ok(
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Hello, {name}!")}}]}),
        )
    }
}

/// Probe options running every rule, with a short listen wait.
pub fn all_rules() -> ProbeOptions {
    ProbeOptions {
        listen_timeout: Duration::from_millis(800),
        ..ProbeOptions::default()
    }
}

/// Probes `target` with all rules under a deadline.
pub async fn probe_target(target: Target, popts: &ProbeOptions) -> ProbeReport {
    let options = mcpseal_client::Options {
        timeout: Duration::from_secs(5),
        ..mcpseal_client::Options::default()
    };
    tokio::time::timeout(Duration::from_secs(60), async {
        let conn = Connection::open(&target, options).await.expect("open");
        let report = probe(&conn, popts).await;
        conn.close().await;
        report
    })
    .await
    .expect("probe finished within the deadline")
}

/// `(rule id, severity)` of every finding.
pub fn ids(report: &ProbeReport) -> BTreeSet<(String, Severity)> {
    report
        .findings
        .iter()
        .map(|f| (f.rule_id.clone(), f.severity))
        .collect()
}
