"""The optimization-profile shapes a file sets, read from its text (a part of ``scancache.model_io``).

An engine built with dynamic shapes takes each dynamic input's range from an optimization profile:
``profile->setDimensions(name, OptProfileSelector::kMIN, Dims4{1, 3, h, w})`` in C++,
``profile.set_shape(name, min, opt, max)`` in Python. TensorRT rejects, at run time, any shape outside the
profile. A dimension whose kMIN, kOPT and kMAX are the same expression is therefore static in every engine the
program builds: the build already saw the value the run will see.

Each call found gives one entry ``("profile", line, text)``; ``text`` is ``input<TAB>selector<TAB>e0<TAB>e1...``
(the input name as written, ``kMIN`` / ``kOPT`` / ``kMAX``, each dimension's expression with its blanks
collapsed), or ``input<TAB>?`` when the dimensions are not known from the text: a ``Dims`` variable written
again after its declaration, or declared out of sight, an expression with a side effect, a selector not written
as a constant, shape-tensor values (``setShapeValues``, ``set_shape_input``), a shape range set another way
(``min_shape=``, ``--minShapes``,
polygraphy's ``Profile().add(name, min=...)``). A text test: anything it cannot read is an unknown entry, which
keeps a finding.
"""

from __future__ import annotations

import re
from typing import Optional

UNKNOWN = "?"
_MAX = 64  # per file; past it one unknown entry says the rest was not read

_CPP_CALL = re.compile(rb"(?:\.|->)\s*setDimensions\s*\(")
_PY_CALL = re.compile(rb"\.\s*set_shape\s*\(")
# shape ranges set in a way this scan does not read: shape-tensor values, Torch-TensorRT, trtexec, polygraphy
_OTHER = re.compile(rb"\bsetShapeValues\w*\s*\(|\bset_shape_input\s*\(|\b(?:min|opt|max)_shapes?\s*=|"
                    rb"--(?:min|opt|max)Shapes\b|--(?:trt-)?(?:min|opt|max)-shapes\b|\.add\s*\([^)]*?\bmin\s*=")
# one of them is in every text _OTHER matches (each alternative spells one): a file holding none is not searched
# with it (an alternation led by `\b` is tried at every offset)
_OTHER_LITERALS = (b"setShapeValues", b"set_shape_input", b"min_shape", b"opt_shape", b"max_shape", b"Shapes",
                   b"-shapes", b".add")
# one of them is in every file a pattern above matches: a file holding none gives nothing, unread (these searches,
# over Edge-LLM's 93 MiB of C++ and Python, were most of what this scan cost a cold run)
LITERALS = (b"setDimensions", b"set_shape") + _OTHER_LITERALS
_SELECTOR = re.compile(r"(?:[\w.:\s]*(?:::|\.))?\s*k(MIN|OPT|MAX)")
_DIMS_CTOR = re.compile(r"(?:(?:::)?nvinfer1\s*::\s*)?Dims(?P<n>[2-4]?)\s*(?P<open>[({])")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")


def profile_entries(data: bytes) -> list[tuple[str, int, str]]:
    """The ``("profile", line, text)`` entries of a file's text (see the module doc)."""
    if not any(lit in data for lit in LITERALS):
        return []
    text = data.decode("utf-8", "replace")
    out: list[tuple[str, int, str]] = []

    def add(pos: int, body: str) -> None:
        if len(out) < _MAX:
            out.append(("profile", text.count("\n", 0, pos) + 1, body))
        elif out[-1][2] != "\t" + UNKNOWN:
            out.append(("profile", text.count("\n", 0, pos) + 1, "\t" + UNKNOWN))

    for m in (_OTHER.finditer(data) if any(lit in data for lit in _OTHER_LITERALS) else ()):
        add(m.start(), "\t" + UNKNOWN)
    for m in (_CPP_CALL.finditer(data) if b"setDimensions" in data else ()):
        pos = len(data[:m.end()].decode("utf-8", "replace"))
        args = _call_args(text, pos)
        if args is None or len(args) != 3:
            add(pos, "\t" + UNKNOWN)
            continue
        name, sel, dims = args
        s = _SELECTOR.fullmatch(sel)
        elems = _cpp_dims(text, dims, pos) if s else None
        add(pos, _entry(name, "k" + s.group(1) if s else None, elems))
    for m in (_PY_CALL.finditer(data) if b"set_shape" in data else ()):
        pos = len(data[:m.end()].decode("utf-8", "replace"))
        args = _call_args(text, pos)
        if args is None or len(args) != 4 or any("=" in a.split("(")[0] for a in args):
            add(pos, "\t" + UNKNOWN)
            continue
        for sel, shape in zip(("kMIN", "kOPT", "kMAX"), args[1:]):
            add(pos, _entry(args[0], sel, _py_shape(shape)))
    return out


