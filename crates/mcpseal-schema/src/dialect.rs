//! Which JSON Schema draft a schema is written in: the one its `$schema` names.

use serde_json::Value;

/// A JSON Schema draft mcpseal validates offline (its meta-schema is bundled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Dialect {
    /// Draft 4 (`http://json-schema.org/draft-04/schema#`).
    Draft4,
    /// Draft 6.
    Draft6,
    /// Draft 7 (what most `zod`/`pydantic` v1 era generators emit).
    Draft7,
    /// 2019-09.
    Draft2019_09,
    /// 2020-12: MCP's dialect, and the default when `$schema` is absent.
    #[default]
    Draft2020_12,
}

impl Dialect {
    /// The dialect a meta-schema URI names: the five drafts over `http` or `https`, with or
    /// without the empty fragment, and the version-less `https://json-schema.org/schema` (the
    /// current draft, 2020-12). `None` for anything else (a custom meta-schema).
    pub fn from_uri(uri: &str) -> Option<Dialect> {
        let uri = uri.trim_end_matches('#');
        let rest = uri
            .strip_prefix("https://json-schema.org/")
            .or_else(|| uri.strip_prefix("http://json-schema.org/"))?;
        Some(match rest {
            "draft-04/schema" => Dialect::Draft4,
            "draft-06/schema" => Dialect::Draft6,
            "draft-07/schema" => Dialect::Draft7,
            "draft/2019-09/schema" => Dialect::Draft2019_09,
            "draft/2020-12/schema" | "schema" => Dialect::Draft2020_12,
            _ => return None,
        })
    }

    /// The dialect `schema` declares with `$schema`; 2020-12 when it declares none (or a
    /// non-string, which the meta-schema then rejects). `Err` carries a custom meta-schema's URI.
    pub fn of(schema: &Value) -> Result<Dialect, String> {
        match schema.get("$schema").and_then(Value::as_str) {
            None => Ok(Dialect::default()),
            Some(uri) => Dialect::from_uri(uri).ok_or_else(|| uri.to_owned()),
        }
    }

    /// The canonical `https` meta-schema URI.
    pub fn uri(self) -> &'static str {
        match self {
            Dialect::Draft4 => "https://json-schema.org/draft-04/schema",
            Dialect::Draft6 => "https://json-schema.org/draft-06/schema",
            Dialect::Draft7 => "https://json-schema.org/draft-07/schema",
            Dialect::Draft2019_09 => "https://json-schema.org/draft/2019-09/schema",
            Dialect::Draft2020_12 => "https://json-schema.org/draft/2020-12/schema",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_declared_dialect_is_read_and_2020_12_is_the_default() {
        assert_eq!(Dialect::of(&json!({})), Ok(Dialect::Draft2020_12));
        assert_eq!(Dialect::of(&json!(true)), Ok(Dialect::Draft2020_12));
        assert_eq!(
            Dialect::of(&json!({"$schema": "http://json-schema.org/draft-07/schema#"})),
            Ok(Dialect::Draft7)
        );
        assert_eq!(
            Dialect::of(&json!({"$schema": "https://json-schema.org/draft/2019-09/schema"})),
            Ok(Dialect::Draft2019_09)
        );
        assert_eq!(
            Dialect::of(&json!({"$schema": "https://example.com/my-meta"})),
            Err("https://example.com/my-meta".to_owned())
        );
        for d in [
            Dialect::Draft4,
            Dialect::Draft6,
            Dialect::Draft7,
            Dialect::Draft2019_09,
            Dialect::Draft2020_12,
        ] {
            assert_eq!(Dialect::from_uri(d.uri()), Some(d));
            assert_eq!(Dialect::from_uri(&format!("{}#", d.uri())), Some(d));
        }
    }
}
