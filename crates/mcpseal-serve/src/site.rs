//! A site: the config turned into MCP lists and a [`Handler`] whose every answer went through
//! [`Trust::get`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcpseal_protocol::ListKind;
use mcpseal_server::{Answer, Context, Handler, HttpOptions, Implementation, Options, RpcError};
use serde_json::{Map, Value, json};

use crate::answers;
use crate::config::{LoadedConfig, SignatureMode, parse_duration};
use crate::error::{ConfigError, VerifyError};
use crate::origin::{Limits, Origin};
use crate::path::{Template, site_path};
use crate::signature::{IdentityPolicy, SIGSTORE_BUILT, SignaturePolicy};
use crate::trust::{Notes, Trust, Verified};

/// What the caller may change at start-up beyond the config file.
#[derive(Clone)]
pub struct SiteOptions {
    /// `--manifest-ttl`: overrides `origin.manifest_ttl`.
    pub manifest_ttl: Option<Duration>,
    /// Where warnings go (stderr in the CLI).
    pub notes: Notes,
}

impl std::fmt::Debug for SiteOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiteOptions")
            .field("manifest_ttl", &self.manifest_ttl)
            .finish_non_exhaustive()
    }
}

impl Default for SiteOptions {
    fn default() -> SiteOptions {
        SiteOptions {
            manifest_ttl: None,
            notes: Arc::new(|_: &str| {}),
        }
    }
}

pub(crate) struct VerbSpec {
    pub id: String,
    pub path: Template,
    pub schema: Value,
    pub validator: jsonschema::Validator,
    pub mime_type: Option<String>,
    pub description: String,
}

struct ResourceSpec {
    path: String,
    mime_type: Option<String>,
}

struct TemplateSpec {
    uri: Template,
    path: Template,
    mime_type: Option<String>,
}

/// A verified static site, ready to serve.
pub struct Site {
    me: Implementation,
    instructions: Option<String>,
    lists: [Option<Arc<[Value]>>; 4],
    pub(crate) verbs: BTreeMap<String, VerbSpec>,
    resources: BTreeMap<String, ResourceSpec>,
    templates: Vec<TemplateSpec>,
    api_prefix: String,
    trust: Trust,
    options: Options,
    http: HttpOptions,
}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Site")
            .field("implementation", &self.me)
            .field("trust", &self.trust)
            .finish_non_exhaustive()
    }
}

