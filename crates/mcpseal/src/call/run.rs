//! The call itself: open, find the era, list, check, call (and retry as asked), judge.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use mcpseal_client::{
    ConnectError, Connection, Era, Exchange, Request, ServerRequest, ServerRequests, discover,
    list_items,
};
use mcpseal_protocol::keys::META_CLIENT_CAPABILITIES;
use mcpseal_protocol::{ListKind, method, mrtr};
use mcpseal_report::ToolInfo;
use mcpseal_report::call::{
    CallErrorBody, CallReport, CallState, CallSummary, InputRequest, InputVia, Round, Subject,
    SubjectKind,
};
use mcpseal_schema::{Options, compile};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::Call;
use super::answers::{Answers, example};
use super::error::CallError;
use super::near::near;
use super::verdicts::{self, Judged};
use crate::OpenError;

/// The most pages of a list read to find a name.
const PAGE_CAP: usize = 100;

/// What mcpseal declares it can answer: forms, sampling, roots. Declared so a server may ask;
/// what it asks is shown, and answered only from what the user gave.
fn capabilities() -> Value {
    json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
}

/// What the run has gathered so far, for the report.
struct Run {
    call: Call,
    started: Instant,
    started_at: String,
    target: String,
    transport: &'static str,
    revision: Option<String>,
    definition: Option<Value>,
    listing: Vec<Exchange>,
    rounds: Vec<Round>,
    exchanges: Vec<Exchange>,
    findings: Vec<mcpseal_report::Finding>,
}

pub(super) async fn run(call: Call) -> Result<CallReport, CallError> {
    let (tx, rx) = mpsc::channel::<ServerRequest>(8);
    let transport = match call.target {
        mcpseal_client::Target::Http { .. } => "http",
        mcpseal_client::Target::Stdio { .. } => "stdio",
    };
    let mut run = Run {
        started: Instant::now(),
        started_at: rfc3339_now(),
        target: call.target.display(),
        transport,
        revision: None,
        definition: None,
        listing: Vec::new(),
        rounds: Vec::new(),
        exchanges: Vec::new(),
        findings: Vec::new(),
        call,
    };
    let conn = match Connection::open_with(
        &run.call.target,
        run.call.options.clone(),
        ServerRequests::Deliver(tx),
    )
    .await
    {
        Ok(c) => c,
        Err(e @ ConnectError::Spawn { .. }) => {
            return Ok(run.no_verdict(CallState::Unreachable, &e.to_string(), None, Vec::new()));
        }
        Err(e) => return Err(OpenError::from(e).into()),
    };
    let outcome = session(&mut run, &conn, rx).await;
    let diagnostics = conn.diagnostics();
    conn.close().await;
    let mut report = outcome?;
    report.diagnostics = diagnostics;
    Ok(report)
}

async fn session(
    run: &mut Run,
    conn: &Connection,
    rx: mpsc::Receiver<ServerRequest>,
) -> Result<CallReport, CallError> {
    let found = discover(conn, &capabilities()).await;
    let reached = found.exchanges.iter().any(Exchange::is_answered);
    let era = found.era;
    if found.server.is_none() {
        let why = found
            .failure
            .unwrap_or_else(|| "the server did not describe itself".into());
        let state = if reached {
            CallState::NoAnswer
        } else {
            CallState::Unreachable
        };
        return Ok(run.no_verdict(state, &why, None, Vec::new()));
    }
    run.revision = Some(negotiated(era, found.server.as_ref()));
    run.call.answers.precheck(era)?;
    let definition = match run.call.kind {
        SubjectKind::Tool => Some(find(run, conn, era, ListKind::Tools).await?),
        SubjectKind::Prompt => Some(find(run, conn, era, ListKind::Prompts).await?),
        SubjectKind::Resource => None,
    };
    run.definition = definition.clone();
    check_arguments(run, definition.as_ref())?;
    // 2025 servers ask in the middle of the call; their requests are answered (or refused) by
    // a task of their own while the call is in flight.
    let asked = Arc::new(Mutex::new(Asked::default()));
    let answerer = tokio::spawn(answer_server_requests(
        rx,
        run.call.answers.clone(),
        era,
        Arc::clone(&asked),
    ));
    let ended = rounds(run, conn, era, &asked).await;
    answerer.abort();
    let (state, why) = ended?;
    if state != CallState::Judged {
        let last = run
            .rounds
            .last()
            .map(|r| r.input_requests.clone())
            .unwrap_or_default();
        return Ok(run.no_verdict(state, &why, None, last));
    }
    let judged = verdicts::judge(
        era,
        &run.call,
        definition.as_ref(),
        run.exchanges.last(),
        &run.listing,
    );
    Ok(run.finish(judged))
}

