//! The cohort file (`cohort.toml`): which servers an index run measures, each by exact version
//! and install method.
//!
//! ```toml
//! schema-version = 1              # optional; a newer one is refused
//!
//! [defaults]                      # optional; every key may be set per target too
//! budget-seconds = 120            # the whole install + start + snapshot + probe of one target
//! request-timeout-seconds = 30    # one request
//!
//! [[target]]
//! id = "server-memory"            # unique; [a-z0-9._-], 1–64 characters
//! install = "npm:@modelcontextprotocol/server-memory@2025.9.25"
//! integrity = "sha512-…"          # npm: the tarball's SRI; PyPI: the wheel's `sha256:HEX`
//! registry = "https://…/"         # npm registry or PyPI simple index (default: the configured);
//!                                 # for `registry:` targets the MCP Registry (default the official)
//! bin = "mcp-server-memory"       # the entry point, when the package has several
//! args = ["--flag"]               # appended to the entry point (never a shell)
//! env = { LOG_LEVEL = "warn" }    # the only variables the server gets besides PATH/locale
//! era = "2025-11-25"              # hint: the revision the server is expected to speak
//! ```
//!
//! Install methods (the `install` string):
//!
//! * `npm:PKG@VER` and `pypi:PKG==VER` — installed by `mcpseal-sources` (the same sandboxed,
//!   cached installer `replay` uses; install scripts off, wheels only), checked against
//!   `integrity` when given;
//! * `git:URL@SHA` — a commit, built by `build` (argv lists) and started by `run`;
//! * `url:https://…` — a remote Streamable HTTP endpoint (nothing installed; `url:http://`
//!   only for loopback hosts, so a cohort cannot send plain-text traffic across a network);
//! * `registry:NAME@VER` — an MCP Registry entry (registry versions are immutable), expanded at
//!   run time: its first npm or PyPI package (installed as above, checked against the entry's
//!   `fileSha256` when it gives one), else its first `streamable-http` remote; the entry's
//!   published fingerprint block is compared with what was measured;
//! * `cmd:PROGRAM` — a program on this machine started with `args` (self-hosted cohorts and
//!   tests; not pinned, and its rows say so).
//!
//! Fail closed: unknown keys, duplicate ids, an unpinned package, a `url:` that is not
//! `https://` (or loopback `http://`) are errors naming the target, never skipped targets.

use std::collections::BTreeMap;
use std::fmt;

use mcpseal_sources::Pin;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The cohort file format this build reads.
pub const COHORT_SCHEMA_VERSION: u32 = 1;

/// Default per-target budget (install + start + snapshot + probe).
pub const DEFAULT_BUDGET_SECONDS: u64 = 300;
/// Default per-request timeout.
pub const DEFAULT_REQUEST_TIMEOUT_SECONDS: u64 = 30;
/// Largest cohort file read (bytes).
pub const MAX_COHORT_BYTES: usize = 16 * 1024 * 1024;

/// A cohort file as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(title = "mcpseal index cohort file (cohort.toml)")]
pub struct Cohort {
    /// The format's version (default 1).
    #[serde(default = "one")]
    pub schema_version: u32,
    /// Values every target gets unless it sets its own.
    #[serde(default)]
    pub defaults: Defaults,
    /// The targets, one `[[target]]` table each.
    #[serde(default, rename = "target")]
    pub targets: Vec<TargetSpec>,
}

fn one() -> u32 {
    1
}

/// Cohort-wide defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Defaults {
    /// Seconds for the whole install + start + snapshot + probe of one target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_seconds: Option<u64>,
    /// Seconds one request may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_seconds: Option<u64>,
}

