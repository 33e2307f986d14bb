//! The served surface: tools, resources, templates, prompts, instructions, identity.
//!
//! The default surface is deterministic and identical in every mode and over both
//! transports, so fingerprints taken over stdio and HTTP must agree. `--surface FILE`
//! replaces it (to simulate versions of a server); `--tools N` appends generated tools.
//! Every list is kept sorted by identity here; ordering misbehaviours live in `paging`.

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// Default instructions string.
pub const DEFAULT_INSTRUCTIONS: &str = "mcpseal fixture server. Use `echo` to echo text, `add` to add numbers, `clock` for a fixed time.";

/// A loaded surface. `None` lists are not served at all (-32601, capability omitted).
#[derive(Debug, Clone)]
pub struct Surface {
    /// `instructions` of discover/initialize.
    pub instructions: Option<String>,
    /// Capabilities override from a `--surface` file.
    pub capabilities: Option<Value>,
    /// Server name.
    pub name: String,
    /// Server version.
    pub version: String,
    /// Tools, sorted by `name`.
    pub tools: Option<Vec<Value>>,
    /// Resources, sorted by `uri`.
    pub resources: Option<Vec<Value>>,
    /// Resource templates, sorted by `uriTemplate`.
    pub templates: Option<Vec<Value>>,
    /// Prompts, sorted by `name`.
    pub prompts: Option<Vec<Value>>,
}

impl Surface {
    /// Build the surface from the knobs: file or default, plus `extra` generated tools.
    pub fn build(file: Option<&Path>, extra: usize, version: Option<&str>) -> anyhow::Result<Self> {
        let mut s = match file {
            Some(p) => Self::load(p)?,
            None => Self::default_surface(),
        };
        if extra > 0 {
            let tools = s.tools.get_or_insert_with(Vec::new);
            tools.extend((1..=extra).map(generated_tool));
        }
        if let Some(v) = version {
            s.version = v.to_owned();
        }
        s.sort();
        Ok(s)
    }

