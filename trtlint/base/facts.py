"""The fact vocabulary shared by every frontend.

A frontend turns one source file into a :class:`FileFacts`: plain frozen dataclasses that serialize to
JSON (for the cache and for ``--dump-facts``) and carry exact source ranges. No parser object ever leaves a
frontend; rules and the index only see these classes.

Conventions
-----------
* Paths are project-relative POSIX strings.
* Lines and columns are 1-based; ``end_col`` is exclusive.
* ``None`` means "not known statically" (never a guessed value).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional

from trtlint.base import methodcache
_METHODS = methodcache.begin(__file__)  # the dataclasses' methods compiled once, not on every start (until end())
# re-exported: the range every fact carries, and the vocabulary's version (their own module: base/span.py)
from trtlint.base.span import FACTS_SCHEMA_VERSION, Span  # noqa: E402,F401
# re-exported: the Python plugin-helper facts a CreatorLookup carries (their own module: base/helperfacts.py)
from trtlint.base.helperfacts import DictArg, DictParam, HelperCall, ParamArg, ParamHelper  # noqa: E402,F401
from trtlint.base.ortfacts import OrtCustomOp  # noqa: E402,F401  (another runtime's ops: their own module)
# re-exported: what CMake and Makefiles say they build (their own module: base/buildfacts.py)
from trtlint.base.buildfacts import CMakeFunction, CMakeGlob, CMakeTarget, MakeSources  # noqa: E402,F401
# re-exported: the project's classes and packages' re-exports TRT610 reads (their own module: base/pyclassfacts.py)
from trtlint.base.pyclassfacts import PyClassDecl, PyReexport  # noqa: E402,F401
# re-exported: what an ONNX model file holds (their own module: base/onnxfacts.py)
from trtlint.base.onnxfacts import OnnxAttr, OnnxModel, OnnxNode  # noqa: E402,F401

# --------------------------------------------------------------------------------------------------------
# C++ / CUDA
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedString:
    """A string a method returns, e.g. ``getPluginName() { return kNAME; }``. ``value`` is None when the expression
    could not be resolved to a constant (e.g. ``mNamespace.c_str()``; ``member`` then names the class member it
    reads). ``via`` names the constant it was resolved through; ``def_span`` is where that constant is defined."""

    value: Optional[str]
    span: Span
    expr: str = ""
    via: Optional[str] = None
    def_span: Optional[Span] = None
    member: Optional[str] = None


@dataclass(frozen=True)
class PluginFieldDecl:
    """One ``PluginField`` a creator declares (``getFieldNames``) or a plugin serializes."""

    name: str
    type: Optional[str]  # PluginFieldType enumerator without prefix, e.g. "kINT32"
    length: Optional[str]  # the length argument as written
    span: Span
    data: Optional[str] = None  # the data argument as written (e.g. "&mNumHeads", "nullptr")
    into: Optional[str] = None  # the class data member it is put in, qualified ("ns::FooCreator::mFields"), if one


@dataclass(frozen=True)
class FieldRead:
    """A field name read from a ``PluginFieldCollection`` (a string literal compared or passed as field name)."""

    name: str
    span: Span
    method: str  # the function it was read in
    has_default: bool = False  # e.g. ``.value_or(x)``
    default: Optional[str] = None
    style: str = "compare"  # "compare": compared in a loop; "call": passed to a parser call; "map": a key of a table
    # the PluginFieldType enumerator the body reads the field's data as ("kINT32"), where one is known: a key of a
    # name -> pointer table whose mapped type is a pointer to one scalar (``std::map<std::string, int*>``: kINT32,
    # frontends.cpp.fielddata.table_read_type); None: not known (never a guess)
    type: Optional[str] = None
    # what the branch reading it casts its data to a pointer to (fielddata.branch_cast); None: no such cast seen
    cast: Optional[str] = None


@dataclass(frozen=True)
class CppClass:
    """A class deriving (directly or not) from a TensorRT plugin or creator interface."""

    qualname: str  # fully qualified, e.g. "trt_edgellm::plugins::ViTAttentionPlugin"
    name: str
    kind: str  # "plugin" | "creator"
    family: str  # "v3" | "v2" | "v2ext" | "v2dynext" | "v2iox" | "creator_v3" | "creator_v2"
    bases: tuple[str, ...]  # all interface bases, unqualified (e.g. "IPluginV3OneCore")
    span: Span
    abstract: bool = False
    # the release a preprocessor branch around the declaration is for (``#if NV_TENSORRT_MAJOR >= 10``: "10.0"):
    # only TensorRT of that release or newer compiles it (frontends/trtversion.branch_floors); None: no such branch
    version_floor: Optional[str] = None


DEBUG_ONLY = "debug-only:"  # Call.guard prefix: a debug build's arm or a debug switch's branch (cpp.debugarms/debugswitch)
# the error-path guard (``Call.guard == "error-path:" + UNSUPPORTED_DTYPE``) of a call in the branch of a data-type
# dispatch that handles no accepted type: the last `else` of an if-chain on `DataType::k...`, the `default:` of a
# switch on a DataType (or a failure after one with no default whose every case leaves: `return 2; } throw ...;`).
# TensorRT hands a plugin only the types its supportsFormatCombination accepted.
UNSUPPORTED_DTYPE = "unsupported data type"

# the error-path guard (``Call.guard == "error-path:" + UNNAMED_ENUMERATOR``) of a call in the `default:` of a switch
# whose labels name every enumerator of its enum (`case Tactic::kNaive: ...; default: assert(0);`), or after such a
# switch with no default whose every case leaves: only an invalid value of the plugin's own making reaches it
UNNAMED_ENUMERATOR = "a value no enumerator names"

# the error-path guard (``Call.guard == "error-path:" + INDEX_BOUNDS``) of a throw in the branch of a bounds check
# of the function's own integer parameter (``if (idx < 0 || idx >= mNumDims) throw std::out_of_range(...)``): an
# index out of range is a program error (a std::logic_error, as a failed assert), not a runtime failure
INDEX_BOUNDS = "index out of range"

# the error-path guard (``Call.guard == "error-path:" + NULL_ARGUMENT``) of a failure that happens only when a pointer
# parameter of its own function is null: a throw or exit in the branch of a test that is nothing but null tests of
# such parameters (``if (p == nullptr || !q) throw std::invalid_argument(...);``), or a check macro whose condition is
# nothing but non-null tests of them (``PLUGIN_VALIDATE(p != nullptr && q != nullptr)``); parameters written in the
# body before are no such parameters. ``Call.null_tested`` holds the tested parameters' types. When the caller
# never passes null there (TensorRT calling an interface method: rules/tensorrt_interfaces.yaml ``nonnull``), it is
# an argument precondition, a program error (a std::logic_error, as a failed assert), not a runtime failure
NULL_ARGUMENT = "a null argument"

# the error-path guard (``Call.guard == "error-path:" + UNREACHABLE``) of a call after a statement no path leaves normally:
# a switch with a default where every case returns or throws (`switch (t) { case A: return 4; default: return 0; } throw`)
UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class FallThrough:
    """The last ``else`` of an if/else-if chain every condition of which reads only data members of the object
    (``mType``, ``this->mX``) and constants (frontends/cpp/fallthrough.py): reached only when no condition holds."""

    # the conditions, canonical: a member as ``this->`` + its qualified name, an enumerator by its qualified name, an
    # integer constant by its value, operators fully parenthesized (``(this->ns::P::mType == nvinfer1::DataType::kHALF)``)
    conditions: tuple[str, ...]
    line: int  # the line of the chain's first condition
    direct: bool  # the call is a statement of the else itself: no if, switch or loop between them


@dataclass(frozen=True)
class Call:
    """A call expression in a function body."""

    callee: str  # spelled name, qualified where known ("cudaMalloc", "std::vector::push_back")
    span: Span
    usr: Optional[str] = None  # USR of the callee declaration when resolved
    kind: str = "call"  # "call" | "launch" | "new" | "macro" | "throw" (callee "throw", args: (type, text))
    stream: Optional[str] = None  # for launches and async calls: the stream argument as written
    args: tuple[str, ...] = ()
    # one-time initialisation around the call: "static-init" (initializer of a function-local static, or a
    # std::call_once body) or "null-check:<condition>" (then-branch of `if (!mX)` / `if (mX == nullptr)` on a
    # member); None when the call runs every time its function does
    guard: Optional[str] = None
    in_try: bool = False  # (flow.py) inside the body of a try block of its function (a catch handler is not)
    discarded: bool = False  # a whole expression statement whose non-void result is dropped
    # for calls whose callee has a by-value stream parameter (cudaStream_t / CUstream): the argument passed
    # there as written, "" when it is omitted (the parameter's default); None when there is no such parameter
    stream_arg: Optional[str] = None
    # for memory copies: where each pointer argument points, when known statically: "stack:<var>" (a local
    # variable or array), "vector:<var>" / "string:<var>" (a std::vector / std::string's pageable heap
    # buffer); "" when unknown. One entry per argument (trailing unknowns dropped)
    mem_src: tuple[str, ...] = ()
    # for a macro use: where the project defines the macro (its #define in a project file), when visible; the
    # calls its expansion makes are then the function's calls inside the use's span (None: an SDK's or unseen).
    # For a launch a project macro's body writes (its span is the macro use's): where the body writes it
    defined_at: Optional[Span] = None
    # for a project macro use whose body expands other project macros: ``(name, macro, where it is defined)`` for
    # each ``name(`` spelled in the body of exactly one of those nested macros (``CHECK(x)`` expanding
    # ``DIE(msg)``, whose body spells ``cudaDeviceReset()``: ``("cudaDeviceReset", "DIE", <DIE's #define>)``)
    spelled_by: tuple[tuple[str, str, Span], ...] = ()
    compiled_out: bool = False  # an `assert` use in a unit compiled with NDEBUG: it expands to nothing (no check)
    needs_args: tuple[int, ...] = ()  # size query: its pointer parameters set whenever it runs (after `if (!p) return`)
    # for a call of a function (not a virtual method) the project declares: the project file of the declaration
    # the call names; a function whose body no analysed unit holds is then known to be the project's own
    declared_in: Optional[str] = None
    # per argument (resolved calls): "null" (a null pointer: a literal, or a local initialised to null and never
    # written again), "p<j>" (the caller's own pointer parameter j passed on, never written), "d<j>" (a pointer
    # derived from it, non-null whenever it is: frontends.cpp.nonnull), "&null" (``&v`` for a local pointer
    # initialised to null and never assigned again: an out-parameter the call may fill), "" otherwise; trailing ""
    # dropped
    arg_null: tuple[str, ...] = ()
    stream_field: Optional[str] = None  # the class field a stream argument reads (`mCtx.s`, `mCtx.stream()`)
    dispatch: bool = False  # in a branch of a data-type dispatch (frontends.cpp.flow._dispatch; index.unentered)
    null_args: tuple[int, ...] = ()  # its function's pointer parameters null whenever it runs (`if (!p)`: nonnull.py)
    # with the guard "error-path:" + NULL_ARGUMENT: the canonical types of the parameters whose null test it is
    # (``"const char *"``), one of which is null whenever the failure happens
    null_tested: tuple[str, ...] = ()
    # for a throw or exit ending the branch of `if (size > limit)` (``>=``, ``limit < size``, ``<=``) on an integer
    # parameter ``limit`` of its function neither written nor handed to a call before the test: that parameter's
    # index (frontends.cpp.sizelimit); a check of a size against what the caller says is available
    over_param: Optional[int] = None
    # per argument: the index of the caller's own parameter passed as a plain name, which its body writes nowhere
    # but in a branch that returns before the call (a size query's), else -1; trailing -1 dropped
    arg_params: tuple[int, ...] = ()
    # in the last else of an if/else-if chain on the object's own members and constants: that chain (the innermost)
    fallthrough: Optional[FallThrough] = None
    # a launch without a stream in the branch where its function's stream variable (a ``cudaStream_t`` or a pointer to
    # one) is tested null (``if (stream == nullptr) k<<<g, b>>>(...); else k<<<g, b, 0, *stream>>>(...)``): that
    # test's condition as written; the default stream is then the stream it was given
    stream_null: Optional[str] = None


@dataclass(frozen=True)
class CppFunction:
    """A function or method *definition* with the calls in its body."""

    usr: str
    qualname: str
    name: str
    span: Span
    cls: Optional[str] = None  # qualified class name for methods
    noexcept: bool = False
    calls: tuple[Call, ...] = ()
    returns: tuple[ResolvedString, ...] = ()  # returned string constants (name/version/namespace getters)
    field_decls: tuple[PluginFieldDecl, ...] = ()  # PluginField(...) / emplace_back(...) in the body
    field_reads: tuple[FieldRead, ...] = ()
    field_resets: tuple[str, ...] = ()  # members (qualified) of PluginFields it empties: `mFields.clear()`, `= {...}`
    # stream-typed class fields written: (field's qualified name, value as written; "&": handed out to be written)
    stream_writes: tuple[tuple[str, str], ...] = ()
    member_strings: tuple[tuple[str, ResolvedString], ...] = ()  # a constructor's `mName = kNAMES[0]`: (member, value)
    # data members of scalar type (not a class, not an array) it writes, of any object: (qualified member, line); an
    # assignment, `++`/`--`, its address taken, a non-const reference bound or passed, a constructor's initialiser
    member_writes: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Registration:
    """``REGISTER_TENSORRT_PLUGIN(Creator)`` or a creator named in a library creator list."""

    creator: str  # as written
    qualname: Optional[str]  # resolved class
    span: Span
    how: str = "macro"  # "macro" | "project-macro" (a project's REGISTER_*PLUGIN* macro) | "list" | "call" (registry->registerCreator(creator, ns))
    # a creator list's (how "list"): the function that holds it (a function-local list) or reads it (a list declared
    # outside functions), by name and USR. The index counts the list as a registration only when that function is a
    # plugin library's entry point (getCreators / getPluginCreators) or a function calling registerCreator reads or
    # calls it (ProjectIndex.unregistered_lists); None for the lists named by a call (initializePlugin<Creator>)
    holder: Optional[str] = None
    holder_usr: Optional[str] = None
    inner: Optional[Span] = None  # a template's (how "call" at `f<Creator>()`): its registerCreator call


@dataclass(frozen=True)
class ReturnInfo:
    """A return statement of a plugin method (status methods, getCapabilityInterface, getAliasedInput)."""

    span: Span
    expr: str
    # "bool" (a true/false literal) | "boolcall" (a call returning bool) | "boolexpr" (another bool expression:
    # a comparison, a variable) | "int" | "nullptr" | "cast" | "other" | "unknown" (a statement or a returned
    # value clang dropped after an error: what it returns, if anything, is not known)
    kind: str
    value: Optional[str] = None  # the literal, or a cast's target type (unqualified, e.g. "IPluginV3OneBuild")
    # getCapabilityInterface: the PluginCapabilityType enumerators the enclosing if/case tests with == ("kBUILD");
    # "?" when tested otherwise (!=); None outside any such test
    cap: Optional[str] = None
    in_catch: bool = False


@dataclass(frozen=True)
class FieldData:
    """The data argument of a ``PluginField`` built in a function body."""

    name: str  # the field name
    span: Span  # the data argument
    ftype: Optional[str]  # PluginFieldType enumerator, e.g. "kINT32"
    data: str  # as written
    pointee: Optional[str] = None  # canonical C++ type the data points to
    pointee_size: Optional[int] = None
    pointee_kind: Optional[str] = None  # "int" | "float" | "bool" | "char" | "enum" | "record" | "pointer" | "other"
    # where the pointed-to memory lives: "member" | "static" | "literal" | "local" | "param" | "temporary" | None
    storage: Optional[str] = None
    var: Optional[str] = None
    var_span: Optional[Span] = None
    container: Optional[str] = None  # where the PluginField is stored: "member" | "static" | "local" | "param" | None


@dataclass(frozen=True)
class SerialOp:
    """One write of ``serialize()`` or read of a deserializing constructor (IPluginV2*), in source order."""

    # "write" | "read" | "opaque" (a copy or helper call handed the buffer) | "skip" (the buffer pointer advanced
    # by a size, `d += sizeof(int)`, with nothing written or read since the previous advance or the start: bytes
    # moved past; ``expr`` is the advance, ``size`` its bytes when constant)
    op: str
    span: Span
    expr: str
    ctype: Optional[str] = None  # canonical C++ type
    size: Optional[int] = None  # bytes
    kind: Optional[str] = None
    conditional: bool = False  # inside an if / loop / switch / ?: (not a counting loop: see ``loop``)
    # inside `for (int i = 0; i < <loop>; ++i)` (no branch around it): its bound as written, the loop's offset (shared)
    loop: str = ""
    loop_at: int = 0
    # a read assigned to a name (`mKh = readBUF<int>(d)`, `this->mKh = ...`): that name as written, without
    # `this->` and spaces; "" otherwise (an out-parameter read names its value in ``expr``)
    into: str = ""


@dataclass(frozen=True)
class BlobHandoff:
    """A creator's ``deserializePlugin`` handing its serialized blob to a plugin constructor (``new X(name, d,
    len)``) after reading part of it itself (a type tag: ``deserialize_value(&d, &n, &tag)``, or
    ``memcpy(&tag, d, 4)`` then ``d + sizeof(int)``): where in the blob the pointer it passes points."""

    cls: str  # the class constructed, as written, without template arguments (e.g. "FooPlugin", "ns::FooPlugin")
    span: Span  # the class name in the ``new`` expression
    arg: str  # the constructor argument that carries the blob, as written
    # how far past the blob's start that argument points: in items (reads that advanced the pointer; None when
    # pointer arithmetic moved it) and in bytes (None when a size is unknown); both None: not known
    items: Optional[int] = None
    bytes: Optional[int] = None


@dataclass(frozen=True)
class MethodDetail:
    """What the interface and lifecycle rules read of one method body (see frontends/cpp/lifecycle.py)."""

    usr: str
    qualname: str
    cls: Optional[str]
    name: str
    span: Span
    role: str = ""  # "deserialize": a constructor that reads a serialized buffer
    return_type: str = ""
    returns: tuple[ReturnInfo, ...] = ()
    field_data: tuple[FieldData, ...] = ()
    serial: tuple[SerialOp, ...] = ()
    refs: tuple[tuple[str, Span], ...] = ()  # builder precision state named in the body
    # createPlugin: line ranges only reached in one TensorRTPhase: ("build" | "runtime", first line, last line)
    phase_ranges: tuple[tuple[str, int, int], ...] = ()
    # a V2 creator's deserializePlugin: the plugin constructors it hands its blob to (see BlobHandoff)
    handoffs: tuple[BlobHandoff, ...] = ()
    # a V2 plugin's getSerializationSize: the bytes its one return evaluates to, when a constant expression
    # (`3 * sizeof(size_t)`, `sizeof(mA) + sizeof(mB)`); None otherwise
    size_value: Optional[int] = None
    # a V2 plugin's serialize(): its body never names the buffer (it writes nothing; ``serial`` is empty)
    writes_nothing: bool = False
    workspace_param: Optional[int] = None  # a plugin's enqueue: the index of its workspace parameter (`void*`)
    # a plugin's supportsFormatCombination, read exactly (frontends/cpp/formats.py): (position, the DataType
    # enumerators it accepts there, e.g. ("kFLOAT", "kHALF")) for each position 0-7 accepting fewer than all; None:
    # the body could not be read exactly (no fact)
    accepted_types: Optional[tuple[tuple[int, tuple[str, ...]], ...]] = None
    # enqueue / configurePlugin / onShapeChange: the name of the input-descriptor parameter (its first), and each
    # local bound once, never written again, to an input's data type: (local, input index) (`auto t = in[0].type;`)
    input_desc: Optional[str] = None
    type_locals: tuple[tuple[str, int], ...] = ()


# --------------------------------------------------------------------------------------------------------
# Python
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttrFact:
    """One attribute passed to an emitted node or operation."""

    name: str
    span: Span
    value: Optional[str] = None  # source text of the value
    type: Optional[str] = None  # "INT" | "FLOAT" | "STRING" | "INTS" | "FLOATS" | "STRINGS" | "TENSOR" | None
    conditional: bool = False  # added in a branch
    name_span: Optional[Span] = None  # the keyword naming it, when passed as ``name=value`` (for fixes)


#: the emission forms of onnx-graphsurgeon (``gs.Node``, ``<graph>.layer``): graph surgery edits a model for TensorRT
SURGERY_FORMS = ("gs.Node", "graph.layer")


@dataclass(frozen=True)
class OnnxEmission:
    """Python code that emits an ONNX node (onnxscript opset call, ``g.op``, ``helper.make_node``, an
    onnx-graphsurgeon ``gs.Node``/``graph.layer``)."""

    op_type: str
    domain: Optional[str]  # None when not statically known
    span: Span
    form: str  # "onnxscript" | "g.op" | "make_node" | "gs.Node" | "graph.layer" (onnx-graphsurgeon)
    attrs: tuple[AttrFact, ...] = ()
    open_attrs: bool = False  # attributes also come from something we could not follow (**unknown)
    plugin_version: Optional[str] = None
    plugin_namespace: Optional[str] = None
    function: Optional[str] = None  # enclosing function
    # where the op type is written (for fixes): the attribute name of an onnxscript call, or the string
    # literal of make_node / g.op (whose text may carry a "domain::" prefix); None when not a plain literal
    op_span: Optional[Span] = None
    # the backend the enclosing function is registered for: the ``backend=`` argument of its decorators (or of
    # an enclosing function's), a string or an enum member's name lowercased (``Backend.NCNN.value``: "ncnn")
    backend: Optional[str] = None


@dataclass(frozen=True)
class DirectRouteTable:
    """A module dict from operation names to creator names used by a direct builder."""

    name: str
    span: Span
    entries: tuple[tuple[str, str, Span], ...]  # (operation, creator, span of the entry)
    fallback_identity: bool = False  # looked up with ``.get(name, name)``
    version: Optional[str] = None  # fixed version passed to get_creator
    namespace: Optional[str] = None


@dataclass(frozen=True)
class DirectRouteCall:
    """``operation("name", inputs, **attrs)`` in a direct builder."""

    operation: str
    span: Span
    attrs: tuple[AttrFact, ...] = ()
    open_attrs: bool = False
    function: Optional[str] = None


@dataclass(frozen=True)
class CreatorLookup:
    """``get_plugin_registry().get_creator(name, version, namespace)`` (or ``get_plugin_creator``)."""

    name: Optional[str]
    version: Optional[str]
    namespace: Optional[str]
    span: Span
    name_span: Optional[Span] = None
    # C++ model code (``getPluginRegistry()->getPluginCreator(name, version[, ns])`` / ``getCreator``): the call
    # as written, and the ``PluginField``s the same function builds after it (field-by-field or constructed),
    # which it hands to ``createPlugin`` in one collection; ``open_attrs``: fields not all followed
    form: str = "get_creator"
    attrs: tuple[AttrFact, ...] = ()
    open_attrs: bool = True
    # Python: a helper's lookup its callers complete; a call handing a helper a dict (form "helper-call", dropped
    # unless the index completes it)
    dict_param: Optional[DictParam] = None
    dict_arg: Optional[DictArg] = None
    # Python: a helper whose name, version, namespace and fields are its parameters; a call handing a helper a
    # PluginField collection (form "helper-call": completed by the index, or named by the run as not followed)
    param_helper: Optional[ParamHelper] = None
    helper_call: Optional[HelperCall] = None


@dataclass(frozen=True)
class PyCreator:
    """A plugin creator defined in Python: a class deriving from a ``tensorrt.IPluginCreator*`` that sets
    ``self.name`` / ``self.plugin_version`` / ``self.plugin_namespace`` / ``self.field_names``, or a
    quickly deployable plugin ``@tensorrt.plugin.register("ns::name")`` (version "1")."""

    name: str
    version: Optional[str]
    namespace: Optional[str]
    span: Span  # where the name is written
    cls: str  # the class (or, for QDP, function) name
    how: str  # "class" | "qdp"
    fields: tuple[PluginFieldDecl, ...] = ()
    version_span: Optional[Span] = None


@dataclass(frozen=True)
class PluginApiUse:
    """A use of the TensorRT plugin API from Python: ``trt.PluginField``, ``PluginFieldCollection``,
    ``add_plugin_v3``/``add_plugin_v2``, ``create_plugin``."""

    api: str
    span: Span


# --------------------------------------------------------------------------------------------------------
# Tests and test lists
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListedTestEntry:
    """One string entry of a YAML test list (``tests: [path::Class::func[param], ...]``)."""

    entry: str
    span: Span


@dataclass(frozen=True)
class DefinedTest:
    """A test a runner collects: a pytest ``test_*`` function (``cls`` for a ``Test*`` class method) or a
    googletest ``TEST``/``TEST_F``/``TEST_P`` (``cls`` is the suite)."""

    name: str
    span: Span
    cls: Optional[str] = None


# --------------------------------------------------------------------------------------------------------
# ONNX models and plugin specs
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PluginSpec:
    """One version of a TensorRT OSS ``*_PluginConfig.yaml`` plugin spec: the attributes its creator takes."""

    name: str
    version: str
    span: Span  # where the name is written
    fields: tuple[PluginFieldDecl, ...] = ()  # attributes with their types as PluginFieldType ("kFLOAT32")
    required: tuple[str, ...] = ()
    interface: Optional[str] = None
    version_span: Optional[Span] = None


# --------------------------------------------------------------------------------------------------------
# The plugin contract across languages: created plugins, defaults, PyTorch stubs, translation tables
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatedObject:
    """A class a function creates: ``new X(...)``, ``std::make_unique<X>(...)`` (from the source text, so an
    abstract-looking class under the stand-in headers still counts)."""

    cls: str  # as written, e.g. "FooPlugin" or "ns::FooPlugin"; qualified when a macro writes it (``macro``)
    span: Span
    args: str = ""  # the constructor arguments as written (shortened)
    # the macro whose expansion names the class (``new PLUGIN_NAME(...)``): ``cls`` is then the class libclang gives
    # the expression (qualified), or the macro's name with ``unresolved`` when libclang could not tell
    macro: Optional[str] = None
    unresolved: bool = False


@dataclass(frozen=True)
class FieldDefault:
    """The value a creator method falls back to when a field is absent from the collection."""

    field: str
    default: str  # the default expression as written, e.g. "1", "0.5F", "kDEFAULT"
    span: Span  # where the default is written
    how: str  # "value_or" | "local-init" (initializer of the local the field is stored in) | "member-init"
    target: Optional[str] = None  # the variable or member the field is stored in
    checked: bool = False  # the stored value is validated (a CHECK/ASSERT/VALIDATE or an if that fails) in the file


@dataclass(frozen=True)
class FnContract:
    """What a C++ function contributes to the plugin contract beyond its calls (creators and plugins only)."""
    usr: str
    qualname: str
    name: str
    cls: Optional[str]
    span: Span
    creates: tuple[CreatedObject, ...] = ()
    defaults: tuple[FieldDefault, ...] = ()
    called: tuple[str, ...] = ()  # names called in the body, read from its text (creating methods only)
    required: tuple[str, ...] = ()  # field names it asserts present (`validateRequiredAttributesExist({"a"}, fc)`)
    lengths: tuple[tuple[str, int], ...] = ()  # (field, N): a branch reading it requires `length == N`


@dataclass(frozen=True)
class StubParam:
    """A parameter of a PyTorch custom-op stub or of an ONNX translation function."""
    name: str
    span: Span  # the default when it has one, else the parameter
    default: Optional[str] = None  # source text of the default, None when it has none
    annotation: Optional[str] = None  # as written


@dataclass(frozen=True)
class TorchOpStub:
    """A PyTorch custom op: ``@torch.library.custom_op("ns::op")`` on a function, or ``torch.library.define``
    / ``Library.define`` with a schema string ``"op(Tensor x, int k=4) -> Tensor"``."""

    op: str  # "ns::op"
    span: Span  # the op name as written
    params: tuple[StubParam, ...] = ()
    how: str = "custom_op"  # "custom_op" | "define"
    function: Optional[str] = None


@dataclass(frozen=True)
class PyFunctionSig:
    """A module-level Python function of a translation module: its parameters and the module functions it
    forwards to (``callee``, ((callee parameter, argument as written), ...))."""

    name: str
    span: Span
    params: tuple[StubParam, ...] = ()
    forwards: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()


@dataclass(frozen=True)
class TranslationEntry:
    """``{torch.ops.ns.op.default: fn, ...}``: a custom-op to translation-function table entry."""

    op: str  # "ns::op"
    function: str  # the translation function's name as written
    span: Span


# --------------------------------------------------------------------------------------------------------
# Per-file container
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MissingInclude:
    """An ``#include`` that did not resolve on the unit's include path (libclang: "'x.h' file not found")."""

    name: str  # as written between the quotes or angle brackets
    span: Span  # the #include line (in the unit or in a project header it includes)


