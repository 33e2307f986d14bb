//! The guard's judgement: what it has seen of the upstream, and the decision on every item.
//!
//! Decisions are made when something is seen — a listing (the host's list request, a
//! `list_changed`, the start-up read) or the server part (`server/discover`, `initialize`) — and
//! only then: a call is judged by a lookup, never by asking the upstream again. Each time, the
//! live surface ([`crate::live`]) goes through the one lock comparison, the drift is classified
//! ([`crate::drift`]) and the policy decides ([`crate::policy`]); new block and warn decisions go
//! to the notes (stderr) and the audit log.
//!
//! Fail closed, always: a list that could not be read, or not verified item by item, refuses
//! every call to its items until a later read succeeds; a list not read yet (or marked stale by a
//! `list_changed`) is read before a call to it is judged; a server part naming another server
//! than the lock's refuses everything.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use mcpseal_protocol::{Era, ListKind};
use mcpseal_surface::Form;
use mcpseal_surface::lock::LockFile;
use mcpseal_surface::lock::compare::compare;
use serde_json::{Map, Value};

use crate::audit::{AuditEntry, AuditEvent, AuditLog, now};
use crate::dress::Dress;
use crate::drift::{Drift, ItemDrift};
use crate::live::{ListRead, Seen, live_surface};
use crate::policy::{DriftClass, ItemRef, Level, Mode, Policy};
use crate::refusal::{Refusal, ReviewHint};
use crate::uri;

/// Where the guard's notes for people go (the CLI passes stderr).
pub type Notes = Arc<dyn Fn(&str) + Send + Sync>;

/// How a guard decides and reports.
pub struct GuardOptions {
    /// The policy.
    pub policy: Policy,
    /// The audit log, if any.
    pub audit: Option<AuditLog>,
    /// The commands refusals point at.
    pub hint: ReviewHint,
    /// Notes for people (decisions, failures).
    pub notes: Notes,
    /// Items per page of the filtered lists the host sees (at least 1).
    pub page_size: usize,
}

impl std::fmt::Debug for GuardOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardOptions")
            .field("policy", &self.policy)
            .field("audit", &self.audit)
            .field("hint", &self.hint)
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}

/// Why a lock cannot guard anything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LockUnusable {
    /// A lock in the `mcp-surface/1` form (it has no per-era server part to pin).
    #[error("the lock is in form `{0}`; a guard pins `mcpseal/1` locks")]
    Form(Form),
}

/// The decision on one drifted item.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// What the guard does (the policy's level, `block` softened to `warn` in warn mode).
    pub level: Level,
    /// What the policy said.
    pub policy_level: Level,
    /// How the item drifted.
    pub drift: ItemDrift,
}

/// What to do with a host request that names an item.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Forward it.
    Forward,
    /// Answer it with this refusal.
    Refuse(Refusal),
    /// Read this list first (not read yet, or stale), then judge again.
    Read(ListKind),
}

/// What the guard does with a server part (`server/discover` or `initialize` result).
#[derive(Debug, Clone, PartialEq)]
pub enum ServerVerdict {
    /// Forward it untouched.
    Forward,
    /// Forward this result instead (blocked instructions removed, blocked new capabilities
    /// hidden).
    Rewrite(Value),
    /// Answer with this refusal instead.
    Refuse(Refusal),
}

struct State {
    seen: Seen,
    generation: [u64; 4],
    dirty: [bool; 4],
    /// `list_changed` notifications seen per list (a read clears `dirty` only when none arrived
    /// while it ran).
    changes: [u64; 4],
    failed: [Option<String>; 4],
    server_failed: Option<String>,
    decisions: HashMap<ItemRef, Decision>,
    identity: Option<(String, String)>,
    logged: HashSet<(ItemRef, Option<String>, Level)>,
    dress: Option<Dress>,
    envelopes: [Map<String, Value>; 4],
}

