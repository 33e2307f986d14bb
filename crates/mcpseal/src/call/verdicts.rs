//! From the judgement to the report: each problem a finding with a permanent id and the
//! exchanges behind it, and the negative controls as records.

use mcpseal_client::{Era, Exchange};
use mcpseal_report::Finding;
use mcpseal_report::call::{
    ControlOutcome, NegativeControls, Rejection, SubjectKind, TamperingRecord, ViolationRecord,
    rule,
};
use mcpseal_schema::judge::{self, Check, Level, Problem};
use mcpseal_schema::{CompileError, Violation, tamper};
use serde_json::Value;

use super::Call;

/// The verdicts on a call's final round.
pub(super) struct Judged {
    pub findings: Vec<Finding>,
    pub controls: Option<NegativeControls>,
}

fn evidence(exchanges: &[&Exchange]) -> Vec<Value> {
    exchanges
        .iter()
        .filter_map(|e| serde_json::to_value(e).ok())
        .collect()
}

/// The rule of a problem (`None` for the ones an `--expect-error` call expects).
fn rule_of(check: Check) -> &'static str {
    match check {
        Check::NotAnObject | Check::Shape => "CALL001",
        Check::ResultType => "CALL002",
        Check::Content | Check::ContentBlock | Check::IsError => "CALL003",
        Check::ToolError => "CALL004",
        Check::OutputSchema => "CALL005",
        Check::MissingStructured => "CALL006",
        Check::Structured => "CALL007",
        Check::TextMirror => "CALL008",
        Check::InputRequired => "CALL009",
        Check::Definition => "CALL014",
    }
}

fn expected(check: Check) -> &'static str {
    match check {
        Check::NotAnObject | Check::Shape => {
            "The result matches the revision's official schema for this method."
        }
        Check::ResultType => {
            "Every 2026-07-28 result has `resultType`: `complete`, or `input_required` for a request that needs input first."
        }
        Check::Content | Check::ContentBlock | Check::IsError => {
            "A tool result has `content`, an array of text, image, audio, resource_link or resource blocks, and `isError` (if any) is a boolean."
        }
        Check::ToolError => "The call succeeds (`isError` absent or false).",
        Check::OutputSchema => {
            "The `outputSchema` compiles offline in the draft it declares (local `$ref`s only)."
        }
        Check::MissingStructured | Check::Structured => {
            "A tool that declares an `outputSchema` returns `structuredContent` that conforms to it."
        }
        Check::TextMirror => {
            "A text block carries `structuredContent` serialised as JSON, for clients that read only `content`."
        }
        Check::InputRequired => {
            "An `input_required` result has `inputRequests` (elicitation, sampling or roots requests) and/or a string `requestState`."
        }
        Check::Definition => {
            "The listed definition matches the revision's official schema (in 2025-11-25 an `outputSchema` has root `type: object`)."
        }
    }
}

fn fix(check: Check) -> &'static str {
    match check {
        Check::ToolError => {
            "Make the call succeed, or pass `--expect-error` when the failure is the point."
        }
        Check::OutputSchema => {
            "Inline the schema's definitions (no remote `$ref`), and check it against its draft's meta-schema."
        }
        Check::MissingStructured | Check::Structured => {
            "Return `structuredContent` matching the declared `outputSchema` (or change the schema to what the tool returns)."
        }
        Check::TextMirror => {
            "Add a text block with `JSON.stringify(structuredContent)` (the SDKs' tool helpers do)."
        }
        _ => "Build results with the SDK's result types, or fix the fields named above.",
    }
}

fn violations(v: &[Violation]) -> Vec<ViolationRecord> {
    v.iter()
        .map(|v| ViolationRecord {
            instance_path: v.instance_path.clone(),
            schema_path: v.schema_path.clone(),
            keyword: v.keyword.clone(),
            message: v.message.clone(),
        })
        .collect()
}

