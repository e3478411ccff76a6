"""Control-flow and data-flow facts of the C++ frontend (called from :class:`.body.BodyWalker`).

* ``throw`` expressions become ``Call(kind="throw")``;
* every call records whether it sits in the body of a ``try`` block (``in_try``), whether it is a whole
  expression statement whose non-void result is dropped (``discarded``), the argument it passes for its
  callee's stream parameter (``stream_arg``) and, for memory copies, where its pointer arguments point
  (``mem_src``: a local variable or array, a ``std::vector`` / ``std::string`` buffer);
* a call in the then-branch of an ``if`` that ends in a failure ``return`` gets ``guard="error-path:<cond>"``;
* a throw or exit that happens only on a null pointer parameter (``if (!p) throw ...;``, a check macro on ``p !=
  nullptr && q != nullptr``) gets ``guard="error-path:" + NULL_ARGUMENT`` and ``null_tested`` (the parameters' types);
* size-query mode: a call after ``if (!p) return ...;`` on a pointer parameter ``p`` records ``needs_args``, and
  every resolved call records which of its arguments are null pointers or the caller's own pointer parameters
  (``arg_null``), so the walk can tell a helper called with a null workspace only to compute its size.

Only the modules of this package touch libclang cursors; the output is plain :mod:`trtlint.base.facts`.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Any, Optional, Protocol

from trtlint.base.facts import INDEX_BOUNDS, NULL_ARGUMENT, UNNAMED_ENUMERATOR, UNREACHABLE, UNSUPPORTED_DTYPE, Call, Span
from . import bounds, dtypecases, fallthrough, nonnull, nullguard, sizelimit, streamfields
from .base import Cursor, Unit, children, look_through, preorder, short

_FAILURE_RETURN = re.compile(
    r"-\s*\d+|[1-9]\d*|false|nullptr|NULL|[\w:]*(?:FAIL|ERR|Err|INVALID|Invalid|BAD_PARAM)[\w:]*"
    r"|(?:[a-z]\w*)?(?:status|Status|stat|err|Err|error|Error|ret|result|rc|code)\w*"
)
_SUCCESS_RETURN = re.compile(r"0|true|cudaSuccess|[\w:]*SUCCESS[\w:]*|kSUCCESS|\{\}")
# a failure written as a constant (not a status variable or call, which a branch doing work returns too)
_FAILURE_CONSTANT = re.compile(
    r"-\s*\d+|[1-9]\d*|false|nullptr|NULL|[\w:]*(?:FAIL|ERR|Err|INVALID|Invalid|BAD_PARAM|UNSUPPORTED|Unsupported)[\w:]*")
_STREAM_TYPES = ("cudaStream_t", "CUstream", "CUstream_st *", "struct CUstream_st *")


class FlowWalker(Protocol):
    """What this module reads of the body walker (:class:`.body.BodyWalker`)."""

    K: Any  # clang.cindex.CursorKind
    ex: Unit
    flow: FlowState
    fn: Cursor  # the function walked
    params: dict  # its parameters: cursor hash -> index
    _written: Optional[str]
    derive: Optional[nonnull.Derive]  # (made on first need: :func:`derive`)

    def if_parts(self, c: Cursor, kids: list) -> tuple[Optional[int], Optional[int], Optional[int]]: ...

    def add_call(self, c: Cursor, call: Call) -> None: ...

    def span(self, c: Cursor) -> Span: ...


class FlowState:
    """What the walk of one function body records for this module."""

    __slots__ = ("try_ranges", "stmt_calls", "error_ranges", "needs_ranges", "dispatch_ranges", "null_ranges",
                 "null_arg_ranges", "over_ranges", "return_ranges", "loop_ranges", "fall_ranges", "branch_ranges",
                 "else_ifs", "size_memo")

    def __init__(self) -> None:
        self.try_ranges: list[tuple[int, int]] = []  # offsets of try-block bodies
        self.stmt_calls: set[int] = set()  # cursor hashes of expression statements (and their wrappers)
        self.error_ranges: list[tuple[int, int, str]] = []  # then-branches ending in a failure return
        self.needs_ranges: list[tuple[int, int, int]] = []  # after `if (!p) return`: (start, end, parameter index)
        self.dispatch_ranges: list[tuple[int, int]] = []  # the branches of a data-type dispatch (Call.dispatch)
        # where a pointer parameter is null (Call.null_args): (start, end, parameter index)
        self.null_ranges: list[tuple[int, int, int]] = []
        # branches that fail only on a null pointer parameter (facts.NULL_ARGUMENT): (start, end, parameter types)
        self.null_arg_ranges: list[tuple[int, int, tuple[str, ...]]] = []
        # branches failing when a size exceeds an integer parameter (Call.over_param): (start, end, parameter index)
        self.over_ranges: list[tuple[int, int, int]] = []
        # then-branches (no else) that end in a return (sizelimit.arg_params): (start, end)
        self.return_ranges: list[tuple[int, int]] = []
        self.loop_ranges: list[tuple[int, int]] = []  # loop statements (for, while, do, range-for): (start, end)
        # the fall-through else of a chain on the object's own members (Call.fallthrough): (start, end, conditions,
        # line of the first); the branches of statements (fallthrough.branch); the else-ifs of chains read
        self.fall_ranges: list[tuple[int, int, tuple[str, ...], int]] = []
        self.branch_ranges: list[tuple[int, int]] = []
        self.else_ifs: set[int] = set()
        self.size_memo: dict = {}  # sizelimit.arg_params' work shared by the calls of one function


@lru_cache(maxsize=4)
def flow_ids(K: Any) -> frozenset:
    """Kind ids the body walk hands to :func:`visit`."""
    return frozenset(k.value for k in (
        K.CXX_TRY_STMT, K.CXX_THROW_EXPR, K.COMPOUND_STMT, K.IF_STMT, K.FOR_STMT, K.WHILE_STMT, K.DO_STMT,
        K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT, K.CXX_FOR_RANGE_STMT, K.SWITCH_STMT, K.CONDITIONAL_OPERATOR,
    ))


@lru_cache(maxsize=4)
def _wrapper_ids(K: Any) -> frozenset:
    return frozenset(k.value for k in (K.UNEXPOSED_EXPR, K.CALL_EXPR))


def visit(w: FlowWalker, c: Cursor, k: int, kids: list) -> None:
    K = w.K
    st: FlowState = w.flow
    if k == K.CXX_TRY_STMT.value:
        if kids:
            _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(kids[0])
            st.try_ranges.append((o1, o2))
        return
    if k == K.CXX_THROW_EXPR.value:
        _on_throw(w, c, kids)
        return
    if k == K.COMPOUND_STMT.value:
        for i, ch in enumerate(kids):
            _mark_statement(w, ch)
            if ch.kind == K.SWITCH_STMT and i + 1 < len(kids):
                _after_switch(w, ch, c)
        return
    if k == K.IF_STMT.value:
        ci, ti, ei = w.if_parts(c, kids)
        fallthrough.chain(w, c, kids)
        fallthrough.branch(w, c, k, kids)
        for i in (ti, ei):
            if i is not None:
                _mark_statement(w, kids[i])
        if ci is not None and ti is not None:
            last = _last_statement(K, kids[ti])
            if last is not None:
                if w.params:
                    # (first: it names the branch before the others)
                    ends = ends_process(w, last)
                    nullguard.null_argument(w, c, kids[ci], kids[ti], last, ends, derive(w))
                    sizelimit.over_param(w, c, kids[ci], kids[ti], last, ends)
                    sizelimit.returning_branch(w, kids[ti], kids[ei] if ei is not None else None, last)
                _error_branch(w, c, kids[ci], kids[ti], last)
                bounds.index_bounds(w, kids[ci], kids[ti], last)
                _exit_branch(w, c, kids[ci], kids[ti])
        if (ci is not None and ei is not None and kids[ei].kind != K.IF_STMT and _DTYPE.search(w.ex.text_of(kids[ci]))
                and _fails(w, kids[ei])):
            # the last else of a data-type dispatch, when it is the failure branch (an `else` that does the work for
            # the other accepted type, `if (t == kFLOAT) f<float>(); else f<half>();`, is no such branch)
            _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(kids[ei])
            st.error_ranges.append((o1, o2, UNSUPPORTED_DTYPE))
        if ci is not None and _dtype_test(w.ex.text_of(kids[ci])):
            _dispatch(w, [kids[i] for i in (ti, ei) if i is not None and kids[i].kind != K.IF_STMT])
        if ci is not None and ti is not None and w.params:
            _null_branches(w, kids[ci], kids[ti], kids[ei] if ei is not None else None)
        return
    if k == K.CONDITIONAL_OPERATOR.value:
        # `t == DataType::kHALF ? launch<half>(...) : launch<float>(...)`
        if len(kids) == 3 and _dtype_test(w.ex.text_of(kids[0])):
            _dispatch(w, kids[1:])
        return
    if k == K.SWITCH_STMT.value:
        fallthrough.branch(w, c, k, kids)
        what = _default_kind(w, kids)
        default = _default_label(K, kids[-1]) if what is not None else None
        if default is not None:
            # the default: to the end of the switch body
            w.flow.error_ranges.append((w.ex.extent_info(default)[3], w.ex.extent_info(kids[-1])[6], what))
        if what == UNSUPPORTED_DTYPE:
            _dispatch(w, kids[-1:])
            if kids[-1].kind == K.COMPOUND_STMT:  # named cases that only fail: branches for no accepted type too
                w.flow.error_ranges.extend((o1, o2, UNSUPPORTED_DTYPE)
                                           for o1, o2 in dtypecases.failing_case_ranges(K, w.ex.extent_info, kids[-1]))
        return
    if k in (K.FOR_STMT.value, K.WHILE_STMT.value, K.DO_STMT.value, K.CXX_FOR_RANGE_STMT.value):
        fallthrough.branch(w, c, k, kids)
        _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(c)
        st.loop_ranges.append((o1, o2))
    if kids:
        body = kids[0] if k == K.DO_STMT.value else kids[-1]
        _mark_statement(w, body)


def _null_branches(w: FlowWalker, cond: Cursor, then: Cursor, other: Optional[Cursor]) -> None:
    """The branches of an ``if`` that run only while a pointer parameter is null (``if (!ws)``, the ``else`` of ``if
    (ws)``): ``FlowState.null_ranges``."""
    for branch, outcome in ((then, True), (other, False)):
        if branch is None:
            continue
        try:
            params = nonnull.null_when(derive(w), cond, outcome)
        except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for: nothing known
            params = frozenset()
        if params:
            _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(branch)
            w.flow.null_ranges.extend((o1, o2, p) for p in sorted(params))


# a data-type dispatch's branch for no accepted type is an error path that does not run (facts.UNSUPPORTED_DTYPE)
_DTYPE = re.compile(r"\bDataType::k[A-Z]\w*")
_DTYPE_LABEL = re.compile(r"(?:\w+::)*DataType::k[A-Z]\w*")


_EXITS = frozenset({"exit", "abort", "_Exit", "quick_exit", "terminate"})


def _fails(w: FlowWalker, branch: Cursor) -> bool:
    """A branch that ends in a failure: a throw, a direct exit/abort, or a return of a failure constant (`return
    -1;`, `return STATUS_FAILURE;`; a bare `return;` only as the branch's one statement). A branch that returns
    a status variable or a call's result (`launch<float>(...); return status;`) does the work for another type."""
    K = w.K
    last = _last_statement(K, branch)
    if last is None:
        return False
    if last.kind == K.UNEXPOSED_EXPR:
        sub = children(last)
        last = sub[0] if len(sub) == 1 else last
    if last.kind == K.CXX_THROW_EXPR:
        return True
    if last.kind == K.RETURN_STMT:
        val = children(last)
        if not val:
            return branch.kind != K.COMPOUND_STMT or len(children(branch)) == 1
        if _FAILURE_CONSTANT.fullmatch(" ".join(w.ex.text_of(val[0]).split())):
            return True
        # a branch that only checks or logs and returns what a variable holds (`else { assert(status == 0); return
        # status; }`, status still its initial failure value) does the work for no type: the failure branch
        return _only_checks(K, branch, last)
    return last.kind == K.CALL_EXPR and (last.spelling or "") in _EXITS


# what a branch that does no work may call: an assertion's expansion, printing and stream output
_CHECK_ONLY = frozenset({"__assert_fail", "__assert_rtn", "_assert", "__assert", "_wassert", "__assert_perror_fail",
                         "printf", "fprintf", "puts", "fputs", "perror", "operator<<"})


def _only_checks(K, branch: Cursor, ret: Cursor) -> bool:
    """Whether ``branch`` calls nothing but :data:`_CHECK_ONLY` functions (no launch, no other call) and ``ret``
    returns a plain variable."""
    val = children(ret)
    v = val[0] if val else None
    while v is not None and v.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        sub = children(v)
        v = sub[0] if len(sub) == 1 else None
    if v is None or v.kind != K.DECL_REF_EXPR:
        return False
    for c in preorder(branch):
        if c.kind == K.CALL_EXPR and (c.spelling or "") not in _CHECK_ONLY:
            return False
        if c.kind.name == "CUDA_KERNEL_CALL_EXPR" or c.kind == K.CXX_NEW_EXPR:
            return False
    return True


_EXIT_OK = re.compile(r"\(\s*(?:0|EXIT_SUCCESS)\s*\)")


def exit_guard(w: FlowWalker, block: list) -> Optional[str]:
    """The error-path guard of the statements of a block whose last statement ends the process (``{ log(...);
    cudaDeviceReset(); exit(EXIT_FAILURE); }``, ``abort();``; not ``exit(0)``): they run only on the way out of a
    failure, as the statements of a branch ending in a failure return do. None otherwise."""
    if len(block) < 2:
        return None
    text = ends_process(w, block[-1])
    return None if text is None else "error-path:before " + text


def ends_process(w: FlowWalker, last: Cursor) -> Optional[str]:
    """The text of a statement that ends the process (``exit(EXIT_FAILURE)``, ``abort()``; not ``exit(0)``), else None."""
    K = w.K
    for _ in range(3):
        if last.kind == K.CALL_EXPR:
            break
        sub = children(last)
        if last.kind != K.UNEXPOSED_EXPR or len(sub) != 1:
            return None
        last = sub[0]
    if last.kind != K.CALL_EXPR or (last.spelling or "") not in _EXITS:
        return None
    text = " ".join(w.ex.text_of(last).split())
    if last.spelling in ("exit", "quick_exit", "_Exit") and _EXIT_OK.search(text):
        return None
    return short(text or last.spelling + "()", 60)


def _dtype_test(text: str) -> bool:
    """A condition that tests for a data type (`t == DataType::kHALF`, `|| t == DataType::kBF16`): the branch of a
    data-type dispatch that does the work for it, not a failure branch."""
    return bool(_DTYPE.search(text)) and "==" in text and "!=" not in text


def _after_switch(w: FlowWalker, sw: Cursor, block: Cursor) -> None:
    """The statements after a switch every branch of which leaves the function (returns, throws, ends the process),
    to the end of the enclosing block: with a ``default:`` they never run (``facts.UNREACHABLE``); without one only
    the values no case names reach them, as they would reach a ``default:``, so they are that switch's default
    (``switch (t) { case DataType::kFLOAT: return 4; ... } throw std::runtime_error("type");``: the branch for no
    accepted data type, ``facts.UNSUPPORTED_DTYPE``; after the cases naming every enumerator of an enum,
    ``facts.UNNAMED_ENUMERATOR``; after any other switch they are reachable and get nothing). After a data-type switch
    only when the block ends in a failure (a throw, an exit, a failure return), as the last ``else`` of an if-chain."""
    leaves = _switch_always_leaves(w, sw)
    if leaves is None:
        return
    what = UNREACHABLE if leaves else _default_kind(w, children(sw))
    if what is None or (what == UNSUPPORTED_DTYPE and not _fails(w, block)):
        # (after a switch naming some data types, code that does the work for the others is no failure branch:
        # `case DataType::kFLOAT: return run<float>(); } return run<half>();`)
        return
    o1 = w.ex.extent_info(sw)[6]
    o2 = w.ex.extent_info(block)[6]
    if o2 > o1:
        w.flow.error_ranges.append((o1, o2, what))


def _leaves(w: FlowWalker, st: Cursor) -> bool:
    """A statement after which control never reaches the next one: a ``return``, a ``throw``, a call ending the process
    (``exit``, ``abort``), or a block whose last statement is one of these."""
    K = w.K
    for _ in range(8):
        sub = children(st)
        if st.kind == K.COMPOUND_STMT and sub:
            st = sub[-1]
        elif st.kind == K.UNEXPOSED_EXPR and len(sub) == 1:
            st = sub[0]
        else:
            break
    if st.kind in (K.RETURN_STMT, K.CXX_THROW_EXPR):
        return True
    return st.kind == K.CALL_EXPR and (st.spelling or "") in _EXITS


@lru_cache(maxsize=4)
def _break_scopes(K: Any) -> frozenset:
    """Statements a ``break`` inside of does not leave an enclosing switch (it leaves them), and lambdas."""
    return frozenset(k.value for k in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.CXX_FOR_RANGE_STMT, K.SWITCH_STMT,
                                       K.LAMBDA_EXPR))