@dataclass(frozen=True)
class GuessedInclude:
    """An include directory the C++ frontend guessed for a unit (frontends/cpp/guess.py): ``name`` (as written at
    ``span``) resolved nowhere else, and exists below ``dir`` (root-relative, "./" for the root), an ancestor of
    the unit."""

    name: str
    dir: str
    span: Span


@dataclass(frozen=True)
class InactiveCode:
    """Plugin code in a preprocessor branch the parse did not compile (``#if NV_TENSORRT_MAJOR <= 7`` with another
    release's headers, ``#if 0``): a registration or a class deriving a plugin or creator interface, by name, or the
    construction of a class (``new X(...)``: pipeline.oldrelease), and the directive that opens the branch (frontends/cpp/skipped.py)."""

    what: str  # "registration" | "class" | "construction" (``new X``, ``make_unique<X>``) | "lookup"
    name: str  # the creator registered, the class (declared, or constructed: its name without qualifiers), the plugin looked up
    span: Span
    directive: str  # the branch's first line as written ("#if NV_TENSORRT_MAJOR <= 7")
    directive_line: int
    # a lookup (``getPluginCreator("X", "1")``): the version as written (None when not given), and the call's name
    version: Optional[str] = None
    call: str = ""


@dataclass(frozen=True)
class UnresolvedClass:
    """A project class that declares TensorRT plugin or creator methods (``getPluginName``, ``createPlugin``,
    ``enqueue`` with ``getOutputDimensions``, ...) but reaches no TensorRT interface: its bases did not resolve
    (typically a base declared in a header that was not found)."""

    qualname: str
    name: str
    kind: str  # "plugin" | "creator": what its methods make it look like
    bases: tuple[str, ...]  # the base classes as written in its head ("TRTPluginBase"); () when none
    span: Span
    # when a base the project defines (its definition seen) derives, itself or through further such bases, a plugin
    # interface of TensorRT 5-7 (IPlugin, IPluginExt, removed in 8.0, which no stand-in declares): that chain, the
    # project classes by qualified name and the interface as written ("onnx2trt::Plugin", "nvinfer1::IPluginExt"),
    # and the head of the project class deriving the interface; () / None otherwise
    legacy_via: tuple[str, ...] = ()
    legacy_span: Optional[Span] = None


