//! What to connect to, and how.

use std::path::PathBuf;
use std::time::Duration;

use crate::memo::TimeoutMemo;
use mcpseal_protocol::command::{TokenizeError, quote_words, tokenize};

/// A server to speak to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint URL (`http://` or `https://`).
        url: String,
    },
    /// A child process speaking newline-delimited JSON-RPC on stdio.
    Stdio {
        /// The program (looked up on `PATH` when it has no separator).
        program: String,
        /// Its arguments, passed untouched.
        args: Vec<String>,
    },
}

impl Target {
    /// A stdio target from an argv.
    pub fn stdio<I, S>(argv: I) -> Target
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut it = argv.into_iter().map(Into::into);
        let program = it.next().unwrap_or_default();
        Target::Stdio {
            program,
            args: it.collect(),
        }
    }

    /// A stdio target from one command string, split by [`tokenize`] (never a shell).
    pub fn stdio_command(command: &str) -> Result<Target, TokenizeError> {
        Ok(Target::stdio(tokenize(command)?))
    }

    /// An HTTP target.
    pub fn http(url: impl Into<String>) -> Target {
        Target::Http { url: url.into() }
    }

    /// How the target is shown in reports: the URL (credentials in its user-info or in
    /// query parameters named like secrets redacted), or the command line with
    /// credential-looking values redacted ([`redact_argv`](crate::redact_argv): `--api-key X`,
    /// `--token=X`, `API_KEY=X`) and the arguments that [`tokenize`] would otherwise read
    /// differently (spaces, quotes, escaping backslashes) quoted, so that tokenizing the display
    /// gives the argv back, secrets excepted.
    pub fn display(&self) -> String {
        match self {
            Target::Http { url } => redact_url(url),
            Target::Stdio { program, args } => {
                let argv: Vec<String> = std::iter::once(program).chain(args).cloned().collect();
                quote_words(crate::redact::redact_argv(&argv))
            }
        }
    }
}

/// `url` with its user-info and the values of query parameters whose names contain `key`,
/// `token`, `secret`, `password` or `auth` replaced by `[redacted]`.
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority, tail) = match rest.find(['/', '?', '#']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((_, host)) => format!("[redacted]@{host}"),
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let (query, fragment) = match query.split_once('#') {
                Some((q, f)) => (q, format!("#{f}")),
                None => (query, String::new()),
            };
            let query = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _))
                        if ["key", "token", "secret", "password", "auth"]
                            .iter()
                            .any(|w| k.to_ascii_lowercase().contains(w)) =>
                    {
                        format!("{k}=[redacted]")
                    }
                    _ => pair.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("&");
            format!("{path}?{query}{fragment}")
        }
        None => tail.to_owned(),
    };
    if scheme.is_empty() {
        format!("{authority}{tail}")
    } else {
        format!("{scheme}://{authority}{tail}")
    }
}

/// Byte limits on everything read from a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest single message (a stdio line, an HTTP JSON body, one SSE event). Default 16 MiB.
    pub max_message_bytes: usize,
    /// Largest total of bytes read from one HTTP response stream before giving up. Default
    /// 4 × `max_message_bytes`.
    pub max_stream_bytes: usize,
    /// Stderr lines kept as diagnostics (the newest are kept). Default 200.
    pub max_stderr_lines: usize,
    /// Largest raw GET preview. Default 2 KiB.
    pub raw_preview_bytes: usize,
    /// Longest raw GET preview wait. Default 1 s.
    pub raw_preview_time: Duration,
    /// Largest metadata document. Default 256 KiB.
    pub max_metadata_bytes: usize,
    /// Most bytes of list pages (their JSON text) one surface capture keeps before giving up.
    /// Default 256 MiB: a server cannot grow mcpseal's memory past it by paging forever (the
    /// pages are kept once, so this bounds what a capture costs).
    pub max_capture_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 16 * 1024 * 1024,
            max_stream_bytes: 64 * 1024 * 1024,
            max_stderr_lines: 200,
            raw_preview_bytes: 2048,
            raw_preview_time: Duration::from_secs(1),
            max_metadata_bytes: 256 * 1024,
            max_capture_bytes: 256 * 1024 * 1024,
        }
    }
}