def _breaks_out(w: FlowWalker, body: Cursor) -> bool:
    """Whether anything in a switch body can leave it to the statement after it: a ``break`` of its own (at any depth,
    in an ``if`` too; not one of a loop or a switch inside it) or a ``goto``."""
    K = w.K
    scopes = _break_scopes(K)
    stack = list(children(body))
    while stack:
        n = stack.pop()
        if n.kind in (K.BREAK_STMT, K.GOTO_STMT, K.INDIRECT_GOTO_STMT):
            return True
        if n._kind_id not in scopes:
            stack.extend(children(n))
    return False


def _switch_always_leaves(w: FlowWalker, sw: Cursor) -> Optional[bool]:
    """Whether every branch of a switch leaves the function (ends in a ``return``, a ``throw`` or a call ending the
    process, and nothing in it breaks out of the switch): True with a ``default:`` (``switch (t) { case A: return 4;
    default: return 0; }``), False without one (then the values no case names go on after it); None when some branch
    can reach the statement after the switch (a ``break``, one at any depth too, a ``goto``, a branch that falls off
    the end; a branch falling into the next label is taken as reaching it too)."""
    K = w.K
    kids = children(sw)
    if len(kids) < 2 or kids[-1].kind != K.COMPOUND_STMT:
        return None
    default = False
    labels = 0
    ended = True  # whether the statements since the last label end the function
    for st in children(kids[-1]):
        inner = st
        labelled = False
        while inner.kind in (K.CASE_STMT, K.DEFAULT_STMT):
            if not labelled and not ended:
                return None  # a branch that falls out of the switch (or into the next: taken as falling out)
            labelled = True
            labels += 1
            default = default or inner.kind == K.DEFAULT_STMT
            sub = children(inner)
            if not sub:
                return None
            inner = sub[-1]
        if inner.kind == K.BREAK_STMT:
            return None
        ended = _leaves(w, inner)
    if not labels or not ended or _breaks_out(w, kids[-1]):
        return None
    return default


