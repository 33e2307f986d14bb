//! `mcpseal index cohort --from-registry URL [--search TEXT]`: a cohort file pinning what an
//! MCP Registry lists.
//!
//! Each listed entry (the latest version of each server unless `--all-versions`) becomes one
//! `registry:NAME@VER` target — a registry version is immutable, so this pins the exact
//! `server.json` and, through it, the package version it names; the run expands it
//! (`super::expand`) and compares the entry's published fingerprint. An entry mcpseal could
//! not measure (no npm or PyPI package and no `streamable-http` remote) is left out and named
//! in [`RegistryCohort::left_out`], never silently. Ids are the server name in the cohort's
//! alphabet (`io.github.me/weather` → `io.github.me-weather`), made unique by a numeric
//! suffix; targets are sorted by name and version, so the same listing writes the same bytes.

use std::collections::BTreeSet;

use mcpseal_index::cohort::{Cohort, Defaults, TargetSpec};
use mcpseal_publish::keys::OFFICIAL_REGISTRY;

use crate::publish::registry::{ListOptions, RegistryReadError, list_entries};

/// What `cohort --from-registry` produced.
#[derive(Debug, Clone)]
pub struct RegistryCohort {
    /// The cohort file's text (TOML in the format of `mcpseal_index::cohort`).
    pub text: String,
    /// Targets written.
    pub targets: usize,
    /// `NAME@VER: why` of each listed entry left out.
    pub left_out: Vec<String>,
    /// The listing was cut short by `max_pages`.
    pub truncated: bool,
}

/// A cohort id for a registry name: lower case, every character outside `[a-z0-9._-]` a `-`,
/// at most 64 characters (room kept for a suffix).
fn id_for(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    id = id.trim_start_matches(['.', '_', '-']).to_owned();
    id.truncate(60);
    if id.is_empty() {
        id.push_str("server");
    }
    id
}

/// Reads the listing and writes the cohort (see the module docs).
///
/// # Errors
/// [`RegistryReadError`] when the registry cannot be read.
pub async fn cohort_from_registry(
    options: &ListOptions,
) -> Result<RegistryCohort, RegistryReadError> {
    let (mut entries, _, truncated) = list_entries(options).await?;
    entries.sort_by(|a, b| (a.name(), a.version()).cmp(&(b.name(), b.version())));
    let mut used = BTreeSet::new();
    let mut targets = Vec::new();
    let mut left_out = Vec::new();
    let base = options.registry.trim_end_matches('/');
    for e in &entries {
        let Some(version) = e.version() else {
            left_out.push(format!("{}: the entry has no version", e.name()));
            continue;
        };
        if let Err(why) = super::expand::expand(e) {
            left_out.push(format!("{}@{version}: {why}", e.name()));
            continue;
        }
        let stem = id_for(e.name());
        let mut id = stem.clone();
        let mut n = 2;
        while !used.insert(id.clone()) {
            id = format!("{stem}-{n}");
            n += 1;
        }
        targets.push(TargetSpec {
            id,
            install: format!("registry:{}@{version}", e.name()),
            integrity: None,
            registry: (base != OFFICIAL_REGISTRY).then(|| base.to_owned()),
            bin: None,
            args: Vec::new(),
            env: Default::default(),
            era: None,
            build: Vec::new(),
            run: None,
            budget_seconds: None,
            request_timeout_seconds: None,
        });
    }
    let cohort = Cohort {
        schema_version: mcpseal_index::cohort::COHORT_SCHEMA_VERSION,
        defaults: Defaults::default(),
        targets,
    };
    let body = toml::to_string(&cohort).unwrap_or_default();
    let mut text = format!(
        "# Written by `mcpseal index cohort --from-registry {base}{}`: {} entr{} of the listing, each\n# pinned to its registry version (registry versions are immutable).\n",
        options
            .search
            .as_deref()
            .map(|s| format!(" --search {}", s.replace(['\n', '\r'], " ")))
            .unwrap_or_default(),
        cohort.targets.len(),
        if cohort.targets.len() == 1 {
            "y"
        } else {
            "ies"
        },
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            "# Left out ({}): nothing mcpseal can install or reach.\n",
            left_out.len()
        ));
        for l in &left_out {
            text.push_str(&format!("#   {}\n", l.replace('\n', " ")));
        }
    }
    text.push('\n');
    text.push_str(&body);
    Ok(RegistryCohort {
        text,
        targets: cohort.targets.len(),
        left_out,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_cohort_alphabet() {
        assert_eq!(id_for("io.github.me/Weather"), "io.github.me-weather");
        assert_eq!(id_for("@@/x"), "x");
        assert_eq!(id_for(&"a".repeat(90)).len(), 60);
        assert_eq!(id_for("/"), "server");
    }
}