@dataclass(frozen=True)
class ParseProblem:
    """The file could not be parsed (or only partly)."""

    message: str
    span: Span
    partial: bool = False
    # not a failure: a file deliberately not analysed whose reason is a note (a Git LFS pointer in place of a
    # model); TRT001 reports it as info
    note: bool = False


@dataclass(frozen=True)
class FileFacts:
    path: str
    kind: str  # "cpp" | "cuda" | "header" | "python" | "cmake" | "makefile" | "onnx" | "yaml"
    digest: str
    problems: tuple[ParseProblem, ...] = ()
    classes: tuple[CppClass, ...] = ()
    functions: tuple[CppFunction, ...] = ()
    registrations: tuple[Registration, ...] = ()
    emissions: tuple[OnnxEmission, ...] = ()
    route_tables: tuple[DirectRouteTable, ...] = ()
    route_calls: tuple[DirectRouteCall, ...] = ()
    lookups: tuple[CreatorLookup, ...] = ()
    api_uses: tuple[PluginApiUse, ...] = ()
    py_creators: tuple[PyCreator, ...] = ()
    globs: tuple[CMakeGlob, ...] = ()
    make_sources: tuple[MakeSources, ...] = ()  # a Makefile's (one entry)
    includes: tuple[str, ...] = ()  # project files this file's facts depend on (C++ headers)
    suppressions: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (line, rule ids) from inline comments
    targets: tuple[CMakeTarget, ...] = ()
    cmake_functions: tuple[CMakeFunction, ...] = ()  # a list file's functions making or registering tests
    test_entries: tuple[ListedTestEntry, ...] = ()
    test_cases: tuple[DefinedTest, ...] = ()
    models: tuple[OnnxModel, ...] = ()  # ONNX model files
    plugin_specs: tuple[PluginSpec, ...] = ()  # *_PluginConfig.yaml
    converters: tuple[ConverterRegistration, ...] = ()
    py_signatures: tuple[PySignature, ...] = ()
    unnamed_layers: tuple[UnnamedLayer, ...] = ()
    qdp_defs: tuple[QdpDef, ...] = ()
    torch_op_uses: tuple[TorchOpUse, ...] = ()
    py_enqueues: tuple[PyEnqueue, ...] = ()
    py_plugin_fields: tuple[PyPluginField, ...] = ()
    trt_api_uses: tuple[TrtApiUse, ...] = ()
    py_classes: tuple[PyClassDecl, ...] = ()  # classes declaring a pack API name themselves (TRT610)
    py_reexports: tuple[PyReexport, ...] = ()  # a package __init__.py's names imported from a module (TRT610)
    lifecycle: tuple[MethodDetail, ...] = ()  # C++: plugin method bodies the lifecycle rules read
    fn_contracts: tuple[FnContract, ...] = ()
    torch_stubs: tuple[TorchOpStub, ...] = ()
    py_functions: tuple[PyFunctionSig, ...] = ()
    translation_entries: tuple[TranslationEntry, ...] = ()
    # C++: (header, USR) of the function definitions this unit's parse holds in the headers it left to another
    # unit to walk (SourceFile.skip); the engine checks that the index has each (a header may define more in
    # one unit than another: #if on the unit's macros, a defaulted member only where used)
    skipped_defs: tuple[tuple[str, str], ...] = ()
    # C++: the #includes of project files that did not resolve in this unit's parse, and the classes that look
    # like plugins or creators but reached no TensorRT interface (TRT004)
    missing_includes: tuple[MissingInclude, ...] = ()
    unresolved_classes: tuple[UnresolvedClass, ...] = ()
    ort_ops: tuple[OrtCustomOp, ...] = ()  # C++: the project's ONNX Runtime custom ops (another runtime's, base/ortfacts.py)
    # C++: plugin code in a branch of the unit's own file that its parse did not compile
    inactive: tuple[InactiveCode, ...] = ()
    # C++: include dirs guessed for the unit (an include rooted at one of its ancestor directories)
    guessed_includes: tuple[GuessedInclude, ...] = ()
    # C++: CUDA names the unit uses that the stand-in headers do not declare, in a unit with no missing include (a
    # call naming one is invalid to clang: not followed), first seen first (frontends/cpp/unit.py)
    stand_in_gaps: tuple[str, ...] = ()
    # Python: string literals naming a path whose name marks it deprecated, (value, line) (frontends/python/markedpaths.py)
    marked_strings: tuple[tuple[str, int], ...] = ()
    # Python: ``X.make_node("Op")`` on another object than onnx.helper, a non-default op: (line, call, op), not judged
    wrapped_emissions: tuple[tuple[int, str, str], ...] = ()


