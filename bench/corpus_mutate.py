"""Seeded one-line defects for bench/corpus.py ``--mutate``, generated from the text census.

Each mutation is a set of line edits that keep every line where it is (a line is replaced, or text is inserted
after a method body's opening brace on its own line), so findings elsewhere keep their lines and a new finding is
a finding absent from the unmutated run (same rule, path, line and message). A mutation names the rules that
state its defect (``expected``) and the files a finding about it is located at or related to (``involved``).

Classes, per plugin and creator class the census found and per route:
``name-drift-plugin``, ``name-drift-creator`` (TRT101), ``version-drift-plugin``, ``version-drift-creator``
(TRT102), ``field-rename-creator`` (a declared field a route passes; TRT103), ``alloc-in-enqueue`` (TRT301),
``sync-in-enqueue``, ``memcpy-in-enqueue``, ``sync-in-callee``, ``memcpy-in-callee`` (TRT302), ``alloc-in-callee``
(TRT301), ``default-stream`` (TRT303),
``throw-in-noexcept`` (TRT204), ``serialize-drop`` (TRT202), ``route-name-drift`` (TRT101),
``route-version-drift`` (TRT102), ``route-field-rename`` (TRT103), ``field-type-change`` (TRT103/TRT105/TRT208/TRT609);
negatives: ``consistent-rename`` (a plugin's name renamed at its one definition, or on both sides together).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import corpus_census as cc

MARK = "Corpus"  # every seeded name carries it


@dataclass
class Mutation:
    cls: str
    edits: list  # (file, line, new line text)
    expected: tuple
    subject: str
    involved: set = field(default_factory=set)  # files the edit and its contract's other side live in (batching)
    negative: bool = False
    related: set = field(default_factory=set)  # more files a finding about it may be at (registrations)
    near: int = 0  # a route: a finding about it is within this many lines of the edit (0: anywhere in its files)
    route: str = ""  # a route edit: the plugin the route names ("" when the census cannot tell)
    why: str = ""  # a route edit not generated: why no rule can judge it (judgeable_routes)
    unjudgeable: str = ""  # set by generate: why no rule can judge the edit (judgeable_routes drops it with that why)
    route_form: str = ""  # "onnx": an emission's attribute (the parser passes declared fields only); "lookup": a
    # field list handed to createPlugin whole
    declared_field: str = ""  # field-rename-creator: the declared field renamed
    via: tuple = ()  # a hot-path edit outside enqueue (a callee's, a launch's): (file, line) of the enqueue reaching it
    others: tuple = ()  # a name or version drift: (file, class) of each class on the other side of its contract
    home: str = ""  # a name or version drift: the file the census found its class in
    use: int = 0  # a route whose name is a variable's (assigned above the node or call): the line of that use

    @property
    def file(self) -> str:
        return self.edits[0][0]

    @property
    def line(self) -> int:
        return self.edits[0][1]


# ------------------------------------------------------------------------------------------------- text helpers


def match_close(text: str, i: int, open_ch: str = "{", close_ch: str = "}") -> int:
    """Index of the bracket closing the one at ``i`` (string literals skipped); -1 when unbalanced."""
    depth = 0
    n = len(text)
    j = i
    while j < n:
        c = text[j]
        if c == '"' or c == "'":
            k = j + 1
            while k < n and text[k] != c and text[k] != "\n":
                k += 2 if text[k] == "\\" else 1
            j = k + 1
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


@dataclass
class Body:
    file: str
    open: int  # index of "{"
    close: int
    signature: str  # the text between ")" and "{"
    # a callee (:func:`callees`): the other definitions of its name in its file (one at file scope, one in a
    # namespace: the text cannot tell which the call runs, so an edit of the callee goes into each)
    siblings: tuple = ()


class Texts:
    """The tree's C++ and Python texts: raw (to edit) and comment-blanked (to search; same offsets)."""

    def __init__(self, root: Path):
        self.raw: dict[str, str] = {}
        self.code: dict[str, str] = {}
        for p, ext in cc.tree_files(root):
            if ext == ".onnx":
                continue
            t = cc.read_text(p)
            if t is None:
                continue
            rel = p.relative_to(root).as_posix()
            self.raw[rel] = t
            self.code[rel] = (_one_signature(cc.strip_cpp_comments(t)) if ext in cc.CPP_EXT
                              else cc.strip_py_comments(t))

    def line_text(self, rel: str, line: int) -> str:
        return self.raw[rel].split("\n")[line - 1]

    def n_lines(self, rel: str) -> int:
        return self.raw[rel].count("\n") + 1

    def class_body(self, rel: str, line: int) -> tuple[int, int] | None:
        code = self.code.get(rel)
        if code is None:
            return None
        start = sum(len(s) + 1 for s in code.split("\n")[: line - 1])
        i = code.find("{", start)
        if i < 0:
            return None
        j = match_close(code, i)
        return (i, j) if j > 0 else None

    def _body_after(self, rel: str, paren: int) -> Body | None:
        code = self.code[rel]
        close = match_close(code, paren, "(", ")")
        if close < 0:
            return None
        m = re.match(r"[^;{}()]*\{", code[close + 1 : close + 400])
        if not m:
            return None
        o = close + m.end()
        c = match_close(code, o)
        return Body(rel, o, c, code[close + 1 : o]) if c > 0 else None

    def methods(self, cls_name: str, cls_file: str, cls_line: int, method: str) -> list[Body]:
        """Definitions of ``cls_name::method``: inline in the class body, or out of line in any file."""
        out = []
        span = self.class_body(cls_file, cls_line)
        if span:
            code = self.code[cls_file]
            for m in re.finditer(rf"\b{re.escape(method)}\s*\(", code[span[0] + 1 : span[1]]):
                b = self._body_after(cls_file, span[0] + 1 + m.end() - 1)
                if b and b.close <= span[1]:
                    out.append(b)
                    break
        pat = re.compile(rf"\b{re.escape(cls_name)}\s*::\s*{re.escape(method)}\s*\(")
        found = []
        for rel, code in self.code.items():
            if cls_name not in code or rel.endswith(".py"):
                continue
            for m in pat.finditer(code):
                b = self._body_after(rel, m.end() - 1)
                if b:
                    found.append(b)
        # a model zoo has a class of that name in every program: keep the definitions nearest the class
        near = max((_common(b.file, cls_file) for b in found), default=0)
        return out + [b for b in found if _common(b.file, cls_file) == near]

    def pos_line(self, rel: str, pos: int) -> int:
        return self.code[rel].count("\n", 0, pos) + 1


