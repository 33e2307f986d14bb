//! Keeping secrets out of everything that leaves the client.
//!
//! Headers such as `Authorization` carry bearer tokens; a stdio server is started with tokens
//! in its command line (`--api-key X`, `--token=X`, `API_KEY=X`) and its environment (`--env`,
//! or inherited). Reports, evidence and logs are written to CI logs and PR comments, so a token
//! must never reach them. Two layers: header *values* whose names look like credentials, and
//! credential-looking arguments in a shown command line ([`redact_argv`]), are replaced by
//! `[redacted]`; and the secret values themselves — of such headers, arguments and environment
//! variables — are scrubbed from every string of an exchange and every diagnostic, because
//! servers do echo their requests, their argv and their environment back.

use serde_json::Value;

use crate::exchange::{Exchange, Header};
use crate::target::{Options, Target};

/// The text that replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// True when a name (of a header, a flag, an environment variable; any case, leading dashes
/// ignored) says its value is a credential: it contains `key`, `token`, `secret`, `password`,
/// `passwd`, `auth`, `credential`, `cookie` or `bearer`.
pub fn looks_secret(name: &str) -> bool {
    let lower = name.trim_start_matches('-').to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "auth",
        "credential",
        "cookie",
        "bearer",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Where the secret of one argument is: the whole word (the value after `--api-key`), or
/// the part after `=` (`--token=X`, `API_KEY=X`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Secret {
    Word,
    AfterEquals(usize),
}

/// Which words of an argv carry a credential: the value after a flag whose name looks secret
/// (`--api-key X`, when X is not itself a flag), the value of such a flag written with `=`
/// (`--token=X`), and the value of an environment assignment whose name looks secret
/// (`API_KEY=X`, as `env` takes them).
fn secret_words(args: &[String]) -> Vec<Option<Secret>> {
    let mut out = vec![None; args.len()];
    for (i, a) in args.iter().enumerate() {
        if let Some((name, _)) = a.split_once('=') {
            let flag = name.starts_with('-') && name.len() > 1;
            let env = !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !name.as_bytes()[0].is_ascii_digit();
            if (flag || env) && looks_secret(name) {
                out[i] = Some(Secret::AfterEquals(name.len() + 1));
            }
            continue;
        }
        if a.starts_with('-')
            && looks_secret(a)
            && let Some(next) = args.get(i + 1)
            && !next.starts_with('-')
            && out[i + 1].is_none()
        {
            out[i + 1] = Some(Secret::Word);
        }
    }
    out
}

/// `args` with every credential-looking value replaced by `[redacted]` (see
/// `secret_words`): how a command line is shown.
pub fn redact_argv(args: &[String]) -> Vec<String> {
    args.iter()
        .zip(secret_words(args))
        .map(|(a, s)| match s {
            None => a.clone(),
            Some(Secret::Word) => REDACTED.to_owned(),
            Some(Secret::AfterEquals(n)) => format!("{}{REDACTED}", &a[..n]),
        })
        .collect()
}

/// The credential values an argv carries.
fn argv_secrets(args: &[String]) -> Vec<String> {
    args.iter()
        .zip(secret_words(args))
        .filter_map(|(a, s)| match s {
            None => None,
            Some(Secret::Word) => Some(a.clone()),
            Some(Secret::AfterEquals(n)) => Some(a[n..].to_owned()),
        })
        .collect()
}

/// Knows which header names are credentials and which values are secret.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    extra_names: Vec<String>,
    secrets: Vec<String>,
}

impl Redactor {
    /// The redactor of a connection to `target` with `options`: credential headers (and
    /// `--secret-header` names) and their values; the values of `--env` variables named in
    /// [`Options::secret_env`]; and, when they look like credentials (8 bytes or more, no
    /// whitespace, not a boolean), the values of `--env` variables whose names look secret
    /// ([`looks_secret`]); for a stdio server also the credential values of its argv and of
    /// the variables it inherits from this process under either kind of name.
    pub fn for_connection(target: &Target, options: &Options) -> Redactor {
        let mut r = Redactor::new(options.secret_headers.iter().cloned());
        for (name, value) in &options.headers {
            r.learn(name, value);
        }
        // A variable named by the user is secret whatever its value; one that only looks
        // secret by its name must also look like a credential (see `learn_guessed`).
        let named = |k: &str| options.secret_env.iter().any(|n| n.eq_ignore_ascii_case(k));
        let env = |r: &mut Redactor, k: &str, v: &str| {
            if named(k) {
                r.learn_secret(v);
            } else if looks_secret(k) {
                r.learn_guessed(v);
            }
        };
        for (k, v) in &options.env {
            env(&mut r, k, v);
        }
        if let Target::Stdio { program, args } = target {
            let mut argv = vec![program.clone()];
            argv.extend(args.iter().cloned());
            for secret in argv_secrets(&argv) {
                r.learn_guessed(&secret);
            }
            // The child inherits this environment: what it holds under secret names is as
            // secret as what `--env` passes.
            for (k, v) in std::env::vars_os() {
                if let (Some(k), Some(v)) = (k.to_str(), v.to_str()) {
                    env(&mut r, k, v);
                }
            }
        }
        r
    }