def _default_label(K: Any, body: Cursor) -> Optional[Cursor]:
    """The ``default:`` label of a switch body (one of a run of labels, ``case A: default: ...``, too); None."""
    for st in children(body):
        inner = st
        while inner.kind == K.CASE_STMT or inner.kind == K.DEFAULT_STMT:
            if inner.kind == K.DEFAULT_STMT:
                return inner
            sub = children(inner)
            if not sub:
                break
            inner = sub[-1]
    return None


def _default_kind(w: FlowWalker, kids: list) -> Optional[str]:
    """What the ``default:`` of a switch (or, when every branch leaves the function, the code after one without it)
    is an error path of: ``facts.UNSUPPORTED_DTYPE`` on a data type (:func:`_dtype_switch`), ``facts.UNNAMED_ENUMERATOR``
    when the case labels name every enumerator of the enum switched on (:func:`_names_every_enumerator`); None for
    any other switch (its default is taken by values the code means to handle)."""
    if _dtype_switch(w, kids):
        return UNSUPPORTED_DTYPE
    if _names_every_enumerator(w, kids):
        return UNNAMED_ENUMERATOR
    return None


def _dispatch(w: FlowWalker, branches: list) -> None:
    """Record the branches of a data-type dispatch (``Call.dispatch`` of the calls in them)."""
    for b in branches:
        _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(b)
        if o2 > o1:
            w.flow.dispatch_ranges.append((o1, o2))