/// Tool names as 2026-07-28 recommends them: 1–128 of `A-Za-z0-9_.-`.
fn tool_name_ok(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn opt(v: &Option<String>) -> Option<Value> {
    v.as_ref().map(|s| json!(s))
}

fn insert_opt(obj: &mut Value, key: &str, v: &Option<String>) {
    if let Some(v) = opt(v) {
        obj[key] = v;
    }
}

impl Site {
    /// Builds the site from a loaded config: checks every value, compiles the input schemas,
    /// opens the origin. Nothing is fetched yet (the manifest is fetched on first use).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the key that is wrong and what to do.
    pub fn new(loaded: &LoadedConfig, options: SiteOptions) -> Result<Site, ConfigError> {
        let c = &loaded.config;
        let o = &c.origin;
        if c.server.name.trim().is_empty() || c.server.version.trim().is_empty() {
            return Err(ConfigError::invalid(
                "`server.name` and `server.version` must not be empty",
                "name the server and give its surface a version",
            ));
        }
        let timeout = parse_duration(&o.fetch_timeout).ok_or_else(|| {
            ConfigError::invalid(
                format!(
                    "`origin.fetch_timeout` = `{}` is not a duration",
                    o.fetch_timeout
                ),
                "write it as `15s`, `500ms` or `2m`",
            )
        })?;
        let ttl = match (&options.manifest_ttl, &o.manifest_ttl) {
            (Some(t), _) => Some(*t),
            (None, Some(raw)) => Some(parse_duration(raw).ok_or_else(|| {
                ConfigError::invalid(
                    format!("`origin.manifest_ttl` = `{raw}` is not a duration"),
                    "write it as `10m`, `30s`; leave it out to fetch the manifest once per process",
                )
            })?),
            (None, None) => None,
        };
        if o.max_bytes == 0 {
            return Err(ConfigError::invalid(
                "`origin.max_bytes` must be above 0",
                "the default is 10485760 (10 MiB)",
            ));
        }
        let limits = Limits {
            timeout,
            max_bytes: o.max_bytes,
        };
        let origin = Origin::new(&o.base_url, &loaded.dir, limits).map_err(|e| {
            ConfigError::invalid(
                format!("`origin.base_url`: {e}"),
                "use `https://…`, `http://…` or a directory relative to the config file",
            )
        })?;
        let manifest_path = crate::manifest::normalise(&o.manifest_path).ok_or_else(|| {
            ConfigError::invalid(
                format!(
                    "`origin.manifest_path` = `{}` is not a relative path",
                    o.manifest_path
                ),
                "name the manifest relative to the base",
            )
        })?;
        let signature_path = crate::manifest::normalise(&o.signature_path).ok_or_else(|| {
            ConfigError::invalid(
                format!(
                    "`origin.signature_path` = `{}` is not a relative path",
                    o.signature_path
                ),
                "name the bundle relative to the base",
            )
        })?;
        let policy = match o.signature_mode {
            SignatureMode::Off => None,
            mode => {
                if mode == SignatureMode::Require && !SIGSTORE_BUILT {
                    return Err(ConfigError::invalid(
                        "`origin.signature_mode = \"require\"` needs Sigstore support, and this build has none",
                        "build mcpseal with its default `sigstore` feature, or use `warn`",
                    ));
                }
                let (Some(identity), Some(issuer)) = (&o.expected_identity, &o.expected_issuer)
                else {
                    return Err(ConfigError::invalid(
                        format!(
                            "`origin.signature_mode = \"{}\"` needs `origin.expected_identity` and `origin.expected_issuer`",
                            mode.as_str()
                        ),
                        "set the signer identity (exact or `regex:…`) and its OIDC issuer, e.g. `https://token.actions.githubusercontent.com`",
                    ));
                };
                let identity = IdentityPolicy::parse(identity).map_err(|e| {
                    ConfigError::invalid(
                        format!("`origin.expected_identity`: {e}"),
                        "fix the pattern after `regex:`",
                    )
                })?;
                Some(SignaturePolicy {
                    identity,
                    issuer: issuer.clone(),
                })
            }
        };
        let trust = Trust::new(
            origin,
            manifest_path,
            signature_path,
            o.signature_mode,
            policy,
            ttl,
            options.notes,
        );
        let api_prefix = o.api_prefix.trim_matches('/').to_owned();

        let mut tools = Vec::new();
        let mut verbs = BTreeMap::new();
        for v in &c.verbs {
            let spec = verb_spec(v)?;
            if verbs.contains_key(&v.id) {
                return Err(ConfigError::invalid(
                    format!("verb `{}` is defined twice", v.id),
                    "give every verb its own `id`",
                ));
            }
            let mut tool = json!({
                "name": v.id,
                "description": v.description,
                "inputSchema": v.input_schema,
                "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
            });
            insert_opt(&mut tool, "title", &v.title);
            if let Some(t) = &v.title {
                tool["annotations"]["title"] = json!(t);
            }
            tools.push(tool);
            verbs.insert(v.id.clone(), spec);
        }
        let mut resources_list = Vec::new();
        let mut resources = BTreeMap::new();
        for r in &c.resources {
            let path = site_path(&api_prefix, &r.path).map_err(|e| {
                ConfigError::invalid(
                    format!("resource `{}`: `path`: {e}", r.uri),
                    "give a path under the API prefix",
                )
            })?;
            if r.path.contains(['{', '}']) {
                return Err(ConfigError::invalid(
                    format!("resource `{}` has a variable in its `path`", r.uri),
                    "use `[[resource_templates]]` for families of resources",
                ));
            }
            if resources
                .insert(
                    r.uri.clone(),
                    ResourceSpec {
                        path,
                        mime_type: r.mime_type.clone(),
                    },
                )
                .is_some()
            {
                return Err(ConfigError::invalid(
                    format!("resource `{}` is defined twice", r.uri),
                    "give every resource its own `uri`",
                ));
            }
            let mut item = json!({"uri": r.uri, "name": r.name});
            insert_opt(&mut item, "title", &r.title);
            insert_opt(&mut item, "description", &r.description);
            insert_opt(&mut item, "mimeType", &r.mime_type);
            resources_list.push(item);
        }
        let mut templates_list = Vec::new();
        let mut templates = Vec::new();
        for t in &c.resource_templates {
            let bad = |e: String| {
                ConfigError::invalid(
                    format!("resource template `{}`: {e}", t.uri_template),
                    "use `{name}` variables; every variable of `path` must appear in `uri_template`",
                )
            };
            let uri = Template::parse(&t.uri_template).map_err(bad)?;
            let path = Template::parse(&t.path).map_err(bad)?;
            let uri_vars: Vec<&str> = uri.variables().collect();
            if let Some(v) = path.variables().find(|v| !uri_vars.contains(v)) {
                return Err(bad(format!("`{{{v}}}` of `path` is not in `uri_template`")));
            }
            templates.push(TemplateSpec {
                uri,
                path,
                mime_type: t.mime_type.clone(),
            });
            let mut item = json!({"uriTemplate": t.uri_template, "name": t.name});
            insert_opt(&mut item, "title", &t.title);
            insert_opt(&mut item, "description", &t.description);
            insert_opt(&mut item, "mimeType", &t.mime_type);
            templates_list.push(item);
        }
        let served = |v: Vec<Value>, any: bool| any.then(|| Arc::<[Value]>::from(v));
        let has_resources = !resources_list.is_empty() || !templates_list.is_empty();
        let lists = [
            served(tools, !c.verbs.is_empty()),
            served(resources_list, has_resources),
            served(templates_list, has_resources),
            None,
        ];
        let mut me = Implementation::new(c.server.name.clone(), c.server.version.clone());
        me.title.clone_from(&c.server.title);
        Ok(Site {
            me,
            instructions: c.server.instructions.clone(),
            lists,
            verbs,
            resources,
            templates,
            api_prefix,
            trust,
            options: Options {
                legacy: c.server.legacy,
                page_size: c.server.page_size.max(1),
                ..Options::default()
            },
            http: HttpOptions {
                allowed_origins: c.http.allowed_origins.clone(),
                allowed_hosts: c.http.allowed_hosts.clone(),
                ..HttpOptions::default()
            },
        })
    }

    /// The verifying client.
    pub fn trust(&self) -> &Trust {
        &self.trust
    }

    /// Dispatcher options from the config.
    pub fn server_options(&self) -> Options {
        self.options.clone()
    }

    /// HTTP options from the config.
    pub fn http_options(&self) -> HttpOptions {
        self.http.clone()
    }

    /// The verbs: `(id, description)`, sorted.
    pub fn verbs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.verbs
            .values()
            .map(|v| (v.id.as_str(), v.description.as_str()))
    }

    /// Validates `args` (an arguments object) against the verb's input schema and resolves its
    /// manifest path. A `Value`, not a map: the validator takes one, and a tool call's arguments
    /// arrive owned, so wrapping them costs nothing where cloning a map would on every call.
    pub(crate) fn resolve(&self, verb: &VerbSpec, instance: &Value) -> Result<String, Vec<String>> {
        let empty = Map::new();
        let args = instance.as_object().unwrap_or(&empty);
        // `is_valid` stops at the first failure and builds no error (nor the boxed iterator of
        // them): arguments that pass, the common case, cost no allocation here; the errors are
        // collected only to say why arguments are refused.
        if !verb.validator.is_valid(instance) {
            return Err(verb
                .validator
                .iter_errors(instance)
                .map(|e| {
                    let at = e.instance_path().to_string();
                    if at.is_empty() {
                        e.to_string()
                    } else {
                        format!("{at}: {e}")
                    }
                })
                .collect());
        }
        let filled = verb.path.fill(args).map_err(|e| vec![e])?;
        site_path(&self.api_prefix, &filled).map_err(|e| vec![e])
    }

    /// Runs verb `id` with `args`: validated, resolved, fetched and verified.
    ///
    /// # Errors
    /// [`VerbError`].
    pub async fn run_verb(
        &self,
        id: &str,
        args: &Map<String, Value>,
    ) -> Result<Verified, VerbError> {
        let verb = self
            .verbs
            .get(id)
            .ok_or_else(|| VerbError::Unknown(id.to_owned()))?;
        let instance = Value::Object(args.clone());
        let path = self
            .resolve(verb, &instance)
            .map_err(VerbError::Arguments)?;
        Ok(self.trust.get(&path).await?)
    }
}

