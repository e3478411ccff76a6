"""Facts of the Python plugin helpers a :class:`~trtlint.base.facts.CreatorLookup` carries (re-exported by
:mod:`trtlint.base.facts`; their own module to keep that one short): a helper of one module that looks a creator up
by the entries of a dict parameter, and the calls of other modules that hand it a dict (frontends/python/dicthelper.py
makes them, index/dicthelpers.py joins them). The conventions of :mod:`trtlint.base.facts` hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class DictParam:
    """A Python lookup whose name is an entry of a dict parameter of a module-level function (``get_creator(p["name"],
    p.get("version", "1"), ...)``; fields from ``trt.PluginField(k, ...)`` per key of ``p[fields_key]``): a ``*_key`` is
    the entry read (None: not read), ``version``/``namespace`` the literal otherwise (a ``.get`` default)."""

    function: str
    index: int  # the parameter's position
    param: str
    name_key: str
    version_key: Optional[str] = None
    version: Optional[str] = None
    namespace_key: Optional[str] = None
    namespace: Optional[str] = None
    fields_key: Optional[str] = None


@dataclass(frozen=True)
class DictArg:
    """A call of a function imported from another module (``target``: "package.helper") with a dict trtlint follows:
    its literal string entries and, per dict entry, its keys (fields, not all followed). Joined with the helper's
    :class:`DictParam` in the index (index/dicthelpers.py)."""

    target: str
    index: int  # the argument's position (-1: by keyword)
    keyword: Optional[str]
    strings: tuple[tuple[str, str], ...] = ()
    nested: tuple[tuple[str, tuple[AttrFact, ...], bool], ...] = ()