def dispatch_lambdas(w: FlowWalker, args: list) -> None:
    """A dispatch helper taking a lambda (``dispatchType(t, [&](auto tag) { ... })``): a call one of whose arguments
    is a ``nvinfer1::DataType`` and another a lambda; the lambda's body is a branch of a data-type dispatch."""
    K = w.K
    lambdas = [look_through(K, a) for a in args]
    lambdas = [a for a in lambdas if a.kind == K.LAMBDA_EXPR]
    if not lambdas:
        return
    for a in args:
        try:
            typ = a.type.spelling or ""
        except Exception:  # noqa: BLE001 - an unresolved type
            typ = ""
        if "DataType" in typ and "PluginFieldType" not in typ:
            _dispatch(w, lambdas)
            return


def _dtype_switch(w: FlowWalker, kids: list) -> bool:
    """A switch on a ``nvinfer1::DataType`` value (its condition's type, or every case label a ``DataType::k...``): its
    ``default:`` is a data-type dispatch's branch for no accepted type. A switch on another enum whose cases return
    DataTypes (a PluginFieldType mapped to a DataType) is no such dispatch: its default is reachable."""
    K = w.K
    if len(kids) < 2:
        return False
    cond, body = kids[0], kids[-1]
    if body.kind != K.COMPOUND_STMT:
        return False
    try:
        typ = cond.type.spelling or ""
    except Exception:  # noqa: BLE001 - an unresolved type
        typ = ""
    if "DataType" in typ:
        return True
    labels = [children(ch) for ch in children(body) if ch.kind == K.CASE_STMT]
    return bool(labels) and all(lab and _DTYPE_LABEL.fullmatch(" ".join(w.ex.text_of(lab[0]).split())) for lab in labels)


