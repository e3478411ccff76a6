"""The C++ frontend's walk of one function body: calls (resolved, unresolved, CUDA launches, ``new``), the
strings a name getter returns, the ``PluginField``s built and the field names a creator reads, one-time
initialisation guards (:mod:`.bodyguards`); with :mod:`.flow` (throws, try blocks, discarded results, stream
arguments, memcpy sources), :mod:`.fielddata` (``PluginField`` data) and, as a hook driven node by node, the
lifecycle walk of :mod:`.lifecycle` (returns, serialization, TensorRTPhase branches) on the same walk: each body
is traversed once."""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Optional

from trtlint.base.facts import AttrFact, Call, CreatorLookup, FieldData, FieldRead, PluginFieldDecl, Registration, ResolvedString, Span
from . import fallthrough, fielddata, flow, streamfields, templreg
from .base import (Cursor, Unit, arguments, binop_code, children, children_memo, leaf_ids, look_through, preorder, short,
                   split_top_level)
from .bodyguards import Guards

_STRING_GETTERS = {"getPluginName", "getPluginVersion", "getPluginNamespace", "getPluginType"}
# ``name2ptr.find(fc->fields[i].name)``: a field read through a table keyed by the field names
_MAP_LOOKUPS = {"find", "count", "at", "contains"}
_STRCMP_FUNCS = {"strcmp", "strncmp", "strcasecmp", "strncasecmp", "_stricmp", "compare", "equals", "starts_with"}
_LIST_REGISTER_FUNCS = {"initializePlugin", "addPluginCreator", "registerCreatorType"}
# a null test of a variable: (a) `!s`, (b) `s == nullptr` (either side); (c) `s`, (d) `s != nullptr`
_NULL_TEST = re.compile(r"!\s*\(?\s*(?P<a>\w+)\s*\)?|(?:(?P<b>\w+)\s*==\s*(?:nullptr|NULL|0)|(?:nullptr|NULL|0)\s*==\s*(?P<b2>\w+))"
                        r"|\(?\s*(?P<c>\w+)\s*\)?|(?:(?P<d>\w+)\s*!=\s*(?:nullptr|NULL|0))")
_LOOKUP_FUNCS = {"getPluginCreator", "getCreator"}  # IPluginRegistry's lookups (namespace defaults to "")
# on_dropped: comments and string literals, conditional preprocessor lines, other directive lines, and a
# statement that is one call (``x = a->b::f<T>(args)``)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.)*\"", re.S)
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b", re.M)
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#[^\n]*", re.M)
_DROPPED_CALL = re.compile(
    r"\s*(?:return\s+)?(?:[\w:.\[\]<>*&\s-]+?=\s*)?"
    r"(?P<callee>(?:[A-Za-z_]\w*\s*(?:\.|->|::)\s*)*(?P<name>[A-Za-z_]\w*))\s*(?:<[^;()]*>)?\s*\((?P<args>.*)\)\s*\Z",
    re.S,
)
_CPP_KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_cast", "dynamic_cast",
    "reinterpret_cast", "const_cast", "catch", "throw", "new", "delete", "noexcept", "typeid", "alignas",
    "static_assert", "do", "else", "case", "default", "void", "int", "char", "float", "double", "bool",
    "auto", "operator", "template", "typename", "defined", "__attribute__", "__declspec",
}


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DROPPED_FIELD = re.compile(r"\bPluginField\s*\(\s*(\"\w+\")")