# --------------------------------------------------------------------------------------------------------
# Python: Torch-TensorRT converters, plugin generation, TensorRT Python plugins and QDP
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PyParam:
    """One parameter of a Python function as written."""

    name: str
    kind: str  # "posonly" | "pos" | "kwonly" | "vararg" | "kwarg"
    annotation: Optional[str] = None  # normalized: names qualified through imports (``tensorrt.plugin.TensorDesc``)
    has_default: bool = False
    span: Optional[Span] = None


@dataclass(frozen=True)
class ConverterRegistration:
    """A converter registration decorator (``@dynamo_tensorrt_converter(key, ...)``) on a function."""

    function: str
    span: Span  # the decorator expression
    registrar: str  # last name of the decorator: "dynamo_tensorrt_converter" | "tensorrt_converter"
    key: Optional[str]  # the key as a qualified dotted name or literal, e.g. "torch.ops.aten.add.Tensor"
    key_form: str  # "overload" | "packet" | "out" | "string" | "other"
    key_span: Optional[Span] = None
    validator: Optional[str] = None  # as written ("<lambda>" for a lambda)
    validator_span: Optional[Span] = None
    validator_params: Optional[tuple[PyParam, ...]] = None  # resolved in this file (function or lambda)
    validator_ref: Optional[str] = None  # qualified name when imported from another module
    wrappers_above: tuple[tuple[str, Span], ...] = ()  # decorators above the topmost registration


