//! Slowloris: a valid answer, one byte a second (stdio: on stdout; HTTP: inside an event
//! stream). A client must give up at its timeout, not when the answer is complete.

use std::time::Duration;

use serde_json::Value;

use crate::server;

/// One byte every …
pub const PACE: Duration = Duration::from_secs(1);

fn answer(id: &Value) -> Vec<u8> {
    server::result(id, server::tools(vec![], None))
        .to_string()
        .into_bytes()
}

/// stdio: the answer line, byte by byte (the newline last).
pub fn bytes(id: &Value) -> Box<dyn Iterator<Item = Vec<u8>> + Send> {
    let mut line = answer(id);
    line.push(b'\n');
    Box::new(line.into_iter().map(|b| vec![b]))
}

/// HTTP: an event carrying the answer, byte by byte.
pub fn event(id: &Value) -> Box<dyn Iterator<Item = Vec<u8>> + Send> {
    let mut e = b"event: message\ndata: ".to_vec();
    e.extend(answer(id));
    e.extend(b"\n\n");
    Box::new(e.into_iter().map(|b| vec![b]))
}