def insert_after_brace(tx: Texts, b: Body, stmt: str) -> tuple | None:
    ln = tx.pos_line(b.file, b.open)
    raw_line = tx.line_text(b.file, ln)
    line_start = sum(len(s) + 1 for s in tx.raw[b.file].split("\n")[: ln - 1])
    col = b.open - line_start
    if col < 0 or col >= len(raw_line) or raw_line[col] != "{":
        return None
    after = _after_alternative_signature(tx.raw[b.file].split("\n"), ln)
    if after is not None:  # `#ifdef OLD sig {` `#else sig {` `#endif`: the body starts after the #endif
        return (b.file, after, stmt + " " + tx.line_text(b.file, after))
    return (b.file, ln, raw_line[: col + 1] + " " + stmt + raw_line[col + 1 :])


_ALT = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef)\b[^\n]*\n([^#]*\{[ \t]*\n)([ \t]*#[ \t]*else\b[^\n]*\n)"
                  r"([^#]*\{[ \t]*\n)([ \t]*#[ \t]*endif\b)", re.M)


def _one_signature(code: str) -> str:
    """``code`` with the ``#else`` side of each pair of alternative signatures that open one body (``#ifdef OLD``
    ``int enqueue(...) {`` ``#else`` ``int32_t enqueue(...) noexcept {`` ``#endif``) blanked, newlines kept: the
    braces then balance as they do in either build."""
    return _ALT.sub(lambda m: m.group(0)[: m.start(3) - m.start(0)] + re.sub(r"[^\n]", " ", m.group(3))
                    + m.group(4), code)


def _after_alternative_signature(lines: list[str], ln: int) -> int | None:
    """When the brace on line ``ln`` (1-based) ends one branch of an ``#if``/``#else`` pair of signatures (each
    branch opens the same body, as code written for two TensorRT releases does), the line after the ``#endif``
    that closes it, where the one body starts whatever branch the build takes; None otherwise."""
    i = ln  # index of the line after ``ln``
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or not re.match(r"\s*#\s*(else|elif)\b", lines[i]):
        return None
    depth = 0
    for j in range(i + 1, len(lines)):
        s = lines[j].strip()
        if re.match(r"#\s*if", s):
            depth += 1
        elif re.match(r"#\s*endif\b", s):
            if depth == 0:
                return j + 2 if j + 1 < len(lines) else None
            depth -= 1
    return None


def replace_return(tx: Texts, b: Body, new_expr: str) -> tuple | None:
    code = tx.code[b.file]
    m = re.compile(r"\breturn\s+([^;]+);").search(code, b.open, b.close)
    if not m or "\n" in m.group(0):
        return None
    ln = tx.pos_line(b.file, m.start())
    raw_line = tx.line_text(b.file, ln)
    if m.group(0) not in raw_line:
        return None
    return (b.file, ln, raw_line.replace(m.group(0), f"return {new_expr};", 1)), m.group(1).strip()


def rename_literal(tx: Texts, rel: str, line: int, old: str, new: str) -> tuple | None:
    raw_line = tx.line_text(rel, line)
    for q in ('"', "'"):
        if f"{q}{old}{q}" in raw_line:
            return (rel, line, raw_line.replace(f"{q}{old}{q}", f"{q}{new}{q}", 1))
    return None


KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "static_cast", "reinterpret_cast", "const_cast",
            "dynamic_cast", "decltype", "catch", "assert", "defined", "alignof", "typeid", "new", "delete"}
# words that may stand before a call's name in a statement (anything else there is a type: a declaration)
_NOT_TYPES = {"return", "else", "throw", "case", "co_return", "co_await", "do", "new", "delete", "and", "or", "not"}
LAUNCH4 = re.compile(r"<<<\s*([^<>]*?)\s*>>>")


def _drop_stream(tx: Texts, body: Body) -> tuple | None:
    """The edit dropping the stream (and shared memory) from the first four-argument kernel launch in ``body``."""
    code = tx.code[body.file]
    m = next((m for m in LAUNCH4.finditer(code, body.open, body.close) if len(_args(m.group(1))) == 4), None)
    if m is None:
        return None
    ln = tx.pos_line(body.file, m.start())
    raw_line = tx.line_text(body.file, ln)
    a = _args(m.group(1))
    if m.group(0) not in raw_line:
        return None
    return (body.file, ln, raw_line.replace(m.group(0), f"<<<{a[0]}, {a[1]}>>>", 1))


def callees(tx: Texts, b: Body, cls: tuple | None = None) -> list[Body]:
    """Host functions the body calls that are defined in the tree (first few, in order). A kernel (launched with
    ``<<<``, or defined ``__global__``) is device code, where a host allocation or synchronization is no hot-path
    defect of the kind seeded. Of several definitions of a name, the one C++ would call is taken: a member of the
    body's class ``cls`` (name, file, line), which an unqualified call in a method finds first; else the body's own
    file first (a ``static`` helper of the unit), then the nearest directory."""
    code = tx.code[b.file]
    out, seen = [], set()
    for m in re.finditer(r"(?<![\w.>:])([A-Za-z_]\w*)\s*(?:<[^<>;()]*>)?\s*(<<<|\()", code[b.open : b.close]):
        name = m.group(1)
        if name in KEYWORDS or name in seen or name.startswith(("cuda", "cublas", "cudnn", "std", "PLUGIN", "ASSERT")):
            continue
        at = b.open + m.start(1)  # (m is of the body's slice)
        before = re.search(r"([\w>]+)\s*$", code[max(b.open + 1, at - 80) : at])
        if before and (before.group(1).endswith(">") or before.group(1) not in _NOT_TYPES) and not before.group(1).isdigit():
            continue  # a variable declared with constructor arguments (`std::vector<int64_t> shape(n)`), no call
        seen.add(name)
        if m.group(2) == "<<<":
            continue
        own = tx.methods(*cls, name) if cls else []
        if own:  # (class scope before namespace scope: a member of that name hides every free function)
            out.append(own[0])
            if len(out) >= 3:
                break
            continue
        defn = re.compile(rf"(?m)^[^\n;#]*?\b[\w:<>*&]+[\s*&]+{re.escape(name)}\s*\(")
        found = []
        for rel, c in tx.code.items():
            if name not in c or rel.endswith(".py"):
                continue
            here = []
            for d in defn.finditer(c):
                head = c[max(c.rfind(";", 0, d.start()), c.rfind("}", 0, d.start()), 0) : d.end()]
                if "__global__" in head:
                    continue
                body = tx._body_after(rel, d.end() - 1)
                if body and not (here and body.open < here[-1].close):  # (a definition inside the previous one: no)
                    here.append(body)
            if here:
                found.append(dataclasses.replace(here[0], siblings=tuple(here[1:])))
        if found:
            out.append(max(found, key=lambda x: (x.file == b.file, _common(x.file, b.file))))
        if len(out) >= 3:
            break
    return out


