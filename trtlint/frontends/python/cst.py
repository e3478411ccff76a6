"""Python frontend, libcst part: the parse, the module pre-pass and the walk that make the libcst facts.

Imported by :mod:`trtlint.frontends.python` only for a file whose stdlib ``ast`` tree holds a construct these
extractors make facts from (:func:`.fast.libcst_facts_possible`), so a process that never meets such a file
never imports libcst. libcst (with PositionProvider's positions) is the parser behind the facts of
:mod:`.onnx_emit` and :mod:`.torchtrt`; import aliases, string constants and attribute dicts are resolved by a
small, flow-insensitive-but-ordered walk (:mod:`.values`; no scope/qualified-name providers, they are slow). To
keep the cost down (see :mod:`.fast`): functions without a marker are blanked before the parse, positions are
computed with cheap bookkeeping and visits do not rebuild the tree. The analysed code is never imported or executed.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable, Optional, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from trtlint.base.facts import FileFacts, ParseProblem, Span
from .. import ExtractContext, SourceFile, empty_facts
from . import fast, torchtrt
from .onnx_emit import FactCollector, TableCand
from .values import Binding, ValueTracker, store_counts, string_value

# --------------------------------------------------------------------------------------------------------
# Module pre-pass: imports and module-level constants, dicts and opsets (visible from every function)
# --------------------------------------------------------------------------------------------------------


def _module_statements(body: Sequence[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    """Module-level simple statements, descending into if/try/with blocks but not defs/classes."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
            blocks = [stmt.body]
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                blocks.append(stmt.orelse if isinstance(stmt.orelse, cst.If) else stmt.orelse.body)
            if isinstance(stmt, cst.Try):
                blocks.extend(h.body for h in stmt.handlers)
                if stmt.orelse is not None:
                    blocks.append(stmt.orelse.body)
            for blk in blocks:
                if isinstance(blk, cst.If):
                    yield from _module_statements([blk])
                elif isinstance(blk, cst.IndentedBlock):
                    yield from _module_statements(blk.body)
                elif isinstance(blk, cst.SimpleStatementSuite):
                    yield from blk.body


def _prepass(ex: FactCollector, module: cst.Module) -> None:
    stmts = list(_module_statements(module.body))
    for s in stmts:
        if isinstance(s, cst.Import):
            ValueTracker.visit_Import(ex, s)
        elif isinstance(s, cst.ImportFrom):
            ValueTracker.visit_ImportFrom(ex, s)
    ms = ex.module_scope
    counts: dict[str, int] = {}
    assigns: list[tuple[str, cst.BaseExpression, cst.CSTNode]] = []
    for s in stmts:
        if isinstance(s, cst.Assign):
            for t in s.targets:
                if isinstance(t.target, cst.Name):
                    counts[t.target.value] = counts.get(t.target.value, 0) + 1
                    assigns.append((t.target.value, s.value, s))
                else:
                    for n in _target_names(t.target):
                        counts[n] = counts.get(n, 0) + 2
        elif isinstance(s, cst.AnnAssign) and isinstance(s.target, cst.Name) and s.value is not None:
            counts[s.target.value] = counts.get(s.target.value, 0) + 1
            assigns.append((s.target.value, s.value, s))
        elif isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name):
            counts[s.target.value] = counts.get(s.target.value, 0) + 2
    # two rounds so constants defined from other constants resolve; a sequence of literals also must not be
    # changed in place anywhere in the module (``pads.append(...)``, ``pads[0] = ...``, in a function too)
    stores = None
    for _ in range(2):
        for name, value, stmt in assigns:
            if counts.get(name, 0) != 1:
                ms.bindings[name] = Binding("unknown")
                continue
            b = ex.binding_for_value(value)
            if b.kind == "seq":
                stores = store_counts(module) if stores is None else stores
                if stores.get(name, 0) != 1:
                    b = Binding("unknown")
            ms.bindings[name] = b
    # direct-route table candidates: dicts of str -> str
    for name, value, stmt in assigns:
        if counts.get(name, 0) != 1 or not isinstance(value, cst.Dict) or not value.elements:
            continue
        entries = []
        ok = True
        for el in value.elements:
            if not isinstance(el, cst.DictElement):
                ok = False
                break
            k, v = string_value(el.key), string_value(el.value)
            if k is None or v is None:
                ok = False
                break
            entries.append((k, v, ex.span(el)))
        if ok:
            ex.tables[name] = TableCand(name, ex.span(stmt), tuple(entries))