/// A verb could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerbError {
    /// No such verb.
    #[error("there is no verb `{0}`")]
    Unknown(String),
    /// The arguments do not satisfy the verb's input schema.
    #[error("invalid arguments: {}", .0.join("; "))]
    Arguments(Vec<String>),
    /// The artifact could not be vouched for.
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

fn verb_spec(v: &crate::config::Verb) -> Result<VerbSpec, ConfigError> {
    let bad = |e: String| {
        ConfigError::invalid(
            format!("verb `{}`: {e}", v.id),
            "see `examples/site/site.toml`",
        )
    };
    if !tool_name_ok(&v.id) {
        return Err(bad(
            "`id` must be 1–128 of `A-Za-z0-9_.-` (it is the MCP tool name)".into(),
        ));
    }
    if v.input_schema.get("type") != Some(&json!("object")) {
        return Err(bad(
            "`input_schema` must be an object schema (`type = \"object\"`)".into(),
        ));
    }
    let validator = jsonschema::validator_for(&v.input_schema)
        .map_err(|e| bad(format!("`input_schema` is not a valid JSON Schema: {e}")))?;
    let path = Template::parse(&v.path).map_err(|e| bad(format!("`path`: {e}")))?;
    let required: Vec<&str> = v
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for var in path.variables() {
        if v.input_schema
            .pointer(&format!("/properties/{var}"))
            .is_none()
            || !required.contains(&var)
        {
            return Err(bad(format!(
                "`{{{var}}}` of `path` must be a required property of `input_schema`"
            )));
        }
    }
    Ok(VerbSpec {
        id: v.id.clone(),
        path,
        schema: v.input_schema.clone(),
        validator,
        mime_type: v.mime_type.clone(),
        description: v.description.clone(),
    })
}