def _names_every_enumerator(w: FlowWalker, kids: list) -> bool:
    """A switch on an enum value whose case labels name every enumerator of the enum: only a value no enumerator names
    takes its ``default:`` (``facts.UNNAMED_ENUMERATOR``). The enum as this unit declares it."""
    K = w.K
    if len(kids) < 2 or kids[-1].kind != K.COMPOUND_STMT:
        return False
    cond, body = kids[0], kids[-1]
    decl = None
    for _ in range(4):  # the condition as written, under the promotion of an unscoped enum to int
        try:
            t = cond.type.get_canonical()
            if t.kind == w.ex.ci.TypeKind.ENUM:
                decl = t.get_declaration()
                break
        except Exception:  # noqa: BLE001 - an unresolved type
            return False
        sub = children(cond)
        if cond.kind != K.UNEXPOSED_EXPR or len(sub) != 1:
            return False
        cond = sub[0]
    if decl is None:
        return False
    try:
        names = {e.enum_value for e in children(decl) if e.kind == K.ENUM_CONSTANT_DECL}
    except Exception:  # noqa: BLE001 - a value libclang cannot give
        return False
    if not names:
        return False
    labelled: set = set()
    for st in children(body):
        inner = st
        while inner.kind == K.CASE_STMT or inner.kind == K.DEFAULT_STMT:
            sub = children(inner)
            if inner.kind == K.CASE_STMT and sub:
                ref = look_through(K, sub[0])
                d = ref.referenced if ref.kind == K.DECL_REF_EXPR else None
                if d is not None and d.kind == K.ENUM_CONSTANT_DECL:
                    labelled.add(d.enum_value)
            if not sub:
                break
            inner = sub[-1]
    return names <= labelled


def _mark_statement(w: FlowWalker, s: Cursor) -> None:
    """An expression statement: remember the call it is (through implicit wrappers)."""
    ids = _wrapper_ids(w.K)
    cur = s
    for _ in range(4):
        if cur._kind_id not in ids:
            return
        w.flow.stmt_calls.add(cur.hash)
        if cur._kind_id == w.K.CALL_EXPR.value:
            return
        sub = children(cur)
        if not sub:
            return
        if cur._kind_id == w.K.UNEXPOSED_EXPR.value and len(sub) > 1:
            return  # an unresolved call: UNEXPOSED_EXPR(callee, args...), itself the statement
        cur = sub[0]


def _last_statement(K: Any, branch: Cursor) -> Optional[Cursor]:
    """The last statement of an ``if`` branch (the branch itself when it is no block); None for an empty block."""
    if branch.kind != K.COMPOUND_STMT:
        return branch
    sub = children(branch)
    return sub[-1] if sub else None


