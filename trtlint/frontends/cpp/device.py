"""C++ frontend helper: the bodies of GPU-only functions, blanked before libclang parses a CUDA unit.

The C++ frontend never walks the body of a ``__global__`` function or of a ``__device__`` function that is
not also ``__host__`` (no rule reads GPU code: it cannot throw, exit, allocate with the host API or take a
stream). Yet libclang parses those bodies and instantiates every template kernel they hold: one Edge-LLM
unit that instantiates the Marlin kernel template spends 2.7 of its 3.4 s of parse there. So, for units parsed
in CUDA mode, :func:`blank_device_bodies` hands libclang the text with such bodies replaced by spaces: every
newline, every preprocessor line and both braces stay, so every line, column and offset outside the bodies is
unchanged and the function is still declared and defined (a launch still resolves to it).

Only what a token scan can prove is blanked; anything unusual is left as it is:

* the declaration before the ``{`` names ``__global__`` or ``__device__`` literally (not through a macro)
  and not ``__host__``; it is no lambda (``[``), variable (``=`` outside a template header), constructor
  with an initializer list (``:``), ``constexpr``/``consteval`` function (callable in host constant
  expressions) nor a function whose return type is deduced (``auto``, ``decltype``, ``->``); it ends with the
  parameter list's ``)`` or a trailing ``const``/``noexcept``/``override``/``final``/``volatile``;
* the body holds no ``#include``, and every ``#if``/``#ifdef``/``#ifndef`` group inside it leaves the brace
  depth as it found it in each of its branches (so counting braces over all branches finds the real end
  whichever branch the preprocessor takes).

The frontend checks the result after the parse: a blanked body whose function libclang does not see as
GPU-only (a project that ``#define``s ``__device__`` away, say) makes it parse the unit again unblanked.
"""

from __future__ import annotations

import bisect
import re
from typing import Optional

# Preprocessor lines (kept apart), comments, string and character literals (blanked in the scan copy), in
# unrolled form: the scan runs at ~80 MB/s. A literal right after a letter or digit (a digit separator as in
# 1'000, u8'a', a raw string R"(...)") is beyond this scan: such a file is left as it is.
_NOISE = re.compile(
    r"""\#[^\n\\]*(?:\\[\s\S][^\n\\]*)*
    |//[^\n\\]*(?:\\[\s\S][^\n\\]*)*
    |/\*[\s\S]*?(?:\*/|\Z)
    |"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"?
    |'[^'\\\n]*(?:\\.[^'\\\n]*)*'?""",
    re.X,
)
_DIRECTIVE_NAME = re.compile(r"#\s*([A-Za-z_]\w*)")
_CANDIDATE = re.compile(r"\b__(?:global|device)__\b")
_BOUNDARY = re.compile(r"[{};\x00]")
_BRACE = re.compile(r"[{}]")
_SEGMENT_TOKEN = re.compile(r"::|->|\[\[|[A-Za-z_]\w*|[0-9][\w.]*|[^\s\w]")
_GPU = ("__global__", "__device__")
_SEGMENT_REJECT = frozenset(("__host__", "constexpr", "consteval", "auto", "decltype", "->", "[", "return",
                             "namespace", "class", "struct", "union", "enum", "typedef", "using"))
_TRAILING = frozenset((")", "const", "noexcept", "override", "final", "volatile"))
_NOT_NL = re.compile(rb"[^\n]")
_KEPT_PRAGMA = re.compile(r"#\s*pragma\s+(?:push_macro|pop_macro)\b")


def _spaces(s: str) -> str:
    """``s`` as spaces, byte for byte in UTF-8 (libclang's offsets are byte offsets), newlines kept."""
    if s.isascii():
        return _NOT_NL.sub(b" ", s.encode("ascii")).decode("ascii")
    return _NOT_NL.sub(b" ", s.encode("utf-8", "surrogatepass")).decode("ascii")


def _template_end(seg: list[str], i: int) -> Optional[int]:
    """Index just past the ``template <...>`` header starting at ``seg[i]``, or None when it does not close."""
    d, j, n = 0, i + 1, len(seg)
    while j < n:
        if seg[j] in ("<", "("):
            d += 1
        elif seg[j] in (">", ")"):
            d -= 1
            if d == 0:
                return j + 1
        j += 1
    return None


def _qualifies(seg: list[str]) -> bool:
    """Whether the tokens before a ``{`` declare a GPU-only function definition (see the module docstring)."""
    if not seg or not any(t in _GPU for t in seg) or seg[-1] not in _TRAILING:
        return False
    if any(t in _SEGMENT_REJECT for t in seg):
        return False
    depth = 0
    saw_params = False
    i, n = 0, len(seg)
    while i < n:
        t = seg[i]
        if t == "template" and i + 1 < n and seg[i + 1] == "<":  # a template header: defaults may use '='
            j = _template_end(seg, i)
            if j is None:
                return False
            i = j
            continue
        if t == "(":
            depth += 1
            saw_params = True
        elif t == ")":
            depth -= 1
            if depth < 0:
                return False
        elif depth == 0 and t in ("=", ":"):
            return False
        i += 1
    return depth == 0 and saw_params


