#!/usr/bin/env python3
"""Second, independent implementation of mcpseal's surface fingerprint (SPEC.md).

Standard library only. Usage:

    python3 tools/fingerprint.py [--form mcpseal/1|mcp-surface/1] [--canonical] [--unchecked] CAPTURE.json
    python3 tools/fingerprint.py --value VALUE.json     # RFC 8785 of any JSON value, no normalisation

CAPTURE.json is a raw capture (SPEC.md "Raw capture"); `-` reads standard input. Prints the
lowercase hex SHA-256 of the canonical bytes, or with --canonical the canonical bytes
themselves (UTF-8, no trailing newline). --unchecked skips the fail-closed identity checks
(duplicates, missing identity), which mcp-surface/1 itself does not make.

--vectors VECTORS.json (alone) prints VECTORS.json with every vector's expectedCanonical,
expectedSha256 and expectedItems recomputed from its rawCapture in the file's form: how
`cargo xtask generate vectors` writes the test vectors, so their expectations come from this
implementation and the Rust one is held to them.

--batch (alone) runs many command lines in one process: stdin is a JSON array of
{"args": [...], "input": "<capture text>"}, stdout a JSON array of {"code": n, "stdout": "..."}.

Exit status: 0 ok, 1 the capture fails closed (duplicate or missing identity, lone surrogate),
2 usage or unreadable input.
"""

import hashlib
import json
import sys

ERAS = ("2025-11-25", "2026-07-28")
LISTS = (("tools", "name"), ("resources", "uri"), ("resourceTemplates", "uriTemplate"), ("prompts", "name"))
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"


class FailClosed(Exception):
    """The surface is ambiguous: mcpseal refuses to hash it."""


class BadCapture(Exception):
    """The document is not a raw capture."""


# ---------------------------------------------------------------- parsing


def _reject_constant(name):
    raise BadCapture("non-JSON constant %s" % name)


def _big_int(text):
    # JavaScript parses every number as a double; so do we (exact int first, then round
    # half-even to the nearest double, which is what a correct decimal parser gives).
    try:
        return float(int(text))
    except OverflowError:
        raise BadCapture("number out of range: %s" % text[:20])


def _float(text):
    f = float(text)
    if f in (float("inf"), float("-inf")):
        raise BadCapture("number out of range: %s" % text[:20])
    return f


class Obj(dict):
    """A JSON object. Duplicate keys: the last one wins, as in JavaScript; the values it
    overwrote are kept aside in `dropped`, because they must still be free of lone surrogates
    (the Rust implementation parses them too)."""

    __slots__ = ("dropped",)


def _pairs(pairs):
    d = Obj()
    d.dropped = []
    for k, v in pairs:
        if k in d:
            d.dropped.append(d[k])
        d[k] = v
    return d


def loads(data):
    if isinstance(data, bytes):
        data = data.decode("utf-8")  # invalid UTF-8 raises UnicodeDecodeError
    return json.loads(
        data,
        parse_constant=_reject_constant,
        parse_int=_big_int,
        parse_float=_float,
        object_pairs_hook=_pairs,
    )


