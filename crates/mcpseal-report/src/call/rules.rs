//! The verdicts `mcpseal call` can give, each with a permanent id (`CALL001`…): the catalogue
//! SARIF lists and every call finding is made from.

use crate::model::{Finding, Remediation, RuleInfo, Severity};

/// Where the result rules are specified (2026-07-28).
const TOOLS: &str = "https://modelcontextprotocol.io/specification/2026-07-28/server/tools";
const RESULT_TYPE: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic";
const MRTR: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr";
const STRUCTURED: &str =
    "https://modelcontextprotocol.io/specification/2026-07-28/server/tools#structured-content";
const OUTPUT_SCHEMA: &str =
    "https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema";
const ERRORS: &str =
    "https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling";
/// A path in mcpseal's repository, linked only against a configured documentation base URL.
const CONTROLS: &str = "docs/call.md#negative-controls";

/// One verdict `call` can give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleDef {
    /// Permanent id.
    pub id: &'static str,
    /// One line.
    pub title: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// The spec text behind it.
    pub spec_ref: &'static str,
    /// Why a client cares.
    pub rationale: &'static str,
}

/// Every verdict, by id.
pub const RULES: &[RuleDef] = &[
    RuleDef {
        id: "CALL001",
        title: "Result does not match the revision's schema",
        severity: Severity::Error,
        spec_ref: TOOLS,
        rationale: "A client parses a result by the revision's schema; one that breaks it is rejected before anything reads it.",
    },
    RuleDef {
        id: "CALL002",
        title: "`resultType` is missing or unknown",
        severity: Severity::Error,
        spec_ref: RESULT_TYPE,
        rationale: "2026-07-28 results say what they are; a client that negotiated no extension treats an unknown resultType as an invalid result.",
    },
    RuleDef {
        id: "CALL003",
        title: "Invalid `content`",
        severity: Severity::Error,
        spec_ref: TOOLS,
        rationale: "`content` is REQUIRED and holds only the revision's content blocks; `isError` is a boolean.",
    },
    RuleDef {
        id: "CALL004",
        title: "The tool reported an error",
        severity: Severity::Error,
        spec_ref: ERRORS,
        rationale: "An `isError` result means the call did not do what was asked (pass `--expect-error` when that is the point).",
    },
    RuleDef {
        id: "CALL005",
        title: "The `outputSchema` cannot be used",
        severity: Severity::Error,
        spec_ref: OUTPUT_SCHEMA,
        rationale: "Clients validate structured results against the declared schema, offline: one that is invalid or needs a remote `$ref` fetched makes strict clients refuse the call.",
    },
    RuleDef {
        id: "CALL006",
        title: "`structuredContent` is missing",
        severity: Severity::Error,
        spec_ref: STRUCTURED,
        rationale: "A tool that declares an `outputSchema` MUST return `structuredContent` conforming to it.",
    },
    RuleDef {
        id: "CALL007",
        title: "`structuredContent` breaks the `outputSchema`",
        severity: Severity::Error,
        spec_ref: STRUCTURED,
        rationale: "A tool that declares an `outputSchema` MUST return `structuredContent` conforming to it; strict clients reject the result otherwise.",
    },
    RuleDef {
        id: "CALL008",
        title: "No text block mirrors `structuredContent`",
        severity: Severity::Warning,
        spec_ref: STRUCTURED,
        rationale: "For clients that read only `content`, a tool that returns structured content SHOULD also return it serialised in a text block.",
    },
    RuleDef {
        id: "CALL009",
        title: "Malformed `input_required` result",
        severity: Severity::Error,
        spec_ref: MRTR,
        rationale: "An `input_required` result carries `inputRequests` (elicitation, sampling or roots requests) and/or a string `requestState`; a client cannot answer anything else.",
    },
    RuleDef {
        id: "CALL010",
        title: "The server refused the call",
        severity: Severity::Error,
        spec_ref: ERRORS,
        rationale: "A JSON-RPC error means the call was not made (unknown tool, invalid arguments); pass `--expect-error` when that is the point.",
    },
    RuleDef {
        id: "CALL011",
        title: "An error was expected, the call succeeded",
        severity: Severity::Error,
        spec_ref: ERRORS,
        rationale: "`--expect-error` asks for an `isError` result or a JSON-RPC error (e.g. to prove the server validates its own arguments).",
    },
    RuleDef {
        id: "CALL012",
        title: "Negative control passed: the schema accepts a tampered result",
        severity: Severity::Error,
        spec_ref: CONTROLS,
        rationale: "A tampered copy of the real result that the same validator accepts proves the schema does not constrain what it seems to, so a green check there proves nothing.",
    },
    RuleDef {
        id: "CALL013",
        title: "The `inputSchema` cannot be used: arguments sent unchecked",
        severity: Severity::Warning,
        spec_ref: TOOLS,
        rationale: "The arguments are validated against the tool's `inputSchema` before sending; a schema that cannot be compiled offline cannot check them.",
    },
    RuleDef {
        id: "CALL014",
        title: "The listed definition breaks the revision's schema",
        severity: Severity::Error,
        spec_ref: TOOLS,
        rationale: "Strict clients parse `tools/list` and `prompts/list` by the revision's schema and refuse a page with a malformed definition (in 2025-11-25 an `outputSchema` must have root `type: object`), so the tool cannot be called through them at all.",
    },
];

/// The rule `id`.
///
/// # Panics
/// When `id` is not in [`RULES`] (a programming error in the caller, caught by its tests).
pub fn rule(id: &str) -> &'static RuleDef {
    RULES
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no call rule `{id}`"))
}

/// The catalogue as [`RuleInfo`]s (for SARIF drivers and `--list-rules`).
pub fn rules() -> Vec<RuleInfo> {
    RULES
        .iter()
        .map(|r| RuleInfo {
            id: r.id.to_owned(),
            title: r.title.to_owned(),
            severity: r.severity,
            remediation: Remediation::Application,
            spec_ref: r.spec_ref.to_owned(),
            transports: vec!["stdio".into(), "http".into()],
            anchor_id: None,
            rationale: r.rationale.to_owned(),
        })
        .collect()
}

impl RuleDef {
    /// A finding of this rule.
    pub fn finding(
        &self,
        observed: impl Into<String>,
        expected: impl Into<String>,
        fix: impl Into<String>,
        evidence: Vec<serde_json::Value>,
    ) -> Finding {
        Finding {
            rule_id: self.id.to_owned(),
            severity: self.severity,
            remediation: Remediation::Application,
            title: self.title.to_owned(),
            observed: observed.into(),
            expected: expected.into(),
            fix: fix.into(),
            spec_ref: self.spec_ref.to_owned(),
            evidence,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_in_order() {
        let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted);
        // The ids are permanent: this list only grows.
        assert_eq!(
            ids,
            [
                "CALL001", "CALL002", "CALL003", "CALL004", "CALL005", "CALL006", "CALL007",
                "CALL008", "CALL009", "CALL010", "CALL011", "CALL012", "CALL013", "CALL014"
            ]
        );
    }
}
