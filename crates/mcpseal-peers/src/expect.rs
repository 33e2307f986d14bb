//! The committed expectations (`tests/peers/expectations/<id>.json`) and `docs/peers.md`,
//! which is rendered from them (and `peers.json`) only, so it changes exactly when they do:
//! `cargo xtask generate peers` writes it, `cargo xtask check` fails when it is stale.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::peer::{Peer, read_peers, repo_root};

/// What one peer must look like. Unknown keys are refused so a typo cannot disable a check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expectations {
    /// The peers.json id (also the file name).
    pub id: String,
    /// Free text for readers: why the expectations are what they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `mcpseal snapshot --format json`, run twice.
    pub snapshot: SnapshotExpect,
    /// `mcpseal probe --format json`; absent = not asserted (say why in `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeExpect>,
    /// `mcpseal lock` then `mcpseal check`; absent = not asserted (say why in `notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<LockExpect>,
}

/// Expected snapshot facts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SnapshotExpect {
    /// The era the snapshot reports (`2026-07-28` for dual-era servers: discover is answered).
    pub era: String,
    /// `server` of the snapshot (the reported server name).
    pub server_name: String,
    /// Items per list; `null` = the list is not served.
    pub counts: Counts,
    /// The fingerprint (`sha256`), when it is the same across runs and machines; `null` = only
    /// "same twice in one test" is checked (`fingerprintNote` says why).
    pub fingerprint: Option<String>,
    /// Why the fingerprint is (or is not) pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint_note: Option<String>,
}

/// Items per list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Counts {
    /// Tools.
    pub tools: Option<u64>,
    /// Resources.
    pub resources: Option<u64>,
    /// Resource templates.
    pub resource_templates: Option<u64>,
    /// Prompts.
    pub prompts: Option<u64>,
}

/// Expected probe verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProbeExpect {
    /// `measured`, `incomplete` or `unreachable`.
    pub state: String,
    /// The report's `ready`.
    pub ready: bool,
    /// The exact set of rule ids with findings, each with its severity and the spec text that
    /// justifies it.
    pub findings: BTreeMap<String, FindingExpect>,
}

/// One expected rule id.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindingExpect {
    /// `error` or `warning` (every finding of the rule on this peer has it).
    pub severity: String,
    /// Why the spec makes this a finding on this peer, quoting DIGEST.md / the spec.
    pub justification: String,
}

/// Expected lock/check behaviour.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LockExpect {
    /// `--server-version` given to `mcpseal lock`.
    pub server_version: String,
}

/// `tests/peers/expectations/`.
pub fn expectations_dir() -> PathBuf {
    repo_root().join("tests/peers/expectations")
}

/// Reads and checks `tests/peers/expectations/<id>.json`.
///
/// # Errors
/// A message naming the file: unreadable, not an expectations document, an `id` that is not
/// the file name, a finding without a real justification or with an unknown severity.
pub fn read_expectations(id: &str) -> Result<Expectations, String> {
    let path = expectations_dir().join(format!("{id}.json"));
    let shown = path.display();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{shown}: {e}\nhint: every peer in peers.json needs an expectations file; the observed \
             values of the last run are in target/peers-rows/{id}.json"
        )
    })?;
    let exp: Expectations = serde_json::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
    if exp.id != id {
        return Err(format!("{shown}: `id` must be the file name"));
    }
    if let Some(probe) = &exp.probe {
        for (rule, f) in &probe.findings {
            if f.justification.trim().len() <= 20 {
                return Err(format!(
                    "{shown}: {rule} needs a real justification (the spec text behind it)"
                ));
            }
            if f.severity != "error" && f.severity != "warning" {
                return Err(format!(
                    "{shown}: {rule}: severity `{}` (valid: error, warning)",
                    f.severity
                ));
            }
        }
    }
    Ok(exp)
}

/// [`read_expectations`] for tests: panics with the message.
///
/// # Panics
/// When the file cannot be read or fails its checks.
pub fn load(id: &str) -> Expectations {
    read_expectations(id).unwrap_or_else(|e| panic!("{e}"))
}

/// `docs/peers.md`.
pub fn doc_path() -> PathBuf {
    repo_root().join("docs/peers.md")
}

fn counts_cell(c: &Counts) -> String {
    let one = |n: Option<u64>| n.map_or_else(|| "–".to_owned(), |n| n.to_string());
    format!(
        "{} / {} / {} / {}",
        one(c.tools),
        one(c.resources),
        one(c.resource_templates),
        one(c.prompts)
    )
}

fn verdict_cell(e: &Expectations) -> String {
    match &e.probe {
        None => "not asserted".to_owned(),
        Some(p) if p.ready => format!("**ready** ({})", p.state),
        Some(p) => format!("not ready ({})", p.state),
    }
}

