//! `mcpseal snapshot`.

use std::fmt::Write as _;

use mcpseal::{Snapshot, SnapshotOptions};

use crate::args::{DocFormat, SnapshotArgs};
use crate::error::{CliError, Outcome};
use crate::{output, settings};

pub async fn run(args: SnapshotArgs) -> Result<Outcome, CliError> {
    let target = settings::target(&args.target)?;
    let options = settings::options(&args.connect)?;
    let form = settings::form(args.form);
    let conn = mcpseal::open(&target, options).await?;
    let result = mcpseal::snapshot(
        &conn,
        &SnapshotOptions {
            form,
            page_cap: args.page_cap.max(1),
        },
    )
    .await;
    conn.close().await;
    let (snapshot, raw) = match result {
        Ok(s) => s,
        Err(e) => {
            let hint = e.hint();
            let mut err = CliError::usage(format!("no trustworthy surface: {e}")).hint(hint);
            if let mcpseal::SnapshotError::Unreachable(_) = e {
                let diags = conn.diagnostics();
                if let Some(last) = diags.iter().rev().find(|l| l.starts_with("[stderr]")) {
                    err = CliError::usage(format!("no trustworthy surface: {e}\n  {last}"))
                        .hint(hint);
                }
            }
            return Err(err);
        }
    };
    let text = match args.format {
        DocFormat::Json => {
            let mut s = serde_json::to_string_pretty(&snapshot)
                .map_err(|e| CliError::usage(e.to_string()))?;
            s.push('\n');
            s
        }
        DocFormat::Text => render_text(
            &snapshot,
            settings::color(args.output.color, args.output.output.is_some()),
        ),
    };
    if let Some(path) = &args.save_capture {
        let mut doc =
            serde_json::to_string_pretty(&raw).map_err(|e| CliError::usage(e.to_string()))?;
        doc.push('\n');
        output::emit(&doc, Some(path))?;
    }
    output::emit(&text, args.output.output.as_deref())?;
    for w in &snapshot.warnings {
        output::note(&format!("warning: {w}"));
    }
    Ok(Outcome::Ok)
}

fn render_text(s: &Snapshot, color: bool) -> String {
    let bold = anstyle::Style::new().bold();
    let (on, off) = if color {
        (bold.render().to_string(), bold.render_reset().to_string())
    } else {
        (String::new(), String::new())
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "server   {}",
        s.server.as_deref().unwrap_or("(unnamed)")
    );
    let _ = writeln!(out, "era      {}", s.era);
    for (list, count) in &s.counts {
        let shown = match count {
            Some(n) => n.to_string(),
            None => format!(
                "not served ({})",
                s.not_served
                    .get(list)
                    .map(String::as_str)
                    .unwrap_or("no reason")
            ),
        };
        let _ = writeln!(out, "{list:<18} {shown}");
    }
    let _ = writeln!(out, "{}  {on}{}{off}", s.form, s.sha256);
    out
}
