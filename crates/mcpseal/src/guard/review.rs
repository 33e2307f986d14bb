//! `mcpseal guard review` and `mcpseal guard approve`: the pending drift a running guard would
//! block, and re-locking only the items a person approved.
//!
//! Both capture the live surface the way the guard's start-up listing does
//! ([`super::list_upstream`]: a fresh connection, nothing recorded that the server did not
//! really say) and compare it with the lock through the one comparison
//! (`mcpseal_surface::lock::compare`), refined per item by the guard's [`Drift`].
//!
//! Approve contract: only the named items of the lock's stored surface are replaced by their
//! live definitions (added when new, dropped when removed); every other item, the server part,
//! the exclusions and the lock's unknown keys stay as they were (`--all` takes the whole live
//! surface). The lock's version rules apply to what is re-locked: a surface change needs the
//! version bump the rules ask for, unless `allow_same_version` relaxes that (the lock then keeps
//! its version). The file is replaced atomically.
//!
//! Approve is a writer of the lock file like `mcpseal lock`: it holds the lock's writer lock
//! ([`crate::writer_lock`]) from before it reads the lock until it has written it or decided
//! not to, so an approval and a `lock` run (or two approvals) never both decide on the same old
//! bytes. And it approves items **of the server the lock was written for**: when the live
//! server's `serverInfo.name` is not the locked one, the lock is another server's (the guard
//! refuses everything then), and approving items into it would quietly turn it into a pin of a
//! different server; approve refuses ([`ApproveError::Renamed`]) unless
//! [`ApproveOptions::allow_rename`] says the rename is intended — the lock then records the new
//! name (the same switch as `lock`/`check`'s `--allow-rename`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpseal_client::{Options, Target};
use mcpseal_guard::ItemRef;
use mcpseal_guard::drift::{Drift, ItemDrift};
use mcpseal_surface::lock::compare::compare;
use mcpseal_surface::lock::rules::{Need, RuleOptions};
use mcpseal_surface::lock::{Declared, LockFile, Version};
use mcpseal_surface::{ListKind, utf16_cmp};
use serde_json::Value;

use super::GuardError;
use crate::lock::read_lock;

/// The pending drift: what the live server says that the lock does not approve.
#[derive(Debug, Clone)]
pub struct Review {
    /// The lock file.
    pub lock: PathBuf,
    /// The version the lock was written under.
    pub locked_version: String,
    /// The version the server reports now, if any.
    pub reported_version: Option<String>,
    /// Every item that is not the same, classified.
    pub drift: Drift,
}

impl Review {
    /// Nothing is pending (a server under another name than the locked one is pending too:
    /// the guard refuses it).
    pub fn clean(&self) -> bool {
        self.drift.items.is_empty() && self.drift.identity.is_none()
    }
}

/// What to approve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Every pending item (the whole live surface).
    All,
    /// These items (`tools/search`, or the refusal's `tool:search`).
    Items(Vec<ItemRef>),
}

/// How `approve` may relax its refusals, and how long it waits for another writer.
#[derive(Debug, Clone)]
pub struct ApproveOptions {
    /// Re-lock under the lock's version when the server's version does not carry the bump the
    /// change needs.
    pub allow_same_version: bool,
    /// Approve although the server's name is not the locked one: the lock records the new
    /// name.
    pub allow_rename: bool,
    /// How long to wait for another run writing the same lock file
    /// ([`crate::lock::default_lock_wait`] is a good value).
    pub lock_wait: Duration,
}

/// What `approve` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApproveOutcome {
    /// The lock was rewritten under this version.
    Written {
        /// The items re-locked.
        items: Vec<String>,
        /// The version written.
        version: String,
    },
    /// The named items are already what the lock says: nothing written.
    NothingPending,
    /// The rules refuse the change without a version bump: nothing written.
    NeedsBump {
        /// What the change needs, in words.
        need: String,
        /// The lock's version.
        locked: String,
        /// The server's version now.
        current: String,
    },
}

/// Why an item name given to `approve` cannot be used.
#[derive(Debug, thiserror::Error)]
#[error(
    "`{0}` is not pending: it is neither changed, added nor removed between the lock and the server"
)]
pub struct NotPending(pub String);

/// Parses `LIST/ID` (`tools/search`, `resources/file:///a`, `resourceTemplates/x://{id}`,
/// `prompts/greet`), or the refusal's `tool:search` form (see [`ItemRef::parse`]).
pub fn parse_item(text: &str) -> ItemRef {
    if let Some((list, id)) = text.split_once('/')
        && let Some(kind) = ListKind::from_key(list)
    {
        return ItemRef::new(kind, id);
    }
    ItemRef::parse(text)
}

