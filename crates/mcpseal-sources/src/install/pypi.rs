//! PyPI: a venv per version (`python -m venv --without-pip`, filled by the outer pip's
//! `--python`, which saves the ~3 s `ensurepip` costs per venv), wheels only for the project
//! and every dependency (`--only-binary :all:`: an sdist build runs arbitrary code).
//!
//! The artifact: when the release has exactly one candidate file (a pure-Python wheel, or a pin
//! narrowed to one file by its hash), mcpseal downloads it, checks its SHA-256 and installs
//! that file; otherwise pip chooses the wheel for this interpreter from the index, and the hash
//! pip reports (`--report`) must be one the index lists.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Record, Runtime, run_failed};
use crate::config::Sources;
use crate::entry::{EntryCommand, EntryPoint, console_scripts};
use crate::error::{InstallError, InstallStage};
use crate::process::{Stdout, run};
use crate::published::{Artifact, DistFile, PublishedVersion};
use crate::resolve::verify_bytes;
use crate::source::{PypiProject, Source, normalize_pypi};

/// The Python that builds the venvs.
#[derive(Debug, Clone)]
pub(crate) struct Interpreter {
    /// `sys.executable`.
    pub executable: PathBuf,
    /// `sys.version`, first line.
    pub version: String,
    /// `sys.base_prefix`: the installation a venv's Python comes from.
    pub base_prefix: PathBuf,
    /// Its pip understands `--python` (pip ≥ 22.3).
    pub pip_python_flag: bool,
}

impl Sources {
    pub(crate) async fn interpreter(&self) -> Result<Interpreter, InstallError> {
        let got = self
            .python
            .get_or_init(|| async {
                let probe = self.tool(&self.config.tools.python, self.config.tool_timeout)
                    .args([
                        "-c",
                        "import json, sys\ntry:\n import pip; p = pip.__version__\nexcept Exception:\n p = ''\nprint(json.dumps({'e': sys.executable, 'v': sys.version.splitlines()[0], 'b': sys.base_prefix, 'pip': p}))",
                    ])
                    .stdout(Stdout::Capture(64 * 1024));
                let shown = probe.display();
                let o = run(probe)
                    .await
                    .map_err(|e| e.message(&shown, self.config.tool_timeout))?;
                if !o.success {
                    return Err(format!("`{shown}` failed: {}", o.tail.join(" | ")));
                }
                let v: Value = serde_json::from_slice(&o.stdout)
                    .map_err(|e| format!("`{shown}` printed no JSON: {e}"))?;
                let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                let pip = s("pip");
                if pip.is_empty() {
                    return Err(format!(
                        "`{}` has no pip (install python3-pip, or point `python` at a Python with pip)",
                        self.config.tools.python.display()
                    ));
                }
                let mut parts = pip.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
                let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
                Ok(Interpreter {
                    executable: s("e").into(),
                    version: s("v"),
                    base_prefix: s("b").into(),
                    pip_python_flag: (major, minor) >= (22, 3),
                })
            })
            .await;
        got.clone()
            .map_err(|m| InstallError::new(InstallStage::Environment, m))
    }
}

/// The files pip may install for this version: wheels, and sdists when allowed.
fn candidates(files: &[DistFile], allow_sdist: bool) -> Vec<&DistFile> {
    files
        .iter()
        .filter(|f| f.wheel || (allow_sdist && !f.filename.ends_with(".whl")))
        .collect()
}

/// Refuses a version that has no wheel (unless sdists are allowed) before anything is made.
pub(crate) fn check_installable(
    version: &PublishedVersion,
    allow_sdist: bool,
) -> Result<(), InstallError> {
    let Artifact::PypiFiles { files } = &version.artifact else {
        return Err(InstallError::new(
            InstallStage::Select,
            "a PyPI source needs PyPI files",
        ));
    };
    if files.is_empty() {
        return Err(InstallError::new(
            InstallStage::Select,
            format!("{} has no files", version.version),
        ));
    }
    if candidates(files, allow_sdist).is_empty() {
        let mut e = InstallError::new(
            InstallStage::Select,
            format!(
                "{} has no wheel: not installable without running its build (sdist only; allow sdists to build it)",
                version.version
            ),
        );
        e.needs_build = true;
        return Err(e);
    }
    Ok(())
}

