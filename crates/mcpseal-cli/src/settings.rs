//! Resolving parsed arguments into typed settings, once.

use std::time::Duration;

use mcpseal::client::{Options, Target, parse_header};
use mcpseal::surface::Form;
use mcpseal::surface::lock::RuleOptions;
use mcpseal::version_source::{self, VersionRequest};

use crate::args::{ColorChoice, ConnectArgs, FormArg, TargetArgs};
use crate::error::CliError;
use crate::lock_args::{AnonymousArgs, RuleArgs, VersionArgs};

/// The environment variable that sets the async runtime's worker threads.
pub const WORKER_THREADS_ENV: &str = "MCPSEAL_WORKER_THREADS";

/// Worker threads of the async runtime: `MCPSEAL_WORKER_THREADS` when set (1 to 1024), else the
/// available parallelism (cores, or the CPU quota of a container), at least 1.
pub fn worker_threads() -> Result<usize, CliError> {
    match std::env::var(WORKER_THREADS_ENV) {
        Ok(raw) => raw
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1024).contains(n))
            .ok_or_else(|| {
                CliError::usage(format!("`{WORKER_THREADS_ENV}={raw}` is not a thread count"))
                    .hint(format!("set `{WORKER_THREADS_ENV}` to a whole number from 1 to 1024, or unset it to use every core"))
            }),
        Err(_) => Ok(std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)),
    }
}

/// Worker threads for a command that runs at most `jobs` units of work at once: an explicit
/// `MCPSEAL_WORKER_THREADS` wins; otherwise the available parallelism, capped at `jobs`.
pub fn worker_threads_for(jobs: Option<usize>) -> Result<usize, CliError> {
    if std::env::var_os(WORKER_THREADS_ENV).is_some() {
        return worker_threads();
    }
    let cores = worker_threads()?;
    Ok(jobs.map_or(cores, |j| j.clamp(1, cores)))
}

/// Resolves the version flags (before any server is started).
pub fn version_request(args: &VersionArgs) -> Result<VersionRequest, CliError> {
    let cwd = std::env::current_dir().map_err(|e| {
        CliError::usage(format!("cannot read the working directory: {e}"))
            .hint("run mcpseal from a directory that exists, or pass `--server-version X`")
    })?;
    Ok(version_source::resolve(
        args.server_version.as_deref(),
        args.manifest.as_deref(),
        &cwd,
    )?)
}

