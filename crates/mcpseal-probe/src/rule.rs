//! What a rule is: permanent metadata plus one async check over a [`ProbeContext`].
//!
//! Rules are declared with the [`rule!`](crate::rule!) macro so that the doc comment written above
//! a rule is *also* its rationale in `--list-rules`, the JSON report and `docs/rules/`: one text,
//! never two that drift.

use std::future::Future;
use std::pin::Pin;

use mcpseal_client::{Exchange, TransportKind};
use mcpseal_report::{Finding, Remediation, RuleInfo, Severity};
use serde_json::Value;
use thiserror::Error;

use crate::context::ProbeContext;

/// A rule that could not finish: a bug in the rule, never a verdict about the server.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct RuleError(pub String);

/// What a rule's check returns.
pub type RuleResult = Result<Vec<Finding>, RuleError>;

/// The future a rule's check returns.
pub type RuleFuture<'a> = Pin<Box<dyn Future<Output = RuleResult> + Send + 'a>>;

/// One conformance rule.
#[derive(Debug)]
pub struct Rule {
    /// Permanent id (`SEAL001`…): never reused, never renumbered.
    pub id: &'static str,
    /// The mcp-stateless rule it corresponds to (`MCP0NN`), if any.
    pub anchor_id: Option<&'static str>,
    /// One-line title.
    pub title: &'static str,
    /// Default severity (a finding may be milder).
    pub severity: Severity,
    /// Who fixes it: would an SDK upgrade alone make it disappear?
    pub remediation: Remediation,
    /// Path of the spec page under the revision's base URL.
    pub spec_path: &'static str,
    /// Transports it applies to.
    pub transports: &'static [TransportKind],
    /// Why the spec changed (the rule's doc comment).
    pub rationale: &'static str,
    /// The check.
    pub run: for<'a, 'c> fn(&'a ProbeContext<'c>) -> RuleFuture<'a>,
}

impl Rule {
    /// The full spec link.
    pub fn spec_ref(&self) -> String {
        crate::protocol::spec(self.spec_path)
    }

    /// Whether the rule applies to a transport.
    pub fn applies_to(&self, transport: TransportKind) -> bool {
        self.transports.contains(&transport)
    }

    /// The static description for reports and docs.
    pub fn info(&self) -> RuleInfo {
        RuleInfo {
            id: self.id.to_owned(),
            title: self.title.to_owned(),
            severity: self.severity,
            remediation: self.remediation,
            spec_ref: self.spec_ref(),
            transports: self
                .transports
                .iter()
                .map(|t| t.as_str().to_owned())
                .collect(),
            anchor_id: self.anchor_id.map(str::to_owned),
            rationale: rationale_text(self.rationale),
        }
    }

    /// A finding of this rule at its default severity and title.
    pub fn finding(&self, observed: String, expected: &str, fix: &str) -> Finding {
        Finding {
            rule_id: self.id.to_owned(),
            severity: self.severity,
            remediation: self.remediation,
            title: self.title.to_owned(),
            observed,
            expected: expected.to_owned(),
            fix: fix.to_owned(),
            spec_ref: self.spec_ref(),
            evidence: Vec::new(),
        }
    }
}

/// Builder-style additions to a [`Finding`].
pub trait FindingExt {
    /// Sets the severity.
    fn severity(self, severity: Severity) -> Self;
    /// Sets the title.
    fn titled(self, title: &str) -> Self;
    /// Adds exchanges as evidence, each whole unless its JSON passes
    /// [`MAX_QUOTED_BYTES`](crate::quote::MAX_QUOTED_BYTES) (then cut, with a `truncated`
    /// member saying what was left out).
    fn evidence<'e>(self, exchanges: impl IntoIterator<Item = &'e Exchange>) -> Self;
    /// Adds an already serialised piece of evidence (a raw HTTP preview, a metadata document).
    fn evidence_value(self, value: Value) -> Self;
}

impl FindingExt for Finding {
    fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    fn titled(mut self, title: &str) -> Self {
        title.clone_into(&mut self.title);
        self
    }

    fn evidence<'e>(mut self, exchanges: impl IntoIterator<Item = &'e Exchange>) -> Self {
        // A huge exchange is quoted cut, saying so (`crate::quote`).
        self.evidence
            .extend(exchanges.into_iter().filter_map(crate::quote::quote));
        self
    }

    fn evidence_value(mut self, value: Value) -> Self {
        self.evidence.push(value);
        self
    }
}

/// A doc comment's text: the one leading space rustdoc keeps on each line removed.
fn rationale_text(raw: &str) -> String {
    raw.lines()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// Declares a rule: its doc comment becomes its rationale, and `check` (an
/// `async fn(&ProbeContext) -> RuleResult` in the same file) its body.
#[macro_export]
#[doc(hidden)]
macro_rules! rule {
    (
        $(#[doc = $doc:literal])*
        pub static $name:ident = {
            id: $id:literal,
            anchor: $anchor:expr,
            title: $title:literal,
            severity: $sev:ident,
            remediation: $rem:ident,
            spec: $spec:literal,
            transports: [$($t:ident),*],
            check: $check:ident $(,)?
        };
    ) => {
        $(#[doc = $doc])*
        pub static $name: $crate::rule::Rule = $crate::rule::Rule {
            id: $id,
            anchor_id: $anchor,
            title: $title,
            severity: ::mcpseal_report::Severity::$sev,
            remediation: ::mcpseal_report::Remediation::$rem,
            spec_path: $spec,
            transports: &[$(::mcpseal_client::TransportKind::$t),*],
            rationale: concat!($($doc, "\n"),*),
            run: run_boxed,
        };

        fn run_boxed<'a, 'c>(
            ctx: &'a $crate::context::ProbeContext<'c>,
        ) -> $crate::rule::RuleFuture<'a> {
            Box::pin($check(ctx))
        }
    };
}