def _error_branch(w: FlowWalker, if_stmt: Cursor, cond: Cursor, then: Cursor, last: Cursor) -> None:
    """``if (cond) { ...; return <failure>; }``: the branch runs only when something has failed.

    An ``if`` expanded from a macro body (``CSC(call, err)``) has the whole expansion as the extent of each of
    its parts, the checked call in the macro's argument included: it marks nothing."""
    K = w.K
    if last.kind != K.RETURN_STMT or w.ex.extent_info(then)[3] <= w.ex.extent_info(if_stmt)[3]:
        return
    val = children(last)
    if not val:
        return
    text = " ".join(w.ex.text_of(val[0]).split())
    if not text or _SUCCESS_RETURN.fullmatch(text) or not _FAILURE_RETURN.fullmatch(text):
        return
    cond_text = w.ex.text_of(cond)
    if _dtype_test(cond_text) and not _FAILURE_CONSTANT.fullmatch(text):
        return  # `if (t == DataType::kHALF) { launch<half>(...); return status; }`: a dispatch's branch, not a failure
    _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(then)
    if o2 > o1:
        w.flow.error_ranges.append((o1, o2, short(cond_text, 60)))


def _exit_branch(w: FlowWalker, if_stmt: Cursor, cond: Cursor, then: Cursor) -> None:
    """``if (cond) { ...; exit(1); }`` (or ``if (cond) DIE(msg);`` expanding to such a block): the branch runs only
    when something has failed, as one ending in a failure return does; its exit carries the condition."""
    if w.ex.extent_info(then)[3] <= w.ex.extent_info(if_stmt)[3]:
        return  # an `if` expanded from a macro body: every part has the whole expansion as its extent
    K = w.K
    block = children(then) if then.kind == K.COMPOUND_STMT else [then]
    if len(block) == 1 and block[0].kind == K.COMPOUND_STMT:
        block = children(block[0])  # `if (c) { DIE(msg); }`: DIE's own block
    if not block or ends_process(w, block[-1]) is None:
        return
    _f, _l1, _c1, o1, _l2, _c2, o2 = w.ex.extent_info(then)
    if o2 > o1:
        w.flow.error_ranges.append((o1, o2, short(w.ex.text_of(cond), 60)))


def _on_throw(w: FlowWalker, c: Cursor, kids: list) -> None:
    what = ""
    if kids:
        try:
            what = kids[0].type.spelling or ""
        except Exception:  # noqa: BLE001
            what = ""
        what = re.sub(r"^(?:const\s+|class\s+|struct\s+)+", "", what).strip()
    text = w.ex.text_of(c)
    if not what and kids:
        m = re.match(r"\s*throw\s+((?:::)?[A-Za-z_][\w:]*)", text)
        what = m.group(1) if m else ""
    w.add_call(c, Call(callee="throw", span=w.span(c), kind="throw", args=(what or "(rethrow)", short(text, 80))))


# -- per call -------------------------------------------------------------------------------------------------


def call_extras(w: FlowWalker, c: Cursor, ref: Cursor, name: str, args: list, arg_texts: tuple, call: Call) -> Call:
    """Fill ``discarded``, ``stream_arg``, ``declared_in`` and ``mem_src`` of a resolved (or unresolved) call."""
    K = w.K
    changes: dict[str, Any] = {}
    if c.hash in w.flow.stmt_calls:
        try:
            void = c.type.kind == w.ex.ci.TypeKind.VOID
            if not void and c.type.kind == w.ex.ci.TypeKind.DEPENDENT:
                # a call inside a template has a dependent type; the callee's declarations still say void (a
                # project's `template <typename T> void cudaH2Dcpy(...)` that checks inside: nothing to drop)
                void = _declared_void(w, c, ref)
        except Exception:  # noqa: BLE001
            void = False
        if not void:
            changes["discarded"] = True
    if ref is not None and ref.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE):
        idx = _stream_param(w, ref, call.usr)
        text = w.ex.text_of(c) if idx is not None else ""
        if idx is not None and name and name in text and not (idx < len(arg_texts) and arg_texts[idx] == text):
            # (a call in a macro's body has the whole expansion as its text: its arguments are not visible)
            changes["stream_arg"] = arg_texts[idx] if idx < len(arg_texts) else ""
            if idx < len(args):
                field = streamfields.arg_field(w, args[idx])
                if field is not None:
                    changes["stream_field"] = field
    if ref is not None and call.usr and (ref.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE) or (
            ref.kind == K.CXX_METHOD and not ref.is_virtual_method())):
        try:
            f = ref.location.file
        except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
            f = None
        rel = w.ex.rel_of(f.name) if f is not None else None
        if rel is not None:
            changes["declared_in"] = rel
    if len(args) >= 2:
        dispatch_lambdas(w, args)
    if "emcpy" in name and args:
        src = tuple(_pointee(w, a) for a in args[:4])
        while src and not src[-1]:
            src = src[:-1]
        if src:
            changes["mem_src"] = src
    if args and w.params:
        cand = sizelimit.candidates(w, args)  # (sizelimit.arg_params drops the written ones when the walk ends)
        if cand:
            changes["arg_params"] = cand
    if args:
        nulls = tuple(_arg_null(w, a) for a in args)
        while nulls and not nulls[-1]:
            nulls = nulls[:-1]
        if nulls:
            changes["arg_null"] = nulls
    return dataclasses.replace(call, **changes) if changes else call