/// The guard's judgement, shared by the fronts (see the module docs).
pub struct Guard {
    lock: LockFile,
    server_name: String,
    options: GuardOptions,
    state: Mutex<State>,
    reading: [tokio::sync::Mutex<()>; 4],
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("server", &self.server_name)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Guard {
    /// A guard enforcing `lock`.
    ///
    /// # Errors
    /// [`LockUnusable`] for a lock that is not in the `mcpseal/1` form.
    pub fn new(lock: LockFile, options: GuardOptions) -> Result<Guard, LockUnusable> {
        if lock.form != Form::McpSeal1 {
            return Err(LockUnusable::Form(lock.form));
        }
        let server_name = locked_server_name(&lock).unwrap_or("(unnamed)").to_owned();
        Ok(Guard {
            lock,
            server_name,
            options,
            state: Mutex::new(State {
                seen: Seen::default(),
                generation: [0; 4],
                dirty: [false; 4],
                changes: [0; 4],
                failed: [None, None, None, None],
                server_failed: None,
                decisions: HashMap::new(),
                identity: None,
                logged: HashSet::new(),
                dress: None,
                envelopes: std::array::from_fn(|_| Map::new()),
            }),
            reading: std::array::from_fn(|_| tokio::sync::Mutex::new(())),
        })
    }

    /// The lock.
    pub fn lock(&self) -> &LockFile {
        &self.lock
    }

    /// The locked server's name.
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    /// The options.
    pub fn options(&self) -> &GuardOptions {
        &self.options
    }

    /// The commands refusals point at.
    pub fn hint(&self) -> &ReviewHint {
        &self.options.hint
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The lock that serialises reads of one list (so a burst of calls after a `list_changed`
    /// reads it once).
    pub(crate) fn read_lock(&self, kind: ListKind) -> &tokio::sync::Mutex<()> {
        &self.reading[kind.index()]
    }

    /// Takes in what a start-up capture saw (the server part and every list), before any host
    /// traffic. Returns the refusal that makes the guard useless, if any (another server, a list
    /// that cannot be verified).
    pub fn seed(
        &self,
        server: Option<(Era, Value)>,
        lists: [Option<ListRead>; 4],
    ) -> Option<Refusal> {
        let mut st = self.state();
        st.seen.server = server;
        st.seen.lists = lists;
        for k in ListKind::ALL {
            if st.seen.lists[k.index()].is_some() {
                st.generation[k.index()] += 1;
            }
        }
        if let Err(why) = self.recompute(&mut st) {
            st.server_failed = Some(why.clone());
            return Some(Refusal::Unverifiable { why });
        }
        self.global_refusal(&st)
    }

    /// Remembers the dress of a host request, for the reads a `list_changed` triggers.
    pub fn remember_dress(&self, dress: Dress) {
        self.state().dress = Some(dress);
    }

    /// The last remembered dress.
    pub fn dress(&self) -> Option<Dress> {
        self.state().dress.clone()
    }

    /// Marks a list stale (a `list_changed` arrived): calls to its items wait for a new read.
    pub fn mark_dirty(&self, kind: ListKind) {
        let mut st = self.state();
        st.dirty[kind.index()] = true;
        st.changes[kind.index()] += 1;
    }

    /// The count of `list_changed` notifications seen for a list; taken before a read and passed
    /// to [`Guard::record_list`], so a change announced while the read ran keeps the list stale.
    pub fn read_epoch(&self, kind: ListKind) -> u64 {
        self.state().changes[kind.index()]
    }

    /// Whether a list must be read before a call to its items is judged.
    pub fn needs_read(&self, kind: ListKind) -> bool {
        let st = self.state();
        st.dirty[kind.index()] || st.seen.lists[kind.index()].is_none()
    }

    /// Takes in a read of one list (or why it failed); returns its generation.
    ///
    /// # Errors
    /// The refusal for calls to its items when it failed or cannot be verified item by item.
    #[expect(
        clippy::result_large_err,
        reason = "a failed read is rare and answered at once; boxing the refusal would buy nothing"
    )]
    pub fn record_list(
        &self,
        kind: ListKind,
        read: Result<ListRead, String>,
    ) -> Result<u64, Refusal> {
        let mut st = self.state();
        let k = kind.index();
        st.dirty[k] = false;
        let read = match read {
            Ok(r) => r,
            Err(why) => {
                st.seen.lists[k] = None;
                st.failed[k] = Some(format!("the upstream's `{}` failed: {why}", kind.method()));
                let _ = self.recompute(&mut st);
                self.note(&format!("mcpseal guard: `{}` failed ({why}); its items are refused until it can be read", kind.method()));
                return Err(Refusal::Unverifiable {
                    why: st.failed[k].clone().unwrap_or_default(),
                });
            }
        };
        st.seen.lists[k] = Some(read);
        if let Err(e) = self.recompute(&mut st) {
            st.seen.lists[k] = None;
            let why = format!(
                "the upstream's `{}` cannot be verified item by item: {e}",
                kind.method()
            );
            st.failed[k] = Some(why.clone());
            let _ = self.recompute(&mut st);
            self.note(&format!("mcpseal guard: {why}"));
            return Err(Refusal::Unverifiable { why });
        }
        st.failed[k] = None;
        st.generation[k] += 1;
        Ok(st.generation[k])
    }

    /// Takes in a server part that passed through, and says what to forward.
    pub fn record_server(&self, era: Era, result: &Value) -> ServerVerdict {
        let mut st = self.state();
        let before = st.seen.server.replace((era, result.clone()));
        if let Err(e) = self.recompute(&mut st) {
            st.seen.server = before;
            let _ = self.recompute(&mut st);
            let why = format!("the server part cannot be normalised: {e}");
            return ServerVerdict::Refuse(Refusal::Unverifiable { why });
        }
        if let Some(r) = self.global_refusal(&st) {
            return ServerVerdict::Refuse(r);
        }
        let Some(d) = st.decisions.get(&ItemRef::server()) else {
            return ServerVerdict::Forward;
        };
        if d.level != Level::Block {
            return ServerVerdict::Forward;
        }
        let mut rewritten = result.clone();
        let locked_era = self.locked_era();
        for class in &d.drift.classes {
            match class {
                DriftClass::Instructions | DriftClass::Prose => {
                    if let Some(m) = rewritten.as_object_mut() {
                        m.remove("instructions");
                    }
                }
                DriftClass::Capabilities if era == locked_era => {
                    let locked = self
                        .lock
                        .declared
                        .surface
                        .pointer("/server/capabilities")
                        .cloned()
                        .unwrap_or(Value::Null);
                    if let Some(caps) = rewritten.get_mut("capabilities") {
                        hide_new_capabilities(caps, &locked);
                    }
                }
                _ => {}
            }
        }
        if &rewritten == result {
            ServerVerdict::Forward
        } else {
            ServerVerdict::Rewrite(rewritten)
        }
    }

    fn locked_era(&self) -> Era {
        self.lock
            .declared
            .surface
            .get("era")
            .and_then(Value::as_str)
            .and_then(Era::from_revision)
            .unwrap_or(Era::Modern)
    }

    /// A refusal that applies to every request (another server's lock, an unreadable server
    /// part), if any.
    pub fn refusal(&self) -> Option<Refusal> {
        self.global_refusal(&self.state())
    }

    fn global_refusal(&self, st: &State) -> Option<Refusal> {
        if let Some((locked, live)) = &st.identity {
            return Some(Refusal::Unverifiable {
                why: format!(
                    "the lock is for the server `{locked}`, but this server calls itself `{live}`"
                ),
            });
        }
        st.server_failed
            .as_ref()
            .map(|why| Refusal::Unverifiable { why: why.clone() })
    }

    /// The verdict on a call, get or read of `item` (a tool, a prompt, a resource or a template).
    pub fn judge(&self, item: &ItemRef) -> Verdict {
        let st = self.state();
        if let Some(r) = self.global_refusal(&st) {
            return Verdict::Refuse(r);
        }
        let Some(kind) = item.list else {
            return Verdict::Forward;
        };
        let k = kind.index();
        if let Some(why) = &st.failed[k] {
            return Verdict::Refuse(Refusal::Unverifiable { why: why.clone() });
        }
        if st.dirty[k] || st.seen.lists[k].is_none() {
            return Verdict::Read(kind);
        }
        self.judge_read(&st, item)
    }

    fn judge_read(&self, st: &State, item: &ItemRef) -> Verdict {
        if let Some(d) = st.decisions.get(item) {
            if d.level == Level::Block {
                return Verdict::Refuse(self.blocked(d));
            }
            // Allowed or warned (a removed item allowed by the policy: the upstream answers
            // for itself).
            return Verdict::Forward;
        }
        let listed = item
            .list
            .is_some_and(|kind| listed(&st.seen, kind, &item.id));
        if listed {
            return Verdict::Forward;
        }
        // Neither locked nor listed: an item the lock does not approve.
        self.unapproved(item)
    }

    fn unapproved(&self, item: &ItemRef) -> Verdict {
        let level = self.effective(self.options.policy.decide(item, &[DriftClass::Added]));
        if level == Level::Block {
            return Verdict::Refuse(Refusal::Blocked {
                item: item.clone(),
                classes: vec![DriftClass::Added],
                reason: format!(
                    "the upstream does not list {} `{}`",
                    item.kind_word(),
                    item.id
                ),
                locked_sha256: None,
                live_sha256: None,
            });
        }
        Verdict::Forward
    }

    /// The verdict on `resources/read` of `uri`: the listed resource's, else that of the
    /// approved templates that produce it ([`crate::uri::matches`]); a URI neither listed nor
    /// produced by a template is not approved.
    pub fn judge_uri(&self, uri: &str) -> Verdict {
        let st = self.state();
        if let Some(r) = self.global_refusal(&st) {
            return Verdict::Refuse(r);
        }
        let resource = ItemRef::new(ListKind::Resources, uri);
        for kind in [ListKind::Resources, ListKind::ResourceTemplates] {
            let k = kind.index();
            if let Some(why) = &st.failed[k] {
                return Verdict::Refuse(Refusal::Unverifiable { why: why.clone() });
            }
            if st.dirty[k] || st.seen.lists[k].is_none() {
                return Verdict::Read(kind);
            }
            if kind == ListKind::Resources
                && (st.decisions.contains_key(&resource) || listed(&st.seen, kind, uri))
            {
                return self.judge_read(&st, &resource);
            }
        }
        let mut first_refusal = None;
        for template in templates(&st.seen) {
            if !uri::matches(&template, uri) {
                continue;
            }
            match self.judge_read(&st, &ItemRef::new(ListKind::ResourceTemplates, template)) {
                Verdict::Refuse(r) => {
                    first_refusal.get_or_insert(r);
                }
                other => return other,
            }
        }
        match first_refusal {
            Some(r) => Verdict::Refuse(r),
            None => self.unapproved(&resource),
        }
    }

    /// The items of the last read of `kind` the host may see, in the upstream's order, with the
    /// read's generation. `None` when the list was not read (or is not served).
    pub fn visible(&self, kind: ListKind) -> Option<(u64, Vec<Value>)> {
        let st = self.state();
        let Some(ListRead::Items(items)) = &st.seen.lists[kind.index()] else {
            return None;
        };
        let shown = items
            .iter()
            .filter(|i| {
                let Some(id) = i.get(kind.identity_key()).and_then(Value::as_str) else {
                    return false;
                };
                let item = ItemRef::new(kind, id);
                match st.decisions.get(&item) {
                    Some(d) => d.level != Level::Block,
                    None => true,
                }
            })
            .cloned()
            .collect();
        Some((st.generation[kind.index()], shown))
    }

    /// Keeps the upstream's first-page result of a list (its `ttlMs`, `cacheScope`, `_meta`…)
    /// as the envelope of the pages the host gets.
    pub fn set_envelope(&self, kind: ListKind, mut envelope: Map<String, Value>) {
        envelope.remove(kind.key());
        self.state().envelopes[kind.index()] = envelope;
    }

    /// The envelope of the host's pages of a list (see [`Guard::set_envelope`]).
    pub fn envelope(&self, kind: ListKind) -> Map<String, Value> {
        self.state().envelopes[kind.index()].clone()
    }

    /// The `inputSchema` of a tool as last listed (for the `Mcp-Param-*` headers of a call).
    pub fn tool_schema(&self, name: &str) -> Option<Value> {
        let st = self.state();
        let Some(ListRead::Items(items)) = &st.seen.lists[ListKind::Tools.index()] else {
            return None;
        };
        items
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|t| t.get("inputSchema").cloned())
    }