/// The judgement of the call's last exchange.
pub(super) fn judge(
    era: Era,
    call: &Call,
    definition: Option<&Value>,
    last: Option<&Exchange>,
    listing: &[Exchange],
) -> Judged {
    let mut findings = Vec::new();
    let Some(ex) = last else {
        return Judged {
            findings,
            controls: None,
        };
    };
    let listed: Vec<&Exchange> = listing
        .iter()
        .filter(|l| listed_in(l, &call.name))
        .collect();
    if let Some(error) = ex.error() {
        let code = error.get("code").map(Value::to_string).unwrap_or_default();
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        if !call.expect_error {
            findings.push(rule("CALL010").finding(
                format!("`{}` of `{}` was answered with JSON-RPC error {code}: {message}", ex.method(), call.name),
                "A result (a tool's own failure is an `isError` result, not a JSON-RPC error).",
                "Check the name and the arguments; pass `--expect-error` when the refusal is the point.",
                evidence(&[ex]),
            ));
        }
        return Judged {
            findings,
            controls: controls_skipped(
                call,
                definition,
                "the call was refused, so there is no result to tamper with",
            ),
        };
    }
    let Some(result) = ex.result() else {
        return Judged {
            findings,
            controls: None,
        };
    };
    let problems = match call.kind {
        SubjectKind::Tool => judge::tool_result(era, result, definition),
        SubjectKind::Prompt => judge::prompt_result(era, result),
        SubjectKind::Resource => judge::resource_result(era, result),
    };
    let is_error = problems.iter().any(|p| p.check == Check::ToolError);
    for p in &problems {
        if p.check == Check::ToolError && call.expect_error {
            continue;
        }
        let schema_evidence = matches!(
            p.check,
            Check::OutputSchema | Check::MissingStructured | Check::Structured
        );
        let mut ev = vec![ex];
        if schema_evidence {
            ev.extend(listed.iter().copied());
        }
        let mut observed = format!("`{}` of `{}`: {}", ex.method(), call.name, p.message);
        if p.level == Level::Error && p.violations.len() > 3 {
            observed.push_str(&format!(" (and {} more)", p.violations.len() - 3));
        }
        let mut f = rule(rule_of(p.check)).finding(
            observed,
            expected(p.check),
            fix(p.check),
            evidence(&ev),
        );
        if p.level == Level::Warning {
            f.severity = mcpseal_report::Severity::Warning;
        }
        findings.push(f);
    }
    if call.expect_error && !is_error {
        findings.push(rule("CALL011").finding(
            format!(
                "`{}` of `{}` succeeded (no `isError`, no JSON-RPC error)",
                ex.method(),
                call.name
            ),
            "The call fails, as `--expect-error` asks.",
            "Check the arguments meant to be refused, or drop `--expect-error`.",
            evidence(&[ex]),
        ));
    }
    let controls = if !call.negative_controls || call.kind != SubjectKind::Tool {
        None
    } else if is_error {
        controls_skipped(
            call,
            definition,
            "the tool reported an error (`isError`), which is exempt from its contract, so there is nothing to tamper with",
        )
    } else if !judge::accepted(&problems) {
        controls_skipped(
            call,
            definition,
            "the real result was itself rejected, so a rejection of a tampered copy would prove nothing",
        )
    } else {
        let c = negative_controls(era, result, definition);
        if let Some(c) = &c {
            for t in c
                .tamperings
                .iter()
                .filter(|t| t.outcome == ControlOutcome::Trap)
            {
                findings.push(trap_finding(call, t, ex, &listed));
            }
        }
        c
    };
    Judged { findings, controls }
}

/// Whether the `tools/list` or `prompts/list` page `ex` lists `name`.
fn listed_in(ex: &Exchange, name: &str) -> bool {
    let Some(result) = ex.result() else {
        return false;
    };
    ["tools", "prompts"].iter().any(|k| {
        result
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|items| {
                items
                    .iter()
                    .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
            })
    })
}

