//! Finding the server's command line from the project's own manifest.
//!
//! Contract: a detection reads only the manifests of one directory (`package.json`,
//! `pyproject.toml`, `Cargo.toml`) and the files they name; it never runs anything. Exactly one
//! candidate is a detection; none, or several from different places, is an error that names
//! each candidate so the user can pass the one they mean (`mcpseal init -- COMMAND`). A
//! candidate whose entry file is missing (a TypeScript `dist/` not built yet) is refused before
//! any server is started.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::InitError;

/// Largest manifest read, in bytes.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// The kind of project a server was detected in (which CI setup steps it needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ProjectKind {
    /// `package.json`.
    Node,
    /// `pyproject.toml` or a `server.py`-style script.
    Python,
    /// `Cargo.toml`.
    Rust,
}

/// A detected server command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// The stdio command line (no shell).
    pub command: Vec<String>,
    /// Where it came from, for the report: `package.json "bin"`.
    pub from: String,
    /// The project kind.
    pub kind: ProjectKind,
    /// The file the command runs, relative to the project, when there is one (checked to
    /// exist before anything starts).
    pub entry: Option<String>,
}

fn read(dir: &Path, name: &str) -> Result<Option<String>, InitError> {
    let path = dir.join(name);
    let err = |message: String| InitError::Read {
        file: name.to_owned(),
        message,
    };
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(e.to_string())),
    };
    if meta.len() > MAX_MANIFEST_BYTES {
        return Err(err(format!("larger than {MAX_MANIFEST_BYTES} bytes")));
    }
    std::fs::read_to_string(&path)
        .map(Some)
        .map_err(|e| err(e.to_string()))
}

fn unparsable(file: &str, message: impl ToString) -> InitError {
    InitError::Read {
        file: file.to_owned(),
        message: message.to_string(),
    }
}

/// Every candidate of `dir`, in the order of precedence within each manifest.
pub fn candidates(dir: &Path) -> Result<Vec<Detected>, InitError> {
    let mut found = Vec::new();
    if let Some(d) = node(dir)? {
        found.push(d);
    }
    if let Some(d) = python(dir)? {
        found.push(d);
    }
    if let Some(d) = rust(dir)? {
        found.push(d);
    }
    Ok(found)
}

/// The one candidate of `dir`.
///
/// # Errors
/// [`InitError::NothingDetected`], [`InitError::Ambiguous`], [`InitError::EntryMissing`], or a
/// manifest that cannot be read.
pub fn detect(dir: &Path) -> Result<Detected, InitError> {
    let mut found = candidates(dir)?;
    let one = match found.len() {
        0 => return Err(InitError::NothingDetected),
        1 => found.remove(0),
        _ => {
            return Err(InitError::Ambiguous(
                found
                    .iter()
                    .map(|d| format!("`{}` ({})", d.command.join(" "), d.from))
                    .collect(),
            ));
        }
    };
    if let Some(entry) = &one.entry
        && !dir.join(entry).exists()
    {
        return Err(InitError::EntryMissing {
            entry: entry.clone(),
            from: one.from.clone(),
        });
    }
    Ok(one)
}

/// `package.json`: `bin` (one entry), else `main`, else a `start` script.
fn node(dir: &Path) -> Result<Option<Detected>, InitError> {
    let Some(text) = read(dir, "package.json")? else {
        return Ok(None);
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| unparsable("package.json", e))?;
    let detected = |entry: &str, from: &str| Detected {
        command: vec!["node".to_owned(), entry.to_owned()],
        from: format!("package.json \"{from}\""),
        kind: ProjectKind::Node,
        entry: Some(entry.to_owned()),
    };
    match doc.get("bin") {
        Some(serde_json::Value::String(path)) => return Ok(Some(detected(path, "bin"))),
        Some(serde_json::Value::Object(bins)) => {
            let paths: Vec<(&String, &str)> = bins
                .iter()
                .filter_map(|(name, p)| p.as_str().map(|p| (name, p)))
                .collect();
            match paths.as_slice() {
                [] => {}
                [(name, path)] => return Ok(Some(detected(path, &format!("bin.{name}")))),
                many => {
                    return Err(InitError::Ambiguous(
                        many.iter()
                            .map(|(name, path)| {
                                format!("`node {path}` (package.json \"bin.{name}\")")
                            })
                            .collect(),
                    ));
                }
            }
        }
        _ => {}
    }
    if let Some(main) = doc.get("main").and_then(|m| m.as_str()) {
        return Ok(Some(detected(main, "main")));
    }
    if let Some(start) = doc.pointer("/scripts/start").and_then(|s| s.as_str()) {
        return Ok(Some(Detected {
            command: script_command(start),
            from: "package.json \"scripts.start\"".to_owned(),
            kind: ProjectKind::Node,
            entry: None,
        }));
    }
    Ok(None)
}