    /// The current generation of a list's read (changes with every read).
    pub fn generation(&self, kind: ListKind) -> u64 {
        self.state().generation[kind.index()]
    }

    /// Every current decision on a drifted item (for reports), sorted by item.
    pub fn decisions(&self) -> Vec<Decision> {
        let mut all: Vec<Decision> = self.state().decisions.values().cloned().collect();
        all.sort_by(|a, b| a.drift.item.cmp(&b.drift.item));
        all
    }

    /// Records a refused call in the audit log.
    pub fn audit_refusal(&self, refusal: &Refusal) {
        let Refusal::Blocked {
            item,
            classes,
            reason,
            locked_sha256,
            live_sha256,
        } = refusal
        else {
            return;
        };
        self.audit(AuditEntry {
            time: now(),
            server: self.server_name.clone(),
            item: item.to_string(),
            classes: classes.clone(),
            decision: Level::Block,
            mode: self.options.policy.mode().as_str().to_owned(),
            event: AuditEvent::Call,
            locked_sha256: locked_sha256.clone(),
            live_sha256: live_sha256.clone(),
            reasons: vec![reason.clone()],
        });
    }

    fn blocked(&self, d: &Decision) -> Refusal {
        Refusal::Blocked {
            item: d.drift.item.clone(),
            classes: d.drift.classes.clone(),
            reason: d.drift.reasons.first().cloned().unwrap_or_default(),
            locked_sha256: d.drift.locked_sha256.clone(),
            live_sha256: d.drift.live_sha256.clone(),
        }
    }

