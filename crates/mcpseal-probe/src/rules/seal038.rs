use std::collections::BTreeMap;

use serde_json::Value;

use crate::context::ProbeContext;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};
use crate::tools::display_name;
use mcpseal_schema::RefKind;
use mcpseal_schema::refs::refs;

crate::rule! {
    /// Tool definitions that commonly break clients: names outside the spec's rules,
    /// duplicates, missing descriptions, `$ref`s to nowhere.
    ///
    /// Clients key tools by name (per server, case-sensitively), prefix them with a server
    /// name for models, and pass them to model APIs that accept only short names from a small
    /// alphabet. 2026-07-28 writes that down: tool names SHOULD be 1–128 characters of
    /// `A–Z a–z 0–9 _ - .` and unique within a server. A tool without a description leaves
    /// the model to guess from the name; a `$ref` to a definition the schema does not have is
    /// unresolvable for every validator, so most clients drop the tool or fail to call it.
    ///
    /// Both transports, from `tools/list` (all pages). One warning per run listing every
    /// problem: names (length, characters, duplicates), missing or empty `description`, and
    /// `#…` references that name nothing in the schema (remote references are SEAL037's).
    /// Missing names are a shape error, not judged here.
    pub static SEAL038 = {
        id: "SEAL038",
        anchor: None,
        title: "Tool definitions that commonly break clients",
        severity: Warning,
        remediation: Application,
        spec: "server/tools",
        transports: [Stdio, Http],
        check: check,
    };
}

/// A name the spec's SHOULD accepts: 1–128 of `A-Z a-z 0-9 _ - .`.
pub(crate) fn name_ok(name: &str) -> bool {
    (1..=128).contains(&name.chars().count())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let Some(listing) = ctx.tool_listing().await else {
        return Ok(Vec::new());
    };
    let mut facts = Vec::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, tool) in listing.tools.iter().enumerate() {
        let label = display_name(tool, i);
        if let Some(name) = tool.get("name").and_then(Value::as_str) {
            *counts.entry(name).or_default() += 1;
            if !name_ok(name) {
                facts.push(format!(
                    "the name {} ({} characters) is not 1–128 of `A-Za-z0-9_.-`",
                    cut(&Value::from(name).to_string(), 60),
                    name.chars().count()
                ));
            }
        }
        let described = tool
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty());
        if !described {
            facts.push(format!("{label} has no description"));
        }
        for key in ["inputSchema", "outputSchema"] {
            let dangling: Vec<String> = tool
                .get(key)
                .map(refs)
                .unwrap_or_default()
                .into_iter()
                .filter(|r| r.kind == RefKind::Dangling)
                .map(|r| format!("`{}`", r.target))
                .collect();
            if !dangling.is_empty() {
                facts.push(format!(
                    "{label} `{key}` refers to {} which the schema does not define",
                    dangling.join(", ")
                ));
            }
        }
    }
    for (name, n) in counts {
        if n > 1 {
            facts.push(format!("`{name}` is listed {n} times"));
        }
    }
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    let shown = facts.len().min(12);
    let more = facts.len() - shown;
    let mut observed = facts[..shown].join("; ");
    if more > 0 {
        observed.push_str(&format!("; and {more} more"));
    }
    Ok(vec![
        SEAL038
            .finding(
                format!("{observed}."),
                "Tool names SHOULD be 1–128 characters of `A-Za-z0-9_.-` and unique per server; every tool should say what it does in `description`; every `$ref` resolves inside the schema.",
                "Rename tools to the portable alphabet (e.g. `get_weather`, `files.read`), give each a unique name and a description, and define every `#/$defs/…` target a schema refers to.",
            )
            .evidence(listing.pages.iter().copied().take(2)),
    ])
}

#[cfg(test)]
mod tests {
    use super::name_ok;

    #[test]
    fn names_follow_the_spec_alphabet() {
        assert!(name_ok("get_weather") && name_ok("files.read-v2") && name_ok("A"));
        assert!(!name_ok("") && !name_ok("has space") && !name_ok("ünï") && !name_ok("a/b"));
        assert!(name_ok(&"x".repeat(128)) && !name_ok(&"x".repeat(129)));
    }
}