fn read(lock: &Path) -> Result<LockFile, GuardError> {
    match read_lock(lock) {
        Ok(Some(l)) => Ok(l),
        Ok(None) => Err(GuardError::NoLock(lock.to_owned())),
        Err(e) => Err(GuardError::Lock(e)),
    }
}

/// Lists the server and returns the pending drift against the lock.
///
/// # Errors
/// [`GuardError`]: the lock is missing or wrong, or the server cannot be listed in full.
pub async fn review(lock: &Path, target: &Target, options: &Options) -> Result<Review, GuardError> {
    let file = read(lock)?;
    let live = super::list_upstream(target, options, file.form).await?;
    let surface = live.surface.canonical_value(file.form);
    let cmp = compare(&file.declared, &surface, &file.declared.exclude);
    Ok(Review {
        lock: lock.to_owned(),
        locked_version: file.declared.version.clone(),
        reported_version: live.raw.reported_version(),
        drift: Drift::of(&cmp),
    })
}

/// Re-locks the approved items (see the module docs).
///
/// # Errors
/// [`ApproveError::Locked`] when another run holds the lock file's writer lock for the whole
/// wait; [`GuardError`] as for [`review`]; [`ApproveError::Renamed`] when the server's name is
/// not the locked one (without `allow_rename`); [`ApproveError::NotPending`] when a named item
/// has no drift; [`ApproveError::Write`] when the lock cannot be replaced. On every error the
/// lock is untouched.
pub async fn approve(
    lock: &Path,
    target: &Target,
    options: &Options,
    approval: &Approval,
    approve: &ApproveOptions,
) -> Result<ApproveOutcome, ApproveError> {
    // Held until the function returns: read, decide and write as one writer.
    let _writer =
        crate::writer_lock::acquire(lock, "mcpseal guard approve", approve.lock_wait).await?;
    let file = read(lock)?;
    let live = super::list_upstream(target, options, file.form).await?;
    let live_surface = live.surface.canonical_value(file.form);
    let exclude = &file.declared.exclude;
    let drift = Drift::of(&compare(&file.declared, &live_surface, exclude));
    if let Some((locked, live)) = &drift.identity
        && !approve.allow_rename
    {
        return Err(ApproveError::Renamed {
            locked: locked.clone(),
            live: live.clone(),
        });
    }
    let (mut surface, mut items): (Value, Vec<String>) = match approval {
        Approval::All => (
            live_surface.clone(),
            drift.items.iter().map(|d| d.item.to_string()).collect(),
        ),
        Approval::Items(wanted) => {
            let mut surface = file.declared.surface.clone();
            let mut names = Vec::new();
            for item in wanted {
                let Some(d) = drift.get(item) else {
                    return Err(ApproveError::NotPending(NotPending(item.to_string())));
                };
                let Some(list) = item.list else {
                    // The server part: everything outside the four lists.
                    replace_server_part(&mut surface, &live_surface);
                    names.push(d.item.to_string());
                    continue;
                };
                replace_item(&mut surface, &live_surface, list, &item.id);
                names.push(d.item.to_string());
            }
            (surface, names)
        }
    };
    if let Some((locked, live)) = &drift.identity {
        // `allow_rename` (checked above): the lock becomes the renamed server's.
        if let Some(name) = surface.pointer_mut("/server/serverInfo/name") {
            *name = Value::String(live.clone());
        }
        items.insert(0, format!("server name `{locked}` → `{live}`"));
    }
    if items.is_empty() {
        return Ok(ApproveOutcome::NothingPending);
    }
    let cmp = compare(&file.declared, &surface, exclude);
    let need = Need::of(&cmp.kinds(), &RuleOptions::default());
    let locked = file
        .declared
        .parsed_version()
        .map_err(|e| ApproveError::Version(e.to_string()))?;
    let current = live
        .raw
        .reported_version()
        .and_then(|v| Version::parse(&v).ok());
    let version = match &current {
        Some(c) if need.satisfied_by(&locked, c) && c >= &locked => c.clone(),
        _ if approve.allow_same_version => locked.clone(),
        _ => {
            return Ok(ApproveOutcome::NeedsBump {
                need: need.phrase(&locked).to_owned(),
                locked: locked.as_str().to_owned(),
                current: current
                    .map(|c| c.as_str().to_owned())
                    .unwrap_or_else(|| "none reported".to_owned()),
            });
        }
    };
    let mut next = LockFile::new(file.form, Declared::new(&version, surface, exclude.clone()));
    next.extra = file.extra.clone();
    crate::atomic::write_atomic(lock, next.render().as_bytes()).map_err(|source| {
        ApproveError::Write {
            path: lock.to_owned(),
            source,
        }
    })?;
    Ok(ApproveOutcome::Written {
        items,
        version: version.as_str().to_owned(),
    })
}