    fn effective(&self, level: Level) -> Level {
        if self.options.policy.mode() == Mode::Warn && level == Level::Block {
            Level::Warn
        } else {
            level
        }
    }

    /// Compares what was seen with the lock and decides (see the module docs).
    fn recompute(&self, st: &mut State) -> Result<(), String> {
        let live =
            live_surface(&self.lock.declared.surface, &st.seen).map_err(|e| e.to_string())?;
        let cmp = compare(&self.lock.declared, &live, &self.lock.declared.exclude);
        let drift = Drift::of(&cmp);
        st.identity.clone_from(&drift.identity);
        st.decisions.clear();
        for d in drift.items {
            let policy_level = self.options.policy.decide(&d.item, &d.classes);
            let level = self.effective(policy_level);
            let key = (d.item.clone(), d.live_sha256.clone(), level);
            if level >= Level::Warn && st.logged.insert(key) {
                self.report(&d, level);
            }
            st.decisions.insert(
                d.item.clone(),
                Decision {
                    level,
                    policy_level,
                    drift: d,
                },
            );
        }
        if let Some((locked, live)) = &st.identity {
            self.note(&format!(
                "mcpseal guard: the lock is for `{locked}`, but the upstream calls itself `{live}`: refusing everything"
            ));
        }
        Ok(())
    }

