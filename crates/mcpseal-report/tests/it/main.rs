//! Integration tests of the renderers: snapshots of every format, schema validation of the JSON
//! and SARIF outputs, and the behaviours the renderers promise.

mod call;
mod render;
mod schemas;
mod snapshots;
mod support;
