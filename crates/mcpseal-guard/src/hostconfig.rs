//! Host configurations rewritten so every server runs behind the guard (`mcpseal guard wrap`).
//!
//! The hosts' formats: the `mcpServers` object of Claude Desktop and Cursor, the `servers`
//! object of VS Code's `mcp.json`. An entry is a stdio server (`command`, `args`) or a URL
//! (`url`, optional `headers`, VS Code's `type: "http"`/`"sse"`). Each becomes a stdio entry
//! starting `PROGRAM guard --lock DIR/NAME.lock.json`, then `-- COMMAND ARGS…` or `--upstream
//! URL`. Header values of a URL entry move into the entry's `env` and reach the guard as
//! `--header-env NAME=VAR`, so no credential lands on a command line. Every other key of an
//! entry (`env`, `cwd`, a host's own settings) is kept.
//!
//! Pure: JSON in, JSON out; reading, the backup and the atomic writes are the caller's. An
//! entry that already runs the guard is left alone (wrapping twice changes nothing).

use std::path::Path;

use serde_json::{Map, Value};

/// The keys holding a host's servers, in the order they are looked for.
pub const SERVER_KEYS: [&str; 2] = ["mcpServers", "servers"];

/// The prefix of the environment variables carrying a URL entry's header values.
pub const HEADER_ENV_PREFIX: &str = "MCPSEAL_GUARD_HEADER_";

/// Why a host configuration cannot be wrapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostConfigError {
    /// Not a JSON object with `mcpServers` or `servers`.
    #[error("no `mcpServers` or `servers` object in the configuration")]
    NoServers,
    /// An entry is neither a command nor a URL.
    #[error("server `{name}`: {why}")]
    Entry {
        /// The entry's name.
        name: String,
        /// What is wrong with it.
        why: String,
    },
}

/// What [`wrap`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wrapped {
    /// Entries now behind the guard, with their lock paths.
    pub wrapped: Vec<(String, String)>,
    /// Entries that already were.
    pub already: Vec<String>,
}

/// The lock file of server `name` under `dir` (`NAME.lock.json`, characters other than
/// letters, digits, `.`, `-` and `_` replaced by `_`).
pub fn lock_path(dir: &Path, name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = if safe.trim_matches('.').is_empty() {
        "server".to_owned()
    } else {
        safe
    };
    dir.join(format!("{safe}.lock.json"))
        .to_string_lossy()
        .into_owned()
}

/// Whether an entry already runs the guard.
pub fn is_wrapped(entry: &Value, program: &str) -> bool {
    entry.get("command").and_then(Value::as_str) == Some(program)
        && entry
            .get("args")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            == Some("guard")
}

/// Rewrites `config` in place (see the module docs). `program` is the guard's executable as the
/// host should start it; `locks` the directory of the per-server locks.
///
/// # Errors
/// [`HostConfigError`]: no servers object, or an entry that is neither a command nor a URL
/// (nothing is changed then).
pub fn wrap(config: &mut Value, program: &str, locks: &Path) -> Result<Wrapped, HostConfigError> {
    let servers = SERVER_KEYS
        .iter()
        .find_map(|k| config.get(*k).filter(|v| v.is_object()).map(|_| *k))
        .ok_or(HostConfigError::NoServers)?;
    let Some(entries) = config.get_mut(servers).and_then(Value::as_object_mut) else {
        return Err(HostConfigError::NoServers);
    };
    let mut done = Wrapped::default();
    let mut rewritten = Vec::new();
    for (name, entry) in entries.iter() {
        if is_wrapped(entry, program) {
            done.already.push(name.clone());
            continue;
        }
        let lock = lock_path(locks, name);
        rewritten.push((name.clone(), wrap_entry(name, entry, program, &lock)?));
        done.wrapped.push((name.clone(), lock));
    }
    for (name, entry) in rewritten {
        entries.insert(name, entry);
    }
    Ok(done)
}

