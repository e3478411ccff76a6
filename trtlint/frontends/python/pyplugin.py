"""Python frontend, libcst part: a plugin created through the TensorRT Python API, joined into one route.

The three pieces of a Python plugin creation are written apart::

    creator = trt.get_plugin_registry().get_plugin_creator("Foo", "1", "")   # or get_creator(...), or a scan:
    for c in trt.get_plugin_registry().plugin_creator_list:                  #   if c.name == "Foo": ...
    fields = [trt.PluginField("alpha", np.array([1.0], np.float32), trt.PluginFieldType.FLOAT32)]
    plugin = creator.create_plugin("foo", trt.PluginFieldCollection(fields))

:class:`PluginCreationMixin` (a part of :class:`~.onnx_emit.FactCollector`) records, along the walk, each
``trt.PluginField`` with a literal name (an :class:`~trtlint.base.facts.AttrFact` at the name, its type the
``PluginFieldType`` written, as ``kINT32``..., when it is a member of tensorrt's), what names hold a
creator (a lookup's result, a scan's loop variable under ``if c.name == "Foo"``, an alias of either), a field
or a collection of fields (a list or ``PluginFieldCollection`` literal, ``append``/``extend``/``+=``), and each
``create_plugin`` call. When the module's walk is done (:meth:`PluginCreationMixin.join_plugin_creations`, so
a function may use a creator looked up at module level further down), each ``create_plugin`` call's receiver is
resolved to its lookup and its collection to its fields, and the lookup carries them as its attributes
(``CreatorLookup.attrs``): the contract rules then judge the field names against the creator's declared fields
as they do for C++ model code. A collection that cannot be followed counts as every ``PluginField`` of the
function that creates the plugin, when that function creates only one plugin (``open_attrs``); otherwise the
lookup keeps no fields. Name resolution is flow-insensitive within a scope; nothing is imported or executed.

A loader class spreads the pieces over its methods: a creator kept on the instance (``self.creator = <lookup>`` in
any method) is the receiver ``self.creator`` of the class's other methods, and a collection may be what a method
(``self.build_fields(...)``) or a function of the module returns (each ``return`` of a followed collection,
joined at the end of the walk, so the definition may come later). ``trt`` brought by a star import of a project
module (``from package.module import *``, a name bound nowhere in this module) counts as tensorrt for
``trt.PluginField``/``trt.PluginFieldCollection``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from trtlint.base.facts import AttrFact, CreatorLookup
from .values import Scope, callee_last, string_value

SCAN_ATTR = "plugin_creator_list"
SCAN_FORM = "plugin_creator_list"


@dataclass
class Fields:
    """The ``PluginField``s a collection holds (in order), and whether some of it was not followed."""

    items: list = field(default_factory=list)  # AttrFact
    open: bool = False
    refs: list = field(default_factory=list)  # (table, name): what a function or method named so returns

    def add(self, other: Optional["Fields"]) -> None:
        if other is None:
            self.open = True
            return
        self.items.extend(other.items)
        self.refs.extend(other.refs)
        self.open = self.open or other.open


@dataclass
class PyPluginScope:
    """Per scope: names holding creators (-> indices into the collector's lookups), fields, collections and
    plugin-creator lists; the ``PluginField``s made in the scope and its ``create_plugin`` calls."""

    creators: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)  # name -> AttrFact
    colls: dict = field(default_factory=dict)  # name -> Fields
    lists: set = field(default_factory=set)  # names bound to a registry's plugin_creator_list
    scans: set = field(default_factory=set)  # loop variables over a plugin_creator_list
    made: list = field(default_factory=list)  # AttrFact of every PluginField made here
    creates: int = 0
    returned: Optional[Fields] = None  # a function's: the collections its ``return``s hand back
    returns: dict = field(default_factory=dict)  # functions (methods, in a class's) defined here -> returned


@dataclass
class _Create:
    recv: cst.BaseExpression
    coll: Optional[cst.BaseExpression]
    chain: list  # the PyPluginScopes around the call, innermost last
    home: PyPluginScope  # the innermost function's (or the module's)
    idx: Optional[list] = None  # the lookups, when resolved at the call
    cls: Optional[PyPluginScope] = None  # the class of the method the call is in (``self.<attr>`` receivers)
    fn: Optional[Scope] = None  # the innermost function's scope (a helper's parameters: paramhelper)


def _pp(sc: Scope) -> PyPluginScope:
    st = sc.__dict__.get("pyplugin")
    if st is None:
        st = sc.__dict__["pyplugin"] = PyPluginScope()
    return st


class PluginCreationMixin:
    """Mixed into the fact collector (a :class:`~.values.ValueTracker`); see the module docstring."""

    def init_plugin_creation(self) -> None:
        self.pf_facts: dict[int, AttrFact] = {}  # id(PluginField call) -> its fact
        self.lookup_at: dict[int, list[int]] = {}  # id(lookup call) -> indices into self.lookups
        self.creates: list[_Create] = []

    # ---- scopes -------------------------------------------------------------------------------------
    def _pp_chain(self) -> list:
        """The plugin-creation state of the scopes visible here (class scopes other than the innermost skipped,
        as for name lookups), outermost first."""
        last = len(self.scopes) - 1
        return [_pp(sc) for i, sc in enumerate(self.scopes) if sc.kind != "class" or i == last]

    def _pp_home(self) -> PyPluginScope:
        for sc in reversed(self.scopes):
            if sc.kind in ("function", "module"):
                return _pp(sc)
        return _pp(self.scopes[0])  # pragma: no cover - the module scope is always there

    def _pp_class(self) -> Optional[PyPluginScope]:
        """The plugin-creation state of the class whose method the walk is in (None outside a method)."""
        for i in range(len(self.scopes) - 1, 0, -1):
            if self.scopes[i].kind == "function":
                return _pp(self.scopes[i - 1]) if self.scopes[i - 1].kind == "class" else None
        return None

    @staticmethod
    def _find(chain: list, attr: str, name: str):
        """What ``name`` holds in the innermost scope of ``chain`` that binds it (``attr``: which table)."""
        for st in reversed(chain):
            holder = getattr(st, attr)
            if isinstance(holder, set):
                if name in holder:
                    return name
                continue
            v = holder.get(name)
            if v is not None:
                return v
        return None

    # ---- along the walk -----------------------------------------------------------------------------
    def is_trt(self, func: cst.BaseExpression, last: str) -> bool:
        q = self.qualify(func) or ""
        if q.startswith("tensorrt.") and q.rsplit(".", 1)[-1] == last:
            return True
        # ``from package.module import *`` that brings ``trt`` (``import tensorrt as trt`` over there): a name
        # bound nowhere in this module, used as ``<name>.PluginField`` / ``<name>.PluginFieldCollection``
        return (
            not q
            and bool(self.star_imports)
            and isinstance(func, cst.Attribute)
            and func.attr.value == last
            and isinstance(func.value, cst.Name)
            and func.value.value not in self.imports
            and self.lookup(func.value.value) is None
        )

    def coll_ctor(self, func: cst.BaseExpression) -> bool:
        """``<x>.PluginFieldCollection``, or a name ending so that nothing in this module binds (an alias of it
        another module makes, ``TRTPluginFieldCollection = trt.PluginFieldCollection``, brought by a star import)."""
        last = callee_last(func)
        if last == "PluginFieldCollection":
            return True
        if isinstance(func, cst.Name) and last.endswith("PluginFieldCollection"):
            b = self.lookup(last)
            return b is None or b.kind == "import"
        return False

    def plugin_field_call(self, node: cst.Call) -> None:
        """``trt.PluginField(name, data, type)``: a field with a literal name becomes a fact of this scope."""
        args = [a for a in node.args if not a.star]
        name_arg = next((a for a in args if a.keyword is not None and a.keyword.value == "name"), None)
        if name_arg is None and args and args[0].keyword is None:
            name_arg = args[0]
        name = string_value(name_arg.value) if name_arg is not None else None
        home = self._pp_home()
        if name is None:
            if name_arg is not None:
                self.dict_field(name_arg.value)  # named by the keys of a dict parameter's entry (dicthelper)
            return
        data = args[1].value if len(args) > 1 and args[1].keyword is None else None
        fact = AttrFact(name, self.span(name_arg.value), self.text(data) if data is not None else None,
                        type=self.plugin_field_type(args), name_span=self.span(name_arg.value))
        self.pf_facts[id(node)] = fact
        home.made.append(fact)

    def plugin_field_type(self, args: list) -> Optional[str]:
        """The ``PluginFieldType`` a ``trt.PluginField(name, data, type)`` call writes (third positional argument or
        ``type=``), as the C++ spelling (``trt.PluginFieldType.INT32`` -> ``kINT32``); None when not written as a
        member of tensorrt's ``PluginFieldType`` (a variable, a default)."""
        t = next((a.value for a in args if a.keyword is not None and a.keyword.value == "type"), None)
        if t is None and len(args) > 2 and all(a.keyword is None for a in args[:3]):
            t = args[2].value
        if not isinstance(t, cst.Attribute) or not self.is_trt(t.value, "PluginFieldType"):
            return None
        return "k" + t.attr.value

    def lookup_made(self, node: cst.Call, indices: list[int]) -> None:
        self.lookup_at[id(node)] = indices

    def create_plugin_call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Attribute):
            return
        coll = None
        pos = [a for a in node.args if a.keyword is None and not a.star]
        for a in node.args:
            if a.keyword is not None and a.keyword.value in ("field_collection", "fc"):
                coll = a.value
        if coll is None and len(pos) >= 2:
            coll = pos[1].value
        home = self._pp_home()
        home.creates += 1
        chain = self._pp_chain()
        recv = node.func.value
        # a name resolves now (a scan variable holds the creator of the ``if`` it is under); a call later (its
        # lookup is visited after this call) and a name bound further down the module at the end
        idx = self._find(chain, "creators", recv.value) if isinstance(recv, cst.Name) else None
        fn = next((sc for sc in reversed(self.scopes) if sc.kind == "function"), None)
        self.creates.append(_Create(recv, coll, chain, home, list(idx) if idx else None, cls=self._pp_class(), fn=fn))

    def collection_method(self, node: cst.Call, recv: str, method: str) -> None:
        """``fields.append(f)`` / ``fields.extend([...])`` / ``pfc.append(f)`` on a followed collection."""
        coll = self._find(self._pp_chain(), "colls", recv)
        if coll is None:
            return
        args = [a for a in node.args if a.keyword is None and not a.star]
        if len(args) != 1:
            coll.open = True
            return
        if method == "append":
            coll.add(self._element(args[0].value, self._pp_chain()))
        else:
            coll.add(self._fields_of(args[0].value, self._pp_chain()))

    def plugin_assign(self, node: cst.Assign) -> None:
        value = node.value
        cls = self._pp_class()
        members = [_self_attr(t.target) for t in node.targets if _self_attr(t.target)]
        if members and cls is not None:  # ``self.creator = registry.get_plugin_creator(...)`` in some method
            idx = self.lookup_at.get(id(value)) if isinstance(value, cst.Call) else None
            for m in members:
                if idx is not None:
                    cls.creators[m] = list(idx)
                else:
                    cls.creators.pop(m, None)
        targets = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
        if not targets:
            return
        chain = self._pp_chain()
        st = chain[-1]
        # what the value holds, read before the targets are rebound (``fc = trt.PluginFieldCollection(fc)``)
        kind, held = None, None
        if isinstance(value, cst.Call):
            idx = self.lookup_at.get(id(value))
            fact = self.pf_facts.get(id(value))
            if idx is not None:
                kind, held = "creators", list(idx)
            elif fact is not None:
                kind, held = "fields", fact
            elif self.is_trt(value.func, "PluginFieldCollection") or self.coll_ctor(value.func):
                kind, held = "colls", self._fields_of(value, chain) or Fields(open=True)
            else:
                ref = self._call_ref(value, chain, cls)
                if ref is not None:  # ``fc = self.build_fields(...)``: what that method returns (at the join)
                    kind, held = "colls", Fields(refs=[ref])
        elif isinstance(value, (cst.List, cst.Tuple)):
            f = self._fields_of(value, chain)
            if f is not None and (f.items or not value.elements):
                kind, held = "colls", f
        elif isinstance(value, cst.Attribute) and value.attr.value == SCAN_ATTR:
            kind = "lists"
        elif isinstance(value, cst.Name):
            idx = self._find(chain, "creators", value.value)
            if idx is not None:
                kind, held = "creators", list(idx)
        for name in targets:  # a rebinding forgets what the name held
            st.creators.pop(name, None)
            st.fields.pop(name, None)
            st.colls.pop(name, None)
            st.lists.discard(name)
            if kind == "lists":
                st.lists.add(name)
            elif kind is not None:
                getattr(st, kind)[name] = held

    def plugin_augassign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
            coll = self._find(self._pp_chain(), "colls", node.target.value)
            if coll is not None:
                coll.add(self._fields_of(node.value, self._pp_chain()))

    def plugin_for(self, node: cst.For) -> None:
        """``for c in <registry>.plugin_creator_list`` (or a name bound to one): ``c`` is a scan variable."""
        it = node.iter
        scan = (isinstance(it, cst.Attribute) and it.attr.value == SCAN_ATTR) or (
            isinstance(it, cst.Name)
            and (self._find(self._pp_chain(), "lists", it.value) is not None or it.value in self._module_lists())
        )
        if scan and isinstance(node.target, cst.Name):
            self._pp_chain()[-1].scans.add(node.target.value)

    def plugin_if(self, node: cst.If) -> None:
        """``if c.name == "Foo"`` (and optionally ``c.plugin_version == "1"``) on a scan variable: a lookup."""
        chain = self._pp_chain()
        var, name, name_node, version = None, None, None, None
        tests = [node.test]
        if isinstance(node.test, cst.BooleanOperation) and isinstance(node.test.operator, cst.And):
            tests = [node.test.left, node.test.right]
        for t in tests:
            hit = _compare_attr(t)
            if hit is None:
                continue
            v, attr, lit_node = hit
            if self._find(chain, "scans", v) is None:
                continue
            if attr == "name":
                var, name, name_node = v, string_value(lit_node), lit_node
            elif attr == "plugin_version":
                version = string_value(lit_node)
        if var is None or name is None:
            return
        lk = CreatorLookup(name, version, None, self.span(node.test), self.span(name_node), form=SCAN_FORM)
        self.lookups.append(lk)
        idx = [len(self.lookups) - 1]
        chain[-1].creators[var] = idx

    def _module_lists(self) -> set:
        """Module-level names assigned a registry's ``plugin_creator_list`` anywhere in the module (a function above
        the assignment scans it too)."""
        memo = self.__dict__.get("_lists_memo")
        if memo is None:
            memo = self.__dict__["_lists_memo"] = set()
            for stmt in self.module.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Attribute) and small.value.attr.value == SCAN_ATTR:
                        memo.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
        return memo

    # ---- resolution ---------------------------------------------------------------------------------
    def _element(self, node: cst.BaseExpression, chain: list) -> Optional[Fields]:
        if isinstance(node, cst.Call):
            fact = self.pf_facts.get(id(node))
            return Fields([fact]) if fact is not None else None
        if isinstance(node, cst.Name):
            fact = self._find(chain, "fields", node.value)
            return Fields([fact]) if fact is not None else None
        return None

    def _fields_of(self, node: Optional[cst.BaseExpression], chain: list, cls=False) -> Optional[Fields]:
        """The fields a collection expression holds; None when it is not one trtlint follows. ``cls``: the
        class state of the method the expression is in (looked up along the walk when not given)."""
        if node is None:
            return None
        if cls is False:
            cls = self._pp_class()
        if isinstance(node, (cst.List, cst.Tuple)):
            out = Fields()
            for el in node.elements:
                if isinstance(el, cst.StarredElement):
                    out.add(self._fields_of(el.value, chain, cls))
                else:
                    out.add(self._element(el.value, chain))
            return out
        if isinstance(node, cst.Name):
            return self._find(chain, "colls", node.value)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left, right = self._fields_of(node.left, chain, cls), self._fields_of(node.right, chain, cls)
            if left is None and right is None:
                return None
            out = Fields()
            out.add(left)
            out.add(right)
            return out
        if isinstance(node, cst.Call) and self.coll_ctor(node.func):
            args = [a for a in node.args if not a.star and a.keyword is None]
            if not node.args:
                return Fields()
            if len(args) != 1:
                return None
            return self._fields_of(args[0].value, chain, cls)
        if isinstance(node, cst.Call):
            ref = self._call_ref(node, chain, cls)
            return Fields(refs=[ref]) if ref is not None else None
        return None

    @staticmethod
    def _call_ref(node: cst.Call, chain: list, cls) -> Optional[tuple]:
        """``self.method(...)`` (a method of the class ``cls``) or ``function(...)``: a reference to what it
        returns, resolved when the module's walk is done (the definition may come later)."""
        func = node.func
        if isinstance(func, cst.Name):
            return ("fn", chain, func.value)
        m = _self_attr(func)
        if m is not None and cls is not None:
            return ("cls", cls, m[5:])
        return None

    # ---- functions returning a collection ---------------------------------------------------------
    def plugin_return(self, node: cst.Return) -> None:
        """``return trt.PluginFieldCollection([...])`` (or a name holding fields) in a function: what a call of
        it hands back."""
        if node.value is None or not any(sc.kind == "function" for sc in self.scopes):
            return
        f = self._fields_of(node.value, self._pp_chain())
        if f is None:
            return
        home = self._pp_home()
        if home.returned is None:
            home.returned = Fields()
        home.returned.add(f)

    def plugin_function_done(self, sc) -> None:
        """A function's scope closed: what it returns is recorded under its name in the scope around it."""
        st = sc.__dict__.get("pyplugin")
        if st is not None and st.returned is not None:
            _pp(self.scopes[-1]).returns[sc.name] = st.returned

    def _resolve(self, f: Fields, seen: frozenset = frozenset()) -> tuple[Fields, bool]:
        """``f`` with its references to functions' results replaced by what they return; and whether some
        reference did not resolve."""
        out = Fields(list(f.items), f.open)
        missed = False
        for ref in f.refs:
            kind, where, name = ref
            if kind == "cls":
                got = where.returns.get(name)
            else:
                got = next((st.returns[name] for st in reversed(where) if name in st.returns), None)
            if got is None or id(got) in seen:
                out.open, missed = True, True
                continue
            sub, sub_missed = self._resolve(got, seen | {id(got)})
            out.add(sub)
            missed = missed or sub_missed
        return out, missed

    def join_plugin_creations(self) -> None:
        """At the end of the module's walk: each ``create_plugin`` call's fields onto the lookup it uses."""
        per: dict[int, Fields] = {}
        for c in self.creates:
            if c.idx:
                idx = c.idx
            elif isinstance(c.recv, cst.Call):
                idx = self.lookup_at.get(id(c.recv))
            elif isinstance(c.recv, cst.Name):
                idx = self._find(c.chain, "creators", c.recv.value)
            elif _self_attr(c.recv) and c.cls is not None:
                idx = c.cls.creators.get(_self_attr(c.recv))
            else:
                idx = None
            if not idx:
                continue
            self.param_helper_fields(idx, c.coll, c.fn)  # a helper handing create_plugin its parameter (paramhelper)
            f = self._fields_of(c.coll, c.chain, c.cls)
            if f is not None and f.refs:
                f, missed = self._resolve(f)
                if missed and not f.items:
                    f = None  # nothing followed: as for a collection trtlint does not follow
            if f is None:
                if c.home.creates != 1 or not c.home.made:
                    continue
                f = Fields(list(c.home.made), open=True)  # the collection is not followed: the function's fields
            for i in idx:
                per.setdefault(i, Fields()).add(f)
        for i, f in per.items():
            lk = self.lookups[i]
            seen: dict[str, AttrFact] = {}
            for a in f.items:
                seen.setdefault(a.name, a)
            self.lookups[i] = dataclasses.replace(lk, attrs=tuple(seen.values()), open_attrs=f.open)


def _self_attr(node: cst.BaseExpression) -> Optional[str]:
    """``self.<name>`` -> "self.<name>"."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return "self." + node.attr.value
    return None


def _compare_attr(t: cst.BaseExpression) -> Optional[tuple[str, str, cst.BaseExpression]]:
    """``v.attr == "lit"`` (either way round) -> (v, attr, the literal's node)."""
    if not isinstance(t, cst.Comparison) or len(t.comparisons) != 1:
        return None
    cmp = t.comparisons[0]
    if not isinstance(cmp.operator, cst.Equal):
        return None
    left, right = t.left, cmp.comparator
    if string_value(left) is not None:
        left, right = right, left
    if (
        isinstance(left, cst.Attribute)
        and isinstance(left.value, cst.Name)
        and left.attr.value in ("name", "plugin_version")
        and string_value(right) is not None
    ):
        return left.value.value, left.attr.value, right
    return None