/// One `[[target]]` table as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TargetSpec {
    /// The target's permanent id: its history and its shard follow it.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9._-]{0,63}$"))]
    pub id: String,
    /// `npm:PKG@VER`, `pypi:PKG==VER`, `git:URL@SHA`, `url:https://…`, `registry:NAME@VER`
    /// or `cmd:PROGRAM`.
    pub install: String,
    /// npm: the tarball's SRI (`sha512-…`); PyPI: the wheel's SHA-256 (`sha256:HEX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
    /// npm registry or PyPI simple index URL (default: the configured one); for a
    /// `registry:` target, the MCP Registry's base URL (default the official registry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// The entry point when the package has several (npm `bin`, console script).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    /// Arguments appended to the entry point (an argv list, never a shell line).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Environment variables the server gets (nothing else of the caller's but PATH and the
    /// locale). Values never appear in a report.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The revision the server is expected to speak (`2026-07-28`, `2025-11-25`), shown next
    /// to the measured one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// git: build steps run in the checkout, each an argv list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build: Vec<Vec<String>>,
    /// git: the command that starts the server, run in the checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Vec<String>>,
    /// This target's budget, overriding `[defaults]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_seconds: Option<u64>,
    /// This target's request timeout, overriding `[defaults]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_seconds: Option<u64>,
}

/// How a target is obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Install {
    /// A pinned npm, PyPI or git version, installed by `mcpseal-sources`.
    Package(Pin),
    /// A remote Streamable HTTP endpoint.
    Url(String),
    /// An MCP Registry entry (`NAME`, `VER`), expanded at run time into a package pin (or its
    /// remote).
    Registry {
        /// The registry name (`io.github.owner/server`).
        name: String,
        /// The exact version.
        version: String,
        /// The MCP Registry's base URL (without `/v0.1`; `None`: the official registry).
        base: Option<String>,
    },
    /// A local program (not pinned).
    Command(String),
}

impl Install {
    /// The exact version this install names, when it names one.
    pub fn version(&self) -> Option<&str> {
        match self {
            Install::Package(p) => Some(&p.version),
            Install::Registry { version, .. } => Some(version),
            Install::Url(_) | Install::Command(_) => None,
        }
    }

    /// `npm`, `pypi`, `git`, `url`, `registry` or `cmd`.
    pub fn kind(&self) -> &'static str {
        match self {
            Install::Package(p) => match p.source {
                mcpseal_sources::Source::Npm(_) => "npm",
                mcpseal_sources::Source::Pypi(_) => "pypi",
                mcpseal_sources::Source::Git(_) => "git",
            },
            Install::Url(_) => "url",
            Install::Registry { .. } => "registry",
            Install::Command(_) => "cmd",
        }
    }
}

/// One checked target, with the defaults applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The id.
    pub id: String,
    /// The install string as written (the row's `install`).
    pub spec: String,
    /// How it is obtained.
    pub install: Install,
    /// Entry point.
    pub bin: Option<String>,
    /// Arguments.
    pub args: Vec<String>,
    /// Environment.
    pub env: BTreeMap<String, String>,
    /// Era hint.
    pub era: Option<String>,
    /// Whole-target budget.
    pub budget_seconds: u64,
    /// Per-request timeout.
    pub request_timeout_seconds: u64,
}

/// A checked cohort.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedCohort {
    /// The targets, in file order.
    pub targets: Vec<Target>,
    /// SHA-256 of the file's bytes (`sha256:HEX`), so a row names the cohort it came from.
    pub sha256: String,
}

/// A cohort file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CohortError {
    /// Not TOML, or not this shape.
    #[error("the cohort file is not valid: {0}")]
    Syntax(String),
    /// A newer format.
    #[error("the cohort file has schema-version {0}; this mcpseal reads {COHORT_SCHEMA_VERSION}")]
    Version(u32),
    /// Larger than [`MAX_COHORT_BYTES`].
    #[error("the cohort file is {0} bytes, more than the {MAX_COHORT_BYTES} read")]
    TooLarge(usize),
    /// One target is wrong.
    #[error("target `{id}`: {why}")]
    Target {
        /// The target's id (or its position when it has none).
        id: String,
        /// What is wrong.
        why: String,
    },
}