class BodyWalker(Guards):
    """The walk of one function body (``walk``): ``calls``, ``returns``, ``field_decls``, ``field_reads`` and the
    guard ranges; :mod:`.flow` and :mod:`.fielddata` read it as a ``FlowWalker`` / ``FieldWalker``."""

    def __init__(self, ex: Unit, fn: Cursor, fname: str, fc_params: list[Cursor], hook=None) -> None:
        self.ex = ex
        # a walker the walk drives node by node (lifecycle._Walk: ``ROOT``, ``enter``, ``visit``), or None
        self.hook = hook
        self.K = ex.K
        self.fn = fn
        self.fname = fname
        self.fc_usrs = {p.get_usr() for p in fc_params if p.get_usr()}
        self.fc_names = {p.spelling for p in fc_params if p.spelling}
        self.fc_views: set[str] = set()  # locals of class type made from the collection (a field parser object)
        # the function's own parameters, by cursor hash -> index (size-query mode: flow.needs_ranges, arg_null)
        self.params: dict[int, int] = {}
        for ch in children(fn):
            if ch.kind == ex.K.PARM_DECL:
                self.params[ch.hash] = len(self.params)
        self._written: Optional[str] = None  # the body's text, for flow.arg_null (read on first need)
        self.derive = None  # the derivations of its pointer parameters (flow.derive, made on first need)
        self.calls: list[tuple[int, Call]] = []
        self.returns: list[ResolvedString] = []
        self.field_decls: list[PluginFieldDecl] = []
        self.field_reads: list[FieldRead] = []
        self.field_resets: list[str] = []  # class members of PluginFields emptied or replaced (fielddata.reset_of)
        self._seen_reads: set[tuple[str, int]] = set()
        self._read_casts: dict[tuple[int, int], str] = {}  # a compared name's literal -> what its branch casts data to
        self._seen_calls: set[int] = set()
        self._seen_decls: set[tuple[str, int, int]] = set()
        self.local_vars: dict[str, Cursor] = {}
        self._guard: Optional[str] = None
        self.guard_ranges: list[tuple[str, int, int, str]] = []  # (file, start, end, guard)
        # (file, start, end, condition): the then-branches of a debug switch (bodyguards.debug_switch)
        self.debug_ranges: list[tuple[str, int, int, str]] = []
        self.flow = flow.FlowState()
        self.stream_writes = streamfields.Writes(self)
        self.member_writes = fallthrough.MemberWrites(self)
        self.field_data: list[FieldData] = []  # fielddata.on_field
        self.field_parents: tuple = ()  # the parents of the call being walked (fielddata.on_field)
        # C++ model code: registry lookups and the PluginFields built (constructed or field by field) around
        # them, by offset; joined into the unit's ``lookups`` when the walk ends
        self._lookups: list[tuple[int, CreatorLookup]] = []
        self._pf_built: list[tuple[int, AttrFact]] = []
        self._pf_by_base: dict[str, int] = {}  # `pf` / `fields[0]` -> index in _pf_built (field by field)
        self._pf_vars: dict[str, tuple] = {}  # a PluginField variable built without data -> (call, name arg, decl, parents)
        self.member_strings: list[tuple[str, ResolvedString]] = []  # a constructor's string constants put in members

    def walk(self) -> None:
        with children_memo():  # the walk and its visitors list each node's children once
            self._walk()

    def _walk(self) -> None:
        K = self.K
        hook = self.hook
        # (cursor, parents, guard, the hook's state: None when the hook does not enter it)
        stack: list[tuple[Cursor, tuple[Cursor, ...], Optional[str], Optional[tuple]]] = []
        root = hook.ROOT if hook is not None else None
        ctor = self.fn.kind == K.CONSTRUCTOR
        prev = None
        for ch in children(self.fn):
            if ch.kind == K.PARM_DECL:
                continue
            if ctor and prev is not None and prev.kind == K.MEMBER_REF:
                self.on_member_string(prev, ch)  # a member initialiser `: mName(kNAMES[0])`
            prev = ch
            stack.append((ch, (), None, root))
        stack.reverse()
        leaves = leaf_ids(K)
        flow_kinds = flow.flow_ids(K)
        writes = streamfields.write_ids(K)
        member_writes = fallthrough.write_ids(K)
        CALL, NEW, UNEXP, RET, BINOP, VAR, IF, COMP = (
            K.CALL_EXPR.value, K.CXX_NEW_EXPR.value, K.UNEXPOSED_EXPR.value, K.RETURN_STMT.value,
            K.BINARY_OPERATOR.value, K.VAR_DECL.value, K.IF_STMT.value, K.COMPOUND_STMT.value)
        pending = self.ex.pending_lists  # creator lists declared outside functions (registrations.scan_creator_list)
        DREF = K.DECL_REF_EXPR.value
        while stack:
            c, parents, guard, hs = stack.pop()
            self._guard = guard
            k = c._kind_id
            if k in leaves:
                if pending and k == DREF and c.spelling in pending:
                    self.ex.read_creator_list(c, self.fn)
                if hs is not None:
                    hook.visit(c, hs)  # (the hook reads what it reads of them: where the last statement was)
                continue  # references and literals: nothing below them is a call, return or field use
            kids = children(c)
            hks = hook.enter(c, kids, hs) if hs is not None else None
            if k in flow_kinds:
                flow.visit(self, c, k, kids)
            if k in writes:
                self.stream_writes.visit(c, kids)
            if k in member_writes:
                self.member_writes.visit(c, kids)
            # guards of the children (None: inherit the parent's)
            kid_guards: Optional[list[Optional[str]]] = None
            if k == CALL:
                self.on_call(c, parents, kids)
                if ctor and c.spelling == "operator=" and len(kids) >= 2 and kids[0].kind == K.MEMBER_REF_EXPR \
                        and not children(kids[0]):
                    self.on_member_string(kids[0], kids[-1])  # `mName = kNAMES[0];` on a std::string member
                if c.spelling == "call_once":
                    kid_guards = [self.guard_range(ch, "static-init") if self._has_lambda(ch) else guard
                                  for ch in kids]
            elif k == NEW:
                self.on_new(c)
            elif k == UNEXP:
                self.on_unexposed(c, kids)
            elif k == RET:
                if self.fname in _STRING_GETTERS:
                    self.on_return(c)
            elif k == BINOP:
                if self.fc_usrs:
                    self.on_binop(c)
                self.on_field_assign(c, kids)
                if ctor and len(kids) == 2 and kids[0].kind == K.MEMBER_REF_EXPR and not children(kids[0]):
                    self.on_member_string(kids[0], kids[1])  # `mName = kNAMES[0];` (on this object)
            elif k == VAR:
                self.local_vars[c.spelling] = c
                if self.fc_usrs:
                    self.on_fc_view(c, kids)
                self.ex.scan_creator_list(c, self.fname, self.local_vars)
                if self._is_static_local(c):
                    kid_guards = [self.guard_range(ch, "static-init") for ch in kids]
            elif k == IF:
                kid_guards = self.if_guards(c, kids, guard)
                if self.fc_usrs and len(kids) >= 2:
                    cast = fielddata.branch_cast(self, kids[0], kids[1])
                    if cast is not None:
                        self._read_casts[cast[0]] = cast[1]
            elif k == COMP:
                kid_guards = self.block_guards(c, kids, guard, parents)
                self.on_dropped(c, kids)
            np = parents + (c,) if len(parents) < 6 else parents[1:] + (c,)
            if kid_guards is None and hks is None:
                for ch in reversed(kids):
                    stack.append((ch, np, guard, None))
            else:
                gs = kid_guards if kid_guards is not None else [guard] * len(kids)
                hs_kids = hks if hks is not None else [None] * len(kids)
                for ch, g, h in zip(reversed(kids), reversed(gs), reversed(hs_kids)):
                    stack.append((ch, np, g, h))
        self.join_lookups()

    # -- helpers --

    def span(self, c: Cursor) -> Span:
        return self.ex.span_of(c) or self.ex.loc_span(c) or Span(self.ex.src.rel, 1)

    def arg_texts(self, args: Iterable[Cursor]) -> tuple[str, ...]:
        out = []
        for a in args:
            t = self.ex.text_of(a)
            out.append(short(t))
        while out and not out[-1]:
            out.pop()  # defaulted trailing arguments have no source text
        return tuple(out)

    def add_call(self, c: Cursor, call: Call) -> None:
        off = self.ex.extent_info(c)[3]
        if self._guard is not None:
            call = dataclasses.replace(call, guard=self._guard)
        self.calls.append((off, call))

    # -- calls --

    def on_call(self, c: Cursor, parents: tuple[Cursor, ...], kids: Optional[list[Cursor]] = None) -> None:
        K = self.K
        ex = self.ex
        ref = c.referenced
        name = c.spelling or ""
        self.field_parents = parents
        if kids is None:
            kids = children(c)
        # CUDA launch: k<<<...>>>(args) has a __cudaPushCallConfiguration child call.
        if len(kids) >= 2 and kids[1].kind == K.CALL_EXPR and kids[1].spelling == "__cudaPushCallConfiguration":
            text = ex.text_of(c)
            cfg: list[str] = []
            i, j = text.find("<<<"), text.find(">>>")
            if i >= 0 and j > i:
                cfg = split_top_level(text[i + 3 : j])
            stream = cfg[3] if len(cfg) >= 4 and cfg[3] else None
            callee = ex.qualname(ref) if ref is not None and ref.kind != K.NO_DECL_FOUND else name
            args = tuple(short(a) for a in split_top_level(text[text.rfind("(", j) + 1 : text.rfind(")")])) if j > 0 else ()
            if not callee:
                callee = text[:i].strip() if i > 0 else name
            cfg_args = arguments(kids[1]) if stream else []
            nulled = self.stream_null_branch(c, parents) if stream is None else None
            self.add_call(c, flow.launch_extras(text, cfg, Call(
                stream_null=nulled,
                callee=callee, span=self.span(c), usr=(ref.get_usr() or None) if ref is not None else None,
                kind="launch", stream=stream, args=tuple(a for a in args if a),
                stream_field=streamfields.arg_field(self, cfg_args[3]) if len(cfg_args) >= 4 else None)))
            return
        if name == "__cudaPushCallConfiguration":
            return
        if name in ("clear", "assign", "operator="):
            m = fielddata.reset_of(ex, c, kids)
            if m is not None and m not in self.field_resets:
                self.field_resets.append(m)
        if name == "registerCreator":
            self.on_register_call(c)
        if name in _LIST_REGISTER_FUNCS:
            self.on_list_register(c, kids)
        elif ref is not None and ref.kind in (K.FUNCTION_DECL, K.CXX_METHOD) and ref.get_num_template_arguments() > 0:
            reg = templreg.template_registration(ex, c, ref, self.span(c))
            if reg is not None:
                ex.registrations.append(reg)
        if name in _LOOKUP_FUNCS:
            self.on_lookup(c, ref, name)
        if ref is not None and ref.kind == K.CONSTRUCTOR:
            if ref.is_copy_constructor() or ref.is_move_constructor():
                return
            cls_name = ref.spelling
            if cls_name == "PluginField":
                self.on_plugin_field(c, arguments(c), c)
            text = ex.text_of(c)
            real = [t for t in (ex.text_of(a) for a in arguments(c)) if t]
            if len(real) == 1 and text == real[0]:
                return  # implicit conversion
            if not real and "(" not in text and "{" not in text:
                return  # implicit default construction
            if not text or text[0] in "\"'0123456789":
                return
        if ref is not None and ref.kind == K.CONVERSION_FUNCTION:
            return
        args = arguments(c)
        lambda_call = False
        if ref is not None and ref.kind == K.CXX_METHOD and name == "operator()":
            par = ref.semantic_parent
            lambda_call = par is not None and (par.spelling or "").startswith("(lambda")
        if lambda_call:
            callee = self.spelled_callee(c, kids) or "lambda"
            usr = None
            args = args[1:]
        elif ref is not None and ref.kind != K.NO_DECL_FOUND:
            callee = ex.qualname(ref)
            usr = ref.get_usr() or None
        else:
            callee = self.spelled_callee(c, kids) or name
            usr = None
            if not name:
                # a dependent call (an argument's type not known): the name is its overload set's (the callee's, or
                # for an operator the second child's: `ret != 0` is CALL_EXPR(ret, operator!=, 0))
                name = next((sub.spelling for k in kids[:2] if k.kind in (K.DECL_REF_EXPR, K.UNEXPOSED_EXPR)
                             for sub in children(k) if sub.kind == K.OVERLOADED_DECL_REF), "")
                if not name and kids and kids[0].kind == K.MEMBER_REF_EXPR:
                    # a member template called with a dependent argument inside a template (`impl<T, int>(d)`,
                    # `this->run<T>(x)`): its overload set names the class's method
                    callee, usr = self.member_overload(kids[0]) or (callee, None)
                    name = callee.rsplit("::", 1)[-1] if usr is not None or "::" in (callee or "") else name
            if usr is None and (re.fullmatch(r"[A-Za-z_]\w*", name) or (name.startswith("operator") and name != "operator()")) and \
                    callee.rsplit("::", 1)[-1] != name:
                # the text at an unresolved call's extent is not its callee when the call was expanded from a macro
                # (`CHECK(f(x))` holding `report(ret)`): that text is the macro's invocation, its name the macro's
                callee = name
        if not callee:
            return
        arg_texts = self.arg_texts(args)
        if name in ("emplace_back", "push_back", "emplace") and len(args) >= 3:
            t3 = args[2].type.spelling or ""
            if "PluginFieldType" in t3 or (len(arg_texts) > 2 and "PluginFieldType" in arg_texts[2]):
                self.on_plugin_field(c, args, c)
        stream = None
        if name.endswith("Async") and arg_texts:
            stream = arg_texts[-1]
        call = Call(callee=callee, span=self.span(c), usr=usr, kind="call", stream=stream, args=arg_texts)
        self.add_call(c, flow.call_extras(self, c, ref, name, args, arg_texts, call))
        if self.fc_usrs:
            self.on_call_reads(c, name, args, parents)

    def stream_null_branch(self, c: Cursor, parents: tuple[Cursor, ...]) -> Optional[str]:
        """The condition of the nearest ``if`` among ``parents`` (of the call ``c``) whose branch holding it runs only when a
        stream variable (a ``cudaStream_t``/``CUstream`` or a pointer to one) is null: the then-branch of ``if
        (!s)``, ``if (s == nullptr)`` (``NULL``, ``0``), the else-branch of ``if (s)``, ``if (s != nullptr)``."""
        K = self.K
        for i in range(len(parents) - 1, -1, -1):
            p = parents[i]
            if p.kind != K.IF_STMT:
                continue
            kids = children(p)
            ci, ti, ei = self.if_parts(p, kids)
            if ci is None:
                return None
            branch = parents[i + 1] if i + 1 < len(parents) else c
            arm = "then" if ti is not None and kids[ti] == branch else ("else" if ei is not None and kids[ei] == branch else None)
            if arm is None:
                return None
            cond = " ".join(self.ex.text_of(kids[ci]).split())
            m = _NULL_TEST.fullmatch(cond)
            if m is None:
                return None
            var = m.group("a") or m.group("b") or m.group("b2") or m.group("c") or m.group("d")
            null_when_true = m.group("a") is not None or m.group("b") is not None or m.group("b2") is not None
            if (arm == "then") != null_when_true:
                return None
            for sub in preorder(kids[ci]):
                if sub.kind == K.DECL_REF_EXPR and sub.spelling == var:
                    t = (sub.type.spelling or "") + " " + (sub.type.get_canonical().spelling or "")
                    return cond if ("cudaStream_t" in t or "CUstream" in t or "CUstream_st" in t) else None
            return None
        return None

    def on_register_call(self, c: Cursor) -> None:
        """``registry->registerCreator(*mCreator.get(), ns)``: a creator registered by a direct call, its class the
        type of the first argument as the parse resolved it (through ``*``, references, smart pointers' ``get()``,
        a member declared in a header): a project class, not TensorRT's interface."""
        K, ex = self.K, self.ex
        args = arguments(c)
        if not args:
            return
        try:
            t = look_through(K, args[0]).type
            if t.kind == ex.ci.TypeKind.POINTER:
                t = t.get_pointee()
            d = t.get_canonical().get_declaration()
        except Exception:  # noqa: BLE001 - a type libclang cannot give: the text-based reading stands
            return
        if d is None or d.kind not in (K.CLASS_DECL, K.STRUCT_DECL):
            return
        qn = ex.qualname(d)
        if not qn or ex.rel_of(ex.cursor_file(d)) is None:
            return  # (TensorRT's own interface, `IPluginCreator&`: the class is not known)
        ex.registrations.append(Registration(creator=d.spelling or qn.split("::")[-1], qualname=qn, span=self.span(c),
                                             how="call"))

    def on_list_register(self, c: Cursor, kids: list[Cursor]) -> None:
        """``initializePlugin<ns::XCreator>(...)``: a creator registered by a library list."""
        K = self.K
        text = self.ex.text_of(c)
        m = re.match(r"[^<(]*<\s*([^()]+?)\s*>\s*\(", text)
        if not m:
            return
        creator = re.sub(r"\s+", "", m.group(1))
        qn = None
        if kids:
            for sub in preorder(kids[0]):
                if sub.kind == K.TYPE_REF and sub.referenced is not None:
                    d = sub.referenced
                    if d.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                        qn = self.ex.qualname(d)
                        break
                    if d.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL):
                        u = d.underlying_typedef_type.get_declaration()
                        if u is not None and u.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                            qn = self.ex.qualname(u)
                            break
        if qn is None:
            qn = self.ex.class_by_name.get(creator.split("::")[-1])
        self.ex.registrations.append(Registration(creator=creator, qualname=qn, span=self.span(c), how="list"))

    def member_overload(self, member: Cursor) -> Optional[tuple[str, Optional[str]]]:
        """(qualified name, USR or None) of the methods a dependent member call's overload set holds, when they are
        all one class's methods of one name (the USR only when there is one); None otherwise."""
        K, ex = self.K, self.ex
        ref = next((sub for sub in children(member) if sub.kind == K.OVERLOADED_DECL_REF), None)
        if ref is None:
            return None
        try:
            lib = ex.ci.conf.lib
            decls = [lib.clang_getOverloadedDecl(ref, i) for i in range(min(lib.clang_getNumOverloadedDecls(ref), 16))]
        except Exception:  # noqa: BLE001 - bindings without the call: left unresolved, as before
            return None
        names = {ex.qualname(d) for d in decls if d is not None and d.kind in (
            K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.FUNCTION_DECL)}
        if len(names) != 1 or len(decls) == 0 or not next(iter(names)):
            return None
        return next(iter(names)), ((decls[0].get_usr() or None) if len(decls) == 1 else None)

    def spelled_callee(self, c: Cursor, kids: list[Cursor]) -> Optional[str]:
        text = self.ex.text_of(c)
        m = re.match(r"\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_~]\w*)*)", text)
        if kids and kids[0].kind == self.K.MEMBER_REF_EXPR:
            return kids[0].spelling or None
        return re.sub(r"\s+", "", m.group(1)) if m else None

    def on_unexposed(self, c: Cursor, kids: Optional[list[Cursor]] = None) -> None:
        """Calls clang could not resolve (undeclared function): UNEXPOSED_EXPR(callee-ref, args...)."""
        K = self.K
        if kids is None:
            kids = children(c)
        if not kids:
            return
        first = kids[0]
        if first.kind not in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF, K.MEMBER_REF_EXPR, K.UNEXPOSED_EXPR):
            return
        if len(kids) == 1 and c.extent == first.extent:
            return  # an implicit conversion of its only child, not a call
        ex = self.ex
        f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(c)
        ff, _a, _b, fo1, _d, _e, fo2 = ex.extent_info(first)
        if f is None or ff != f or fo1 != o1:
            return
        b = ex.file_bytes(f)
        rest = b[fo2:o2].decode("utf-8", "replace").lstrip()
        if rest.startswith("<"):
            depth = 0
            for i, ch in enumerate(rest):
                if ch == "<":
                    depth += 1
                elif ch == ">":
                    depth -= 1
                    if depth == 0:
                        rest = rest[i + 1 :].lstrip()
                        break
        if not rest.startswith("(") or not rest.rstrip().endswith(")"):
            return
        callee_text = b[fo1:fo2].decode("utf-8", "replace")
        name = first.spelling or ""
        if not name:
            for sub in children(first):
                if sub.kind == K.OVERLOADED_DECL_REF:
                    name = sub.spelling
        m = re.match(r"\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_~]\w*)*)", callee_text)
        callee = re.sub(r"\s+", "", m.group(1)) if m and "." not in callee_text and "->" not in callee_text else name
        if not callee or callee in _CPP_KEYWORDS:
            return
        if o1 in self._seen_calls:
            return
        self._seen_calls.add(o1)
        args = tuple(short(a) for a in split_top_level(rest.rstrip()[1:-1])) if rest.strip() != "()" else ()
        self.calls.append((o1, Call(callee=callee, span=self.span(c), usr=None, kind="call", args=args,
                                    guard=self._guard, discarded=flow.unexposed_discarded(self, c))))

    def on_dropped(self, c: Cursor, kids: list[Cursor]) -> None:
        """Calls libclang dropped: a statement whose call names a function declared with a type that did not
        resolve (``prepare(mDims, out)`` with ``void prepare(DimsCHW d, void* out)`` and no ``DimsCHW``) is
        an invalid expression, left out of the block altogether. Its text is still between the block's
        statements: each ``[obj. | obj-> | ns::]name(args);`` found there is kept as a call by name (no USR),
        so the call graph still follows it. A gap holding a conditional preprocessor line is left alone (its
        text may be a branch the preprocessor skipped). A declaration whose initializer is such a call keeps
        its variable and loses the initializer: :meth:`on_dropped_init`."""
        ex = self.ex
        for ch in kids:
            if ch.kind == self.K.DECL_STMT:
                self.on_dropped_init(ch)
        f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(c)
        if f is None or o2 - o1 < 4:
            return
        cuts = [o1 + 1]
        for ch in kids:
            kf, _a, _b, k1, _d, _e, k2 = ex.extent_info(ch)
            if kf != f or k1 < cuts[-1] - 1 or k2 > o2:
                return  # a statement from a macro or another file: the gaps cannot be told
            cuts += [k1, k2]
        cuts.append(o2 - 1)
        b = ex.file_bytes(f)
        for g1, g2 in zip(cuts[::2], cuts[1::2]):
            if g2 - g1 < 3:
                continue
            # one character per byte (latin-1): an index in the gap is a byte offset from g1
            gap = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), b[g1:g2].decode("latin-1"))
            if gap.isspace() or "(" not in gap or _CONDITIONAL.search(gap):
                continue
            gap = _DIRECTIVE_LINE.sub(lambda m: " " * len(m.group(0)), gap)
            pos = 0
            for stmt in gap.split(";")[:-1]:  # statements end with ';' (the gap after the last one holds none)
                start, pos = pos, pos + len(stmt) + 1
                self.keep_dropped(f, b, g1 + start, stmt)

    def on_dropped_init(self, stmt: Cursor) -> None:
        """``pluginStatus_t s = nmsInference(...);`` where the callee's declaration names a type that did not
        resolve: libclang keeps the variable, its extent ending at the name, and drops the initializer (no
        expression below the VAR_DECL). The text after the name up to the statement's end, ``= name(args)``,
        is kept as a call as in :meth:`on_dropped` (one variable per statement; any other initializer is left
        alone)."""
        K = self.K
        ex = self.ex
        decls = children(stmt)
        if len(decls) != 1 or decls[0].kind != K.VAR_DECL:
            return
        v = decls[0]
        if any(ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF) for ch in children(v)):
            return  # an initializer libclang kept (or none to lose)
        f, _l1, _c1, _o1, _l2, _c2, s2 = ex.extent_info(stmt)
        vf, _a, _b, _v1, _d, _e, v2 = ex.extent_info(v)
        if f is None or vf != f or v2 >= s2:
            return
        b = ex.file_bytes(f)
        text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), b[v2:s2].decode("latin-1"))
        m = re.match(r"\s*=(?!=)", text)
        if m is None or "#" in text:
            return
        rest = text[m.end():]
        self.keep_dropped(f, b, v2 + m.end(), rest[:-1] if rest.endswith(";") else rest)

    def keep_dropped(self, f: str, b: bytes, at0: int, stmt: str) -> None:
        """Keep ``stmt`` (source text starting at byte ``at0`` of file ``f``, comments blanked) as a call by name
        when it is one call: ``[x = ][return ][obj. | obj-> | ns::]name[<T>](args)``."""
        m = _DROPPED_CALL.match(stmt)
        if m is None or m.group("name") in _CPP_KEYWORDS or "<<<" in stmt:
            return
        at = at0 + m.start("callee")
        if at in self._seen_calls:
            return
        self._seen_calls.add(at)
        ex = self.ex
        callee = re.sub(r"\s+", "", m.group("callee"))
        if "." in callee or "->" in callee:
            callee = m.group("name")
        line = b.count(b"\n", 0, at) + 1
        col = at - (b.rfind(b"\n", 0, at) + 1) + 1
        args = tuple(short(a) for a in split_top_level(m.group("args"))) if m.group("args").strip() else ()
        self.calls.append((at, Call(callee=callee, span=Span(ex.rel_of(f) or ex.src.rel, line, col, line, col + len(callee)),
                                    kind="call", args=args, guard=self._guard)))

    def on_new(self, c: Cursor) -> None:
        text = self.ex.text_of(c)
        m = re.match(r"\s*(?:::)?new\s*(?:\([^)]*\)\s*)?([A-Za-z_:][\w:<>, ]*)", text)
        arg = (m.group(1).strip() if m else "")
        self.add_call(c, Call(callee="operator new", span=self.span(c), kind="new", args=(arg,) if arg else ()))

    def on_return(self, c: Cursor) -> None:
        kids = children(c)
        if not kids:
            return
        for e in self._alternatives(kids[0]):
            r = self.ex.resolve_str(e)
            expr = short(self.ex.text_of(e))
            if r is None:
                self.returns.append(ResolvedString(value=None, span=self.span(e), expr=expr, member=self._member_of(e)))
            else:
                self.returns.append(ResolvedString(value=r[0], span=self.span(e), expr=expr, via=r[1], def_span=r[2]))

    def _member_of(self, e: Cursor) -> Optional[str]:
        """The data member of this object a returned expression reads (``mName``, ``mName.c_str()``), if it is one."""
        K = self.K
        cur = look_through(K, e, limit=None)
        if cur.kind == K.CALL_EXPR and cur.spelling in ("c_str", "data"):
            kids = children(cur)
            inner = children(kids[0]) if kids and kids[0].kind == K.MEMBER_REF_EXPR else []
            cur = look_through(K, inner[0], limit=None) if len(inner) == 1 else cur
        if cur.kind != K.MEMBER_REF_EXPR or children(cur):
            return None  # not a member of this object (`other.mName`)
        d = cur.referenced
        return d.spelling if d is not None and d.kind == K.FIELD_DECL else None

    def on_member_string(self, member: Cursor, value: Cursor) -> None:
        """A constructor putting a string constant in a data member (``mName = kNAMES[0]`` or ``: mName(kNAME)``): a
        getter of the class (or of a base class) that returns the member returns it for objects of this class."""
        d = member.referenced
        if d is None or d.kind != self.K.FIELD_DECL or value.kind == self.K.MEMBER_REF:
            return
        if member.kind == self.K.MEMBER_REF_EXPR:
            f, _a, _b, _o1, _d, _e, o2 = self.ex.extent_info(member)
            f2, _a, _b, r1, _d, _e, _g = self.ex.extent_info(value)
            if f is None or f2 != f or self.ex.file_bytes(f)[o2:r1].decode("utf-8", "replace").strip() != "=":
                return  # not an assignment (a comparison)
        r = self.ex.resolve_str(value)
        if r is None or r[0] is None:
            return
        self.member_strings.append((d.spelling, ResolvedString(value=r[0], span=self.span(value),
                                                               expr=short(self.ex.text_of(value)), via=r[1], def_span=r[2])))

    def _alternatives(self, e: Cursor, depth: int = 0) -> list[Cursor]:
        """The values a returned expression can take: the branches of a conditional (``use_h2 ? NAME2 : NAME``,
        nested ones too) when the whole does not resolve to one string; else the expression itself."""
        K = self.K
        if depth > 4 or self.ex.resolve_str(e) is not None:
            return [e]
        cur = look_through(K, e, limit=None)
        if cur.kind != K.CONDITIONAL_OPERATOR:
            return [e]
        sub = children(cur)
        if len(sub) != 3:
            return [e]
        return self._alternatives(sub[1], depth + 1) + self._alternatives(sub[2], depth + 1)

    # -- plugin fields --

    def on_plugin_field(self, c: Cursor, args: list[Cursor], whole: Cursor) -> None:
        ex = self.ex
        if not args:
            return
        key = (ex.text_of(whole)[:40], *ex.extent_info(args[0])[2:4])
        if key in self._seen_decls:
            return
        self._seen_decls.add(key)
        r = ex.resolve_str(args[0])
        if r is None or r[0] is None:
            return
        texts = self.arg_texts(args)
        ftype = None
        if len(texts) >= 3:
            m = re.search(r"\b(k[A-Z][A-Z0-9_]*)\b", texts[2])
            ftype = m.group(1) if m else None
        length = texts[3] if len(texts) >= 4 and texts[3] else None
        data = texts[1] if len(texts) >= 2 and texts[1] else None
        self.field_decls.append(PluginFieldDecl(name=r[0], type=ftype, length=length, span=self.span(args[0]), data=data,
                                                into=fielddata.into(ex, c, self.field_parents)))
        self._pf_built.append((ex.extent_info(c)[3], AttrFact(r[0], self.span(args[0]), data, ftype)))
        fielddata.on_field(self, c, args, self.field_decls[-1], self.field_parents)
        var = next((p for p in reversed(self.field_parents) if p.kind == self.K.VAR_DECL), None)
        if var is not None and var.spelling and data in (None, "nullptr", "NULL", "0"):
            # `PluginField f("anchors", nullptr, kFLOAT32, 5); f.data = mAnchors;`: the data comes by assignment
            self._pf_vars[var.spelling] = (c, args[0], self.field_decls[-1], self.field_parents)

    # -- registry lookups in C++ model code --

    def on_lookup(self, c: Cursor, ref: Optional[Cursor], name: str) -> None:
        """``getPluginRegistry()->getPluginCreator("X", "1"[, ns])`` / ``getCreator(...)``: a lookup of
        ``IPluginRegistry`` (a method of another class of that name is not one)."""
        ex = self.ex
        if ref is not None and ref.kind != self.K.NO_DECL_FOUND:
            par = ref.semantic_parent
            if par is None or (par.spelling or "") != "IPluginRegistry":
                return
        args = arguments(c)
        if len(args) < 2:
            return
        vals: list[Optional[str]] = []
        for i, a in enumerate(args[:3]):
            if not ex.text_of(a):
                vals.append("" if i == 2 else None)  # a defaulted namespace: ""
                continue
            r = ex.resolve_str(a)
            vals.append(r[0] if r is not None else None)
        if len(vals) == 2:
            vals.append("")
        lit = ex.text_of(args[0]).lstrip()
        name_span = self.span(args[0]) if lit.startswith('"') else None
        self._lookups.append((ex.extent_info(c)[3], CreatorLookup(vals[0], vals[1], vals[2], self.span(c), name_span, form=name)))

    def on_field_assign(self, c: Cursor, kids: list[Cursor]) -> None:
        """``pf.name = "anchors";`` / ``pf.type = PluginFieldType::kFLOAT32;``: a PluginField filled field by field."""
        if len(kids) != 2 or kids[0].kind != self.K.MEMBER_REF_EXPR or kids[0].spelling not in ("name", "type", "data"):
            return
        ex = self.ex
        base = children(kids[0])
        btype = (base[0].type.spelling or "") if base else ""
        if "PluginField" not in btype or "Collection" in btype:
            return
        f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(kids[0])
        f2, _a, _b, r1, _d, _e, _g = ex.extent_info(kids[1])
        if f is None or f2 != f or ex.file_bytes(f)[o2:r1].decode("utf-8", "replace").strip() != "=":
            return  # not an assignment (a comparison)
        key = re.sub(r"\s+", "", ex.text_of(base[0]))
        field = kids[0].spelling
        if field == "data" and key in self._pf_vars:
            call, name_arg, decl, parents = self._pf_vars.pop(key)
            fielddata.on_field(self, call, [name_arg, kids[1]], decl, parents)
        if field == "name":
            r = ex.resolve_str(kids[1])
            if r is None or r[0] is None:
                return
            self._pf_by_base[key] = len(self._pf_built)
            self._pf_built.append((o1, AttrFact(r[0], self.span(kids[1]))))
            return
        i = self._pf_by_base.get(key)
        if i is None:
            return
        off, a = self._pf_built[i]
        val = short(ex.text_of(kids[1]))
        if field == "type":
            m = re.search(r"\b(k[A-Z][A-Z0-9_]*)\b", val)
            if m:
                self._pf_built[i] = (off, dataclasses.replace(a, type=m.group(1)))
        else:
            self._pf_built[i] = (off, dataclasses.replace(a, value=val))

    def join_lookups(self) -> None:
        """Each PluginField the function builds goes with the nearest lookup before it (the first lookup when
        it is built before any): the fields the collection handed to that creator's ``createPlugin`` carries,
        those of statements libclang dropped among them (:meth:`dropped_fields`)."""
        if not self._lookups:
            return
        lks = sorted(self._lookups, key=lambda t: t[0])
        per: list[list[AttrFact]] = [[] for _ in lks]
        for off, a in sorted(self._pf_built + self.dropped_fields(), key=lambda t: t[0]):
            i = max((j for j, (lo, _) in enumerate(lks) if lo <= off), default=0)
            per[i].append(a)
        self.ex.lookups.extend(dataclasses.replace(lk, attrs=tuple(per[i])) for i, (_o, lk) in enumerate(lks))

    def dropped_fields(self) -> list[tuple[int, AttrFact]]:
        """``PluginField("name", ...)`` in the function's text that the walk did not see: libclang keeps a statement
        naming a local whose type did not resolve (under a missing header) as an opaque recovery expression, or
        drops it, and the PluginField built in it is lost (``f.emplace_back(PluginField("in_shape", v.data(), ...))``
        with ``auto v = util::toVec(...)``). Read from the body's text, comments blanked; none where the body holds
        a preprocessor line (an inactive branch's text is no code) or comes from a macro or another file."""
        ex, K = self.ex, self.K
        body = next((ch for ch in children(self.fn) if ch.kind == K.COMPOUND_STMT), None)
        if body is None:
            return []
        f, _l1, _c1, o1, _l2, _c2, o2 = ex.extent_info(body)
        rel = ex.rel_of(f)
        if f is None or rel is None or o2 - o1 < 14 or ex.cursor_file(body) != f:
            return []
        b = ex.file_bytes(f)
        text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), b[o1:o2].decode("latin-1"))
        if "PluginField" not in text or re.search(r"^[ \t]*#", text, re.M):
            return []
        seen = {(a.span.path, a.span.line, a.span.col) for _o, a in self._pf_built}
        out: list[tuple[int, AttrFact]] = []
        for m in _DROPPED_FIELD.finditer(text):
            off = o1 + m.start(1)
            line = b.count(b"\n", 0, off) + 1
            col = off - (b.rfind(b"\n", 0, off) + 1) + 1
            if (rel, line, col) in seen:
                continue
            rest = text[m.end(1):].split(";", 1)[0]
            t = re.search(r"PluginFieldType\s*::\s*(k[A-Z][A-Z0-9_]*)", rest)
            out.append((off, AttrFact(m.group(1)[1:-1], Span(rel, line, col, line, col + len(m.group(1))),
                                      None, t.group(1) if t else None)))
        return out

    # -- field reads --

    def refs_fc(self, c: Cursor) -> bool:
        K = self.K
        for sub in preorder(c):
            if sub.kind == K.DECL_REF_EXPR:
                ref = sub.referenced
                if ref is not None and ref.get_usr() in self.fc_usrs:
                    return True
        return False

    def add_read(self, lit: Cursor, parents: tuple[Cursor, ...] = (), call: Cursor = None, style: str = "compare",
                 ftype: Optional[str] = None) -> None:
        r = self.ex.resolve_str(lit)
        if r is None or r[0] is None:
            return
        sp = self.span(lit)
        key = (r[0], sp.line * 10000 + sp.col)
        if key in self._seen_reads:
            return
        self._seen_reads.add(key)
        has_default, default = False, None
        if call is not None and parents:
            d = self.value_or(parents)
            if d is not None:
                has_default, default = True, d
        self.field_reads.append(FieldRead(name=r[0], span=sp, method=self.fname, has_default=has_default, default=default,
                                          style=style, type=ftype, cast=self._read_casts.get((sp.line, sp.col))))

    def value_or(self, parents: tuple[Cursor, ...]) -> Optional[str]:
        K = self.K
        for p in reversed(parents[-4:]):
            if p.kind == K.MEMBER_REF_EXPR and p.spelling == "value_or":
                continue
            if p.kind == K.CALL_EXPR and p.spelling == "value_or":
                args = arguments(p)
                return short(self.ex.text_of(args[0])) if args else ""
            if p.kind not in (K.UNEXPOSED_EXPR, K.MEMBER_REF_EXPR, K.PAREN_EXPR):
                return None
        return None

    def string_operands(self, c: Cursor) -> list[Cursor]:
        out = []
        for ch in children(c):
            if self.ex.resolve_str(ch) is not None:
                out.append(ch)
        return out

    def on_binop(self, c: Cursor) -> None:
        op = {15: "==", 16: "!="}.get(binop_code(c))
        if op is None:
            kids = children(c)
            if len(kids) != 2:
                return
            a, b = self.ex.extent_info(kids[0]), self.ex.extent_info(kids[1])
            if a[0] is None or a[0] != b[0]:
                return
            between = self.ex.file_bytes(a[0])[a[6]:b[3]].decode("utf-8", "replace").strip()
            if between not in ("==", "!="):
                return
        for lit in self.string_operands(c):
            self.add_read(lit)

    def on_call_reads(self, c: Cursor, name: str, args: list[Cursor], parents: tuple[Cursor, ...]) -> None:
        K = self.K
        if name in ("operator==", "operator!="):
            kids = children(c)
            for lit in self.string_operands(c):
                self.add_read(lit)
            del kids
            return
        if name in _STRCMP_FUNCS:
            for a in args:
                if self.ex.resolve_str(a) is not None:
                    self.add_read(a)
            return
        if name in _MAP_LOOKUPS and len(args) == 1 and self.refs_fc(args[0]):
            self.on_map_reads(c)
            return
        if self.fc_views and args and self.on_view_call(c):
            for a in args:
                if self.ex.resolve_str(a) is not None:
                    self.add_read(a, parents, c, style="call")
            return
        if args and any(self.refs_fc(a) for a in args):
            for a in args:
                if self.refs_fc(a):
                    continue
                if self.ex.resolve_str(a) is not None:
                    self.add_read(a, parents, c, style="call")
                else:
                    for sub in preorder(a):
                        if sub.kind == K.STRING_LITERAL:
                            self.add_read(sub, parents, c, style="call")

    def on_fc_view(self, var: Cursor, kids: list[Cursor]) -> None:
        """``PluginFieldParser p{fc->nbFields, fc->fields};``: a local object of class type made from the field
        collection, whose methods then read the fields by name (``p.getScalar<int32_t>("num_heads")``)."""
        try:
            record = var.type.get_canonical().kind == self.ex.ci.TypeKind.RECORD
        except Exception:  # noqa: BLE001
            record = False
        if record and var.get_usr() and any(self.refs_fc(k) for k in kids if k.kind != self.K.TYPE_REF):
            self.fc_views.add(var.get_usr())

    def on_view_call(self, c: Cursor) -> bool:
        """A method called on such an object (``p.getScalar<T>(...)``): its string arguments name the fields read."""
        K = self.K
        kids = children(c)
        obj = children(kids[0]) if kids and kids[0].kind == K.MEMBER_REF_EXPR else []
        o = look_through(K, obj[0]) if obj else None
        return o is not None and o.kind == K.DECL_REF_EXPR and o.referenced is not None \
            and o.referenced.get_usr() in self.fc_views

    def on_map_reads(self, c: Cursor) -> None:
        """``table.find(fc->fields[i].name)`` on a local table initialised with ``{{"max_batch", &maxBatch}, ...}``:
        each key (the first string literal of each braced pair) is a field read, read as the scalar the table's mapped
        type points to (``int*``: kINT32; fielddata.table_read_type)."""
        K = self.K
        kids = children(c)
        ref = kids[0] if kids else None
        while ref is not None and ref.kind != K.DECL_REF_EXPR:
            sub = children(ref)
            ref = sub[0] if sub else None
        var = ref.referenced if ref is not None else None
        if var is None or var.kind != K.VAR_DECL:
            return
        ftype = fielddata.table_read_type(self.ex, var)
        for sub in preorder(var):
            if sub.kind != K.INIT_LIST_EXPR:
                continue
            pair = children(sub)
            if len(pair) == 2:
                lits = [x for x in preorder(pair[0]) if x.kind == K.STRING_LITERAL]
                if len(lits) == 1:
                    self.add_read(lits[0], style="map", ftype=ftype)