fn wrap_entry(
    name: &str,
    entry: &Value,
    program: &str,
    lock: &str,
) -> Result<Value, HostConfigError> {
    let bad = |why: &str| HostConfigError::Entry {
        name: name.to_owned(),
        why: why.to_owned(),
    };
    let Some(obj) = entry.as_object() else {
        return Err(bad("the entry is not an object"));
    };
    let mut out: Map<String, Value> = obj.clone();
    let mut args = vec![
        Value::from("guard"),
        Value::from("--lock"),
        Value::from(lock),
    ];
    if let Some(command) = obj.get("command") {
        let Some(command) = command.as_str() else {
            return Err(bad("`command` is not a string"));
        };
        let rest: Vec<Value> = match obj.get("args") {
            None => Vec::new(),
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => a.clone(),
            Some(_) => return Err(bad("`args` is not an array of strings")),
        };
        args.push(Value::from("--"));
        args.push(Value::from(command));
        args.extend(rest);
    } else if let Some(url) = obj.get("url") {
        let Some(url) = url.as_str() else {
            return Err(bad("`url` is not a string"));
        };
        if let Some(headers) = obj.get("headers") {
            let Some(headers) = headers.as_object() else {
                return Err(bad("`headers` is not an object"));
            };
            let mut env = match obj.get("env") {
                None => Map::new(),
                Some(Value::Object(e)) => e.clone(),
                Some(_) => return Err(bad("`env` is not an object")),
            };
            for (i, (header, value)) in headers.iter().enumerate() {
                let Some(value) = value.as_str() else {
                    return Err(bad("a header value is not a string"));
                };
                let var = format!("{HEADER_ENV_PREFIX}{i}");
                env.insert(var.clone(), Value::from(value));
                args.push(Value::from("--header-env"));
                args.push(Value::from(format!("{header}={var}")));
            }
            out.insert("env".into(), Value::Object(env));
            out.remove("headers");
        }
        args.push(Value::from("--upstream"));
        args.push(Value::from(url));
        out.remove("url");
        if out.contains_key("type") {
            out.insert("type".into(), Value::from("stdio"));
        }
    } else {
        return Err(bad("neither `command` nor `url`"));
    }
    out.insert("command".into(), Value::from(program));
    out.insert("args".into(), Value::Array(args));
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stdio_and_url_entries_are_wrapped_once_and_headers_leave_the_command_line() {
        let mut config = json!({"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"A": "1"}},
            "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer s3cret"}},
        }, "other": true});
        let done = wrap(&mut config, "mcpseal", Path::new("/locks")).expect("wraps");
        assert_eq!(done.wrapped.len(), 2);
        let files = &config["mcpServers"]["files"];
        assert_eq!(files["command"], "mcpseal");
        assert_eq!(
            files["args"],
            json!([
                "guard",
                "--lock",
                "/locks/files.lock.json",
                "--",
                "npx",
                "-y",
                "server-files",
                "/tmp"
            ])
        );
        assert_eq!(files["env"], json!({"A": "1"}));
        let remote = &config["mcpServers"]["remote"];
        assert!(!remote["args"].to_string().contains("s3cret"));
        assert_eq!(
            remote["env"][format!("{HEADER_ENV_PREFIX}0")],
            "Bearer s3cret"
        );
        assert!(remote.get("url").is_none() && remote.get("headers").is_none());
        let before = config.clone();
        let again = wrap(&mut config, "mcpseal", Path::new("/locks")).expect("wraps");
        assert!(again.wrapped.is_empty() && again.already.len() == 2);
        assert_eq!(config, before, "wrapping twice changes nothing");
    }

    #[test]
    fn bad_configs_are_refused_untouched() {
        let mut c = json!({"mcpServers": {"x": {"command": 3}}});
        let before = c.clone();
        assert!(matches!(
            wrap(&mut c, "m", Path::new("d")),
            Err(HostConfigError::Entry { .. })
        ));
        assert_eq!(c, before);
        assert_eq!(
            wrap(&mut json!({"x": 1}), "m", Path::new("d")),
            Err(HostConfigError::NoServers)
        );
        assert_eq!(lock_path(Path::new("d"), "a/b c"), "d/a_b_c.lock.json");
        assert_eq!(lock_path(Path::new("d"), ".."), "d/server.lock.json");
    }
}