    /// Remembers `value` when it looks like a credential: at least 8 bytes, no whitespace,
    /// not a boolean or a switch word. For values found by their names alone
    /// (`SKIP_AUTH=false` must not scrub every `false` from a report, nor change a lock).
    fn learn_guessed(&mut self, value: &str) {
        let v = value.trim();
        let plain = ["true", "false", "null", "none", "disabled", "enabled"]
            .iter()
            .any(|w| v.eq_ignore_ascii_case(w));
        if v.len() >= 8 && !v.contains(char::is_whitespace) && !plain {
            self.learn_secret(v);
        }
    }

    /// Remembers `value` as a secret to scrub wherever it appears (values under 4 bytes are
    /// ignored: they would scrub innocent text, and are not secrets worth the name).
    pub fn learn_secret(&mut self, value: &str) {
        let s = value.trim();
        if s.len() >= 4 && !self.secrets.iter().any(|x| x == s) {
            self.secrets.push(s.to_owned());
            // Longest first, so a value is scrubbed whole before its parts are.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// A redactor that also treats `extra_names` (e.g. from `--secret-header`) as credentials.
    pub fn new(extra_names: impl IntoIterator<Item = String>) -> Self {
        Redactor {
            extra_names: extra_names
                .into_iter()
                .map(|n| n.to_ascii_lowercase())
                .collect(),
            secrets: Vec::new(),
        }
    }

    /// True when a header of this name carries a credential: `Authorization`, `Cookie`,
    /// `Set-Cookie`, `Proxy-Authorization`, any name containing `key`, `token` or `secret`, and
    /// any name given to [`Redactor::new`].
    pub fn is_secret_name(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        matches!(
            lower.as_str(),
            "authorization" | "cookie" | "set-cookie" | "proxy-authorization"
        ) || lower.contains("key")
            || lower.contains("token")
            || lower.contains("secret")
            || self.extra_names.contains(&lower)
    }

    /// Remembers the secret parts of a header value so they can be scrubbed from bodies too.
    /// For `Bearer abc` both the whole value and `abc` are remembered.
    pub fn learn(&mut self, name: &str, value: &str) {
        if !self.is_secret_name(name) {
            return;
        }
        self.learn_secret(value);
        if let Some((_, rest)) = value.trim().split_once(' ') {
            self.learn_secret(rest);
        }
    }

    /// The header with its value redacted when it is a credential.
    pub fn header(&self, name: &str, value: &str) -> Header {
        let value = if self.is_secret_name(name) {
            REDACTED.to_owned()
        } else {
            self.scrub(value)
        };
        Header {
            name: name.to_owned(),
            value,
        }
    }

    /// `text` with every known secret replaced by `[redacted]`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// Scrubs every string (keys included) of a JSON value in place.
    pub fn scrub_value(&self, value: &mut Value) {
        if self.secrets.is_empty() {
            return;
        }
        match value {
            Value::String(s) if self.secrets.iter().any(|x| s.contains(x.as_str())) => {
                *s = self.scrub(s);
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.scrub_value(v)),
            Value::Object(map) => {
                let needs_key_scrub = map
                    .keys()
                    .any(|k| self.secrets.iter().any(|x| k.contains(x.as_str())));
                if needs_key_scrub {
                    let taken = std::mem::take(map);
                    for (k, mut v) in taken {
                        self.scrub_value(&mut v);
                        map.insert(self.scrub(&k), v);
                    }
                } else {
                    map.values_mut().for_each(|v| self.scrub_value(v));
                }
            }
            _ => {}
        }
    }

    /// True when scrubbing the JSON value written as `text` might change it: some secret is in
    /// the text as it stands, or could hide behind an escape (any `\\u`, or another escape when
    /// a secret holds a character JSON may escape). False means [`Redactor::scrub_value`] of
    /// its parse is a no-op, so the text can be kept as it is.
    pub fn may_touch(&self, text: &str) -> bool {
        if self.secrets.is_empty() {
            return false;
        }
        if self.secrets.iter().any(|s| text.contains(s.as_str())) || text.contains("\\u") {
            return true;
        }
        let escapable = |c: char| matches!(c, '"' | '\\' | '/') || c.is_control();
        text.contains('\\') && self.secrets.iter().any(|s| s.chars().any(escapable))
    }

    /// Applies both layers to a finished exchange.
    pub fn exchange(&self, exchange: &mut Exchange) {
        for h in exchange
            .request_headers
            .iter_mut()
            .chain(exchange.response_headers.iter_mut())
        {
            *h = self.header(&h.name, &h.value);
        }
        if self.secrets.is_empty() {
            return;
        }
        self.scrub_value(&mut exchange.request);
        if let Some(r) = exchange.response.as_mut() {
            self.scrub_value(r);
        }
        exchange
            .notifications
            .iter_mut()
            .for_each(|n| self.scrub_value(n));
        if let Some(e) = exchange.transport_error.as_mut() {
            e.message = self.scrub(&e.message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names_are_recognised() {
        let r = Redactor::new(["X-Tenant".to_owned()]);
        for name in [
            "Authorization",
            "cookie",
            "Proxy-Authorization",
            "X-Api-Key",
            "x-auth-token",
            "Client-Secret",
            "x-tenant",
        ] {
            assert!(r.is_secret_name(name), "{name}");
        }
        for name in [
            "Accept",
            "Content-Type",
            "Mcp-Method",
            "MCP-Protocol-Version",
        ] {
            assert!(!r.is_secret_name(name), "{name}");
        }
    }

    fn words(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn credential_arguments_are_found_in_all_three_shapes() {
        let argv = words(&[
            "node",
            "server.js",
            "--api-key",
            "sk-live-1",
            "--token=tok-2",
            "GITHUB_TOKEN=ghp-3",
            "--verbose",
            "--secret",
            "--port",
            "8080",
            "KEYS",
            "a=b",
        ]);
        assert_eq!(
            redact_argv(&argv),
            words(&[
                "node",
                "server.js",
                "--api-key",
                "[redacted]",
                "--token=[redacted]",
                "GITHUB_TOKEN=[redacted]",
                "--verbose",
                // `--secret` is followed by a flag: nothing to redact after it.
                "--secret",
                "--port",
                "8080",
                "KEYS",
                "a=b",
            ])
        );
        assert_eq!(argv_secrets(&argv), ["sk-live-1", "tok-2", "ghp-3"]);
        for n in [
            "--api-key",
            "API_KEY",
            "x-auth",
            "Password",
            "--client-secret",
        ] {
            assert!(looks_secret(n), "{n}");
        }
        for n in ["--port", "PATH", "--verbose", "HOME"] {
            assert!(!looks_secret(n), "{n}");
        }
    }

    #[test]
    fn a_connection_learns_argv_env_and_inherited_secrets() {
        let target = Target::stdio(["server", "--api-key", "argv-secret-value"]);
        let options = Options {
            env: vec![
                ("MY_TOKEN".into(), "env-secret-value".into()),
                ("PLAIN".into(), "plain-env-value".into()),
                ("SKIP_AUTH".into(), "false".into()),
                ("DB_URL".into(), "postgres://named-secret".into()),
            ],
            secret_env: vec!["db_url".into()],
            ..Options::default()
        };
        let r = Redactor::for_connection(&target, &options);
        let text =
            "argv-secret-value env-secret-value plain-env-value postgres://named-secret false";
        assert_eq!(
            r.scrub(text),
            "[redacted] [redacted] plain-env-value [redacted] false"
        );
        // Over HTTP there is no argv or environment to learn.
        let http = Redactor::for_connection(&Target::http("http://h/mcp"), &Options::default());
        assert_eq!(http.scrub("argv-secret-value"), "argv-secret-value");
    }

    #[test]
    fn secrets_are_scrubbed_from_bodies() {
        let mut r = Redactor::default();
        r.learn("Authorization", "Bearer s3cr3t-token-value");
        r.learn("Accept", "application/json");
        let mut v = serde_json::json!({"error": {"message": "bad token s3cr3t-token-value"},
            "s3cr3t-token-value": ["Bearer s3cr3t-token-value"]});
        r.scrub_value(&mut v);
        let text = v.to_string();
        assert!(!text.contains("s3cr3t"), "{text}");
        assert_eq!(r.scrub("application/json"), "application/json");
    }
}