def _declared_void(w: FlowWalker, c: Cursor, ref: Optional[Cursor]) -> bool:
    """Whether every declaration a dependent call can resolve to returns void (the referenced function, or the
    overload set of a call in a template body)."""
    K, void = w.K, w.ex.ci.TypeKind.VOID
    decls: list = []
    if ref is not None and ref.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE):
        decls = [ref]
    else:
        for ch in children(c)[:1]:
            r = ch.referenced
            if r is not None and r.kind == K.OVERLOADED_DECL_REF:
                lib = w.ex.ci.conf.lib  # (the Python bindings wrap no overload-set accessors)
                decls = [lib.clang_getOverloadedDecl(r, i) for i in range(lib.clang_getNumOverloadedDecls(r))]
    return bool(decls) and all(d.result_type.kind == void for d in decls)




def derive(w: FlowWalker) -> nonnull.Derive:
    """The derivations of the walked function's pointer parameters (made on first need)."""
    if w.derive is None:
        w.derive = nonnull.Derive(w.ex, w.fn, w.params)
    return w.derive


def _arg_null(w: FlowWalker, a: Cursor) -> str:
    """"null" for a null pointer argument (a literal, or a local pointer initialised to null and never assigned or
    taken the address of again in the function), "p<j>" for the caller's own pointer parameter j (never written in
    the body), "d<j>" for a pointer derived from it (:func:`.nonnull.source`), else ""."""
    K = w.K
    cur = look_through(w.K, a, casts=True, functional=True)
    k = cur.kind
    if k in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR):
        return "null"
    if k == K.DECL_REF_EXPR:
        d = cur.referenced
        if d is None:
            return ""
        try:
            if d.type.get_canonical().kind != w.ex.ci.TypeKind.POINTER:
                return ""
        except Exception:  # noqa: BLE001
            return ""
        if d.kind != K.PARM_DECL and nonnull.null_local(w, d):
            return "null"
    elif k == K.UNARY_OPERATOR and nonnull.out_null(w, cur):
        return "&null"
    elif cur._kind_id not in _derived_ids(K):
        return ""
    try:
        return nonnull.source(derive(w), cur)
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for: nothing known
        return ""




@lru_cache(maxsize=4)
def _derived_ids(K: Any) -> frozenset:
    """Kind ids of the expressions besides a name that a derived pointer can be written as (``(char*)ws + n``,
    ``&ws[n]``, a helper's call, a conditional)."""
    return frozenset(k.value for k in (K.BINARY_OPERATOR, K.UNARY_OPERATOR, K.CALL_EXPR, K.CONDITIONAL_OPERATOR,
                                       K.PAREN_EXPR))


def launch_extras(text: str, cfg: list, call: Call) -> Call:
    """A launch's stream as written (``""``: none); unknown (None) when the launch comes from a macro's body and
    its ``<<<...>>>`` is not visible in the source."""
    if "<<<" not in text or ">>>" not in text:
        return call
    return dataclasses.replace(call, stream_arg=cfg[3] if len(cfg) >= 4 else "")


def unexposed_discarded(w: FlowWalker, c: Cursor) -> bool:
    """A call clang left unresolved (a dependent call in a template body, an undeclared function) is a dropped
    result when it is a whole statement, unless every declaration it can name returns void."""
    if c.hash not in w.flow.stmt_calls:
        return False
    try:
        return not _declared_void(w, c, None)
    except Exception:  # noqa: BLE001 - a cursor libclang cannot answer for
        return True


def _stream_param(w: FlowWalker, ref: Cursor, usr: Optional[str]) -> Optional[int]:
    cache = w.ex.stream_params
    key = usr or ref.hash
    if key in cache:
        return cache[key]
    idx = None
    try:
        for i, p in enumerate(ref.get_arguments()):
            t = p.type
            sp = re.sub(r"\bconst\b", "", t.spelling or "").strip()
            if sp in _STREAM_TYPES or re.sub(r"\bconst\b", "", t.get_canonical().spelling or "").strip() in _STREAM_TYPES:
                idx = i
                break
    except Exception:  # noqa: BLE001
        idx = None
    cache[key] = idx
    return idx



def _container(w: FlowWalker, obj: Cursor) -> str:
    """"vector:<v>" / "string:<s>" / "stack:<a>" for the object a ``.data()`` / ``[i]`` is applied to."""
    obj = look_through(w.K, obj, casts=True, functional=True)
    try:
        t = obj.type.get_canonical().spelling or obj.type.spelling or ""
    except Exception:  # noqa: BLE001
        t = ""
    name = " ".join(w.ex.text_of(obj).split())[:40]
    if re.search(r"\bvector<", t):
        return "vector:" + name
    if re.search(r"\bbasic_string<", t):
        return "string:" + name
    if re.search(r"\barray<", t) and obj.kind == w.K.DECL_REF_EXPR and nonnull.is_local(w, obj.referenced):
        return "stack:" + name
    return ""