/// The revision the server speaks: 2026-07-28, or the one `initialize` negotiated.
fn negotiated(era: Era, server: Option<&Value>) -> String {
    match era {
        Era::Modern => era.revision().to_owned(),
        Era::Legacy => server
            .and_then(|s| s.get("protocolVersion"))
            .and_then(Value::as_str)
            .unwrap_or(era.revision())
            .to_owned(),
    }
}

/// The listed tool or prompt named by the call (every page read first).
async fn find(
    run: &mut Run,
    conn: &Connection,
    era: Era,
    kind: ListKind,
) -> Result<Value, CallError> {
    let (items, failure, exchanges) = list_items(conn, era, kind, PAGE_CAP).await;
    run.listing = exchanges;
    let name = run.call.name.clone();
    let hit = items
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
        .cloned();
    if let Some(hit) = hit {
        let found = verdicts::definition(era, run.call.kind, &name, &hit, &run.listing);
        run.findings.extend(found);
        return Ok(hit);
    }
    if let Some(f) = failure {
        return Err(CallError::Listing {
            method: kind.method(),
            name,
            reason: f.message,
        });
    }
    let names = items
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str));
    let near = near(&name, names);
    Err(match kind {
        ListKind::Prompts => CallError::UnknownPrompt {
            name,
            near,
            listed: items.len(),
        },
        _ => CallError::UnknownTool {
            name,
            near,
            listed: items.len(),
        },
    })
}

/// The local checks before anything is sent: the contract for negative controls, the
/// arguments against the tool's `inputSchema` (or the prompt's declared arguments).
fn check_arguments(run: &mut Run, definition: Option<&Value>) -> Result<(), CallError> {
    let call = &run.call;
    match (call.kind, definition) {
        (SubjectKind::Tool, Some(tool)) => {
            if call.negative_controls && tool.get("outputSchema").is_none() {
                return Err(CallError::NoContract {
                    tool: call.name.clone(),
                });
            }
            if !call.input_check {
                return Ok(());
            }
            let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
            match compile(&schema, Options::default()) {
                Ok(v) => {
                    let problems: Vec<String> = v
                        .first_violations(&call.arguments, 8)
                        .iter()
                        .map(|v| {
                            if v.instance_path.is_empty() {
                                v.masked_message.clone()
                            } else {
                                format!("at `{}`: {}", v.instance_path, v.masked_message)
                            }
                        })
                        .collect();
                    if !problems.is_empty() {
                        return Err(CallError::InvalidArguments {
                            what: format!("`{}`'s inputSchema", call.name),
                            problems,
                            tool: true,
                        });
                    }
                }
                Err(e) => {
                    let finding = verdicts::unchecked_arguments(&call.name, &e, &run.listing);
                    run.findings.push(finding);
                }
            }
            Ok(())
        }
        (SubjectKind::Prompt, Some(prompt)) => {
            let mut problems = Vec::new();
            let args = call.arguments.as_object().cloned().unwrap_or_default();
            for (k, v) in &args {
                if !v.is_string() {
                    problems.push(format!("`{k}` is {v}, not a string"));
                }
            }
            for a in prompt
                .get("arguments")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = a.get("name").and_then(Value::as_str).unwrap_or_default();
                if a.get("required") == Some(&Value::Bool(true)) && !args.contains_key(name) {
                    problems.push(format!("the required argument `{name}` is missing"));
                }
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(CallError::InvalidArguments {
                    what: format!("the prompt `{}`", call.name),
                    problems,
                    tool: false,
                })
            }
        }
        _ => Ok(()),
    }
}

