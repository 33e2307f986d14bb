//! Writes the replay report's JSON Schema to `schemas/` at the repository root.

#![expect(
    clippy::disallowed_methods,
    reason = "writes the committed schema it generates (to fold into the xtask)"
)]

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    std::fs::create_dir_all(&dir)?;
    let (name, schema) = mcpseal::replay::schema();
    let mut text = serde_json::to_string_pretty(&schema).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(dir.join(name), text)
}
