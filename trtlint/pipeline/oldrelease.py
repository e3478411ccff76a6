"""Plugin classes only code for older TensorRT releases creates: a plugin class whose every construction outside its
own methods and its creators' (``new X(...)``, ``new ns::X``, ``std::make_unique<X>``/``make_shared<X>``) lies in
preprocessor branches that only releases older than the one the program targets compile (``#if
NV_TENSORRT_MAJOR < 6``, the ``#else`` of ``>= 6``), with at least one such construction, and whose creators (if
any) nothing reaches (no model, no route of the program's own: :meth:`Reach.unreached`), is code the program keeps
for those releases only. Findings about its code (the class, its methods, the code of the creators that make only
it) are set aside, and the run's summary names the class, the construction and the release
(``judge-old-release-plugins = true`` judges them like the rest).

Evidence decides in the direction of judging: the class is judged as before when the program's release is not
known, a creator may be reached, a construction is in live code (a ``kind="new"`` call, a created object of a
function's contract), or the class's name appears anywhere else in the tree's C++ text (comments, string literals
and ``#include`` lines aside) outside its own code, its creators', a forward declaration, a qualified name in the
files of its own code, and branches the target release does not compile (a condition this module cannot evaluate,
``#ifdef X``, leaves the code live). The candidates are the classes named by constructions in the branches the
parse skipped (``InactiveCode`` facts, frontends/cpp/skipped.py): nothing is read when there is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from trtlint.base import safeio
from trtlint.frontends.cpp.skipped import CONSTRUCTION
from trtlint.frontends.trtversion import branch_chains, chain_at, chain_truth

_CPP_KINDS = ("cpp", "cuda", "header")
_NOISE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*(?:include|import)\b[^\n]*", re.M)
_MINORS = 20  # the minors of a major tried when looking for the newest release that compiles a branch


@dataclass(frozen=True)
class OldPlugin:
    """A plugin class only code for older releases creates, and the code set aside with it."""

    name: str  # the class's short name
    qualname: str
    path: str  # where the construction is (the first one found)
    line: int
    directive: str  # the branch's directive as written (``#if NV_TENSORRT_MAJOR < 6``)
    compiled_by: str  # the newest release that compiles it ("5.x", "8.4")
    target: str  # the release the program targets
    regions: tuple  # ((path, first line, last line), ...): the class's and its creators' code
    creators: tuple = ()  # the creators whose code is set aside with it (they make only this class)

    def holds(self, span) -> bool:
        return any(p == span.path and a <= span.line <= b for p, a, b in self.regions)


def _release(v: Optional[str]) -> Optional[tuple[int, int]]:
    if not v:
        return None
    parts = v.split(".")
    try:
        return int(parts[0]), (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 99)
    except ValueError:
        return None


def _blank(text: str) -> str:
    """``text`` with comments, string and character literals and ``#include`` lines blanked (lines kept)."""
    text = _NOISE.sub(lambda m: "".join(c if c == "\n" else " " for c in m.group(0)), text)
    return _INCLUDE.sub(lambda m: " " * len(m.group(0)), text)


class _Texts:
    """The tree's C++ files, read and blanked on first use (only for candidate classes)."""

    def __init__(self, root: Path, files: dict) -> None:
        self.root = root
        self.rels = sorted(rel for rel, ff in files.items() if getattr(ff, "kind", None) in _CPP_KINDS)
        self.memo: dict[str, Optional[tuple[str, list, list]]] = {}

    def get(self, rel: str):
        if rel not in self.memo:
            try:
                raw = safeio.read_text(self.root / rel, root=self.root, limit=safeio.FRAME_LIMIT)
            except (OSError, ValueError):
                self.memo[rel] = None
                return None
            blank = _blank(raw)
            starts = [0] + [i + 1 for i, ch in enumerate(blank) if ch == "\n"]
            self.memo[rel] = (blank, starts, branch_chains(raw.encode("utf-8", "replace")))
        return self.memo[rel]


def _line_of(starts: list, at: int) -> int:
    import bisect

    return bisect.bisect_right(starts, at)


def _class_body(texts: _Texts, span) -> tuple:
    """(path, first, last) of a class's definition from its name's location to its closing brace, or just the line."""
    got = texts.get(span.path)
    if got is None:
        return (span.path, span.line, span.end_line or span.line)
    blank, starts, _c = got
    at = starts[span.line - 1] + max(span.col - 1, 0) if span.line - 1 < len(starts) else len(blank)
    i = at
    while i < len(blank) and blank[i] not in "{;":
        i += 1
    if i >= len(blank) or blank[i] == ";":
        return (span.path, span.line, span.line)
    depth = 0
    while i < len(blank):
        depth += {"{": 1, "}": -1}.get(blank[i], 0)
        if depth == 0:
            break
        i += 1
    return (span.path, span.line, _line_of(starts, i))


def _code_of(index, texts: _Texts, info) -> list[tuple]:
    """The regions of a class's own code: its definition and its methods' definitions."""
    return [_class_body(texts, info.cls.span)] + [
        (fn.span.path, fn.span.line, fn.span.end_line or fn.span.line) for fn in index.class_methods(info.qualname)]


def _inside(regions, path: str, line: int) -> bool:
    return any(p == path and a <= line <= b for p, a, b in regions)


def _newest_compiling(chain: tuple, target: tuple[int, int]) -> Optional[str]:
    """The newest release older than ``target`` that compiles code under ``chain``, or None."""
    for major in range(target[0], 3, -1):
        for minor in range(_MINORS, -1, -1):
            if (major, minor) >= target:
                continue
            if chain_truth(chain, major, minor) is True:
                return f"{major}.x" if minor == _MINORS else f"{major}.{minor}"
    return None


