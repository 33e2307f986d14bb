//! The project config at the edge: one shared "target or config" step run before every command
//! that takes a target (so the commands themselves are unchanged), and `mcpseal config`.
//!
//! Flags win: a setting is taken from the config only when its flag was not given (clap's
//! value source tells a typed `--lock surface.lock.json` from the default).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::ArgMatches;
use clap::parser::ValueSource;
use mcpseal::config::{self, FailOn, Flags, Loaded, Resolved, ResolvedServer, ServerTarget};
use mcpseal::profiles::{ProfileTarget, ProfileTargets};

use crate::args::{self, Command, ConnectArgs, DocFormat, TargetArgs};
use crate::error::{CliError, Outcome};
use crate::lock_args::{LockFileArgs, RuleArgs, VersionArgs};
use crate::output;

/// Reads the working directory's config (`None` when there is none), refusing one whose
/// `required-version` this mcpseal does not satisfy.
pub fn load() -> Result<Option<Loaded>, CliError> {
    let described = |e: config::ConfigError| CliError::usage(e.to_string()).hint(e.hint());
    let loaded = config::discover(Path::new("")).map_err(described)?;
    if let Some(l) = &loaded {
        config::check_required_version(l, env!("CARGO_PKG_VERSION")).map_err(described)?;
    }
    Ok(loaded)
}

/// What the project config says about profiles, for `check` and `verify` of every profile
/// (filled by [`apply`]; the default when there is no config).
#[derive(Debug, Clone, Default)]
pub struct ConfigProfiles {
    /// The config's label (`mcpseal.toml`), when there is one.
    pub label: Option<String>,
    /// `[profiles.NAME]`, by name.
    pub servers: BTreeMap<String, ResolvedServer>,
    /// The target was filled from `[server]`, not given on the command line.
    pub server_filled: bool,
}

impl ConfigProfiles {
    /// Refuses a target given on the command line for a run over every profile of the lock
    /// at `lock` (`names`): one target is one profile's, and judging every profile against it
    /// would report the others as drift.
    pub fn no_command_line_target(
        &self,
        target: &TargetArgs,
        lock: &Path,
        names: &[String],
    ) -> Result<(), CliError> {
        let given = target.url.is_some() || !target.command.is_empty();
        if !given || self.server_filled {
            return Ok(());
        }
        Err(CliError::usage(format!(
            "`{}` holds configuration profiles ({}): a target on the command line is one profile's",
            lock.display(),
            names.join(", ")
        ))
        .hint("pass `--profile NAME` to judge that profile against this target, or drop the target to judge every profile against its `[profiles.NAME]` in mcpseal.toml (docs/config.md)"))
    }

    /// Each profile's target and connection options: `connect` (the command line's) with the
    /// profile's `env` and `cwd`, as `[server]` fills them.
    pub fn targets(&self, connect: &ConnectArgs) -> Result<ProfileTargets, CliError> {
        let mut targets = BTreeMap::new();
        for (name, server) in &self.servers {
            let mut target = TargetArgs {
                url: None,
                command: Vec::new(),
            };
            let mut connect = connect.clone();
            fill_server(&mut target, Some(&mut connect), server);
            let described = |e: CliError| {
                let body = e.body();
                let mut e = CliError::usage(format!("[profiles.{name}]: {}", body.message));
                if let Some(h) = &body.hint {
                    e = e.hint(h.clone());
                }
                e
            };
            targets.insert(
                name.clone(),
                ProfileTarget {
                    target: crate::settings::target(&target).map_err(described)?,
                    connect: crate::settings::options(&connect).map_err(described)?,
                },
            );
        }
        Ok(ProfileTargets {
            config: self.label.clone(),
            targets,
        })
    }
}

/// Sets `target` (and `connect`'s env and cwd) from a config's server table.
fn fill_server(
    target: &mut TargetArgs,
    connect: Option<&mut ConnectArgs>,
    server: &ResolvedServer,
) {
    match &server.target {
        ServerTarget::Command(c) => target.command.clone_from(c),
        ServerTarget::Url(u) => target.url = Some(u.clone()),
    }
    if let Some(connect) = connect {
        // The config's environment first, so an `--env` flag for the same name wins.
        let mut env: Vec<String> = server.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        env.append(&mut connect.env);
        connect.env = env;
        if connect.cwd.is_none() {
            connect.cwd = Some(server.cwd.clone());
        }
    }
}