def _target_names(t: cst.BaseExpression) -> Iterable[str]:
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            yield from _target_names(el.value)
    elif isinstance(t, cst.StarredElement):
        yield from _target_names(t.value)


class MainVisitor(FactCollector):
    """At module scope, string/number/opset constants come from the pre-pass (functions see final
    module values); dict states are still updated in source order."""

    def bind(self, name: str, b: Binding) -> None:
        if len(self.scopes) == 1 and b.kind != "dict":
            existing = self.scope.bindings.get(name)
            if existing is not None and existing.kind in ("str", "num", "seq", "opset", "unknown"):
                return
        super().bind(name, b)

    def visit_Import(self, node: cst.Import) -> None:
        if len(self.scopes) == 1:
            return  # done by the pre-pass
        super().visit_Import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if len(self.scopes) == 1:
            return
        super().visit_ImportFrom(node)


# --------------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------------


def _reduce(text: str, route_names: tuple[str, ...], tree=None) -> Optional[str]:
    """Blank out functions and methods that cannot hold a fact before the (slow) libcst parse.

    CPython's parser (parse only; nothing is executed) gives the line ranges of every def. A def whose
    source matches none of the keywords (nor the name of a module-level onnxscript opset) is replaced by
    ``pass`` on its first line and empty lines after it, so line/column positions of everything kept are
    unchanged. Returns ``text`` itself when nothing can be dropped, None when this is not possible.
    """
    if "\r" in text:
        return None
    if tree is None:
        try:
            tree = ast.parse(text)
        except Exception:
            return None
    opsets = set()
    for st in tree.body:
        value = getattr(st, "value", None)
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Call):
            fn = value.func
            fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if fname == "Opset":
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                opsets.update(t.id for t in targets if isinstance(t, ast.Name))
    pat = fast.prefilter(route_names)
    opset_pat = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(opsets))) + r")\s*\.") if opsets else None
    lines = text.split("\n")
    blank: list[tuple[int, int]] = []

    def consider(body) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([d.lineno for d in st.decorator_list] + [st.lineno])
                end = st.end_lineno or st.lineno
                seg = "\n".join(lines[start - 1 : end])
                if not pat.search(seg) and not (opset_pat is not None and opset_pat.search(seg)):
                    blank.append((start, end))
            elif isinstance(st, ast.ClassDef):
                consider(st.body)

    consider(tree.body)
    # a graph-surgery helper kept (its op may be one of its parameters: gsurgeon.SurgeryMixin.helper_call): the
    # defs that call it are kept too
    dropped = set(blank)
    helpers = {st.name for st in ast.walk(tree) if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
               and (st.lineno, st.end_lineno or st.lineno) not in dropped
               and re.search(r"\b(?:layer|Node)\s*\(", "\n".join(lines[st.lineno - 1 : st.end_lineno or st.lineno]))}
    if helpers:
        calls = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(helpers))) + r")\s*\(")
        blank = [(a, b) for a, b in blank if not calls.search("\n".join(lines[a - 1 : b]))]
    if not blank:
        return text
    for start, end in blank:
        first = lines[start - 1]
        lines[start - 1] = first[: len(first) - len(first.lstrip())] + "pass"
        for i in range(start, end):
            lines[i] = ""
    return "\n".join(lines)


