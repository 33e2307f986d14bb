//! The anonymous-access lines of the text reports: the measured table (`lock --anonymous`,
//! `snapshot --anonymous`) and what `check`/`verify` did with the lock's section.

use std::fmt::Write as _;

use mcpseal_surface::lock::LockAnonymous;

use crate::document::AnonymousCheck;

/// The anonymous table of a measurement: per configuration and route (`default` unnamed), one
/// line per method (status 0: stdio).
pub fn anonymous_table(a: &LockAnonymous) -> String {
    let mut out = String::new();
    for (config, routes) in &a.configs {
        for (route, answers) in routes {
            if config == mcpseal_surface::lock::anonymous::DEFAULT_CONFIG {
                let _ = writeln!(out, "anonymous access ({route}):");
            } else {
                let _ = writeln!(out, "anonymous access ({route}, config {config}):");
            }
            for (method, x) in answers {
                let verdict = if x.answers {
                    "answers".to_owned()
                } else if x.open(method) {
                    "reaches the handler".to_owned()
                } else if matches!(x.status, 401 | 403) {
                    format!("refused ({}, needs a credential)", x.status)
                } else {
                    match (x.status, x.code) {
                        (0, Some(c)) => format!("refused (code {c})"),
                        (s, Some(c)) => format!("refused ({s}, code {c})"),
                        (s, None) => format!("refused ({s})"),
                    }
                };
                let _ = writeln!(out, "  {method:<26} {verdict}");
            }
        }
    }
    out
}

/// The line of a `lock` or `snapshot` that `--no-anonymous` kept from measuring.
pub const SKIPPED_LINE: &str = "anonymous  not measured (`--no-anonymous`)\n";

/// What happened to the lock's anonymous section, as one text line (empty when it has none).
pub fn anonymous_line(a: Option<AnonymousCheck>) -> &'static str {
    match a {
        None => "",
        Some(AnonymousCheck::Skipped) => {
            "anonymous  not re-measured (`--no-anonymous`, or a stdio server without an env configuration)\n"
        }
        Some(AnonymousCheck::Same) => "anonymous  re-measured: as locked\n",
        Some(AnonymousCheck::Changed) => {
            "anonymous  re-measured: differs from the lock (see the changes)\n"
        }
    }
}
