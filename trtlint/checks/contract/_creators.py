"""Shared view of creators and the plugins they create (read from the index only)."""

from __future__ import annotations

from dataclasses import dataclass
from trtlint.base.facts import CppFunction, CreatedObject

# the creator methods that make a plugin object
CREATING_METHODS = ("createPlugin", "deserializePlugin")


@dataclass(frozen=True)
class Created:
    """A plugin class a creator method makes (``new Plugin(...)``)."""

    plugin: object  # ClassInfo of the plugin
    obj: CreatedObject  # the new-expression
    method: CppFunction  # the creator method it is in (createPlugin / deserializePlugin)


def _memo(index, key: str, make):
    memo = index.__dict__.setdefault("_contract_memo", {})
    if key not in memo:
        memo[key] = make()
    return memo[key]


def plugins_by_qualname(index) -> dict:
    return _memo(index, "plugins_by_qualname", lambda: {p.qualname: p for p in index.plugins})


def contracts_by_usr(index) -> dict:
    def make():
        out = {}
        for ff in index.files.values():
            for c in getattr(ff, "fn_contracts", ()):
                out.setdefault(c.usr, c)
        return out

    return _memo(index, "contracts_by_usr", make)


def created_plugins(index, creator) -> list[Created]:
    """The project plugin classes a creator's createPlugin / deserializePlugin makes (``new X(...)``,
    ``make_unique<X>(...)``), each once per creating method."""

    def make() -> list[Created]:
        by_q = plugins_by_qualname(index)
        contracts = contracts_by_usr(index)
        out: list[Created] = []
        seen: set[tuple[str, str]] = set()
        for mname in CREATING_METHODS:
            for fn in index.find_method(creator.qualname, mname):
                fc = contracts.get(fn.usr)
                if fc is None:
                    continue
                for obj in fc.creates:
                    q = index._resolve_class_name(obj.cls)
                    p = by_q.get(q) if q else None
                    if p is None or (fn.usr, p.qualname) in seen:
                        continue
                    seen.add((fn.usr, p.qualname))
                    out.append(Created(plugin=p, obj=obj, method=fn))
        return out

    return _memo(index, "created:" + creator.qualname, make)


def renaming_subclasses(index, creator) -> list:
    """The registered project creators that derive from ``creator`` and define ``getPluginName`` themselves, when
    ``creator`` is registered nowhere (a base creator holding ``createPlugin`` whose subclasses each register a
    name of their own, the plugin's type chosen by a constructor argument): TensorRT never looks the base up by
    its name, only the subclasses; empty otherwise."""

    def make() -> list:
        if creator.registrations:
            return []
        out = []
        for c in index.creators:
            if c is creator or not c.registrations or creator.qualname not in index.ancestors(c.qualname)[1:]:
                continue
            if any(fn.name == "getPluginName" for fn in index.class_methods(c.qualname)):
                out.append(c)
        return out

    return _memo(index, "renaming_subclasses:" + creator.qualname, make)


def disagreeing_plugins(index, attr: str):
    """(creator, Created) for each plugin class a creator makes whose ``attr`` (``plugin_name`` /
    ``plugin_version``) is known on both sides and differs, once per (plugin, creator) pair: a plugin renamed or
    re-versioned on one side only (TRT101, TRT102). A base creator registered nowhere whose registered subclasses
    name themselves (:func:`renaming_subclasses`) is judged through them for the name: each such subclass that
    creates the same plugin (through the inherited ``createPlugin``) is a pair of its own, so the base is not."""
    seen: set[tuple[str, str]] = set()
    for c in index.creators:
        want = getattr(c, attr)
        if want is None:
            continue
        subs = renaming_subclasses(index, c) if attr == "plugin_name" else []
        for x in created_plugins(index, c):
            got = getattr(x.plugin, attr)
            if got is None or got == want or (x.plugin.qualname, c.qualname) in seen:
                continue
            if attr == "plugin_name" and want in x.plugin.names:
                continue  # a plugin that names itself by a condition (`use_h2 ? NAME2 : NAME`): one of its names
            if any(x.plugin is y.plugin for s in subs for y in created_plugins(index, s)):
                continue  # judged through the registered subclasses that create it (each is a pair below)
            seen.add((x.plugin.qualname, c.qualname))
            yield c, x


def macro_paired(index, attr: str):
    """(creator, plugin) declared by one macro use whose ``attr`` (``plugin_name`` / ``plugin_version``) is known on
    both sides and differs: a plugin class and a creator class whose declarations start at the same place (the use
    of a macro that declares both, pasting one argument into their names: ``DECLARE_X(Gelu)`` making
    ``GeluPluginLayer`` and ``GeluPluginCreator``), exactly one of each there, where the creator's creating methods
    make no project plugin class the index can name (it looks the plugin up at run time, through a table): nothing
    else pairs them, and the macro use says they are one operation."""
    at: dict = {}
    for p in index.plugins:
        at.setdefault((p.cls.span.path, p.cls.span.line, p.cls.span.col), ([], []))[0].append(p)
    for c in index.creators:
        key = (c.cls.span.path, c.cls.span.line, c.cls.span.col)
        if key in at:
            at[key][1].append(c)
    for ps, cs in at.values():
        if len(ps) != 1 or len(cs) != 1 or created_plugins(index, cs[0]):
            continue
        p, c = ps[0], cs[0]
        want, got = getattr(c, attr), getattr(p, attr)
        if want is None or got is None or want == got or (attr == "plugin_name" and want in p.names):
            continue
        yield c, p


def creator_defaults(index, creator) -> dict:
    """field name -> FieldDefault: what the creator (its creating methods, and the constructors of the
    plugins they make, which often parse the collection themselves) falls back to for an absent field."""

    def make():
        contracts = contracts_by_usr(index)
        fns = []
        for mname in CREATING_METHODS:
            fns.extend(index.find_method(creator.qualname, mname))
        for x in created_plugins(index, creator):
            fns.extend(index.class_methods(x.plugin.qualname))
        out = {}
        for fn in fns:
            fc = contracts.get(fn.usr)
            if fc is None:
                continue
            for d in fc.defaults:
                out.setdefault(d.field, d)
        return out

    return _memo(index, "defaults:" + creator.qualname, make)


def creators_of(index, plugin) -> list:
    """The creators whose creating methods make ``plugin`` (in index order)."""

    def make() -> dict:
        out: dict[int, list] = {}
        for c in index.creators:
            for p in {id(x.plugin) for x in created_plugins(index, c)}:
                out.setdefault(p, []).append(c)
        return out

    return list(_memo(index, "creators_of", make).get(id(plugin), ()))
