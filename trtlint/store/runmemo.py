"""The whole-run memo: a warm run whose inputs are all unchanged reuses the last run's findings.

Rules are pure functions of the project index, and the index is a pure function of the discovered files'
contents, the settings, the rule packs, the extraction context and trtlint's own code. The memo key is a
digest of all of them:

* every discovered file's path, kind and content digest (discovery reuses digests by ``stat``) and the files
  skipped with their reasons; the paths the run was restricted to;
* the settings (their ``repr``), the config file's text (TRT002 points at its lines), and the size/mtime of
  every nested config file (``trtlint.toml``/``.trtlint.toml``/``pyproject.toml``) in a directory holding a
  discovered file or above it;
* the detected profile and the extraction context key (include dirs, defines incl. feature macros,
  compile_commands path plus its size/mtime);
* the size and mtime of every file of the trtlint package (the frontends' sources and the fact vocabulary among
  them: the frontend versions of the fact cache are digests of those files) and of the shipped and configured
  rule packs.

The files outside discovery that may pin a TensorRT version (:func:`trtlint.pipeline.trtversion.extras_key`) are
looked for in directories the build model gives (the programs'), and a warm run builds no model: the memo keeps
those directories with the key of their files (``extras``), and a hit needs that key unchanged.

A hit skips loading facts, building the index and running the rules. The findings are stored with a
restricted unpickler that resolves only the diagnostic and fact dataclasses (see :mod:`trtlint.store.cache`).
Only the CLI's ``check`` asks for the memo (the LSP session and ``--dump-index`` need the index itself).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Optional

from trtlint.base import safeio
from trtlint.base import diagnostics as _diags
from trtlint.base.unpickle import safe_loads

_CONFIG_NAMES = ("trtlint.toml", ".trtlint.toml", "pyproject.toml")



def _stat_sig(p: Path) -> str:
    try:
        st = p.stat()
        return f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return "-"


def _code_sig(h) -> None:
    """trtlint's own sources and data (rules, packs, prelude headers) by size and mtime (a listing and a stat
    per file, with no Path objects: ~1 ms for the package's ~250 files)."""
    from trtlint.config.packs import shipped_dir

    pkg = Path(__file__).resolve().parent.parent  # the trtlint package
    for base in (pkg, shipped_dir()):
        todo = [str(base)]
        while todo:
            d = todo.pop()
            try:
                entries = sorted(os.scandir(d), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        todo.append(e.path)
                    continue
                if e.name.endswith((".pyc", ".tmp")):
                    continue
                try:
                    st = e.stat()
                    sig = f"{st.st_size}:{st.st_mtime_ns}"
                except OSError:
                    sig = "-"
                h.update(f"{e.path}\0{sig}\0".encode())


def key(settings, disc, paths, profile, ctx_key: str, compile_commands: Optional[str], files: bool = True) -> str:
    """The memo's key; with ``files=False`` without the discovered files' paths, kinds and digests (the key of what
    the rules read besides the facts: :mod:`trtlint.pipeline.rulecache`)."""
    h = hashlib.sha256(b"runmemo-1\0" if files else b"rules-env-1\0")
    root = Path(settings.root)
    for f in sorted(disc.files, key=lambda f: f.rel) if files else ():
        h.update(f"{f.rel}\0{f.kind}\0{f.digest}\n".encode())
    h.update(repr(sorted(disc.skipped)).encode())
    h.update(repr(sorted(str(p) for p in paths) if paths else None).encode())
    h.update(repr(settings).encode())
    if settings.config_file is not None:
        try:
            h.update(Path(settings.config_file).read_bytes())
        except OSError:
            h.update(b"-")
    dirs: set[str] = {""}
    for f in disc.files:  # every directory holding a file, and those above it
        d = f.rel.rpartition("/")[0]
        while d and d not in dirs:
            dirs.add(d)
            d = d.rpartition("/")[0]
    root_s = str(root)
    for d in sorted(dirs):
        for n in _CONFIG_NAMES:
            try:  # (a string path: one stat per name and directory, no Path object)
                st = os.stat(f"{root_s}/{d}/{n}" if d else f"{root_s}/{n}")
            except OSError:
                continue
            h.update(f"{d}/{n}\0{st.st_size}:{st.st_mtime_ns}\0".encode())
    h.update(repr(profile).encode())
    h.update(ctx_key.encode())
    if compile_commands:
        h.update(f"{compile_commands}\0{_stat_sig(Path(compile_commands))}".encode())
    for rp in settings.rule_packs:
        p = Path(rp) if Path(rp).is_absolute() else root / rp
        h.update(f"{p}\0{_stat_sig(p)}\0".encode())
    _code_sig(h)
    return h.hexdigest()[:32]


def load(cache_dir: Path, k: str, extras_key=None) -> Optional[dict]:
    """The memo of key ``k``, or None. ``extras_key(dirs)``: the key of the TensorRT evidence files outside
    discovery in those directories now; a memo whose ``extras`` (dirs, key) differ is a miss."""
    try:
        data = safe_loads(safeio.read_bytes(cache_dir / "runs" / f"{k}.pkl", limit=safeio.CACHE_LIMIT), "a run memo", diagnostics=True)
    except Exception:  # missing, corrupt or planted: a miss
        return None
    if not isinstance(data, dict) or not isinstance(data.get("diagnostics"), list):
        return None
    if not all(isinstance(d, _diags.Diagnostic) for d in data["diagnostics"]):
        return None
    if extras_key is not None:
        extras = data.get("extras")
        if not (isinstance(extras, tuple) and len(extras) == 2 and isinstance(extras[0], tuple)
                and all(isinstance(x, str) for x in extras[0]) and extras_key(extras[0]) == extras[1]):
            return None
    return data


def store(cache_dir: Path, k: str, data: dict, keep: int = 4) -> None:
    d = cache_dir / "runs"
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".pkl")
        with os.fdopen(fd, "wb") as fh:
            fh.write(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, d / f"{k}.pkl")
        olds = sorted(d.glob("*.pkl"), key=lambda p: p.stat().st_mtime)
        for p in olds[:-keep]:
            p.unlink()
    except OSError:
        pass