@dataclass(frozen=True)
class PySignature:
    """A module-level function's signature (kept for functions other files may name, e.g. validators)."""

    module: str  # dotted module name derived from the path
    name: str
    span: Span
    params: tuple[PyParam, ...] = ()


@dataclass(frozen=True)
class UnnamedLayer:
    """``net.add_<layer>(...)`` whose layer never gets a name in the function."""

    method: str
    span: Span
    function: Optional[str] = None


@dataclass(frozen=True)
class QdpDef:
    """A ``tensorrt.plugin`` decorator on a function: register / impl / autotune / aot_impl."""

    kind: str  # "register" | "impl" | "autotune" | "aot_impl"
    plugin_id: Optional[str]
    id_span: Span
    function: str
    span: Span  # the function name
    params: tuple[PyParam, ...] = ()
    returns: Optional[str] = None  # normalized return annotation; None when absent
    lazy: bool = False  # register(..., lazy_register=True)
    nested: bool = False  # defined inside another function (registered only when that runs)
    stream_used: Optional[bool] = None  # impl: is the ``stream`` parameter referenced in the body
    has_work: bool = False  # impl: the body calls something


@dataclass(frozen=True)
class TorchOpUse:
    """A torch custom-op definition, fake kernel, or Torch-TensorRT plugin generation naming an op."""

    kind: str  # "define" | "fake" | "generate_plugin" | "generate_plugin_converter" | "custom_op"
    op: Optional[str]  # "namespace::name"
    span: Span
    function: Optional[str] = None  # the decorated function (definitions)


