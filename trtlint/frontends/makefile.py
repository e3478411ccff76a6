"""Makefile frontend (text): what a Makefile compiles, with which include dirs and defines. Make is never run.

Read: variable assignments (``=``, ``:=``, ``::=``, ``?=``, ``+=``, ``!=`` (a shell result: unknown), with
``override``/``export`` in front), ``$(VAR)``/``${VAR}``/``$X`` references, ``$(wildcard ...)``,
``$(addprefix ...)``/``$(addsuffix ...)``, ``$(patsubst ...)``/``$(subst ...)`` (kept as their text: a source
list seldom depends on them), ``$(notdir ...)``, ``$(dir ...)``, ``$(CURDIR)``, ``include``/``-include`` of
another Makefile (by the caller), and the words of rule lines and recipe lines (an ``nvcc``/``$(CC)`` command
line names its sources and flags). Both branches of ``ifeq``/``ifdef`` are read; ``define`` blocks are skipped.

What it gives (``MakeFacts``): the source files named (C/C++/CUDA units, relative to the Makefile's directory,
or patterns of ``$(wildcard ...)``), the ``-I``/``-isystem``/``-iquote`` dirs and ``-D`` defines found in any
variable or recipe, and whether the source list is *known*: a source list that a ``$(shell ...)``, ``!=`` or an
unknown function computes is not, and then nothing may conclude that a file is not built. A ``-D`` inside an
``ifeq``/``ifdef`` branch is left out (which branch the build takes is not known); include dirs of both are kept.
A variable set nowhere in the file (the environment's, make's command line's) makes a word holding it unknown.
Never raises on a file's content; bounded by the size of what it reads and ``MAX_EXPANSION``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from trtlint.base.facts import FileFacts, MakeSources, ParseProblem, Span
from . import ExtractContext, SourceFile, continued_lines, empty_facts, read_text, split_top_level

VERSION = "2"
KIND_NAMES = ("makefile",)

MAX_EXPANSION = 1 << 20  # characters one expansion may produce
MAX_DEPTH = 32  # nested variable references

UNIT_EXT = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu")
_ASSIGN = re.compile(r"^(?:(?:override|export|private)\s+)*([A-Za-z_][A-Za-z0-9_.\-]*)\s*(::=|:=|\?=|\+=|!=|=)\s*(.*)$")
_COND = re.compile(r"^(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_INCLUDE = re.compile(r"^(?:-|s)?include\s+(.+)$")
# a variable or line that names sources (when its value is computed, the source list is not known)
_SOURCEISH = re.compile(r"SRC|SOURCE|OBJ|FILE|CU|CPP|CC|CXX|TARGET", re.I)
_NOT_SOURCES = re.compile(r"FLAG|LIB|INC|PATH|DIR|OPT|ARCH|GENCODE|VER|HOME|ROOT", re.I)
_FLAG_ARG = {"-I": "inc", "-isystem": "inc", "-iquote": "inc", "-D": "def"}


@dataclass
class MakeFacts:
    sources: list = field(default_factory=list)  # (path relative to the Makefile's dir, line)
    patterns: list = field(default_factory=list)  # (wildcard pattern relative to the Makefile's dir, line)
    include_dirs: list = field(default_factory=list)  # as written, relative to the Makefile's dir or absolute
    defines: list = field(default_factory=list)
    includes: list = field(default_factory=list)  # other Makefiles it includes (as written)
    objects: list = field(default_factory=list)  # (object file ``x.o`` named, line): built from a unit ``x.*``
    sources_known: bool = True
    unknown_why: str = ""


def _cut_comment(line: str) -> str:
    i = 0
    while True:
        j = line.find("#", i)
        if j < 0:
            return line
        if j > 0 and line[j - 1] == "\\":
            i = j + 1
            continue
        return line[:j]


class _Expander:
    def __init__(self, vars: dict, files_in_dir, in_branch: frozenset | set = frozenset()) -> None:
        self.vars = vars
        self.in_branch = in_branch  # names set in a conditional branch: their words are marked with BRANCH
        self.files_in_dir = files_in_dir  # pattern -> matched relative paths (for $(wildcard))
        self.unknown: list[str] = []
        self.unknown_refs: list[str] = []  # per computed top-level reference: the variable's name, "" a function
        self.patterns: list[str] = []

    def expand(self, s: str, depth: int = 0) -> str:
        if "$" not in s:
            return s
        if depth > MAX_DEPTH:
            self.unknown.append("nested too deep")
            return ""
        out = []
        i, n = 0, len(s)
        size = 0
        while i < n:
            c = s[i]
            if c != "$" or i + 1 >= n:
                out.append(c)
                i += 1
                continue
            nx = s[i + 1]
            if nx == "$":
                out.append("$")
                i += 2
                continue
            if nx in "({":
                close = ")" if nx == "(" else "}"
                j, level = i + 2, 1
                while j < n and level:
                    if s[j] == nx:
                        level += 1
                    elif s[j] == close:
                        level -= 1
                    j += 1
                inner = s[i + 2 : j - 1] if level == 0 else s[i + 2 :]
                n0 = len(self.unknown)
                piece = self._ref(inner, depth)
                if depth == 0 and len(self.unknown) > n0:  # which reference of the line was computed
                    ref = inner.split(":", 1)[0].strip()
                    self.unknown_refs.append(ref if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", ref) else "")
                i = j
            else:
                piece = self._var(nx, depth)
                i += 2
            size += len(piece)
            if size > MAX_EXPANSION:
                self.unknown.append("expansion too large")
                return "".join(out)
            out.append(piece)
        return "".join(out)

    def _var(self, name: str, depth: int) -> str:
        if name in ("@", "<", "^", "+", "?", "*", "%", "|"):  # automatic variables: not sources
            return ""
        v = self.vars.get(name)
        # a variable not set here (the environment's, make's command line's): its words are not known
        if v is None:
            return UNSET
        got = self.expand(v, depth + 1)
        return " ".join(BRANCH + w.replace(BRANCH, "") for w in got.split()) if name in self.in_branch else got

    def _ref(self, inner: str, depth: int) -> str:
        m = re.match(r"([a-z-]+)\s+(.*)$", inner, re.S)
        if m is None or m.group(1) not in _FUNCS:
            if ":" in inner and "=" in inner:  # $(VAR:.cu=.o) substitution reference: the variable's text
                inner = inner.split(":", 1)[0]
            if inner == "CURDIR":
                return "."
            return self._var(inner.strip(), depth) if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", inner.strip()) else ""
        fn, rest = m.group(1), m.group(2)
        args = _split_args(rest)
        if fn == "wildcard":
            words = self.expand(rest, depth + 1).replace(BRANCH, "").split()
            self.patterns.extend(words)
            return " ".join(p for w in words for p in self.files_in_dir(w))
        if fn in ("addprefix", "addsuffix") and len(args) == 2:
            pre = self.expand(args[0], depth + 1).strip()
            words = self.expand(args[1], depth + 1).split()
            return " ".join((pre + w) if fn == "addprefix" else (w + pre) for w in words)
        if fn in ("notdir", "dir", "sort", "strip", "filter", "filter-out", "firstword", "abspath", "realpath"):
            text = self.expand(args[-1], depth + 1)
            if fn == "notdir":
                return " ".join(w.rsplit("/", 1)[-1] for w in text.split())
            if fn == "dir":
                return " ".join((w.rsplit("/", 1)[0] + "/") if "/" in w else "./" for w in text.split())
            if fn in ("filter", "filter-out") and len(args) == 2:
                pats = [re.escape(p).replace("%", ".*") for p in self.expand(args[0], depth + 1).split()]
                keep = [w for w in text.split() if any(re.fullmatch(p, w) for p in pats)]
                return " ".join(keep) if fn == "filter" else " ".join(w for w in text.split() if w not in keep)
            return text
        if fn in ("patsubst", "subst") and len(args) == 3:
            text = self.expand(args[2], depth + 1)
            a, b = self.expand(args[0], depth + 1), self.expand(args[1], depth + 1)
            if fn == "subst":
                return text.replace(a, b)
            pat = "^" + re.escape(a).replace("%", "(.*)", 1) + "$"
            return " ".join(re.sub(pat, b.replace("%", r"\1", 1), w) if re.match(pat, w) else w for w in text.split())
        # shell, foreach, call, eval, if, ...: computed, unknown here
        self.unknown.append(f"$({fn} ...)")
        return ""


UNSET = "\x00"  # what a variable set nowhere in the file expands to: a word holding it is not used
BRANCH = "\x01"  # marks a word of a variable set in a conditional branch: a -D in it is not known to be set

_FUNCS = {"wildcard", "addprefix", "addsuffix", "notdir", "dir", "sort", "strip", "filter", "filter-out",
          "firstword", "abspath", "realpath", "patsubst", "subst", "shell", "foreach", "call", "eval", "if", "or",
          "and", "origin", "value", "info", "warning", "error", "basename", "suffix", "word", "words", "wordlist",
          "join", "findstring", "lastword", "file", "guile", "flavor"}


def _split_args(rest: str) -> list[str]:
    return split_top_level(rest, "({", ")}")


def _assignments(lines, vars: dict, in_branch: set | None = None) -> dict:
    """The variables the lines set (make expands lazily: a variable set after its use in a rule still counts; both
    branches of a conditional are read, the last assignment wins). ``in_branch`` collects the names set inside an
    ``ifeq``/``ifdef`` branch (their value depends on which branch make takes)."""
    in_define = False
    cond = 0
    for _n, line in lines:
        if line.startswith("\t"):
            continue
        s = _cut_comment(line).strip()
        if in_define:
            if s.startswith("endef"):
                in_define = False
            continue
        if s.startswith("define ") or s == "define":
            in_define = True
            continue
        mc = _COND.match(s)
        if mc:
            cond = max(cond + {"endif": -1, "else": 0}.get(mc.group(1), 1), 0)
            continue
        m = _ASSIGN.match(s)
        if m is not None and cond and in_branch is not None and ":" not in m.group(1):
            in_branch.add(m.group(1))
        if m is None or ":" in m.group(1):
            continue
        name, op, value = m.groups()
        if op == "!=":
            vars[name] = "$(shell )"
        elif op == "+=":
            vars[name] = (vars.get(name, "") + " " + value).strip()
        elif op == "?=":
            vars.setdefault(name, value)
        else:
            vars[name] = value
    return vars


_PREFIXED = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.\-]*)[)}]/+([^$*?\[\s]+)")


def _words(s: str) -> list[str]:
    """``s`` split at whitespace outside ``$(...)``/``${...}``."""
    out, depth, cur = [], 0, []
    for ch in s:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch.isspace() and depth <= 0:
            if cur:
                out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def read_vars(text: str, vars: dict) -> dict:
    """``vars`` updated with the assignments of ``text`` (a Makefile's text up to an ``include`` line)."""
    return _assignments(continued_lines(text), vars) if "=" in text else vars


def include_words(vars: dict, arg: str) -> list[tuple[str, str]]:
    """What the words of an ``include`` line name, with the variables ``vars`` set before it (:func:`read_vars` of
    the text make has read when it reaches the line: ``include`` expands its line at once): per word, ``("path",
    p)`` when it expands to a path ``p``; ``("prefixed", VAR + "\0" + tail)`` when it is ``$(VAR)/tail`` with a
    literal tail and VAR is computed (``$(shell ...)``, ``!=``) or set nowhere before it (the environment's, make's
    command line's): a directory to be found, usually the project's own top found by a shell loop; ``("unknown",
    word)`` else."""
    ex = _Expander(vars, lambda _p: [])
    out: list[tuple[str, str]] = []
    for raw in _words(_cut_comment(arg)):
        ex.unknown = []
        got = ex.expand(raw)
        if not ex.unknown and UNSET not in got and "$" not in got and got.split():
            out.extend(("path", w) for w in got.split())
            continue
        m = _PREFIXED.fullmatch(raw)
        out.append(("prefixed", m.group(1) + "\0" + m.group(2)) if m else ("unknown", raw))
    return out


def read_makefile(text: str, files_in_dir, env: dict | None = None) -> MakeFacts:
    """The facts of one Makefile's text. ``files_in_dir(pattern)``: the files (relative to the Makefile's
    directory) a ``$(wildcard pattern)`` matches; ``env``: variables known before (an including Makefile's)."""
    facts = MakeFacts()
    lines = continued_lines(text)
    in_branch: set[str] = set()
    vars = _assignments(lines, dict(env or {}), in_branch)
    ex = _Expander(vars, files_in_dir, in_branch)
    state = {"define": False, "cond": 0, "rule": False}
    words_src: list[tuple[str, int]] = []

    def line_words(s: str, n: int, recipe: bool) -> None:
        if not recipe:
            if state["define"]:
                state["define"] = not s.startswith("endef")
                return
            if s.startswith("define ") or s == "define":
                state["define"] = True
                return
            mc = _COND.match(s)
            if mc:
                state["cond"] += {"endif": -1, "else": 0}.get(mc.group(1), 1)
                state["cond"] = max(state["cond"], 0)
                return
            mi = _INCLUDE.match(s)
            if mi:
                facts.includes.extend(ex.expand(mi.group(1)).split())
                return
            m = _ASSIGN.match(s)
            if m is not None and ":" not in m.group(1):
                if m.group(2) == "!=":
                    ex.unknown.append("!=")
                    return
                words_src.extend((w, n, state["cond"]) for w in ex.expand(m.group(3)).split())
                return
            if ":" in s:  # a rule: targets : prerequisites (the targets are outputs)
                state["rule"] = True
                _tgt, _, pre = s.partition(":")
                # `debug: CFLAGS += -DDEBUG`: a target-specific variable, set only when that target is built (its
                # -D is not known to be set, as one in a conditional branch)
                own = 1 if _ASSIGN.match(pre.lstrip(":").strip()) else 0
                words_src.extend((w, n, state["cond"] + own) for w in ex.expand(pre.lstrip(":")).split())
            return
        words_src.extend((w, n, state["cond"]) for w in ex.expand(s).split())

    unknown: list[str] = []
    for n, line in lines:
        # a tab-indented line is a recipe once a rule was seen; before, make reads it as any other line
        recipe = line.startswith("\t") and state["rule"]
        s = line.strip() if recipe else _cut_comment(line).strip()
        if not s:
            continue
        ex.unknown, ex.unknown_refs = [], []
        before = len(words_src)
        line_words(s, n, recipe)
        if ex.unknown:
            # a computed value decides the sources when it is in a rule or recipe line, or names sources, or is
            # assigned to a variable whose name says sources (not FLAGS, LIBS, INCLUDES, paths)
            m = _ASSIGN.match(s) if not recipe else None
            name = m.group(1) if m is not None and ":" not in m.group(1) else None

            def says_sources(n: str) -> bool:
                return bool(_SOURCEISH.search(n)) and not _NOT_SOURCES.search(n)

            names_sources = any(w.lower().endswith(UNIT_EXT + (".o",)) for w, _n, _c in words_src[before:])
            if name is not None:
                tainted = names_sources or says_sources(name)
            else:  # a rule or recipe line: a function written in it, or a computed variable that is no flags'
                tainted = names_sources or any(r == "" or not _NOT_SOURCES.search(r) for r in ex.unknown_refs)
            if tainted:
                unknown.extend(ex.unknown)
    seen_src, seen_inc, seen_def, seen_obj = set(), set(), set(), set()
    k = 0
    while k < len(words_src):
        w, n, cond = words_src[k]
        cond = cond or BRANCH in w
        w = w.replace(BRANCH, "").strip("'\"")
        nxt = words_src[k + 1][0].replace(BRANCH, "").strip("'\"") if k + 1 < len(words_src) else ""
        flag = next((f for f in ("-isystem", "-iquote", "-I", "-D") if w.startswith(f)), None)
        if flag is not None:
            val = w[len(flag):]
            if not val and nxt:
                val, k = nxt, k + 1
            val = val.strip("'\"")  # -I"$(CUDA_INSTALL_DIR)/include": the shell's quotes
            if val and "$" not in val and UNSET not in val:
                if _FLAG_ARG[flag] == "inc" and val not in seen_inc:
                    seen_inc.add(val)
                    facts.include_dirs.append(val)
                elif _FLAG_ARG[flag] == "def" and val not in seen_def and not cond:  # a define in one branch: not known
                    seen_def.add(val)
                    facts.defines.append(val)
        elif not w.startswith("-") and "%" not in w and "*" not in w and UNSET not in w:
            p = w[2:] if w.startswith("./") else w
            if p.lower().endswith(UNIT_EXT) and p not in seen_src:
                seen_src.add(p)
                facts.sources.append((p, n))
            elif p.endswith(".o") and p not in seen_obj:
                seen_obj.add(p)
                facts.objects.append((p, n))
        k += 1
    facts.patterns = [(p, 0) for p in dict.fromkeys(ex.patterns)]
    if unknown:
        facts.sources_known = False
        facts.unknown_why = ", ".join(dict.fromkeys(unknown))
    return facts


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    """A Makefile's sources as facts (``MakeSources``, project-relative; ``$(wildcard ...)`` kept as patterns,
    matched by the rules against the project's files). An included Makefile is read by the build model, not
    here: a source list split across included files is rare, and this file alone is what it names."""
    text, problem = read_text(src, legacy=True)
    if text is None:
        return empty_facts(src, (ParseProblem(problem or "could not be read", Span(src.rel, 1, 1, 1, 1)),))
    d = posixpath.dirname(src.rel)
    facts = read_makefile(text, lambda _pattern: [])

    def rel(p: str) -> str | None:
        if p.startswith("/"):
            return None
        r = posixpath.normpath(posixpath.join(d, p))
        return None if r.startswith("../") or r == ".." else r

    lines = [ln for _s, ln in facts.sources] + [ln for _o, ln in facts.objects]
    line = min(lines) if lines else 1
    ms = MakeSources(
        sources=tuple(r for r in (rel(s) for s, _ln in facts.sources) if r),
        objects=tuple(r for r in (rel(o) for o, _ln in facts.objects) if r),
        patterns=tuple(r for r in (rel(p) for p, _ln in facts.patterns) if r),
        known=facts.sources_known,
        span=Span(src.rel, line, 1, line, 1),
        why_unknown=facts.unknown_why,
    )
    return FileFacts(path=src.rel, kind="makefile", digest=src.digest, make_sources=(ms,))
