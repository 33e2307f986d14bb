//! SARIF 2.1.0, for code-scanning dashboards.
//!
//! # Mapping
//!
//! One log, one run:
//!
//! - `tool.driver`: `name` and `version` from the report's tool, `informationUri` the configured
//!   documentation base URL ([`SarifRun::docs_url`]; none by default, so a log never links to a
//!   page that may not exist), and **every** rule of the catalogue (not only those that fired), sorted by id:
//!   `id`, `name` (= id), `shortDescription` (title), `fullDescription` (the rule's rationale),
//!   `helpUri` (the spec link; a repository path such as `SPEC.md#9-lock-file` is joined to
//!   the documentation base URL, and left without `helpUri` when none is configured), `defaultConfiguration.level` (`error`/`warning`), `properties`
//!   `{remediation, anchorId?, transports, tags}`. A finding whose rule is not in the catalogue
//!   (a producer bug, or a report type without one) gets a descriptor made from the finding,
//!   appended after the catalogue, so every result has a valid `ruleIndex`.
//! - `results`: one per finding, in [`crate::Finding::report_order`]: `ruleId`, `ruleIndex`,
//!   `level`, `message.text` = `<title>. Observed: … Expected: … Fix: …`, one location, and
//!   `properties {remediation, observed, expected, fix, specRef, evidence}` (the evidence as in
//!   the JSON report, credentials already redacted, so a SARIF log alone can justify a result). A live server has no source
//!   file: the location is a logical location `{name: <target>, kind: "resource"}`, plus a
//!   `physicalLocation.artifactLocation.uri` = the target when the target is an `http(s)` URL.
//! - `partialFingerprints["mcpsealFinding/v1"]`: lowercase hex SHA-256 over rule id, target,
//!   title and observed text, each written as `<UTF-8 byte length>:<bytes>` (so no two field
//!   splits give the same input). Two findings of one rule differ in title or observed text and
//!   so never collide; should two findings be identical in all four, the second and later get
//!   `#<n>` (n = 2, 3, …) as a fifth field, so fingerprints are unique within a run.
//!   Fingerprints are stable across runs only as long as `observed` is: rules should keep
//!   volatile values (ports, session ids, timings) out of it.
//! - `invocations[0]`: `executionSuccessful` as the caller decides (for probes: false when the
//!   run was unreachable or incomplete), `startTimeUtc` when known, and
//!   `toolExecutionNotifications` saying why the run failed and which rules crashed.
//! - `run.properties`: whatever the report type adds (for probes: state, ready, transport,
//!   targetRevision, durationMs, summary).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};
use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location, LogicalLocation, Message, MultiformatMessageString,
    Notification, PhysicalLocation, PropertyBag, ReportingConfiguration, ReportingDescriptor,
    ReportingDescriptorReference, Result as SarifResult, ResultLevel, Run, Sarif, Tool,
    ToolComponent,
};
use sha2::{Digest, Sha256};

use super::sorted;
use crate::model::{Finding, ProbeReport, RuleInfo, RunState, Severity, ToolInfo};

/// The `$schema` written into every log.
pub const SARIF_SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The key of mcpseal's entry in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mcpsealFinding/v1";

/// Something the tool has to say about its own run (not about the target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionNotification {
    /// `error` for a failed run or a crashed rule; `warning` for lesser trouble.
    pub level: Severity,
    /// The rule concerned, if any (it becomes `associatedRule`).
    pub rule_id: Option<String>,
    /// What happened, for people.
    pub message: String,
}

/// Everything a SARIF log is made of, independent of the report type (probe, drift, …).
#[derive(Debug, Clone)]
pub struct SarifRun<'a> {
    /// The tool that made the report.
    pub tool: &'a ToolInfo,
    /// The server judged: a URL or a command line.
    pub target: &'a str,
    /// The whole rule catalogue; every rule is listed, whether it fired or not.
    pub rules: &'a [RuleInfo],
    /// The findings; each becomes a result.
    pub findings: &'a [Finding],
    /// False when the analysis could not finish (unreachable, incomplete): dashboards must not
    /// read zero results as a clean bill of health.
    pub execution_successful: bool,
    /// Why the run failed, crashed rules, and the like.
    pub notifications: Vec<ExecutionNotification>,
    /// RFC 3339 start time, if known.
    pub start_time_utc: Option<&'a str>,
    /// Extra `run.properties`.
    pub properties: Map<String, Value>,
    /// The base URL of mcpseal's documentation (`MCPSEAL_DOCS_URL`, e.g.
    /// `https://github.com/OWNER/mcpseal/blob/main`), as the Markdown renderer's
    /// [`crate::DriftOptions::docs_url`]: `informationUri`, and the base that repository paths in
    /// spec references are joined to. `None`: neither is linked.
    pub docs_url: Option<&'a str>,
}

