"""The PluginFields a C++ creator declares (``ClassInfo.fields``), joined across the methods and base classes of the
project that fill the list its ``getFieldNames()`` collection is built from.

A creator declares the fields its constructor or ``getFieldNames`` builds, with those of a method of its own that one
of them calls (``setupPluginAttributes(mPluginAttributes)``). When the list they append to is a data member of a
project base class (``PluginField.into``), the base's constructor ran first and may have filled it: a common creator
whose constructor fills ``mPluginAttributes`` and a derived one that appends a field more. Those inherited fields are
declared too, from the member's class down to the creator, each base's constructor adding what it puts there after
emptying it if it does (``CppFunction.field_resets``: ``clear()``, an assignment); a creator that empties the list
itself declares only its own. A creator with neither fields nor ``getFieldNames`` of its own declares its nearest
base creator's (a version-2 creator deriving version 1's).
"""

from __future__ import annotations

from typing import Protocol

from trtlint.base.facts import CppClass, CppFunction, PluginFieldDecl


class ProjectIndex(Protocol):
    """What this module reads of the project index (:class:`.project_index.ProjectIndex`)."""

    classes: dict[str, CppClass]

    def class_methods(self, qualname: str) -> list[CppFunction]: ...

    def ancestors(self, qualname: str) -> list[str]: ...


def declared_fields(idx: "ProjectIndex", qn: str, depth: int = 0) -> list[PluginFieldDecl]:
    """The PluginFields creator ``qn`` declares, in the order they are put in its list (the module's docstring)."""
    if idx.classes.get(qn) is None:
        return []
    decls, resets = own_fields(idx, qn)
    if decls:
        return base_fields_into(idx, qn, decls, resets) + decls
    if depth > 3 or any(fn.name == "getFieldNames" for fn in idx.class_methods(qn)):
        return decls
    for base in idx.ancestors(qn)[1:]:
        b = idx.classes.get(base)
        if b is not None and b.kind == "creator":
            inherited = declared_fields(idx, base, depth + 1)
            if inherited:
                return inherited
    return decls


def own_fields(idx: "ProjectIndex", qn: str, ctor_only: bool = False) -> tuple[list[PluginFieldDecl], set[str]]:
    """The PluginFields a class's constructor (and getFieldNames, unless ``ctor_only``) builds, with those of the
    methods of its own they call; and the class members of PluginFields they empty."""
    c = idx.classes.get(qn)
    if c is None:
        return [], set()
    methods = idx.class_methods(qn)
    own = [fn for fn in methods if fn.name == c.name or (not ctor_only and (fn.name == "getFieldNames" or
                                                                              fn.name.startswith(c.name)))]
    called = {call.callee.split("::")[-1] for fn in own for call in fn.calls}
    fns = own + [fn for fn in methods if fn not in own and fn.name in called]
    return [d for fn in fns for d in fn.field_decls], {m for fn in fns for m in fn.field_resets}


def base_fields_into(idx: "ProjectIndex", qn: str, decls: list[PluginFieldDecl], resets: set[str]) -> list[PluginFieldDecl]:
    """The PluginFields already in the lists creator ``qn``'s own ``decls`` are appended to, when such a list is a data
    member of a project base class the creator does not empty (``resets``): from the member's class down to the
    creator's nearest base, what each constructor puts there (after emptying it, if it does)."""
    out: list[PluginFieldDecl] = []
    for member in dict.fromkeys(d.into for d in decls if d.into and d.into not in resets):
        path = path_to_base(idx, qn, member.rsplit("::", 1)[0])
        inherited: list[PluginFieldDecl] = []
        for b in reversed(path[1:]):  # the member's class first
            b_decls, b_resets = own_fields(idx, b, ctor_only=True)
            if member in b_resets:
                inherited = []
            inherited += [d for d in b_decls if d.into == member]
        out += inherited
    return out


def path_to_base(idx: "ProjectIndex", qn: str, base: str) -> list[str]:
    """The project classes from ``qn`` up to its direct or indirect base ``base``, both included, the most derived
    first (each one derives from the next: ``base`` last); [] when ``base`` is not one of its bases."""
    on_way = [b for b in all_bases(idx, qn) if b == base or base in all_bases(idx, b)]
    if base not in on_way:
        return []
    return [qn] + sorted(on_way, key=lambda b: -len(all_bases(idx, b)))


def all_bases(idx: "ProjectIndex", qn: str) -> list[str]:
    """The project classes ``qn`` derives from, directly or not (a class's facts may list its direct bases only)."""
    out: list[str] = []
    todo = [qn]
    while todo and len(out) < 32:
        for b in idx.ancestors(todo.pop())[1:]:
            if b not in out and b != qn:
                out.append(b)
                todo.append(b)
    return out