/// Connection options shared by both transports.
#[derive(Debug, Clone)]
pub struct Options {
    /// Per-request timeout. Default 10 s.
    pub timeout: Duration,
    /// stdio: how long requests may wait before the server's first answer (interpreters under
    /// load start slowly); never shorter than `timeout`. `None` (the default): `timeout`. The
    /// CLI sets 30 s, capped by an explicit `--timeout`.
    pub startup_timeout: Option<Duration>,
    /// User headers sent on every MCP POST and raw GET (never on metadata fetches).
    pub headers: Vec<(String, String)>,
    /// Extra header names whose values are secret (`--secret-header`).
    pub secret_headers: Vec<String>,
    /// Extra environment variables for a stdio child.
    pub env: Vec<(String, String)>,
    /// Environment variables a stdio child is started **without** (inherited or given in
    /// `env`): the anonymous-access measurement's "no credential" for a stdio server.
    pub env_unset: Vec<String>,
    /// Environment variable names whose values are secret whatever their names look like
    /// (`--secret-env`): redacted wherever they appear, whether passed with `--env` or
    /// inherited (names containing `key`, `token`, `secret`, `password`, `auth`, ... always
    /// are).
    pub secret_env: Vec<String>,
    /// Working directory for a stdio child.
    pub cwd: Option<PathBuf>,
    /// Byte limits.
    pub limits: Limits,
    /// What timed out in this run: shared by every connection opened with a clone of these
    /// options, so a dead method costs one timeout per run, not one per ask (see
    /// [`TimeoutMemo`]). A fresh `Options` is a fresh run.
    pub timeouts: TimeoutMemo,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(10),
            startup_timeout: None,
            headers: Vec::new(),
            secret_headers: Vec::new(),
            env: Vec::new(),
            env_unset: Vec::new(),
            secret_env: Vec::new(),
            cwd: None,
            limits: Limits::default(),
            timeouts: TimeoutMemo::default(),
        }
    }
}

/// Parses `Name: value` into a header pair. The name must be a non-empty HTTP token.
pub fn parse_header(raw: &str) -> Result<(String, String), String> {
    let Some((name, value)) = raw.split_once(':') else {
        return Err(format!(
            "header `{raw}` has no `:`; write it as `Name: value`"
        ));
    };
    let name = name.trim();
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !valid {
        return Err(format!(
            "header name `{name}` is not a valid HTTP header name"
        ));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse() {
        assert_eq!(
            parse_header("Authorization: Bearer a:b").expect("ok"),
            ("Authorization".into(), "Bearer a:b".into())
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header("bad name: x").is_err());
    }

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(
            redact_url("https://user:pw@example.com/mcp?api_key=abc&x=1#f"),
            "https://[redacted]@example.com/mcp?api_key=[redacted]&x=1#f"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8080/mcp"),
            "http://127.0.0.1:8080/mcp"
        );
        assert_eq!(
            Target::http("http://h/mcp?token=t").display(),
            "http://h/mcp?token=[redacted]"
        );
    }

    #[test]
    fn display_quotes_words_tokenize_would_change() {
        // Found by the `tokenize` fuzz target: a bare `'` opened a quote when read back.
        let words = ["'jss\\x.ee", "xa b", r"a\\b", r"C:\dir\", r"C:\tools\s.exe"];
        let shown = Target::stdio(words).display();
        assert_eq!(
            shown,
            r#""'jss\\x.ee" "xa b" "a\\\\b" "C:\\dir\\" C:\tools\s.exe"#
        );
        assert_eq!(crate::tokenize(&shown).expect("ok"), words);
    }

    #[test]
    fn display_quotes_words_with_spaces() {
        let t = Target::stdio(["node", "/my dir/s.js", "-x"]);
        assert_eq!(t.display(), r#"node "/my dir/s.js" -x"#);
        assert_eq!(
            crate::tokenize(&t.display()).expect("ok"),
            ["node", "/my dir/s.js", "-x"]
        );
    }
}