def _backend_value(node: ast.AST) -> Optional[str]:
    """A ``backend=`` argument's value: a string, or an enum member's name lowercased (``Backend.NCNN.value``,
    ``Backend.NCNN``: "ncnn"); None when it is neither."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute):
        if node.attr == "value" and isinstance(node.value, ast.Attribute):
            node = node.value
        if isinstance(node.value, ast.Name):
            return node.attr.lower()
    return None


def _own_backend(fn: ast.AST) -> Optional[str]:
    for d in fn.decorator_list:
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if kw.arg == "backend":
                    v = _backend_value(kw.value)
                    if v is not None:
                        return v
    return None


def def_backends(tree: Optional[ast.Module]) -> dict[int, str]:
    """The line of each ``def`` registered for a backend -> that backend: the ``backend=`` argument of one of its
    decorators (``@REWRITER.register_symbolic('gelu', backend='ncnn')``). A module-level function without one
    that is named in this module only inside functions registered for one and the same backend (an
    undecorated helper of a backend's symbolic function) gets that backend too."""
    if tree is None:
        return {}
    out: dict[int, str] = {}
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    top: dict[str, ast.AST] = {st.name: st for st in tree.body if isinstance(st, defs)}
    for node in fast.walk(tree):
        if isinstance(node, defs):
            b = _own_backend(node)
            if b is not None:
                out[node.lineno] = b
    if not out:
        return out
    # the backends a module-level name is used under (None: outside every registered function)
    uses: dict[str, set] = {}

    def visit(node: ast.AST, backend: Optional[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, defs):
                visit(child, out.get(child.lineno, backend))
            elif isinstance(child, ast.Name) and child.id in top:
                uses.setdefault(child.id, set()).add(backend)
            else:
                visit(child, backend)

    visit(tree, None)
    for name, fn in top.items():
        used = uses.get(name, set())
        if fn.lineno not in out and len(used) == 1 and None not in used:
            out[fn.lineno] = next(iter(used))
    return out


def _positions(module: cst.Module):
    """``id(node)`` -> (start line, start column, end line, end column): PositionProvider's numbers (1-based
    lines, 0-based columns).

    Computed by fast.fast_positions (the provider's codegen pass with cheaper bookkeeping); if libcst's
    internals ever change so that fails, the provider itself is used.
    """
    try:
        return fast.fast_positions(module)
    except Exception:
        pass
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(n): (r.start.line, r.start.column, r.end.line, r.end.column) for n, r in ranges.items()}


def _syntax_problem(src: SourceFile, text: str, e: "cst.ParserSyntaxError") -> ParseProblem:
    """libcst's error positions are often a token late; CPython's parser (parse only, nothing is run)
    usually pinpoints the error, so prefer it when it agrees the file is invalid."""
    try:
        compile(text, src.rel, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as se:
        line = max(1, se.lineno or 1)
        col = max(1, se.offset or 1)
        return ParseProblem(f"syntax error: {se.msg}", Span(src.rel, line, col, line, col + 1))
    except Exception:
        pass
    line = max(1, int(getattr(e, "raw_line", 1) or 1))
    col = max(1, int(getattr(e, "raw_column", 0) or 0) + 1)
    msg = " ".join(str(getattr(e, "message", e)).split())
    return ParseProblem(f"syntax error: {msg}", Span(src.rel, line, col, line, col + 1))


def extract_parsed(src: SourceFile, ctx: ExtractContext, text: str, parsed, route_names: tuple[str, ...], stubs: dict) -> FileFacts:
    """The libcst part of the Python frontend (its package's ``extract`` decided this file may hold its facts): ``parsed`` is the
    file's stdlib ``ast`` tree (None when CPython could not parse it), ``stubs`` the custom-op facts already
    made from it."""
    reduced = _reduce(text, route_names, parsed) if parsed is not None else None
    module = None
    if reduced is not None and reduced is not text:
        try:
            module = cst.parse_module(reduced)
        except Exception:
            module = None  # parse the full text below (and report its error, if any)
    try:
        if module is None:
            module = cst.parse_module(text)
    except cst.ParserSyntaxError as e:
        return empty_facts(src, (_syntax_problem(src, text, e),), kind="python")
    except RecursionError:
        problem = ParseProblem("syntax error: expression nesting too deep to parse", Span(src.rel, 1))
        return empty_facts(src, (problem,), kind="python")
    positions = _positions(module)
    ex = MainVisitor(src.rel, module, positions, ctx)
    ex.def_backends = def_backends(parsed)
    problems: tuple = ()
    try:
        _prepass(ex, module)
        fast.visit(module, ex)
        ex.join_plugin_creations()
        ex.join_helper_calls()
    except RecursionError:
        problems = (ParseProblem("analysis stopped: nesting too deep", Span(src.rel, 1), partial=True),)
    extra: dict = {}
    try:
        extra = torchtrt.extract(src.rel, module, positions, ex.imports, text)
    except RecursionError:
        problems += (ParseProblem("converter/plugin analysis stopped: nesting too deep", Span(src.rel, 1), partial=True),)
    return FileFacts(
        path=src.rel,
        kind=src.kind or "python",
        digest=src.digest,
        problems=problems,
        emissions=tuple(ex.emissions),
        wrapped_emissions=tuple(ex.wrapped),
        route_tables=tuple(ex.route_tables()),
        route_calls=tuple(ex.route_calls),
        lookups=tuple(ex.lookups),
        api_uses=tuple(ex.api_uses),
        py_creators=tuple(ex.py_creators),
        **extra,
        **stubs,
    )
