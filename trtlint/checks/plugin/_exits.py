"""Where a plugin can end the process, split the way TRT205 and TRT215 report it.

Every site the exit walk of :mod:`._escape` finds (`exit`, `abort`, an assert-and-exit macro, reachable from a
plugin or creator method) is one of two kinds:

* a **runtime abort** (TRT205): reachable from a *runtime entry* and failing on a *runtime status*;
* everything else (TRT215): an assert of an invariant TensorRT or the plugin itself guarantees (`pos < 4` in
  `supportsFormatCombination`, `nbOutputs == 1`, `inputs != nullptr`), or a status check reached only from
  build-time or teardown methods.

Every site is exactly one of the two, so together the rules report what TRT205 reported before the split.

Runtime entries (the methods TensorRT calls while it deserializes an engine, creates an execution context or
runs inference): a plugin's `enqueue` (every generation), `setTactic`, `onShapeChange`, `attachToContext`,
`configurePlugin` of an IPluginV2DynamicExt (it runs whenever input shapes change; IPluginV2Ext's, IPluginV2IOExt's and
IPluginV3OneBuild's are build-time methods, the builder's before `initialize`), `initialize`, `clone` and its
constructors (a plugin object is built by its creator's `createPlugin` / `deserializePlugin` or by `clone`),
and a creator's `createPlugin`, `createPluginV3`, `deserializePlugin`. Destructors, `terminate`, `destroy` and
`detachFromContext` (teardown), and the build-time queries (`supportsFormatCombination`, `getOutput*`,
`getWorkspaceSize`, `serialize`, `getFieldsToSerialize`, ...) are not runtime entries.

A runtime status is judged on the expression the check tests (the first argument of the macro the exit is, or
is expanded from, as the C++ frontend records it):

* it holds a call of a status API (the `status_apis` table of the rules/ packs: `cuda*`, `cublas*`, `cudnn*`,
  `nccl*`, ...): `PLUGIN_ASSERT(cudaMalloc(&p, n) == cudaSuccess)`;
* it compares with a status constant (`cudaSuccess`, `CUBLAS_STATUS_SUCCESS`, `STATUS_SUCCESS`, `kSUCCESS`,
  ...): `PLUGIN_ASSERT(status == cudaSuccess)`;
* it tests a variable named as a status (`status`, `st`, `err`, `error`, `ret`, `result`, `rc`):
  `assert(err == 0)`;
* it is one call, or one variable, checked by a macro that is not an assert (`CHECK(launchFoo(...))`,
  `PLUGIN_CHECK(status)`: such macros test the value as a status);
* or there is nothing to test: `exit()`, `abort()`, `std::terminate()` called directly, an exit macro without
  arguments. A failure macro with only a message (`PLUGIN_FAIL("unsupported type")`, in the `default:` of a
  switch over data types) is an invariant: `PLUGIN_ASSERT(false)` by another name. So is any exit in the branch
  of a data-type dispatch for no accepted type (the `default:` of a switch on a `DataType`, the last `else` of an
  if-chain on `DataType::k...`): TensorRT hands a plugin only the types its `supportsFormatCombination` accepted.
  So is any exit in the `default:` of a switch whose cases name every enumerator of its enum (only a value no
  enumerator names, of the plugin's own making, reaches it); from a creator's method both count.
  A check macro without arguments whose body tests a status (`cudaCheckError()` on `cudaGetLastError()`) is a
  runtime status;
* it tests a condition only the run decides: a device property (`getSmVersion() >= 80`, `prop.major`), a shape
  at run time (`inputDesc[0].dims.d[2] == 64`, a head size, a sequence length), a data type at run time
  (`inputDesc[0].type`, a field's `PluginFieldType` in `createPlugin`);
* or it fails by itself (`assert(false)`, `PLUGIN_ASSERT(false && "unsupported")`, `PLUGIN_FAIL(...)`) on
  `enqueue`'s path outside the branch for no accepted type: the fall-through of a dispatch, reached by a value
  nothing before it handles.

A check in a creator's `createPlugin` on a value it is handed (a field's `PluginFieldType`, a shape or data type,
the default of a dispatch on one) is a runtime failure only where data from outside can reach it
(:mod:`._model_reach`): a model route resolved to the creator, a program that parses models or loads plugin
libraries, a plugin library for others. Where only the program's own routes reach it, a check on a field's type
that every such route passes with an accepted type is an invariant, and so is every such check when no route
reaches `createPlugin` at all; TRT215 names why (``ExitSite.aside``), provided no other runtime entry reaches the
site. So is an exit in a workspace carver on a size exceeding the size it was told is left (``if (size >
workspace_size) exit(1);``) when every hop from `enqueue` passes on, unchanged, the plugin's own
`getWorkspaceSize(...)` that `enqueue` hands it (:func:`._escape.own_request`): TensorRT hands `enqueue` a workspace
at least that large, so only the plugin's own size arithmetic can fail it. So is a check on a data type at run time in
`enqueue`, `configurePlugin` or `onShapeChange` that only compares one input's type with `DataType` constants joined by
`||`, naming every type the plugin's `supportsFormatCombination` accepts at that position, as the C++ frontend read it
exactly (:func:`accepted_type`): TensorRT runs those methods only with a combination it accepted. So is an exit in the
fall-through of a dispatch on the plugin's own members (``Call.fallthrough``: the last ``else`` of an if/else-if chain
on members and constants) when every constructor already rejected each value it does not handle (a chain on the same
members, its conditions all among this one's, failing in its own ``else``, in the constructor or a method each
constructor calls) and nothing else writes those members (``CppFunction.member_writes``): :func:`rejected_at_construction`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional

from trtlint.base.facts import INDEX_BOUNDS, UNNAMED_ENUMERATOR, UNREACHABLE, UNSUPPORTED_DTYPE, Call, Span
from ..hotpath._walk import Entry, is_error_path
from ._escape import Escape, from_creator, escapes, null_argument, own_request
from ._model_reach import builds_only_here, field_type_check, reach

RUNTIME_METHODS = frozenset({"enqueue", "setTactic", "onShapeChange", "attachToContext", "configurePlugin",
                             "initialize", "clone"})
RUNTIME_CREATOR_METHODS = frozenset({"createPlugin", "createPluginV3", "deserializePlugin"})

_STATUS_CONST = re.compile(
    r"\b(?:\w*Success|\w*_SUCCESS|kSUCCESS|cudaError\w*|CUDA_ERROR_\w+|\w*_STATUS_\w+|STATUS_\w+|ncclSuccess)\b")
_STATUS_VAR = re.compile(r"\b(?:status|stat|st|err|error|ret|result|res|rc)\b", re.I)
_CALL = re.compile(r"(?<![\w.>:])((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(|(?:\.|->)\s*([A-Za-z_]\w*)\s*\(")
_NOT_CALLS = frozenset({"sizeof", "alignof", "decltype", "static_cast", "reinterpret_cast", "const_cast",
                        "dynamic_cast", "defined", "if", "while", "for", "return", "switch"})
_ONE_CALL = re.compile(r"(?:[A-Za-z_][\w:]*(?:\.|->))*[A-Za-z_][\w:]*\s*(?:<[^()]*>)?\s*\(.*\)", re.S)
_ONE_NAME = re.compile(r"[A-Za-z_][\w.>:-]*")
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_STRING = re.compile(r'\s*(?:[A-Za-z0-9_]*")')
_STRING_GETTERS = frozenset({"cudaGetErrorString", "cudaGetErrorName", "cublasGetStatusString", "cudnnGetErrorString",
                             "ncclGetErrorString", "cuGetErrorString", "cuGetErrorName"})


@dataclass(frozen=True)
class ExitSite:
    esc: Escape
    runtime: bool  # reached from a runtime entry (esc.entry is then the first runtime entry reaching it)
    checked: Optional[str]  # the expression the check tests; None for a direct exit()/abort(), which tests nothing
    status: Optional[str]  # why the check is on a runtime status ("the result of cudaMalloc"); None: an invariant
    # a check on a value createPlugin is handed that no model can reach, set aside as an invariant: why
    aside: Optional[str] = None

    @property
    def reported_by_trt205(self) -> bool:
        return self.runtime and self.status is not None


def is_runtime_entry(index, e: Entry) -> bool:
    """Whether TensorRT calls the method ``e`` while it loads an engine or runs inference (see the module doc)."""
    name = e.fn.name.split("<")[0]
    if e.plugin in {c.cls.name for c in index.creators}:
        return name in RUNTIME_CREATOR_METHODS
    if name == "configurePlugin" and _build_only_configure(index, e):
        return False
    return name in RUNTIME_METHODS or name == e.plugin.split("<")[0]


_PLUGIN_FAMILIES = ("v3", "v2dynext", "v2iox", "v2ext", "v2")


def _build_only_configure(index, e: Entry) -> bool:
    """Whether the plugin's ``configurePlugin`` runs only while an engine is built: its interface is known, and the
    packs' ``temperatures`` table gives that interface's ``configurePlugin`` no run-time temperature (only
    IPluginV2DynamicExt's runs again when input shapes change; IPluginV2Ext's, IPluginV2IOExt's and
    IPluginV3OneBuild's are called by the builder before ``initialize``, never when an engine is deserialized)."""
    fam = _family(index, e)
    return fam in _PLUGIN_FAMILIES and index.packs.temperature("configurePlugin", fam) == "cold"


def _family(index, e: Entry) -> Optional[str]:
    """The interface family of the plugin whose method ``e`` is ("v2dynext", "v3", ...); None when not known."""
    fam = next((c.cls.family for c in index.plugins if c.qualname == e.qualname), None) if e.qualname else None
    if fam is None:
        fam = next((c.cls.family for c in index.plugins if c.cls.name == e.plugin), None)
    return fam


def exit_sites(index) -> list[ExitSite]:
    """Every process-exit site below a plugin or creator method, once, classified (kept on the index)."""
    memo = index.__dict__.get("_trtlint_exit_sites")
    if memo is not None:
        return memo
    at_runtime = {_key(x): x for x in escapes(index, "exit", honour_try=False, noexcept_only=False,
                                              start=lambda e: is_runtime_entry(index, e))}
    out = []
    aside: dict[tuple, str] = {}
    for esc in escapes(index, "exit", honour_try=False, noexcept_only=False):
        rt = at_runtime.get(_key(esc))
        checked = checked_expression(esc)
        status = runtime_status(index, rt or esc, checked)
        if rt is not None and status is not None:
            why = (unreached_value(index, rt, checked, status) or static_shape(index, rt, checked, status)
                   or wildcard_shape(index, rt, checked, status)
                   or own_workspace(index, rt) or accepted_type(index, rt, checked, status)
                   or rejected_at_construction(index, rt))
            if why is not None:
                aside[_key(esc)] = why
        out.append(ExitSite(rt or esc, rt is not None, checked, status))
    if aside:
        # only where no other runtime entry reaches the site (a helper createPlugin and enqueue both call)
        closed = {(x.entry.plugin, x.entry.fn.usr) for x in at_runtime.values() if _key(x) in aside}
        others = {_key(x) for x in escapes(index, "exit", honour_try=False, noexcept_only=False,
                                           start=lambda e: is_runtime_entry(index, e) and (e.plugin, e.fn.usr) not in closed)}
        out = [replace(x, status=None, aside=aside[_key(x.esc)]) if x.runtime and _key(x.esc) in aside
               and _key(x.esc) not in others else x for x in out]
    index.__dict__["_trtlint_exit_sites"] = out
    return out


_CREATE = ("createPlugin", "createPluginV3")
_VALUE = ("on a data type at run time", "on a shape at run time")


def unreached_value(index, esc: Escape, checked: Optional[str], status: str) -> Optional[str]:
    """Why a runtime check in a creator's ``createPlugin`` on a value it is handed (a field's type, a shape or
    data type, the default of a dispatch on one) is an invariant in this program (:mod:`._model_reach`); None when
    data from outside may reach it, or the check is on something else (a CUDA status, the device)."""
    if esc.entry.fn.name.split("<")[0] not in _CREATE or not from_creator(index, esc.entry):
        return None
    dispatch = esc.call.guard in ("error-path:" + UNSUPPORTED_DTYPE, "error-path:" + UNNAMED_ENUMERATOR)
    if not dispatch and not status.startswith(_VALUE):
        return None
    r = reach(index, esc.entry.plugin, esc.entry.fn)
    ft = field_type_check(checked) if checked is not None and not dispatch else None
    if ft is not None:
        why = r.passes(ft[0], ft[1])
        if why is not None:
            return f"a check on the type of `{ft[2]}` in {esc.entry.plugin}::{esc.entry.fn.name}, which {why}"
        return None
    why = r.unreached()
    return f"a check on a value {esc.entry.plugin}::{esc.entry.fn.name} is handed, where {why}" if why else None


# a dimension read with a constant index: `in[0].desc.dims.d[2]`, `dims.d[1]`
_DIM_READ = re.compile(r"\.\s*d\s*\[\s*([^\]]*?)\s*\]")


def static_shape(index, esc: Escape, checked: Optional[str], status: str) -> Optional[str]:
    """Why a shape check in ``configurePlugin`` is decided when the engine is built: it reads only dimensions
    other than the first, with constant indices (`scores.d[2] == boxes.d[2]`; not `nbDims`, not `d[0]`, not
    `d[i]`), and every engine holding the plugin is built by its own program, whose optimization profiles vary
    no dimension but the first (:func:`._model_reach.builds_only_here`). TensorRT calls ``configurePlugin`` at
    build with those dimensions already fixed, and rejects a run-time shape outside the profile, so the run
    sees the values the build checked. None otherwise."""
    if checked is None or not status.startswith(_VALUE[1]) or esc.entry.fn.name.split("<")[0] != "configurePlugin":
        return None
    text = _LITERAL.sub('""', checked)
    reads = _DIM_READ.findall(text)
    if not reads or any(not r.isdigit() or int(r) == 0 for r in reads):
        return None
    rest = _DIM_READ.sub(" ", text)
    if re.search(r"\bnbDims\b|\.\s*d\b", rest) or any(rx.search(rest) for rx, _ in _RUNTIME_CONDITIONS):
        return None
    why = builds_only_here(index, esc.entry.plugin, esc.entry.fn.span.path)
    if why is None:
        return None
    return f"a check on dimensions other than the first, decided at engine build: {why}"


# what a condition of only build-decided shape tests leaves of itself: the rank compared with an integer
# (`in[0].desc.dims.nbDims == 3`, any comparison), a dimension with a constant index equal to an integer
# (`in[1].desc.dims.d[3] == 1`, either side); then nothing but `&&`, `||` and parentheses may be left
_OPERAND = r"[A-Za-z_]\w*(?:\s*(?:\[\s*\d+\s*\]|\.\s*\w+|->\s*\w+))*"
_INT = r"-?\s*\d+[uUlL]*"
_RANK_TEST = re.compile(rf"{_OPERAND}\s*\.\s*nbDims\s*(?:==|!=|<=|>=|<|>)\s*{_INT}\b|"
                        rf"\b{_INT}\s*(?:==|!=|<=|>=|<|>)\s*{_OPERAND}\s*\.\s*nbDims\b")
_DIM_IS = re.compile(rf"{_OPERAND}\s*\.\s*d\s*\[\s*\d+\s*\]\s*==\s*{_INT}\b|"
                     rf"\b{_INT}\s*==\s*{_OPERAND}\s*\.\s*d\s*\[\s*\d+\s*\]")


def wildcard_shape(index, esc: Escape, checked: Optional[str], status: str) -> Optional[str]:
    """Why a shape check in an IPluginV2DynamicExt's ``configurePlugin`` is decided when the engine is built: it
    tests only ranks (``nbDims``, against an integer) and dimensions with constant indices equal to an integer,
    joined by ``&&`` and ``||``. The builder first calls ``configurePlugin`` with the dimensions the network
    was made with, -1 in place of every dimension only the run knows (NvInferRuntime.h, ``DynamicPluginTensorDesc``:
    "desc.dims has -1 in place of any runtime dimension"); a rank never changes after that, and a dimension that
    equals a constant then is a fixed one. So such a check fails while the engine is built, or never. A bound
    (``d[2] <= 64``, ``d[1] != 0``: -1 passes it at build), a negation, two dimensions compared, a profile's
    ``min``/``max`` or any other term leaves the check to the run. None otherwise."""
    if checked is None or not status.startswith(_VALUE[1]) or esc.entry.fn.name.split("<")[0] != "configurePlugin":
        return None
    if _family(index, esc.entry) != "v2dynext":
        return None
    text = _LITERAL.sub('""', checked)
    if re.search(r"\.\s*(?:min|max|opt)\b", text):
        return None
    rest = _DIM_IS.sub(" T ", _RANK_TEST.sub(" T ", text))
    if "T" not in rest or not re.fullmatch(r"[\sT()&|]*", rest):  # (no `!`: `!(d[2] == 4)` passes -1 at build)
        return None
    return ("a check on ranks and on dimensions equal to constants in an IPluginV2DynamicExt's configurePlugin, "
            "decided when the engine is built (TensorRT calls it first with -1 for every dimension the run decides)")


def own_workspace(index, esc: Escape) -> Optional[str]:
    """Why an exit on a size exceeding what the carver was told is left (``if (size > workspace_size) exit(1);``) is
    an invariant: every hop from ``enqueue`` passes on the size ``enqueue`` got from the plugin's own
    ``getWorkspaceSize(...)`` (:func:`._escape.own_request`), and TensorRT hands ``enqueue`` a workspace at least that
    large. None otherwise."""
    fn = esc.chain[-1] if esc.chain else esc.entry.fn
    if not own_request(index, esc.entry, fn, esc.call):
        return None
    return (f"a check of the plugin's own workspace arithmetic: {esc.entry.plugin}::{esc.entry.fn.name} passes its "
            f"getWorkspaceSize(...) on to {short_name(fn)} unchanged, and TensorRT hands it at least that much")


# `DataType::kHALF`, `nvinfer1::DataType::kHALF`
_DTYPE = r"(?:\w+\s*::\s*)*DataType\s*::\s*(k\w+)"
_TYPE_READERS = ("enqueue", "configurePlugin", "onShapeChange")


def accepted_type(index, esc: Escape, checked: Optional[str], status: str) -> Optional[str]:
    """Why a check on a data type at run time, in a method TensorRT runs only with a combination the plugin's
    ``supportsFormatCombination`` accepted (``enqueue``, ``configurePlugin``, ``onShapeChange``), is an invariant: it
    only compares the type of one input with a constant index (``inputDesc[0].type``, ``in[0].desc.type``, a local
    bound once to one) with ``DataType`` constants joined by ``||``, and those constants name every type
    ``supportsFormatCombination`` accepts at that position, as the C++ frontend read it exactly
    (``MethodDetail.accepted_types``). None otherwise: ``&&``, ``!=``, an index that is not a constant, an output, a
    position whose accepted types are unknown, a check in a helper the method calls."""
    fn = esc.entry.fn
    if checked is None or not status.startswith(_VALUE[0]) or fn.name.split("<")[0] not in _TYPE_READERS \
            or len(esc.chain) != 1:
        return None
    md = index.lifecycle.get(fn.usr)
    if md is None or not md.input_desc:
        return None
    read = _type_reads(md.input_desc, dict(md.type_locals))
    positions, named = set(), set()
    for part in _disjuncts(_LITERAL.sub('""', checked)):
        m = re.fullmatch(rf"(.+?)\s*==\s*{_DTYPE}|{_DTYPE}\s*==\s*(.+)", part)
        if m is None:
            return None
        pos = read(m.group(1) if m.group(1) is not None else m.group(4))
        if pos is None:
            return None
        positions.add(pos)
        named.add(m.group(2) or m.group(3))
    if len(positions) != 1:
        return None
    pos = positions.pop()
    found = [d for d in index.method_details(esc.entry.qualname, "supportsFormatCombination")
             if d.accepted_types is not None]
    if len(found) != 1:
        return None
    accepted = dict(found[0].accepted_types).get(pos)
    if accepted is None or not set(accepted) <= named:
        return None
    sp = found[0].span
    return (f"a check on the data type of input {pos}, which {esc.entry.plugin}::supportsFormatCombination "
            f"({sp.path}:{sp.line}) accepts only as {', '.join(accepted)}: TensorRT runs {short_name(fn)} only with "
            f"a combination it accepted")


_EXIT_CALLS = frozenset({"exit", "abort", "_Exit", "quick_exit", "terminate"})


def rejected_at_construction(index, esc: Escape) -> Optional[str]:
    """Why an exit in the fall-through of a dispatch on the plugin's own members (the last ``else`` of an if/else-if
    chain whose every condition reads only members and constants, ``Call.fallthrough``) never runs: every constructor of
    the plugin holds, or calls a method of the plugin that holds, a chain whose conditions are all among this chain's
    and whose own fall-through fails (a throw, an exit, a check macro on ``false`` that throws or ends the process, as a
    statement of that ``else`` itself), after the last write of those members there; and no other function writes them.
    So every object holds a value this chain handles. None otherwise (a member written in ``configurePlugin`` or
    anywhere else, a constructor that does not check, a value the construction accepts this chain does not name, a
    constructor that writes a member after its check, no constructor seen)."""
    fn = esc.chain[-1] if esc.chain else esc.entry.fn
    macro = check_macro(esc) if esc.chain else None
    ft = esc.call.fallthrough or (macro.fallthrough if macro is not None else None)
    q = esc.entry.qualname
    if ft is None or not q or fn.cls is None:
        return None
    family = index.ancestors(q)
    if fn.cls not in family:
        return None
    short_cls = q.rsplit("::", 1)[-1].split("<")[0]
    ctors = [f for f in index.class_methods(q) if f.name.split("<")[0] == short_cls]
    if not ctors:
        return None
    members = {m for c in ft.conditions for m in re.findall(r"this->((?:\w+::)*\w+)", c)}
    wanted = set(ft.conditions)
    ctor_usrs = {f.usr for f in ctors}

    def rejects(m) -> Optional[int]:
        """The line of the chain in ``m`` that rejects every value ``ft``'s chain does not handle, when its members are
        written in ``m`` only before it; else None."""
        for c in m.calls:
            f = c.fallthrough
            if f is None or not f.direct or not set(f.conditions) <= wanted or not _fails(index, m, c):
                continue
            if all(line < f.line for mem, line in m.member_writes if mem in members):
                return f.line
        return None

    how: dict[str, str] = {}  # constructor usr -> the method (and line) that rejects for it
    for _ in range(len(ctors) + 1):  # (a constructor delegating to one that rejects: a fixed point)
        for ctor in ctors:
            if ctor.usr in how:
                continue
            line = rejects(ctor)
            if line is not None:
                how[ctor.usr] = f"{short_cls}::{short_name(ctor)} ({ctor.span.path}:{line})"
                continue
            for c in ctor.calls:
                target = index.resolve_call(c, ctor)
                if target is None or target.usr == fn.usr:
                    continue
                if target.usr in ctor_usrs:
                    why = how.get(target.usr)
                elif target.cls in family:
                    line = rejects(target)
                    why = f"{short_cls}::{short_name(target)} ({target.span.path}:{line})" if line is not None else None
                else:
                    why = None
                if why is not None and all(wl < c.span.line for mem, wl in ctor.member_writes if mem in members):
                    how[ctor.usr] = why
                    break
    if len(how) != len(ctors) or fn.usr in ctor_usrs:
        return None
    allowed = set(ctor_usrs)
    allowed.update(t.usr for ctor in ctors for c in ctor.calls
                   if (t := index.resolve_call(c, ctor)) is not None and rejects(t) is not None)
    writers = _member_writers(index)
    if any(w not in allowed for mem in members for w in writers.get(mem, ())):
        return None
    names = ", ".join(sorted({m.rsplit("::", 1)[-1] for m in members}))
    return (f"the fall-through of a dispatch on {names}, which {esc.entry.plugin} sets only while it is constructed, "
            f"where {' and '.join(sorted(set(how.values())))} already rejects every value this dispatch does not handle")


def _member_writers(index) -> dict:
    """Member (qualified) -> the USRs of the functions writing it (``CppFunction.member_writes``), kept on the index."""
    memo = index.__dict__.get("_trtlint_member_writers")
    if memo is None:
        memo = {}
        for f in index.functions.values():
            for mem, _line in f.member_writes:
                memo.setdefault(mem, set()).add(f.usr)
        index.__dict__["_trtlint_member_writers"] = memo
    return memo


def _fails(index, fn, c: Call) -> bool:
    """Whether the call ``c`` of ``fn`` fails by itself: a throw, an exit or abort, or a check macro on ``false`` (or a
    failure macro) that throws or ends the process (the packs say so, or its expansion throws, exits or calls a project
    function that does)."""
    if c.kind == "throw":
        return True
    if c.kind == "call":
        return c.callee.rsplit("::", 1)[-1] in _EXIT_CALLS
    if c.kind != "macro" or c.compiled_out or not c.args:
        return False
    if not (_ALWAYS_FALSE.fullmatch(_LITERAL.sub('""', c.args[0])) or is_failure_macro(c)):
        return False
    beh = index.packs.behaviour(c)
    if beh is not None:
        return beh.behaviour in ("throw", "exit")
    for x in fn.calls:
        if x is c or not _within(x.span, c.span):
            continue
        if x.kind == "throw" or (x.kind == "call" and x.callee.rsplit("::", 1)[-1] in _EXIT_CALLS):
            return True
        target = index.resolve_call(x, fn) if x.kind == "call" else None
        if target is not None and any(y.kind == "throw" or (y.kind == "call" and y.callee.rsplit("::", 1)[-1]
                                                            in _EXIT_CALLS) for y in target.calls):
            return True
    return False


def _type_reads(param: str, local_types: dict):
    """A reader of one operand: the input index it is the data type of (``param[i].type``, ``param[i].desc.type``,
    ``param->type``, a local bound once to one), or None."""
    rx = re.compile(rf"{re.escape(param)}\s*(?:\[\s*(\d+)\s*\]\s*\.|->)\s*(?:desc\s*\.\s*)?type")

    def read(operand: str) -> Optional[int]:
        e = _parens(operand)
        if e in local_types:
            return local_types[e]
        m = rx.fullmatch(e)
        if m is None:
            return None
        return int(m.group(1)) if m.group(1) is not None else 0
    return read


def _parens(expr: str) -> str:
    e = expr.strip()
    while e.startswith("(") and e.endswith(")") and _balanced(e[1:-1]):
        e = e[1:-1].strip()
    return e


def _disjuncts(expr: str) -> list[str]:
    """The operands of a top-level ``||`` chain (parentheses around the whole or a part stepped through)."""
    e = _parens(expr)
    parts, depth, start, i = [], 0, 0, 0
    while i < len(e):
        ch = e[i]
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and e.startswith("||", i):
            parts.append(e[start:i])
            start = i + 2
            i += 2
            continue
        i += 1
    parts.append(e[start:])
    if len(parts) == 1:
        return [e]
    return [x for p in parts for x in _disjuncts(p)]


def short_name(fn) -> str:
    return fn.name.split("<")[0]


def _key(esc: Escape) -> tuple:
    c = esc.call
    return (c.span.path, c.span.line, c.span.col, c.kind, c.callee)


def _within(s: Span, outer: Span) -> bool:
    return (s.path == outer.path and (outer.line, outer.col) <= (s.line, s.col)
            and (s.line, s.col) <= (outer.end_line, outer.end_col))


def check_macro(esc: Escape) -> Optional[Call]:
    """The macro use that does the check: the site itself when it is a macro, else the outermost macro use
    around the exit call (`CHECK(cudaMalloc(...))` expanding to `exit(1)`); None for a direct call."""
    if esc.call.kind == "macro":
        return esc.call
    fn = esc.chain[-1]
    around = [c for c in fn.calls if c.kind == "macro" and _within(esc.call.span, c.span)]
    if not around:
        return None
    return min(around, key=lambda c: (c.span.line, c.span.col, -c.span.end_line, -c.span.end_col))


def checked_expression(esc: Escape) -> Optional[str]:
    """The expression the check tests: the first argument of its macro; None when the exit is unconditional (a
    direct `exit()` / `abort()`, an exit macro without arguments) or a failure macro (see :func:`is_failure_macro`)."""
    m = check_macro(esc)
    if m is None or not m.args or is_failure_macro(m):
        return None
    return m.args[0]


def is_failure_macro(m: Call) -> bool:
    """A macro that fails unconditionally with a message (`PLUGIN_FAIL("unsupported type")`, `PLUGIN_FAIL(msg.c_str())`):
    named `*FAIL*`, or given only a string literal. It stands in the branch a plugin does not expect to reach (the
    `default:` of a switch over data types): `PLUGIN_ASSERT(false)` by another name, an invariant."""
    return "FAIL" in m.callee.upper() or (len(m.args) == 1 and bool(_STRING.match(m.args[0])))


def _strip(expr: str) -> str:
    e = expr.strip()
    while True:
        if e.startswith("!"):
            e = e[1:].strip()
        elif e.startswith("(") and e.endswith(")") and _balanced(e[1:-1]):
            e = e[1:-1].strip()
        else:
            return e


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def runtime_status(index, esc: Escape, checked: Optional[str]) -> Optional[str]:
    """Why the check ``esc`` ends the process on a runtime status, or None when it asserts an invariant."""
    if esc.call.guard in ("error-path:" + UNSUPPORTED_DTYPE, "error-path:" + UNNAMED_ENUMERATOR) \
            and not from_creator(index, esc.entry):
        # the branch of a data-type dispatch for no accepted type: TensorRT never hands it such a type; the default of
        # a switch naming every enumerator: only a value the plugin made invalid reaches it
        return None
    if null_argument(index, esc.entry, esc.chain[-1] if esc.chain else esc.entry.fn, esc.call):
        return None  # only a null argument TensorRT never passes to the interface method fails it: a precondition
    from_enqueue = esc.entry.fn.name.split("<")[0] == "enqueue"
    if checked is None:
        m = check_macro(esc)
        cond = (esc.call.guard or "")[len("error-path:"):] if is_error_path(esc.call) else ""
        if m is not None and is_failure_macro(m) and cond and cond not in (UNSUPPORTED_DTYPE, UNNAMED_ENUMERATOR, INDEX_BOUNDS, UNREACHABLE) \
                and not cond.startswith("before "):
            # a failure macro in the branch of a test (`if (err != cudaSuccess) FAIL("..." + s);`): the test decides
            checked = cond
        elif m is not None and is_failure_macro(m):
            # a failure that fires by itself, outside the branch for no accepted type: on enqueue's path it is reached
            # by a value the code does not handle at run time (a dispatch's fall-through)
            return "unconditionally, on a value nothing before it handles (the fall-through of a dispatch)" if from_enqueue else None
        if m is not None and checked is None:
            # a check macro without arguments whose own body tests a status (`cudaCheckError()` expanding to
            # `if (cudaGetLastError() != cudaSuccess) exit(1)`)
            for c in esc.chain[-1].calls:
                if (c.kind == "call" and c is not esc.call and _within(c.span, m.span)
                        and c.callee.split("::")[-1] not in _STRING_GETTERS
                        and index.packs.lookup("status_apis", c.callee) is not None):
                    return f"on the status {c.callee.split('::')[-1]} returns (tested in the body of {m.callee})"
        # a direct exit()/abort(): nothing in the call tests a status (an `if` around it may; its condition is not
        # kept), so the message says what the call is, not that it always runs
        if checked is None:
            return "by a direct call (it tests nothing itself)"
    checked = _LITERAL.sub('""', checked)  # `assert(ok && "error: ...")`: the message is not the condition
    for m in _CALL.finditer(checked):
        name = (m.group(1) or m.group(2) or "").split("::")[-1]
        if name in _NOT_CALLS or name in _STRING_GETTERS:
            continue
        if index.packs.lookup("status_apis", name) is not None:
            return f"on the status {name} returns"
    m = _STATUS_CONST.search(checked)
    if m is not None:
        return f"on a status (compared with {m.group(0)})"
    m = _STATUS_VAR.search(checked)
    if m is not None and not re.search(r"[.>]\s*" + re.escape(m.group(0)) + r"\b", checked):
        return f"on the status in `{m.group(0)}`"
    for rx, what in _RUNTIME_CONDITIONS:
        m = rx.search(checked)
        if m is not None:
            return f"on {what} (`{' '.join(checked.split())}`)"
    if from_enqueue and _ALWAYS_FALSE.fullmatch(checked):
        return "unconditionally, on a value nothing before it handles (the fall-through of a dispatch)"
    macro = check_macro(esc)
    if macro is not None and not _is_assert(macro.callee):
        e = _strip(checked)
        if _ONE_CALL.fullmatch(e):
            name = re.match(r"[\w:.>-]*?([A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(", e)
            return f"on the status {name.group(1) if name else 'the call'} returns"
        if _ONE_NAME.fullmatch(e):
            return f"on the status in `{e}`"
    return None


# conditions only the run decides (the GPU, the shapes and types of this inference, the fields of this model):
# a check on one fails on a user's input or machine, not on a plugin's own mistake
_RUNTIME_CONDITIONS = (
    (re.compile(r"\b(?:get_?[Ss][Mm](?:_?[Vv]ersion)?|[Ss][Mm](?:_?[Vv]ersion|[Cc]ount)?|m_?[Ss][Mm](?:_?[Vv]ersion)?|"
                r"kSM_\w+|SM_?\d+|major|minor|multiProcessorCount|\w*[Cc]ompute[Cc]apability\w*|cudaDevAttr\w*|"
                r"\w*[Dd]evice_?[Pp]rop\w*|prop|props)\b"), "a device property"),
    (re.compile(r"\.\s*d\s*\[|\b\w*(?:[Hh]ead_?[Ss]ize|[Hh]ead_?[Dd]im|[Ss]eq_?[Ll]en|[Bb]atch_?[Ss]ize|[Nn]um_?[Hh]eads|"
                r"[Hh]idden_?[Ss]ize)\w*\b"), "a shape at run time"),
    (re.compile(r"\.\s*type\b|\bPluginFieldType::|\bDataType::|\b\w*[Dd]ata_?[Tt]ype\b|\bm_?[Tt]ype\b"),
     "a data type at run time"),
)
# `assert(false)`, `PLUGIN_ASSERT(false && "unsupported")`, `assert(!"unsupported")` (string literals already blanked)
_ALWAYS_FALSE = re.compile(r'\s*(?:false|0|!\s*""|false\s*&&\s*""|""\s*&&\s*false)\s*')


def _is_assert(macro: str) -> bool:
    return macro == "assert" or "ASSERT" in macro.upper()
