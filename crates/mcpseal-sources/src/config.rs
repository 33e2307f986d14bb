//! The [`Sources`] handle and its configuration: where the cache is, which tools and
//! registries to use, and every time bound.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::OnceCell;

use crate::cache::Cache;
use crate::error::SourceError;
use crate::http::{Http, HttpLimits};

/// The programs the installers run (looked up on `PATH` unless absolute).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    /// `npm`.
    pub npm: PathBuf,
    /// `node`, which runs npm entry points.
    pub node: PathBuf,
    /// A Python 3 with `venv` and `pip` (pip ≥ 22.3 for `--python`).
    pub python: PathBuf,
    /// `git`.
    pub git: PathBuf,
}

impl Default for Tools {
    fn default() -> Self {
        Tools {
            npm: "npm".into(),
            node: "node".into(),
            python: "python3".into(),
            git: "git".into(),
        }
    }
}

/// How [`Sources`] resolves and installs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The cache ([`Cache::default_root`] when the caller has no preference).
    pub cache: Cache,
    /// Metadata and artifact fetch limits.
    pub http: HttpLimits,
    /// Programs.
    pub tools: Tools,
    /// The npm registry for sources that name none; `None` = `npm config get registry`, else
    /// the public registry.
    pub npm_registry: Option<String>,
    /// The PyPI simple index for sources that name none; `None` = `PIP_INDEX_URL`, else
    /// `pip config get global.index-url`, else the public index.
    pub pypi_index: Option<String>,
    /// Install a PyPI version from its sdist when it has no wheel (runs its build backend:
    /// arbitrary code, outside the sandbox). Off by default.
    pub allow_sdist: bool,
    /// Deadline of one installer or build step run. Default 10 min.
    pub install_timeout: Duration,
    /// Deadline of a quick tool query (`npm config get`, `git for-each-ref`). Default 60 s.
    pub tool_timeout: Duration,
    /// Deadline of a git clone or fetch. Default 10 min.
    pub git_fetch_timeout: Duration,
    /// Largest `git archive` of one tag. Default 1 GiB.
    pub max_checkout_bytes: u64,
    /// Variables added to every installer run (`npm`, `pip`, `git`, build steps), e.g. a
    /// private `npm_config_cache`. Empty by default: installers see the caller's environment.
    pub installer_env: Vec<(String, String)>,
}

impl Config {
    /// Defaults around a cache.
    pub fn new(cache: Cache) -> Config {
        Config {
            cache,
            http: HttpLimits::default(),
            tools: Tools::default(),
            npm_registry: None,
            pypi_index: None,
            allow_sdist: false,
            install_timeout: Duration::from_secs(600),
            tool_timeout: Duration::from_secs(60),
            git_fetch_timeout: Duration::from_secs(600),
            max_checkout_bytes: 1024 * 1024 * 1024,
            installer_env: Vec::new(),
        }
    }
}

/// Resolves versions of package sources, installs them into the cache, and (with
/// [`crate::launch::plan`]) says how to start them. Cheap to share behind an `Arc`; all
/// methods take `&self` and may run concurrently.
#[derive(Debug)]
pub struct Sources {
    pub(crate) config: Config,
    pub(crate) http: Http,
    pub(crate) npm_registry: OnceCell<String>,
    pub(crate) pypi_index: OnceCell<String>,
    pub(crate) python: OnceCell<Result<crate::install::pypi::Interpreter, String>>,
    /// git mirrors already brought up to date by this handle (fetched once per handle).
    pub(crate) mirrors: std::sync::Mutex<std::collections::HashMap<String, PathBuf>>,
}

impl Sources {
    /// A handle with `config`.
    ///
    /// # Errors
    /// [`SourceError::Http`] when the HTTP client cannot be built.
    pub fn new(config: Config) -> Result<Sources, SourceError> {
        Ok(Sources {
            http: Http::new(config.http)?,
            config,
            npm_registry: OnceCell::new(),
            pypi_index: OnceCell::new(),
            python: OnceCell::new(),
            mirrors: std::sync::Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A bounded run of an installer tool, with [`Config::installer_env`] applied.
    pub(crate) fn tool(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        timeout: Duration,
    ) -> crate::process::Run {
        let mut r = crate::process::Run::new(program, timeout);
        for (k, v) in &self.config.installer_env {
            r = r.env(k, v);
        }
        r
    }
}
