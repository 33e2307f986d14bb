//! Where a server says who it is, in both eras.

use serde_json::Value;

use crate::keys::META_SERVER_INFO;

/// The server's `Implementation` object in a `server/discover` or `initialize` result: the 2026
/// `_meta` serverInfo when present, else the 2025 `serverInfo` field.
pub fn server_info(result: &Value) -> Option<&Value> {
    result
        .get("_meta")
        .and_then(|m| m.get(META_SERVER_INFO))
        .filter(|v| !v.is_null())
        .or_else(|| result.get("serverInfo"))
}

/// `server_info(result).version` when it is a string.
pub fn server_version(result: &Value) -> Option<&str> {
    server_info(result)?.get("version")?.as_str()
}

/// `server_info(result).name` when it is a string.
pub fn server_name(result: &Value) -> Option<&str> {
    server_info(result)?.get("name")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modern_meta_wins_over_legacy_field() {
        let both = json!({"_meta": {META_SERVER_INFO: {"name": "m", "version": "2"}},
            "serverInfo": {"name": "l", "version": "1"}});
        assert_eq!(server_version(&both), Some("2"));
        assert_eq!(
            server_name(&json!({"serverInfo": {"name": "l"}})),
            Some("l")
        );
        assert_eq!(
            server_version(&json!({"_meta": {META_SERVER_INFO: null}})),
            None
        );
    }
}
