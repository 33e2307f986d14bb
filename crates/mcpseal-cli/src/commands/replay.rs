//! `mcpseal replay SOURCE …`: parse, one facade call ([`mcpseal::replay::replay`]), render,
//! exit code (0 no violation, 1 violations, 2 could not replay).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use mcpseal::publishing::keys::OFFICIAL_REGISTRY;
use mcpseal::replay::{RegistryLookup, ReplayOptions, ReplaySource, out_files, replay};
use mcpseal::sources::{Cache, Config, LaunchOptions, Launcher, Source, VersionQuery};
use mcpseal_client::{Target, tokenize};
use mcpseal_report::replay::{ReplayVerdict, render_json, render_markdown, render_text};

use crate::error::{CliError, Outcome};
use crate::{output, settings};

/// `--format` of `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    /// For the terminal.
    Text,
    /// The typed report (`schemaVersion: 1`, `schemas/replay-report.schema.json`).
    Json,
    /// The table `replay-DATE.md` holds.
    Markdown,
}

/// `mcpseal replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// `npm:PKG`, `pypi:PKG`, `git:PATH_OR_URL` or `registry:NAME` (the versions an MCP
    /// Registry lists, each pinned to its npm/PyPI package). npm and PyPI use the configured
    /// registry (`npm config get registry`, `PIP_INDEX_URL`) unless `--registry` names one.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// Only versions in this semver range (`>=1.2, <2`).
    #[arg(long, value_name = "RANGE")]
    pub versions: Option<String>,
    /// Only versions published on or after this date (`YYYY-MM-DD` or RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only the newest N versions (after the other filters).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Replay pre-releases too.
    #[arg(long)]
    pub include_prereleases: bool,
    /// Replay yanked PyPI versions too.
    #[arg(long)]
    pub include_yanked: bool,
    /// The npm registry or PyPI simple index (`…/simple/`) to read and install from; for
    /// `registry:NAME`, the MCP Registry's base URL without `/v0.1` (default the official one).
    #[arg(long, value_name = "URL")]
    pub registry: Option<String>,
    /// npm/PyPI sources: the MCP Registry (base URL without `/v0.1`) whose listing of
    /// `--listed-as` gives each row's registry presence (default the official one).
    #[arg(long, value_name = "URL", requires = "listed_as")]
    pub mcp_registry: Option<String>,
    /// npm/PyPI sources: the MCP Registry server name whose versions pin this package
    /// (`io.github.me/weather`); each row then says whether the registry lists that version.
    #[arg(long, value_name = "NAME")]
    pub listed_as: Option<String>,
    /// The entry point to start when a package has several (npm `bin`, console script).
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// Arguments appended to the entry point's command, tokenised (never a shell).
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub args: Option<String>,
    /// Environment variable for every started version, `K=V` (repeatable; nothing else of the
    /// caller's environment but `PATH` and the locale is passed).
    #[arg(long = "env", short = 'e', value_name = "K=V")]
    pub env: Vec<String>,
    /// git sources: which tags are versions (`v*`; the text before the first wildcard is
    /// stripped).
    #[arg(long, value_name = "GLOB", default_value = "*")]
    pub tags: String,
    /// git sources: a build step run in the checked-out tag's root, tokenised, never a shell
    /// (repeatable, in order).
    #[arg(long = "build", value_name = "CMD")]
    pub build: Vec<String>,
    /// git sources: the command that starts the server, run in the checkout's root.
    #[arg(long, value_name = "CMD")]
    pub run: Option<String>,
    /// Versions installed and captured at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// In 0.x a new minor is a new compatibility line (the lock rules); `false` asks 0.x
    /// breaks for 1.0.0.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub zero_major: bool,
    /// Let the started versions reach the network (said in the report).
    #[arg(long)]
    pub allow_network: bool,
    /// Install PyPI versions that only have an sdist (runs their build backend, outside the
    /// sandbox).
    #[arg(long)]
    pub allow_sdist: bool,
    /// A live endpoint whose surface is matched against every replayed version.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Per-request timeout of each capture (`30s`).
    #[arg(long, default_value = "30s", value_name = "DURATION")]
    pub timeout: String,
    /// The install cache (default: the user's cache directory, `mcpseal/sources`).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Also write `replay-DATE.json` and `replay-DATE.md` into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Text)]
    pub format: ReplayFormat,
}

fn words(raw: &str, what: &str) -> Result<Vec<String>, CliError> {
    tokenize(raw).map_err(|e| {
        CliError::usage(format!("`{what} {raw}`: {e}"))
            .hint("quote words with spaces; the command is split like a target command, never run through a shell")
    })
}

