//! git: a bare mirror of the repository in the cache (so the user's checkout is never
//! touched: no worktree entries, no index, no hooks run), its tags matching a glob read with
//! `git for-each-ref`, each tag's commit and committer date.

use std::path::{Path, PathBuf};

use crate::cache::{key, lock};
use crate::config::Sources;
use crate::error::SourceError;
use crate::process::{Run, Stdout, run};
use crate::published::{Artifact, Excluded, Exclusion, PublishedVersion, Status};
use crate::source::{GitRepo, Source, absolute_git_url};

/// The environment every git run gets: never prompt (a missing credential fails instead of
/// hanging), no pager, no system-wide hooks path surprises.
pub(crate) fn git(sources: &Sources, timeout: std::time::Duration) -> Run {
    sources
        .tool(&sources.config.tools.git, timeout)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
}

fn tool_error(what: &str, why: String, tail: &[String]) -> SourceError {
    let mut why = why;
    if !tail.is_empty() {
        why.push_str(": ");
        why.push_str(&tail.join(" | "));
    }
    SourceError::Tool {
        program: format!("git {what}"),
        why,
    }
}

/// The mirror of `repo`, cloned or brought up to date (under its lock).
pub(crate) async fn mirror(sources: &Sources, repo: &GitRepo) -> Result<PathBuf, SourceError> {
    let url = absolute_git_url(&repo.url);
    if let Some(dir) = sources
        .mirrors
        .lock()
        .ok()
        .and_then(|m| m.get(&url).cloned())
    {
        return Ok(dir);
    }
    let name = Source::Git(repo.clone()).dir_name();
    let dir = sources.config.cache.git_mirror(&name, &key(&[&url]));
    let _guard = lock(&dir).await.map_err(|e| SourceError::Tool {
        program: "git".into(),
        why: format!("cannot lock the mirror `{}`: {e}", dir.display()),
    })?;
    let timeout = sources.config.git_fetch_timeout;
    if dir.join("HEAD").is_file() {
        let fetch = git(sources, timeout).arg("--git-dir").arg(&dir).args([
            "fetch",
            "--prune",
            "--prune-tags",
            "--force",
            "--quiet",
            "origin",
        ]);
        let shown = fetch.display();
        match run(fetch).await {
            Ok(o) if o.success => return Ok(remember(sources, url, dir)),
            Ok(o) => return Err(tool_error("fetch", o.status_text(), &o.tail)),
            Err(e) => return Err(tool_error("fetch", e.message(&shown, timeout), &e.tail())),
        }
    }
    let mut tmp = dir.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| SourceError::Tool {
            program: "git".into(),
            why: format!("cannot create `{}`: {e}", parent.display()),
        })?;
    }
    let clone = git(sources, timeout)
        .args(["clone", "--mirror", "--quiet", "--"])
        .arg(&url)
        .arg(&tmp);
    let shown = clone.display();
    match run(clone).await {
        Ok(o) if o.success => {}
        Ok(o) => return Err(tool_error("clone", o.status_text(), &o.tail)),
        Err(e) => return Err(tool_error("clone", e.message(&shown, timeout), &e.tail())),
    }
    std::fs::rename(&tmp, &dir).map_err(|e| SourceError::Tool {
        program: "git".into(),
        why: format!("cannot move the mirror into `{}`: {e}", dir.display()),
    })?;
    Ok(remember(sources, url, dir))
}

fn remember(sources: &Sources, url: String, dir: PathBuf) -> PathBuf {
    if let Ok(mut m) = sources.mirrors.lock() {
        m.insert(url, dir.clone());
    }
    dir
}