def _body_end(clean: str, open_at: int, directives: list, starts: list) -> Optional[int]:
    """Offset of the ``}`` closing the ``{`` at ``open_at`` in the scan copy, or None when the body holds an
    ``#include`` or a conditional group whose branches change the brace depth, or does not end."""
    depth = 0
    conds: list[int] = []
    di = bisect.bisect_right(starts, open_at)
    nd = len(directives)
    for m in _BRACE.finditer(clean, open_at):
        at = m.start()
        while di < nd and directives[di][0] < at:
            name = directives[di][2]
            di += 1
            if name in ("include", "include_next", "import"):
                return None
            if name in ("if", "ifdef", "ifndef"):
                conds.append(depth)
            elif name in ("elif", "else", "elifdef", "elifndef", "endif"):
                if not conds or conds[-1] != depth:
                    return None
                if name == "endif":
                    conds.pop()
        if m.group() == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return at if not conds else None
    return None


def _scan_copy(text: str) -> Optional[tuple[str, list[tuple[int, int, str]], list[int]]]:
    """(the scan copy of ``text``: the same length, comments and literals as spaces, preprocessor lines as NULs;
    (start, end, name) of every preprocessor line; their starts), or None when the text has a literal this scan
    does not handle (a digit separator, a prefixed or raw literal)."""
    directives: list[tuple[int, int, str]] = []
    parts: list[str] = []
    last = 0
    for m in _NOISE.finditer(text):
        s, e = m.span()
        c = text[s]
        if c == "#":
            d = _DIRECTIVE_NAME.match(text, s)
            directives.append((s, e, d.group(1) if d else ""))
            parts.append(text[last:s])
            parts.append("\x00" * (e - s))
        else:
            if (c == "'" or c == '"') and s > 0 and (text[s - 1].isalnum() or text[s - 1] == "_"):
                return None
            parts.append(text[last:s])
            parts.append(" " * (e - s))
        last = e
    parts.append(text[last:])
    return "".join(parts), directives, [d[0] for d in directives]


def _emit_blanked(text: str, out: list[str], last: int, open_at: int, close_at: int, directives: list,
                  starts: list[int]) -> None:
    """Append to ``out`` the text from ``last`` through the ``{`` at ``open_at``, then the body up to the ``}`` at
    ``close_at`` as spaces, keeping its preprocessor lines (and every newline)."""
    out.append(text[last:open_at + 1])
    pos = open_at + 1
    i = bisect.bisect_right(starts, open_at)
    while i < len(directives) and directives[i][0] < close_at:
        ds, de, name = directives[i]
        i += 1
        if name == "pragma" and not _KEPT_PRAGMA.match(text, ds):
            continue  # '#pragma unroll' before a blanked loop would be left without its statement
        out.append(_spaces(text[pos:ds]))
        out.append(text[ds:de])
        pos = de
    out.append(_spaces(text[pos:close_at]))


def blank_device_bodies(text: str) -> tuple[str, list[int]]:
    """(``text`` with the bodies of provably GPU-only function definitions blanked, the offsets of their
    opening braces). Returns ``text`` itself and ``[]`` when there is nothing to blank."""
    if "__global__" not in text and "__device__" not in text:
        return text, []
    scan = _scan_copy(text)
    if scan is None:
        return text, []
    clean, directives, starts = scan
    out: list[str] = []
    opened: list[int] = []
    last = 0
    for m in _CANDIDATE.finditer(clean):
        at = m.start()
        if at < last:
            continue
        seg_start = max(clean.rfind(";", 0, at), clean.rfind("{", 0, at), clean.rfind("}", 0, at),
                        clean.rfind("\x00", 0, at)) + 1
        b = _BOUNDARY.search(clean, at)
        if b is None or b.group() != "{" or seg_start < last:
            continue
        open_at = b.start()
        if not _qualifies(_SEGMENT_TOKEN.findall(clean, seg_start, open_at)):
            continue
        close_at = _body_end(clean, open_at, directives, starts)
        if close_at is None:
            continue
        _emit_blanked(text, out, last, open_at, close_at, directives, starts)
        last = close_at
        opened.append(open_at)
    if not opened:
        return text, []
    out.append(text[last:])
    return "".join(out), opened


# -- every function body of a header a unit does not walk --------------------------------------------------
#
# A unit that leaves a project header to another unit (SourceFile.skip) never walks that header's functions,
# so their bodies only cost parse time (most of a parse is bodies and the templates they instantiate). The
# scan below blanks them, with the rules above for what a body is and with what clang itself keeps when it
# skips bodies (constexpr functions and deduced return types: callers need them), and keeps a body that names
# ``decltype`` (see _DECLTYPE). Namespaces, linkage specs
# and class bodies are entered; any other braces (initializers, enums, bodies that are kept) are stepped over
# whole, and the scan stops at the first body whose end it cannot prove.

_SCOPE_KEYS = frozenset(("class", "struct", "union"))
_HOST_REJECT = _SEGMENT_REJECT - {"__host__", "class", "struct", "union"} | {"operator", "template"}


