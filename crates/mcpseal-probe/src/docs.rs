//! Rule pages for `docs/rules/`, generated from the registry (the rule's metadata and the doc
//! comment above it). `cargo xtask generate rules` writes the committed pages; `tests/docs.rs`
//! and `cargo xtask check` fail when they are stale.

use std::fmt::Write as _;

use mcpseal_report::RuleInfo;

use crate::rules::REGISTRY;

/// The page of one rule (`docs/rules/SEAL0NN.md`).
pub fn rule_page(info: &RuleInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- generated from crates/mcpseal-probe/src/rules/{}.rs; edit the rule, not this page -->",
        info.id.to_ascii_lowercase()
    );
    let _ = writeln!(s, "# {}: {}\n", info.id, info.title);
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| Severity | {} |", info.severity.as_str());
    let _ = writeln!(s, "| Remediation | {} |", info.remediation.as_str());
    let _ = writeln!(s, "| Transports | {} |", info.transports.join(", "));
    let _ = writeln!(
        s,
        "| mcp-stateless | {} |",
        info.anchor_id.as_deref().unwrap_or("—")
    );
    let _ = writeln!(s, "| Specification | <{}> |\n", info.spec_ref);
    let _ = writeln!(s, "## Why the spec changed\n");
    let _ = writeln!(s, "{}", info.rationale);
    s
}

/// The index page (`docs/rules/README.md`) with the mcp-stateless mapping.
pub fn index_page() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- generated from crates/mcpseal-probe/src/rules/; edit the rules, not this page -->"
    );
    let _ = writeln!(s, "# Probe rules\n");
    let _ = writeln!(
        s,
        "`mcpseal probe` checks a live server against MCP 2026-07-28. Rule ids are permanent: a retired rule leaves a hole, never a reused id. `SEAL0NN` corresponds to mcp-stateless's `MCP0NN` where one exists (same semantics, minus its known false negatives and positives; see each page).\n"
    );
    let _ = writeln!(
        s,
        "| id | mcp-stateless | severity | remediation | transports | title |\n|---|---|---|---|---|---|"
    );
    for rule in REGISTRY {
        let info = rule.info();
        let _ = writeln!(
            s,
            "| [{id}]({id}.md) | {} | {} | {} | {} | {} |",
            info.anchor_id.as_deref().unwrap_or("—"),
            info.severity.as_str(),
            info.remediation.as_str(),
            info.transports.join(", "),
            info.title.replace('|', "\\|"),
            id = info.id,
        );
    }
    s
}

/// Every page: `(file name, contents)`.
pub fn pages() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = REGISTRY
        .iter()
        .map(|r| (format!("{}.md", r.id), rule_page(&r.info())))
        .collect();
    out.push(("README.md".into(), index_page()));
    out
}