pub(crate) async fn install(
    sources: &Sources,
    project: &PypiProject,
    version: &PublishedVersion,
    dir: &Path,
    identity: &str,
) -> Result<Record, InstallError> {
    let interp = sources.interpreter().await?;
    let Artifact::PypiFiles { files } = &version.artifact else {
        return Err(InstallError::new(
            InstallStage::Select,
            "a PyPI source needs PyPI files",
        ));
    };
    let allow_sdist = sources.config.allow_sdist;
    let chosen = candidates(files, allow_sdist);
    let index = sources
        .pypi_index_for(project.index.as_deref())
        .await
        .map_err(|e| InstallError::new(InstallStage::Download, e.to_string()))?;
    let io = |e: std::io::Error| InstallError::cache(dir, &e);

    // The one file, downloaded and verified here; else the requirement for pip to resolve.
    let target: std::ffi::OsString = if let [only] = chosen[..] {
        let got = sources
            .http
            .get(
                &only.url,
                "application/octet-stream",
                sources.http.limits.max_artifact_bytes,
            )
            .await
            .map_err(|e| InstallError::new(InstallStage::Download, e.to_string()))?;
        if got.status != 200 {
            return Err(InstallError::new(
                InstallStage::Download,
                format!("`{}` answered HTTP status {}", only.url, got.status),
            ));
        }
        let Some(sha) = &only.sha256 else {
            return Err(InstallError::new(
                InstallStage::Verify,
                format!(
                    "the index lists no SHA-256 for `{}`: it cannot be verified",
                    only.filename
                ),
            ));
        };
        verify_bytes(&got.body, sha, false)
            .map_err(|m| InstallError::new(InstallStage::Verify, m))?;
        if only.filename.contains(['/', '\\']) || only.filename.starts_with('.') {
            return Err(InstallError::new(
                InstallStage::Download,
                format!("refusing the file name `{}`", only.filename),
            ));
        }
        let path = dir.join(&only.filename);
        std::fs::write(&path, &got.body).map_err(io)?;
        path.into_os_string()
    } else {
        format!("{}=={}", project.normalized(), version.version).into()
    };

    let timeout = sources.config.install_timeout;
    let venv = dir.join("venv");
    let mut mk = sources
        .tool(&interp.executable, timeout)
        .args(["-m", "venv"]);
    if interp.pip_python_flag {
        mk = mk.arg("--without-pip");
    }
    let mk = mk.arg(&venv);
    let shown = mk.display();
    run_failed(InstallStage::Environment, &shown, timeout, run(mk).await)?;
    let venv_python = venv.join("bin").join("python");
    let report = dir.join("pip-report.json");
    let pip = if interp.pip_python_flag {
        sources
            .tool(&interp.executable, timeout)
            .args(["-m", "pip", "--python"])
            .arg(&venv_python)
    } else {
        sources.tool(&venv_python, timeout).args(["-m", "pip"])
    };
    let pip = pip
        .args([
            "install",
            "--no-input",
            "--disable-pip-version-check",
            "--no-warn-script-location",
        ])
        .args(if allow_sdist {
            vec!["--prefer-binary"]
        } else {
            vec!["--only-binary", ":all:"]
        })
        .arg("--index-url")
        .arg(&index)
        .arg("--report")
        .arg(&report)
        .arg(&target)
        .cwd(dir)
        .env("PIP_NO_INPUT", "1")
        .env_remove("PIP_USER")
        .env_remove("PIP_TARGET")
        .env_remove("PIP_PREFIX")
        .env_remove("PIP_REQUIRE_VIRTUALENV")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME");
    let shown = pip.display();
    run_failed(InstallStage::Install, &shown, timeout, run(pip).await)?;

    if chosen.len() != 1 {
        check_reported_hash(&report, project, files)?;
    }
    let normalized = project.normalized();
    let dist_info = find_dist_info(&venv, &normalized).ok_or_else(|| {
        InstallError::new(
            InstallStage::Metadata,
            format!("pip installed no `{normalized}` distribution into the venv"),
        )
    })?;
    let metadata = std::fs::read_to_string(dist_info.join("METADATA")).unwrap_or_default();
    let installed_version = metadata
        .lines()
        .find_map(|l| l.strip_prefix("Version:"))
        .map(str::trim)
        .unwrap_or("");
    if installed_version != version.version {
        return Err(InstallError::new(
            InstallStage::Metadata,
            format!(
                "pip installed {normalized} {installed_version}, not {}",
                version.version
            ),
        ));
    }
    let scripts = std::fs::read_to_string(dist_info.join("entry_points.txt"))
        .map(|t| console_scripts(&t))
        .unwrap_or_default();
    let entry_points = scripts
        .into_iter()
        .filter(|s| venv.join("bin").join(s).is_file())
        .map(|s| EntryPoint {
            command: EntryCommand::Python {
                script: Path::new("venv").join("bin").join(&s),
            },
            name: s,
        })
        .collect();
    Ok(Record::new(
        &Source::Pypi(project.clone()),
        version,
        identity,
        ".",
        Runtime::Python {
            venv: PathBuf::from("venv"),
        },
        entry_points,
    ))
}

