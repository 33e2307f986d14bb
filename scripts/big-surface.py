#!/usr/bin/env python3
"""big-surface.py [N]: a fixture `--surface` file of N (default 10 000) tools of ~4.7 KB each, served
as one `tools/list` message of ~47.8 MB (issue 21's large-message row). Used by BENCHMARKS.md."""
import json, sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
tools = []
for i in range(1, n + 1):
    props = {}
    for p in range(6):
        props[f"param_{p}"] = {
            "type": "object",
            "description": f"Parameter {p} of tool {i}: \"quoted\" text, ünïcödé ✓, a path C:\\tmp\\{i}",
            "properties": {
                f"leaf_{k}": {"type": ["string", "number", "boolean"][k % 3],
                               "description": f"leaf {k} of param {p} — {'x' * 40}",
                               "enum": [f"v{k}a", f"v{k}b", f"v{k}c"] if k % 3 == 0 else None,
                               "minimum": 0.5 * k if k % 3 == 1 else None}
                for k in range(4)
            },
            "required": [f"leaf_0", f"leaf_1"],
        }
        for leaf in props[f"param_{p}"]["properties"].values():
            for key in [k for k, v in leaf.items() if v is None]:
                del leaf[key]
    tools.append({
        "name": f"big_tool_{i:05d}",
        "title": f"Big tool {i}",
        "description": ("Does thing number %d with care. " % i) * 12,
        "inputSchema": {"type": "object", "properties": props, "required": ["param_0"]},
        "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}, "count": {"type": "integer", "maximum": 1e9}}},
        "annotations": {"readOnlyHint": i % 2 == 0, "idempotentHint": True},
        "_meta": {"example.com/rank": i, "example.com/weight": i / 7},
    })
json.dump({"tools": tools}, sys.stdout, ensure_ascii=False, separators=(",", ":"))
