"""String constants and creator registrations in the C++ frontend's declaration walk (a mixin of
:class:`.decls.Extractor`): an expression resolved to the string it holds (through macros, variables, casts,
``c_str()`` and constructors), creators registered by list (``{&sCreator, ...}``), by
``REGISTER_TENSORRT_PLUGIN`` or a project's own registration macro, and by a ``PluginRegistrar`` variable a
project macro's expansion declares.

Only the modules of this package touch libclang cursors; what leaves is plain facts.
"""

from __future__ import annotations

import re
from typing import Optional

from trtlint.base.facts import Registration, Span
from .base import Cursor, children, evaluate_int, literal_value, preorder, short


class Registrations:
    """The string and registration half of :class:`.decls.Extractor` (it reads the extractor's files, names,
    ``macro_at``, ``macro_insts``, ``register_macros`` and ``registrar_vars``)."""


    def macro_name_at(self, c: Cursor) -> Optional[Cursor]:
        """The macro instantiation an expression was expanded from (the outermost at its start)."""
        loc = c.extent.start
        f = loc.file
        if f is None:
            return None
        return self.macro_at.get((f.name, loc.offset))

    def resolve_str(self, c: Cursor, depth: int = 0) -> Optional[tuple[Optional[str], Optional[str], Optional[Span]]]:
        """Resolve an expression to a string constant: (value, via, def_span), or None if not a constant."""
        if depth > 12 or c is None:
            return None
        via: Optional[str] = None
        def_span: Optional[Span] = None
        m = self.macro_name_at(c) if depth == 0 else None
        if m is not None:
            via = m.spelling
            try:
                md = m.referenced
                if md is not None:
                    def_span = self.loc_span(md)
            except Exception:  # noqa: BLE001
                pass
        r = self._resolve_inner(c, depth)
        if r is None:
            return None
        val, v2, d2 = r
        if via is None:
            via, def_span = v2, d2
        return val, via, def_span

    def _resolve_inner(self, c: Cursor, depth: int) -> Optional[tuple[Optional[str], Optional[str], Optional[Span]]]:
        K = self.K
        k = c.kind
        if k == K.STRING_LITERAL:
            v = literal_value(c.spelling or self.text_of(c))
            return (v, None, None) if v is not None else None
        if k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
                 K.CXX_STATIC_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.INIT_LIST_EXPR):
            kids = [ch for ch in children(c) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if len(kids) == 1:
                return self.resolve_str(kids[0], depth + 1)
            return None
        if k == K.DECL_REF_EXPR:
            d = c.referenced
            if d is None or d.kind not in (K.VAR_DECL, K.FIELD_DECL):
                return None
            init = self._var_init(d)
            if init is None:
                return None
            r = self.resolve_str(init, depth + 1)
            if r is None:
                return None
            return r[0], d.spelling, self.loc_span(d)
        if k == K.MEMBER_REF_EXPR:
            d = c.referenced
            if d is not None and d.kind == K.VAR_DECL:  # static member via object
                init = self._var_init(d)
                if init is not None:
                    r = self.resolve_str(init, depth + 1)
                    if r is not None:
                        return r[0], d.spelling, self.loc_span(d)
            return None
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            return self._resolve_element(c, depth)
        if k == K.CALL_EXPR:
            ref = c.referenced
            name = c.spelling or ""
            kids = [ch for ch in children(c) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
            if name.startswith('operator""'):
                for ch in kids:
                    r = self.resolve_str(ch, depth + 1)
                    if r is not None:
                        return r
                return None
            if name in ("c_str", "data") and kids:
                obj = kids[0]
                if obj.kind == K.MEMBER_REF_EXPR:
                    inner = children(obj)
                    if len(inner) == 1:
                        return self.resolve_str(inner[0], depth + 1)
                return None
            if ref is not None and ref.kind == K.CONSTRUCTOR:
                args = list(c.get_arguments())
                real = [a for a in args if a.kind != K.UNEXPOSED_EXPR or self.text_of(a)]
                if len(real) >= 1:
                    return self.resolve_str(real[0], depth + 1)
                if len(kids) == 1:
                    return self.resolve_str(kids[0], depth + 1)
            return None
        return None

    def _resolve_element(self, c: Cursor, depth: int) -> Optional[tuple[Optional[str], Optional[str], Optional[Span]]]:
        """``kNAMES[1]`` with a constant index, where ``kNAMES`` is a variable initialised with a brace list (``char
        const* const kNAMES[] = {"A", "B"}``, ``std::string const kNAMES[] = {...}``): the element's string, via the
        array's name."""
        K = self.K
        kids = [ch for ch in children(c) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
        if len(kids) != 2:
            return None
        i = evaluate_int(kids[1])
        base = kids[0]
        while base.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) and len(children(base)) == 1:
            base = children(base)[0]
        if i is None or i < 0 or base.kind != K.DECL_REF_EXPR:
            return None
        d = base.referenced
        if d is None or d.kind != K.VAR_DECL:
            return None
        init = self._var_init(d)
        while init is not None and init.kind == K.UNEXPOSED_EXPR and len(children(init)) == 1:
            init = children(init)[0]
        if init is None or init.kind != K.INIT_LIST_EXPR:
            return None
        elems = children(init)
        if i >= len(elems):
            return None
        r = self.resolve_str(elems[i], depth + 1)
        if r is None or r[0] is None:
            return None
        return r[0], f"{d.spelling}[{i}]", self.loc_span(d)

    def _var_init(self, d: Cursor) -> Optional[Cursor]:
        K = self.K
        init = None
        dd = d.get_definition() or d
        for ch in children(dd):
            if ch.kind in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF, K.ANNOTATE_ATTR, K.UNEXPOSED_ATTR):
                continue
            if ch.kind.is_expression() or ch.kind in (K.STRING_LITERAL, K.INIT_LIST_EXPR, K.CALL_EXPR):
                init = ch
        return init

    # -- registrations ------------------------------------------------------------------------------------

    def var_class(self, var: Cursor) -> Optional[str]:
        """Qualified class name of a variable's declared type (also for invalid declarations)."""
        K = self.K
        try:
            d = var.type.get_declaration()
            if d is not None and d.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                return self.qualname(d)
        except Exception:  # noqa: BLE001
            pass
        for ch in children(var):
            if ch.kind == K.TYPE_REF and ch.referenced is not None:
                return self.qualname(ch.referenced)
        return None

    def scan_creator_list(self, var: Cursor, func: Optional[str], local_vars: Optional[dict[str, Cursor]] = None) -> None:
        """A creator list: a variable of an array or container of creator pointers initialised with a brace list
        (``static IPluginCreatorInterface* const kLIST[] = {&sCreator, ...}``, ``static std::array kLIST =
        {creatorPtr(sCreator), ...}``). A function-local list is recorded with the function holding it; a list
        declared outside functions waits in ``pending_lists`` for the function bodies that read it
        (:meth:`read_creator_list`). Whether the list registers anything is the index's call (the holder is a
        library entry point, or a function calling ``registerCreator`` reads it)."""
        K = self.K
        tsp = var.type.spelling or ""
        if "IPluginCreator" not in tsp or ("[" not in tsp and "<" not in tsp):
            return
        init = next((ch for ch in children(var) if ch.kind == K.INIT_LIST_EXPR), None)
        if init is None:
            init = next((ch for ch in preorder(var) if ch.kind == K.INIT_LIST_EXPR), None)
        while init is not None:
            elems = children(init)
            if len(elems) == 1 and elems[0].kind == K.INIT_LIST_EXPR:  # std::array's aggregate {{...}}
                init = elems[0]
                continue
            break
        if init is None:
            return
        found: list[tuple[str, Optional[str], Span]] = []
        for el in children(init):
            txt = self.text_of(el)
            qn = self.listed_creator(el)
            if qn is None:
                m = re.search(r"[A-Za-z_]\w*", txt)
                v = (local_vars or {}).get(m.group(0)) if m else None
                if v is not None:
                    qn = self.var_class(v)
            span = self.span_of(el) or self.loc_span(var)
            if span is not None:
                found.append((short(txt), qn, span))
        parent = var.semantic_parent
        fn_kinds = (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR, K.DESTRUCTOR)
        if parent is not None and parent.kind in fn_kinds:
            for txt, qn, span in found:
                self.registrations.append(Registration(creator=txt, qualname=qn, span=span, how="list",
                                                       holder=parent.spelling or func, holder_usr=parent.get_usr() or None))
        elif found and var.spelling:
            self.pending_lists.setdefault(var.spelling, {})[var.get_usr() or ""] = found

    def read_creator_list(self, ref: Cursor, fn: Cursor) -> None:
        """A function body reads a creator list declared outside functions (``return kLIST;``): the list's creators,
        recorded with that function as the list's holder (once per function)."""
        d = ref.referenced
        if d is None:
            return
        found = self.pending_lists.get(ref.spelling or "", {}).get(d.get_usr() or "")
        usr = fn.get_usr() or None
        if not found or (d.get_usr(), usr) in self.read_lists:
            return
        self.read_lists.add((d.get_usr(), usr))
        for txt, qn, span in found:
            self.registrations.append(Registration(creator=txt, qualname=qn, span=span, how="list",
                                                   holder=fn.spelling or None, holder_usr=usr))

    def listed_creator(self, el: Cursor, depth: int = 0) -> Optional[str]:
        """The creator class of a creator list's element: ``&sCreator``, ``sCreator`` (a pointer), ``new
        Creator{}``, through casts and through a helper that returns its argument or the argument's address
        (``creatorPtr(sCreator)`` with ``IPluginCreator* creatorPtr(IPluginCreator& c) { return &c; }``); None
        when it is none of those."""
        K = self.K
        if depth > 6 or el is None:
            return None
        k = el.kind
        kids = [ch for ch in children(el) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
        if k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_CONST_CAST_EXPR,
                 K.CXX_REINTERPRET_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.UNARY_OPERATOR):
            if k == K.UNARY_OPERATOR and not self.text_of(el).lstrip().startswith("&"):
                return None
            return self.listed_creator(kids[0], depth + 1) if len(kids) == 1 else None
        if k in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            d = el.referenced
            if d is not None and d.kind in (K.VAR_DECL, K.FIELD_DECL):
                return self.var_class(d)
            return None
        if k == K.CXX_NEW_EXPR:
            for ch in preorder(el):
                if ch.kind == K.TYPE_REF and ch.referenced is not None and ch.referenced.kind in (K.CLASS_DECL, K.STRUCT_DECL):
                    return self.qualname(ch.referenced)
            return None
        if k == K.CALL_EXPR:
            args = list(el.get_arguments())
            if len(args) == 1 and self._returns_own_arg(el.referenced):
                return self.listed_creator(args[0], depth + 1)
        return None

    def _returns_own_arg(self, fn: Optional[Cursor]) -> bool:
        """A one-statement function (or function template) whose statement returns its only parameter or the
        parameter's address, through casts: ``return &c;``."""
        K = self.K
        if fn is None or fn.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD):
            return False
        cands = [fn.get_definition()]
        try:  # a function template's specialization: the template's definition
            tmpl = self.ci.conf.lib.clang_getSpecializedCursorTemplate(fn)
            if tmpl is not None and not tmpl.kind.is_invalid():
                cands.append(tmpl.get_definition())
        except Exception:  # noqa: BLE001
            pass
        for d in cands:
            if d is None:
                continue
            params = [ch for ch in children(d) if ch.kind == K.PARM_DECL]
            body = [ch for ch in children(d) if ch.kind == K.COMPOUND_STMT]
            if len(params) != 1 or len(body) != 1:
                continue
            stmts = children(body[0])
            if len(stmts) != 1 or stmts[0].kind != K.RETURN_STMT:
                continue
            e = next(iter(children(stmts[0])), None)
            while e is not None and e.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
                                               K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.UNARY_OPERATOR):
                if e.kind == K.UNARY_OPERATOR and not self.text_of(e).lstrip().startswith("&"):
                    break
                inner = [ch for ch in children(e) if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)]
                e = inner[0] if len(inner) == 1 else None
            if e is not None and e.kind == K.DECL_REF_EXPR and e.referenced is not None \
                    and e.referenced.kind == K.PARM_DECL and e.referenced.spelling == params[0].spelling:
                return True
        return False

    def finish_registrations(self) -> None:
        K = self.K
        claimed: set[str] = set()
        for m in self.register_macros:
            f = self.cursor_file(m)
            ext = m.extent
            args = self.macro_args(f, ext.start.offset, ext.end.offset, m.spelling) if f else ()
            creator = args[0] if args else ""
            rel = self.rel_of(f) or self.src.rel
            span = Span(rel, ext.start.line, ext.start.column, ext.end.line, ext.end.column)
            qn = None
            claimed.add("pluginRegistrar" + creator.split("::")[-1].strip())
            var = self.registrar_vars.get("pluginRegistrar" + creator.split("::")[-1].strip())
            if var is not None:
                try:
                    t = var.type.get_template_argument_type(0)
                    d = t.get_declaration()
                    if d is not None and d.kind != K.NO_DECL_FOUND:
                        qn = self.qualname(d)
                except Exception:  # noqa: BLE001
                    qn = None
                if qn is None:
                    for ch in preorder(var):
                        if ch.kind == K.TYPE_REF and ch.referenced is not None and ch.referenced.spelling == creator.split("::")[-1]:
                            qn = self.qualname(ch.referenced)
                            break
            if qn is None:
                qn = self.class_by_name.get(creator.split("::")[-1].strip())
            if m.spelling != "REGISTER_TENSORRT_PLUGIN":
                # a project's own registration macro (Torch-TensorRT's REGISTER_TORCHTRT_PLUGIN_V3 wraps
                # registerCreator(instance, "torch_tensorrt")): a registration, in a namespace not known here
                if qn is None:
                    continue
                self.registrations.append(Registration(creator=creator, qualname=qn, span=span, how="project-macro"))
                continue
            self.registrations.append(Registration(creator=creator, qualname=qn, span=span, how="macro"))
        for name, var in self.registrar_vars.items():
            if name not in claimed:
                self.expanded_registration(var)

    def expanded_registration(self, var: Cursor) -> None:
        """A ``PluginRegistrar<Creator>`` variable no written ``REGISTER_TENSORRT_PLUGIN`` produced: the
        expansion of a project macro that writes it (with the creator class) for its argument. libclang
        reports no cursor for a macro used inside another's replacement, so the variable is the registration,
        located at the project macro's use (the line the user wrote)."""
        try:
            d = var.type.get_template_argument_type(0).get_declaration()
            registrar = self.qualname(var.type.get_declaration())
        except Exception:  # noqa: BLE001
            return
        # only TensorRT's own registrar registers under "" (a project's registrar class of the same name may not)
        if d is None or d.kind == self.K.NO_DECL_FOUND or registrar.split("<")[0] != "nvinfer1::PluginRegistrar":
            return
        qn = self.qualname(d)
        span = self.expansion_site(var) or self.span_of(var)
        if span is not None:
            self.registrations.append(Registration(creator=d.spelling or qn.split("::")[-1], qualname=qn,
                                                   span=span, how="macro"))

    def expansion_site(self, c: Cursor) -> Optional[Span]:
        """The span of the project macro use whose expansion produced ``c``, or None."""
        f, _l1, _c1, o1, _l2, _c2, _o2 = self.extent_info(c)
        for mf, m1, m2, _name, m in self.macro_insts:
            if mf == f and m1 <= o1 <= m2:
                ext = m.extent
                return Span(self.rel_of(mf) or self.src.rel, ext.start.line, ext.start.column, ext.end.line,
                            ext.end.column)
        return None
