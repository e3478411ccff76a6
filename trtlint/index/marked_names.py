"""A Python module that names deprecated-marked code of the tree (:meth:`ProjectIndex.deprecated_mark`'s second
case; its own module to keep project_index short)."""

from __future__ import annotations

import posixpath
from typing import Optional


def names_marked(index, path: str) -> Optional[str]:
    """For a Python module whose string literal names a path of the tree that its name marks deprecated
    (``marked_strings``: ``cookbook_root / "05-Plugin" / "BasicExample-V2-deprecated"``), relative to the module,
    to the root or as the tail of such a path: ``"<module> (names <path>, line N)"``. The module builds, loads
    or tests that code, so it is code for it (TRT610 treats it as marked, the summary names it); None otherwise."""
    memo = index.__dict__.setdefault("_names_marked_memo", {})
    if path in memo:
        return memo[path]
    memo[path] = None
    ff = index.files.get(path)
    strings = getattr(ff, "marked_strings", ()) if ff is not None else ()
    if not strings:
        return None
    marks = [k[len("deprecated:"):] for k in index.tensorrt_targets if k.startswith("deprecated:")]
    if not marks:
        return None
    known = set(index.files)
    here = posixpath.dirname(path)

    def exists(p: str) -> bool:
        return p in known or any(k.startswith(p + "/") for k in known)

    for value, line in strings:
        v = value.replace("\\", "/").strip().rstrip("/")
        if not v:
            continue
        cands = [posixpath.normpath(posixpath.join(here, v)), posixpath.normpath(v.lstrip("/"))]
        parts = [p for p in v.split("/") if p not in ("", ".", "..")]
        tail = "/".join(parts)
        for m in marks:
            hit = any((c == m or c.startswith(m + "/")) and exists(c) for c in cands)
            if not hit and tail:
                # the tail of a path inside the mark: the mark's own tail, or its tail plus what is below it
                hit = (m == tail or m.endswith("/" + tail)) or any(
                    (m.endswith("/" + tail[:i]) or m == tail[:i]) and exists(m + tail[i:])
                    for i in range(len(tail)) if tail[i] == "/")
            if hit:
                memo[path] = f"{path} (names {m}, line {line})"
                return memo[path]
    return None
