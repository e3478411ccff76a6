"""C++ frontend helper: what plugin and creator methods say about the cross-language contract.

Run by :mod:`.unit` after the libclang walk (:mod:`.decls`), on the functions it extracted. It reads the
function's source text (comments blanked), so it also works where the stand-in headers leave an expression
invalid (``new Plugin(...)`` of a class that looks abstract under the prelude is dropped by libclang):

* ``creates``: the classes a creator method makes (``new X(...)``, ``std::make_unique<X>(...)``). Where the name
  as written is a macro's (an X-macro header included once per plugin: ``new PLUGIN_NAME(...)``), the text cannot
  say which class it is: libclang's view gives it (:class:`_MacroNamed`), else the object is kept ``unresolved``.
  A call of a function template of the unit that creates its own template parameter
  (``createPluginBase<FooPluginV2>(name, fc)``, whose body does ``std::make_unique<PluginType>(...)``) makes the
  class its template argument names;
* ``defaults``: the value a creator falls back to when a field is absent: ``parse("f", fc).value_or(d)``,
  ``auto v = parse("f", fc); ... v.value_or(d)``, and for the compare-in-a-loop style
  (``if (!strcmp(name, "f")) { x = ...; }``) the initializer of the local or member ``x``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Optional

from trtlint.base import safeio
from trtlint.base.facts import CppFunction, CreatedObject, FieldDefault, FieldRead, FnContract, Registration, Span
from .base import Unit

_FIXED_LENGTH = re.compile(r"\blength\s*==\s*(\d+)\b")  # a branch requiring a field's length
_CREATING = {"createPlugin", "deserializePlugin"}
_NEW = re.compile(r"\bnew\s*(?:\([^()]*\)\s*)?((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*(?:<[^;]*?>\s*)?[({]")
_MAKE = re.compile(r"\bmake_(?:unique|shared)\s*<\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*>\s*\(")
_IDENT = r"[A-Za-z_]\w*"
# a call naming its template arguments (``createPluginBase<FooPluginV2>(name, fc)``): no nested brackets
_TEMPLATE_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*<\s*([A-Za-z_][\w:\s,]*?)\s*>\s*\(")
_TEMPLATE_HEAD = re.compile(r"\s*template\s*<([^<>]*)>")
_CLASS_NAME = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*$")
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^;(){}<>=]*>\s*)?\(")
_NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "catch", "static_cast", "reinterpret_cast",
              "const_cast", "dynamic_cast", "decltype", "alignof", "noexcept"}
_TARGET = re.compile(r"(?:^|[;{}])\s*((?:this->)?" + _IDENT + r"(?:(?:\.|->)" + _IDENT + r")*)\s*=(?!=)")


def _blank(data: bytes) -> bytes:
    """Comments replaced by spaces (same length, newlines kept); string literals kept."""

    def rep(m: re.Match) -> bytes:
        return re.sub(rb"[^\n]", b" ", m.group(0))

    out = []
    pos = 0
    # strings first so a "//" inside a literal is not a comment
    for m in re.finditer(rb'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', data, re.S):
        out.append(data[pos:m.start()])
        tok = m.group(0)
        out.append(tok if tok.startswith(b'"') else rep(m))
        pos = m.end()
    out.append(data[pos:])
    return b"".join(out)


class _Text:
    """One file's text (comments blanked) with line offsets, decoded lazily."""

    def __init__(self, data: bytes) -> None:
        self.raw = _blank(data)
        self.text = self.raw.decode("utf-8", "replace")
        self.starts = [0]
        for m in re.finditer("\n", self.text):
            self.starts.append(m.end())

    def offset(self, line: int, col: int) -> int:
        if line < 1 or line > len(self.starts):
            return len(self.text)
        # libclang columns count bytes; the text is decoded, close enough for ASCII source
        return min(self.starts[line - 1] + max(col - 1, 0), len(self.text))

    def byte_offset(self, off: int) -> int:
        """The byte offset (libclang's) of character offset ``off``."""
        return len(self.text[:off].encode("utf-8", "surrogateescape")) if not self.text.isascii() else off

    def byte_col(self, off: int) -> int:
        """The 1-based byte column (libclang's) of character offset ``off``."""
        line = self.pos(off)[0]
        return self.byte_offset(off) - self.byte_offset(self.starts[line - 1]) + 1

    def pos(self, off: int) -> tuple[int, int]:
        import bisect

        i = bisect.bisect_right(self.starts, off) - 1
        return i + 1, off - self.starts[i] + 1