/// A `start` script as a command line: its own words when it is a plain command (no shell
/// syntax), else `npm run --silent start` (silent: npm's banner would go to stdout, where the
/// protocol is).
fn script_command(script: &str) -> Vec<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c);
    let words: Vec<&str> = script.split_whitespace().collect();
    if !words.is_empty() && words.iter().all(|w| w.chars().all(plain)) && !words[0].contains('=') {
        words.into_iter().map(str::to_owned).collect()
    } else {
        ["npm", "run", "--silent", "start"]
            .map(str::to_owned)
            .to_vec()
    }
}

/// The project's virtualenv interpreter (`.venv`, as uv and `python -m venv .venv` make it),
/// else `python3`.
fn python_interpreter(dir: &Path) -> String {
    for candidate in [".venv/bin/python", ".venv/Scripts/python.exe"] {
        if dir.join(candidate).exists() {
            return candidate.to_owned();
        }
    }
    "python3".to_owned()
}

/// `pyproject.toml` `[project.scripts]` (one entry), else a `server.py` / `main.py` script.
fn python(dir: &Path) -> Result<Option<Detected>, InitError> {
    if let Some(text) = read(dir, "pyproject.toml")? {
        let doc: toml::Table =
            toml::from_str(&text).map_err(|e| unparsable("pyproject.toml", e))?;
        if let Some(scripts) = doc
            .get("project")
            .and_then(|p| p.get("scripts"))
            .and_then(|s| s.as_table())
        {
            let names: Vec<&String> = scripts.keys().collect();
            match names.as_slice() {
                [] => {}
                [name] => {
                    // The installed console script: in the project's venv when there is one,
                    // else on PATH (as after `pip install .`).
                    let venv = [".venv/bin", ".venv/Scripts"]
                        .iter()
                        .map(|b| format!("{b}/{name}"))
                        .find(|p| dir.join(p).exists());
                    return Ok(Some(Detected {
                        command: vec![venv.unwrap_or_else(|| (*name).clone())],
                        from: format!("pyproject.toml [project.scripts] {name}"),
                        kind: ProjectKind::Python,
                        entry: None,
                    }));
                }
                many => {
                    return Err(InitError::Ambiguous(
                        many.iter()
                            .map(|n| format!("`{n}` (pyproject.toml [project.scripts])"))
                            .collect(),
                    ));
                }
            }
        }
    }
    for script in ["server.py", "main.py"] {
        if dir.join(script).is_file() {
            return Ok(Some(Detected {
                command: vec![python_interpreter(dir), script.to_owned()],
                from: script.to_owned(),
                kind: ProjectKind::Python,
                entry: Some(script.to_owned()),
            }));
        }
    }
    Ok(None)
}