/// Runs a read-only git query in the mirror and returns its stdout.
async fn query(sources: &Sources, mirror: &Path, args: &[&str]) -> Result<String, SourceError> {
    let r = git(sources, sources.config.tool_timeout)
        .arg("--git-dir")
        .arg(mirror)
        .args(args)
        .stdout(Stdout::Capture(64 * 1024 * 1024));
    let shown = r.display();
    match run(r).await {
        Ok(o) if o.success => Ok(String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(o) => Err(tool_error(args[0], o.status_text(), &o.tail)),
        Err(e) => Err(tool_error(
            args[0],
            e.message(&shown, sources.config.tool_timeout),
            &e.tail(),
        )),
    }
}

/// Tags matching the glob, as versions.
pub(crate) async fn versions(
    sources: &Sources,
    repo: &GitRepo,
) -> Result<(Vec<PublishedVersion>, Vec<Excluded>), SourceError> {
    check_glob(&repo.tags)?;
    let mirror = mirror(sources, repo).await?;
    let format = "%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)%00%(committerdate:iso-strict)%00%(*committerdate:iso-strict)";
    let out = query(
        sources,
        &mirror,
        &["for-each-ref", &format!("--format={format}"), "refs/tags"],
    )
    .await?;
    let prefix = glob_prefix(&repo.tags);
    let mut versions = Vec::new();
    let mut excluded = Vec::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\0').collect();
        let [
            tag,
            kind,
            object,
            deref_kind,
            deref_object,
            date,
            deref_date,
        ] = f[..]
        else {
            continue;
        };
        if !glob_match(&repo.tags, tag) {
            continue;
        }
        let (commit, date) = match (kind, deref_kind) {
            ("commit", _) => (object, date),
            ("tag", "commit") => (deref_object, deref_date),
            _ => {
                excluded.push(Excluded {
                    version: tag.to_owned(),
                    exclusion: Exclusion::NotSemver {
                        why: "the tag does not name a commit".into(),
                    },
                });
                continue;
            }
        };
        let text = tag.strip_prefix(prefix).unwrap_or(tag);
        let text = text
            .strip_prefix('v')
            .or_else(|| text.strip_prefix('V'))
            .unwrap_or(text);
        versions.push(PublishedVersion::new(
            text,
            date.parse().ok(),
            Status::Current,
            Artifact::GitCommit {
                commit: commit.to_owned(),
                tag: Some(tag.to_owned()),
            },
        ));
    }
    Ok((versions, excluded))
}

/// A pin by commit: the full hash and its committer date.
pub(crate) async fn resolve_commit(
    sources: &Sources,
    repo: &GitRepo,
    commit: &str,
) -> Result<PublishedVersion, SourceError> {
    let mirror = mirror(sources, repo).await?;
    let spec = format!("{commit}^{{commit}}");
    let full = query(
        sources,
        &mirror,
        &["rev-parse", "--verify", "--quiet", &spec],
    )
    .await
    .map_err(|_| SourceError::VersionNotFound {
        pin: format!("git:{}@{commit}", repo.url),
    })?;
    let full = full.trim().to_owned();
    let date = query(sources, &mirror, &["show", "-s", "--format=%cI", &full]).await?;
    Ok(PublishedVersion::new(
        commit,
        date.trim().parse().ok(),
        Status::Current,
        Artifact::GitCommit {
            commit: full,
            tag: None,
        },
    ))
}

fn check_glob(glob: &str) -> Result<(), SourceError> {
    if glob.is_empty() || glob.contains(['[', ']', '{', '}']) {
        return Err(SourceError::BadQuery(format!(
            "`{glob}` is not a tag glob mcpseal reads: only `*` and `?` are wildcards"
        )));
    }
    Ok(())
}

/// The literal text before the first wildcard.
pub(crate) fn glob_prefix(glob: &str) -> &str {
    let end = glob.find(['*', '?']).unwrap_or(glob.len());
    &glob[..end]
}

/// `*` matches any run of characters (including `/`), `?` one character.
pub(crate) fn glob_match(glob: &str, text: &str) -> bool {
    let g: Vec<char> = glob.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut gi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if gi < g.len() && (g[gi] == '?' || g[gi] == t[ti]) {
            gi += 1;
            ti += 1;
        } else if gi < g.len() && g[gi] == '*' {
            star = Some((gi, ti));
            gi += 1;
        } else if let Some((sg, st)) = star {
            gi = sg + 1;
            ti = st + 1;
            star = Some((sg, st + 1));
        } else {
            return false;
        }
    }
    while gi < g.len() && g[gi] == '*' {
        gi += 1;
    }
    gi == g.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*", "v1.0.0"));
        assert!(glob_match("v*", "v1.0.0"));
        assert!(!glob_match("v*", "server-v1.0.0"));
        assert!(glob_match("server-v*", "server-v1.0.0"));
        assert!(glob_match("v1.?.*", "v1.2.3"));
        assert!(!glob_match("v1.?.*", "v1.22.3"));
        assert!(glob_match("*-v*", "a-b-v1"));
        assert_eq!(glob_prefix("server-v*"), "server-v");
        assert_eq!(glob_prefix("exact"), "exact");
        assert!(check_glob("v[0-9]*").is_err());
    }
}
