//! Entry points: what an installed version can be started as, read from its own metadata
//! (npm `bin`, else `main`; Python `console_scripts`; a git source's `run` command), and the
//! choice between several.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::LaunchError;

/// One way to start an installed version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryPoint {
    /// Its name (`--bin NAME` chooses it).
    pub name: String,
    /// How it runs.
    pub command: EntryCommand,
}

/// How an entry point runs. Paths are relative to the install directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum EntryCommand {
    /// A JavaScript file run with `node` (npm `bin`, or `main` when there is no `bin`).
    Node {
        /// The script, relative to the install directory.
        script: PathBuf,
    },
    /// A console script run with the venv's Python.
    Python {
        /// The script in the venv's `bin/`, relative to the install directory.
        script: PathBuf,
    },
    /// A command run in the checkout root (git sources).
    Argv {
        /// The program: with a `/`, relative to the checkout root; else looked up on `PATH`.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// The entry points an npm package's `package.json` declares: every `bin` (a string is one
/// named after the package, without its scope), else `main` (named `main`), else none.
/// `package_dir` is relative to the install directory.
pub(crate) fn npm_entry_points(manifest: &Value, package_dir: &Path) -> Vec<EntryPoint> {
    let name = manifest.get("name").and_then(Value::as_str).unwrap_or("");
    let short = name.rsplit('/').next().unwrap_or(name);
    let script = |rel: &str| -> Option<PathBuf> {
        let p = Path::new(rel);
        // A bin outside the package (`../x`, `/etc/x`) is not followed.
        if p.components().any(|c| {
            matches!(
                c,
                Component::ParentDir | Component::RootDir | Component::Prefix(_)
            )
        }) {
            return None;
        }
        Some(package_dir.join(p))
    };
    let mut out = Vec::new();
    match manifest.get("bin") {
        Some(Value::String(s)) => {
            if let Some(script) = script(s) {
                out.push(EntryPoint {
                    name: short.to_owned(),
                    command: EntryCommand::Node { script },
                });
            }
        }
        Some(Value::Object(map)) => {
            for (bin, path) in map {
                if let (Some(p), false) = (path.as_str().and_then(script), bin.is_empty()) {
                    out.push(EntryPoint {
                        name: bin.clone(),
                        command: EntryCommand::Node { script: p },
                    });
                }
            }
        }
        _ => {}
    }
    if out.is_empty()
        && let Some(main) = manifest
            .get("main")
            .and_then(Value::as_str)
            .and_then(script)
    {
        out.push(EntryPoint {
            name: "main".into(),
            command: EntryCommand::Node { script: main },
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The `[console_scripts]` names of an `entry_points.txt`.
pub(crate) fn console_scripts(text: &str) -> Vec<String> {
    let mut in_section = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') {
            in_section = line == "[console_scripts]";
            continue;
        }
        if in_section && let Some((name, _)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() {
                out.push(name.to_owned());
            }
        }
    }
    out.sort();
    out
}

/// The entry point to start: `wanted` by name, or the only one.
///
/// # Errors
/// [`LaunchError::Ambiguous`], [`LaunchError::NoSuchEntry`], [`LaunchError::NoEntry`], each
/// listing what there is.
pub fn choose<'a>(
    package: &str,
    entries: &'a [EntryPoint],
    wanted: Option<&str>,
) -> Result<&'a EntryPoint, LaunchError> {
    let names = || entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    match wanted {
        Some(w) => entries
            .iter()
            .find(|e| e.name == w)
            .ok_or_else(|| LaunchError::NoSuchEntry {
                package: package.to_owned(),
                wanted: w.to_owned(),
                names: names(),
            }),
        None => match entries {
            [] => Err(LaunchError::NoEntry {
                package: package.to_owned(),
            }),
            [one] => Ok(one),
            _ => Err(LaunchError::Ambiguous {
                package: package.to_owned(),
                names: names(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_bins() {
        let pkg = Path::new("node_modules/@s/p");
        let one = npm_entry_points(
            &serde_json::json!({"name": "@s/p", "bin": "dist/index.js"}),
            pkg,
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].name, "p");
        assert_eq!(
            one[0].command,
            EntryCommand::Node {
                script: pkg.join("dist/index.js")
            }
        );
        let two = npm_entry_points(
            &serde_json::json!({"name": "p", "bin": {"b": "b.js", "a": "./a.js", "evil": "../../x.js"}}),
            pkg,
        );
        assert_eq!(
            two.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        let main = npm_entry_points(&serde_json::json!({"name": "p", "main": "i.js"}), pkg);
        assert_eq!(main[0].name, "main");
        assert!(npm_entry_points(&serde_json::json!({"name": "p"}), pkg).is_empty());
    }

    #[test]
    fn python_scripts() {
        let text = "[gui_scripts]\ng = m:f\n\n[console_scripts]\nsrv = pkg.server:main\n# c\nalt=pkg:alt [extra]\n";
        assert_eq!(console_scripts(text), ["alt", "srv"]);
    }

    #[test]
    fn choosing() {
        let e = |n: &str| EntryPoint {
            name: n.into(),
            command: EntryCommand::Argv {
                program: "x".into(),
                args: vec![],
            },
        };
        let two = [e("a"), e("b")];
        let err = choose("p", &two, None).err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("p has several entry points: a, b"));
        assert_eq!(
            choose("p", &two, Some("b")).map(|e| e.name.as_str()).ok(),
            Some("b")
        );
        let err = choose("p", &two, Some("c")).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("p has no entry point `c` (it has: a, b)")
        );
        assert!(matches!(
            choose("p", &[], None),
            Err(LaunchError::NoEntry { .. })
        ));
        assert!(choose("p", &two[..1], None).is_ok());
    }
}
