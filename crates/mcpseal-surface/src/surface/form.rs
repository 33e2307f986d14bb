//! The two canonical forms ([`Form`]): mcpseal's own `mcpseal/1` and the compatible
//! `mcp-surface/1`, with their names on the wire and on the command line.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which canonical form to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// mcpseal's own form (SPEC.md): both eras, era in the hash, strict identities.
    #[default]
    McpSeal1,
    /// Byte-for-byte the `mcp-surface/1` form of `@sbissoli/mcp-surface`, to verify servers
    /// that publish that fingerprint.
    McpSurface1,
}

impl Form {
    /// `"mcpseal/1"` or `"mcp-surface/1"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Form::McpSeal1 => "mcpseal/1",
            Form::McpSurface1 => "mcp-surface/1",
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown form name; lists the supported ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown form `{0}`: expected `mcpseal/1` or `mcp-surface/1`")]
pub struct UnknownForm(pub String);

impl FromStr for Form {
    type Err = UnknownForm;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "mcpseal/1" => Ok(Form::McpSeal1),
            "mcp-surface/1" => Ok(Form::McpSurface1),
            other => Err(UnknownForm(other.to_owned())),
        }
    }
}

impl Serialize for Form {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Form {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
