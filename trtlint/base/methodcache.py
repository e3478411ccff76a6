"""The compiled methods of the fact dataclasses, kept beside the bytecode (issue 36).

``@dataclass`` writes the source of each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__`` and ``__delattr__`` and compiles it with ``exec`` every time the class is defined, i.e. on every
start of a process that imports the fact vocabulary: ~320 compilations for its ~50 classes, about two thirds of
importing :mod:`trtlint.base.facts` (~38 ms of a one-file ``trtlint check``). While that module is imported,
:func:`begin` gives the ``dataclasses`` module an ``exec`` that looks the source up in a table of code objects
compiled before (the same ``compile`` of the same text, so the same functions: same classes, same behaviour) and
compiles what is not there; :func:`end` restores the built-in and, when something was compiled, writes the table
beside the module's bytecode (``__pycache__/facts.<tag>.methods``, or under ``PYTHONPYCACHEPREFIX``; never when
bytecode is not written: ``PYTHONDONTWRITEBYTECODE``, ``-B``). The table is keyed by the source text itself and
stamped with the interpreter's bytecode magic number, so another Python or an edited class simply compiles again.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import os
import sys
from typing import Optional

_MAGIC = importlib.util.MAGIC_NUMBER
_LIMIT = 8 << 20  # bytes: a larger file is not ours


_NONE = object()


class _Table:
    __slots__ = ("path", "codes", "new", "used", "before")

    def __init__(self, path: Optional[str], codes: dict) -> None:
        self.path, self.codes, self.new = path, codes, 0
        self.used: dict = {}  # what this import compiled or took (written: a class edited away leaves its code)
        self.before = vars(dataclasses).get("exec", _NONE)  # (CPython's dataclasses has none of its own)

    def exec(self, source, globals=None, locals=None, /):  # noqa: A002 - the built-in's signature
        if not isinstance(source, str):
            return exec(source, globals, locals)
        code = self.codes.get(source)
        if code is None:
            # what exec(source) compiles: "<string>", mode exec, and no __future__ flag of this module
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.codes[source] = code
            self.new += 1
        self.used[source] = code
        return exec(code, globals, locals)


def _path(module_file: str) -> Optional[str]:
    try:
        pyc = importlib.util.cache_from_source(module_file)
    except (NotImplementedError, ValueError):
        return None
    return os.path.splitext(pyc)[0] + ".methods"


def _load(path: Optional[str]) -> dict:
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = fh.read(_LIMIT + 1)
        if len(data) > _LIMIT or data[:len(_MAGIC)] != _MAGIC:
            return {}
        codes = marshal.loads(data[len(_MAGIC):])
    except Exception:  # noqa: BLE001 - missing, unreadable or not ours: compile as dataclasses does
        return {}
    if not (isinstance(codes, dict) and all(isinstance(k, str) and type(v) is type(_load.__code__)
                                            for k, v in codes.items())):
        return {}
    return codes


def begin(module_file: str) -> _Table:
    """Until :func:`end`: the dataclasses defined compile their methods through the table of ``module_file``."""
    path = _path(module_file)
    table = _Table(path, _load(path))
    dataclasses.exec = table.exec  # type: ignore[attr-defined] - shadows the built-in in that module only
    return table


def end(table: _Table) -> None:
    """The built-in ``exec`` back; the table written when it grew (and bytecode is written at all)."""
    if vars(dataclasses).get("exec") == table.exec:
        if table.before is _NONE:
            del dataclasses.exec  # type: ignore[attr-defined]
        else:  # pragma: no cover
            dataclasses.exec = table.before  # type: ignore[attr-defined]
    if not table.new or table.path is None or sys.dont_write_bytecode:
        return
    try:
        os.makedirs(os.path.dirname(table.path), exist_ok=True)
        tmp = f"{table.path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(_MAGIC + marshal.dumps(table.used))
        os.replace(tmp, table.path)
    except Exception:  # noqa: BLE001 - a read-only install: compiled again next time, as without the table
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except Exception:  # noqa: BLE001
            pass
