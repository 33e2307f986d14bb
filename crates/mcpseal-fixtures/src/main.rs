//! `mcpseal-fixture`: a hand-written MCP server (stdio and Streamable HTTP) that misbehaves
//! exactly, so mcpseal's client, surface capture and conformance probe can be tested
//! against real processes and sockets instead of mocks.
//!
//! It refuses to be a real server: no SDK, no persistence, no auth. Every misbehaviour is a
//! flag (see `knobs`), documented with the rule or client guard it provokes.
//!
//! ```text
//! mcpseal-fixture --mode legacy                 # stdio, 2025-11-25 handshake required
//! mcpseal-fixture --http --sse --page-size 1    # prints http://127.0.0.1:PORT/mcp
//! ```

mod ask;
mod auth;
mod cards;
mod contract;
mod envgate;
mod gate;
mod handler;
mod headers;
mod http;
mod jsonrpc;
mod knobs;
mod methods;
mod modes;
mod paging;
mod record;
mod refuse;
mod request_log;
mod rugpull;
mod sse;
mod stdio;
mod surface;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use crate::knobs::{Knobs, Mode};

fn main() -> ExitCode {
    let knobs = Knobs::parse();
    if knobs.mode == Mode::StrictHeaders && !knobs.http {
        stdio::log(
            "error: `--mode strict-headers` needs `--http`\nhint: its misbehaviour is about HTTP headers",
        );
        return ExitCode::from(2);
    }
    let surface = match surface::Surface::build(
        knobs.surface.as_deref(),
        knobs.tools,
        knobs.server_version.as_deref(),
    ) {
        Ok(mut s) => {
            if !knobs.tool_defs.is_empty() || knobs.call_tools {
                s.add_knob_tools(&knobs.tool_defs, knobs.call_tools);
            }
            if knobs.capability_gate.is_some() {
                s.add_gated_items();
            }
            if knobs.rug.rug_pull.is_some() {
                s.add_tool(rugpull::archive_tool());
            }
            if knobs.contract.contract_tools {
                s.add_tools(contract::tools());
            }
            s.hide_tools(&knobs.hide_tool);
            s
        }
        Err(e) => {
            stdio::log(&format!("error: {e:#}"));
            return ExitCode::from(2);
        }
    };
    let ignore_stdin = knobs.ignore_stdin;
    if knobs.startup_delay > 0 {
        // Before anything is read or bound: the client's first request waits the whole time.
        std::thread::sleep(std::time::Duration::from_millis(knobs.startup_delay));
    }
    let handler = Arc::new(handler::Handler::new(knobs, surface));
    let result = if handler.knobs.http {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|rt| rt.block_on(http::serve(handler, ignore_stdin)))
    } else {
        stdio::serve(handler).map_err(anyhow::Error::from)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcpseal-fixture: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
