use mcpseal_client::{Exchange, META_SUBSCRIPTION_ID, TransportKind};
use mcpseal_protocol::method::{
    NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED as ACK, SUBSCRIPTIONS_LISTEN,
};
use serde_json::{Map, Value};

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// `subscriptions/listen` is not acknowledged first, with its subscription id and only
    /// what was asked for.
    ///
    /// 2026-07-28 replaced the session's free-for-all notification stream with explicit
    /// subscriptions. A client may hold several at once (on stdio they share one pipe), so
    /// it needs to know when a subscription is live and which of its requests the server
    /// honours: the server MUST first send `notifications/subscriptions/acknowledged` whose
    /// `params._meta["io.modelcontextprotocol/subscriptionId"]` is the listen request's id,
    /// nothing may precede it on that subscription, and its `notifications` is the *subset*
    /// of the requested filter the server agreed to (it MUST NOT send types the client did
    /// not request). An acknowledgement without the id cannot be matched to its
    /// subscription; one that claims more than was asked promises notifications the client
    /// will treat as a protocol violation.
    ///
    /// Judges the run's one `subscriptions/listen` stream (shared with SEAL009, sent by
    /// whichever of the two runs first), on servers whose `server/discover` answered and that
    /// advertise `listChanged`. Whether listen is served at all is SEAL009's finding; silence
    /// (no acknowledgement, no answer) is an unanswered probe, never a pass: the run is
    /// incomplete. An acknowledgement that arrives without the right id also leaves the
    /// probe unanswered (a client cannot match it), so that finding comes with an incomplete
    /// run. A graceful end (a `SubscriptionsListenResult`) with no acknowledgement before it
    /// is a finding too.
    pub static SEAL026 = {
        id: "SEAL026",
        anchor: None,
        title: "subscriptions/listen is not acknowledged first with its subscription id and a subset of the filter",
        severity: Error,
        remediation: Sdk,
        spec: "basic/patterns/subscriptions",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.discover_result().is_none() || p.path != Some(ClientPath::Modern) {
        return Ok(Vec::new());
    }
    let Some(ex) = ctx.subscription().await else {
        return Ok(Vec::new());
    };
    Ok(judge(ex, ctx.transport())
        .map(|(observed, expected, fix)| {
            vec![SEAL026.finding(observed, expected, fix).evidence([ex])]
        })
        .unwrap_or_default())
}

/// The requested filter of a listen request.
fn requested(ex: &Exchange) -> Map<String, Value> {
    ex.request
        .pointer("/params/notifications")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn subscription_id(n: &Value) -> Option<&Value> {
    n.pointer("/params/_meta")
        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
}

/// A wrong subscription id described by its JSON type, never its value (a request id).
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "`null`",
        Value::String(_) => "another string",
        Value::Number(_) => "another number",
        _ => "a value of another type",
    }
}

fn judge(ex: &Exchange, transport: TransportKind) -> Option<(String, &'static str, &'static str)> {
    let id = ex.request.get("id").cloned().unwrap_or(Value::Null);
    let is_ack = |n: &Value| n.get("method").and_then(Value::as_str) == Some(ACK);
    let ack_pos = ex
        .notifications
        .iter()
        .position(|n| is_ack(n) && subscription_id(n) == Some(&id));
    let Some(pos) = ack_pos else {
        if let Some(bad) = ex.notifications.iter().find(|n| is_ack(n)) {
            return Some((
                format!(
                    "`{SUBSCRIPTIONS_LISTEN}` was acknowledged with `_meta[\"{META_SUBSCRIPTION_ID}\"]` = {} instead of the request id.",
                    subscription_id(bad).map_or("absent", kind_of)
                ),
                "The acknowledgement carries `params._meta[\"io.modelcontextprotocol/subscriptionId\"]` equal to the `subscriptions/listen` request's JSON-RPC id.",
                "Set `_meta[\"io.modelcontextprotocol/subscriptionId\"]` to the listen request's id on the acknowledgement and on every notification of that stream.",
            ));
        }
        if let Some(result) = ex.result() {
            return Some((
                format!(
                    "`{SUBSCRIPTIONS_LISTEN}` got a result without any acknowledgement first: {}.",
                    cut(&result.to_string(), 200)
                ),
                "A server MUST first send `notifications/subscriptions/acknowledged` for the subscription; the `SubscriptionsListenResult` only ends a stream that was acknowledged.",
                "Send `notifications/subscriptions/acknowledged` (with the subscription id and the honoured filter) as the first message of every listen stream.",
            ));
        }
        // Silence or an error: SEAL009's, or an unanswered probe.
        return None;
    };
    let mut facts = Vec::new();
    let early: Vec<&Value> = ex.notifications[..pos]
        .iter()
        .filter(|n| n.is_object())
        .filter(|n| transport == TransportKind::Http || subscription_id(n) == Some(&id))
        .collect();
    if !early.is_empty() {
        // Named by method: the messages themselves carry the subscription id (a request id,
        // which depends on what was sent before).
        facts.push(format!(
            "{} message(s) preceded the acknowledgement on the subscription (first: `{}`)",
            early.len(),
            early[0]
                .get("method")
                .and_then(Value::as_str)
                .map_or_else(|| "a message without a method".to_owned(), |m| cut(m, 80))
        ));
    }
    let asked = requested(ex);
    let honoured = ex.notifications[pos]
        .pointer("/params/notifications")
        .and_then(Value::as_object);
    for (key, value) in honoured.into_iter().flatten() {
        let extra = match (value, asked.get(key)) {
            (Value::Bool(false), _) => false,
            (Value::Bool(true), Some(Value::Bool(true))) => false,
            (Value::Array(uris), Some(Value::Array(wanted))) => {
                uris.iter().any(|u| !wanted.contains(u))
            }
            (Value::Array(uris), None) => !uris.is_empty(),
            _ => true,
        };
        if extra {
            facts.push(format!(
                "the acknowledgement honours `{key}: {value}`, which was not requested (requested: {})",
                Value::Object(asked.clone())
            ));
        }
    }
    if facts.is_empty() {
        return None;
    }
    Some((
        format!("`{SUBSCRIPTIONS_LISTEN}`: {}.", facts.join("; ")),
        "The first message of a subscription is `notifications/subscriptions/acknowledged`; its `notifications` is the subset of the requested filter the server will honour, and no unrequested type is ever sent.",
        "Acknowledge before sending anything on the subscription, and build the acknowledged filter by intersecting the request's filter with what the server supports.",
    ))
}