/// The parts of one command's arguments a config can fill.
#[derive(Default)]
struct Parts<'a> {
    target: Option<&'a mut TargetArgs>,
    connect: Option<&'a mut ConnectArgs>,
    lock: Option<(&'a mut LockFileArgs, bool)>,
    version: Option<&'a mut VersionArgs>,
    rules: Option<&'a mut RuleArgs>,
    exclude: Option<&'a mut Vec<String>>,
    fail_on: Option<(&'a mut args::FailOn, bool)>,
    skip: Option<&'a mut Vec<String>>,
    profile: Option<String>,
    profiles: Option<&'a mut ConfigProfiles>,
    anonymous: Option<&'a mut crate::lock_args::AnonymousArgs>,
}

/// Whether argument `id` of the subcommand was given (not defaulted). Asked only of commands
/// that have the argument (clap panics on an unknown id in debug builds).
fn given(matches: &ArgMatches, id: &str) -> bool {
    matches
        .subcommand()
        .and_then(|(_, m)| m.value_source(id))
        .is_some_and(|s| s != ValueSource::DefaultValue)
}

/// Fills the settings of `command` that the command line left out from the project config.
/// Commands without a target (diff, registry, card, serve) are left alone.
pub fn apply(command: &mut Command, matches: &ArgMatches) -> Result<(), CliError> {
    let parts = match command {
        Command::Rpc(a) => Parts {
            target: Some(&mut a.target),
            connect: Some(&mut a.connect),
            ..Parts::default()
        },
        Command::Snapshot(a) => Parts {
            target: Some(&mut a.target),
            connect: Some(&mut a.connect),
            ..Parts::default()
        },
        Command::Probe(a) if a.list_rules => return Ok(()),
        Command::Probe(a) => Parts {
            target: Some(&mut a.target),
            connect: Some(&mut a.connect),
            fail_on: Some((&mut a.fail_on, given(matches, "fail_on"))),
            skip: Some(&mut a.skip),
            ..Parts::default()
        },
        Command::Lock(a) => Parts {
            target: Some(&mut a.target),
            connect: Some(&mut a.connect),
            lock: Some((&mut a.lock, given(matches, "path"))),
            profile: a.profile.profile.clone(),
            anonymous: Some(&mut a.anonymous_call),
            version: Some(&mut a.version),
            rules: Some(&mut a.rules),
            exclude: Some(&mut a.exclude),
            ..Parts::default()
        },
        Command::Check(a) => Parts {
            target: Some(&mut a.target),
            connect: Some(&mut a.connect),
            lock: Some((&mut a.lock, given(matches, "path"))),
            profile: a.profile.profile.clone(),
            profiles: Some(&mut a.profile.config),
            anonymous: Some(&mut a.anonymous_call),
            version: Some(&mut a.version),
            rules: Some(&mut a.rules),
            ..Parts::default()
        },
        Command::Verify(a) => Parts {
            target: Some(&mut a.target),
            connect: Some(&mut a.connect),
            lock: Some((&mut a.lock, given(matches, "path"))),
            profile: a.profile.profile.clone(),
            profiles: Some(&mut a.profile.config),
            anonymous: Some(&mut a.anonymous_call),
            ..Parts::default()
        },
        _ => return Ok(()),
    };
    let Some(loaded) = load()? else {
        return Ok(());
    };
    fill(parts, &loaded);
    Ok(())
}

fn fill(p: Parts<'_>, loaded: &Loaded) {
    let flags = Flags {
        target_given: p
            .target
            .as_ref()
            .is_some_and(|t| t.url.is_some() || !t.command.is_empty()),
        lock: p
            .lock
            .as_ref()
            .and_then(|(l, given)| given.then(|| l.path.clone())),
        version_given: p
            .version
            .as_ref()
            .is_some_and(|v| v.manifest.is_some() || v.server_version.is_some()),
        exclude: p.exclude.as_ref().map(|e| e.to_vec()).unwrap_or_default(),
        fail_on: p
            .fail_on
            .as_ref()
            .and_then(|(f, given)| given.then(|| to_config(**f))),
        skip: p.skip.as_ref().map(|s| s.to_vec()).unwrap_or_default(),
        strict_semver: p.rules.as_ref().is_some_and(|r| r.strict_semver),
        deny_security: p.rules.as_ref().is_some_and(|r| r.deny_security),
        profile: p.profile.clone(),
    };
    let r = config::resolve(Some(loaded), &flags);
    if let Some(profiles) = p.profiles {
        *profiles = ConfigProfiles {
            label: r.file.clone(),
            servers: r
                .profiles
                .iter()
                .map(|(name, s)| (name.clone(), s.value.clone()))
                .collect(),
            server_filled: r.server.is_some(),
        };
    }
    if let (Some(target), Some(server)) = (p.target, &r.server) {
        fill_server(target, p.connect, &server.value);
    }
    if let Some((lock, _)) = p.lock {
        lock.path.clone_from(&r.lock.value);
    }
    if let (Some(version), Some(manifest)) = (p.version, &r.manifest) {
        version.manifest = Some(manifest.value.clone());
    }
    if let Some(rules) = p.rules {
        rules.strict_semver = r.strict_semver.value;
        rules.deny_security = r.deny_security.value;
    }
    if let Some(exclude) = p.exclude {
        exclude.clone_from(&r.exclude.value);
    }
    if let Some((fail_on, _)) = p.fail_on {
        *fail_on = from_config(r.fail_on.value);
    }
    if let Some(skip) = p.skip {
        skip.clone_from(&r.skip.value);
    }
    // `[anonymous]`: each list only when its flag was not given.
    if let (Some(a), Some(conf)) = (p.anonymous, loaded.config.anonymous.as_ref()) {
        if a.anonymous_env_unset.is_empty() {
            a.anonymous_env_unset.clone_from(&conf.env_unset);
        }
        if a.routes.is_empty() {
            a.routes.clone_from(&conf.routes);
        }
    }
}

fn to_config(f: args::FailOn) -> FailOn {
    match f {
        args::FailOn::Error => FailOn::Error,
        args::FailOn::Warning => FailOn::Warning,
        args::FailOn::Never => FailOn::Never,
    }
}

fn from_config(f: FailOn) -> args::FailOn {
    match f {
        FailOn::Error => args::FailOn::Error,
        FailOn::Warning => args::FailOn::Warning,
        FailOn::Never => args::FailOn::Never,
    }
}

/// `mcpseal config`.
#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

/// Prints the resolved settings and where each came from (no flags: config, else default).
pub fn run(args: &ConfigArgs) -> Result<Outcome, CliError> {
    let loaded = load()?;
    let r = config::resolve(loaded.as_ref(), &Flags::default());
    let rows = rows(&r);
    let text = match args.format {
        DocFormat::Text => {
            let mut text = format!(
                "config          {}\n",
                r.file
                    .as_deref()
                    .unwrap_or("(none: every setting is a default)")
            );
            for (key, value, source) in &rows {
                text.push_str(&format!("{key:<15} {value}  ({source})\n"));
            }
            text
        }
        DocFormat::Json => {
            let doc = config::ConfigDocument {
                schema_version: 1,
                file: r.file.clone(),
                settings: rows
                    .iter()
                    .map(|(k, v, s)| {
                        let shown = config::ShownSetting {
                            value: v.clone(),
                            source: s.clone(),
                        };
                        (k.clone(), shown)
                    })
                    .collect(),
            };
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).map_err(|e| CliError::usage(e.to_string()))?
            )
        }
    };
    output::emit(&text, None)?;
    Ok(Outcome::Ok)
}