/// The request of round 1, and each retry. Ends with the state and, without a verdict, why.
async fn rounds(
    run: &mut Run,
    conn: &Connection,
    era: Era,
    asked: &Mutex<Asked>,
) -> Result<(CallState, String), CallError> {
    let (method_name, base) = base_params(&run.call);
    let mut params = base.clone();
    for n in 1..=run.call.max_rounds {
        let request = match era {
            Era::Modern => Request::modern(method_name, Some(Value::Object(params.clone())))
                .with_meta(META_CLIENT_CAPABILITIES, capabilities()),
            Era::Legacy => Request::legacy(method_name, Some(Value::Object(params.clone()))),
        };
        let ex = conn.send(request).await;
        let (mid_call, refused) = {
            let mut a = asked.lock().unwrap_or_else(PoisonError::into_inner);
            (std::mem::take(&mut a.requests), a.refused.take())
        };
        let mut round = Round {
            round: n,
            exchange: serde_json::to_value(&ex).unwrap_or(Value::Null),
            result_type: ex.result().and_then(mrtr::result_type).map(str::to_owned),
            input_requests: mid_call,
        };
        if let Some(e) = refused {
            run.exchanges.push(ex);
            run.rounds.push(round);
            return Err(e);
        }
        let unanswered_mid_call = round.input_requests.iter().any(|q| q.answer.is_none());
        let result = ex.result().cloned();
        let failed = ex.transport_error.as_ref().map(|e| e.message.clone());
        run.exchanges.push(ex);
        if let Some(why) = failed {
            run.rounds.push(round);
            return Ok((
                CallState::NoAnswer,
                format!("`{method_name}` got no answer: {why}"),
            ));
        }
        if unanswered_mid_call {
            run.rounds.push(round);
            return Ok((CallState::NeedsInput, needs_input_message(run)));
        }
        let Some(result) = result.filter(|r| era == Era::Modern && mrtr::is_input_required(r))
        else {
            run.rounds.push(round);
            return Ok((CallState::Judged, String::new()));
        };
        // The round is judged: a malformed `input_required` result is a verdict of its own.
        let problems = mcpseal_schema::judge::input_required(era, method_name, &result);
        if !mcpseal_schema::judge::accepted(&problems) {
            run.rounds.push(round);
            return Ok((CallState::Judged, String::new()));
        }
        let mut responses = Map::new();
        let mut missing = false;
        for (key, req) in result
            .get(mrtr::INPUT_REQUESTS)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let mut q = InputRequest {
                key: key.clone(),
                method: req
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                params: req.get("params").cloned().unwrap_or(Value::Null),
                via: InputVia::InputRequired,
                answer: None,
                answered_from: None,
            };
            match run.call.answers.answer(era, &q).await {
                Ok(Some((value, source))) => {
                    responses.insert(key.clone(), value.clone());
                    q.answer = Some(value);
                    q.answered_from = Some(source);
                }
                Ok(None) => missing = true,
                Err(e) => {
                    round.input_requests.push(q);
                    run.rounds.push(round);
                    return Err(e);
                }
            }
            round.input_requests.push(q);
        }
        run.rounds.push(round);
        if missing {
            return Ok((CallState::NeedsInput, needs_input_message(run)));
        }
        params = mrtr::retry_params(&base, responses, result.get(mrtr::REQUEST_STATE));
    }
    Ok((
        CallState::Incomplete,
        format!(
            "the server still asked for input after {} rounds",
            run.call.max_rounds
        ),
    ))
}

fn base_params(call: &Call) -> (&'static str, Map<String, Value>) {
    let mut p = Map::new();
    let m = match call.kind {
        SubjectKind::Tool => method::TOOLS_CALL,
        SubjectKind::Prompt => method::PROMPTS_GET,
        SubjectKind::Resource => method::RESOURCES_READ,
    };
    match call.kind {
        SubjectKind::Resource => {
            p.insert("uri".into(), json!(call.name));
        }
        _ => {
            p.insert("name".into(), json!(call.name));
            p.insert("arguments".into(), call.arguments.clone());
        }
    }
    (m, p)
}

fn needs_input_message(run: &Run) -> String {
    let asked: Vec<String> = run
        .rounds
        .last()
        .map(|r| {
            r.input_requests
                .iter()
                .filter(|q| q.answer.is_none())
                .map(|q| format!("`{}` ({})", q.key, q.method))
                .collect()
        })
        .unwrap_or_default();
    format!(
        "the server needs input nobody gave: {}",
        if asked.is_empty() {
            "(nothing named)".to_owned()
        } else {
            asked.join(", ")
        }
    )
}

/// What a 2025 server asked during the call so far, and the first answer mcpseal refused to
/// send (a given answer that does not fit what was asked).
#[derive(Default)]
struct Asked {
    requests: Vec<InputRequest>,
    refused: Option<CallError>,
}

