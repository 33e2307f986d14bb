//! Build script: records the commit the binary was built from, for `mcpseal --version`.
//!
//! Sets `MCPSEAL_VERSION` to `<version> (<12-hex commit>)`, or to `<version>` alone when no
//! commit is known. The commit comes from, in order:
//!
//! 1. `MCPSEAL_BUILD_COMMIT` (the release workflow sets it, so a release binary never depends on
//!    what the build machine's checkout looks like);
//! 2. `.cargo_vcs_info.json` next to `Cargo.toml`, which `cargo package` writes into every crate
//!    it packs, so `cargo install mcpseal` from crates.io still knows its commit;
//! 3. `git rev-parse HEAD`, only when this crate's `Cargo.toml` is tracked by that repository
//!    (a crate unpacked under a home directory that happens to be a git repository must not
//!    report the home directory's commit).
//!
//! No dependencies, so it adds nothing to the build graph.

// A build script talks to Cargo through stdout (clippy's print_stdout leaves build scripts
// alone, so no exception is needed).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-env-changed=MCPSEAL_BUILD_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");

    let commit = from_env()
        .or_else(|| from_vcs_info(&dir))
        .or_else(|| from_git(&dir));
    let line = match commit {
        Some(c) => format!("{version} ({c})"),
        None => version,
    };
    println!("cargo:rustc-env=MCPSEAL_VERSION={line}");
}

/// Keeps what looks like a commit id: hex only, shortened to 12 digits.
fn short(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if raw.len() < 7 || !raw.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(
        raw.chars()
            .take(12)
            .collect::<String>()
            .to_ascii_lowercase(),
    )
}

fn from_env() -> Option<String> {
    short(&std::env::var("MCPSEAL_BUILD_COMMIT").ok()?)
}

/// `{"git": {"sha1": "…", …}, "path_in_vcs": "…"}`: read the one field without a JSON parser.
fn from_vcs_info(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&path).ok()?;
    println!("cargo:rerun-if-changed={}", path.display());
    let after = text.split_once("\"sha1\"")?.1;
    let value = after.split_once('"')?.1;
    short(value.split_once('"')?.0)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the build script asks git for the commit; no server is started"
)]
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_owned())
}

fn from_git(dir: &Path) -> Option<String> {
    git(dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let commit = short(&git(dir, &["rev-parse", "HEAD"])?)?;
    // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it points at (a commit) and
    // packed-refs (a gc). `--git-path` resolves worktrees and the common directory.
    let mut watch = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.push(branch);
    }
    for name in watch {
        if let Some(path) = git(
            dir,
            &["rev-parse", "--path-format=absolute", "--git-path", &name],
        ) && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Some(commit)
}