@dataclass(frozen=True)
class PyEnqueue:
    """``enqueue`` of a Python plugin class (IPluginV3OneRuntime / IPluginV2DynamicExt)."""

    cls: str
    span: Span
    stream_param: Optional[str]
    stream_used: bool
    has_work: bool


@dataclass(frozen=True)
class PyPluginField:
    """``trt.PluginField(name, data, type)`` with the numpy dtype of ``data`` when it is known."""

    name: Optional[str]
    span: Span
    field_type: Optional[str]  # PluginFieldType member, e.g. "INT32"
    dtype: Optional[str]  # numpy dtype name of the data ("int64" for np.array([1]) without dtype), "bytes"
    dtype_explicit: bool = False
    data: str = ""
    empty: bool = False  # data is an empty array literal


@dataclass(frozen=True)
class TrtApiUse:
    """A use of a TensorRT Python API named in the deprecation pack (``rules/tensorrt_python.yaml``)."""

    name: str  # the pack's key, e.g. "build_engine" or "BuilderFlag.STRICT_TYPES"
    span: Span
    guarded: bool = False  # under a TensorRT version test or hasattr() check
    # the class the code itself gives the receiver of ``<recv>.name`` (``self``, an annotated parameter or field, a
    # constructor call), qualified: "pkg.settings.Settings"; None when the code does not say (frontends/python/receivers.py)
    receiver: Optional[str] = None


