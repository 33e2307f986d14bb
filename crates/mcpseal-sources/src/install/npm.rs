//! npm: download the tarball the packument lists, check its SRI integrity, then
//! `npm install --ignore-scripts --omit=dev --no-audit --no-fund --prefix DIR ./package.tgz`
//! (dependencies from the same registry, their install scripts off too).

use std::path::Path;

use serde_json::Value;

use super::{Record, Runtime, run_failed};
use crate::config::Sources;
use crate::entry::npm_entry_points;
use crate::error::{InstallError, InstallStage};
use crate::process::run;
use crate::published::{Artifact, PublishedVersion};
use crate::resolve::verify_bytes;
use crate::source::{NpmPackage, Source};

pub(crate) async fn install(
    sources: &Sources,
    pkg: &NpmPackage,
    version: &PublishedVersion,
    dir: &Path,
    identity: &str,
) -> Result<Record, InstallError> {
    let Artifact::NpmTarball { url, integrity } = &version.artifact else {
        return Err(InstallError::new(
            InstallStage::Select,
            "an npm source needs an npm tarball artifact",
        ));
    };
    let Some(integrity) = integrity else {
        return Err(InstallError::new(
            InstallStage::Verify,
            format!(
                "the packument lists no integrity for {}@{}: the tarball cannot be verified",
                pkg.name, version.version
            ),
        ));
    };
    let registry = sources
        .npm_registry_for(pkg.registry.as_deref())
        .await
        .map_err(|e| InstallError::new(InstallStage::Download, e.to_string()))?;
    let got = sources
        .http
        .get(
            url,
            "application/octet-stream",
            sources.http.limits.max_artifact_bytes,
        )
        .await
        .map_err(|e| InstallError::new(InstallStage::Download, e.to_string()))?;
    if got.status != 200 {
        return Err(InstallError::new(
            InstallStage::Download,
            format!("`{url}` answered HTTP status {}", got.status),
        ));
    }
    verify_bytes(&got.body, integrity, true)
        .map_err(|m| InstallError::new(InstallStage::Verify, m))?;
    let tarball = dir.join("package.tgz");
    let io = |e: std::io::Error| InstallError::cache(dir, &e);
    std::fs::write(&tarball, &got.body).map_err(io)?;
    // A package.json of its own makes DIR the project root, so npm never walks up to a
    // project of the user's.
    std::fs::write(
        dir.join("package.json"),
        b"{\n  \"name\": \"mcpseal-install\",\n  \"private\": true\n}\n",
    )
    .map_err(io)?;
    let timeout = sources.config.install_timeout;
    let npm = sources
        .tool(&sources.config.tools.npm, timeout)
        .args([
            "install",
            "--ignore-scripts",
            "--omit=dev",
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--loglevel=warn",
        ])
        .arg("--registry")
        .arg(&registry)
        .arg("--prefix")
        .arg(dir)
        .arg(&tarball)
        .cwd(dir)
        .env("npm_config_ignore_scripts", "true")
        .env("npm_config_update_notifier", "false");
    let shown = npm.display();
    run_failed(InstallStage::Install, &shown, timeout, run(npm).await)?;
    let package_dir = Path::new("node_modules").join(&pkg.name);
    let manifest_path = dir.join(&package_dir).join("package.json");
    let manifest: Value = std::fs::read(&manifest_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| {
            InstallError::new(
                InstallStage::Metadata,
                format!("npm install left no readable `{}`", manifest_path.display()),
            )
        })?;
    let (name, ver) = (
        manifest.get("name").and_then(Value::as_str).unwrap_or(""),
        manifest
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or(""),
    );
    if name != pkg.name || ver != version.version {
        return Err(InstallError::new(
            InstallStage::Metadata,
            format!(
                "the tarball of {}@{} holds `{name}@{ver}`",
                pkg.name, version.version
            ),
        ));
    }
    Ok(Record::new(
        &Source::Npm(pkg.clone()),
        version,
        identity,
        ".",
        Runtime::Node,
        npm_entry_points(&manifest, &package_dir),
    ))
}