def _entry(name: str, sel: Optional[str], elems: Optional[list[str]]) -> str:
    name = " ".join(name.split())
    if sel is None or elems is None or any(_SIDE_EFFECT.search(e) for e in elems):
        return name + "\t" + UNKNOWN
    return "\t".join([name, sel] + [" ".join(e.split()) for e in elems])


def _call_args(text: str, pos: int) -> Optional[list[str]]:
    """The top-level arguments of the call whose ``(`` ends at ``pos``; None when it does not close."""
    end = _close(text, pos - 1)
    if end is None:
        return None
    return _split(text[pos:end])


_PAIRS = {"(": ")", "[": "]", "{": "}"}


def _close(text: str, at: int) -> Optional[int]:
    """The offset of the bracket closing the one at ``at``; None when it does not close within 4000 characters."""
    stack = []
    i, n = at, min(len(text), at + 4000)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = text.find(ch, i + 1)
            while j > 0 and text[j - 1] == "\\":
                j = text.find(ch, j + 1)
            if j < 0:
                return None
            i = j
        elif ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i
        i += 1
    return None


def _split(s: str) -> list[str]:
    out, depth, cur, quote = [], 0, [], None
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


def _ctor_elems(text: str, at: int) -> Optional[list[str]]:
    """The dimensions of a ``Dims4{...}`` / ``Dims3(...)`` / ``Dims{4, {...}}`` written at ``at``; None otherwise."""
    m = _DIMS_CTOR.match(text, at)
    if m is None:
        return None
    end = _close(text, m.end() - 1)
    if end is None or text[end + 1:].lstrip()[:1] not in (";", ",", ")"):
        return None
    args = _split(text[m.end():end])
    if m.group("n"):
        return args if len(args) == int(m.group("n")) else None
    # Dims{n, {d0, d1, ...}}
    if len(args) == 2 and args[0].isdigit() and args[1].startswith("{") and args[1].endswith("}"):
        elems = _split(args[1][1:-1])
        return elems if len(elems) == int(args[0]) else None
    return None


def _cpp_dims(text: str, dims: str, pos: int) -> Optional[list[str]]:
    """The dimensions of a ``setDimensions`` argument: a ``Dims`` constructor, or a local variable declared with
    one before the call in a block still open there, and never written again in the file (by assignment, ``++``,
    its elements, or its address)."""
    if _DIMS_CTOR.match(dims):
        return _ctor_elems(dims + ";", 0)
    if not _IDENT.fullmatch(dims):
        return None
    name = re.escape(dims)
    decl = None
    for d in re.finditer(rf"\b(?:const\s+)?(?:auto|(?:(?:::)?nvinfer1\s*::\s*)?Dims[2-4]?)\s+{name}\s*"
                         rf"(?:=\s*(?=[:\w])|(?=[({{]))", text[:pos]):
        decl = d
    if decl is None or _leaves_scope(text, decl.end(), pos):
        return None
    at = decl.end()
    if text[at] in "({":  # `Dims4 x{...}`: the declaration is the constructor
        m = re.search(r"\bDims([2-4]?)\s", text[decl.start():at])
        elems = _ctor_elems(f"Dims{m.group(1)}" + text[at:], 0) if m else None
    else:
        elems = _ctor_elems(text, at)
    if elems is None:
        return None
    # written again anywhere in the file after its declaration: not known
    for w in re.finditer(rf"(?:&\s*{name}\b)|(?:\b{name}\s*(?:\.\s*(?:d\s*\[[^\]]*\]|nbDims)\s*)?"
                         rf"(?:[-+*/%|&^]?=(?!=)|\+\+|--))|(?:(?:\+\+|--)\s*{name}\b)", text):
        if w.start() != decl.start() and not (decl.start() <= w.start() < decl.end()):
            return None
    return elems


def _leaves_scope(text: str, start: int, end: int) -> bool:
    """Whether the block holding ``start`` closes before ``end`` (a declaration of another function's local)."""
    depth = 0
    for ch in text[start:end]:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return True
    return False


def _py_shape(s: str) -> Optional[list[str]]:
    """The dimensions of a tuple or list literal: ``(1, 3, h, w)``, ``[b, 3, 224, 224]``."""
    s = s.strip()
    if len(s) >= 2 and s[0] + s[-1] in ("()", "[]"):
        elems = _split(s[1:-1])
        if elems and elems[-1] == "":
            elems = elems[:-1]
        return elems or None
    return None

