//! The rule catalogue (`mcpseal probe --list-rules`) as text, JSON or Markdown.

use std::fmt::Write as _;

use crate::format::Format;
use crate::model::RuleInfo;

/// `rules` in `format`: an aligned table (text), the [`RuleList`](crate::RuleList) document (JSON), or a Markdown table; `None`
/// for SARIF, which has no form for a bare catalogue.
pub fn render_rule_list(rules: &[RuleInfo], format: Format) -> Option<String> {
    match format {
        Format::Json => {
            let list = crate::document::RuleList::of(rules);
            let mut s = serde_json::to_string_pretty(&list).unwrap_or_else(|_| "{}".to_owned());
            s.push('\n');
            Some(s)
        }
        Format::Markdown => {
            let mut s = String::from(
                "| id | mcp-stateless | severity | remediation | transports | title |\n|---|---|---|---|---|---|\n",
            );
            for r in rules {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    r.id,
                    r.anchor_id.as_deref().unwrap_or("—"),
                    r.severity.as_str(),
                    r.remediation.as_str(),
                    r.transports.join(", "),
                    r.title.replace('|', "\\|")
                );
            }
            Some(s)
        }
        Format::Sarif => None,
        Format::Text => {
            let mut s = String::new();
            for r in rules {
                let _ = writeln!(
                    s,
                    "{:<8} {:<8} {:<12} {:<11} {:<7} {}",
                    r.id,
                    r.severity.as_str(),
                    r.remediation.as_str(),
                    r.transports.join(","),
                    r.anchor_id.as_deref().unwrap_or("-"),
                    r.title
                );
            }
            Some(s)
        }
    }
}
