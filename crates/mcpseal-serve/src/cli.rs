//! The command-line face of the verbs: `mcpseal serve --config site.toml --cli VERB [ARGS…]`.
//!
//! One verb set, two surfaces: the arguments are read into the same JSON object a `tools/call`
//! carries and validated against the same input schema, then the artifact goes through the same
//! verifying client. Arguments are `--name value`, `--name=value`, `--flag` (a boolean `true`),
//! or bare values filling the path's variables in order. Values are typed by the schema
//! (`integer`, `number`, `boolean`; anything else stays a string).

use serde_json::{Map, Value, json};

use crate::site::{Site, VerbError};

/// The arguments of verb `id`, read from `argv`.
///
/// # Errors
/// [`VerbError::Unknown`] for an unknown verb, [`VerbError::Arguments`] for arguments that
/// cannot be read (a typed value that does not parse, a bare value with no variable left).
pub fn parse_args(site: &Site, id: &str, argv: &[String]) -> Result<Map<String, Value>, VerbError> {
    let verb = site
        .verbs
        .get(id)
        .ok_or_else(|| VerbError::Unknown(id.to_owned()))?;
    let mut positional: std::collections::VecDeque<String> =
        verb.path.variables().map(str::to_owned).collect();
    let mut args = Map::new();
    let mut errors = Vec::new();
    let mut it = argv.iter().peekable();
    while let Some(a) = it.next() {
        let (name, raw) = if let Some(flag) = a.strip_prefix("--") {
            match flag.split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
                None => {
                    let boolean = prop_type(&verb.schema, flag) == Some("boolean");
                    let value = if boolean { None } else { it.next().cloned() };
                    if !boolean && value.is_none() {
                        errors.push(format!("`--{flag}` needs a value"));
                        continue;
                    }
                    (flag.to_owned(), value)
                }
            }
        } else {
            // Bare values fill the path's variables not yet given, in order.
            while positional.front().is_some_and(|p| args.contains_key(p)) {
                positional.pop_front();
            }
            match positional.pop_front() {
                Some(var) => (var, Some(a.clone())),
                None => {
                    errors.push(format!(
                        "unexpected argument `{a}` (name it: `--NAME VALUE`)"
                    ));
                    continue;
                }
            }
        };
        match typed(&verb.schema, &name, raw) {
            Ok(v) => {
                args.insert(name, v);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(args)
    } else {
        Err(VerbError::Arguments(errors))
    }
}

fn prop_type<'a>(schema: &'a Value, name: &str) -> Option<&'a str> {
    schema
        .pointer(&format!("/properties/{name}/type"))?
        .as_str()
}

fn typed(schema: &Value, name: &str, raw: Option<String>) -> Result<Value, String> {
    let Some(raw) = raw else {
        return Ok(Value::Bool(true));
    };
    let bad = |t: &str| format!("`--{name}` must be {t}, not `{raw}`");
    match prop_type(schema, name) {
        Some("integer") => raw
            .parse::<i64>()
            .map(|n| json!(n))
            .map_err(|_| bad("an integer")),
        Some("number") => raw
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(|n| json!(n))
            .ok_or_else(|| bad("a number")),
        Some("boolean") => match raw.as_str() {
            "true" => Ok(json!(true)),
            "false" => Ok(json!(false)),
            _ => Err(bad("`true` or `false`")),
        },
        _ => Ok(Value::String(raw)),
    }
}

/// One line per verb, for `--cli` without a verb: `  ID  DESCRIPTION`.
pub fn usage(site: &Site) -> String {
    let mut out = String::new();
    for (id, description) in site.verbs() {
        let vars: Vec<String> = site.verbs[id]
            .path
            .variables()
            .map(|v| format!("<{v}>"))
            .collect();
        let line = format!("  {id} {}", vars.join(" "));
        out.push_str(&format!("{}\n      {description}\n", line.trim_end()));
    }
    out
}
