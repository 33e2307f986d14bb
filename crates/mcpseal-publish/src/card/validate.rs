//! Offline validity of a card, per shape.
//!
//! * v1: the vendored schema (`#/$defs/ServerCard`), plus the rules its examples and the
//!   reference validators add that the schema does not express: no `packages` (they belong to
//!   the registry's `server.json`), and a specific version (no `latest`, no ranges);
//! * Smithery and legacy: `serverInfo.name` and `serverInfo.version` strings (Smithery's
//!   documented requirement), each listed primitive list an array of objects, and
//!   `authentication.required` a boolean when `authentication` is given;
//! * unknown: always invalid (nothing can be checked).

use serde_json::Value;

use super::{CardShape, detect};
use crate::validate::{Violation, card_v1};
use mcpseal_protocol::ListKind;

/// Whether a version string is a range or a tag rather than one version.
pub fn is_version_range(v: &str) -> bool {
    let v = v.trim();
    v.eq_ignore_ascii_case("latest")
        || v.starts_with(['^', '~', '>', '<', '='])
        || v.contains("||")
        || v.contains(" - ")
        || v.split(['+', '-'])
            .next()
            .unwrap_or(v)
            .split('.')
            .any(|p| p == "x" || p == "X" || p == "*")
}

/// The violations of a card of the shape [`detect`] finds.
pub fn violations(doc: &Value) -> Vec<Violation> {
    match detect(doc) {
        CardShape::V1 => {
            let mut out = card_v1(doc);
            if doc.get("packages").is_some() {
                out.push(Violation::new(
                    "/packages",
                    "a server card has no `packages`: package metadata belongs to the registry's server.json",
                ));
            }
            if let Some(v) = doc.get("version").and_then(Value::as_str)
                && is_version_range(v)
            {
                out.push(Violation::new(
                    "/version",
                    format!("`{v}` is not a specific version (no `latest`, no ranges)"),
                ));
            }
            out
        }
        CardShape::Smithery | CardShape::Legacy => listing_card(doc),
        CardShape::Unknown => vec![Violation::new(
            "",
            "not a server card of any known shape (v1, Smithery, SEP-1649)",
        )],
    }
}

fn listing_card(doc: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    for k in ["name", "version"] {
        if !doc
            .get("serverInfo")
            .and_then(|i| i.get(k))
            .is_some_and(Value::is_string)
        {
            out.push(Violation::new(
                format!("/serverInfo/{k}"),
                "must be a string",
            ));
        }
    }
    for kind in ListKind::ALL {
        let Some(list) = doc.get(kind.key()) else {
            continue;
        };
        match list.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    if !item.get(kind.identity_key()).is_some_and(Value::is_string) {
                        out.push(Violation::new(
                            format!("/{}/{i}/{}", kind.key(), kind.identity_key()),
                            "must be a string",
                        ));
                    }
                }
            }
            None => out.push(Violation::new(
                format!("/{}", kind.key()),
                "must be an array",
            )),
        }
    }
    if let Some(auth) = doc.get("authentication")
        && !auth.get("required").is_some_and(Value::is_boolean)
    {
        out.push(Violation::new(
            "/authentication/required",
            "must be a boolean",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::CARD_SCHEMA_URL;
    use serde_json::json;

    #[test]
    fn ranges_are_not_versions() {
        for r in [
            "latest", "^1.2.3", "~1.2.3", ">=1.2.3", "1.x", "1.*", "1 - 2", "1 || 2",
        ] {
            assert!(is_version_range(r), "{r}");
        }
        for v in ["1.2.3", "2.1.0-alpha", "1.0.0+x.7", "2026.8.31"] {
            assert!(!is_version_range(v), "{v}");
        }
    }

    #[test]
    fn a_minimal_v1_card_is_valid_and_packages_are_not() {
        let ok = json!({"$schema": CARD_SCHEMA_URL, "name": "example-org/minimal",
            "version": "1.0.0", "description": "Smallest valid Server Card."});
        assert_eq!(violations(&ok), Vec::new());
        let mut packages = ok.clone();
        packages["packages"] = json!([{"registryType": "npm", "identifier": "x"}]);
        assert_eq!(violations(&packages)[0].path, "/packages");
        let smithery = json!({"serverInfo": {"name": "a"}, "tools": [{"description": "no name"}],
            "authentication": {}});
        let paths: Vec<String> = violations(&smithery).into_iter().map(|v| v.path).collect();
        assert_eq!(
            paths,
            [
                "/serverInfo/version",
                "/tools/0/name",
                "/authentication/required"
            ]
        );
    }
}
