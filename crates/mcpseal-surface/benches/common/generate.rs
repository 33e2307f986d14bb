//! Deterministic generator of a large raw capture for the benchmarks: `tools` tools with
//! nested input and output schemas, served over pages of 100 (2026 era).

use serde_json::{Value, json};

fn prop(i: usize, j: usize, depth: usize) -> Value {
    if depth == 0 {
        let ty = ["string", "integer", "number", "boolean"][(i + j) % 4];
        return json!({
            "type": ty,
            "description": format!("Leaf {j} of tool {i}: a value with a long-ish description, émoji 😀 and \"quotes\"."),
            "minimum": 0, "maximum": 1_000_000, "default": 1.5,
            "enum": ["alpha", "beta", "gamma", "delta"],
            "examples": [1.0, 2.5e-7, 123_456_789, "x"],
        });
    }
    let mut props = serde_json::Map::new();
    for k in 0..3 {
        props.insert(format!("field_{k}_{depth}"), prop(i, j * 3 + k, depth - 1));
    }
    json!({
        "type": "object",
        "description": format!("Object at depth {depth} of tool {i}"),
        "properties": props,
        "required": ["field_2_".to_owned() + &depth.to_string(), "field_0_".to_owned() + &depth.to_string()],
        "additionalProperties": false,
    })
}

fn tool(i: usize) -> Value {
    let mut input = serde_json::Map::new();
    for j in 0..4 {
        input.insert(format!("param_{j}"), prop(i, j, 1));
    }
    json!({
        "name": format!("tool_{:05}", (i * 7919) % 100_000),
        "title": format!("Tool number {i}"),
        "description": format!("Tool {i} does a useful thing. It reads its parameters and returns a structured result.\n\nUse it when you need thing {i}."),
        "inputSchema": {"type": "object", "properties": input, "required": ["param_0"]},
        "outputSchema": {"type": "object", "properties": {"result": prop(i, 99, 1), "ok": {"type": "boolean"}}},
        "annotations": {"readOnlyHint": i.is_multiple_of(2), "destructiveHint": false, "openWorldHint": i.is_multiple_of(3)},
        "icons": [{"src": format!("https://example.com/icons/{i}.png"), "mimeType": "image/png", "sizes": ["48x48"]}],
        "_meta": {"vendor/category": "bench", "vendor/index": i},
    })
}

/// Tools per page of the generated capture.
pub const PER_PAGE: usize = 100;

/// The capture as JSON bytes. Built tool by tool so the generator itself stays small.
pub fn capture(tools: usize) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(br#"{"era":"2026-07-28","server":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},"instructions":"Benchmark server.","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0.0"}}},"lists":{"tools":{"pages":["#);
    let per_page = PER_PAGE;
    let pages = tools.div_ceil(per_page);
    for p in 0..pages {
        if p > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"tools":["#);
        for i in p * per_page..((p + 1) * per_page).min(tools) {
            if i > p * per_page {
                out.push(b',');
            }
            serde_json::to_writer(&mut out, &tool(i)).expect("serialise tool");
        }
        out.extend_from_slice(br#"],"ttlMs":60000,"cacheScope":"public","resultType":"complete""#);
        if p + 1 < pages {
            out.extend_from_slice(format!(r#","nextCursor":"page-{}""#, p + 1).as_bytes());
        }
        out.push(b'}');
    }
    out.extend_from_slice(br#"]},"resources":{"pages":[{"resources":[]}]},"resourceTemplates":{"pages":[{"resourceTemplates":[]}]},"prompts":{"pages":[],"failure":{"kind":"error","message":"-32601 Method not found"}}}}"#);
    out
}
