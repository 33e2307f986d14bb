"""Writes a fixture Python distribution, byte for byte the same for the same inputs.

    python3 make_dist.py wheel|sdist OUT_DIR NAME VERSION SURFACE_JSON SERVER_TEMPLATE

A wheel is `<module>-<version>-py3-none-any.whl` with the server module (SERVER_TEMPLATE with
the surface substituted), METADATA, WHEEL, entry_points.txt (console script NAME) and RECORD; an
sdist is `<module>-<version>.tar.gz` with PKG-INFO and the module (never built here: it stands
for a version that only ships an sdist). Prints the file name. Stdlib only: no build backend,
no network.
"""
import base64
import gzip
import hashlib
import io
import sys
import tarfile
import zipfile

EPOCH = (1980, 1, 1, 0, 0, 0)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    kind, out_dir, name, version, surface_path, template_path = sys.argv[1:7]
    module = name.replace("-", "_").replace(".", "_").lower()
    with open(surface_path, encoding="utf-8") as f:
        surface = f.read()
    with open(template_path, encoding="utf-8") as f:
        code = f.read().replace("__SURFACE__", surface)
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: mcpseal test fixture\n" % (name, version)
    if kind == "wheel":
        dist_info = "%s-%s.dist-info" % (module, version)
        files = [
            ("%s/__init__.py" % module, code.encode()),
            ("%s/METADATA" % dist_info, metadata.encode()),
            ("%s/WHEEL" % dist_info, b"Wheel-Version: 1.0\nGenerator: mcpseal-fixtures\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
            ("%s/entry_points.txt" % dist_info, ("[console_scripts]\n%s = %s:main\n" % (name, module)).encode()),
        ]
        record = "".join("%s,%s,%d\n" % (p, record_hash(d), len(d)) for p, d in files)
        record += "%s/RECORD,,\n" % dist_info
        files.append(("%s/RECORD" % dist_info, record.encode()))
        filename = "%s-%s-py3-none-any.whl" % (module, version)
        with zipfile.ZipFile("%s/%s" % (out_dir, filename), "w", zipfile.ZIP_DEFLATED) as z:
            for path, data in files:
                info = zipfile.ZipInfo(path, date_time=EPOCH)
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
    elif kind == "sdist":
        root = "%s-%s" % (module, version)
        filename = root + ".tar.gz"
        members = [
            ("%s/PKG-INFO" % root, metadata.encode()),
            ("%s/%s/__init__.py" % (root, module), code.encode()),
        ]
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
            for path, data in members:
                info = tarfile.TarInfo(path)
                info.size = len(data)
                info.mtime = 315532800
                info.mode = 0o644
                t.addfile(info, io.BytesIO(data))
        with open("%s/%s" % (out_dir, filename), "wb") as f:
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
                g.write(raw.getvalue())
    else:
        raise SystemExit("kind must be wheel or sdist")
    print(filename)


if __name__ == "__main__":
    main()