/// `spec_ref` as a link: an absolute URL as it is; a path in mcpseal's repository joined to
/// `docs_url`; `None` when it is empty, or a path and no base is configured.
fn spec_link(spec_ref: &str, docs_url: Option<&str>) -> Option<String> {
    let spec = spec_ref.trim();
    if spec.is_empty() {
        None
    } else if is_url(spec) {
        Some(spec.to_owned())
    } else {
        docs_url.map(|base| {
            format!(
                "{}/{}",
                base.trim_end_matches('/'),
                spec.trim_start_matches('/')
            )
        })
    }
}

/// Renders `run` as a SARIF 2.1.0 log: pretty JSON plus a newline. See the module docs for the
/// mapping. Any report made of [`Finding`]s can use this.
pub fn render_findings_sarif(run: &SarifRun<'_>) -> String {
    let log = build(run);
    // Cannot fail: the serde-sarif types hold only strings, numbers and JSON values.
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_else(|e| {
        json!({ "error": format!("cannot serialise the SARIF log: {e}") }).to_string()
    });
    out.push('\n');
    out
}

/// The SARIF log of a probe report.
pub(crate) fn render_probe(report: &ProbeReport, docs_url: Option<&str>) -> String {
    let mut notifications = Vec::new();
    match report.state {
        RunState::Measured => {}
        RunState::Unreachable => notifications.push(ExecutionNotification {
            level: Severity::Error,
            rule_id: None,
            message: format!(
                "The target was unreachable: {}. No rule ran, so zero results does not mean the \
                 server is clean.",
                report
                    .unreachable
                    .as_deref()
                    .unwrap_or("no probe was answered")
            ),
        }),
        RunState::Incomplete => notifications.push(ExecutionNotification {
            level: Severity::Error,
            rule_id: None,
            message: match &report.incomplete {
                Some(inc) => format!(
                    "The run is incomplete: {} of {} probes went unanswered (first failure: {}). \
                     Results cover only what the answered probes proved.",
                    inc.failed, inc.probes, inc.reason
                ),
                None => "The run is incomplete: some probes went unanswered. Results cover only \
                         what the answered probes proved."
                    .to_owned(),
            },
        }),
    }
    let mut crashed: Vec<_> = report.crashed_rules.iter().collect();
    crashed.sort_by(|a, b| a.rule_id.cmp(&b.rule_id));
    for rule in crashed {
        notifications.push(ExecutionNotification {
            level: Severity::Error,
            rule_id: Some(rule.rule_id.clone()),
            message: format!(
                "Rule {} crashed and was skipped: {}",
                rule.rule_id, rule.error
            ),
        });
    }
    let mut properties = Map::new();
    properties.insert("state".into(), json!(report.state));
    properties.insert("ready".into(), json!(report.ready));
    properties.insert("transport".into(), json!(report.transport));
    properties.insert("targetRevision".into(), json!(report.target_revision));
    properties.insert("durationMs".into(), json!(report.duration_ms));
    properties.insert("summary".into(), json!(report.summary));
    render_findings_sarif(&SarifRun {
        tool: &report.tool,
        target: &report.target,
        rules: &report.rules,
        findings: &report.findings,
        execution_successful: report.state == RunState::Measured,
        notifications,
        start_time_utc: Some(report.started_at.as_str()).filter(|s| !s.is_empty()),
        properties,
        docs_url,
    })
}

fn level(severity: Severity) -> &'static str {
    severity.as_str()
}

fn result_level(severity: Severity) -> ResultLevel {
    match severity {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
    }
}

