//! `mcpseal serve`: a verified static MCP server.
//!
//! A static site publishes its files and a `sha256sum` manifest of them (`site.sha256`),
//! optionally signed with Sigstore (`site.sha256.sigstore.json`, e.g. from a GitHub Actions
//! deploy). This crate serves that site as a read-only MCP server — verbs as tools, a catalogue
//! as resources and resource templates — and returns nothing the signed manifest does not vouch
//! for: every tool result and resource read fetches the bytes (bounded in size and time, never
//! across origins), hashes them and requires the manifest's digest; a mismatch, a path that is
//! not in the manifest, or (in `require` mode) a manifest whose signature does not verify is a
//! JSON-RPC error, never a response. (A local directory's verified bytes are kept while the file
//! keeps its identity — re-validated on every request, re-read and re-hashed whenever it
//! changed: [`recheck`].) Every result says how it was verified in
//! `_meta.verification` (path, URL, sha256, manifest sha256, signature status). The signature is
//! verified offline (embedded trusted root; feature `sigstore`, on by default) in stdio and HTTP
//! mode alike, once per manifest fetch.
//!
//! The protocol half (both eras, stdio and Streamable HTTP, conformance) is `mcpseal-server`;
//! this crate is its [`Handler`](mcpseal_server::Handler), [`Site`]. What it refuses to do:
//! write anything, call anything but the origin, or serve a path the config does not name.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let loaded = mcpseal_serve::config::load(std::path::Path::new("examples/site/site.toml"))?;
//! let site = mcpseal_serve::Site::new(&loaded, mcpseal_serve::SiteOptions::default())?;
//! let server = mcpseal_serve::server(site);
//! server.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod answers;
pub mod cli;
pub mod config;
mod error;
pub mod manifest;
pub mod origin;
pub mod path;
pub mod recheck;
pub mod signature;
mod site;
pub mod trust;

pub use answers::META_VERIFICATION;
pub use error::{ConfigError, FetchError, VERIFICATION_FAILED, VerifyError};
pub use site::{Site, SiteOptions, VerbError};
pub use trust::{CheckFailure, DeployCheck, Verified};

/// The MCP server of a site, with the dispatcher options its config asks for.
pub fn server(site: Site) -> mcpseal_server::Server<Site> {
    let options = site.server_options();
    mcpseal_server::Server::new(site, options)
}
