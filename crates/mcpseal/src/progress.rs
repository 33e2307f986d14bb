//! What a long workflow is waiting for, told to whoever shows it.
//!
//! The workflows never print (the crate's contract); they *tell* a [`Progress`] sink what
//! they are doing: a [`Event::Waiting`] when a wait starts ("starting the server",
//! "capturing the surface"), a [`Event::Step`] per item of a counted job (a probe rule, a
//! replayed version). The `mcpseal` binary draws them as a spinner or bar on a terminal; a
//! library user may log them, or ignore them.
//!
//! The sink is *scoped*, like `tracing`'s dispatcher: [`scope`] runs a workflow's future with a
//! sink, and every step inside it (however deep: a probe rule, a replay install) reports to that
//! sink without a parameter threaded through every signature. Outside a scope, events go
//! nowhere, so calling a workflow without one is silent and costs nothing. The scope is the
//! future's task: a step that runs on a task of its own (`tokio::spawn`) is not reported.
//!
//! Events are hints for people, never data: their wording may change between versions, and
//! nothing a report says depends on them.

use std::future::Future;
use std::sync::Arc;

/// A sink for [`Event`]s. Called on the workflow's task, between awaits: keep it cheap and
/// never block (drawing a bar is fine; a network call is not).
pub trait Progress: Send + Sync {
    /// One event.
    fn event(&self, event: &Event);
}

/// What a workflow is doing now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// A wait of unknown length starts: `what` says what for ("capturing the surface").
    Waiting {
        /// What is being waited for, a short lower-case phrase.
        what: String,
    },
    /// Item `done + 1` of `total` of a counted job starts (`done` are finished).
    Step {
        /// The job, a short word ("probing", "replay").
        job: &'static str,
        /// Items finished so far.
        done: usize,
        /// Items in the job.
        total: usize,
        /// The item in hand ("SEAL023 (stateless requests)", "installing pkg@1.2.0").
        item: String,
    },
}

tokio::task_local! {
    static SINK: Arc<dyn Progress>;
}

/// Runs `future` with `sink` receiving the events of every workflow step inside it.
pub async fn scope<F: Future>(sink: Arc<dyn Progress>, future: F) -> F::Output {
    SINK.scope(sink, future).await
}

/// Tells the current scope's sink `event` (nothing outside a scope).
pub fn emit(event: Event) {
    let _ = SINK.try_with(|sink| sink.event(&event));
}

/// [`Event::Waiting`] for `what`.
pub(crate) fn waiting(what: impl Into<String>) {
    emit(Event::Waiting { what: what.into() });
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Log(Mutex<Vec<Event>>);

    impl Progress for Log {
        fn event(&self, event: &Event) {
            if let Ok(mut events) = self.0.lock() {
                events.push(event.clone());
            }
        }
    }

    #[tokio::test]
    async fn events_reach_the_scope_and_nothing_else() {
        // Outside a scope: no sink, no panic.
        waiting("before");
        let log = Arc::new(Log::default());
        scope(log.clone(), async {
            waiting("inside");
            tokio::task::yield_now().await;
            emit(Event::Step {
                job: "probing",
                done: 0,
                total: 2,
                item: "SEAL001".into(),
            });
        })
        .await;
        waiting("after");
        let events = log.0.lock().map(|e| e.clone()).unwrap_or_default();
        assert_eq!(
            events,
            vec![
                Event::Waiting {
                    what: "inside".into()
                },
                Event::Step {
                    job: "probing",
                    done: 0,
                    total: 2,
                    item: "SEAL001".into()
                },
            ]
        );
    }
}
