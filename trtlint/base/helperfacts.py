"""Facts of the Python plugin helpers a :class:`~trtlint.base.facts.CreatorLookup` carries (re-exported by
:mod:`trtlint.base.facts`; their own module to keep that one short): a helper of one module that looks a creator up
by the entries of a dict parameter, and the calls of other modules that hand it a dict (frontends/python/dicthelper.py
makes them, index/dicthelpers.py joins them); and a helper whose name, version and fields are its parameters with the
calls that hand it a ``PluginField`` collection (frontends/python/paramhelper.py, index/paramhelpers.py). The conventions of :mod:`trtlint.base.facts` hold."""

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


@dataclass(frozen=True)
class ParamHelper:
    """A Python lookup whose name is a parameter of a module-level function that hands the creator a collection
    it is given (``def get_plugin(name, fc, version="1"): creator = registry.get_plugin_creator(name, version, "");
    return creator.create_plugin(name, fc)``): which parameters carry the name, the version, the namespace and the
    fields (None: not a parameter; the lookup's own version/namespace then), in the function's order ``params``,
    with the parameters' literal string defaults."""

    function: str
    params: tuple[str, ...]
    name_param: str
    version_param: Optional[str] = None
    namespace_param: Optional[str] = None
    fields_param: Optional[str] = None
    defaults: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ParamArg:
    """One argument of a :class:`HelperCall`: its keyword (None: positional), the literal strings it may hold, where
    it is written, and, when it is a ``PluginField`` collection trtlint follows, its fields (``followed``; ``open``:
    not all followed)."""

    keyword: Optional[str]
    strings: tuple[str, ...]
    span: Span
    followed: bool = False
    fields: tuple[AttrFact, ...] = ()
    open: bool = True


@dataclass(frozen=True)
class HelperCall:
    """A call of a function (``function``) that hands it a ``PluginField`` collection: the modules it may be defined
    in (``modules``: "package/module" paths, a relative import resolved against the caller's file; several for a
    star import), its arguments in order, and the ``PluginField``s the calling function makes (``made``: when the
    collection handed over is not followed and the function creates nothing else). Joined with the helper's
    :class:`ParamHelper` in the index (index/paramhelpers.py); a call no helper completes is named by the run."""

    function: str
    modules: tuple[str, ...]
    args: tuple[ParamArg, ...]
    made: tuple[AttrFact, ...] = ()
    why: Optional[str] = None  # what the frontend already knows keeps it from being followed