fn text(s: &str) -> MultiformatMessageString {
    MultiformatMessageString::builder().text(s).build()
}

fn bag(tags: Vec<String>, entries: Vec<(&str, Value)>) -> PropertyBag {
    let additional: BTreeMap<String, Value> = entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    if tags.is_empty() {
        PropertyBag::builder()
            .additional_properties(additional)
            .build()
    } else {
        PropertyBag::builder()
            .tags(tags)
            .additional_properties(additional)
            .build()
    }
}

fn descriptor(rule: &RuleInfo, docs_url: Option<&str>) -> ReportingDescriptor {
    let mut props = vec![
        ("remediation", json!(rule.remediation)),
        ("transports", json!(rule.transports)),
    ];
    if let Some(anchor) = &rule.anchor_id {
        props.push(("anchorId", json!(anchor)));
    }
    let tags = vec!["mcp".to_owned(), rule.remediation.as_str().to_owned()];
    let full = if rule.rationale.trim().is_empty() {
        &rule.title
    } else {
        &rule.rationale
    };
    let config = ReportingConfiguration::builder()
        .level(json!(level(rule.severity)))
        .build();
    let base = ReportingDescriptor::builder()
        .id(rule.id.clone())
        .name(rule.id.clone())
        .short_description(text(&rule.title))
        .full_description(text(full))
        .default_configuration(config)
        .properties(bag(tags, props));
    let mut d = base.build();
    d.help_uri = spec_link(&rule.spec_ref, docs_url);
    d
}

/// A catalogue entry for a finding whose rule the catalogue does not list.
fn descriptor_from_finding(f: &Finding, docs_url: Option<&str>) -> ReportingDescriptor {
    descriptor(
        &RuleInfo {
            id: f.rule_id.clone(),
            title: f.title.clone(),
            severity: f.severity,
            remediation: f.remediation,
            spec_ref: f.spec_ref.clone(),
            transports: Vec::new(),
            anchor_id: None,
            rationale: String::new(),
        },
        docs_url,
    )
}

/// `<title>. Observed: … Expected: … Fix: …`, without doubled full stops.
fn message(f: &Finding) -> String {
    let mut out = String::new();
    for (label, value) in [
        ("", &f.title),
        ("Observed: ", &f.observed),
        ("Expected: ", &f.expected),
        ("Fix: ", &f.fix),
    ] {
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(label);
        out.push_str(value);
        if !value.ends_with(['.', '!', '?']) {
            out.push('.');
        }
    }
    out
}

/// Lowercase hex SHA-256 of `fields`, each as `<byte length>:<bytes>`.
pub(crate) fn fingerprint(fields: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for field in fields {
        hasher.update(field.len().to_string().as_bytes());
        hasher.update(b":");
        hasher.update(field.as_bytes());
    }
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 0x0f)]));
    }
    hex
}

fn is_url(target: &str) -> bool {
    let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://"))
        && !target.chars().any(char::is_whitespace)
}

fn location(target: &str) -> Location {
    let logical = LogicalLocation::builder()
        .name(target)
        .kind("resource")
        .build();
    let mut loc = Location::builder().logical_locations(vec![logical]).build();
    if is_url(target) {
        let artifact = ArtifactLocation::builder().uri(target).build();
        loc.physical_location = Some(
            PhysicalLocation::builder()
                .artifact_location(artifact)
                .build(),
        );
    }
    loc
}