def _strip_template_headers(seg: list[str]) -> Optional[list[str]]:
    """``seg`` without its leading ``template <...>`` headers, or None when one does not close."""
    i, n = 0, len(seg)
    while i < n and seg[i] == "template" and i + 1 < n and seg[i + 1] == "<":
        j = _template_end(seg, i)
        if j is None:
            return None
        i = j
    return seg[i:]


def _brace_kind(seg: list[str]) -> str:
    """What the ``{`` after the tokens ``seg`` opens: "enter" (namespace, linkage spec, class), "blank" (a
    function body this scan may blank) or "over" (anything else: stepped over whole)."""
    rest = _strip_template_headers(seg)
    if rest is None or not rest:
        return "over"
    if rest[0] in ("namespace", "inline") and "namespace" in rest and "(" not in rest and "=" not in rest:
        return "enter"
    if rest == ["extern"]:  # extern "C" { (the literal is blanked in the scan copy)
        return "enter"
    if "enum" in rest:
        return "over"
    if rest[-1] not in _TRAILING:
        if any(t in _SCOPE_KEYS for t in rest) and "=" not in rest and "(" not in rest:
            return "enter"
        return "over"
    if not any(t == "(" for t in rest) or any(t in _HOST_REJECT for t in rest):
        return "over"
    depth = 0
    for t in rest:
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth < 0:
                return "over"
        elif depth == 0 and t in ("=", ":", "?"):
            return "over"
    return "blank" if depth == 0 else "over"


# clang unifies equal dependent decltype types across the unit under the spelling it met first, and a
# function template's USR spells that type: a ``decltype`` in a blanked body could change a USR of the unit
_DECLTYPE = re.compile(r"\bdecltype\b")


def blank_function_bodies(text: str) -> tuple[str, list[int]]:
    """(``text`` with the bodies of its function definitions blanked as described above, the offsets of their
    opening braces); ``text`` itself and ``[]`` when nothing is blanked."""
    if "{" not in text:
        return text, []
    scan = _scan_copy(text)
    if scan is None:
        return text, []
    clean, directives, starts = scan
    out: list[str] = []
    opened: list[int] = []
    last = 0  # end of the text copied to out
    skip_to = 0  # braces before this offset are inside a body stepped over or blanked
    for m in re.finditer(r"\{", clean):
        open_at = m.start()
        if open_at < skip_to:
            continue
        seg_start = max(clean.rfind(";", 0, open_at), clean.rfind("{", 0, open_at), clean.rfind("}", 0, open_at),
                        clean.rfind("\x00", 0, open_at)) + 1
        kind = _brace_kind(_SEGMENT_TOKEN.findall(clean, seg_start, open_at))
        if kind == "enter":
            continue
        close_at = _body_end(clean, open_at, directives, starts)
        if close_at is None:
            break  # where this brace ends is not provable: nothing after it is blanked
        skip_to = close_at
        if kind != "blank" or close_at - open_at < 2 or _DECLTYPE.search(clean, open_at, close_at):
            continue
        _emit_blanked(text, out, last, open_at, close_at, directives, starts)
        last = close_at
        opened.append(open_at)
    if not opened:
        return text, []
    out.append(text[last:])
    return "".join(out), opened


# -- spaced launch chevrons ----------------------------------------------------------------------------------
# nvcc accepts a launch written ``kernel<< <grid, block, 0, stream>> >(args)`` (MSVC's formatter writes it so),
# clang does not: the launch parses as an error and vanishes from the unit. :func:`join_launch_chevrons` joins
# the chevrons before the parse, moving the whitespace after them, so every byte offset of every other token
# stays. Only a launch shape is touched: a name or a template's ``>`` before ``<< <``, and the first
# ``>> >`` (or ``> > >``) after it, before the statement's ``;``, followed by ``(``.
_LAUNCH_OPEN = re.compile(r"(?<=[\w>])([ \t]*)<([ \t\r\n]*)<([ \t\r\n]*)<(?!<)")
_LAUNCH_CLOSE = re.compile(r">([ \t\r\n]*)>([ \t\r\n]*)>(?=[ \t\r\n]*\()")


def join_launch_chevrons(text: str) -> str:
    """``text`` with every spaced launch configuration ``<< <...>> >`` written ``<<<...>>>`` (the whitespace
    moved after the chevrons, so the length and every newline stay); ``text`` itself when there is none."""
    if "<" not in text or not re.search(r"<\s+<|<<\s+<", text):
        return text
    out = list(text)
    pos = 0
    changed = False
    while True:
        m = _LAUNCH_OPEN.search(text, pos)
        if m is None:
            break
        pos = m.end()
        if not (m.group(2) or m.group(3)):
            continue  # already <<<
        end = text.find(";", m.end())
        c = _LAUNCH_CLOSE.search(text, m.end(), end if end >= 0 else len(text))
        if c is None:
            continue
        for a, b in ((m.start(2) - 1, m.end()), (c.start(), c.end())):
            seg = text[a:b]
            chev = seg[0]
            ws = seg.replace(chev, "")
            out[a:b] = list(chev * 3 + ws)
        changed = True
        pos = c.end()
    return "".join(out) if changed else text
