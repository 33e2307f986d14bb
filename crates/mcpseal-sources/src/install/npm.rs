//! npm: download the tarball the packument lists, check its SRI integrity, then
//! `npm install --ignore-scripts --omit=dev --no-audit --no-fund --prefix DIR ./package.tgz`
//! (dependencies from the same registry, their install scripts off too) — once per distinct
//! dependency tree: versions declaring the same dependencies share one such install and get
//! their own verified files laid over it (see [`super::npm_tree`]).

use std::path::Path;

use serde_json::Value;

use super::npm_tree::{self, TreeRecord};
use super::{Record, Runtime, npm_tarball, run_failed};
use crate::cache::{fresh_dir, key, lock, read_marker, write_marker};
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
    let shared = match npm_tarball::read(&got.body) {
        Ok(package) => {
            install_shared(sources, pkg, version, &registry, &got.body, &package, dir).await?
        }
        Err(_) => false,
    };
    if !shared {
        npm_install(sources, &registry, dir, &got.body).await?;
    }
    let manifest = installed_manifest(dir, pkg, version)?;
    let package_dir = Path::new("node_modules").join(&pkg.name);
    Ok(Record::new(
        &Source::Npm(pkg.clone()),
        version,
        identity,
        ".",
        Runtime::Node,
        npm_entry_points(&manifest, &package_dir),
    ))
}

/// Lays `version` out in `dir` from the shared tree of its dependency set, installing that
/// tree first when the cache has none. `false` when the tree cannot be shared (then the caller
/// installs the version with npm on its own).
#[cfg(unix)]
async fn install_shared(
    sources: &Sources,
    pkg: &NpmPackage,
    version: &PublishedVersion,
    registry: &str,
    tarball: &[u8],
    package: &npm_tarball::Package,
    dir: &Path,
) -> Result<bool, InstallError> {
    let key_input = npm_tree::key_input(registry, &pkg.name, &package.manifest);
    let tree = sources
        .config
        .cache
        .npm_tree_dir(&Source::Npm(pkg.clone()).dir_name(), &key(&[&key_input]));
    let tree_io = |e: std::io::Error| InstallError::cache(&tree, &e);
    // Held while the version is derived too: nobody rebuilds the tree under our links.
    let _guard = lock(&tree).await.map_err(tree_io)?;
    let shareable = match read_marker::<TreeRecord>(&tree) {
        Some(rec) if rec.matches(&key_input) => rec.shareable,
        _ => {
            fresh_dir(&tree).map_err(tree_io)?;
            npm_install(sources, registry, &tree, tarball).await?;
            installed_manifest(&tree, pkg, version)?;
            let shareable = npm_tree::shareable(&tree, &pkg.name);
            if shareable {
                npm_tree::seal(&tree).map_err(tree_io)?;
            }
            let rec = TreeRecord::new(key_input, &version.version, shareable);
            write_marker(&tree, &rec).map_err(tree_io)?;
            shareable
        }
    };
    if !shareable {
        return Ok(false);
    }
    let io = |e: std::io::Error| InstallError::cache(dir, &e);
    write_root(dir, tarball).map_err(io)?;
    npm_tree::derive(&tree, dir, &pkg.name, package).map_err(io)?;
    Ok(true)
}

/// Off Unix every version is installed by npm on its own.
#[cfg(not(unix))]
async fn install_shared(
    _: &Sources,
    _: &NpmPackage,
    _: &PublishedVersion,
    _: &str,
    _: &[u8],
    _: &npm_tarball::Package,
    _: &Path,
) -> Result<bool, InstallError> {
    Ok(false)
}

/// The verified tarball and a root `package.json` of its own: the latter makes DIR the
/// project root, so npm never walks up to a project of the user's.
fn write_root(dir: &Path, tarball: &[u8]) -> std::io::Result<()> {
    std::fs::write(dir.join("package.tgz"), tarball)?;
    std::fs::write(
        dir.join("package.json"),
        b"{\n  \"name\": \"mcpseal-install\",\n  \"private\": true\n}\n",
    )
}

/// `npm install` of the verified tarball into the (empty) prefix `dir`.
async fn npm_install(
    sources: &Sources,
    registry: &str,
    dir: &Path,
    tarball_bytes: &[u8],
) -> Result<(), InstallError> {
    write_root(dir, tarball_bytes).map_err(|e| InstallError::cache(dir, &e))?;
    let tarball = dir.join("package.tgz");
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
        .arg(registry)
        .arg("--prefix")
        .arg(dir)
        .arg(&tarball)
        .cwd(dir)
        .env("npm_config_ignore_scripts", "true")
        .env("npm_config_update_notifier", "false");
    let shown = npm.display();
    run_failed(InstallStage::Install, &shown, timeout, run(npm).await)?;
    Ok(())
}

/// The installed package's `package.json`, checked to be `version` of `pkg`.
fn installed_manifest(
    dir: &Path,
    pkg: &NpmPackage,
    version: &PublishedVersion,
) -> Result<Value, InstallError> {
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
    Ok(manifest)
}