# --------------------------------------------------------------------------------------------------- generation

NAME_METHODS = ("getPluginType", "getPluginName")


def generate(root: Path, items: list, tx: Texts | None = None) -> list[Mutation]:
    tx = tx or Texts(Path(root))
    muts: list[Mutation] = []
    route_names = {it.name for it in items if it.kind in ("emission", "lookup", "onnx-node")}
    # a route's fields: Python ones anywhere (a sample's script beside its plugin), C++ ones outside creators' directories
    route_fields = {it.name for it in items if it.kind == "field" and it.extra.get("side") != "class"
                    and (it.extra.get("lang") == "py" or not _creator_dir(it.file, items, tx))}
    route_fields |= {a for it in items if it.kind == "emission" for a in emission_attrs(tx, it)}
    classes = [it for it in items if it.kind in ("plugin-class", "creator-class") and it.file in tx.code]
    muts_before = len(muts)
    for it in classes:
        mates = {m.file for m in classes if counterpart(it, m)}
        others = tuple(sorted((m.file, m.name) for m in classes if counterpart(it, m)))
        regs = {r.file for r in items if r.kind == "registration" and r.name in {it.name} | {m.name for m in classes if counterpart(it, m)}}
        inv = {it.file} | mates
        side = "plugin" if it.kind == "plugin-class" else "creator"
        names = NAME_METHODS if side == "plugin" else ("getPluginName",)
        # a plugin class with no creator beside it that nothing in the tree makes (a binding's trampoline whose
        # name and version come from Python at run time): a drift of its name has no other side any rule can see
        unmade = side == "plugin" and not others and not _made(tx, it.name)
        for meth in names:
            for b in tx.methods(it.name, it.file, it.line, meth):
                r = replace_return(tx, b, f'"{MARK}Drift{it.name}"')
                if r:
                    muts.append(Mutation(f"name-drift-{side}", [r[0]], ("TRT101",), it.name, inv | {b.file},
                                         others=others, home=it.file, unjudgeable=WHY_UNMADE if unmade else ""))
                    break
            else:
                continue
            break
        for b in tx.methods(it.name, it.file, it.line, "getPluginVersion"):
            r = replace_return(tx, b, '"987"')
            if r:
                muts.append(Mutation(f"version-drift-{side}", [r[0]], ("TRT102",), it.name, inv | {b.file},
                                     others=others, home=it.file, unjudgeable=WHY_UNMADE if unmade else ""))
                break
        if side == "creator":
            f = _declared_field(tx, it, items, route_fields)
            e = f and rename_literal(tx, f.file, f.line, f.name, f.name + MARK)
            if e:
                muts.append(Mutation("field-rename-creator", [e], ("TRT103",), it.name, inv | {f.file}, declared_field=f.name))
            continue
        enq = tx.methods(it.name, it.file, it.line, "enqueue")
        if enq:
            b = enq[0]
            for cls_, stmt, rule in (
                ("alloc-in-enqueue", f"void* {MARK}P = nullptr; cudaMalloc(&{MARK}P, 64);", "TRT301"),
                ("sync-in-enqueue", "cudaDeviceSynchronize();", "TRT302"),
                ("memcpy-in-enqueue", f"static char {MARK}H[4]; void* {MARK}D = nullptr; cudaMemcpy({MARK}H, {MARK}D, 4, cudaMemcpyDeviceToHost);", "TRT302"),
            ):
                e = insert_after_brace(tx, b, stmt)
                if e:
                    muts.append(Mutation(cls_, [e], (rule,), it.name, inv | {b.file}))
            cal = callees(tx, b, (it.name, it.file, it.line))
            if cal:
                for cls_, stmt, rule in (
                    ("sync-in-callee", "cudaDeviceSynchronize();", "TRT302"),
                    ("alloc-in-callee", f"void* {MARK}P = nullptr; cudaMalloc(&{MARK}P, 64);", "TRT301"),
                    ("memcpy-in-callee", f"static char {MARK}H[4]; void* {MARK}D = nullptr; cudaMemcpy({MARK}H, {MARK}D, 4, cudaMemcpyDeviceToHost);", "TRT302"),
                ):
                    e = insert_after_brace(tx, cal[0], stmt)
                    if e:
                        more = [x for x in (insert_after_brace(tx, sib, stmt) for sib in cal[0].siblings) if x]
                        muts.append(Mutation(cls_, [e] + more, (rule,), it.name, inv | {b.file, cal[0].file},
                                             via=(b.file, tx.pos_line(b.file, b.open))))
            for body in [b] + cal:
                e = _drop_stream(tx, body)
                if e:
                    # (a callee defined twice in its file: the same edit in each definition, as for the callee edits)
                    more = [x for x in (_drop_stream(tx, sib) for sib in body.siblings) if x]
                    muts.append(Mutation("default-stream", [e] + more, ("TRT303",), it.name, inv | {b.file, body.file},
                                         via=(b.file, tx.pos_line(b.file, b.open))))
                    break
        for meth in ("getNbOutputs", "getSerializationSize", "getOutputDataType", "getNbOutputs", "clone", "enqueue"):
            bs = [x for x in tx.methods(it.name, it.file, it.line, meth) if "noexcept" in x.signature]
            if bs:
                e = insert_after_brace(tx, bs[0], "throw 1;")
                if e:
                    muts.append(Mutation("throw-in-noexcept", [e], ("TRT204",), it.name, inv | {bs[0].file}))
                    break
        for b in tx.methods(it.name, it.file, it.line, "serialize"):
            e = drop_write(tx, b)
            if e:
                muts.append(Mutation("serialize-drop", [e], ("TRT202",), it.name, inv | {b.file}))
                break
        for m in muts[muts_before:]:
            if m.subject == it.name:
                m.related |= regs
    muts.extend(route_mutations(tx, items))
    muts.extend(negatives(tx, items, classes, route_names))
    return muts


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(Path(a).parent.parts, Path(b).parent.parts):
        if x != y:
            break
        n += 1
    return n


def _stem(name: str) -> str:
    n = name.lower()
    for suf in ("creator", "plugin", "dynamic", "ext", "v2", "v3", "layer", "_trt", "trt", "_"):
        if n.endswith(suf):
            n = n[: -len(suf)]
    return n


def _made(tx: Texts, cls: str) -> bool:
    """Whether some C++ text of the tree makes an object of class ``cls`` (``new cls``, ``make_unique<cls>``,
    ``make_shared<cls>``, namespace-qualified or not)."""
    rx = re.compile(rf"(?:\bnew\s+|make_(?:unique|shared)\s*<\s*)(?:\w+::)*{re.escape(cls)}\b")
    return any(cls in c and rx.search(c) for rel, c in tx.code.items() if not rel.endswith(".py"))


