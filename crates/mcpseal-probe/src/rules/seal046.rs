use mcpseal_client::Exchange;
use mcpseal_protocol::method;
use mcpseal_report::Severity;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// An item's definition changes between two listings on one connection.
    ///
    /// A client reviews and approves what a server lists: a tool's description (which the model
    /// reads as instructions), its annotations (`readOnlyHint`, `destructiveHint`), its schemas.
    /// A server that rewrites a definition after it was first listed — a "rug pull" — gets past
    /// every check made on a fresh connection, because each fresh connection sees the honest
    /// first listing. Definitions that change while a client is connected are a security
    /// concern even when announced; unannounced, the client has no way to learn the change: a
    /// server that does not advertise `listChanged` for a list promises that the list does not
    /// change during the connection.
    ///
    /// All four lists the capabilities advertise (`tools`, `prompts`, `resources`, resource
    /// templates), on the client path: the first page of the prelude's listing (tools) or of the
    /// run's shared listing (the others) against one more listing of the first page, sent after
    /// them and after the user's tool calls (`--call`), if any. Items are matched by their key
    /// (`name`, `uri`, `uriTemplate`); an item whose JSON differs is named with the changed
    /// JSON paths, both listings as evidence. A warning when the server advertises `listChanged`
    /// for that list, an error when it does not. Items added or removed are not judged here (a
    /// list that may change may grow); a listing that failed either time is not judged.
    pub static SEAL046 = {
        id: "SEAL046",
        anchor: None,
        title: "An item's definition changes between two listings on one connection",
        severity: Warning,
        remediation: Application,
        spec: "server/tools",
        transports: [Stdio, Http],
        check: check,
    };
}

/// The lists judged: `(list method, capability, result key, item key)`.
const LISTS: &[(&str, &str, &str, &str)] = &[
    (method::TOOLS_LIST, "tools", "tools", "name"),
    (method::PROMPTS_LIST, "prompts", "prompts", "name"),
    (method::RESOURCES_LIST, "resources", "resources", "uri"),
    (
        method::RESOURCES_TEMPLATES_LIST,
        "resources",
        "resourceTemplates",
        "uriTemplate",
    ),
];

/// The most changed paths named per item (the evidence has the rest).
const MAX_PATHS: usize = 8;

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.path.is_none() {
        return Ok(Vec::new());
    }
    let Some(caps) = p.capabilities().cloned() else {
        return Ok(Vec::new());
    };
    // The first listings are the run's shared ones; the calls come before the second listing,
    // so a server that changes after a call is seen too.
    let shared = ctx.cacheable_results().await;
    ctx.user_calls().await;
    let mut out = Vec::new();
    for &(list, cap, key, id_key) in LISTS {
        let Some(cap_value) = caps.get(cap).filter(|c| c.is_object()) else {
            continue;
        };
        let first = if list == method::TOOLS_LIST {
            p.effective_listing()
        } else {
            shared.iter().copied().find(|ex| ex.method() == list)
        };
        let Some(first) = first.filter(|ex| ex.result().is_some()) else {
            continue;
        };
        let Some(second) = ctx.call_client(list, json!({})).await else {
            continue;
        };
        let (Some(before), Some(after)) = (items(first, key), items(&second, key)) else {
            continue;
        };
        let announced = cap_value.get("listChanged") == Some(&Value::Bool(true));
        for (name, old) in &before {
            let Some((_, new)) = after.iter().find(|(n, _)| n == name) else {
                continue;
            };
            let mut paths = Vec::new();
            diff_paths(old, new, String::new(), &mut paths);
            if paths.is_empty() {
                continue;
            }
            out.push(finding(
                list, id_key, name, &paths, announced, first, &second,
            ));
        }
    }
    Ok(out)
}

fn finding(
    list: &str,
    id_key: &str,
    name: &str,
    paths: &[String],
    announced: bool,
    first: &Exchange,
    second: &Exchange,
) -> mcpseal_report::Finding {
    let shown: Vec<String> = paths
        .iter()
        .take(MAX_PATHS)
        .map(|p| format!("`{}`", if p.is_empty() { "/" } else { p }))
        .collect();
    let more = paths.len().saturating_sub(MAX_PATHS);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let cap = if announced {
        "announced with `listChanged`"
    } else {
        "without `listChanged` advertised for this list"
    };
    let f = SEAL046.finding(
        format!(
            "`{list}` item `{name}` ({id_key}) changed between two listings on one connection ({cap}); changed: {}{more}.",
            shown.join(", ")
        ),
        "An item's definition stays what the client reviewed while it is connected; a server that advertises `listChanged` may change a list, but a changed definition still needs the user's review, and a server that does not advertise it never changes the list during a connection.",
        "Serve the same definitions for the life of a connection; publish changed tools, prompts or resources as a new server version (a client re-reviews them), and advertise `listChanged` and send the notification if lists really change at run time.",
    );
    let f = if announced {
        f
    } else {
        f.severity(Severity::Error)
    };
    f.evidence([first, second])
}

/// The items of a listing's first page keyed by `key`, or `None` when it has no such array.
/// Items without a string key are skipped (other rules judge them).
fn items(ex: &Exchange, key: &str) -> Option<Vec<(String, Value)>> {
    let id_key = match key {
        "resources" => "uri",
        "resourceTemplates" => "uriTemplate",
        _ => "name",
    };
    let array = ex.result()?.get(key)?.as_array()?;
    Some(
        array
            .iter()
            .filter_map(|item| {
                let id = item.get(id_key)?.as_str()?;
                Some((id.to_owned(), item.clone()))
            })
            .collect(),
    )
}

/// The JSON Pointer paths (RFC 6901) where `a` and `b` differ: the deepest object key that
/// differs, or the array or scalar that does.
fn diff_paths(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let path = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (x.get(k), y.get(k)) {
                    (Some(l), Some(r)) => diff_paths(l, r, path, out),
                    (None, None) => {}
                    _ => out.push(path),
                }
            }
        }
        _ if a != b => out.push(at),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_the_deepest_differing_keys() {
        let a = json!({"name": "echo", "description": "x", "inputSchema": {"type": "object", "required": ["m"], "properties": {"m": {}}}, "annotations": {"a/b": 1}});
        let b = json!({"name": "echo", "description": "y", "inputSchema": {"type": "object", "properties": {"m": {}, "path": {}}}, "annotations": {"a/b": 2}});
        let mut out = Vec::new();
        diff_paths(&a, &b, String::new(), &mut out);
        assert_eq!(
            out,
            vec![
                "/annotations/a~1b",
                "/description",
                "/inputSchema/properties/path",
                "/inputSchema/required",
            ]
        );
        let mut none = Vec::new();
        diff_paths(&a, &a.clone(), String::new(), &mut none);
        assert!(none.is_empty());
    }
}