/// The project's `*.dist-info` in the venv's site-packages.
fn find_dist_info(venv: &Path, normalized: &str) -> Option<PathBuf> {
    let lib = venv.join("lib");
    for py in std::fs::read_dir(&lib).ok()?.flatten() {
        let site = py.path().join("site-packages");
        let Ok(entries) = std::fs::read_dir(&site) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".dist-info")
                && let Some((dist, _)) = stem.rsplit_once('-')
                && normalize_pypi(dist) == normalized
            {
                return Some(e.path());
            }
        }
    }
    None
}

/// The hash pip reports for the project must be one the index lists for this version.
fn check_reported_hash(
    report: &Path,
    project: &PypiProject,
    files: &[DistFile],
) -> Result<(), InstallError> {
    let listed: Vec<&str> = files.iter().filter_map(|f| f.sha256.as_deref()).collect();
    if listed.is_empty() {
        return Err(InstallError::new(
            InstallStage::Verify,
            "the index lists no SHA-256 for this release's files: what pip installed cannot be verified",
        ));
    }
    let doc: Value = std::fs::read(report)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| InstallError::new(InstallStage::Verify, "pip wrote no readable --report"))?;
    let normalized = project.normalized();
    let item = doc
        .get("install")
        .and_then(Value::as_array)
        .and_then(|items| {
            items.iter().find(|i| {
                i.pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| normalize_pypi(n) == normalized)
            })
        })
        .ok_or_else(|| {
            InstallError::new(
                InstallStage::Verify,
                "pip's report does not list the project",
            )
        })?;
    let hash = item
        .pointer("/download_info/archive_info/hashes/sha256")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            item.pointer("/download_info/archive_info/hash")
                .and_then(Value::as_str)
                .and_then(|h| h.strip_prefix("sha256="))
                .map(str::to_owned)
        })
        .unwrap_or_default()
        .to_ascii_lowercase();
    if listed.contains(&hash.as_str()) {
        Ok(())
    } else {
        Err(InstallError::new(
            InstallStage::Verify,
            format!(
                "pip installed a file with SHA-256 `{hash}`, which the index does not list for this release"
            ),
        ))
    }
}