fn controls_skipped(
    call: &Call,
    definition: Option<&Value>,
    why: &str,
) -> Option<NegativeControls> {
    if !call.negative_controls || call.kind != SubjectKind::Tool {
        return None;
    }
    Some(NegativeControls {
        contract: definition
            .and_then(|d| d.get("outputSchema"))
            .cloned()
            .unwrap_or(Value::Null),
        skipped: Some(why.to_owned()),
        tamperings: Vec::new(),
    })
}

fn negative_controls(era: Era, result: &Value, tool: Option<&Value>) -> Option<NegativeControls> {
    let schema = tool?.get("outputSchema")?;
    let mut records = Vec::new();
    for t in tamper::tamperings(schema, result) {
        let Some(c) = tamper::control(era, result, tool, &t) else {
            continue;
        };
        let outcome = if c.is_trap() {
            ControlOutcome::Trap
        } else {
            ControlOutcome::Rejected
        };
        records.push(TamperingRecord {
            id: if t.field.is_empty() {
                t.kind.as_str().to_owned()
            } else {
                format!("{}:{}", t.kind.as_str(), t.field)
            },
            kind: t.kind.as_str().to_owned(),
            field: t.field.clone(),
            schema_path: t.schema_path.clone(),
            description: t.description.clone(),
            note: t.note.clone(),
            patch: t.patch.iter().map(tamper::PatchOp::to_json).collect(),
            outcome,
            rejected_by: c.rejected_by.iter().map(rejection).collect(),
        });
    }
    Some(NegativeControls {
        contract: schema.clone(),
        skipped: None,
        tamperings: records,
    })
}

fn rejection(p: &Problem) -> Rejection {
    Rejection {
        check: p.check.as_str().to_owned(),
        message: p.message.clone(),
        violations: violations(&p.violations),
    }
}

fn trap_finding(call: &Call, t: &TamperingRecord, ex: &Exchange, listed: &[&Exchange]) -> Finding {
    let at = if t.schema_path.is_empty() {
        "/"
    } else {
        &t.schema_path
    };
    let mut ev = vec![ex];
    ev.extend(listed.iter().copied());
    rule("CALL012").finding(
        format!(
            "`{}`: {} and the result still passed the `outputSchema` (field `{}`, schema path `{at}`){}",
            call.name,
            t.description,
            if t.field.is_empty() { "/" } else { &t.field },
            t.note.as_deref().map(|n| format!("; {n}")).unwrap_or_default()
        ),
        "Every tampered copy of the result is rejected by the validator that accepted the real one.",
        "Tighten the schema where it is named (a branch that admits anything, a keyword the declared draft ignores), so it constrains what it seems to.",
        evidence(&ev),
    )
}

/// The findings on the listed definition of the tool or prompt named `name`.
pub(super) fn definition(
    era: Era,
    kind: SubjectKind,
    name: &str,
    item: &Value,
    listing: &[Exchange],
) -> Vec<Finding> {
    let def = match kind {
        SubjectKind::Tool => "Tool",
        SubjectKind::Prompt => "Prompt",
        SubjectKind::Resource => return Vec::new(),
    };
    let listed: Vec<&Exchange> = listing.iter().filter(|l| listed_in(l, name)).collect();
    judge::listed(era, def, item)
        .iter()
        .map(|p| {
            rule("CALL014").finding(
                format!("`{name}`: {}", p.message),
                expected(p.check),
                "Fix the definition the server lists (the SDKs' tool helpers build valid ones).",
                evidence(&listed),
            )
        })
        .collect()
}

/// The warning for arguments sent unchecked because the `inputSchema` cannot be compiled.
pub(super) fn unchecked_arguments(tool: &str, e: &CompileError, listing: &[Exchange]) -> Finding {
    let listed: Vec<&Exchange> = listing.iter().filter(|l| listed_in(l, tool)).collect();
    rule("CALL013").finding(
        format!("`{tool}`'s `inputSchema` cannot be used: {e}"),
        "The `inputSchema` compiles offline in the draft it declares, so a client can check arguments before sending them.",
        "Inline the schema's definitions (no remote `$ref`), and check it against its draft's meta-schema.",
        evidence(&listed),
    )
}
