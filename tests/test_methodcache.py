"""The fact dataclasses' methods compiled once and kept beside the bytecode (trtlint/base/methodcache.py, issue 36).

Each check runs in a child process (a fresh interpreter: the table is read at import) with its own
``PYTHONPYCACHEPREFIX``, so nothing of the checkout's own ``__pycache__`` is used or written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULES = ("trtlint.base.facts", "trtlint.base.diagnostics", "trtlint.config.packs", "trtlint.index.project_index",
           "trtlint.pipeline.buildmodel.model")

# every dataclass of the modules: each generated method's code (marshal: bytecode, constants, names, file name),
# its annotations and defaults; whether the table was used; whether dataclasses got its built-in exec back
_PROBE = r"""
import dataclasses, hashlib, importlib, json, marshal, sys
if sys.argv[2] == "plain":  # dataclasses as it is, with the built-in exec: the reference
    import types
    from trtlint.base import methodcache
    methodcache.begin = lambda path: types.SimpleNamespace(new=-1)
    methodcache.end = lambda table: None
out = {"classes": {}, "compiled": {}}
for name in sys.argv[1].split(","):
    m = importlib.import_module(name)
    out["compiled"][name] = m._METHODS.new
    for cname, cls in sorted(vars(m).items()):
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == name):
            continue
        meths = {}
        for meth in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            f = cls.__dict__.get(meth)
            if f is None or not hasattr(f, "__code__"):
                meths[meth] = repr(f)
                continue
            meths[meth] = [hashlib.sha256(marshal.dumps(f.__code__)).hexdigest(), f.__qualname__,
                           repr(f.__annotations__), repr(f.__defaults__), repr(f.__kwdefaults__)]
        out["classes"][name + "." + cname] = meths
out["exec_restored"] = "exec" not in vars(dataclasses)
print(json.dumps(out))
"""


def _probe(prefix: Path, write: bool = True, plain: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(prefix))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    p = subprocess.run([sys.executable, "-c", _PROBE, ",".join(MODULES), "plain" if plain else "table"], env=env, capture_output=True, text=True,
                       cwd=REPO)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _tables(prefix: Path) -> list[Path]:
    return sorted(prefix.rglob("*.methods"))


def test_the_second_start_compiles_no_method_and_gets_the_same_classes(tmp_path):
    plain = _probe(tmp_path / "plain", write=False, plain=True)["classes"]
    first = _probe(tmp_path / "pyc")
    assert all(n > 0 for n in first["compiled"].values()), first["compiled"]  # nothing to read yet: compiled
    assert len(_tables(tmp_path / "pyc")) == len(MODULES)
    second = _probe(tmp_path / "pyc")
    assert second["compiled"] == {m: 0 for m in MODULES}  # every method's code came from the table
    assert len(second["classes"]) > 60
    assert first["classes"] == plain  # the same functions as dataclasses compiles with the built-in exec
    assert second["classes"] == plain
    assert first["exec_restored"] and second["exec_restored"]


def test_no_table_is_written_where_bytecode_is_not(tmp_path):
    out = _probe(tmp_path / "pyc", write=False)
    assert all(n > 0 for n in out["compiled"].values())
    assert _tables(tmp_path / "pyc") == []


def test_a_damaged_or_foreign_table_is_ignored(tmp_path):
    reference = _probe(tmp_path / "plain", write=False, plain=True)["classes"]
    _probe(tmp_path / "pyc")
    tables = _tables(tmp_path / "pyc")
    tables[0].write_bytes(b"not a table")  # damaged
    tables[1].write_bytes(tables[1].read_bytes()[:40])  # cut short
    magic = tables[2].read_bytes()[:4]
    tables[2].write_bytes(bytes([magic[0] ^ 0xFF]) + tables[2].read_bytes()[1:])  # another Python's
    out = _probe(tmp_path / "pyc")
    assert out["classes"] == reference
    assert sum(1 for n in out["compiled"].values() if n > 0) == 3
    # ...and written again: the next start compiles nothing
    assert _probe(tmp_path / "pyc")["compiled"] == {m: 0 for m in MODULES}