impl Handler for Site {
    fn implementation(&self) -> &Implementation {
        &self.me
    }

    fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    fn list(&self, kind: ListKind) -> Option<Arc<[Value]>> {
        self.lists[kind.index()].clone()
    }

    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        _ctx: &Context,
    ) -> Result<Answer, RpcError> {
        let Some(verb) = self.verbs.get(name) else {
            return Err(RpcError::invalid_params(format!("Unknown tool: {name}")));
        };
        let path = match self.resolve(verb, &Value::Object(arguments)) {
            Ok(p) => p,
            Err(errors) => return Ok(answers::invalid_arguments(&errors)),
        };
        let v = self.trust.get(&path).await.map_err(|e| e.to_rpc())?;
        Ok(answers::tool_result(&v, verb.mime_type.as_ref()))
    }

    async fn read_resource(&self, uri: &str, _ctx: &Context) -> Result<Answer, RpcError> {
        let (path, mime) = if let Some(r) = self.resources.get(uri) {
            (r.path.clone(), r.mime_type.as_ref())
        } else {
            let found = self.templates.iter().find_map(|t| {
                let vars = t.uri.matches(uri)?;
                let filled = t.path.fill(&vars).ok()?;
                Some((
                    site_path(&self.api_prefix, &filled).ok()?,
                    t.mime_type.as_ref(),
                ))
            });
            found.ok_or_else(|| RpcError::resource_not_found(uri))?
        };
        let v = self.trust.get(&path).await.map_err(|e| match e {
            // A URI whose artifact is not in the manifest is a resource that does not exist.
            VerifyError::NotSigned { .. } => RpcError::resource_not_found(uri)
                .with_data(json!({"uri": uri, "reason": "not-signed", "path": path})),
            other => other.to_rpc(),
        })?;
        Ok(answers::resource_result(uri, mime, &v))
    }
}