/// Parses `10s`, `500ms`, `2m` or a bare number of seconds.
pub fn parse_duration(raw: &str) -> Result<Duration, CliError> {
    let s = raw.trim();
    let bad = || {
        CliError::usage(format!("`{raw}` is not a duration"))
            .hint("write it as `10s`, `500ms` or `2m`; a bare number is seconds")
    };
    let (number, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let secs = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        _ => return Err(bad()),
    };
    // `0` parses (a bare number is seconds): say what is wrong with it, not that it is no
    // duration.
    if secs == 0.0 {
        return Err(CliError::usage(format!(
            "`{raw}` is a zero duration: nothing would wait for the server at all"
        ))
        .hint("give a positive duration: `10s`, `500ms` or `2m` (a bare number is seconds)"));
    }
    if !secs.is_finite() || !(0.0..=86_400.0).contains(&secs) {
        return Err(CliError::usage(format!("`{raw}` is out of range"))
            .hint("give a duration above zero and at most a day: `10s`, `500ms`, `2m`"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Expands `${VAR}` references from the environment.
fn expand_env(value: &str) -> Result<String, CliError> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(CliError::usage("unterminated `${` in a header value")
                .hint("write environment references as `${VAR}`"));
        };
        let name = &after[..end];
        let var = std::env::var(name).map_err(|_| {
            CliError::usage(format!("environment variable `{name}` is not set"))
                .hint("export it, or pass the header value directly")
        })?;
        out.push_str(&var);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The target of a command.
pub fn target(args: &TargetArgs) -> Result<Target, CliError> {
    match (&args.url, args.command.is_empty()) {
        (Some(url), true) => {
            if url.starts_with("http://") || url.starts_with("https://") {
                Ok(Target::http(url.clone()))
            } else {
                Err(CliError::usage(format!("`{url}` is not an http:// or https:// URL")).hint(
                    "to run a stdio server, put its command after `--`: `mcpseal snapshot -- node server.js`",
                ))
            }
        }
        (None, false) => Ok(Target::stdio(args.command.iter().cloned())),
        (Some(_), false) => Err(CliError::usage(
            "give either a URL or `-- COMMAND`, not both",
        )),
        (None, true) => Err(CliError::usage("no server given")
            .hint("pass an http(s):// URL, or the server's command after `--`, or set `[server]` in `mcpseal.toml` (docs/config.md)")),
    }
}

/// Connection options.
pub fn options(args: &ConnectArgs) -> Result<Options, CliError> {
    let timeout = args.timeout.as_deref().map(parse_duration).transpose()?;
    let startup = parse_duration(&args.startup_timeout)?;
    let mut options = Options {
        timeout: timeout.unwrap_or(Options::default().timeout),
        // An explicit `--timeout` bounds every wait, the start-up one included.
        startup_timeout: Some(timeout.map_or(startup, |t| startup.min(t))),
        secret_headers: args.secret_headers.clone(),
        secret_env: args.secret_env.clone(),
        cwd: args.cwd.clone(),
        ..Options::default()
    };
    options.limits.max_message_bytes = args.max_message_bytes.max(1024);
    options.limits.max_stream_bytes = options.limits.max_message_bytes.saturating_mul(4);
    options.limits.max_capture_bytes = args.max_capture_bytes.max(1024);
    for raw in &args.headers {
        let (name, value) = parse_header(raw).map_err(CliError::usage)?;
        let value = expand_env(&value)?;
        options.headers.push((name, value));
    }
    for raw in &args.header_env {
        let Some((name, var)) = raw.split_once('=') else {
            return Err(CliError::usage(format!("`--header-env {raw}` has no `=`"))
                .hint("write it as `--header-env Authorization=MY_TOKEN_VAR`"));
        };
        let value = std::env::var(var.trim()).map_err(|_| {
            CliError::usage(format!("environment variable `{}` is not set", var.trim()))
        })?;
        let (name, value) =
            parse_header(&format!("{}: {value}", name.trim())).map_err(CliError::usage)?;
        options.headers.push((name, value));
    }
    for raw in &args.env {
        let Some((k, v)) = raw.split_once('=') else {
            return Err(CliError::usage(format!("`--env {raw}` has no `=`"))
                .hint("write it as `--env NAME=value`"));
        };
        options.env.push((k.to_owned(), v.to_owned()));
    }
    Ok(options)
}

/// The canonical form a `--form` names (`snapshot` and a new lock choose it the same way).
pub fn form(arg: FormArg) -> Form {
    match arg {
        FormArg::McpSeal1 => Form::McpSeal1,
        FormArg::McpSurface1 => Form::McpSurface1,
    }
}

/// The lock rules' switches, as `lock` and `check` both judge by them: the two must agree on
/// what a change needs.
pub fn rule_options(args: &RuleArgs) -> RuleOptions {
    RuleOptions {
        strict_semver: args.strict_semver,
        deny_security: args.deny_security,
    }
}

/// The anonymous measurement's options, `--anonymous-call NAME=JSON` parsed; `required` is
/// `--anonymous` (an unmeasurable target is then an error).
pub fn anonymous_options(
    args: &AnonymousArgs,
    required: bool,
) -> Result<mcpseal::anonymous::AnonymousOptions, CliError> {
    let call = match &args.anonymous_call {
        None => None,
        Some(spec) => {
            let bad = || {
                CliError::usage(format!("`--anonymous-call {spec}` is not NAME=JSON"))
                    .hint("name the tool and give its arguments as a JSON object: `--anonymous-call 'echo={\"text\":\"hi\"}'`")
            };
            let (name, json) = spec.split_once('=').ok_or_else(bad)?;
            let args: serde_json::Value = serde_json::from_str(json).map_err(|_| bad())?;
            if name.is_empty() || !args.is_object() {
                return Err(bad());
            }
            Some((name.to_owned(), args))
        }
    };
    if let Some(bad) = args.routes.iter().find(|r| !r.starts_with('/')) {
        return Err(
            CliError::usage(format!("`--route {bad}` is not a path")).hint(
                "give a path on the target's origin that starts with `/`: `--route /admin/mcp`",
            ),
        );
    }
    let configs = anonymous_configs(args)?;
    Ok(mcpseal::anonymous::AnonymousOptions {
        call,
        env_unset: args.anonymous_env_unset.clone(),
        required,
        routes: args.routes.clone(),
        configs,
        only: false,
    })
}

/// `--anonymous-config NAME` with its `--anonymous-config-header NAME=…` and
/// `--anonymous-config-env NAME=VAR=VALUE`.
fn anonymous_configs(
    args: &AnonymousArgs,
) -> Result<Vec<mcpseal::anonymous::NamedConfig>, CliError> {
    let mut configs: Vec<mcpseal::anonymous::NamedConfig> = Vec::new();
    for name in &args.configs {
        if name.is_empty() || name == mcpseal::surface::lock::anonymous::DEFAULT_CONFIG {
            return Err(CliError::usage(format!(
                "`--anonymous-config {name}` is not a configuration name"
            ))
            .hint("`default` is the measurement without any configuration; name the others, e.g. `--anonymous-config key-set`"));
        }
        if configs.iter().any(|c| &c.name == name) {
            return Err(
                CliError::usage(format!("`--anonymous-config {name}` is given twice"))
                    .hint("name each configuration once"),
            );
        }
        configs.push(mcpseal::anonymous::NamedConfig {
            name: name.clone(),
            ..Default::default()
        });
    }
    let undeclared = |flag: &str, spec: &str| {
        // Only the name part: the rest may be a secret.
        let name = spec.split_once('=').map_or(spec, |(n, _)| n);
        CliError::usage(format!(
            "`{flag} {name}=…` names no `--anonymous-config {name}`"
        ))
        .hint("write it as NAME=… where NAME is declared with `--anonymous-config NAME`")
    };
    for spec in &args.config_headers {
        let (name, header) = spec
            .split_once('=')
            .ok_or_else(|| undeclared("--anonymous-config-header", spec))?;
        let parsed = parse_header(header).map_err(|_| {
            CliError::usage(format!(
                "`--anonymous-config-header {name}=…` is not `Name: value`"
            ))
            .hint("write it as `--anonymous-config-header 'NAME=X-Api-Key: …'`")
        })?;
        let config = configs
            .iter_mut()
            .find(|c| c.name == name)
            .ok_or_else(|| undeclared("--anonymous-config-header", spec))?;
        config.headers.push(parsed);
    }
    for spec in &args.config_env {
        let (name, assignment) = spec
            .split_once('=')
            .ok_or_else(|| undeclared("--anonymous-config-env", spec))?;
        let (var, value) = assignment
            .split_once('=')
            .filter(|(v, _)| !v.is_empty())
            .ok_or_else(|| {
                CliError::usage(format!(
                    "`--anonymous-config-env {name}=…` is not `NAME=VAR=VALUE`"
                ))
                .hint("write it as `--anonymous-config-env 'key-set=API_KEY=…'`")
            })?;
        let config = configs
            .iter_mut()
            .find(|c| c.name == name)
            .ok_or_else(|| undeclared("--anonymous-config-env", spec))?;
        config.env.push((var.to_owned(), value.to_owned()));
    }
    Ok(configs)
}

/// What the environment says about colour, read once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ColorEnv {
    /// `NO_COLOR` is set to something (<https://no-color.org>).
    pub no_color: bool,
    /// `CLICOLOR_FORCE` is set and not `0`.
    pub force: bool,
    /// `TERM=dumb`.
    pub dumb: bool,
}

impl ColorEnv {
    /// The process environment's.
    pub fn read() -> ColorEnv {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        ColorEnv {
            no_color: var("NO_COLOR").is_some(),
            force: var("CLICOLOR_FORCE").is_some_and(|v| v != "0"),
            dumb: var("TERM").is_some_and(|v| v == "dumb"),
        }
    }
}

/// Whether to colour text for an output that `is_terminal` (or not): `--color always|never`
/// decide alone; `auto` colours a terminal unless `NO_COLOR` or `TERM=dumb`, and a pipe too
/// under `CLICOLOR_FORCE`. `NO_COLOR` wins over `CLICOLOR_FORCE` (as anstream decides).
pub fn color(choice: ColorChoice, env: ColorEnv, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !env.no_color && (env.force || (is_terminal && !env.dumb)),
    }
}

/// The width `COLUMNS` sets (a whole number, at least 20), if any.
pub fn columns() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|w| *w >= 20)
}