/// Answers a 2025 server's requests during the call: an input method with the answer given
/// (or asked at the terminal), `ping` with `{}`, anything else declined. Each is recorded.
async fn answer_server_requests(
    mut rx: mpsc::Receiver<ServerRequest>,
    answers: Answers,
    era: Era,
    asked: Arc<Mutex<Asked>>,
) {
    while let Some(req) = rx.recv().await {
        let m = req.method().to_owned();
        if m == method::PING {
            req.respond(json!({}));
            continue;
        }
        if !mrtr::is_input_method(&m) {
            req.decline();
            continue;
        }
        let mut q = InputRequest {
            key: m.clone(),
            method: m.clone(),
            params: req.params().cloned().unwrap_or(Value::Null),
            via: InputVia::ServerRequest,
            answer: None,
            answered_from: None,
        };
        // Recorded before the server hears back: the server's final result can only follow
        // the answer, so the round that result closes always holds the request it answered.
        match answers.answer(era, &q).await {
            Ok(Some((value, source))) => {
                q.answer = Some(value.clone());
                q.answered_from = Some(source);
                record(&asked, q, None);
                req.respond(value);
            }
            Ok(None) => {
                record(&asked, q, None);
                req.respond_error(
                    -32603,
                    &format!("mcpseal was given no answer for `{m}` (pass `--answer {m}=JSON`)"),
                    None,
                );
            }
            Err(e) => {
                let message = format!("mcpseal refused its own answer: {e}");
                record(&asked, q, Some(e));
                req.respond_error(-32603, &message, None);
            }
        }
    }
}

/// Adds `q` (and the first refusal) to what was asked during the call.
fn record(asked: &Mutex<Asked>, q: InputRequest, refused: Option<CallError>) {
    let mut a = asked.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(e) = refused {
        a.refused.get_or_insert(e);
    }
    a.requests.push(q);
}

impl Run {
    fn subject(&self) -> Subject {
        Subject {
            kind: self.call.kind,
            name: self.call.name.clone(),
            arguments: self.call.arguments.clone(),
        }
    }

    fn report(&self, state: CallState) -> CallReport {
        CallReport {
            schema_version: 1,
            tool: ToolInfo {
                name: "mcpseal".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            target: self.target.clone(),
            transport: self.transport.into(),
            revision: self.revision.clone(),
            subject: self.subject(),
            started_at: self.started_at.clone(),
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            state,
            passed: false,
            expect_error: self.call.expect_error,
            definition: self.definition.clone(),
            rounds: self.rounds.clone(),
            // Only a judged run has a final result (an `input_required` one is in its round).
            result: (state == CallState::Judged)
                .then(|| self.exchanges.last().and_then(Exchange::result).cloned())
                .flatten(),
            summary: CallSummary::default(),
            findings: Vec::new(),
            negative_controls: None,
            diagnostics: Vec::new(),
            error: None,
        }
    }

    /// A report with no verdict (exit 2): `why`, a hint, and what the server asked.
    fn no_verdict(
        &self,
        state: CallState,
        why: &str,
        hint: Option<String>,
        asked: Vec<InputRequest>,
    ) -> CallReport {
        let mut r = self.report(state);
        let (kind, hint) = match state {
            CallState::NeedsInput => {
                let examples: Vec<String> = asked
                    .iter()
                    .filter(|q| q.answer.is_none())
                    .map(|q| format!("--answer '{}={}'", q.key, example(q)))
                    .collect();
                (
                    "needsInput",
                    hint.or(Some(format!(
                        "answer with {}",
                        if examples.is_empty() {
                            "`--answer KEY=JSON`".to_owned()
                        } else {
                            examples.join(" ")
                        }
                    ))),
                )
            }
            CallState::Unreachable => (
                "unreachable",
                hint.or(Some("check that the server starts and speaks MCP (or that the URL is right); `mcpseal rpc server/discover TARGET` shows the raw exchange".into())),
            ),
            CallState::Incomplete => (
                "incomplete",
                hint.or(Some("the server asks again and again: check what it asks in each round (`--format json`), or allow more rounds".into())),
            ),
            _ => (
                "noAnswer",
                hint.or(Some("a slow server may need a longer `--timeout`; `--verbose` shows the traffic".into())),
            ),
        };
        r.error = Some(CallErrorBody {
            kind: kind.into(),
            message: why.to_owned(),
            hint,
        });
        r.findings = self.findings.clone();
        r.summary = CallSummary::of(&r.findings, None);
        r
    }

    fn finish(&self, judged: Judged) -> CallReport {
        let mut r = self.report(CallState::Judged);
        let mut findings = self.findings.clone();
        findings.extend(judged.findings);
        mcpseal_report::sort_findings(&mut findings);
        r.passed =
            CallReport::compute_passed(CallState::Judged, &findings, judged.controls.as_ref());
        r.summary = CallSummary::of(&findings, judged.controls.as_ref());
        r.findings = findings;
        r.negative_controls = judged.controls;
        r
    }
}

/// Now as RFC 3339 UTC to the second, the report's `startedAt`.
fn rfc3339_now() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}