def check_surrogates(value, where):
    """json.loads accepts lone surrogate escapes; RFC 8785 and UTF-8 cannot carry them."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in v):
                raise FailClosed("lone UTF-16 surrogate in %s" % where)
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
            stack.extend(getattr(v, "dropped", ()))


# ---------------------------------------------------------------- RFC 8785


def utf16_key(s):
    return s.encode("utf-16-be")


def js_number(x):
    """ECMAScript Number::toString for a finite double."""
    if x == 0:
        return "0"  # also -0
    if x < 0:
        return "-" + js_number(-x)
    r = repr(x)  # shortest round-trip digits, like JavaScript
    if "e" in r:
        mant, exp = r.split("e")
        exp = int(exp)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = (ip + fp).lstrip("0")
    # value = 0.ip fp... scaled: point sits after len(ip) digits of (ip+fp), times 10^exp
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    n = len(ip) + exp - lead_zeros
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    if k == 1:
        return digits + "e" + sign + str(abs(e))
    return digits[0] + "." + digits[1:] + "e" + sign + str(abs(e))


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def js_string(s):
    out = ['"']
    for c in s:
        if c in _ESC:
            out.append(_ESC[c])
        elif ord(c) < 0x20:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def canonical(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return js_number(float(v))
    if isinstance(v, str):
        return js_string(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=utf16_key)
        return "{" + ",".join(js_string(k) + ":" + canonical(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


def sha256_hex(b):
    return hashlib.sha256(b).hexdigest()


# ---------------------------------------------------------------- normalisation


_MISSING = object()


def without_version(v):
    if isinstance(v, dict):
        return {k: x for k, x in v.items() if k != "version"}
    return v


def js_to_string(v):
    """JavaScript String(v), for the mcp-surface/1 sort key of a non-string identity."""
    if v is _MISSING:
        return "undefined"
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return js_number(float(v))
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return ",".join("" if x is None else js_to_string(x) for x in v)
    return "[object Object]"


def build_list(kind, cap, strict):
    """Returns the sorted item list, or None when not served."""
    if not isinstance(cap, dict):
        return None  # not captured
    if cap.get("failure") is not None:
        return None
    pages = cap.get("pages", [])
    if not pages:
        return None
    for page in pages:  # structure
        if not isinstance(page, dict):
            return None
        if not isinstance(page.get(kind), list):
            return None
    items = []
    for page in pages:  # content
        items.extend(page[kind])
    _, id_key = [x for x in LISTS if x[0] == kind][0]
    keyed = []
    for i, item in enumerate(items):
        ident = item.get(id_key, _MISSING) if isinstance(item, dict) else _MISSING
        if not isinstance(ident, str):
            if strict:
                raise FailClosed("item %d of `%s` has no string `%s`" % (i, kind, id_key))
            ident = js_to_string(ident)
        keyed.append((ident, item))
    keyed.sort(key=lambda t: utf16_key(t[0]))  # stable
    if strict:
        for a, b in zip(keyed, keyed[1:]):
            if a[0] == b[0]:
                raise FailClosed("duplicate identity in `%s`: %r" % (kind, a[0]))
    return keyed


FAILURE_KINDS = ("error", "transport", "pageCap", "cursorLoop")


def validate_capture(capture):
    """The shape checks the Rust types make when they parse a capture (unknown fields ignored)."""
    if not isinstance(capture, dict) or capture.get("era") not in ERAS:
        raise BadCapture("not a raw capture (era must be one of %s)" % ", ".join(ERAS))
    sf = capture.get("serverFailure")
    if sf is not None and not isinstance(sf, str):
        raise BadCapture("serverFailure must be a string")
    lists = capture.get("lists", {})
    if not isinstance(lists, dict):
        raise BadCapture("lists must be an object")
    for kind, _ in LISTS:
        cap = lists.get(kind)
        if cap is None:
            continue
        if not isinstance(cap, dict):
            raise BadCapture("lists.%s must be an object" % kind)
        if not isinstance(cap.get("pages", []), list):
            raise BadCapture("lists.%s.pages must be an array" % kind)
        failure = cap.get("failure")
        if failure is None:
            continue
        if not isinstance(failure, dict) or failure.get("kind") not in FAILURE_KINDS:
            raise BadCapture("lists.%s.failure.kind must be one of %s" % (kind, ", ".join(FAILURE_KINDS)))
        if not isinstance(failure.get("message", ""), str):
            raise BadCapture("lists.%s.failure.message must be a string" % kind)


MAX_DEPTH = 127  # serde_json's nesting limit, counted from the document's top level


def check_depth(value):
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            if d > MAX_DEPTH:
                raise BadCapture("nesting deeper than %d" % MAX_DEPTH)
            children = v.values() if isinstance(v, dict) else v
            stack.extend((c, d + 1) for c in children)
            stack.extend((c, d + 1) for c in getattr(v, "dropped", ()))


def normalise(capture, form, strict=True):
    # Every byte of the capture must be representable the same way everywhere: no lone
    # surrogate (fail closed, exit 1), no over-deep nesting (not a capture, exit 2).
    check_depth(capture)
    check_surrogates(capture, "capture")
    validate_capture(capture)
    era = capture["era"]
    server = capture.get("server")
    obj = server if isinstance(server, dict) else {}

    def or_null(k):
        return obj.get(k)  # absent or null -> None

    lists = capture.get("lists") or {}
    out_lists = {}
    for kind, _ in LISTS:
        keyed = build_list(kind, lists.get(kind), strict)
        out_lists[kind] = None if keyed is None else [item for _, item in keyed]

    if form == "mcpseal/1":
        if era == "2026-07-28":
            sv = obj.get("supportedVersions")
            if isinstance(sv, list) and all(isinstance(x, str) for x in sv):
                sv = sorted(sv, key=utf16_key)
            meta = obj.get("_meta")
            info = meta.get(SERVER_INFO_META_KEY) if isinstance(meta, dict) else None
            if info is None:
                info = obj.get("serverInfo")
        else:
            pv = obj.get("protocolVersion")
            sv = None if pv is None else [pv]
            info = obj.get("serverInfo")
        doc = {
            "form": "mcpseal/1",
            "era": era,
            "server": {
                "capabilities": or_null("capabilities"),
                "instructions": or_null("instructions"),
                "serverInfo": without_version(info),
                "supportedVersions": sv,
            },
        }
    elif form == "mcp-surface/1":
        info = obj.get("serverInfo")
        doc = {
            "initialize": {
                "protocolVersion": or_null("protocolVersion"),
                "capabilities": or_null("capabilities"),
                "instructions": or_null("instructions"),
                "serverInfo": without_version(info) if isinstance(info, dict) else {},
            }
        }
    else:
        raise BadCapture("unknown form `%s`: expected `mcpseal/1` or `mcp-surface/1`" % form)
    doc.update(out_lists)
    return doc


def fingerprint(capture, form="mcpseal/1", strict=True):
    """Returns (canonical bytes, sha256 hex, per-item hashes)."""
    doc = normalise(capture, form, strict)
    data = canonical(doc).encode("utf-8")
    items = {}
    for kind, id_key in LISTS:
        lst = doc[kind]
        if lst is None:
            items[kind] = None
            continue
        items[kind] = {}
        for item in lst:
            d = item.get("description") if isinstance(item, dict) else None
            items[kind][item.get(id_key) if isinstance(item, dict) else None] = {
                "sha256": sha256_hex(canonical(item).encode("utf-8")),
                "descriptionSha256": sha256_hex(d.encode("utf-8")) if isinstance(d, str) else None,
            }
    return data, sha256_hex(data), items


def run(argv, stdin_bytes):
    """Runs one command line; returns (exit status, stdout bytes, stderr text)."""
    import io

    out, err = io.BytesIO(), io.StringIO()
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n")
    sys.stderr = err
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin_bytes), encoding="utf-8")
    try:
        code = main(argv)
        sys.stdout.flush()
        captured = out.getvalue()
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
    return code, captured, err.getvalue()


def batch():
    """--batch: stdin is a JSON array of {"args": [...], "input": "<text>"}; stdout a JSON
    array of {"code": n, "stdout": "<text>"}. One process for many runs (used by the tests)."""
    jobs = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    results = []
    for job in jobs:
        code, out, _ = run(job["args"], job["input"].encode("utf-8", "surrogatepass"))
        results.append({"code": code, "stdout": out.decode("utf-8")})
    sys.stdout.write(json.dumps(results))
    return 0


def vectors(path):
    """The vectors file at `path` with its expectations recomputed (see --vectors)."""
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))
    for v in doc["vectors"]:
        data, digest, items = fingerprint(loads(v["rawCapture"].encode("utf-8")), doc["form"])
        v["expectedCanonical"] = data.decode("utf-8")
        v["expectedSha256"] = digest
        v["expectedItems"] = items
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return 0


def main(argv):
    if argv == ["--batch"]:
        return batch()
    if len(argv) == 2 and argv[0] == "--vectors":
        try:
            return vectors(argv[1])
        except FailClosed as e:
            sys.stderr.write("error: a vector fails closed: %s\n" % e)
            return 1
        except (BadCapture, ValueError, KeyError, OSError, RecursionError) as e:
            sys.stderr.write("error: %s\n" % e)
            return 2
    form = "mcpseal/1"
    show_canonical = show_items = unchecked = value_mode = False
    path = None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--form" and args:
            form = args.pop(0)
        elif a.startswith("--form="):
            form = a.split("=", 1)[1]
        elif a == "--canonical":
            show_canonical = True
        elif a == "--items":
            show_items = True
        elif a == "--unchecked":
            unchecked = True
        elif a == "--value":
            value_mode = True
        elif a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        elif path is None and (a == "-" or not a.startswith("-")):
            path = a
        else:
            sys.stderr.write("error: unexpected argument `%s`\n" % a)
            return 2
    if path is None:
        sys.stderr.write("error: missing CAPTURE.json\nhint: python3 tools/fingerprint.py --help\n")
        return 2
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                raw = f.read()
        doc = loads(raw)
        if value_mode:
            check_depth(doc)
            check_surrogates(doc, "value")
            data = canonical(doc).encode("utf-8")
            digest, items = sha256_hex(data), None
        else:
            data, digest, items = fingerprint(doc, form, strict=not unchecked)
    except FailClosed as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    except (BadCapture, ValueError, OSError, RecursionError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    if show_canonical:
        sys.stdout.buffer.write(data)
    elif show_items:
        sys.stdout.write(canonical({"sha256": digest, "items": items}) + "\n")
    else:
        sys.stdout.write(digest + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