/// `Cargo.toml`: one `[[bin]]`, else the package's `src/main.rs`.
fn rust(dir: &Path) -> Result<Option<Detected>, InitError> {
    let Some(text) = read(dir, "Cargo.toml")? else {
        return Ok(None);
    };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| unparsable("Cargo.toml", e))?;
    let bins: Vec<&str> = doc
        .get("bin")
        .and_then(|b| b.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|b| b.get("name").and_then(|n| n.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let run = |name: &str, from: String| Detected {
        // --quiet: cargo's progress goes to stderr anyway, but nothing else may reach stdout.
        command: ["cargo", "run", "--quiet", "--bin", name]
            .map(str::to_owned)
            .to_vec(),
        from,
        kind: ProjectKind::Rust,
        entry: None,
    };
    match bins.as_slice() {
        [name] => return Ok(Some(run(name, format!("Cargo.toml [[bin]] {name}")))),
        [] => {}
        many => {
            return Err(InitError::Ambiguous(
                many.iter()
                    .map(|n| format!("`cargo run --quiet --bin {n}` (Cargo.toml [[bin]])"))
                    .collect(),
            ));
        }
    }
    let package = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str());
    match package {
        Some(name) if dir.join("src/main.rs").is_file() => {
            Ok(Some(run(name, "Cargo.toml src/main.rs".to_owned())))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, text) in files {
            let path = dir.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("mkdir");
            }
            crate::atomic::write_atomic(&path, text.as_bytes()).expect("write");
        }
        dir
    }

    #[test]
    fn node_bin_main_start() {
        let d = project(&[
            (
                "package.json",
                r#"{"bin": {"srv": "dist/index.js"}, "main": "x.js"}"#,
            ),
            ("dist/index.js", ""),
        ]);
        let got = detect(d.path()).expect("detected");
        assert_eq!(got.command, ["node", "dist/index.js"]);
        assert_eq!(got.from, "package.json \"bin.srv\"");
        let d = project(&[
            ("package.json", r#"{"main": "server.js"}"#),
            ("server.js", ""),
        ]);
        assert_eq!(
            detect(d.path()).expect("main").command,
            ["node", "server.js"]
        );
        let d = project(&[(
            "package.json",
            r#"{"scripts": {"start": "node build/server.js --stdio"}}"#,
        )]);
        assert_eq!(
            detect(d.path()).expect("start").command,
            ["node", "build/server.js", "--stdio"]
        );
        let d = project(&[(
            "package.json",
            r#"{"scripts": {"start": "tsc && node build/server.js"}}"#,
        )]);
        assert_eq!(
            detect(d.path()).expect("start").command,
            ["npm", "run", "--silent", "start"]
        );
    }

    #[test]
    fn unbuilt_entry_and_ambiguity_are_refused() {
        let d = project(&[("package.json", r#"{"bin": "dist/index.js"}"#)]);
        let e = detect(d.path()).expect_err("not built");
        assert!(matches!(e, InitError::EntryMissing { .. }), "{e}");
        assert!(e.hint().contains("npm run build"), "{}", e.hint());
        let d = project(&[("package.json", r#"{"bin": {"a": "a.js", "b": "b.js"}}"#)]);
        let e = detect(d.path()).expect_err("two bins");
        assert!(
            e.to_string().contains("a.js") && e.to_string().contains("b.js"),
            "{e}"
        );
        let d = project(&[
            ("package.json", r#"{"main": "index.js"}"#),
            ("index.js", ""),
            ("server.py", ""),
        ]);
        let e = detect(d.path()).expect_err("node and python");
        assert!(
            e.to_string().contains("server.py") && e.to_string().contains("index.js"),
            "{e}"
        );
        let d = project(&[("README.md", "hi")]);
        assert!(matches!(detect(d.path()), Err(InitError::NothingDetected)));
        // A package.json with neither bin, main nor start is tooling, not a server.
        let d = project(&[
            ("package.json", r#"{"devDependencies": {}}"#),
            ("server.py", ""),
        ]);
        assert_eq!(
            detect(d.path()).expect("python").command,
            ["python3", "server.py"]
        );
    }

    #[test]
    fn python_scripts_and_rust_bins() {
        let d = project(&[(
            "pyproject.toml",
            "[project]\nname = \"x\"\n[project.scripts]\nx-server = \"x.server:main\"\n",
        )]);
        let got = detect(d.path()).expect("script");
        assert_eq!(got.command, ["x-server"]);
        assert_eq!(got.kind, ProjectKind::Python);
        let d = project(&[
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\n[project.scripts]\nx-server = \"x.server:main\"\n",
            ),
            (".venv/bin/x-server", ""),
        ]);
        assert_eq!(
            detect(d.path()).expect("venv script").command,
            [".venv/bin/x-server"]
        );
        let d = project(&[("server.py", ""), (".venv/bin/python", "")]);
        assert_eq!(
            detect(d.path()).expect("venv").command,
            [".venv/bin/python", "server.py"]
        );
        let d = project(&[(
            "Cargo.toml",
            "[package]\nname = \"p\"\n[[bin]]\nname = \"srv\"\npath = \"src/srv.rs\"\n",
        )]);
        assert_eq!(
            detect(d.path()).expect("bin").command,
            ["cargo", "run", "--quiet", "--bin", "srv"]
        );
        let d = project(&[
            ("Cargo.toml", "[package]\nname = \"p\"\n"),
            ("src/main.rs", ""),
        ]);
        assert_eq!(
            detect(d.path()).expect("main.rs").command,
            ["cargo", "run", "--quiet", "--bin", "p"]
        );
        let d = project(&[
            ("Cargo.toml", "[package]\nname = \"p\"\n"),
            ("src/lib.rs", ""),
        ]);
        assert!(matches!(detect(d.path()), Err(InitError::NothingDetected)));
    }
}
