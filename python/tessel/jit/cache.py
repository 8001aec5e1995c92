"""The on-disk cache of compiled kernels.

An entry is <key>.cubin plus <key>.json (what it is, and the cubin's SHA-256). The key is a
SHA-256 over the generated source (which spells the whole configuration), the target
architecture, the NVRTC version and options, and the contents of every header the compilation
can include: tessel's, the NVRTC standard stand-ins and the CUDA fp16/bf16 headers. Editing any
of them changes the key, so a stale cubin is never loaded; old entries are left in place.

The folder is $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel/jit, else ~/.cache/tessel/jit.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

_FORMAT = 1  # bump when the entry layout or the key's recipe changes


def cache_dir() -> Path:
    env = os.environ.get("TESSEL_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tessel" / "jit"


_tree_hashes: dict = {}


def tree_hash(*roots: str, extra_files: tuple = ()) -> str:
    """SHA-256 over the relative paths and contents of every file under `roots`, and of
    `extra_files`. File sizes and modification times are read on every call (about a
    millisecond for tessel's headers) and the contents only when one of them changed."""
    files = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for f in sorted(filenames):
                files.append((root, os.path.join(dirpath, f)))
    files += [(os.path.dirname(f), f) for f in extra_files if os.path.isfile(f)]
    stamp = tuple((p, st.st_size, st.st_mtime_ns) for _, p in files for st in [os.stat(p)])
    cached = _tree_hashes.get(stamp)
    if cached:
        return cached
    h = hashlib.sha256()
    for root, path in files:
        h.update(os.path.relpath(path, root).encode() + b"\0")
        with open(path, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    _tree_hashes[stamp] = h.hexdigest()
    return _tree_hashes[stamp]


def entry_key(**parts) -> str:
    """SHA-256 of the parts (JSON-serialisable), with the entry format."""
    blob = json.dumps({"format": _FORMAT, **parts}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def load(key: str):
    """(cubin, metadata) for a key, or None when absent or damaged (wrong checksum, bad JSON)."""
    d = cache_dir()
    try:
        meta = json.loads((d / f"{key}.json").read_text())
        cubin = (d / f"{key}.cubin").read_bytes()
    except (OSError, ValueError):
        return None
    if meta.get("format") != _FORMAT or meta.get("cubin_sha256") != hashlib.sha256(cubin).hexdigest():
        return None
    return cubin, meta


def _write_atomically(path: Path, data: bytes):
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def store(key: str, cubin: bytes, meta: dict) -> Path:
    """Writes the entry (cubin first, so that a reader never sees metadata without its cubin)
    and returns the cubin's path. Concurrent writers of one key write the same bytes."""
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    meta = {**meta, "format": _FORMAT, "cubin_sha256": hashlib.sha256(cubin).hexdigest()}
    _write_atomically(d / f"{key}.cubin", cubin)
    _write_atomically(d / f"{key}.json", json.dumps(meta, indent=1, sort_keys=True).encode())
    return d / f"{key}.cubin"


def fetch(key: str, build):
    """(cubin, metadata, hit): the entry of `key`, or build()'s (cubin, metadata), stored under
    `key` first. The one path every NVRTC compilation takes through the cache."""
    found = load(key)
    if found is not None:
        return (*found, True)
    cubin, meta = build()
    store(key, cubin, meta)
    return cubin, meta, False


def clear() -> int:
    """Deletes every entry; returns how many files went."""
    d = cache_dir()
    n = 0
    if d.is_dir():
        for p in d.iterdir():
            if p.suffix in (".cubin", ".json", ".tmp"):
                p.unlink(missing_ok=True)
                n += 1
    return n
