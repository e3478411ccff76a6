"""Python frontend helper: the string literals of a module that name a path whose name marks it deprecated.

A module that builds, loads or tests code its project keeps for an older TensorRT names that code's folder or file
in a string (``cookbook_root / "05-Plugin" / "BasicExample-V2-deprecated"``, ``"plugins/old-deprecated/x.so"``):
such a string is recorded as ``marked_strings`` (value, line) when one of its ``/``-separated components holds
``deprecated``, ``obsolete`` or ``archived`` as a word of its own (:func:`~trtlint.frontends.trtversion.marked_deprecated`)
and is more than that word alone. Whether it names a path of the tree is the index's join
(:meth:`trtlint.index.project_index.ProjectIndex.deprecated_mark`). Parse only (the caller's ``ast`` tree).
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from ..trtversion import DEPRECATED_WORDS, marked_deprecated

_GATE = re.compile("|".join(DEPRECATED_WORDS), re.IGNORECASE)


def marked(value: str) -> bool:
    """Whether a string names a path component its name marks deprecated (not the bare word: "deprecated")."""
    if len(value) > 300 or "\n" in value:
        return False
    for part in value.replace("\\", "/").split("/"):
        w = marked_deprecated(part)
        if w is not None and part.lower() != w:
            return True
    return False


def extract(text: str, tree_of: Optional[Callable[[], ast.AST]] = None) -> dict:
    """Facts for FileFacts: ``marked_strings`` (only when there are any)."""
    if _GATE.search(text) is None:
        return {}
    try:
        tree = tree_of() if tree_of is not None else ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and marked(node.value):
            out.append((node.value, node.lineno))
    return {"marked_strings": tuple(sorted(set(out), key=lambda v: (v[1], v[0])))} if out else {}