# --------------------------------------------------------------------------------------------------------
# JSON round trip (used by the cache and --dump-facts)
# --------------------------------------------------------------------------------------------------------

_CLASSES: dict[str, type] = {}


def _register() -> None:
    for name, obj in list(globals().items()):
        if isinstance(obj, type) and dataclasses.is_dataclass(obj):
            _CLASSES[name] = obj


def to_json(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        out = {"@": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = to_json(getattr(obj, f.name))
        return out
    if isinstance(obj, (list, tuple)):
        return [to_json(x) for x in obj]
    return obj


def from_json(data: Any) -> Any:
    if isinstance(data, dict) and "@" in data:
        cls = _CLASSES[data["@"]]
        kwargs = {k: from_json(v) for k, v in data.items() if k != "@"}
        return cls(**kwargs)
    if isinstance(data, list):
        return tuple(from_json(x) for x in data)
    return data


def _tuples(v: list) -> tuple:
    return tuple(_tuples(x) if type(x) is list else x for x in v)


def _hook(d: dict) -> Any:
    for k, v in d.items():
        if type(v) is list:
            d[k] = _tuples(v)
    name = d.pop("@", None)
    if name is None:
        return d
    return _CLASSES[name](**d)


def loads_facts(text: str) -> Any:
    """Parse JSON written with :func:`to_json` straight into fact dataclasses (bottom-up, one pass)."""
    import json

    return json.loads(text, object_hook=_hook)


methodcache.end(_METHODS)
_register()