fn rows(r: &Resolved) -> Vec<(String, String, String)> {
    let path = |p: &PathBuf| p.display().to_string();
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_owned()
        } else {
            v.join(", ")
        }
    };
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut row = |key: &str, value: String, source: String| {
        rows.push((key.to_owned(), value, source));
    };
    // A server table as three rows: the target, the env names, the working directory.
    let server_rows = |row: &mut dyn FnMut(&str, String, String),
                       key: &str,
                       s: &config::Setting<ResolvedServer>| {
        let shown = match &s.value.target {
            ServerTarget::Command(c) => format!("-- {}", c.join(" ")),
            ServerTarget::Url(u) => u.clone(),
        };
        row(key, shown, s.source.to_string());
        let names: Vec<String> = s.value.env.iter().map(|(k, _)| k.clone()).collect();
        // Names only: values may be credentials.
        row(&format!("{key}.env"), list(&names), s.source.to_string());
        row(
            &format!("{key}.cwd"),
            path(&s.value.cwd),
            s.source.to_string(),
        );
    };
    match &r.server {
        Some(s) => server_rows(&mut row, "server", s),
        None => row(
            "server",
            "(none: give a URL or `-- COMMAND`)".to_owned(),
            "default".to_owned(),
        ),
    }
    row("lock", path(&r.lock.value), r.lock.source.to_string());
    match &r.manifest {
        Some(m) => row("manifest", path(&m.value), m.source.to_string()),
        None => row(
            "manifest",
            "(the one manifest here, else serverInfo.version)".to_owned(),
            "default".to_owned(),
        ),
    }
    row(
        "exclude",
        list(&r.exclude.value),
        r.exclude.source.to_string(),
    );
    row(
        "fail-on",
        r.fail_on.value.as_str().to_owned(),
        r.fail_on.source.to_string(),
    );
    row("skip", list(&r.skip.value), r.skip.source.to_string());
    row(
        "strict-semver",
        r.strict_semver.value.to_string(),
        r.strict_semver.source.to_string(),
    );
    row(
        "deny-security",
        r.deny_security.value.to_string(),
        r.deny_security.source.to_string(),
    );
    if let Some(v) = &r.required_version {
        row("required-version", v.value.clone(), v.source.to_string());
    }
    if r.profiles.is_empty() {
        row(
            "profiles",
            "(none: a profile's target is given on the command line)".to_owned(),
            "default".to_owned(),
        );
    }
    for (name, s) in &r.profiles {
        server_rows(&mut row, &format!("profiles.{name}"), s);
    }
    match &r.anonymous {
        Some(a) => {
            let source = a.source.to_string();
            row(
                "anonymous.env-unset",
                list(&a.value.env_unset),
                source.clone(),
            );
            row("anonymous.routes", list(&a.value.routes), source);
        }
        None => {
            row("anonymous.env-unset", list(&[]), "default".to_owned());
            row("anonymous.routes", list(&[]), "default".to_owned());
        }
    }
    rows
}