fn build(run: &SarifRun<'_>) -> Sarif {
    // The catalogue, sorted by id, first occurrence of an id wins.
    let mut catalogue: Vec<&RuleInfo> = run.rules.iter().collect();
    catalogue.sort_by(|a, b| a.id.cmp(&b.id));
    catalogue.dedup_by(|a, b| a.id == b.id);
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut descriptors = Vec::new();
    for rule in catalogue {
        index.insert(&rule.id, descriptors.len());
        descriptors.push(descriptor(rule, run.docs_url));
    }

    let findings = sorted(run.findings);
    for f in &findings {
        if !index.contains_key(f.rule_id.as_str()) {
            index.insert(&f.rule_id, descriptors.len());
            descriptors.push(descriptor_from_finding(f, run.docs_url));
        }
    }

    let mut seen: HashMap<String, usize> = HashMap::new();
    let results: Vec<SarifResult> = findings
        .iter()
        .map(|f| {
            let base = fingerprint(&[&f.rule_id, run.target, &f.title, &f.observed]);
            let count = seen.entry(base.clone()).or_insert(0);
            *count += 1;
            let print = if *count == 1 {
                base
            } else {
                let n = format!("#{count}");
                fingerprint(&[&f.rule_id, run.target, &f.title, &f.observed, &n])
            };
            let props = vec![
                ("remediation", json!(f.remediation)),
                ("observed", json!(f.observed)),
                ("expected", json!(f.expected)),
                ("fix", json!(f.fix)),
                // The link when there is one, else the reference as written (a repository path).
                (
                    "specRef",
                    json!(
                        spec_link(&f.spec_ref, run.docs_url).unwrap_or_else(|| f.spec_ref.clone())
                    ),
                ),
                ("evidence", json!(f.evidence)),
            ];
            let rule_index = index.get(f.rule_id.as_str()).copied().unwrap_or_default();
            SarifResult::builder()
                .rule_id(f.rule_id.clone())
                .rule_index(i64::try_from(rule_index).unwrap_or(i64::MAX))
                .level(result_level(f.severity))
                .message(Message::builder().text(message(f)).build())
                .locations(vec![location(run.target)])
                .partial_fingerprints(BTreeMap::from([(FINGERPRINT_KEY.to_owned(), print)]))
                .properties(bag(Vec::new(), props))
                .build()
        })
        .collect();

    let notifications: Vec<Notification> = run
        .notifications
        .iter()
        .map(|n| {
            let mut note = Notification::builder()
                .level(json!(level(n.level)))
                .message(Message::builder().text(n.message.as_str()).build())
                .build();
            if let Some(id) = &n.rule_id {
                let mut reference = ReportingDescriptorReference::builder()
                    .id(id.clone())
                    .build();
                reference.index = index.get(id.as_str()).and_then(|i| i64::try_from(*i).ok());
                note.associated_rule = Some(reference);
            }
            note
        })
        .collect();

    let mut invocation = Invocation::builder()
        .execution_successful(run.execution_successful)
        .build();
    if !notifications.is_empty() {
        invocation.tool_execution_notifications = Some(notifications);
    }
    invocation.start_time_utc = run.start_time_utc.map(str::to_owned);

    let mut driver = ToolComponent::builder()
        .name(run.tool.name.clone())
        .version(run.tool.version.clone())
        .rules(descriptors)
        .build();
    driver.information_uri = run.docs_url.map(str::to_owned);
    let mut sarif_run = Run::builder()
        .tool(Tool::from(driver))
        .results(results)
        .invocations(vec![invocation])
        .build();
    if !run.properties.is_empty() {
        sarif_run.properties = Some(bag(
            Vec::new(),
            run.properties
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect(),
        ));
    }
    Sarif::builder()
        .schema(SARIF_SCHEMA_URI)
        .version(json!("2.1.0"))
        .runs(vec![sarif_run])
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_sha256_of_length_prefixed_fields() {
        // sha256("3:abc") computed independently (Python hashlib).
        assert_eq!(
            fingerprint(&["abc"]),
            "aab5f9ae99b2e38fb462025c8f72f570c9c811705d2a4277dc855d7fa293fe97"
        );
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }

    #[test]
    fn message_avoids_double_full_stops() {
        let f = Finding {
            rule_id: "R".into(),
            severity: Severity::Error,
            remediation: crate::Remediation::Sdk,
            title: "Bad thing.".into(),
            observed: "saw x".into(),
            expected: "want y".into(),
            fix: "".into(),
            spec_ref: "".into(),
            evidence: vec![],
        };
        assert_eq!(message(&f), "Bad thing. Observed: saw x. Expected: want y.");
    }

    #[test]
    fn only_http_urls_become_artifacts() {
        assert!(is_url("http://127.0.0.1:3000/mcp"));
        assert!(is_url("HTTPS://example.com/mcp"));
        assert!(!is_url("npx -y server"));
        assert!(!is_url("http"));
    }
}
