//! Surface changes as findings, for the SARIF and Markdown forms of `lock`, `check`, `verify`
//! and `diff`.
//!
//! Each change becomes a finding with rule id `drift/<class>` (`drift/breaking`,
//! `drift/security`, `drift/additive`, `drift/cosmetic`, `drift/unjudged`), severity `error` for
//! breaking and `warning` otherwise, title = the explanation, observed = item and path, and
//! evidence = `{path, before, after}`. Rule ids are public (SARIF, dashboards): they never
//! change.

use mcpseal_surface::diff::{Change, ChangeClass};
use serde_json::json;

use crate::model::{Finding, Remediation, RuleInfo, Severity};

/// The rule id of a class: `drift/<class>`.
pub fn rule_id(class: ChangeClass) -> String {
    format!("drift/{}", class.as_str())
}

/// Where the classes are specified: a path in mcpseal's repository, which renderers link only
/// against a configured documentation base URL (see `SarifRun::docs_url`).
const SPEC_REF: &str = "SPEC.md#9-lock-file";

/// The drift rule catalogue (for SARIF drivers): one rule per class.
pub fn drift_rules() -> Vec<RuleInfo> {
    ChangeClass::ALL
        .iter()
        .map(|&class| RuleInfo {
            id: rule_id(class),
            title: match class {
                ChangeClass::Breaking => "A change that can break an existing client",
                ChangeClass::Security => {
                    "A change a reviewer must see (more power, or new text for the model)"
                }
                ChangeClass::Additive => "Compatible growth",
                ChangeClass::Cosmetic => "Presentation only",
                ChangeClass::Unjudged => "A change mcpseal does not judge",
            }
            .into(),
            severity: severity(class),
            remediation: Remediation::Application,
            spec_ref: SPEC_REF.into(),
            transports: vec!["stdio".into(), "http".into()],
            anchor_id: None,
            rationale: format!(
                "Surface changes of class `{}` need at least a {} version bump.",
                class.as_str(),
                class.bump().as_str()
            ),
        })
        .collect()
}

fn severity(class: ChangeClass) -> Severity {
    if class == ChangeClass::Breaking {
        Severity::Error
    } else {
        Severity::Warning
    }
}

/// Each change as a finding (see the module docs).
pub fn drift_findings(changes: &[Change]) -> Vec<Finding> {
    changes
        .iter()
        .map(|c| Finding {
            rule_id: rule_id(c.class),
            severity: severity(c.class),
            remediation: Remediation::Application,
            title: c.explanation.clone(),
            observed: match &c.item {
                Some(item) => format!("{item} at `{}`", c.path),
                None => format!("`{}`", c.path),
            },
            expected: format!(
                "a surface change of class `{}` ships with at least a {} version bump",
                c.class.as_str(),
                c.class.bump().as_str()
            ),
            fix: "bump the server's version as required, then run `mcpseal lock`".into(),
            spec_ref: SPEC_REF.into(),
            evidence: vec![json!({"path": c.path, "before": c.before, "after": c.after})],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpseal_surface::diff;
    use serde_json::Value;

    /// Rule ids are public (SARIF, dashboards): they never change.
    #[test]
    fn drift_rule_ids_are_pinned() {
        let ids: Vec<String> = drift_rules().into_iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                "drift/breaking",
                "drift/security",
                "drift/additive",
                "drift/cosmetic",
                "drift/unjudged"
            ]
        );
    }

    #[test]
    fn changes_map_to_findings() {
        let before = json!({"form": "mcpseal/1", "era": "2026-07-28", "server": null,
            "resources": null, "resourceTemplates": null, "prompts": null,
            "tools": [{"name": "a", "inputSchema": {"type": "object"}}]});
        let mut after = before.clone();
        after["tools"] = json!([]);
        let d = diff(&before, &after);
        let f = drift_findings(&d.changes);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule_id, "drift/breaking");
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(f[0].evidence[0]["path"], "/tools/name=a");
        assert_eq!(f[0].evidence[0]["after"], Value::Null);
        let doc = serde_json::to_value(crate::document::DiffDocument::of(&d)).expect("serialises");
        assert_eq!(doc["requiredBump"], "major");
        assert!(
            doc["changes"][0].get("after").is_none(),
            "absent side left out"
        );
    }
}
