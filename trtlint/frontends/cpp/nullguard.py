"""The C++ frontend's flow walk, its part for failures on a null pointer argument (``facts.NULL_ARGUMENT``): a throw
or exit in the branch of an ``if`` whose condition is nothing but null tests of the function's own pointer
parameters, never written in its body (``if (!p || q == nullptr) throw ...;``), and a check macro whose condition is
nothing but non-null tests of them (``PLUGIN_VALIDATE(inputs != nullptr && outputs != nullptr)``): the failure
happens only when the caller passed a null pointer. Each records the tested parameters' types (``Call.null_tested``),
which the rules match against the parameters TensorRT never passes null (the packs' ``nonnull``). Called by
:mod:`.flow` (its own module to keep that one short)."""

from __future__ import annotations

import re
from typing import Any, Optional

from trtlint.base.facts import NULL_ARGUMENT, Call
from . import nonnull
from .base import Cursor, branch_fails, children

FlowWalker = Any  # flow.FlowWalker (not imported: flow imports this module)


def param_types(w: FlowWalker, params) -> tuple[str, ...]:
    """The canonical types of the function's parameters of the given indexes (``"const char *"``), in index order."""
    out = []
    for ch in children(w.fn):
        if ch.kind == w.K.PARM_DECL and w.params.get(ch.hash) in params:
            try:
                out.append(ch.type.get_canonical().spelling or "")
            except Exception:  # noqa: BLE001 - an unresolved type
                out.append("")
    return tuple(out)


def null_argument(w: FlowWalker, if_stmt: Cursor, cond: Cursor, then: Cursor, last: Cursor, ends: Optional[str],
                  dv: nonnull.Derive) -> None:
    """``if (!p || q == nullptr) { ...; throw ...; }`` (or an exit) on pointer parameters of the function never
    written before: the failure happens only when the caller passed a null pointer (``facts.NULL_ARGUMENT``).
    ``ends``: what the branch's last statement ends the process with (flow.ends_process), ``dv``: flow.derive(w)."""
    if not branch_fails(w, if_stmt, then, last, ends):
        return
    try:
        params = nonnull.null_only(dv, cond)
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for: nothing known
        return
    types = param_types(w, params) if params else ()
    if types and all(types):
        _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(then)
        if o2 > o1:
            w.flow.null_arg_ranges.append((o1, o2, types))
            w.flow.error_ranges.append((o1, o2, NULL_ARGUMENT))


# a check macro's condition that is nothing but non-null tests (`p != nullptr && q != NULL`): one test, the names
_NONNULL_TEST = re.compile(r"\(?\s*(?:([A-Za-z_]\w*)\s*!=\s*(?:nullptr|NULL)|(?:nullptr|NULL)\s*!=\s*([A-Za-z_]\w*))\s*\)?")


def macro_null_argument(w: FlowWalker, call: Call, dv: nonnull.Derive) -> Optional[tuple[str, ...]]:
    """A check macro whose condition (its first argument) is a conjunction of non-null tests of pointer parameters of
    the function never written in its body (``PLUGIN_VALIDATE(inputs != nullptr && outputs != nullptr)``): the
    parameters' types; it fails only when the caller passed a null pointer. None for anything else."""
    if not call.args or not w.params:
        return None
    text = " ".join(call.args[0].split())
    while text.startswith("(") and text.endswith(")") and "(" not in text[1:-1] and ")" not in text[1:-1]:
        text = text[1:-1].strip()
    if "||" in text or "?" in text:
        return None
    names = []
    for part in text.split("&&"):
        m = _NONNULL_TEST.fullmatch(part.strip())
        if m is None:
            return None
        names.append(m.group(1) or m.group(2))
    params = set()
    for ch in children(w.fn):
        if ch.kind != w.K.PARM_DECL or ch.spelling not in names:
            continue
        j = w.params.get(ch.hash)
        try:
            ok = j is not None and ch.type.get_canonical().kind == w.ex.ci.TypeKind.POINTER and dv.stable(ch, j)
        except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for: nothing known
            ok = False
        if not ok:
            return None
        params.add(j)
    if len(params) != len(set(names)):
        return None  # a name that is no parameter (a local, a member)
    types = param_types(w, params)
    return types if types and all(types) else None
