//! A tool result's `content`: an array of the revision's content blocks.
//!
//! `ContentBlock` is an `anyOf` of five definitions, so a validator's own message for a bad
//! block is "not valid under any of the schemas". A block that names its `type` is judged
//! against that one definition instead, which says what is actually wrong.

use mcpseal_protocol::Era;
use serde_json::Value;

use super::{Check, MAX_VIOLATIONS, Problem};
use crate::violation::{Violation, cut};
use crate::wire;

/// The definition of each block `type`.
const BLOCKS: &[(&str, &str)] = &[
    ("text", "TextContent"),
    ("image", "ImageContent"),
    ("audio", "AudioContent"),
    ("resource_link", "ResourceLink"),
    ("resource", "EmbeddedResource"),
];

/// The most blocks judged one by one (the rest are judged by the result's shape).
const MAX_BLOCKS: usize = 64;

pub(super) fn tool_content(era: Era, result: &Value, out: &mut Vec<Problem>) {
    let blocks = match result.get("content") {
        Some(Value::Array(blocks)) => blocks,
        None => {
            out.push(Problem::error(
                Check::Content,
                "the result has no `content` array",
            ));
            return;
        }
        Some(c) => {
            out.push(Problem::error(
                Check::Content,
                format!(
                    "`content` is {} instead of an array",
                    cut(&c.to_string(), 60)
                ),
            ));
            return;
        }
    };
    let Ok(any) = wire::definition(era, "ContentBlock") else {
        return;
    };
    for (i, block) in blocks.iter().enumerate().take(MAX_BLOCKS) {
        if any.is_valid(block) {
            continue;
        }
        let kind = block.get("type").and_then(Value::as_str);
        let specific = kind
            .and_then(|k| BLOCKS.iter().find(|(t, _)| *t == k))
            .and_then(|(_, def)| wire::definition(era, def).ok());
        let (what, violations) = match (kind, specific) {
            (Some(k), Some(def)) => (
                format!("a `{k}` block"),
                def.first_violations(block, MAX_VIOLATIONS),
            ),
            (Some(k), None) => (
                format!(
                    "of type `{}`, which {} does not define",
                    cut(k, 40),
                    era.revision()
                ),
                Vec::new(),
            ),
            (None, _) => ("without a `type`".to_owned(), Vec::new()),
        };
        let violations: Vec<Violation> = violations
            .into_iter()
            .map(|mut v| {
                v.instance_path = format!("/content/{i}{}", v.instance_path);
                v
            })
            .collect();
        let why: Vec<String> = violations
            .iter()
            .take(3)
            .map(|v| v.masked_message.clone())
            .collect();
        let detail = if why.is_empty() {
            String::new()
        } else {
            format!(": {}", why.join("; "))
        };
        out.push(
            Problem::error(
                Check::ContentBlock,
                format!("`content[{i}]` is not a valid content block ({what}){detail}"),
            )
            .with(violations),
        );
    }
}

/// The first text block's text, for messages.
pub(super) fn first_text(result: &Value) -> Option<&str> {
    text_blocks(result).next()
}

/// The texts of a result's text blocks, in order.
pub(super) fn text_blocks(result: &Value) -> impl Iterator<Item = &str> {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
}
