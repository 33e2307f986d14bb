//! Writes the project config's JSON Schema to `schemas/mcpseal-config.schema.json`.

#![expect(
    clippy::disallowed_methods,
    reason = "writes the committed schema it generates (to fold into the xtask)"
)]

use std::path::Path;

fn main() -> std::io::Result<()> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/mcpseal-config.schema.json");
    let mut text =
        serde_json::to_string_pretty(&mcpseal::config::schema()).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(path, text)
}