/// The documentation base URL reports may link mcpseal's own pages against (Markdown's
/// `SPEC.md` link, SARIF's `informationUri` and rule `helpUri`s): `MCPSEAL_DOCS_URL`, e.g.
/// `https://github.com/OWNER/mcpseal/blob/main`; unset or not http(s): no link, so a report
/// never links to a page that may not exist.
pub fn docs_url() -> Option<String> {
    std::env::var("MCPSEAL_DOCS_URL")
        .ok()
        .map(|u| u.trim().to_owned())
        .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
}

/// How drift reports render: `--full`, and the documentation base URL ([`docs_url`]).
pub fn drift_options(full: bool) -> mcpseal::report::DriftOptions {
    mcpseal::report::DriftOptions {
        full,
        docs_url: docs_url(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").ok(), Some(Duration::from_secs(10)));
        assert_eq!(
            parse_duration("500ms").ok(),
            Some(Duration::from_millis(500))
        );
        assert_eq!(parse_duration("3").ok(), Some(Duration::from_secs(3)));
        assert_eq!(parse_duration("1m").ok(), Some(Duration::from_secs(60)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("5h").is_err());
    }

    #[test]
    fn colour_decisions() {
        use ColorChoice::{Always, Auto, Never};
        let none = ColorEnv::default();
        let no_color = ColorEnv {
            no_color: true,
            ..none
        };
        let force = ColorEnv {
            force: true,
            ..none
        };
        let dumb = ColorEnv { dumb: true, ..none };
        assert!(color(Auto, none, true));
        assert!(!color(Auto, none, false));
        assert!(!color(Auto, no_color, true));
        assert!(color(Auto, force, false));
        assert!(!color(
            Auto,
            ColorEnv {
                force: true,
                ..no_color
            },
            false
        ));
        assert!(!color(Auto, dumb, true));
        assert!(color(Always, no_color, false));
        assert!(!color(Never, force, true));
    }
}