fn options(a: &ReplayArgs) -> Result<ReplayOptions, CliError> {
    let usage = |e: mcpseal::sources::SourceError| {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    };
    let lookup = |name: &str, base: Option<&str>| -> Result<RegistryLookup, CliError> {
        if !name.contains('/') || name.starts_with('/') || name.ends_with('/') {
            return Err(
                CliError::usage(format!("`{name}` is not an MCP Registry server name"))
                    .hint("names look like `io.github.me/weather`"),
            );
        }
        Ok(RegistryLookup {
            base: base.unwrap_or(OFFICIAL_REGISTRY).to_owned(),
            name: name.to_owned(),
            timeout: std::time::Duration::from_secs(30),
            attempts: 3,
        })
    };
    if let Some(name) = a.source.strip_prefix("registry:") {
        let registry = lookup(name.trim(), a.registry.as_deref())?;
        return options_for(a, ReplaySource::Registry(registry));
    }
    let mut source = Source::parse(&a.source).map_err(usage)?;
    match &mut source {
        Source::Npm(p) => p.registry = a.registry.clone(),
        Source::Pypi(p) => p.index = a.registry.clone(),
        Source::Git(g) => {
            g.tags = a.tags.clone();
            g.build = a
                .build
                .iter()
                .map(|b| words(b, "--build"))
                .collect::<Result<_, _>>()?;
            g.run = a.run.as_deref().map(|r| words(r, "--run")).transpose()?;
        }
    }
    let mut o = options_for(a, ReplaySource::Package(source))?;
    if let Some(name) = &a.listed_as {
        o.presence = Some(lookup(name, a.mcp_registry.as_deref())?);
    }
    Ok(o)
}

/// The options every source shares (versions, cache, launch, judging, live).
fn options_for(a: &ReplayArgs, source: ReplaySource) -> Result<ReplayOptions, CliError> {
    let usage = |e: mcpseal::sources::SourceError| {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    };
    let query = VersionQuery {
        include_prereleases: a.include_prereleases,
        include_yanked: a.include_yanked,
        since: a
            .since
            .as_deref()
            .map(VersionQuery::parse_since)
            .transpose()
            .map_err(usage)?,
        range: a
            .versions
            .as_deref()
            .map(VersionQuery::parse_range)
            .transpose()
            .map_err(usage)?,
        last: a.last,
    };
    let root = cache_root(a.cache.as_deref())?;
    let mut config = Config::new(Cache::new(root));
    config.allow_sdist = a.allow_sdist;
    let launcher = launcher()?;
    let mut launch = LaunchOptions::new(launcher);
    launch.bin = a.bin.clone();
    launch.args = a
        .args
        .as_deref()
        .map(|x| words(x, "--args"))
        .transpose()?
        .unwrap_or_default();
    for raw in &a.env {
        let Some((k, v)) = raw.split_once('=') else {
            return Err(CliError::usage(format!("`--env {raw}` has no `=`"))
                .hint("write it as `--env NAME=value`"));
        };
        launch.env.push((k.to_owned(), v.to_owned()));
    }
    launch.isolation.network = !a.allow_network;
    let mut o = ReplayOptions::of(source, config, launch);
    o.query = query;
    if let Some(j) = a.jobs {
        o.jobs = j.max(1);
    }
    o.zero_major = a.zero_major;
    o.request_timeout = settings::parse_duration(&a.timeout)?;
    if let Some(url) = &a.url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(
                CliError::usage(format!("`--url {url}` is not an http(s) URL"))
                    .hint("give the live endpoint's Streamable HTTP URL"),
            );
        }
        o.live = Some((
            Target::http(url.clone()),
            mcpseal_client::Options {
                timeout: o.request_timeout,
                ..mcpseal_client::Options::default()
            },
        ));
    }
    o.tool_version = env!("MCPSEAL_VERSION").to_owned();
    Ok(o)
}

pub async fn run(a: ReplayArgs) -> Result<Outcome, CliError> {
    let o = options(&a)?;
    let run = replay(&o).await.map_err(|e| {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    })?;
    let r = &run.report;
    // Timings are for people: stderr (and the Markdown file), never the JSON.
    for t in &run.timings {
        output::note(&format!(
            "{}: {:.1} s{}",
            t.version,
            t.seconds,
            if t.cached { " (cached install)" } else { "" }
        ));
    }
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::usage(format!("cannot create `{}`: {e}", dir.display())))?;
        let (json, md) = out_files(dir, r);
        output::emit(&render_json(r), Some(&json))?;
        output::emit(&render_markdown(r, &run.timings), Some(&md))?;
    }
    let text = match a.format {
        ReplayFormat::Text => render_text(r),
        ReplayFormat::Json => render_json(r),
        ReplayFormat::Markdown => render_markdown(r, &[]),
    };
    output::emit_doc(&text, a.format == ReplayFormat::Text, None)?;
    Ok(match r.verdict {
        ReplayVerdict::Clean => Outcome::Ok,
        ReplayVerdict::Violations => Outcome::Found,
        ReplayVerdict::NothingCaptured => {
            output::note(
                "error: no version could be captured, so nothing was judged\nhint: the rows say why each version did not install or start",
            );
            Outcome::NoVerdict
        }
    })
}

/// The install cache `replay` and `registry verify --package` share: `--cache DIR`, else the
/// user's cache directory.
pub fn cache_root(given: Option<&std::path::Path>) -> Result<PathBuf, CliError> {
    given
        .map(std::path::Path::to_path_buf)
        .or_else(Cache::default_root)
        .ok_or_else(|| {
            CliError::usage("no cache directory could be found").hint("give one with `--cache DIR`")
        })
}

/// The sandbox launcher: this very executable.
pub fn launcher() -> Result<Launcher, CliError> {
    Launcher::current_exe().map_err(|e| {
        CliError::usage(format!("cannot find the running mcpseal executable: {e}"))
            .hint("run mcpseal from its installed path")
    })
}