    fn sort(&mut self) {
        let by = |key: &'static str| {
            move |a: &Value, b: &Value| a[key].to_string().cmp(&b[key].to_string())
        };
        if let Some(t) = &mut self.tools {
            t.sort_by(by("name"));
        }
        if let Some(t) = &mut self.resources {
            t.sort_by(by("uri"));
        }
        if let Some(t) = &mut self.templates {
            t.sort_by(by("uriTemplate"));
        }
        if let Some(t) = &mut self.prompts {
            t.sort_by(by("name"));
        }
    }

    fn default_surface() -> Self {
        Self {
            instructions: Some(DEFAULT_INSTRUCTIONS.to_owned()),
            capabilities: None,
            name: "mcpseal-fixture".to_owned(),
            version: "1.0.0".to_owned(),
            tools: Some(default_tools()),
            resources: Some(vec![
                json!({"uri": "fixture://config", "name": "config", "title": "Fixture configuration",
                       "mimeType": "application/json"}),
                json!({"uri": "fixture://readme", "name": "readme", "title": "Read me",
                       "description": "What this fixture is", "mimeType": "text/markdown"}),
            ]),
            templates: Some(vec![json!({
                "uriTemplate": "fixture://items/{id}", "name": "item",
                "description": "One item by id", "mimeType": "text/plain"
            })]),
            prompts: Some(vec![
                json!({"name": "greet", "description": "Greet someone",
                       "arguments": [{"name": "name", "description": "Who to greet", "required": true}]}),
                json!({"name": "summarize", "description": "Summarize a text",
                       "arguments": [{"name": "text", "required": false}]}),
            ]),
        }
    }

    /// Load `{"instructions"?, "capabilities"?, "serverInfo"?, "tools": [..]|null, ...}`.
    /// A missing list key means an empty list; `null` means the method is not served.
    fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read surface file `{}`", path.display()))?;
        let v: Value = serde_json::from_str(&text)
            .with_context(|| format!("surface file `{}` is not JSON", path.display()))?;
        let Some(obj) = v.as_object() else {
            bail!("surface file `{}` must hold a JSON object", path.display());
        };
        let list = |key: &str| -> anyhow::Result<Option<Vec<Value>>> {
            match obj.get(key) {
                None => Ok(Some(Vec::new())),
                Some(Value::Null) => Ok(None),
                Some(Value::Array(a)) => Ok(Some(a.clone())),
                Some(_) => bail!("surface key `{key}` must be an array or null"),
            }
        };
        let info = obj.get("serverInfo");
        let text_of = |v: Option<&Value>, default: &str| {
            v.and_then(Value::as_str).unwrap_or(default).to_owned()
        };
        Ok(Self {
            instructions: obj
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_owned),
            capabilities: obj.get("capabilities").cloned(),
            name: text_of(info.and_then(|i| i.get("name")), "mcpseal-fixture"),
            version: text_of(info.and_then(|i| i.get("version")), "1.0.0"),
            tools: list("tools")?,
            resources: list("resources")?,
            templates: list("resourceTemplates")?,
            prompts: list("prompts")?,
        })
    }

    /// `--tool-defs` and `--call-tools`: append their tools (then re-sort).
    pub fn add_knob_tools(&mut self, defs: &[crate::knobs::ToolDefsKnob], call_tools: bool) {
        use crate::knobs::ToolDefsKnob;
        let tools = self.tools.get_or_insert_with(Vec::new);
        let object = json!({"type": "object"});
        for d in defs {
            match d {
                ToolDefsKnob::Invalid => {
                    tools.push(
                        json!({"name": "broken_input", "description": "Root type is not object",
                        "inputSchema": {"type": "array", "items": {"type": "string"}}}),
                    );
                    tools.push(json!({"name": "broken_output", "description": "Output schema does not compile",
                        "inputSchema": object, "outputSchema": {"type": "objekt"}}));
                }
                ToolDefsKnob::RemoteRef => tools.push(json!({
                    "name": "remote_ref", "description": "Arguments defined in another document",
                    "inputSchema": {"type": "object", "properties": {
                        "args": {"$ref": "https://schemas.example.com/args.json"}}}
                })),
                ToolDefsKnob::Sloppy => {
                    tools.push(json!({"name": "bad name!", "inputSchema": object}));
                    let dangling = json!({"name": "dangling", "description": "Refers to a missing definition",
                        "inputSchema": {"type": "object", "properties": {
                            "x": {"$ref": "#/$defs/missing"}}}});
                    tools.push(dangling.clone());
                    tools.push(dangling);
                }
            }
        }
        if call_tools {
            let sum = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
            for (name, description) in [
                ("bad_output", "structuredContent violates the outputSchema"),
                ("bad_error", "An isError result without content"),
                ("ask", "Asks for input (input_required)"),
                ("ask_badly", "A malformed input_required result"),
            ] {
                let mut t =
                    json!({"name": name, "description": description, "inputSchema": object});
                if name.starts_with("bad_") {
                    t["outputSchema"] = sum.clone();
                }
                tools.push(t);
            }
        }
        self.sort();
    }

    /// `--capability-gate`: append the items that need a client capability (then re-sort).
    pub fn add_gated_items(&mut self) {
        self.tools
            .get_or_insert_with(Vec::new)
            .extend(crate::gate::tools());
        self.prompts
            .get_or_insert_with(Vec::new)
            .extend(crate::gate::prompts());
        self.resources
            .get_or_insert_with(Vec::new)
            .extend(crate::gate::resources());
        self.sort();
    }

    /// Adds one tool (then re-sorts).
    pub fn add_tool(&mut self, tool: Value) {
        self.tools.get_or_insert_with(Vec::new).push(tool);
        self.sort();
    }

    /// Appends `tools` (then re-sorts).
    pub fn add_tools(&mut self, tools: Vec<Value>) {
        self.tools.get_or_insert_with(Vec::new).extend(tools);
        self.sort();
    }

    /// `--hide-tool`: drops the named tools (after every knob added its own).
    pub fn hide_tools(&mut self, names: &[String]) {
        if let Some(tools) = &mut self.tools {
            tools.retain(|t| !names.iter().any(|n| t["name"] == n.as_str()));
        }
    }

    /// `{name, version}` of this server.
    pub fn server_info(&self) -> Value {
        json!({"name": self.name, "version": self.version})
    }

    /// Find a tool by name.
    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.tools.as_ref()?.iter().find(|t| t["name"] == name)
    }

    /// Find a prompt by name.
    pub fn prompt(&self, name: &str) -> Option<&Value> {
        self.prompts.as_ref()?.iter().find(|t| t["name"] == name)
    }

    /// Contents for `resources/read`, or `None` for an unknown uri.
    pub fn read(&self, uri: &str) -> Option<Value> {
        let known = self.resources.as_ref()?.iter().find(|r| r["uri"] == uri);
        if let Some(r) = known {
            let text = match uri {
                "fixture://readme" => {
                    "# mcpseal fixture\n\nA deterministic MCP server for tests.\n".to_owned()
                }
                "fixture://config" => r#"{"debug":false,"items":3}"#.to_owned(),
                _ => format!("contents of {uri}"),
            };
            let mut c = json!({"uri": uri, "text": text});
            if let Some(m) = r.get("mimeType") {
                c["mimeType"] = m.clone();
            }
            return Some(c);
        }
        let served_items = self
            .templates
            .as_ref()?
            .iter()
            .any(|t| t["uriTemplate"] == "fixture://items/{id}");
        let id = uri.strip_prefix("fixture://items/")?;
        (served_items && !id.is_empty() && !id.contains('/'))
            .then(|| json!({"uri": uri, "mimeType": "text/plain", "text": format!("item {id}")}))
    }
}

fn default_tools() -> Vec<Value> {
    vec![
        json!({
            "name": "echo", "title": "Echo", "description": "Echo a message back",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                            "required": ["message"]}
        }),
        json!({
            "name": "add", "description": "Add two numbers",
            "inputSchema": {"type": "object",
                            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                            "required": ["a", "b"]},
            "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}},
                             "required": ["sum"]}
        }),
        json!({
            "name": "clock", "description": "A fixed clock",
            "inputSchema": {"type": "object", "additionalProperties": false},
            "annotations": {"title": "Clock", "readOnlyHint": true, "openWorldHint": false}
        }),
    ]
}

/// Generated tool number `n`: nested input schema and an output schema.
fn generated_tool(n: usize) -> Value {
    json!({
        "name": format!("tool_{n:05}"),
        "description": format!("Generated tool number {n}"),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "options": {"type": "object", "properties": {
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                    "tags": {"type": "array", "items": {"type": "string"}}
                }}
            },
            "required": ["query"]
        },
        "outputSchema": {
            "type": "object",
            "properties": {"tool": {"type": "string"}, "ok": {"type": "boolean"}},
            "required": ["tool", "ok"]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_surface_is_sorted_and_complete() {
        let s = Surface::build(None, 2, None).expect("default surface");
        let names: Vec<_> = s
            .tools
            .iter()
            .flatten()
            .map(|t| t["name"].to_string())
            .collect();
        assert_eq!(
            names,
            [
                r#""add""#,
                r#""clock""#,
                r#""echo""#,
                r#""tool_00001""#,
                r#""tool_00002""#
            ]
        );
        assert!(s.read("fixture://readme").is_some());
        assert!(s.read("fixture://items/7").is_some());
        assert!(s.read("fixture://nope").is_none());
    }
}