def _pointee(w: FlowWalker, a: Cursor) -> str:
    K = w.K
    cur = look_through(w.K, a, casts=True, functional=True)
    k = cur.kind
    if k == K.UNARY_OPERATOR and w.ex.text_of(cur).lstrip().startswith("&"):
        sub = children(cur)
        return _lvalue_home(w, sub[0]) if sub else ""
    if k == K.DECL_REF_EXPR:
        d = cur.referenced
        try:
            is_array = d is not None and d.type.kind in (w.ex.ci.TypeKind.CONSTANTARRAY, w.ex.ci.TypeKind.INCOMPLETEARRAY)
        except Exception:  # noqa: BLE001
            is_array = False
        if is_array and nonnull.is_local(w, d):
            return "stack:" + (cur.spelling or "")
        return ""
    if k == K.CALL_EXPR and cur.spelling in ("data", "c_str"):
        sub = children(cur)
        if sub and sub[0].kind == K.MEMBER_REF_EXPR:
            inner = children(sub[0])
            if inner:
                return _container(w, inner[0])
    return ""


def _lvalue_home(w: FlowWalker, e: Cursor) -> str:
    """Where ``&e`` points: a local variable (or a member / element of one), a vector element."""
    K = w.K
    cur = look_through(w.K, e, casts=True, functional=True)
    for _ in range(6):
        k = cur.kind
        if k == K.DECL_REF_EXPR:
            return ("stack:" + (cur.spelling or "")) if nonnull.is_local(w, cur.referenced) else ""
        if k in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR):
            sub = children(cur)
            if not sub:
                return ""
            if k == K.MEMBER_REF_EXPR:
                try:
                    if sub[0].type.kind == w.ex.ci.TypeKind.POINTER:
                        return ""  # p->x: wherever p points
                except Exception:  # noqa: BLE001
                    return ""
            cur = look_through(w.K, sub[0], casts=True, functional=True)
            continue
        if k == K.CALL_EXPR and cur.spelling == "operator[]":
            sub = children(cur)
            return _container(w, sub[0]) if sub else ""
        return ""
    return ""


# -- when the function is frozen ------------------------------------------------------------------------------


def finish(w: FlowWalker, calls: list[tuple[int, Call]]) -> list[tuple[int, Call]]:
    """Set ``in_try``, ``dispatch`` and the error-path guard of each call from the ranges the walk recorded."""
    st: FlowState = w.flow
    macros = w.params and any(c.kind == "macro" and c.args for _o, c in calls)
    if not st.try_ranges and not st.error_ranges and not st.needs_ranges and not st.dispatch_ranges and \
            not st.null_ranges and not st.over_ranges and not st.fall_ranges and not macros and \
            not any(c.arg_params for _o, c in calls):
        return calls
    out = []
    for off, call in calls:
        changes: dict[str, Any] = {}
        tested = nullguard.macro_null_argument(w, call, derive(w)) if macros and call.kind == "macro" else None
        if any(s <= off < e for s, e in st.try_ranges):
            changes["in_try"] = True
        if any(s <= off < e for s, e in st.dispatch_ranges):
            changes["dispatch"] = True
        needs = tuple(sorted({p for s, e, p in st.needs_ranges if s <= off < e}))
        if needs:
            changes["needs_args"] = needs
        if st.fall_ranges:
            ft = fallthrough.at(st, off)
            if ft is not None:
                changes["fallthrough"] = ft
        nulls = tuple(sorted({p for s, e, p in st.null_ranges if s <= off < e}))
        if nulls:
            changes["null_args"] = nulls
        if call.kind in ("throw", "call"):
            over = min(((e - s, p) for s, e, p in st.over_ranges if s <= off < e), default=None)
            if over is not None:
                changes["over_param"] = over[1]
        if call.arg_params:
            kept = sizelimit.arg_params(w, off, call, calls)
            if kept != call.arg_params:
                changes["arg_params"] = kept
        best = None
        for s, e, cond in st.error_ranges:
            if s <= off < e and (best is None or e - s < best[0]):
                best = (e - s, cond)
        # a branch that never runs (a data type the plugin does not accept, an index out of range) says more than a
        # one-time guard around it
        if best is not None and (call.guard is None or best[1] in (UNSUPPORTED_DTYPE, UNNAMED_ENUMERATOR, INDEX_BOUNDS,
                                                                   NULL_ARGUMENT)):
            changes["guard"] = "error-path:" + best[1]
            if best[1] == NULL_ARGUMENT:
                changes["null_tested"] = min(((e - s, t) for s, e, t in st.null_arg_ranges if s <= off < e))[1]
        if tested is not None and not (best is not None and best[1] in (UNSUPPORTED_DTYPE, UNNAMED_ENUMERATOR,
                                                                         INDEX_BOUNDS, UNREACHABLE)):
            # the macro's own failure happens only on a null argument (a branch it sits in tells less)
            changes["guard"] = "error-path:" + NULL_ARGUMENT
            changes["null_tested"] = tested
        out.append((off, dataclasses.replace(call, **changes) if changes else call))
    return out