fn findings_cell(e: &Expectations) -> String {
    match &e.probe {
        None => "–".to_owned(),
        Some(p) if p.findings.is_empty() => "none".to_owned(),
        Some(p) => p
            .findings
            .iter()
            .map(|(id, f)| {
                if f.severity == "warning" {
                    format!("{id} (w)")
                } else {
                    id.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn era_cell(p: &Peer) -> &str {
    match p.era.as_str() {
        "dual" => "dual (2025-11-25 + 2026-07-28)",
        "2026-07-28" => "2026-07-28 only",
        "2025-11-25" => "2025-11-25 only",
        other => other,
    }
}

/// Renders `docs/peers.md` from `peers.json` and the expectations files.
///
/// # Errors
/// When `peers.json` or an expectations file cannot be read (see [`read_expectations`]).
pub fn render_doc() -> Result<String, String> {
    let peers = read_peers()?;
    let exps: Vec<(&Peer, Expectations)> = peers
        .iter()
        .map(|p| read_expectations(&p.id).map(|e| (p, e)))
        .collect::<Result<_, _>>()?;
    let mut out = String::new();
    out.push_str(
        "# Real MCP servers under test\n\n\
         <!-- GENERATED by `crates/mcpseal-peers` from `tests/peers/peers.json` and \
         `tests/peers/expectations/*.json`. Do not edit: change the expectations, then run\n\
         `cargo xtask generate peers`. -->\n\n\
         The pinned cohort of `tests/peers/` (see `tests/peers/PEERS.md` for versions, start-up and \
         quirks), as mcpseal sees it. Every row is asserted by the test named after the peer in \
         `crates/mcpseal-cli/tests/peers.rs`: two snapshots with the same fingerprint, the era, the \
         counts, the probe's exact set of rule ids, and `lock` then `check` passing on the unchanged \
         server. A test fails if the server, the probe or this table drifts.\n\n\
         * **era (served)**: what the server speaks (`peers.json`, observed by `check_peers.py`); \
         **snapshot era**: the era `mcpseal snapshot` captured (a dual-era server answers \
         `server/discover`, so it is captured as 2026-07-28).\n\
         * **lists**: tools / resources / resource templates / prompts; `–` = not served \
         (`-32601`).\n\
         * **fingerprint**: the first 16 hex digits of the `mcpseal/1` `sha256` (full value in the \
         expectations file).\n\
         * **lock version**: the `--server-version` given to `mcpseal lock` and `mcpseal check` \
         (the version the server reports, which differs from the package version for three npm \
         servers).\n\
         * **findings**: rule ids of `mcpseal probe` findings, `(w)` = warning; each one is \
         justified from the spec below.\n\n",
    );
    out.push_str(
        "| peer | package @ version | SDK | reports | era (served) | transport | snapshot era | lists | fingerprint | lock version | probe | findings |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (p, e) in &exps {
        let fp = e.snapshot.fingerprint.as_deref().map_or_else(
            || "not pinned".to_owned(),
            |f| format!("`{}`", &f[..16.min(f.len())]),
        );
        let _ = writeln!(
            out,
            "| `{}` | {} {} | {} | {} {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.id,
            p.package,
            p.version,
            p.sdk,
            p.server_info.name,
            p.server_info.version,
            era_cell(p),
            if p.transport == "http" {
                "Streamable HTTP"
            } else {
                "stdio"
            },
            e.snapshot.era,
            counts_cell(&e.snapshot.counts),
            fp,
            e.lock.as_ref().map_or_else(
                || "not asserted".to_owned(),
                |l| format!("`{}`", l.server_version)
            ),
            verdict_cell(e),
            findings_cell(e),
        );
    }

    // Findings grouped by rule id, then by justification.
    let mut by_rule: BTreeMap<&str, Vec<(&str, &str, &str)>> = BTreeMap::new();
    for (p, e) in &exps {
        if let Some(probe) = &e.probe {
            for (rule, f) in &probe.findings {
                by_rule.entry(rule.as_str()).or_default().push((
                    p.id.as_str(),
                    f.severity.as_str(),
                    f.justification.as_str(),
                ));
            }
        }
    }
    out.push_str("\n## Findings and the spec text behind them\n\n");
    if by_rule.is_empty() {
        out.push_str("No probe findings are asserted.\n");
    }
    for (rule, rows) in &by_rule {
        let _ = writeln!(out, "### {rule}\n");
        let mut groups: Vec<(&str, &str, Vec<&str>)> = Vec::new();
        for (peer, sev, just) in rows {
            match groups.iter_mut().find(|(s, j, _)| s == sev && j == just) {
                Some(g) => g.2.push(peer),
                None => groups.push((sev, just, vec![peer])),
            }
        }
        for (sev, just, peers) in groups {
            let peers: Vec<String> = peers.iter().map(|p| format!("`{p}`")).collect();
            let _ = writeln!(out, "* {} ({sev}): {}\n", peers.join(", "), just.trim());
        }
    }

    let notes: Vec<_> = exps
        .iter()
        .filter(|(_, e)| !e.notes.is_empty() || e.snapshot.fingerprint_note.is_some())
        .collect();
    if !notes.is_empty() {
        out.push_str("## Notes per peer\n\n");
        for (p, e) in notes {
            let _ = writeln!(out, "* `{}`:", p.id);
            if let Some(n) = &e.snapshot.fingerprint_note {
                let _ = writeln!(out, "  * fingerprint: {n}");
            }
            for n in &e.notes {
                let _ = writeln!(out, "  * {n}");
            }
        }
    }
    Ok(out)
}
