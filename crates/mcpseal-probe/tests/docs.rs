//! `docs/rules/` is generated from the rule sources: this test fails when a committed page is
//! stale or missing (it never writes one: `cargo xtask generate rules` does). Also pins the
//! public rule ids: ids are permanent, never reused or renumbered.

use std::path::PathBuf;

fn docs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules")
}

#[test]
fn rule_pages_are_up_to_date() {
    let dir = docs_dir();
    let stale: Vec<String> = mcpseal_probe::docs::pages()
        .into_iter()
        .filter(|(name, contents)| {
            std::fs::read_to_string(dir.join(name)).ok().as_ref() != Some(contents)
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        stale.is_empty(),
        "stale or missing pages in docs/rules: {stale:?}\nhint: run `cargo xtask generate rules`"
    );
}

#[test]
fn rule_ids_are_permanent() {
    let registry = mcpseal_probe::rules::REGISTRY;
    // SEAL001–SEAL021 are mcp-stateless's MCP001–MCP021, forever.
    for n in 1..=21 {
        let id = format!("SEAL{n:03}");
        let rule = registry
            .iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("{id} is missing: ids are never retired silently"));
        assert_eq!(rule.anchor_id, Some(format!("MCP{n:03}").as_str()), "{id}");
    }
    let mut seen = std::collections::BTreeSet::new();
    for rule in registry {
        assert!(seen.insert(rule.id), "{} is registered twice", rule.id);
        assert!(
            rule.id.len() == 7
                && rule.id.starts_with("SEAL")
                && rule.id[4..].bytes().all(|b| b.is_ascii_digit()),
            "{} is not a SEAL0NN id",
            rule.id
        );
        let info = rule.info();
        assert!(!info.rationale.is_empty(), "{} has no rationale", rule.id);
        assert!(!info.transports.is_empty(), "{} applies nowhere", rule.id);
    }
}
