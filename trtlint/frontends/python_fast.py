"""Speed helpers for the Python frontend (issue 6, "Python cost"); they never change its facts.

* :class:`FastSearch`: ``FastSearch(parts).search(text)`` is ``re.compile("|".join(parts)).search(text) is not
  None``, computed alternative by alternative: an alternative runs only when one of the literal strings it cannot
  match without is in the text, and a leading ``\\b`` is checked by hand so the regex engine can skip ahead to
  the literal that follows it (one big alternation of patterns starting with ``\\b`` is scanned character by
  character).
* :func:`libcst_facts_possible`: whether a file's (stdlib ``ast``) tree holds any construct from which the libcst
  extractors (``python._MainVisitor`` and ``python_torchtrt``) can make a fact. When it holds none, the slow
  libcst parse, positions and visits are skipped: their facts would all be empty. The test is conservative
  (every fact of those extractors needs one of the triggers listed in :func:`_triggers`); files nested deeper
  than :data:`_MAX_SAFE_DEPTH` always take the libcst path, so its "nesting too deep" problems stay as they are.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Iterable, Optional

from re import _parser as _sre_parse  # type: ignore[attr-defined]
from re._constants import AT, BRANCH, LITERAL, SUBPATTERN  # type: ignore[attr-defined]

_WORD = re.compile(r"\w")
_MAX_LITERALS = 64


def _seq_literals(items) -> Optional[list[str]]:
    """Every string a sequence of regex items matches, when it is made of literals (and groups/branches of
    them) only; else None."""
    out = [""]
    for op, av in items:
        if op is LITERAL:
            out = [o + chr(av) for o in out]
        elif op is SUBPATTERN and not av[1] and not av[2]:  # (?:...) without flags
            sub = _seq_literals(list(av[3]))
            if sub is None:
                return None
            out = [o + s for o in out for s in sub]
        elif op is BRANCH:
            subs: list[str] = []
            for b in av[1]:
                s = _seq_literals(list(b))
                if s is None:
                    return None
                subs += s
            out = [o + s for o in out for s in subs]
        else:
            return None
        if len(out) > _MAX_LITERALS:
            return None
    return out


def required_literals(alt: str) -> Optional[tuple[str, ...]]:
    """Strings of which every match of the regex ``alt`` contains at least one (the most selective run of
    literals at its top level); None when there is none."""
    try:
        items = list(_sre_parse.parse(alt))
    except Exception:
        return None
    runs: list[list[str]] = []
    cur = [""]
    for op, av in items:
        if op is AT:  # zero-width (\b, ^, $): the literals around it stay adjacent in the text
            continue
        s = _seq_literals([(op, av)])
        if s is not None and len(cur) * len(s) <= _MAX_LITERALS:
            cur = [c + x for c in cur for x in s]
        else:
            runs.append(cur)
            cur = [""]
            if s is not None:
                runs.append(s)
    runs.append(cur)
    runs = [r for r in runs if r and min(map(len, r)) > 0]
    if not runs:
        return None
    return tuple(max(runs, key=lambda r: min(map(len, r))))


class _Alt:
    __slots__ = ("lits", "rx", "boundary")

    def __init__(self, alt: str) -> None:
        self.lits = required_literals(alt)
        self.boundary = False
        body = alt
        if alt.startswith(r"\b"):
            rest = alt[2:]
            try:
                first = list(_sre_parse.parse(rest))[:1]
            except Exception:
                first = []
            lits = _seq_literals(first) if first else None
            # ``\b`` before a word character means "no word character just before": checked by hand
            if lits and all(s and _WORD.match(s[0]) for s in lits):
                body = rest
                self.boundary = True
        self.rx = re.compile(body)

    def search(self, text: str) -> bool:
        if self.lits is not None and not any(lit in text for lit in self.lits):
            return False
        if not self.boundary:
            return self.rx.search(text) is not None
        pos = 0
        search = self.rx.search
        while True:
            m = search(text, pos)
            if m is None:
                return False
            s = m.start()
            if s == 0 or not _WORD.match(text, s - 1):
                return True
            pos = s + 1


class FastSearch:
    """``FastSearch(parts).search(text) == (re.compile("|".join(parts)).search(text) is not None)``."""

    def __init__(self, parts: Iterable[str]) -> None:
        self.parts = tuple(parts)
        self.alts = [_Alt(p) for p in self.parts]

    def search(self, text: str) -> bool:
        for a in self.alts:
            if a.search(text):
                return True
        return False


# --------------------------------------------------------------------------------------------------------
# Could the libcst extractors find anything in this file?
# --------------------------------------------------------------------------------------------------------

_MAX_SAFE_DEPTH = 40  # ast nesting depth; libcst's recursive visits and codegen fail far deeper than this

# Texts whose presence makes the libcst path run regardless of the tree: onnxscript opsets (bound through an
# ``onnxscript`` import) and IPluginCreator subclasses (a base qualified to ``tensorrt.IPluginCreator...``).
_TEXT_TRIGGERS = ("onnxscript", "IPluginCreator")


@lru_cache(maxsize=8)
def _triggers(route_names: tuple[str, ...]) -> tuple[frozenset, frozenset]:
    """(attribute-call names, identifiers).

    *attribute-call names*: a call ``x.NAME(...)`` makes a fact (``g.op``, ``network.add_plugin_v2``...).
    *identifiers*: a fact needs a call whose callee's last name is one of them, or a qualified name (through
    imports or module aliases) ending in one, or an API use of the deprecation pack; every such name occurs in
    the file as a callee name, an attribute name or a component of an imported name.
    """
    from . import python as _py
    from . import python_torchtrt as _tt

    attr_calls = {"op", *_py._API_METHODS}
    idents = {
        *_py._CREATOR_METHODS,
        "get_plugin_registry",
        *_py._TRT_CLASSES,
        "make_node",
        "register",  # tensorrt.plugin.register (a QdpDef / PyCreator decorator)
        *route_names,
        *_tt._REGISTRARS,
        *_tt._QDP_KINDS,
        "generate_plugin",
        "generate_plugin_converter",
        "custom_op",
        "define",
        "register_fake",
        "impl_abstract",
        "impl",
        *(q.rsplit(".", 1)[-1] for q in _tt._DEFINE_QUALS | _tt._FAKE_QUALS),
    }
    attrs, quals = _tt.api_names()
    idents |= set(attrs) | {q.rsplit(".", 1)[-1] for q in quals}
    return frozenset(attr_calls), frozenset(idents)


def libcst_facts_possible(tree: ast.AST, text: str, route_names: tuple[str, ...]) -> bool:
    """False only when neither libcst extractor can make a fact from this module (see the module docstring)."""
    for t in _TEXT_TRIGGERS:
        if t in text:
            return True
    attr_calls, idents = _triggers(tuple(route_names))
    stack = [(tree, 0)]
    pop, push = stack.pop, stack.append
    iter_child = ast.iter_child_nodes
    Call, Attribute, Name, alias = ast.Call, ast.Attribute, ast.Name, ast.alias
    FunctionDef, AsyncFunctionDef = ast.FunctionDef, ast.AsyncFunctionDef
    while stack:
        node, depth = pop()
        if depth > _MAX_SAFE_DEPTH:
            return True
        tp = type(node)
        if tp is Attribute:
            if node.attr in idents:
                return True
        elif tp is Call:
            f = node.func
            if type(f) is Attribute:
                a = f.attr
                if a in attr_calls or a in idents:
                    return True
                # ``net.add_x(...)`` / ``self.network.add_x(...)``: a layer that may stay unnamed
                if a.startswith("add_") and a not in ("add_input", "add_output"):
                    r = f.value
                    if (type(r) is Name and r.id in ("net", "network")) or (
                        type(r) is Attribute and r.attr in ("net", "network")
                    ):
                        return True
            elif type(f) is Name and f.id in idents:
                return True
        elif tp is alias:
            if any(p in idents for p in node.name.split(".")):
                return True
        elif tp is FunctionDef or tp is AsyncFunctionDef:
            if "validator" in node.name or node.name == "enqueue":
                return True
        d = depth + 1
        for ch in iter_child(node):
            push((ch, d))
    return False
