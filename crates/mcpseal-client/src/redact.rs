//! Keeping secrets out of everything that leaves the client.
//!
//! Headers such as `Authorization` carry bearer tokens. Reports, evidence and logs are written to
//! CI logs and PR comments, so a token must never reach them. Two layers: header *values* whose
//! names look like credentials are replaced by `[redacted]`; and the secret values themselves
//! are scrubbed from every string of an exchange, because servers do echo request headers back in
//! error messages.

use serde_json::Value;

use crate::exchange::{Exchange, Header};

/// The text that replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Knows which header names are credentials and which values are secret.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    extra_names: Vec<String>,
    secrets: Vec<String>,
}

impl Redactor {
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
        let mut push = |s: &str| {
            let s = s.trim();
            // Very short values would scrub innocent text; they are not secrets worth the name.
            if s.len() >= 4 && !self.secrets.iter().any(|x| x == s) {
                self.secrets.push(s.to_owned());
            }
        };
        push(value);
        if let Some((_, rest)) = value.trim().split_once(' ') {
            push(rest);
        }
        // Longest first, so a value is scrubbed whole before its parts are.
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
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