def _span(rel: str, t: _Text, a: int, b: int) -> Span:
    l1, c1 = t.pos(a)
    l2, c2 = t.pos(b)
    return Span(rel, l1, c1, l2, c2)


def _balanced(text: str, open_at: int) -> int:
    """Index just past the bracket closing the one at ``open_at`` (or len(text))."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    i = open_at
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return n


def _statement_end(text: str, start: int, limit: int) -> int:
    depth = 0
    i = start
    while i < limit:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif ch == ";" and depth == 0:
            return i
        i += 1
    return limit


def _statement_start(text: str, end: int, floor: int) -> int:
    depth = 0
    i = end - 1
    while i >= floor:
        ch = text[i]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                pass
            else:
                depth -= 1
        elif ch in ";{}" and depth == 0:
            return i + 1
        i -= 1
    return floor


def _short(s: str, limit: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


# clang's word on a new-expression it dropped (the class is abstract as parsed: it leaves a method of its interface
# pure, e.g. one written for another TensorRT release than the headers in use): the type
_ABSTRACT_NEW = re.compile(r"allocating an object of abstract class type '([^']+)'")
# ... and on a make_unique / make_shared whose instantiation failed: the note at the call
_MAKE_NOTE = re.compile(r"'std::(?:__\w+::)?make_(?:unique|shared)<([^,<>]+)")


class _MacroNamed:
    """The class a creation writes through a macro (``new PLUGIN_NAME(...)``), from libclang: the type of the
    ``CXX_NEW_EXPR`` (or the ``make_unique``/``make_shared`` call's) in the creating method's body, else the type
    clang names when it drops the expression (``allocating an object of abstract class type 'X'``, as it does
    for a class that is abstract as parsed). Built lazily: only a unit whose creating method writes a class
    name through a macro pays for it."""

    def __init__(self, ex: Unit, tu) -> None:
        self.ex = ex
        self.tu = tu
        self._macros: Optional[dict[str, dict[int, tuple[str, int]]]] = None  # rel -> byte offset -> (macro, end)
        self._fns: Optional[dict[str, object]] = None  # usr -> the function's cursor (creating methods)
        self._diags: Optional[dict[tuple[str, int, int], set]] = None  # (rel, line, col) -> class names
        self._sites: dict[str, list[tuple[int, int, str]]] = {}  # usr -> (start, end, class) of its creations

    def macro_at(self, rel: str, off: int) -> Optional[tuple[str, int]]:
        """(the macro instantiated at byte offset ``off`` of project file ``rel``, the byte offset its use ends at),
        or None: no macro there."""
        if self._macros is None:
            self._macros = {}
            for f, o1, o2, name, _c in self.ex.macro_insts:
                r = self.ex.rel_of(f)
                if r is not None:
                    self._macros.setdefault(r, {})[o1] = (name, o2)
        return self._macros.get(rel, {}).get(off)

    def resolve(self, fn: CppFunction, rel: str, off: int, line: int, col: int) -> Optional[str]:
        """The qualified class created at the name written at byte offset ``off`` (line, col) of ``rel``, or None."""
        hits = [c for s, e, c in self._creations(fn) if s <= off < e]
        if hits:
            return hits[-1]  # the innermost (a creation inside another's arguments comes after it in preorder)
        names = self._diagnosed().get((rel, line, col), set())
        if len(names) != 1:
            return None  # none, or the same spot holding different classes (a header included twice in one unit)
        (name,) = names
        if "<" in name:
            return None
        short = name.split("::")[-1]
        cands = [c.qualname for c in self.ex.classes if c.name == short
                 and (c.qualname == name.lstrip(":") or c.qualname.endswith("::" + name.lstrip(":")))]
        return cands[0] if len(set(cands)) == 1 else name.lstrip(":")

    def _creations(self, fn: CppFunction) -> list[tuple[int, int, str]]:
        got = self._sites.get(fn.usr)
        if got is not None:
            return got
        out: list[tuple[int, int, str]] = []
        cur = self._functions().get(fn.usr)
        if cur is not None:
            from .base import preorder

            K = self.ex.K
            for node in preorder(cur):
                if node.kind == K.CXX_NEW_EXPR:
                    t = node.type.get_pointee()
                elif node.kind == K.CALL_EXPR and node.spelling in ("make_unique", "make_shared"):
                    t = node.type.get_template_argument_type(0) if node.type.get_num_template_arguments() > 0 else None
                else:
                    continue
                d = t.get_canonical().get_declaration() if t is not None else None
                if d is None or d.kind not in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                    continue
                _f, _l1, _c1, o1, _l2, _c2, o2 = self.ex.extent_info(node)
                out.append((o1, o2, self.ex.qualname(d)))
        self._sites[fn.usr] = out
        return out

    def _functions(self) -> dict:
        """usr -> cursor of every creating method defined in a project file of the unit (declarations walked
        through namespaces and classes only, as decls.Extractor.run does)."""
        if self._fns is not None:
            return self._fns
        self._fns = {}
        if self.tu is None:
            return self._fns
        from .base import children

        K = self.ex.K
        scopes = (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE)
        stack = [self.tu.cursor]
        while stack:
            c = stack.pop()
            for ch in children(c):
                k = ch.kind
                if k in scopes:
                    if ch.location.file is not None and not ch.location.is_in_system_header:
                        stack.append(ch)
                elif k in (K.CXX_METHOD, K.FUNCTION_TEMPLATE) and ch.spelling in _CREATING and ch.is_definition():
                    self._fns.setdefault(ch.get_usr() or "", ch)
        return self._fns

    def _diagnosed(self) -> dict[tuple[str, int, int], set]:
        if self._diags is not None:
            return self._diags
        self._diags = {}
        if self.tu is None:
            return self._diags
        for d in self.tu.diagnostics:
            m = _ABSTRACT_NEW.search(d.spelling or "")
            spots = [(d.location, m.group(1))] if m else []
            for n in d.children:
                m2 = _MAKE_NOTE.search(n.spelling or "")
                if m2 is not None:
                    spots.append((n.location, m2.group(1).strip()))
            for loc, name in spots:
                rel = self.ex.rel_of(loc.file.name if loc.file is not None else None)
                if rel is not None:
                    self._diags.setdefault((rel, loc.line, loc.column), set()).add(name)
        return self._diags


class _Scanner:
    def __init__(self, ex: Unit, tu=None) -> None:
        self.ex = ex
        self.texts: dict[str, _Text] = {}
        self.named = _MacroNamed(ex, tu)

    def text(self, rel: str) -> Optional[_Text]:
        t = self.texts.get(rel)
        if t is None:
            ex = self.ex
            if rel == ex.src.rel:
                data = ex.main_bytes
            else:
                try:
                    data = safeio.read_bytes(Path(ex.root) / rel, root=ex.root, limit=safeio.SOURCE_LIMIT)
                except OSError:
                    return None
            t = self.texts[rel] = _Text(data)
        return t

    # -- creates --
    def creates(self, fn: CppFunction, t: _Text, a: int, b: int) -> tuple[CreatedObject, ...]:
        body = t.text[a:b]
        out = []
        seen = set()
        for rx in (_NEW, _MAKE):
            for m in rx.finditer(body):
                cls = re.sub(r"\s+", "", m.group(1)).lstrip(":")
                if cls in ("std", "char", "int", "float", "uint8_t", "int32_t", "int64_t", "double", "bool") or cls.startswith("std::"):
                    continue
                open_at = m.end() - 1
                close = _balanced(body, open_at)
                args = _short(body[open_at + 1 : close - 1], 120)
                s = a + m.start(1)
                if s in seen:
                    continue
                seen.add(s)
                span = _span(fn.span.path, t, s, a + m.end(1))
                obj = CreatedObject(cls=cls, span=span, args=args)
                use = self.named.macro_at(fn.span.path, t.byte_offset(s))
                macro = use[0] if use is not None else None
                if macro is not None and macro == cls.split("::")[0]:
                    got = self.named.resolve(fn, fn.span.path, t.byte_offset(s), span.line, t.byte_col(s))
                    after = re.match(r"\s*[({]", body[close:]) if use[1] > t.byte_offset(a + m.end(1)) else None
                    if after is not None:  # a function-like macro's arguments came first: `new M(a)(args)`
                        args = _short(body[close + after.end():_balanced(body, close + after.end() - 1) - 1], 120)
                    obj = CreatedObject(cls=got or cls, span=span, args=args, macro=macro, unresolved=got is None)
                out.append(obj)
        return tuple(out)

    def via_templates(self, fn: CppFunction, t: _Text, a: int, b: int) -> tuple[CreatedObject, ...]:
        """What a creating method makes through a function template of the unit that creates its own template
        parameter: ``createPluginBase<FooPluginV2>(name, fc)`` whose body does ``std::make_unique<PluginType>(...)``
        makes a FooPluginV2 (one creator template shared by a plugin's versions). The object is located at the
        template argument; its constructor arguments are the template's."""
        out = []
        body = t.text[a:b]
        for m in _TEMPLATE_CALL.finditer(body):
            name, targs = m.group(1), [re.sub(r"\s+", "", x) for x in m.group(2).split(",")]
            if name in ("make_unique", "make_shared", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"):
                continue
            for h in self.templates(name, fn):
                for pos, obj in h:
                    if pos < len(targs) and _CLASS_NAME.match(targs[pos]) and not targs[pos].startswith("std::"):
                        s0 = a + m.start(2) + m.group(2).find(targs[pos].split("::")[0])
                        out.append(CreatedObject(cls=targs[pos].lstrip(":"), span=_span(fn.span.path, t, s0, s0 + len(targs[pos])),
                                                 args=obj.args))
                if out:
                    return tuple(out)
        return tuple(out)

    def templates(self, name: str, fn: CppFunction) -> list[list[tuple[int, CreatedObject]]]:
        """Per function template of the unit named ``name`` (its own class's first): the objects its body creates
        whose type is one of its template parameters, with that parameter's position."""
        memo = self.__dict__.setdefault("_templates", {})
        got = memo.get(name)
        if got is None:
            got = []
            for h in sorted((h for h in self.ex.functions if isinstance(h, CppFunction) and h.name == name),
                            key=lambda h: h.cls != fn.cls):
                t = self.text(h.span.path)
                if t is None:
                    continue
                a = t.offset(h.span.line, h.span.col)
                b = t.offset(h.span.end_line, h.span.end_col)
                head = _TEMPLATE_HEAD.match(t.text, a, b)
                if head is None:
                    continue
                params = [re.split(r"\s+", x.split("=")[0].strip())[-1].lstrip(".") for x in head.group(1).split(",")]
                made = [(params.index(o.cls), o) for o in self.creates(h, t, head.end(), b) if o.cls in params]
                if made:
                    got.append(made)
            memo[name] = got
        return got

    # -- defaults --
    def defaults(self, fn: CppFunction, t: _Text, a: int, b: int) -> tuple[FieldDefault, ...]:
        out: list[FieldDefault] = []
        text = t.text
        reads = list(fn.field_reads)
        if fn.name in _CREATING:
            reads += self.text_reads(fn, t, a, b, {(r.name, r.span.line) for r in reads})
        required = self.required_names(t.text, a, b) if fn.name in _CREATING else set()
        for r in reads:
            if r.span.path != fn.span.path:
                continue
            ro = t.offset(r.span.line, r.span.col)
            if not (a <= ro < b):
                continue
            if r.style == "map":
                continue  # a key of a name -> pointer table: the default is the pointee's, not read here
            d = self._value_or_after(fn, t, r, ro, b) if r.style == "call" else self._compare_default(fn, t, r, ro, a, b)
            if d is not None:
                target = d.target or self._stored_in(text, ro, a)
                checked = r.name in required or (bool(target) and self._validated(t.text, target))
                out.append(dataclasses.replace(d, target=target, checked=checked))
        del text
        return tuple(out)

    @staticmethod
    def required_names(text: str, a: int, b: int) -> set:
        """Field names a creating method requires: string literals passed to a validating call
        (``validateRequiredAttributesExist({"a", "b"}, fc)``, ``PLUGIN_VALIDATE(has("a"))``), directly or
        through a set/list variable initialized in the method."""
        out: set = set()
        for m in re.finditer(r"\b\w*(?:[Rr]equire|[Vv]alidate|VALIDATE|[Cc]heck|CHECK|[Aa]ssert|ASSERT)\w*\s*\(", text[a:b]):
            open_at = a + m.end() - 1
            args = text[open_at:_balanced(text, open_at)]
            out.update(re.findall(r'"([^"\\\n]+)"', args))
            for ident in set(re.findall(_IDENT, args)):
                for d in re.finditer(r"\b" + re.escape(ident) + r"\s*(?:=\s*)?\{([^{}]*)\}", text[a:b]):
                    out.update(re.findall(r'"([^"\\\n]+)"', d.group(1)))
        return out

    @staticmethod
    def _stored_in(text: str, ro: int, floor: int) -> Optional[str]:
        """The member or variable the value read at ``ro`` is stored in: ``mX(parse(...))`` in a member
        initializer list, ``x = parse(...)``, ``T x{parse(...)}``."""
        start = _statement_start(text, ro, max(floor, ro - 300))
        prefix = text[start:ro]
        m = re.search(r"(" + _IDENT + r")\s*(?:=|\{|\()\s*(?:[\w:<>]+\s*(?:<[^;()]*>)?\s*\()?\s*$", prefix)
        if m is None:
            return None
        name = m.group(1)
        return None if name in _NOT_CALLS else name

    @staticmethod
    def _validated(text: str, target: str) -> bool:
        """Whether the file validates ``target``: a CHECK/ASSERT/VALIDATE macro naming it, or an ``if`` on it
        followed by an error (throw, return nullptr / false / an error status, a logged error)."""
        t = re.escape(target)
        if re.search(r"\b\w*(?:CHECK|ASSERT|VALIDATE|check|assert)\w*\s*\([^;]*\b" + t + r"\b", text):
            return True
        for m in re.finditer(r"\bif\s*\(([^;{}]*\b" + t + r"\b[^;{}]*)\)", text):
            after = text[m.end():m.end() + 400]
            if re.match(r"\s*\{?[^}]*?(?:\bthrow\b|return\s+(?:nullptr|false|-1|STATUS_FAILURE)|LOG_ERROR|gLogError|PLUGIN_ERROR)", after):
                return True
        return False

    def text_reads(self, fn: CppFunction, t: _Text, a: int, b: int, known: set) -> list[FieldRead]:
        """``parse<T>("f", fc)`` reads libclang lost (an expression left invalid under the stand-in headers)."""
        text = t.text
        m = re.compile(r"PluginFieldCollection\s+const\s*\*\s*(" + _IDENT + r")|const\s+PluginFieldCollection\s*\*\s*(" + _IDENT + r")").search(text, a, b)
        if m is None:
            return []
        fc = m.group(1) or m.group(2)
        out = []
        rx = re.compile(r"\(\s*(\"[^\"\\\n]+\")\s*,\s*" + re.escape(fc) + r"\s*\)")
        for m2 in rx.finditer(text, m.end(), b):
            name = m2.group(1)[1:-1]
            sp = _span(fn.span.path, t, m2.start(1), m2.end(1))
            if (name, sp.line) in known:
                continue
            out.append(FieldRead(name=name, span=sp, method=fn.name, style="call"))
        return out

    def _value_or_at(self, fn, t: _Text, r: FieldRead, seg_start: int, seg_end: int, target: Optional[str]) -> Optional[FieldDefault]:
        text = t.text
        m = re.compile(r"\bvalue_or\s*\(").search(text, seg_start, seg_end)
        if m is None:
            return None
        close = _balanced(text, m.end() - 1)
        inner_a, inner_b = m.end(), close - 1
        expr = text[inner_a:inner_b].strip()
        if not expr:
            return None
        return FieldDefault(field=r.name, default=_short(expr), span=_span(fn.span.path, t, inner_a, inner_b), how="value_or", target=target)

    def _value_or_after(self, fn, t: _Text, r: FieldRead, ro: int, b: int) -> Optional[FieldDefault]:
        text = t.text
        # parse("f", fc).value_or(d): the call holding the read closes, then .value_or follows
        close = _statement_end(text, ro, b)
        if close < b and text[close] == ")":
            m = re.compile(r"\s*(?:\.|->)\s*value_or\s*\(").match(text, close + 1)
            if m is not None:
                return self._value_or_at(fn, t, r, close + 1, m.end(), None)
        end = close
        while end < b and text[end] != ";":
            end = _statement_end(text, end + 1, b)
        # auto v = parse("f", fc); ... v.value_or(d)
        start = _statement_start(text, ro, max(0, ro - 400))
        prefix = text[start:ro]
        m = re.search(r"(" + _IDENT + r")\s*(?:=|\{)\s*[^=;{}]*$", prefix)
        if m is None:
            return None
        var = m.group(1)
        for m2 in re.finditer(r"\b" + re.escape(var) + r"\s*(?:\.|->)\s*value_or\s*\(", text[end:b]):
            s = end + m2.start()
            return self._value_or_at(fn, t, r, s, b, var)
        return None

    @staticmethod
    def _branch(text: str, ro: int, a: int, b: int) -> Optional[tuple[int, int, int]]:
        """(the `if`'s offset, branch start, branch end) of the if whose condition holds the read at ``ro``."""
        # the if-condition holding the read ends at the ')' matching the one before it; the branch follows
        i = text.rfind("if", a, ro)
        if i < 0 or ro - i > 300:
            return None
        p = text.find("(", i, ro)
        if p < 0:
            return None
        cond_end = _balanced(text, p)
        if cond_end <= ro or cond_end >= b:
            return None
        j = cond_end
        while j < b and text[j].isspace():
            j += 1
        if j < b and text[j] == "{":
            return i, j + 1, _balanced(text, j) - 1
        return i, j, _statement_end(text, j, b) + 1

    def lengths(self, fn: CppFunction, t: _Text, a: int, b: int) -> tuple[tuple[str, int], ...]:
        """Fields whose length the branch reading them requires (``PLUGIN_VALIDATE(fields[i].length == 2)``)."""
        out: dict[str, int] = {}
        for r in fn.field_reads:
            ro = t.offset(r.span.line, r.span.col) if r.style == "compare" and r.span.path == fn.span.path else -1
            br = self._branch(t.text, ro, a, b) if a <= ro < b else None
            m = _FIXED_LENGTH.search(t.text, br[1], br[2]) if br else None
            if m is not None:
                out.setdefault(r.name, int(m.group(1)))
        return tuple(out.items())

    def _compare_default(self, fn, t: _Text, r: FieldRead, ro: int, a: int, b: int) -> Optional[FieldDefault]:
        text = t.text
        br = self._branch(text, ro, a, b)
        if br is None:
            return None
        i, body_a, body_b = br
        m = _TARGET.search(text, body_a - 1 if body_a > 0 else 0, body_b)
        if m is None:
            return None
        target = m.group(1)
        plain = target[6:] if target.startswith("this->") else target
        if "." in plain or "->" in plain:
            return None
        # a local declared earlier in the function, with an initializer
        decl = re.compile(
            r"(?:[\w:>*&]\s*|\s)" + r"(?<![.>])\b" + re.escape(plain) + r"\s*(?:\{([^{};]*)\}|=\s*([^;{}]+);)"
        )
        best = None
        for m2 in decl.finditer(text, a, i):
            if not self._is_declaration(text, m2.start() + 1, a):
                continue
            best = m2
        if best is not None:
            g = 1 if best.group(1) is not None else 2
            if best.group(g).strip():
                return FieldDefault(field=r.name, default=_short(best.group(g)), span=_span(fn.span.path, t, best.start(g), best.end(g)),
                                    how="local-init", target=plain)
            return None
        if target.startswith("this->") or re.match(r"m[A-Z_]", plain):
            return self._member_init(fn, r, plain)
        return None

    @staticmethod
    def _is_declaration(text: str, name_at: int, floor: int) -> bool:
        """Whether the identifier at ``name_at`` is declared there (a type precedes it), not assigned."""
        k = name_at
        while k > floor and text[k - 1] in " \t\n":
            k -= 1
        prev = text[max(floor, k - 40):k]
        return bool(re.search(r"(?:[A-Za-z_]\w*|>|\*|&)\s*$", prev)) and not re.search(r"\breturn\s*$|[=(,]\s*$", prev)

    def _member_init(self, fn: CppFunction, r: FieldRead, member: str) -> Optional[FieldDefault]:
        """In-class initializer of a member of the function's class (in the file that defines the class)."""
        for c in self.ex.classes:
            if c.qualname != fn.cls:
                continue
            t = self.text(c.span.path)
            if t is None:
                return None
            start = t.offset(c.span.line, c.span.col)
            brace = t.text.find("{", start)
            if brace < 0:
                return None
            end = _balanced(t.text, brace)
            rx = re.compile(r"(?<![.>\w])" + re.escape(member) + r"\s*(?:\{([^{};]*)\}|=\s*([^;{}]+);)")
            for m in rx.finditer(t.text, brace, end):
                if not self._is_declaration(t.text, m.start(), brace):
                    continue
                g = 1 if m.group(1) is not None else 2
                if m.group(g).strip():
                    return FieldDefault(field=r.name, default=_short(m.group(g)), span=_span(c.span.path, t, m.start(g), m.end(g)),
                                        how="member-init", target=member)
            return None
        return None


_REGISTER_CALL = re.compile(r"\bregisterCreator\s*\(\s*\*?\s*&?\s*(" + _IDENT + r"(?:(?:\.|->)" + _IDENT + r")*)\s*,")
_NOT_TYPES = {"return", "auto", "const", "static", "else", "case", "new", "delete", "throw", "using", "typedef"}


def registrations(ex: Unit) -> tuple[Registration, ...]:
    """``getPluginRegistry()->registerCreator(mCreator, ns)``: a creator registered by a direct call (the
    variable's declared type, found in the same file, names the creator class)."""
    if b"registerCreator" not in ex.main_bytes:
        return ()
    t = _Text(ex.main_bytes)
    out = []
    for m in _REGISTER_CALL.finditer(t.text):
        var = re.split(r"\.|->", m.group(1))[-1]
        decl = re.compile(r"\b((?:::)?" + _IDENT + r"(?:::" + _IDENT + r")*)\s*(?:<[^;<>]*>)?\s*[*&]?\s*\b" + re.escape(var) + r"\s*[;{=(]")
        cls = None
        for d in decl.finditer(t.text):
            name = d.group(1).split("::")[-1]
            if name not in _NOT_TYPES:
                cls = d.group(1).lstrip(":")
                break
        if cls is None:
            continue
        out.append(Registration(creator=cls, qualname=ex.class_by_name.get(cls.split("::")[-1]),
                                span=_span(ex.src.rel, t, m.start(), m.end()), how="call"))
    return tuple(out)


def scan(ex: Unit, tu=None, only: Optional[str] = None) -> tuple[FnContract, ...]:
    """The contract facts of the creator and plugin methods ``ex`` (a finished decls.Extractor) extracted; ``tu``
    (its translation unit) tells the classes macros name in creations. ``only``: of the functions in that file
    (a kept unit's walk: kept.py)."""
    classes = {c.qualname for c in ex.classes}
    sc = _Scanner(ex, tu)
    out: list[FnContract] = []
    for fn in ex.functions:
        if not isinstance(fn, CppFunction) or (only is not None and fn.span.path != only):
            continue
        if not (fn.name in _CREATING or fn.field_reads or (fn.cls in classes and fn.name in _CREATING)):
            continue
        t = sc.text(fn.span.path)
        if t is None:
            continue
        a = t.offset(fn.span.line, fn.span.col)
        b = t.offset(fn.span.end_line, fn.span.end_col)
        if b <= a:
            continue
        creates = sc.creates(fn, t, a, b) + sc.via_templates(fn, t, a, b) if fn.name in _CREATING else ()
        defaults = sc.defaults(fn, t, a, b) if (fn.field_reads or fn.name in _CREATING) else ()
        called: tuple[str, ...] = ()
        required: tuple[str, ...] = ()
        if fn.name in _CREATING:
            names = dict.fromkeys(m.group(1) for m in _CALLED.finditer(t.text, a, b))
            called = tuple(n for n in names if n not in _NOT_CALLS)
            required = tuple(sorted(sc.required_names(t.text, a, b)))
        lengths = sc.lengths(fn, t, a, b) if fn.field_reads else ()
        if creates or defaults or called or lengths:
            out.append(FnContract(usr=fn.usr, qualname=fn.qualname, name=fn.name, cls=fn.cls, span=fn.span,
                                  creates=creates, defaults=defaults, called=called, required=required, lengths=lengths))
    return tuple(out)
