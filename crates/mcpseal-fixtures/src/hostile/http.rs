//! The HTTP transport, on raw TCP: a hostile response must be exactly the bytes its case
//! writes (an HTTP library would refuse to send most of them). One request per connection
//! (`Connection: close`); `POST /mcp` only (anything else: 405). Prints
//! `http://127.0.0.1:PORT/mcp`, exits at stdin EOF.

use std::io::Write;
use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::Args;
use crate::cases::{self, Case, HttpAct, bomb, json_response_with};
use crate::server;

/// Largest request head read.
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body read.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// Serves until stdin reaches EOF.
pub fn serve(args: &Args) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // A bomb's body is built before the address is printed, so no client's deadline pays for
    // this fixture's own work (about a second of CPU in a debug build, more under load).
    match args.case {
        Case::GzipBomb => drop(bomb::response(bomb::Encoding::Gzip)),
        Case::DeflateBomb => drop(bomb::response(bomb::Encoding::Deflate)),
        _ => {}
    }
    rt.block_on(async {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        {
            let mut out = std::io::stdout().lock();
            writeln!(out, "http://127.0.0.1:{port}/mcp")?;
            out.flush()?;
        }
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            std::process::exit(0);
        });
        let args = Arc::new(args.clone());
        loop {
            let (socket, _) = listener.accept().await?;
            let args = args.clone();
            tokio::spawn(async move {
                let _ = connection(socket, &args).await;
            });
        }
    })
}

async fn connection(mut socket: TcpStream, args: &Args) -> std::io::Result<()> {
    let Some((head, mut body)) = read_head(&mut socket).await? else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let length: usize = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
        .min(MAX_BODY);
    if !request_line.starts_with("POST ") {
        let r =
            b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        return socket.write_all(r).await;
    }
    while body.len() < length {
        let mut buf = vec![0u8; 64 * 1024];
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        body.extend_from_slice(&buf[..n]);
    }
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return socket
            .write_all(&json_response_with(
                400,
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            ))
            .await;
    };
    if msg.get("id").is_none() {
        let r = b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        return socket.write_all(r).await;
    }
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let act = if method == args.on {
        cases::http(args, &msg)
    } else {
        None
    };
    match act {
        None => {
            let (answer, status) = server::answer(&msg);
            socket
                .write_all(&json_response_with(status, answer.to_string().as_bytes()))
                .await
        }
        Some(HttpAct::Raw(bytes)) => {
            socket.write_all(&bytes).await?;
            socket.shutdown().await
        }
        Some(HttpAct::Stream { head, chunks, pace }) => {
            socket.write_all(&head).await?;
            for chunk in chunks {
                if let Some(p) = pace {
                    tokio::time::sleep(p).await;
                }
                socket.write_all(&chunk).await?;
            }
            std::future::pending::<()>().await;
            Ok(())
        }
    }
}

/// Reads the request head; returns it and the body bytes read past it.
async fn read_head(socket: &mut TcpStream) -> std::io::Result<Option<(Vec<u8>, Vec<u8>)>> {
    let mut data = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let body = data.split_off(end + 4);
            return Ok(Some((data, body)));
        }
        if data.len() > MAX_HEAD {
            return Ok(None);
        }
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        data.extend_from_slice(&buf[..n]);
    }
}
