//! git: `git archive` of the tagged commit from the cache's mirror, unpacked into `src/`
//! (no worktree, no index, no hooks, no smudge filters: nothing of the repository's runs while
//! it is checked out), then the caller's build steps, each an argv run in `src/`.
//!
//! The build steps are the caller's own commands over the caller's own repository; they run
//! with the caller's environment (toolchains, caches, network), bounded in time, never through
//! a shell, and outside the sandbox. Submodules are not included (`git archive` leaves them
//! out).

use std::path::Path;

use super::{Record, Runtime, run_failed};
use crate::config::Sources;
use crate::entry::{EntryCommand, EntryPoint};
use crate::error::{InstallError, InstallStage};
use crate::process::{Stdout, run};
use crate::published::{Artifact, PublishedVersion};
use crate::resolve::git::{git, mirror};
use crate::source::{GitRepo, Source};

pub(crate) async fn install(
    sources: &Sources,
    repo: &GitRepo,
    version: &PublishedVersion,
    dir: &Path,
    identity: &str,
) -> Result<Record, InstallError> {
    let Artifact::GitCommit { commit, .. } = &version.artifact else {
        return Err(InstallError::new(
            InstallStage::Select,
            "a git source needs a commit",
        ));
    };
    let mirror = mirror(sources, repo)
        .await
        .map_err(|e| InstallError::new(InstallStage::Download, e.to_string()))?;
    let tar_path = dir.join("checkout.tar");
    let timeout = sources.config.install_timeout;
    let archive = git(sources, timeout)
        .arg("--git-dir")
        .arg(&mirror)
        .args(["archive", "--format=tar"])
        .arg(commit)
        .stdout(Stdout::File(
            tar_path.clone(),
            sources.config.max_checkout_bytes,
        ));
    let shown = archive.display();
    run_failed(InstallStage::Install, &shown, timeout, run(archive).await)?;
    let src = dir.join("src");
    let unpack_to = src.clone();
    let unpack_from = tar_path.clone();
    tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        std::fs::create_dir_all(&unpack_to)?;
        let mut a = tar::Archive::new(std::fs::File::open(&unpack_from)?);
        a.set_preserve_permissions(true);
        a.set_overwrite(true);
        // `unpack` keeps every entry inside the destination (no `..`, no absolute paths, no
        // writes through symlinks that point out).
        a.unpack(&unpack_to)
    })
    .await
    .map_err(|e| InstallError::new(InstallStage::Install, format!("unpacking: {e}")))?
    .map_err(|e| {
        InstallError::new(
            InstallStage::Install,
            format!("unpacking `git archive`: {e}"),
        )
    })?;
    let _ = std::fs::remove_file(&tar_path);

    for step in &repo.build {
        let Some((program, args)) = step.split_first() else {
            continue;
        };
        let program = if program.contains('/') && !program.starts_with('/') {
            src.join(program).into_os_string()
        } else {
            program.into()
        };
        let r = sources.tool(&program, timeout).args(args).cwd(&src);
        let shown = r.display();
        run_failed(InstallStage::Build, &shown, timeout, run(r).await)?;
    }
    let entry_points = match &repo.run {
        Some(argv) => match argv.split_first() {
            Some((program, args)) => vec![EntryPoint {
                name: Path::new(program)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| program.clone()),
                command: EntryCommand::Argv {
                    program: program.clone(),
                    args: args.to_vec(),
                },
            }],
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    Ok(Record::new(
        &Source::Git(repo.clone()),
        version,
        identity,
        "src",
        Runtime::Native,
        entry_points,
    ))
}