def counterpart(a, b) -> bool:
    """``b`` is the other side of ``a``'s contract: declared in the same file, or a plugin and creator whose
    names agree once their suffixes (Plugin, Creator, Dynamic, ...) are dropped."""
    if a is b or a.kind == b.kind:
        return False
    if a.file == b.file:
        return True
    pa, pb = Path(a.file).parent, Path(b.file).parent
    if not (pa == pb or pa.parent == pb or pb.parent == pa):
        return False  # another program's class of the same name
    sa, sb = _stem(_stem(_stem(a.name))), _stem(_stem(_stem(b.name)))
    return bool(sa) and sa == sb


def _args(s: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


WRITE_RE = re.compile(r"^\s*(?:\w+(?:::\w+)*\s*\(\s*\w+\s*,|write\w*\s*\(|serialize_value\s*\(|\*\s*reinterpret_cast|memcpy\s*\(|std::memcpy\s*\(|\w+\.write\s*\()")


def drop_write(tx: Texts, b: Body) -> tuple | None:
    code = tx.code[b.file]
    first = tx.pos_line(b.file, b.open) + 1
    last = tx.pos_line(b.file, b.close) - 1
    lines = code.split("\n")
    for ln in range(first, last + 1):
        s = lines[ln - 1]
        if s.count(";") == 1 and s.rstrip().endswith(";") and WRITE_RE.match(s) and "return" not in s:
            if re.search(r"\b(write|serialize|memcpy|reinterpret_cast)", s):
                return (b.file, ln, "")
    return None


def _declared_field(tx: Texts, it, items, route_fields: set):
    """A field the creator ``it`` declares that some route passes: a literal ``PluginField`` of its directory written
    in its constructor, else one whose data is ``nullptr`` (a declaration, not a plugin's serialized field). The
    field must concern this creator: its ``createPlugin`` reads it by name, or a route to the plugin the creator
    names passes it (a field some other creator's route passes, never read here and passed to no route of this
    one, is renamed with no drift any rule could see)."""
    mine = _read_fields(tx, it) | _passed_fields(tx, it, items)
    member = re.compile(rf"\b{re.escape(it.name)}\s*::")
    cands = [f for f in items if f.kind == "field" and f.name in route_fields and f.name in mine and f.extra.get("literal")
             and (str(Path(f.file).parent) == str(Path(it.file).parent) or member.search(tx.code.get(f.file, "")))]
    ctor = [(b.file, tx.pos_line(b.file, b.open), tx.pos_line(b.file, b.close)) for b in tx.methods(it.name, it.file, it.line, it.name)]
    inside = [f for f in cands if any(f.file == fl and a <= f.line <= z for fl, a, z in ctor)]
    decl = [f for f in cands if re.search(r"PluginField\s*\(\s*[\"'][^\"']*[\"']\s*,\s*(nullptr|NULL|0)\s*[,)]",
                                          tx.line_text(f.file, f.line))]
    return (inside or decl or [None])[0]


def _read_fields(tx: Texts, it) -> set[str]:
    """The quoted names in the creator's ``createPlugin`` bodies (``strcmp(fields[i].name, "scalar")``)."""
    out: set[str] = set()
    for b in tx.methods(it.name, it.file, it.line, "createPlugin"):
        out.update(re.findall(r"\"(\w+)\"", tx.raw[b.file][b.open : b.close]))
    return out


def _plugin_names(tx: Texts, it) -> set[str]:
    """The plugin name the creator's ``getPluginName`` returns: a literal, or a constant's literal definition."""
    out: set[str] = set()
    for b in tx.methods(it.name, it.file, it.line, "getPluginName"):
        r = replace_return(tx, b, "X")
        if not r:
            continue
        expr = r[1]
        lit = re.fullmatch(r"\"(\w+)\"", expr)
        if lit:
            out.add(lit.group(1))
            continue
        if not re.fullmatch(r"[\w:]+", expr):
            continue
        name = expr.split("::")[-1]
        defs = [(rel, v) for rel, code in tx.code.items() if name in code and not rel.endswith(".py")
                for v in re.findall(rf"(?:#\s*define\s+{name}\s+|\b{name}\s*(?:\[\s*\])?\s*(?:=|\{{)\s*)\"(\w+)\"",
                                    tx.raw[rel])]
        # the definition the creator's unit sees: its own file's, else the nearest directory's (samples of one tree
        # each define their own PLUGIN_NAME)
        near = max(((rel == b.file, _common(rel, b.file)) for rel, _v in defs), default=None)
        out.update(v for rel, v in defs if (rel == b.file, _common(rel, b.file)) == near)
    return out


def _passed_fields(tx: Texts, it, items) -> set[str]:
    """The fields the routes to the creator's plugin pass: field lists of a file whose lookup names it, and the
    attributes of emissions of it."""
    names = _plugin_names(tx, it)
    if not names:
        return set()
    out = {f.name for f in items if f.kind == "field" and f.extra.get("side") != "class" and _lookup_of(f, items) in names}
    out |= {a for e in items if e.kind == "emission" and e.name in names for a in emission_attrs(tx, e)}
    return out


def _creator_dir(rel: str, items, tx: "Texts | None" = None) -> bool:
    """A file of a plugin's or creator's own side: in the folder of such a class, or (``tx`` given) defining a
    member of a creator class declared elsewhere (``FooCreator::FooCreator()`` in src/ for a class in include/):
    its field list is the creator's declaration, not a route's."""
    d = str(Path(rel).parent)
    if any(i.kind in ("creator-class", "plugin-class") and str(Path(i.file).parent) == d for i in items):
        return True
    code = tx.code.get(rel) if tx is not None else None
    return bool(code) and any(i.kind == "creator-class" and re.search(rf"\b{re.escape(i.name)}\s*::", code)
                              for i in items)


def emission_attrs(tx: Texts, it) -> list[str]:
    """Attribute names written at an emission (keyword arguments of g.op/make_node, gs.Node attrs keys)."""
    code = tx.code.get(it.file)
    if code is None:
        return []
    start = sum(len(s) + 1 for s in code.split("\n")[: it.line - 1])
    call = cc.call_text(code, start)
    if it.extra.get("form") in ("gs.Node", "graph.layer"):
        m = re.search(r"\battrs\s*=\s*\{([^{}]*)\}", call)
        return re.findall(r"[\"'](\w+)[\"']\s*:", m.group(1)) if m else []
    skip = {"domain", "outputs", "inputs", "name", "op_type", "plugin_version", "plugin_namespace", "doc_string"}
    return [re.sub(r"_[ifst]$", "", k) for k in re.findall(r"[,(]\s*(\w+)\s*=(?!=)", call) if k not in skip]


ROUTE_NEAR = 20


def route_mutations(tx: Texts, items) -> list[Mutation]:
    """Per route: its name and version drifted; per file, one field renamed and one field's type changed (the
    other fields of a list are the same edit again)."""
    out = []
    once: set[tuple[str, str]] = set()

    def first(cls_: str, rel: str) -> bool:
        if (cls_, rel) in once:
            return False
        once.add((cls_, rel))
        return True

    for it in items:
        if it.file not in tx.code:
            continue
        if it.kind in ("emission", "lookup") and it.name != "?":
            ln = _assignment_line(tx, it) if it.extra.get("via") else it.line
            e = ln and (rename_literal(tx, it.file, ln, it.name, it.name + MARK) or
                        rename_literal(tx, it.file, ln, _with_domain(tx, it), _with_domain(tx, it) + MARK))
            if e:
                out.append(Mutation("route-name-drift", [e], ("TRT101", "TRT501"), it.name, {it.file}, near=ROUTE_NEAR,
                                    route=it.name, use=it.line if ln != it.line else 0))
        if it.kind == "lookup" and it.extra.get("form") in ("getPluginCreator", "get_plugin_creator", "getCreator", "get_creator"):
            raw_line = tx.line_text(it.file, it.line)
            m = re.search(r"[\"']" + re.escape(it.name) + r"[\"']\s*,\s*([\"'])(\w+)\1", raw_line)
            if m:
                new = raw_line[: m.start(2)] + "987" + raw_line[m.end(2) :]
                out.append(Mutation("route-version-drift", [(it.file, it.line, new)], ("TRT102",), it.name, {it.file},
                                    near=ROUTE_NEAR, route=it.name))
        if it.kind == "emission":
            attrs = emission_attrs(tx, it)
            if attrs and first("route-field-rename", it.file):
                ln, e = _find_attr_line(tx, it, attrs[0])
                if e:
                    out.append(Mutation("route-field-rename", [e], ("TRT103",), it.name, {it.file}, near=ROUTE_NEAR,
                                        route=it.name, route_form="onnx"))
        if it.kind == "field" and it.extra.get("literal") and (it.extra.get("lang") == "py" or not _creator_dir(it.file, items, tx)):
            # a Python plugin's or creator's own field list (its serialized fields, its ``field_names``) is not
            # a route: its fields are the creator's side, which no seeded route edit renames
            e = None
            if it.extra.get("side") != "class":  # the name may be on a line of its own below ``trt.PluginField(``
                e = next((r for ln in range(it.line, it.line + 3) if ln <= tx.n_lines(it.file)
                          for r in [rename_literal(tx, it.file, ln, it.name, it.name + MARK)] if r), None)
            if e and first("route-field-rename", it.file):
                out.append(Mutation("route-field-rename", [e], ("TRT103",), it.name, {it.file}, near=ROUTE_NEAR,
                                    route=_lookup_of(it, items), route_form="lookup"))
            raw_line = tx.line_text(it.file, it.line)
            swap = _type_swap(raw_line)
            if swap and first("field-type-change", it.file):
                # the route of the file it is for: never batched with another edit of that route (a lookup's name
                # drifted, or its field renamed, hides the field's type)
                out.append(Mutation("field-type-change", [(it.file, it.line, swap)], ("TRT103", "TRT105", "TRT208", "TRT609"), it.name, {it.file},
                                    near=ROUTE_NEAR, route=_lookup_of(it, items)))
    return out


def _lookup_of(field_item, items) -> str:
    """The plugin a field list of a file is for: the name of the file's lookup nearest before it (else the
    nearest after it); "" when that lookup's name is computed or the file has none."""
    lks = [i for i in items if i.kind == "lookup" and i.file == field_item.file]
    if not lks:
        return ""
    before = [i for i in lks if i.line <= field_item.line]
    lk = max(before, key=lambda i: i.line) if before else min(lks, key=lambda i: i.line)
    return "" if lk.dynamic else lk.name


def _assignment_line(tx: Texts, it) -> int | None:
    """The line of the last ``var = "Op"`` before an emission that names its op by a variable."""
    lines = tx.code[it.file].split("\n")
    for ln in range(it.line, max(0, it.line - 80), -1):
        if re.match(rf"\s*{re.escape(it.extra['via'])}\s*=\s*[rbuf]?[\"']{re.escape(it.name)}[\"']", lines[ln - 1]):
            return ln
    return None


def _with_domain(tx, it) -> str:
    m = re.search(r"[\"'](\w[\w.]*::" + re.escape(it.name) + r")[\"']", tx.line_text(it.file, it.line))
    return m.group(1) if m else "\0"


def _find_attr_line(tx: Texts, it, attr: str):
    lines = tx.raw[it.file].split("\n")
    for ln in range(it.line, min(len(lines), it.line + 15) + 1):
        s = lines[ln - 1]
        for pat in (rf"\b{attr}(_[ifst])?\s*=(?!=)", rf"([\"']){attr}\1\s*:"):
            m = re.search(pat, s)
            if m:
                i = s.index(attr, m.start())
                return ln, (it.file, ln, s[:i] + attr + MARK + s[i + len(attr) :])
    return None, None


TYPE_SWAPS = [("PluginFieldType::kFLOAT32", "PluginFieldType::kINT32"), ("PluginFieldType::kINT32", "PluginFieldType::kFLOAT32"),
              ("PluginFieldType.FLOAT32", "PluginFieldType.INT32"), ("PluginFieldType.INT32", "PluginFieldType.FLOAT32")]


def _type_swap(line: str) -> str | None:
    for a, b in TYPE_SWAPS:
        if a in line and re.search(r"(nullptr|NULL|None)\s*,", line) is None:
            return line.replace(a, b, 1)
    return None


def negatives(tx: Texts, items, classes, route_names) -> list[Mutation]:
    """A plugin renamed consistently: both sides return one literal (both edited together) or one constant (its
    definition edited); skipped when a route names the plugin (that would be a true drift)."""
    out = []
    by_dir: dict[str, dict[str, list]] = {}
    for it in classes:
        by_dir.setdefault(str(Path(it.file).parent), {}).setdefault(it.kind, []).append(it)
    for d, sides in by_dir.items():
        if len(sides.get("plugin-class", [])) != 1 or len(sides.get("creator-class", [])) != 1:
            continue
        p, c = sides["plugin-class"][0], sides["creator-class"][0]
        rp = next((r for m in NAME_METHODS for b in tx.methods(p.name, p.file, p.line, m) for r in [replace_return(tx, b, "X")] if r), None)
        rc = next((r for b in tx.methods(c.name, c.file, c.line, "getPluginName") for r in [replace_return(tx, b, "X")] if r), None)
        if not rp or not rc or rp[1] != rc[1]:
            continue
        expr = rp[1]
        lit = re.fullmatch(r"\"(\w+)\"", expr)
        if lit:
            if lit.group(1) in route_names:
                continue
            new = f'"{lit.group(1)}{MARK}"'
            # (replace_return wrote `return X;`: the placeholder becomes the renamed literal on both sides)
            e1 = (rp[0][0], rp[0][1], rp[0][2].replace("return X;", f"return {new};", 1))
            e2 = (rc[0][0], rc[0][1], rc[0][2].replace("return X;", f"return {new};", 1))
            if e1[:2] != e2[:2]:
                out.append(Mutation("consistent-rename", [e1, e2], (), p.name, {e1[0], e2[0], p.file, c.file}, negative=True))
            continue
        ident = re.fullmatch(r"[\w:]+", expr)
        if not ident:
            continue
        name = expr.split("::")[-1]
        defs = []
        for rel, code in tx.code.items():
            if name not in code or rel.endswith(".py"):
                continue
            for m in re.finditer(rf"(?:#\s*define\s+{name}\s+|\b{name}\s*(?:\[\s*\])?\s*(?:=|\{{)\s*)\"(\w+)\"", code):
                defs.append((rel, tx.pos_line(rel, m.start()), m.group(1)))
        if len(defs) != 1 or defs[0][2] in route_names:
            continue
        e = rename_literal(tx, defs[0][0], defs[0][1], defs[0][2], defs[0][2] + MARK)
        if e:
            out.append(Mutation("consistent-rename", [e], (), p.name, {e[0], p.file, c.file}, negative=True))
    return out


# ------------------------------------------------------------------------------------------------------ running


def batches(muts: list[Mutation]) -> list[list[Mutation]]:
    """Mutations grouped so that no two in a group touch or relate to the same file (route edits: the same
    stretch of a file, or the same route of a file); route edits, class edits and negatives in separate groups."""
    groups: list[list[Mutation]] = []
    for family in ("class", "route", "negative"):
        todo = [m for m in muts if _family(m) == family]
        while todo:
            used: set[str] = set()
            spots: list[tuple[str, int, int]] = []
            routes: set[tuple[str, str]] = set()  # (file, plugin) of the route edits taken
            group, rest = [], []
            for m in todo:
                if m.near:  # a route edit: apart from the others of its file by more than twice its reach, and
                    # never with another edit of the same route (a lookup's name drifted unresolves its fields)
                    at = (m.line, m.use) if m.use else (m.line,)
                    clash = (any(f == m.file and abs(ln - x) <= n + m.near for f, ln, n in spots for x in at) or m.file in used
                             or (m.route and (m.file, m.route) in routes))
                else:
                    clash = bool(m.involved & used) or any(f in m.involved for f, _l, _n in spots)
                if clash:
                    rest.append(m)
                else:
                    group.append(m)
                    if m.near:
                        spots.append((m.file, m.line, m.near))
                        if m.use:
                            spots.append((m.file, m.use, m.near))
                        if m.route:
                            routes.add((m.file, m.route))
                    else:
                        used |= m.involved
            groups.append(group)
            todo = rest
    return groups


def _family(m: Mutation) -> str:
    return "negative" if m.negative else ("route" if m.cls.startswith(("route-", "field-type")) else "class")


def link_copy(src: Path, dst: Path) -> None:
    """``dst``: ``src`` with every file hard-linked (a copy where links fail); its .trtlint_cache copied."""
    shutil.rmtree(dst, ignore_errors=True)
    for dirpath, dirnames, filenames in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        if rel.parts and rel.parts[0] == ".trtlint_cache":
            continue
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for fn in filenames:
            try:
                os.link(Path(dirpath) / fn, dst / rel / fn)
            except OSError:
                shutil.copy2(Path(dirpath) / fn, dst / rel / fn)
    if (src / ".trtlint_cache").is_dir():
        shutil.copytree(src / ".trtlint_cache", dst / ".trtlint_cache", dirs_exist_ok=True)


def apply(root: Path, edits: list) -> dict[str, str]:
    """Apply line edits in ``root`` (each edited file unlinked first, so a hard-linked original is untouched);
    return the original texts to restore."""
    saved: dict[str, str] = {}
    by_file: dict[str, list] = {}
    for f, ln, new in edits:
        by_file.setdefault(f, []).append((ln, new))
    for f, es in by_file.items():
        p = root / f
        raw = p.read_bytes().decode("utf-8", "surrogateescape")
        saved[f] = raw
        lines = raw.split("\n")
        for ln, new in es:
            lines[ln - 1] = new
        p.unlink()
        p.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
    return saved


def restore(root: Path, saved: dict[str, str]) -> None:
    for f, raw in saved.items():
        p = root / f
        p.unlink()
        p.write_bytes(raw.encode("utf-8", "surrogateescape"))


def _keyset(diags, unmark: bool = False) -> set:
    """Findings by rule, place and message; ``unmark``: the seeded marker taken out of the message (for a
    consistent rename, a finding of the unmutated run that now names the renamed plugin is the same finding)."""
    return {(d["code"], d["location"]["path"], d["location"]["line"], _unmark(d["message"]) if unmark else d["message"])
            for d in diags}


def _unmark(msg: str) -> str:
    return re.sub(rf"{MARK}Drift|{MARK}", "", msg)


def _places(d) -> list:
    return [(d["location"]["path"], d["location"]["line"])] + [(r["location"]["path"], r["location"]["line"]) for r in d.get("related") or []]


def _paths(d) -> set:
    return {d["location"]["path"]} | {r["location"]["path"] for r in d.get("related") or []}


def judge(group: list[Mutation], base: list, rep: dict | None) -> list[dict]:
    """One row per mutation of a batch: found (a finding of an expected rule, absent from the unmutated run
    ``base``, located at or related to one of its involved files) or, for a negative, flagged (any new finding
    there, the renamed name aside)."""
    raw, unmarked = _keyset(base), _keyset(base, unmark=True)
    diags = (rep or {}).get("diagnostics", [])
    rows = []
    for m in group:
        keys, um = (unmarked, True) if m.negative else (raw, False)
        new = [d for d in diags if next(iter(_keyset([d], um))) not in keys]
        if m.near:
            # near the edit, or (a name assigned to a variable above its route) near the route that uses it
            mine = [d for d in new if any(p == m.file and (abs(ln - m.line) <= m.near or (m.use and abs(ln - m.use) <= m.near))
                                          for p, ln in _places(d))]
        else:
            mine = [d for d in new if _paths(d) & (m.involved | m.related)]
        row = {"class": m.cls, "file": m.file, "line": m.line, "subject": m.subject,
               "expected": "/".join(m.expected), "run_failed": rep is None}
        if m.negative:
            row.update(flagged=bool(mine), new=[f"{d['code']} {d['location']['path']}:{d['location']['line']}" for d in mine][:5])
        else:
            hit = [d for d in mine if d["code"] in m.expected]
            row.update(found=bool(hit), other_new=sorted({d["code"] for d in mine if d["code"] not in m.expected}))
        rows.append(row)
    return rows


ROUTE_CLASSES = ("route-name-drift", "route-version-drift", "route-field-rename")
WHY_UNKNOWN = "unknown-plugin"
WHY_TEST = "test-file"
WHY_FIELDLESS = "creator-declares-no-fields"
WHY_POSITIONAL = "creator-reads-fields-by-position"
WHY_ASIDE = "code-not-built"
WHY_OLD = "old-release-only"
WHY_OPTIONAL = "marked-optional-build"


def old_release_classes(report: dict | None) -> set:
    """(file, class) of the plugin classes (and the creators that make only them) the run set aside and named in
    its summary as code only older TensorRT releases create (``old_release_plugins_not_judged``): an edit of them
    is not judgeable."""
    an = ((report or {}).get("summary") or {}).get("analysis") or {}
    return {(f, c) for o in an.get("old_release_plugins_not_judged") or [] if isinstance(o, dict)
            for f in o.get("files") or [] for c in [o.get("plugin"), *(o.get("creators") or [])] if c}
WHY_UNANALYSED = "class-not-analysed"
WHY_EXCLUDED = "excluded-by-profile"
WHY_UNCOMPILED = "branch-not-compiled"
WHY_UNMADE = "plugin-no-creator-makes"  # a plugin class no creator beside it and no code of the tree makes
# TRT004's words for plugin code in a preprocessor branch the run's parse skipped, naming the branch's directive
_NOT_COMPILED = re.compile(r"in a preprocessor branch this run does not compile \(`[^`]*` at line (\d+)\)")
_PP = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")


def branch_extent(lines: list[str], first: int) -> tuple[int, int]:
    """(first, last) line of the preprocessor branch whose directive (``#if``, ``#elif``, ``#else``) is on line
    ``first`` (1-based): up to the ``#elif``/``#else``/``#endif`` that ends it at its own depth (the file's end when
    none does)."""
    depth = 0
    for n in range(first + 1, len(lines) + 1):
        m = _PP.match(lines[n - 1])
        if not m:
            continue
        kind = m.group(1)
        if kind in ("if", "ifdef", "ifndef"):
            depth += 1
        elif depth == 0:
            return first, n
        elif kind == "endif":
            depth -= 1
    return first, len(lines)


def uncompiled_branches(report: dict | None, root: Path) -> dict[str, list[tuple[int, int]]]:
    """Per file, the (first, last) lines of each preprocessor branch a TRT004 finding of the run names as not
    compiled (``... is in a preprocessor branch this run does not compile (`#if NV_TENSORRT_MAJOR <= 7` at line
    4)``): no rule sees the code there, nor what it calls from there."""
    got: dict[str, list[tuple[int, int]]] = {}
    for d in (report or {}).get("diagnostics", []):
        m = _NOT_COMPILED.search(d.get("message", "")) if d.get("code") == "TRT004" else None
        if not m:
            continue
        path = d["location"]["path"]
        text = cc.read_text(Path(root) / path)
        if text is not None:
            got.setdefault(path, []).append(branch_extent(text.split("\n"), int(m.group(1))))
    return got


def in_uncompiled(m: Mutation, branches: dict[str, list[tuple[int, int]]]) -> bool:
    """Whether an edit of ``m``, or the enqueue a hot-path edit outside it is reached from (``Mutation.via``), is in
    a branch of ``branches`` (:func:`uncompiled_branches`)."""
    places = [(f, ln) for f, ln, _t in m.edits] + ([m.via] if m.via else [])
    return any(a <= ln <= b for f, ln in places for a, b in branches.get(f, ()))


def excluded_by_profile(report: dict | None):
    """A predicate on a file: kept out of the run by the detected profile's exclude patterns, which the run names
    (``project.excluded_by_profile``: folders with a trailing slash, and files)."""
    ex = tuple(((report or {}).get("project") or {}).get("excluded_by_profile") or ())
    return lambda f: any(f == e or (e.endswith("/") and f.startswith(e)) for e in ex)


def unanalysed_classes(report: dict | None, kind: str = "") -> set:
    """(folder, class) of each class a TRT004 finding of the run says it does not analyse (``plugin X derives from
    IPluginExt, a plugin interface of TensorRT 5-7``, ``... did not resolve``): no rule checks it, by design.
    ``kind`` ("plugin", "creator", "class"): only the classes the message names as that."""
    got = set()
    for d in (report or {}).get("diagnostics", []):
        if d["code"] == "TRT004":
            # every class the message's subject names ("plugin A and plugin B derive from ..."), with its folder:
            # the class's methods are often defined in a unit beside the header the finding is in
            head = re.split(r" (?:derives?|did|does|is|are) ", d["message"], maxsplit=1)[0]
            folder = str(Path(d["location"]["path"]).parent)
            for m in re.finditer(r"\b(plugin|creator|class)e?s? ([\w:]+)", head):
                if not kind or m.group(1) == kind:
                    got.add((folder, m.group(2).rsplit("::", 1)[-1]))
    return got


def other_side_unanalysed(m: Mutation, unseen: set, creators: set = frozenset()) -> bool:
    """Whether ``m`` is a name or version drift whose contract's other side is all in classes the run names as not
    analysed: the drifted side has nothing to be compared with, and the run says why (TRT004). The other side is
    ``Mutation.others`` (the plugin's creators, the creator's plugins the census found; each in
    :func:`unanalysed_classes`' ``unseen``); a plugin with none there (the census lists classes deriving a TensorRT
    interface by name, not a creator deriving a base from a header the tree lacks) has it in a creator a TRT004
    finding names in the plugin's own folder (``creators``: :func:`unanalysed_classes` with ``kind="creator"``)."""
    if not m.cls.startswith(("name-drift-", "version-drift-")):
        return False
    if m.others:
        return all((str(Path(f).parent), c) in unseen for f, c in m.others)
    return m.cls.endswith("-plugin") and bool(m.home) and any(d == str(Path(m.home).parent) for d, _c in creators)


def set_aside_files(report: dict | None) -> set:
    """The files whose findings the run set aside and named in its summary, as code no build compiles: headers no
    unit includes, and the files of a program whose Makefile cannot run."""
    an = ((report or {}).get("summary") or {}).get("analysis") or {}
    got = {h["path"] for h in an.get("unincluded_headers_not_judged") or [] if isinstance(h, dict)}
    got.update(f for b in an.get("unrunnable_builds_not_judged") or [] if isinstance(b, dict) for f in b.get("files") or [])
    return got


def optional_build_files(report: dict | None) -> set:
    """The files whose findings the run set aside and named as built only with a build option the project marks
    experimental or deprecated (``judge-optional-builds``)."""
    an = ((report or {}).get("summary") or {}).get("analysis") or {}
    return {f for b in an.get("optional_builds_not_judged") or [] if isinstance(b, dict) for f in b.get("files") or []}


def _is_test_path(path: str) -> bool:
    """trtlint's own test-file rule (the route rules do not judge tests: ``Rule.applies_to_tests``)."""
    import sys

    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    from trtlint.index.project_index import is_test_path

    return is_test_path(path)


def judgeable_routes(muts: list, known: set | None, fielded: set | None = None,
                     named: set | None = None, sites: dict | None = None) -> tuple[list, list]:
    """The mutations, without the route edits no rule can judge, each dropped with its reason (``why``):

    - ``unknown-plugin``: the route (``Mutation.route``: an emission's op, a lookup's name) names a plugin no
      creator of the tree registers and TensorRT's own plugin library does not ship (``known``: those names; None:
      not known, nothing dropped): such a route is unresolved before the edit already (a vendored op, a plugin built
      elsewhere), so renaming it or a field of it changes nothing any rule can see; a renamed field of a list whose
      lookup the text census did not name (a helper's call, ``get_trt_plugin("layer_norm", fc, "1")``) goes to the
      plugins the run's index hands that list to (``sites``: file -> [(plugin, its fields)], from --dump-index's
      lookup_sites), dropped when none of them is known;
    - ``test-file``: a route in a test file, which trtlint's route rules leave out by design (a test's stub or
      fake-op model is no route);
    - ``creator-declares-no-fields``: an ONNX emission's attribute renamed where no creator of its plugin declares a
      field (``fielded``: the plugin names some creator of which declares fields, TensorRT's own included): the
      ONNX parser passes a creator only the fields it declares, so that node's attributes never arrive, renamed or not.
    - ``creator-reads-fields-by-position``: a field renamed in a list handed to ``createPlugin`` whole (a lookup
      route) where no creator of its plugin declares a field or reads one by name (``named``: the plugin names some
      creator of which does, TensorRT's own included): its ``createPlugin`` takes ``fields[0]``, ``fields[1]``...,
      so the names are not part of the contract and the renamed one is no defect.

    - ``plugin-no-creator-makes``: (set by :func:`generate`) a name or version drift of a plugin class no creator
      beside it names and no code of the tree makes (``new``, ``make_unique``): a binding's trampoline whose name
      and version come from Python at run time, with no other side for a rule to compare.

    Returns (kept, dropped); a dropped mutation carries ``why``."""
    kept, dropped = [], []
    for m in muts:
        why = None
        if m.unjudgeable:  # (set where it was generated: WHY_UNMADE)
            why = m.unjudgeable
        elif not m.negative and m.cls in ROUTE_CLASSES and _is_test_path(m.file):
            why = WHY_TEST
        elif known is not None and m.route and m.route not in known and not m.negative:
            why = WHY_UNKNOWN
        elif (known is not None and sites is not None and m.cls == "route-field-rename" and m.route_form == "lookup"
              and not m.route and not m.negative):
            to = {name for name, fields in sites.get(m.file, ()) if m.subject in fields}
            if to and not to & known:
                why = WHY_UNKNOWN
        elif (fielded is not None and m.cls == "route-field-rename" and m.route_form == "onnx" and m.route
              and m.route not in fielded):
            why = WHY_FIELDLESS
        elif (named is not None and m.cls == "route-field-rename" and m.route_form == "lookup" and m.route
              and m.route not in named):
            why = WHY_POSITIONAL
        if why is None:
            kept.append(m)
        else:
            m.why = why
            dropped.append(m)
    return kept, dropped


def run_mutations(root: Path, items, _baseline, jobs, check, known: set | None = None,
                  fielded: set | None = None, named: set | None = None,
                  sites: dict | None = None) -> tuple[list, list, float, list]:
    """Generate, batch, apply on a hard-linked scratch copy of ``root``, run ``check(scratch)`` per batch.
    ``known``, ``fielded``, ``named``, ``sites``: see :func:`judgeable_routes`. Returns the results, the negatives, the time, and the
    route edits not generated (with the reason)."""
    t0 = time.monotonic()
    muts, dropped = judgeable_routes(generate(root, items), known, fielded, named, sites)
    not_judgeable = [{"class": m.cls, "file": m.file, "subject": m.subject, "why": m.why} for m in dropped]
    res = os.environ.get("TRTLINT_CORPUS_RESULTS")
    scratch = (Path(res).parent / (Path(res).name + "-scratch") if res else root.parent / "scratch") / root.name
    link_copy(root, scratch)
    base, _e, _t = check(scratch)
    base_diags = (base or {}).get("diagnostics", [])
    aside = set_aside_files(base)
    optional = optional_build_files(base)
    unseen = unanalysed_classes(base)
    unseen_creators = unanalysed_classes(base, "creator")
    old = old_release_classes(base)
    excluded = excluded_by_profile(base)
    uncompiled = uncompiled_branches(base, scratch)
    for why, gone in ((WHY_EXCLUDED, [m for m in muts if excluded(m.file)]),
                      (WHY_UNCOMPILED, [m for m in muts if not m.negative and in_uncompiled(m, uncompiled)]),
                      (WHY_ASIDE, [m for m in muts if m.file in aside and not m.negative]),
                      (WHY_OPTIONAL, [m for m in muts if m.file in optional and not m.negative]),
                      (WHY_OLD, [m for m in muts if (m.file, m.subject) in old and not m.negative]),
                      (WHY_UNANALYSED, [m for m in muts if not m.negative and (
                          (str(Path(m.file).parent), m.subject) in unseen
                          # a callee edit lands where the called function is, wherever that is
                          or (m.cls.endswith("-in-callee") and m.subject in {c for _f, c in unseen})
                          # a drift from the other side of a contract no rule sees (its every class not analysed)
                          or other_side_unanalysed(m, unseen, unseen_creators))])):
        # code the run names as not judged (no build compiles it) or a class it says it does not analyse (TRT004):
        # an edit there is not judgeable
        muts = [m for m in muts if m not in gone]
        not_judgeable += [{"class": m.cls, "file": m.file, "subject": m.subject, "why": why} for m in gone]
    results, negs = [], []
    try:
        for group in batches(muts):
            edits = [e for m in group for e in m.edits]
            saved = apply(scratch, edits)
            try:
                rep, _err, _dt = check(scratch)
            finally:
                restore(scratch, saved)
            for row, m in zip(judge(group, base_diags, rep), group):
                (negs if m.negative else results).append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results, negs, time.monotonic() - t0, not_judgeable
