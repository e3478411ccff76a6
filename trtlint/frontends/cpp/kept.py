"""The editor's kept translation unit (issue 36): an edited unit re-parsed with libclang's precompiled preamble,
its headers' facts taken from the unit's last complete extraction.

Only the editor's extraction worker turns this on (:func:`enable`, from ``pipeline/isolated.py``); the command line and
the run's pool parse every unit afresh. A complete extraction (a fresh ``index.parse`` with
``PARSE_PRECOMPILED_PREAMBLE``, whose facts are those of any fresh parse) keeps its translation unit and what the next
extraction needs of the headers' part (:class:`Kept`). The next extraction of the same unit ``tu.reparse``\\ s it: libclang
then parses the unit's leading block of preprocessor lines and comments (its preamble: every ``#include``) once, and
after a reparse the walk no longer sees what the preamble holds (the ``#include`` directives, the headers' top-level
declarations, macro definitions and expansions: they are not the unit's own any more). So that extraction walks the
unit's own top-level declarations only (those after the preamble) and takes the rest from the last complete facts:

* every list field's items in headers (``classes``, ``functions``, ``lifecycle``, ``registrations``, ``lookups``,
  ``fn_contracts``, ``unresolved_classes``, ``ort_ops``): in a complete extraction of a unit whose ``#include``\\ s are
  all in its leading block, the headers' items come first (a header's declarations are visited before the unit's),
  so they are the prefix of each list; a unit where they are not (a header's registration macro, a creator list a
  header declares, a registrar variable a header defines: items made after the walk) is never kept;
* ``includes``, ``skipped_defs`` (only headers' declarations make them);
* what the walk of the unit's functions reads of the headers: the plugin and creator classes by name and family, the
  macro definitions (looked up again in the kept unit by where the complete parse saw them), the per-function memo's
  slots of header functions (``fnmemo``: which functions may read the edited one).

Anything that could make the headers' part differ makes the extraction a complete one again (and keeps that): other
compile arguments, context, skip set or open buffers; another preamble text (the unit's leading block); a header's
text (on disk or in a buffer); diagnostics outside the unit's own part that differ from the complete parse's; an
``#include`` after the preamble; a defaulted special member of a header class defined or not as before (clang defines
it only in a unit that uses it); a macro definition not found again. ``STATS`` counts each reason.
``bench/kept_facts.py`` and ``tests/test_kept_unit.py`` compare the facts with a fresh parse's after each edit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import OrderedDict
from typing import Any, Optional

from trtlint.base.facts import FileFacts

ENABLED = False
MAX_UNITS = 2
_KEPT: "OrderedDict[str, Kept]" = OrderedDict()
STATS: dict[str, int] = {}

# list fields whose header items are a prefix (each item has a span)
PREFIX_FIELDS = ("classes", "functions", "lifecycle", "registrations", "lookups", "fn_contracts",
                 "unresolved_classes", "ort_ops")


def enable(max_units: int = 2) -> None:
    global ENABLED, MAX_UNITS
    ENABLED, MAX_UNITS = True, max_units


def clear() -> None:
    """Drop every kept translation unit (memory trouble, a new context)."""
    _KEPT.clear()


def count(what: str) -> None:
    STATS[what] = STATS.get(what, 0) + 1


_PP = re.compile(rb"[ \t\f\v\r]*(?:#(?:[^\n\\]|\\.)*(?:\n|$)|//[^\n]*(?:\n|$)|\n)", re.S)
_BLOCK = re.compile(rb"[ \t\f\v\r]*/\*.*?\*/", re.S)


def region_end(data: bytes) -> int:
    """The byte offset where the unit's leading block of preprocessor lines, comments and blank lines ends (libclang's
    preamble is at most this block)."""
    i, n = 0, len(data)
    while i < n:
        m = _PP.match(data, i) or _BLOCK.match(data, i)
        if m is None or m.end() == i:
            break
        i = m.end()
    return i


class Kept:
    """A kept translation unit and what its next extraction takes from the complete one."""

    def __init__(self, tu: Any, key: str, region: bytes, heads: tuple, ff: FileFacts, counts: dict,
                 macros: list, defaults: list, diags: tuple, slots: tuple) -> None:
        self.tu, self.key, self.region, self.heads, self.ff = tu, key, region, heads, ff
        self.counts, self.macros, self.defaults, self.diags, self.slots = counts, macros, defaults, diags, slots
        # (file, offset) -> (raw encoding, file name) of the location a look-up found in an earlier reparse (locate)
        self.raw: dict[tuple[str, int], tuple[int, str]] = {}


def key_of(args: list, opts: int, src: Any, ctx: Any, kind: str, path: str, unsaved: list) -> str:
    others = tuple(sorted((p, hashlib.sha1(t.encode("utf-8", "surrogateescape")).hexdigest())
                          for p, t in unsaved if p != path))
    return hashlib.sha1(repr((tuple(args), opts, src.rel, tuple(sorted(src.skip)), tuple(src.flags), kind, ctx,
                              others)).encode()).hexdigest()


def get(path: str) -> Optional[Kept]:
    k = _KEPT.get(path)
    if k is not None:
        _KEPT.move_to_end(path)
    return k


def drop(path: str) -> None:
    _KEPT.pop(path, None)


def put(path: str, k: Kept) -> None:
    _KEPT[path] = k
    _KEPT.move_to_end(path)
    while len(_KEPT) > MAX_UNITS:
        _KEPT.popitem(last=False)


def diag_signature(tu: Any, path: str, r: int) -> tuple:
    """The unit's diagnostics outside its own part after the preamble (they must be the complete parse's). The column
    is left out but for a header not found (``MissingInclude`` reads it) and an abstract class allocated
    (contract.py): libclang puts some of a header's semantic diagnostics replayed from the preamble at another column
    of the same line (an ambiguous call: its callee's name instead of its opening), and the extraction reads no other
    diagnostic's column outside the unit's own part."""
    out = []
    for d in tu.diagnostics:
        loc = d.location
        f = loc.file.name if loc.file is not None else None
        if f == path and loc.offset >= r:
            continue
        msg = d.spelling or ""
        out.append((d.severity, msg, f, loc.line, loc.column if "file not found" in msg or "abstract class" in msg else None, d.category_name))
    return tuple(out)


def locate(ci: Any, tu: Any, k: Kept, f: str, off: int) -> Any:
    """The location of ``off`` in file ``f`` of the reparsed kept unit. ``SourceLocation.from_offset`` in a header the
    preamble holds costs ~10 ms on the first look-up after each reparse (clang's ``translateFile`` reads every one of
    the preamble's source-location entries) and ~0.2 ms after, so a location found once is kept by its raw encoding
    (the preamble's layout is the same on each reparse of the same preamble: its text and headers are checked before)
    and, on the next reparse, taken back only when libclang decomposes it to the same file and offset; else looked up
    again."""
    hit = k.raw.get((f, off))
    if hit is not None:
        try:
            anchor = ci.SourceLocation.from_offset(tu, tu.get_file(tu.spelling), 0)  # this reparse's source manager
            loc = ci.SourceLocation()
            loc.ptr_data[0], loc.ptr_data[1] = anchor.ptr_data[0], anchor.ptr_data[1]
            loc.int_data = hit[0]
            fo = loc.file if anchor.ptr_data[0] else None
            if fo is not None and fo.name == hit[1] and loc.offset == off:
                return loc
        except Exception:  # noqa: BLE001
            pass
    loc = ci.SourceLocation.from_offset(tu, tu.get_file(f), off)
    fo = loc.file
    if fo is not None and not (loc.int_data & 0x80000000):  # a file location (not a macro's)
        k.raw[(f, off)] = (loc.int_data, fo.name)
    return loc


def _path(item: Any) -> Optional[str]:
    span = getattr(item, "span", None)
    return getattr(span, "path", None)


def prefix_counts(ff: FileFacts, rel: str) -> Optional[dict]:
    """Per list field, how many leading items are in headers; None when a header's item follows one of the unit's."""
    out = {}
    for name in PREFIX_FIELDS:
        items = getattr(ff, name)
        n = 0
        while n < len(items) and _path(items[n]) not in (rel, None):
            n += 1
        if any(_path(x) != rel for x in items[n:]):
            return None
        out[name] = n
    return out


class LazyMacros(dict):
    """The macro definitions the preamble holds, by name, found again in the kept unit where the complete parse saw
    them (``Cursor.from_location``) on first use; a definition after the preamble (the walk sets it) replaces one."""

    def __init__(self, ci: Any, tu: Any, k: Kept, table: list, doubt: Any) -> None:
        super().__init__()
        self._ci, self._tu, self._k, self._doubt = ci, tu, k, doubt
        self._where: dict[str, tuple[str, int]] = {}
        for name, f, off in table:
            self._where[name] = (f, off)
            dict.__setitem__(self, name, None)

    def _resolve(self, name: str) -> Any:
        v = dict.get(self, name)
        if v is not None or name not in self._where:
            return v
        f, off = self._where.pop(name)
        cur = None
        try:
            ci = self._ci
            cur = ci.Cursor.from_location(self._tu, locate(ci, self._tu, self._k, f, off))
            if cur is None or cur.kind != ci.CursorKind.MACRO_DEFINITION or cur.spelling != name:
                cur = None
        except Exception:  # noqa: BLE001
            cur = None
        if cur is None:
            self._doubt("macro definition not found again")
        dict.__setitem__(self, name, cur)
        return cur

    def __setitem__(self, name: str, value: Any) -> None:
        self._where.pop(name, None)
        dict.__setitem__(self, name, value)

    def get(self, name: Any, default: Any = None) -> Any:  # type: ignore[override]
        if name not in self:
            return default
        v = self._resolve(name)
        return default if v is None else v

    def __getitem__(self, name: Any) -> Any:
        if name not in self:
            raise KeyError(name)
        return self._resolve(name)


def check_defaults(ci: Any, tu: Any, k: Kept) -> bool:
    """Whether each defaulted special member of a header class is defined (or not) in the kept unit as in the complete
    parse (``k.defaults``: (file, class offset) -> [(member offset, defined)]; a class found again by its location,
    one look-up per class (:func:`locate`))."""
    from .base import children

    K = ci.CursorKind
    kinds = (K.CONSTRUCTOR, K.DESTRUCTOR, K.CXX_METHOD)
    for (f, off), members in k.defaults.items():
        try:
            cls = ci.Cursor.from_location(tu, locate(ci, tu, k, f, off))
            got = [(ch.location.offset, bool(ch.is_definition())) for ch in children(cls)
                   if ch.kind in kinds and ch.is_default_method()] if cls is not None else None
        except Exception:  # noqa: BLE001
            return False
        if got != members:
            return False
    return True


def compose(k: Kept, new: FileFacts) -> FileFacts:
    """The facts of the kept extraction: ``new`` (its lists already start with the headers' items) with ``includes`` and
    ``skipped_defs`` of the complete one."""
    return dataclasses.replace(new, includes=k.ff.includes,
                               skipped_defs=tuple(sorted(set(k.ff.skipped_defs) | set(new.skipped_defs))))


# -- the command line's kept walk: the headers' part from the unit's cache entry ---------------------------------------
#
# A run's extraction worker keeps no translation unit from run to run, but the unit's last cache entry can hold what a
# kept walk takes from the complete extraction (``record``: everything of :class:`Kept` but the translation unit). The
# next run's extraction of the edited unit then parses it afresh with the function bodies of the project headers that
# hold no plugin marker blanked (as the headers a unit leaves to another unit are: ``unit._blank_skipped``), walks only
# the unit's own declarations after its leading block, and takes the headers' part from the entry, under the same
# checks as the editor's kept walk (the same arguments, context, skip set and buffers, leading block and header texts;
# the diagnostics outside the unit's own part and the defaulted special members of header classes as the complete
# parse had them); any doubt makes it a complete extraction.


def record(k: Kept) -> dict:
    """What the unit's cache entry keeps of a complete extraction for the next run's kept walk (plain data)."""
    return {"key": k.key, "region": k.region, "counts": dict(k.counts), "macros": tuple(k.macros),
            "defaults": {f"{f}\0{off}": tuple(v) for (f, off), v in k.defaults.items()}, "diags": k.diags,
            "slots": k.slots}


def _prims(x: Any) -> bool:
    return x is None or type(x) in (str, int, bool)


def from_record(d: Any, ff: FileFacts, heads: tuple) -> Optional[Kept]:
    """The :class:`Kept` (without a translation unit) of an entry's record, or None when it is not one (a cache a pull
    request can plant: anything but the exact shapes is a miss)."""
    try:
        if not isinstance(d, dict) or type(d.get("key")) is not str or type(d.get("region")) is not bytes:
            return None
        counts = d["counts"]
        if not isinstance(counts, dict) or set(counts) != set(PREFIX_FIELDS) or any(
                type(v) is not int or not 0 <= v <= len(getattr(ff, f)) for f, v in counts.items()):
            return None
        macros = list(d["macros"])
        if any(type(m) is not tuple or len(m) != 3 or type(m[0]) is not str or type(m[1]) is not str
               or type(m[2]) is not int for m in macros):
            return None
        defaults: dict = {}
        for key, v in d["defaults"].items():
            f, _, off = key.rpartition("\0")
            if not f or not off.isdigit() or type(v) is not tuple or any(
                    type(m) is not tuple or len(m) != 2 or type(m[0]) is not int or type(m[1]) is not bool for m in v):
                return None
            defaults[(f, int(off))] = list(v)
        diags, slots = d["diags"], d["slots"]
        if type(diags) is not tuple or any(type(x) is not tuple or not all(_prims(y) for y in x) for x in diags):
            return None
        nf, nl = counts["functions"], counts["lifecycle"]
        if type(slots) is not tuple or any(
                type(s) is not tuple or len(s) != 12 or type(s[0]) is not str or type(s[4]) is not str
                or type(s[5]) is not bool or any(type(s[i]) is not int for i in (1, 2, 3, 6, 7, 8, 9, 10, 11))
                or not 0 <= s[6] < nf or not -1 <= s[7] < nl for s in slots):
            return None
        return Kept(None, d["key"], d["region"], heads, ff, counts, macros, defaults, diags, slots)
    except Exception:  # noqa: BLE001
        return None