def _judge(index, texts: _Texts, info, inactive: dict) -> Optional[OldPlugin]:
    from ..checks.contract._creators import created_plugins, creators_of
    from ..checks.plugin._model_reach import reach

    target_v = index.tensorrt_target(info.cls.span.path).version
    target = _release(target_v)
    if target is None:
        return None
    name = info.cls.name
    regions = _code_of(index, texts, info)
    own_files = {p for p, _a, _b in regions}
    allowed = list(regions)  # where the name may appear: the class's code and every creator's that makes it
    mine: list = []
    for c in creators_of(index, info):
        fn = next(iter(index.find_method(c.qualname, "createPlugin")), None) or c.cls
        if reach(index, c.cls.name, fn).unreached() is None:
            return None  # a model or a route of the program's own may create it
        code = _code_of(index, texts, c)
        allowed += code
        if all(x.plugin.qualname == info.qualname for x in created_plugins(index, c)):
            regions += code  # (a creator that makes other plugins too is judged with them)
            mine.append(c.cls.name)
    # a construction in live code: a new-expression or a created object of a function outside that code
    for ff in index.files.values():
        for fn in getattr(ff, "functions", ()):
            for call in fn.calls:
                if call.kind == "new" and call.args and re.sub(r"<.*", "", call.args[0]).split("::")[-1].strip() == name \
                        and not _inside(allowed, call.span.path, call.span.line):
                    return None
        for fc in getattr(ff, "fn_contracts", ()):
            for obj in fc.creates:
                if obj.cls.split("::")[-1] == name and not _inside(allowed, obj.span.path, obj.span.line):
                    return None
    word = re.compile(rf"\b{re.escape(name)}\b")
    evidence = None
    for rel in texts.rels:
        got = texts.get(rel)
        if got is None:
            if rel in own_files:
                return None
            continue
        blank, starts, chains = got
        if name not in blank:
            continue
        built = {}
        for m in CONSTRUCTION.finditer(blank):
            if (m.group(1) or m.group(2)) == name:
                built[m.start(1) if m.group(1) else m.start(2)] = m.start()
        for m in word.finditer(blank):
            line = _line_of(starts, m.start())
            if _inside(allowed, rel, line):
                continue
            head = blank[max(0, m.start() - 40):m.start()]
            tail = blank[m.end():m.end() + 4]
            if re.search(r"\b(?:class|struct)\s+$", head) and tail.lstrip().startswith(";"):
                continue  # a forward declaration
            if rel in own_files and tail.lstrip().startswith("::") and not re.search(r"\bnew\s+$", head):
                continue  # a member defined outside the class (`PluginFieldCollection X::mFC{};`)
            chain = chain_at(chains, line)
            if chain_truth(chain, *target) is not False:
                return None  # used in code the target compiles, or code this module cannot place
            older = _newest_compiling(chain, target)
            if older is not None and m.start() in built and evidence is None:
                col = built[m.start()] - starts[line - 1] + 1
                directive = next((i.directive for i in inactive.get(name, ()) if i.span.path == rel
                                  and i.span.line == line), None) or _directive(chain)
                evidence = (rel, line, col, directive, older)
    if evidence is None:
        return None
    rel, line, _col, directive, older = evidence
    return OldPlugin(name, info.qualname, rel, line, directive, older, target_v, tuple(dict.fromkeys(regions)),
                     tuple(mine))


def _directive(chain: tuple) -> str:
    earlier, own = chain[-1] if chain else ((), None)
    if own is None:
        return "#else" + (f" (of #if {earlier[0].decode('utf-8', 'replace')})" if earlier else "")
    return "#if " + own.decode("utf-8", "replace")


def old_release_plugins(index, scoped: dict, root: Path) -> list[OldPlugin]:
    """The plugin classes of ``index`` (each program's from its own index: ``scoped``) that only code for older
    TensorRT releases creates (module docstring)."""
    inactive: dict[str, list] = {}
    for ff in index.files.values():
        for i in getattr(ff, "inactive", ()):
            if i.what == "construction":
                inactive.setdefault(i.name, []).append(i)
    if not inactive:
        return []
    from trtlint.index.project_index import scope_of

    texts = _Texts(root, index.files)
    scopes = tuple(scoped or ())
    out: list[OldPlugin] = []
    seen: set = set()
    for idx in (*(scoped or {}).values(), index):
        for info in idx.plugins:
            if info.cls.name not in inactive or (info.qualname, info.cls.span.path) in seen:
                continue
            if idx is index and scopes and scope_of(info.cls.span.path, scopes):
                continue  # judged from its program's own index
            seen.add((info.qualname, info.cls.span.path))
            got = _judge(idx, texts, info, inactive)
            if got is not None:
                out.append(got)
    return out


def set_aside(diags: list, plugins: list[OldPlugin]) -> tuple[list, dict]:
    """(the findings to report, {plugin's qualified name: how many findings set aside}): a finding is set aside
    when it and every related location lie in the code of one such plugin (its class, its methods, its creators')."""
    if not plugins:
        return diags, {}
    kept, aside = [], {}
    for d in diags:
        owner = next((p for p in plugins if p.holds(d.span) and all(p.holds(r.span) for r in d.related)), None)
        if owner is None:
            kept.append(d)
        else:
            aside[owner.qualname] = aside.get(owner.qualname, 0) + 1
    return kept, aside
