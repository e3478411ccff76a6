"""The join of Python plugin helpers whose name, version and fields are parameters with their callers
(frontends/python/paramhelper.py), in the same module or another.

A helper's creator lookup (``CreatorLookup.param_helper``: which parameters carry the name, version, namespace and the
collection handed to ``create_plugin``) is completed at each call that hands a function of that name a ``PluginField``
collection (``CreatorLookup.helper_call``, form "helper-call"): one lookup per name the call may pass, at the call,
with the version and namespace it passes (else the parameter's default, else what the helper's lookup says) and the
fields of the collection it passes (else, when that collection is not followed, the fields the calling function
makes, not all followed). The helper is a module-level function of that name in one of the modules the call names
(:func:`.dicthelpers.serves`: the module's file, or a module directly in a package whose ``__init__`` re-exports it);
of several the nearest the call is taken. A call no helper completes is kept out of the lookups and listed in
:attr:`ProjectIndex.unfollowed_helper_calls` with the reason, which the run's summary names (never silent).
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional

from trtlint.base.facts import CreatorLookup
from .dicthelpers import serves, shared


def _arg(call, ph, param: Optional[str]):
    """The argument the call passes for ``param`` of the helper (by position or keyword), or None."""
    if param is None:
        return None
    pos = ph.params.index(param) if param in ph.params else -1
    i = 0
    for a in call.args:
        if a.keyword is not None:
            if a.keyword == param:
                return a
            continue
        if i == pos:
            return a
        i += 1
    return None


def _one(arg, ph, param, fallback):
    """The literal a parameter gets: the argument's (one string), else its default, else ``fallback``."""
    if arg is not None:
        return arg.strings[0] if len(arg.strings) == 1 else None
    if param is not None:
        return dict(ph.defaults).get(param, fallback)
    return fallback


def join(lookups: Iterable[CreatorLookup], more: Iterable[CreatorLookup] = ()) -> tuple[list, list]:
    """``lookups`` with each helper call completed from the helper it calls, and the calls none completes as
    ``(path, line, function, why)``. ``more``: the helpers' lookups of the rest of the project."""
    lookups = list(lookups)
    helpers = [lk for lk in lookups if lk.param_helper is not None]
    have = {lk.span for lk in helpers}
    helpers += [lk for lk in more if lk.param_helper is not None and lk.span not in have]
    out: list[CreatorLookup] = []
    unfollowed: list[tuple] = []
    for lk in lookups:
        call = lk.helper_call
        if call is None:
            out.append(lk)
            continue
        why = call.why
        cands = [] if why else [h for h in helpers if h.param_helper.function == call.function
                                and any(serves(h.span.path, m) for m in call.modules)]
        if not cands and why is None:
            where = ", ".join(call.modules) or "?"
            why = f"no module-level function of that name looking a creator up by its parameters in {where}"
        done = False
        if cands:
            best = max(shared(h.span.path, lk.span.path) for h in cands)
            seen = set()
            for h in cands:
                ph = h.param_helper
                if shared(h.span.path, lk.span.path) != best or ph in seen:
                    continue
                seen.add(ph)
                name_arg = _arg(call, ph, ph.name_param)
                names = name_arg.strings if name_arg is not None else ()
                if not names:
                    why = "the plugin name it passes is not a literal trtlint follows"
                    continue
                version = _one(_arg(call, ph, ph.version_param), ph, ph.version_param, h.version)
                namespace = _one(_arg(call, ph, ph.namespace_param), ph, ph.namespace_param, h.namespace)
                fa = _arg(call, ph, ph.fields_param)
                if fa is not None and fa.followed and (fa.fields or not fa.open):
                    attrs, open_attrs = fa.fields, fa.open
                elif ph.fields_param is None and h.attrs:
                    attrs, open_attrs = h.attrs, h.open_attrs  # the helper builds the fields itself
                else:
                    attrs, open_attrs = call.made, True
                for name in names:
                    out.append(dataclasses.replace(lk, name=name, version=version, namespace=namespace,
                                                   name_span=name_arg.span, form="get_creator", attrs=tuple(attrs),
                                                   open_attrs=open_attrs))
                done = True
        if not done:
            unfollowed.append((lk.span.path, lk.span.line, call.function, why))
    return out, unfollowed
