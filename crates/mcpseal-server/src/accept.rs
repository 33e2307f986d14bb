//! The accept loop of the Streamable HTTP transport, and the threads its connections run on.
//!
//! hyper's HTTP/1 server per connection: a header-read timeout (a client that opens a connection
//! and sends nothing is dropped), keep-alive, `TCP_NODELAY`, and a cap on open connections (the
//! rest wait in the listen queue).
//!
//! Where connections run ([`HttpOptions::connection_threads`]): on the caller's runtime, or on
//! dedicated threads, each with a single-threaded runtime of its own. On a multi-threaded
//! runtime a request woken by one worker's I/O poll is often run, or stolen, by another, and
//! parking and waking the workers between requests was a fifth of `mcpseal serve`'s CPU time in
//! its benchmark (BENCHMARKS.md); a connection pinned to a thread that polls its own sockets is
//! served with no other thread woken, as nginx's worker processes are.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::response::Response;
use hyper::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Handle;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot, watch};
use tokio::task::JoinSet;

use crate::error::ServeError;
use crate::options::HttpOptions;

/// How long open connections get to finish when the server stops.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` with this crate's accept loop (hyper's HTTP/1 server: the
/// header-read timeout, connection cap and connection threads of `options`, keep-alive,
/// `TCP_NODELAY`) until `shutdown` completes; then calls `on_stop` (e.g. to end open event
/// streams), lets open connections finish for a few seconds and returns. Put `app` behind
/// [`crate::limit`] first.
///
/// # Errors
/// [`ServeError::Io`] when the connection threads cannot be started (the system refused a
/// thread); accept errors are retried.
pub async fn serve_router(
    listener: TcpListener,
    app: Router,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send,
    on_stop: impl FnOnce(),
) -> Result<(), ServeError> {
    let service = TowerToHyperService::new(app);
    serve_service(listener, service, options, shutdown, on_stop).await
}

/// What the accept loop serves on each connection: a hyper service answering every request
/// (a [`Router`] through [`TowerToHyperService`], or the MCP endpoint's own, see
/// [`crate::HttpServer::run`]).
pub(crate) trait HttpService:
    hyper::service::Service<
        Request<Incoming>,
        Response = Response,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> HttpService for S where
    S: hyper::service::Service<
            Request<Incoming>,
            Response = Response,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// [`serve_router`] for any [`HttpService`].
pub(crate) async fn serve_service(
    listener: TcpListener,
    service: impl HttpService,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send,
    on_stop: impl FnOnce(),
) -> Result<(), ServeError> {
    let threads =
        ConnectionThreads::start(options.connection_threads).map_err(|source| ServeError::Io {
            what: "start of the connection threads",
            source,
        })?;
    let header_timeout = options.header_read_timeout;
    let limit = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut conns = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = Arc::clone(&limit).acquire_owned() => match p { Ok(p) => p, Err(_) => break },
            () = &mut shutdown => break,
        };
        let (stream, _) = tokio::select! {
            a = listener.accept() => match a {
                Ok(accepted) => accepted,
                Err(_) => {
                    // Out of file descriptors and the like: back off, keep serving.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let conn = Connection {
            service: service.clone(),
            header_timeout,
            stop: stop_rx.clone(),
            _permit: permit,
        };
        match threads.least_busy() {
            None => {
                conns.spawn(conn.serve(stream));
            }
            Some(thread) => {
                // The socket moves to the thread's own I/O driver: deregistered here,
                // registered there (`into_std` leaves it non-blocking, as `from_std` needs).
                let Ok(stream) = stream.into_std() else {
                    continue;
                };
                let open = thread.open();
                conns.spawn_on(
                    async move {
                        let _open = open;
                        if let Ok(stream) = TcpStream::from_std(stream) {
                            conn.serve(stream).await;
                        }
                    },
                    &thread.handle,
                );
            }
        }
        while conns.try_join_next().is_some() {}
    }
    on_stop();
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(DRAIN, async { while conns.join_next().await.is_some() {} });
    if drained.await.is_err() {
        conns.abort_all();
    }
    // Dropping the threads ends their runtimes, on their own threads (a runtime cannot be
    // dropped inside another one's task).
    drop(threads);
    Ok(())
}

/// One accepted connection and what serving it needs.
struct Connection<S> {
    service: S,
    header_timeout: Duration,
    stop: watch::Receiver<bool>,
    /// A place under the connection cap, held while the connection is open.
    _permit: OwnedSemaphorePermit,
}

impl<S: HttpService> Connection<S> {
    /// Serves HTTP/1 requests on `stream` until the client closes it or the server stops (then
    /// the request in flight is finished first).
    async fn serve(mut self, stream: TcpStream) {
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(self.header_timeout)
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), self.service);
        tokio::pin!(conn);
        tokio::select! {
            _ = conn.as_mut() => {}
            _ = self.stop.changed() => {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    }
}

/// The connection threads of one server: each runs a single-threaded runtime until dropped.
struct ConnectionThreads {
    threads: Vec<ConnectionThread>,
}

struct ConnectionThread {
    handle: Handle,
    /// Connections open on it: new ones go to the thread with the fewest.
    open: Arc<AtomicUsize>,
    /// Dropped (with the server) to end the thread's runtime.
    _stop: oneshot::Sender<()>,
}

/// One open connection on a thread, counted while it lives.
struct Open(Arc<AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl ConnectionThread {
    fn open(&self) -> Open {
        self.open.fetch_add(1, Ordering::Relaxed);
        Open(Arc::clone(&self.open))
    }
}

impl ConnectionThreads {
    /// `n` threads (none for `0`: connections then run on the caller's runtime).
    fn start(n: usize) -> std::io::Result<ConnectionThreads> {
        let mut threads = Vec::with_capacity(n);
        for i in 0..n {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let handle = runtime.handle().clone();
            let (stop, stopped) = oneshot::channel::<()>();
            std::thread::Builder::new()
                .name(format!("mcpseal-http-{i}"))
                .spawn(move || {
                    // Ends when the sender is dropped; dropping the runtime here then cancels
                    // whatever is still running on it.
                    runtime.block_on(async {
                        let _ = stopped.await;
                    });
                })?;
            threads.push(ConnectionThread {
                handle,
                open: Arc::new(AtomicUsize::new(0)),
                _stop: stop,
            });
        }
        Ok(ConnectionThreads { threads })
    }

    fn least_busy(&self) -> Option<&ConnectionThread> {
        self.threads
            .iter()
            .min_by_key(|t| t.open.load(Ordering::Relaxed))
    }
}
