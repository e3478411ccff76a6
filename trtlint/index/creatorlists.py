"""Which creator lists register their creators (issue 31).

A creator list (``Registration.how == "list"`` with a ``holder``: the function holding the list, or reading a list
declared outside functions) registers nothing by itself: TensorRT hears of its creators only when

- the holder is a plugin library's entry point, ``getCreators`` or ``getPluginCreators``, which TensorRT's library
  loader (``IPluginRegistry::loadLibrary``, ``trtexec --dynamicPlugins``) calls and registers what it returns; or
- a function that calls ``registerCreator`` holds the list itself or calls the holder (``auto creators =
  getPluginCreators(n); for (...) registry->registerCreator(*creators[i], ns);``).

A list neither of these reaches is not a registration; its creators stay unregistered (TRT211 names the list).
The call is read from the functions' calls across the scope's files, by USR (by name when a call did not
resolve).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from trtlint.base.facts import CppFunction, Registration

# the plugin library entry points TensorRT's loader calls (NvInferRuntime.h's getCreators, getPluginCreators before 10)
LOADER_ENTRY_POINTS = frozenset({"getCreators", "getPluginCreators"})
_REGISTER = re.compile(r"(?:^|::|\.|->)registerCreator$")


def _last(name: str) -> str:
    return re.split(r"::|\.|->", name)[-1].strip()


def split(registrations: Iterable[Registration], functions: Mapping[str, CppFunction]) -> tuple[list[Registration], list[Registration]]:
    """(the registrations that count, the creator lists nothing registers)."""
    regs = list(registrations)
    if not any(r.how == "list" and r.holder for r in regs):
        return regs, []
    registering_usrs: set[str] = set()
    registering_names: set[str] = set()
    called_usrs: set[str] = set()
    called_names: set[str] = set()  # calls that did not resolve to a USR
    for usr, fn in functions.items():
        if not any(_REGISTER.search(c.callee) for c in fn.calls):
            continue
        registering_usrs.add(usr)
        registering_names.add(fn.name)
        for c in fn.calls:
            if c.usr:
                called_usrs.add(c.usr)
            else:
                called_names.add(_last(c.callee))
    kept: list[Registration] = []
    unregistered: list[Registration] = []
    for r in regs:
        if r.how != "list" or not r.holder:
            kept.append(r)
        elif (r.holder in LOADER_ENTRY_POINTS or (r.holder_usr and (r.holder_usr in registering_usrs or r.holder_usr in called_usrs))
              or (not r.holder_usr and r.holder in registering_names) or r.holder in called_names):
            kept.append(r)
        else:
            unregistered.append(r)
    return kept, unregistered