/// Why `approve` wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApproveError {
    /// The lock, the server or its listing.
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// Another run holds the lock file's writer lock.
    #[error(transparent)]
    Locked(#[from] crate::writer_lock::WriterLockError),
    /// The live server's name is not the one the lock was written for.
    #[error("this lock was written for `{locked}`; the server says `{live}`: nothing was written")]
    Renamed {
        /// The name in the lock.
        locked: String,
        /// The name the server reports.
        live: String,
    },
    /// A named item has no drift.
    #[error(transparent)]
    NotPending(NotPending),
    /// The lock's version cannot be read.
    #[error("the lock's version cannot be read: {0}")]
    Version(String),
    /// The lock cannot be replaced.
    #[error("cannot write the lock `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl ApproveError {
    /// The `hint:` line.
    pub fn hint(&self) -> String {
        match self {
            ApproveError::Guard(e) => e.hint(),
            ApproveError::Locked(e) => e.hint().into(),
            ApproveError::Renamed { .. } => {
                "point `--lock` at this server's own lock; if the server was renamed on purpose, pass `--allow-rename` to approve under its new name".into()
            }
            ApproveError::NotPending(_) => {
                "`mcpseal guard review` lists the pending items (as LIST/ID, e.g. `tools/search`); nothing was written".into()
            }
            ApproveError::Version(_) => {
                "the lock was edited by hand: re-lock with `mcpseal lock`".into()
            }
            ApproveError::Write { .. } => {
                "check the lock's directory and its permissions; the lock is untouched".into()
            }
        }
    }
}

/// Puts the live definition of `list`/`id` into `surface` in place of the locked one (adds it
/// when new, drops it when the server no longer has it), keeping the list in identity order.
fn replace_item(surface: &mut Value, live: &Value, list: ListKind, id: &str) {
    let (key, idk) = (list.key(), list.identity_key());
    let same = |item: &Value| item.get(idk).and_then(Value::as_str) == Some(id);
    let new = live
        .get(key)
        .and_then(Value::as_array)
        .and_then(|items| items.iter().find(|i| same(i)).cloned());
    let Some(obj) = surface.as_object_mut() else {
        return;
    };
    let entry = obj.entry(key.to_owned()).or_insert(Value::Null);
    if !entry.is_array() {
        // The list was not served when locked: approving an item of it serves it.
        *entry = Value::Array(Vec::new());
    }
    let Some(items) = entry.as_array_mut() else {
        return;
    };
    items.retain(|i| !same(i));
    if let Some(new) = new {
        items.push(new);
    }
    items.sort_by(|a, b| {
        let ka = a.get(idk).and_then(Value::as_str).unwrap_or_default();
        let kb = b.get(idk).and_then(Value::as_str).unwrap_or_default();
        utf16_cmp(ka, kb)
    });
}

/// Puts every live key outside the four lists into `surface` (instructions, capabilities,
/// server info…), dropping locked ones the server no longer has.
fn replace_server_part(surface: &mut Value, live: &Value) {
    let lists: Vec<&str> = ListKind::ALL.iter().map(|k| k.key()).collect();
    let (Some(obj), Some(live)) = (surface.as_object_mut(), live.as_object()) else {
        return;
    };
    obj.retain(|k, _| lists.contains(&k.as_str()) || live.contains_key(k));
    for (k, v) in live {
        if !lists.contains(&k.as_str()) {
            obj.insert(k.clone(), v.clone());
        }
    }
}

/// One pending item for people: `changed  tool:echo  [security]  what changed`.
pub fn render_item(d: &ItemDrift) -> String {
    use mcpseal_surface::lock::compare::ItemState;
    let state = match d.state {
        ItemState::Same => "same",
        ItemState::Changed { .. } => "changed",
        ItemState::Added => "added",
        ItemState::Removed => "removed",
    };
    let classes: Vec<String> = d.classes.iter().map(ToString::to_string).collect();
    let mut out = format!("{state:<8} {}  [{}]", d.item, classes.join(", "));
    if let Some(from) = &d.renamed_from {
        out.push_str(&format!("  (likely a rename of `{from}`)"));
    }
    out.push('\n');
    for r in &d.reasons {
        out.push_str(&format!("    {r}\n"));
    }
    for c in &d.changes {
        let show = |v: &Option<Value>| {
            v.as_ref()
                .map(|v| {
                    let t = v.to_string();
                    if t.chars().count() > 120 {
                        format!("{}…", t.chars().take(120).collect::<String>())
                    } else {
                        t
                    }
                })
                .unwrap_or_else(|| "(absent)".to_owned())
        };
        out.push_str(&format!(
            "    {} {}: {} → {}\n",
            c.class,
            c.path,
            show(&c.before),
            show(&c.after)
        ));
    }
    out
}
