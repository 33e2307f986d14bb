//! The knobs of a server, with the defaults a public server should have.

use std::time::Duration;

/// `cacheScope` of 2026 cacheable results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Any cache may keep the result (the same for every client).
    Public,
    /// Only the requesting client may keep it.
    Private,
}

impl CacheScope {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// Options of the dispatcher, shared by both transports.
#[derive(Debug, Clone)]
pub struct Options {
    /// Items per page of every list (at least 1).
    pub page_size: usize,
    /// Also serve 2025-era clients: `initialize`, `ping`, requests without the 2026 envelope.
    /// Off: a modern-only server, which refuses `initialize` with `-32022` naming 2026-07-28.
    pub legacy: bool,
    /// `ttlMs` of cacheable results (discover, lists, reads) unless the handler set one.
    pub ttl_ms: u64,
    /// `cacheScope` of cacheable results unless the handler set one.
    pub cache_scope: CacheScope,
    /// Advertise `listChanged` and deliver [`crate::Server::notify_list_changed`] on
    /// `subscriptions/listen` streams.
    pub list_changed: bool,
    /// Largest incoming message (stdio line or HTTP body), in bytes.
    pub max_message_bytes: usize,
    /// Longest a handler may take to answer one request (listen streams excepted); past it the
    /// request is answered with `-32603` and the handler is dropped.
    pub request_timeout: Duration,
    /// Longest one stdio write may take; past it the client is taken to have stopped reading
    /// and the stdio server ends.
    pub write_timeout: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            page_size: 100,
            legacy: true,
            ttl_ms: 0,
            cache_scope: CacheScope::Public,
            list_changed: false,
            max_message_bytes: 4 * 1024 * 1024,
            request_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
        }
    }
}

/// Options of the Streamable HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Origins allowed besides the loopback ones (`http(s)://localhost`, `127.0.0.1`, `[::1]`,
    /// any port), as `scheme://host[:port]`; `*` allows every origin. A request whose `Origin`
    /// is present and not allowed gets 403 (DNS-rebinding protection). Requests without
    /// `Origin` (non-browser clients) always pass.
    pub allowed_origins: Vec<String>,
    /// Host names (without port) allowed in the `Host` header besides the loopback names, when
    /// the server is bound to a loopback address; `*` allows every host. A loopback server
    /// refusing foreign `Host` values is the other half of DNS-rebinding protection. Ignored for
    /// servers bound to other addresses (they are meant to be reached by name).
    pub allowed_hosts: Vec<String>,
    /// Longest wait for a request's headers after a connection opens or goes idle.
    pub header_read_timeout: Duration,
    /// Longest wait for a request body to arrive in full.
    pub body_read_timeout: Duration,
    /// Most connections served at once; further ones wait in the accept queue.
    pub max_connections: usize,
    /// Interval of `:` comment keep-alives on open event streams.
    pub keep_alive: Duration,
    /// Threads that serve the connections, each running its own single-threaded runtime (the
    /// shape of nginx's worker processes: a connection stays on one thread, which polls its own
    /// sockets, so no request wakes another thread); accepted connections go to the thread
    /// serving the fewest. `0` serves them on the caller's runtime, as tasks like any other
    /// (the choice for an application that embeds the server).
    pub connection_threads: usize,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 1024,
            keep_alive: Duration::from_secs(15),
            connection_threads: 0,
        }
    }
}