impl CohortError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            CohortError::Syntax(_) => {
                "check the file against schemas/cohort.schema.json (keys are kebab-case, one [[target]] table per server)"
            }
            CohortError::Version(_) => "use a newer mcpseal, or write schema-version = 1",
            CohortError::TooLarge(_) => "split the cohort into several files",
            CohortError::Target { .. } => {
                "pin an exact version (`npm:PKG@VER`, `pypi:PKG==VER`, `git:URL@SHA`), or use `url:https://…` / `registry:NAME@VER` / `cmd:PROGRAM`; ids are unique, [a-z0-9._-]"
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.id, self.spec)
    }
}

/// Parses and checks a cohort file's bytes.
///
/// # Errors
/// [`CohortError`] naming the first problem.
pub fn parse(bytes: &[u8]) -> Result<CheckedCohort, CohortError> {
    if bytes.len() > MAX_COHORT_BYTES {
        return Err(CohortError::TooLarge(bytes.len()));
    }
    let text =
        std::str::from_utf8(bytes).map_err(|e| CohortError::Syntax(format!("not UTF-8: {e}")))?;
    let cohort: Cohort = toml::from_str(text).map_err(|e| CohortError::Syntax(e.to_string()))?;
    if cohort.schema_version != COHORT_SCHEMA_VERSION {
        return Err(CohortError::Version(cohort.schema_version));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut targets = Vec::with_capacity(cohort.targets.len());
    for spec in &cohort.targets {
        let target = check(spec, &cohort.defaults)?;
        if !seen.insert(target.id.clone()) {
            return Err(CohortError::Target {
                id: target.id,
                why: "the id is used twice".into(),
            });
        }
        targets.push(target);
    }
    Ok(CheckedCohort {
        targets,
        sha256: crate::sha256_tagged(bytes),
    })
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && id.len() <= 64
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

fn loopback_host(url: &str) -> bool {
    let rest = url.trim_start_matches("http://");
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let name = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn check(spec: &TargetSpec, defaults: &Defaults) -> Result<Target, CohortError> {
    let bad = |why: String| CohortError::Target {
        id: spec.id.clone(),
        why,
    };
    if !valid_id(&spec.id) {
        return Err(bad(
            "the id must be 1–64 characters of [a-z0-9._-], starting with a letter or digit".into(),
        ));
    }
    let raw = spec.install.trim();
    let git_only = !spec.build.is_empty() || spec.run.is_some();
    let install = match raw.split_once(':') {
        Some(("url", url)) => {
            if !(url.starts_with("https://") || url.starts_with("http://") && loopback_host(url)) {
                return Err(bad(format!(
                    "`{raw}`: a remote is `url:https://…` (plain `http://` only on a loopback host)"
                )));
            }
            Install::Url(url.to_owned())
        }
        Some(("registry", rest)) => {
            let (name, version) = rest
                .rsplit_once('@')
                .filter(|(n, v)| !n.is_empty() && !v.is_empty())
                .ok_or_else(|| bad(format!("`{raw}`: a registry entry is `registry:NAME@VER`")))?;
            if version == "latest" {
                return Err(bad(format!(
                    "`{raw}`: `latest` moves; pin the exact version the registry lists"
                )));
            }
            Install::Registry {
                name: name.to_owned(),
                version: version.to_owned(),
                base: spec.registry.clone(),
            }
        }
        Some(("cmd", program)) if !program.is_empty() => Install::Command(program.to_owned()),
        _ => {
            let mut pin = Pin::parse(raw).map_err(|e| bad(e.to_string()))?;
            match &mut pin.source {
                mcpseal_sources::Source::Npm(p) => p.registry.clone_from(&spec.registry),
                mcpseal_sources::Source::Pypi(p) => p.index.clone_from(&spec.registry),
                mcpseal_sources::Source::Git(g) => {
                    g.build.clone_from(&spec.build);
                    g.run.clone_from(&spec.run);
                    if g.run.is_none() {
                        return Err(bad(
                            "a git target needs `run`, the command that starts the server".into(),
                        ));
                    }
                }
            }
            if let Some(i) = &spec.integrity {
                pin = pin.with_integrity(i.clone());
            }
            Install::Package(pin)
        }
    };
    if git_only && install.kind() != "git" {
        return Err(bad("`build` and `run` are for git targets only".into()));
    }
    if spec.integrity.is_some() && !matches!(install.kind(), "npm" | "pypi") {
        return Err(bad("`integrity` is for npm and PyPI targets only".into()));
    }
    if spec.registry.is_some() && !matches!(install.kind(), "npm" | "pypi" | "registry") {
        return Err(bad(
            "`registry` is for npm, PyPI and `registry:` targets only".into(),
        ));
    }
    if let Some(era) = &spec.era
        && !matches!(era.as_str(), "2026-07-28" | "2025-11-25")
    {
        return Err(bad(format!(
            "era `{era}` is not a revision mcpseal speaks (2026-07-28 or 2025-11-25)"
        )));
    }
    let positive = |v: Option<u64>, d: Option<u64>, fallback: u64, key: &str| match v.or(d) {
        Some(0) => Err(bad(format!("`{key}` must be at least 1"))),
        Some(n) => Ok(n),
        None => Ok(fallback),
    };
    Ok(Target {
        id: spec.id.clone(),
        spec: raw.to_owned(),
        install,
        bin: spec.bin.clone(),
        args: spec.args.clone(),
        env: spec.env.clone(),
        era: spec.era.clone(),
        budget_seconds: positive(
            spec.budget_seconds,
            defaults.budget_seconds,
            DEFAULT_BUDGET_SECONDS,
            "budget-seconds",
        )?,
        request_timeout_seconds: positive(
            spec.request_timeout_seconds,
            defaults.request_timeout_seconds,
            DEFAULT_REQUEST_TIMEOUT_SECONDS,
            "request-timeout-seconds",
        )?,
    })
}

/// The JSON Schema of the cohort file (its TOML read as data).
pub fn schema() -> serde_json::Value {
    mcpseal_report::schemas::schema_of::<Cohort>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_target(body: &str) -> Result<CheckedCohort, CohortError> {
        parse(format!("[[target]]\nid = \"t\"\n{body}\n").as_bytes())
    }

    #[test]
    fn every_install_method_reads() {
        let c = parse(
            br#"
[defaults]
budget-seconds = 60

[[target]]
id = "mem"
install = "npm:@modelcontextprotocol/server-memory@2025.9.25"
integrity = "sha512-abc"
registry = "http://127.0.0.1:4873/"
args = ["--x"]
env = { A = "1" }
era = "2025-11-25"

[[target]]
id = "time"
install = "pypi:mcp-server-time==0.6.2"
integrity = "sha256:00ff"
budget-seconds = 10

[[target]]
id = "repo"
install = "git:https://example.invalid/o/r.git@0123abcd"
build = [["npm", "ci"]]
run = ["node", "dist/index.js"]

[[target]]
id = "remote"
install = "url:https://mcp.example.invalid/mcp"

[[target]]
id = "local-http"
install = "url:http://127.0.0.1:8080/mcp"

[[target]]
id = "reg"
install = "registry:io.github.o/server@1.2.3"
registry = "http://127.0.0.1:9/"

[[target]]
id = "fixture"
install = "cmd:/bin/true"
"#,
        )
        .expect("valid");
        let kinds: Vec<_> = c.targets.iter().map(|t| t.install.kind()).collect();
        assert_eq!(
            kinds,
            ["npm", "pypi", "git", "url", "url", "registry", "cmd"]
        );
        let mem = &c.targets[0];
        assert_eq!(mem.budget_seconds, 60);
        assert_eq!(mem.request_timeout_seconds, DEFAULT_REQUEST_TIMEOUT_SECONDS);
        assert_eq!(mem.install.version(), Some("2025.9.25"));
        let Install::Package(pin) = &mem.install else {
            panic!("package")
        };
        assert_eq!(pin.integrity.as_deref(), Some("sha512-abc"));
        assert!(
            matches!(&pin.source, mcpseal_sources::Source::Npm(p) if p.registry.as_deref() == Some("http://127.0.0.1:4873/"))
        );
        assert_eq!(c.targets[1].budget_seconds, 10);
        assert_eq!(
            c.targets[5].install,
            Install::Registry {
                name: "io.github.o/server".into(),
                version: "1.2.3".into(),
                base: Some("http://127.0.0.1:9/".into()),
            }
        );
        assert!(c.sha256.starts_with("sha256:"));
    }

    #[test]
    fn refusals_name_the_target() {
        for (body, needle) in [
            ("install = \"npm:pkg\"", "pin names one version"),
            ("install = \"url:http://example.com/mcp\"", "loopback"),
            ("install = \"url:ftp://x\"", "https"),
            ("install = \"registry:io.x/y\"", "registry:NAME@VER"),
            ("install = \"registry:io.x/y@latest\"", "`latest` moves"),
            (
                "install = \"url:https://h/mcp\"\nregistry = \"https://r\"",
                "`registry:` targets only",
            ),
            ("install = \"git:https://h/o/r@0123abcd\"", "needs `run`"),
            (
                "install = \"cmd:/bin/true\"\nbuild = [[\"x\"]]",
                "git targets only",
            ),
            (
                "install = \"cmd:/bin/true\"\nintegrity = \"x\"",
                "npm and PyPI",
            ),
            (
                "install = \"cmd:/bin/true\"\nera = \"2024-11-05\"",
                "not a revision",
            ),
            (
                "install = \"cmd:/bin/true\"\nbudget-seconds = 0",
                "at least 1",
            ),
            ("install = \"cargo:x@1\"", "unknown source kind"),
        ] {
            let e = one_target(body).expect_err(body);
            assert!(
                matches!(&e, CohortError::Target { id, .. } if id == "t"),
                "{e}"
            );
            assert!(e.to_string().contains(needle), "{body}: {e}");
        }
    }

    #[test]
    fn file_level_refusals() {
        assert!(matches!(
            parse(b"[[target]]\nid = \"a\"\ninstall = \"cmd:x\"\n[[target]]\nid = \"a\"\ninstall = \"cmd:y\"\n"),
            Err(CohortError::Target { why, .. }) if why.contains("twice")
        ));
        assert!(matches!(
            parse(b"[[target]]\nid = \"Bad Id\"\ninstall = \"cmd:x\"\n"),
            Err(CohortError::Target { .. })
        ));
        assert!(matches!(
            parse(b"[[target]]\nid = \"a\"\ninstall = \"cmd:x\"\nunknown = 1\n"),
            Err(CohortError::Syntax(_))
        ));
        assert!(matches!(
            parse(b"schema-version = 2\n"),
            Err(CohortError::Version(2))
        ));
        assert!(matches!(parse(b"\xff"), Err(CohortError::Syntax(_))));
        // Quiet on the good case: an empty cohort is a valid (empty) cohort.
        assert_eq!(parse(b"").map(|c| c.targets.len()), Ok(0));
    }

    #[test]
    fn loopback_hosts() {
        for ok in [
            "http://127.0.0.1:1/mcp",
            "http://localhost/mcp",
            "http://[::1]:8/mcp",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for no in [
            "http://example.com/mcp",
            "http://127.0.0.1.example.com/",
            "http://10.0.0.1/",
        ] {
            assert!(!loopback_host(no), "{no}");
        }
    }
}