    fn report(&self, d: &ItemDrift, level: Level) {
        let what = match (level, d.item.list) {
            (Level::Block, None) => "blocked the changed parts of",
            (Level::Block, _) => "hides",
            _ => "warns about",
        };
        self.note(&format!(
            "mcpseal guard: {what} {} ({}): {}",
            d.item,
            d.classes
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(", "),
            d.reasons.join("; ")
        ));
        self.audit(AuditEntry {
            time: now(),
            server: self.server_name.clone(),
            item: d.item.to_string(),
            classes: d.classes.clone(),
            decision: level,
            mode: self.options.policy.mode().as_str().to_owned(),
            event: if d.item.list.is_some() {
                AuditEvent::Listing
            } else {
                AuditEvent::Server
            },
            locked_sha256: d.locked_sha256.clone(),
            live_sha256: d.live_sha256.clone(),
            reasons: d.reasons.clone(),
        });
    }

    fn audit(&self, entry: AuditEntry) {
        if let Some(log) = &self.options.audit
            && let Err(e) = log.write(&entry)
        {
            self.note(&format!(
                "mcpseal guard: cannot write the audit log `{}`: {e}",
                log.path().display()
            ));
        }
    }

    pub(crate) fn note(&self, line: &str) {
        (self.options.notes)(line);
    }
}

/// The locked server's name.
fn locked_server_name(lock: &LockFile) -> Option<&str> {
    lock.declared
        .surface
        .pointer("/server/serverInfo/name")
        .and_then(Value::as_str)
}

fn listed(seen: &Seen, kind: ListKind, id: &str) -> bool {
    match &seen.lists[kind.index()] {
        Some(ListRead::Items(items)) => items
            .iter()
            .any(|i| i.get(kind.identity_key()).and_then(Value::as_str) == Some(id)),
        _ => false,
    }
}

fn templates(seen: &Seen) -> Vec<String> {
    let kind = ListKind::ResourceTemplates;
    match &seen.lists[kind.index()] {
        Some(ListRead::Items(items)) => items
            .iter()
            .filter_map(|i| i.get(kind.identity_key()).and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Removes from `caps` every capability (and flag) that is on now but was off or absent in
/// `locked`: what the lock never approved is not advertised.
fn hide_new_capabilities(caps: &mut Value, locked: &Value) {
    let Some(map) = caps.as_object_mut() else {
        return;
    };
    let empty = Map::new();
    let locked_map = locked.as_object().unwrap_or(&empty);
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let on =
            |v: Option<&Value>| !matches!(v, None | Some(Value::Null) | Some(Value::Bool(false)));
        let was = locked_map.get(&key);
        if !on(was) {
            if on(map.get(&key)) {
                map.remove(&key);
            }
            continue;
        }
        if let (Some(now), Some(was)) = (map.get_mut(&key), was)
            && now.is_object()
        {
            hide_new_capabilities(now, was);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn new_capabilities_are_hidden_old_ones_kept() {
        let mut caps = json!({"tools": {"listChanged": true}, "prompts": {}, "logging": {}});
        hide_new_capabilities(&mut caps, &json!({"tools": {}, "prompts": {}}));
        assert_eq!(caps, json!({"tools": {}, "prompts": {}}));
    }
}
