from __future__ import annotations

import re
from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.plugin import (TAG_BY_COPY, TAG_BY_READ, old_release_program, serialization_v2, serialization_v2_tagged,
                               serialization_v3)


_W3 = "write(d, mAxis); write(d, mScale); write(d, mFlag)"
_R3 = "mAxis = read<int32_t>(d); mScale = read<float>(d); mFlag = read<bool>(d)"


def _with_size(size: str, writes: str = _W3, reads: str = _R3) -> str:
    """serialization_v2 with a getSerializationSize() returning ``size`` (lines 23-26)."""
    return serialization_v2(writes, reads).replace(
        "    void serialize(void* buffer) const noexcept override;\n",
        "    void serialize(void* buffer) const noexcept override;\n    size_t getSerializationSize() const noexcept override\n"
        f"    {{\n        return {size};\n    }}\n", 1)


def _looped(read: str = "mScales[i] = read<float>(d);", after: str = "mFlag = read<bool>(d)", bound: str = "mAxis") -> str:
    """serialization_v2 whose serialize() writes mAxis, then mScales[i] in `for (i = 0; i < mAxis; ++i)` (lines
    42-45), then mFlag; the constructor reads mAxis, ``read`` in a loop up to ``bound`` (lines 32-35), then
    ``after`` (line 36)."""
    src = serialization_v2("write(d, mAxis); WLOOP; write(d, mFlag)", f"mAxis = read<int32_t>(d); RLOOP; {after}")
    src = src.replace("    WLOOP;", "    for (int32_t i = 0; i < mAxis; ++i)\n    {\n        write(d, mScales[i]);\n    }")
    src = src.replace("    RLOOP;", f"    for (int32_t i = 0; i < {bound}; i++)\n    {{\n        {read}\n    }}")
    return src.replace("    bool mFlag{};\n", "    bool mFlag{};\n    float mScales[8]{};\n", 1)


def _named_then_looped(writes: str, reads: str) -> str:
    """serialization_v2 with the project's own helpers (:func:`_own_helpers`), ``writes``/``reads`` then a loop over
    `mScales` on each side with different bounds (`mCount`, `8`), so that counts cannot be compared; members
    mAxis, mScale (int), mFlag (int)."""
    src = _own_helpers(writes + "; WLOOP", reads + "; RLOOP")
    src = src.replace("    WLOOP;", "    for (int32_t i = 0; i < mCount; ++i)\n    {\n        putBUF(d, mScales[i]);\n    }")
    src = src.replace("    RLOOP;", "    for (int32_t i = 0; i < 8; i++)\n    {\n        mScales[i] = getBUF<float>(d);\n    }")
    src = src.replace("    float mScale{};\n", "    int32_t mScale{};\n", 1)
    return src.replace("    bool mFlag{};\n", "    int32_t mFlag{};\n    float mScales[8]{};\n    int32_t mCount{8};\n", 1)


def _own_helpers(writes: str, reads: str) -> str:
    """serialization_v2 whose helpers are the project's own `putBUF(d, x)` / `x = getBUF<T>(d)`, storing and loading
    through a cast of the buffer (tkDNN style): what they do is read from their bodies."""
    src = serialization_v2(writes, reads)
    src = src.replace("void write(char*& buffer", "void putBUF(char*& buffer").replace("T read(char const*& buffer", "T getBUF(char const*& buffer")
    src = src.replace("std::memcpy(buffer, &val, sizeof(T));", "*reinterpret_cast<T*>(buffer) = val;")
    return src.replace("std::memcpy(&val, buffer, sizeof(T));", "val = *reinterpret_cast<T const*>(buffer);")


def _delegated(writes: str = _W3, reads: str = _R3) -> str:
    """serialization_v2 whose deserializing constructor hands the whole blob to a method of its own,
    `load(static_cast<char const*>(data), length)`, which reads ``reads`` (TensorRT OSS style)."""
    src = serialization_v2(writes, reads)
    src = src.replace("    BarPlugin(void const* data, size_t length);\n",
                      "    BarPlugin(void const* data, size_t length) { load(static_cast<char const*>(data), length); }\n"
                      "    void load(char const* data, size_t length);\n", 1)
    return src.replace("BarPlugin::BarPlugin(void const* data, size_t length)\n{\n    char const* d = static_cast<char const*>(data);\n",
                       "void BarPlugin::load(char const* data, size_t length)\n{\n    char const* d = data;\n", 1)


def _table(writes: str, reads: str) -> str:
    """serialization_v2 with a `float* mTable` member that serialize() and the constructor copy as a block."""
    return serialization_v2(writes, reads).replace("    bool mFlag{};\n", "    bool mFlag{};\n    float* mTable{};\n", 1)


def _checked(writes: str, reads: str) -> str:
    """serialization_v2 whose serialize() and constructor first check the buffer pointer,
    `VALIDATE(d != nullptr && mLimits.valid())`, `mLimits` of a type a missing header declares (libclang drops the
    statement; it is read from the text). Line of the constructor's first read: 33."""
    src = serialization_v2(f"VALIDATE(d != nullptr && mLimits.valid()); {writes}",
                           f"VALIDATE(d != nullptr && mLimits.valid()); {reads}")
    src = src.replace("#include <cstring>\n", '#include <cstring>\n#include "limits_missing.h"\n', 1)
    return src.replace("    bool mFlag{};\n", "    bool mFlag{};\n    Limits mLimits;\n", 1)



def _class_template(serialize: str) -> str:
    """A V2 plugin class template whose deserializing constructor copies its parameter struct out of the blob
    (line 12: in a template, libclang leaves the dependent ``memcpy`` call unnamed) and whose serialize() body is
    ``serialize``."""
    return f"""#include <NvInferRuntime.h>
#include <cstring>
#include <string>
using namespace nvinfer1;
template <typename T>
class BarPlugin : public IPluginV2DynamicExt
{{
public:
    BarPlugin(std::string const& name, void const* data, size_t length)
        : mName(name)
    {{
        memcpy(&mParams, data, sizeof(mParams));
    }}
    size_t getSerializationSize() const noexcept override {{ return sizeof(mParams); }}
    void serialize(void* buffer) const noexcept override
    {{
        {serialize}
    }}
    struct
    {{
        int32_t axis;
        float scale;
    }} mParams;
    std::string mName;
}};
"""


class SerializationIncomplete(Rule):
    """What a plugin serializes does not round-trip into what its runtime creator (or V2 constructor) reads.

    ## What it does
    `IPluginV3`: compares the fields `getFieldsToSerialize` writes with the fields the creator of the same
    plugin name reads in `createPlugin` (and in what it hands the collection to): a serialized field that
    the creator never reads, and a field the creator reads (and declares) outside a build-phase-only branch
    (`if (phase == TensorRTPhase::kBUILD)`) that is never serialized.
    `IPluginV2*`: compares, in order, the values `serialize()` writes (`write(d, x)`, `serialize_value`,
    `writeToBuffer`, a project's own helper whose body stores its value through the buffer and advances it
    (`writeBUF(buf, x)`), a store through a cast of the buffer (`*reinterpret_cast<int*>(d) = x`),
    `memcpy(d, &x, n)` and `memcpy(d, arr, n)`) with the values the deserializing constructor
    (`Plugin(void const* data, size_t length)`) reads (`read<T>(d)`, `read(d, x)` with an output parameter,
    `deserialize_value`, `readFromBuffer`, a project helper that loads through the buffer and advances it,
    `x = *reinterpret_cast<int const*>(d)`, `memcpy(&x, d, n)`; or those of the project function it hands the
    whole blob to, `deserialize(data, length)`), up to the first write or read under a branch or loop, or handed
    to a helper whose body says nothing of the kind: the first pair whose C++ types differ in size or in kind
    (float vs integer), and, when both are straight-line, a count mismatch. A pointer moved past bytes by a
    size (`d += sizeof(int)`, no call in it) with nothing stored since the previous advance or the start is an
    item of its own, a skip: a skip in `serialize()` where the constructor reads a value is a finding (those
    bytes are never written: a dropped store whose advance stayed); a skip in the constructor passes over
    whatever was written there; skips at the end (padding) are compared with nothing. `cast<T const*>(d)[0]`
    is the same access as `*cast<T const*>(d)`. A check of the buffer pointer (`PLUGIN_VALIDATE(d != nullptr)`,
    `ASSERT(d == a + length)`: each argument naming the buffer compares it) is no item, also when libclang
    dropped the statement and it is read from the text. A value whose type is not known (a
    template parameter; a type a missing header declares, whose statements are read from the source text) is
    one item whose type is not compared. A `serialize()` that names its buffer only to point locals into it
    writes nothing. In a class template a call whose arguments depend on a template parameter
    (`memcpy(&mParams, data, sizeof(mParams))`) is read as the call its overload set names. The same block copied on both sides (`memcpy(d, mTable.data(), n)` and back), or a
    counting loop with the same bound, anchors the counts: the values before it must be as many. When the creator's
    `deserializePlugin` reads the first items itself (a type tag: `deserialize_value(&data, &n, &typeId)`, or
    `memcpy(&typeId, data, sizeof(int))`) and hands the constructor the blob past them (the advanced pointer,
    or `(char*)data + sizeof(int)`), the constructor's reads are compared from the next item on; handed the
    blob from its start, the constructor reads from item 1. Where the pointer it is handed points is not
    known, or two creators disagree, the pair is not judged. A store through an element of the buffer
    (`d[0] = x`) is an item whose type is not read: the comparison stops there. `getSerializationSize()` returning a constant expression (`3 * sizeof(size_t)`,
    `sizeof(mA) + sizeof(mB)`) must equal the bytes `serialize()` writes, when every write is straight-line and
    of a known size; the message's effect follows the deserializing constructor's reads, when it is handed the
    whole blob and reads straight-line: reading what serialize() writes leaves the extra bytes unread
    (uninitialised bytes in the engine file), reading what the size promises reads them back as data. A counting loop (`for (int i = 0; i < n; ++i)`, no branch around it) is one item on each
    side: loops with the same bound are compared iteration by iteration, and the comparison goes on after them
    (counts are not compared once a loop is involved). When the sizes agree, the names decide: over the leading
    values each side moves one by one by name (`write(d, mKh)` and `mKh = read<int>(d)` or `read(d, mKh)`; up to
    the first loop, branch or copy), the first place the names differ is a finding when the constructor reads
    there a member serialize() never writes (a dropped write), serialize() writes there a value the constructor
    never reads (a dropped read), or two neighbours are swapped; and at least two values are named alike on both
    sides once that difference is accounted for.

    ## Why it matters
    An engine is built by one plugin object and run by another, made from the serialized bytes or fields. A
    value that does not make the trip silently takes its default in the deserialized plugin; a V2 read of the
    wrong width shifts every following read, so all later members are garbage. Nothing fails until the
    deserialized engine computes wrong results.

    ## Example
    ```cpp
    mData.emplace_back("alpha", &mAlpha, PluginFieldType::kFLOAT32, 1);  // getFieldsToSerialize
    if (!strcmp(fc->fields[i].name, "beta")) { ... }                    // createPlugin never reads "alpha"
    ```

    ## Fix
    Serialize exactly the fields the runtime creator reads, with the types it declares; in V2, write and
    read the same members in the same order with the same types.
    """

    code = "TRT202"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "serialization-incomplete"
    family = "plugin"

    VALID = [
        # the same members in the same order, then loops whose bounds are not compared
        {"files": {"plugins/bar.cpp": _named_then_looped(
            "putBUF(d, mAxis); putBUF(d, mScale); putBUF(d, mFlag)",
            "mAxis = getBUF<int32_t>(d); this->mScale = getBUF<int32_t>(d); mFlag = getBUF<int32_t>(d)")}},
        # the constructor reads into locals: the names say nothing
        {"files": {"plugins/bar.cpp": _named_then_looped(
            "putBUF(d, mAxis); putBUF(d, mScale); putBUF(d, mFlag)",
            "int32_t a = getBUF<int32_t>(d); int32_t b = getBUF<int32_t>(d); mFlag = getBUF<int32_t>(d)")}},
        {"files": {"plugins/bar.cpp": _class_template("memcpy(buffer, &mParams, sizeof(mParams));")}},
        {"files": {"plugins/foo.cpp": serialization_v3("alpha", "alpha")}},
        # 'beta' is read only when building (a build-time check): the runtime creator does not need it
        {"files": {"plugins/foo.cpp": serialization_v3("alpha", "alpha", build_reads="beta")}},
        # names are read only when building; the runtime branch takes the serialized blob by index
        # (Torch-TensorRT's InterpolatePluginCreator: `fc->fields[0].data`): not judged
        {"files": {"plugins/foo.cpp": serialization_v3("data", "", build_reads="alpha").replace(
            "        return new FooPlugin(alpha);", "        alpha = *static_cast<float const*>(fc->fields[0].data);\n        return new FooPlugin(alpha);")}},
        {"files": {"plugins/bar.cpp": serialization_v2("write(d, mAxis); write(d, mScale); write(d, mFlag)",
                                          "mAxis = read<int32_t>(d); mScale = read<float>(d); mFlag = read<bool>(d)")}},
        # serialize() writes a type tag first; the creator's deserializePlugin reads it and hands the constructor
        # the blob past it (FasterTransformer): the constructor's reads start at item 2. Tag read with
        # deserialize_value (the pointer moves one item) ...
        {"files": {"plugins/baz.cpp": serialization_v2_tagged("typeId, mAxis, mScale, mCount", "mAxis, mScale, mCount",
                                                              TAG_BY_READ)}},
        # ... or with memcpy, and the pointer passed moved by sizeof(int)
        {"files": {"plugins/baz.cpp": serialization_v2_tagged("typeId, mAxis, mScale, mCount", "mAxis, mScale, mCount",
                                                              TAG_BY_COPY)}},
    ]
    INVALID = [
        {
            # a write dropped before a loop (the counts are not compared past loops of different bounds): every
            # later member gets its neighbour's value
            "files": {"plugins/bar.cpp": _named_then_looped(
                "putBUF(d, mAxis); putBUF(d, mFlag)",
                "mAxis = getBUF<int32_t>(d); mScale = getBUF<int32_t>(d); mFlag = getBUF<int32_t>(d)")},
            "expect": [("plugins/bar.cpp", 33, "BarPlugin's deserializing constructor reads item 2 into `mScale`, but "
                        "serialize() never writes `mScale`: it writes `mFlag` there, so `mScale` gets the value of "
                        "`mFlag` and every later read lands one item off")],
        },
        {
            # a read dropped before the loops: the constructor reads mScale's value into mFlag
            "files": {"plugins/bar.cpp": _named_then_looped(
                "putBUF(d, mAxis); putBUF(d, mScale); putBUF(d, mFlag)",
                "mAxis = getBUF<int32_t>(d); mFlag = getBUF<int32_t>(d)")},
            "expect": [("plugins/bar.cpp", 43, "BarPlugin::serialize() writes item 2 (`mScale`), but the deserializing "
                        "constructor never reads `mScale`: it reads `mFlag` there")],
        },
        {
            # two values of one size swapped: no size differs
            "files": {"plugins/bar.cpp": _named_then_looped(
                "putBUF(d, mAxis); putBUF(d, mScale); putBUF(d, mFlag)",
                "mAxis = getBUF<int32_t>(d); mFlag = getBUF<int32_t>(d); mScale = getBUF<int32_t>(d)")},
            "expect": [("plugins/bar.cpp", 33, "BarPlugin's deserializing constructor reads items 2 and 3 into `mFlag` "
                        "and `mScale`, but serialize() writes `mScale` then `mFlag`: the two values are swapped")],
        },
        {
            # a class template: the constructor's dependent memcpy is a read all the same, and serialize() writes nothing
            "files": {"plugins/bar.cpp": _class_template("// nothing stored")},
            "expect": [("plugins/bar.cpp", 12, "BarPlugin's deserializing constructor reads 1 values but serialize() writes 0: item 1 (`mParams`) reads past what was written")],
        },
        {
            "files": {"plugins/foo.cpp": serialization_v3("alpha", "beta")},
            "expect": [
                ("plugins/foo.cpp", 14, "FooPlugin::getFieldsToSerialize writes 'alpha', but FooCreator::createPlugin never reads it: the deserialized plugin loses it"),
                ("plugins/foo.cpp", 41, "FooCreator::createPlugin reads 'beta' (declared in getFieldNames), but FooPlugin::getFieldsToSerialize never writes it"),
            ],
        },
        {
            "files": {"plugins/bar.cpp": serialization_v2("write(d, mAxis); write(d, mScale); write(d, mFlag)",
                                             "mAxis = read<int32_t>(d); mScale = read<int32_t>(d); mFlag = read<bool>(d)")},
            "expect": [("plugins/bar.cpp", 31, "BarPlugin's deserializing constructor reads item 2 as int (4 bytes), but serialize() writes `mScale` as float (4 bytes)")],
        },
        {
            "files": {"plugins/bar.cpp": serialization_v2("write(d, mAxis); write(d, mScale); write(d, mFlag)",
                                             "mAxis = read<int32_t>(d); mScale = read<float>(d)")},
            "expect": [("plugins/bar.cpp", 38, "BarPlugin::serialize() writes 3 values but the deserializing constructor reads 2: `mFlag` (item 3) is never read back")],
        },
        # after the tag the creator reads, the constructor reads a float as an int
        {
            "files": {"plugins/baz.cpp": serialization_v2_tagged("typeId, mAxis, mScale, mCount", "mAxis, mCount, mCount",
                                                                 TAG_BY_READ)},
            "expect": [("plugins/baz.cpp", 36, "BazPlugin's deserializing constructor reads item 3 as int (4 bytes), but serialize() writes `mScale` as float (4 bytes)")],
        },
        # the creator reads the tag but hands the constructor the blob from its start: the constructor must skip the
        # tag itself, and reads it as mAxis (QuxPlugin's creator hands it the blob past the tag: quiet)
        {
            "files": {"plugins/baz.cpp": serialization_v2_tagged("typeId, mAxis, mScale, mCount", "mAxis, mScale, mCount",
                                                                 TAG_BY_COPY.replace("modelData, serialLength", "serialData, serialLength")),
                      "plugins/qux.cpp": serialization_v2_tagged("typeId, mAxis, mScale, mCount", "mAxis, mScale, mCount",
                                                                 TAG_BY_COPY).replace("Baz", "Qux")},
            "expect": [("plugins/baz.cpp", 36, "BazPlugin's deserializing constructor reads item 2 as float (4 bytes), but serialize() writes `mAxis` as int (4 bytes)")],
        },
    ]

    # a plugin only code for older TensorRT releases creates (pipeline.oldrelease): the program targets 8.6, its
    # network code makes BarPlugin only under `#if NV_TENSORRT_MAJOR < 6`, and nothing reaches its creator
    _OLD = serialization_v2(_W3, "mAxis = read<int32_t>(d); mScale = read<int32_t>(d); mFlag = read<bool>(d)")
    _OLD_FINDING = [("plugins/bar.cpp", 31, "BarPlugin's deserializing constructor reads item 2 as int (4 bytes), but "
                     "serialize() writes `mScale` as float (4 bytes)")]
    VALID += [{"files": old_release_program(_OLD)}]
    INVALID += [
        # also made in code every release compiles: judged
        {"files": old_release_program(_OLD, live=True), "expect": _OLD_FINDING},
        # made under `< 10`: TensorRT 8.6, the program's release, compiles that branch
        {"files": old_release_program(_OLD, "NV_TENSORRT_MAJOR < 10"), "expect": _OLD_FINDING},
        # an ONNX model's node resolves to its creator: a model may create it at any release
        {"files": old_release_program(_OLD, extra={"export/make_model.py": (
            'from onnx import helper\nnode = helper.make_node("BarPlugin", ["x"], ["y"], plugin_version="1")\n')}),
         "expect": _OLD_FINDING},
        # judge-old-release-plugins = true: judged like the rest
        {"files": old_release_program(_OLD), "config": {"judge-old-release-plugins": True}, "expect": _OLD_FINDING},
    ]

    VALID += [
        # getSerializationSize() returns the bytes serialize() writes
        {"files": {"plugins/bar.cpp": _with_size("sizeof(mAxis) + sizeof(mScale) + sizeof(mFlag)")}},
        # a store through a cast of the buffer (`*reinterpret_cast<float*>(d) = mScale`) is a write of its type (float)
        {"files": {"plugins/bar.cpp": _with_size(
            "sizeof(mAxis) + sizeof(mScale) + sizeof(mFlag)",
            "write(d, mAxis); *reinterpret_cast<float*>(d) = mScale; d += sizeof(float); write(d, mFlag)")}},
        # ... and a load through one in the deserializing constructor a read of its type
        {"files": {"plugins/bar.cpp": serialization_v2(
            _W3, "mAxis = read<int32_t>(d); mScale = *reinterpret_cast<float const*>(d); d += sizeof(float); mFlag = read<bool>(d)")}},
        # a store through an element of the buffer (`d[0] = x`) is an item whose type is not read: the rest is not
        # compared
        {"files": {"plugins/bar.cpp": serialization_v2(
            "write(d, mAxis); d[0] = 1; d += 1; write(d, mFlag)", _R3)}},
        # the project's own helpers, read from their bodies: putBUF stores its value through a cast of the buffer
        # and advances it (a write), getBUF loads through one and returns it (a read)
        {"files": {"plugins/bar.cpp": _own_helpers("putBUF(d, mAxis); putBUF(d, mScale); putBUF(d, mFlag)",
                                                   "mAxis = getBUF<int32_t>(d); mScale = getBUF<float>(d); mFlag = getBUF<bool>(d)")}},
        # a block copied on both sides after as many values on each: the values before it are compared, not the block
        {"files": {"plugins/bar.cpp": _table("write(d, mAxis); std::memcpy(d, mTable, 8 * sizeof(float))",
                                             "mAxis = read<int32_t>(d); std::memcpy(mTable, d, 8 * sizeof(float))")}},
        # the constructor hands the whole blob to a method of its own that reads the values in order
        {"files": {"plugins/bar.cpp": _delegated()}},
        # serialize() hands its buffer to something whose writes are not read: not judged, though it names no value
        {"files": {"plugins/bar.cpp": serialization_v2("fill(buffer)", _R3).replace(
            "class BarPlugin", "void fill(void* p);\nclass BarPlugin", 1)}},
    ]
    INVALID += [
        {
            # the project's own helpers: serialize() lost its first write, so the constructor reads `mScale` as item 1
            "files": {"plugins/bar.cpp": _own_helpers("putBUF(d, mScale); putBUF(d, mFlag)",
                                                      "mAxis = getBUF<int32_t>(d); mScale = getBUF<float>(d); mFlag = getBUF<bool>(d)")},
            "expect": [("plugins/bar.cpp", 30, "reads item 1 as int (4 bytes), but serialize() writes `mScale` as float (4 bytes)")],
        },
        {
            # stores through a cast of the buffer: two values written, three read
            "files": {"plugins/bar.cpp": serialization_v2(
                "*reinterpret_cast<int32_t*>(d) = mAxis; d += sizeof(int32_t); *reinterpret_cast<float*>(d) = mScale", _R3)},
            "expect": [("plugins/bar.cpp", 32, "BarPlugin's deserializing constructor reads 3 values but serialize() writes 2: "
                                               "item 3 (`read<bool>(d)`) reads past what was written")],
        },
        {
            # serialize() writes nothing at all (its body names the buffer only to point a local into it)
            "files": {"plugins/bar.cpp": serialization_v2("char const* const a = d; (void)mAxis; assert(d == a); "
                                                          "PLUGIN_ASSERT(d == a)", _R3).replace(
                "using namespace nvinfer1;\n", "using namespace nvinfer1;\n#define PLUGIN_ASSERT(x) assert(x)\n", 1)},
            "expect": [("plugins/bar.cpp", 31, "reads 3 values but serialize() writes 0: item 1")],
        },
        {
            # the same block copied on both sides, after two values in serialize() and one in the constructor
            "files": {"plugins/bar.cpp": _table("write(d, mAxis); write(d, mFlag); std::memcpy(d, mTable, 8 * sizeof(float))",
                                                "mAxis = read<int32_t>(d); std::memcpy(mTable, d, 8 * sizeof(float))")},
            "expect": [("plugins/bar.cpp", 32, "BarPlugin::serialize() writes 2 values before the block `mTable`, but the "
                                               "deserializing constructor reads 1 before it")],
        },
        {
            # the constructor's values are read by the method it hands the whole blob to: item 2 read as an int
            "files": {"plugins/bar.cpp": _delegated(reads="mAxis = read<int32_t>(d); mScale = read<int32_t>(d); mFlag = read<bool>(d)")},
            "expect": [("plugins/bar.cpp", 32, "BarPlugin's deserializing constructor reads item 2 as int (4 bytes), but "
                                               "serialize() writes `mScale` as float (4 bytes)")],
        },
        {
            # a loop over the same bound on both sides, after one value in serialize() and two in the constructor
            "files": {"plugins/bar.cpp": _looped(after="mFlag = read<bool>(d)").replace(
                "    mAxis = read<int32_t>(d);\n", "    mAxis = read<int32_t>(d);\n    mFlag = read<bool>(d);\n", 1)},
            "expect": [("plugins/bar.cpp", 35, "BarPlugin::serialize() writes 1 value before the loop over `mAxis`, but the "
                                               "deserializing constructor reads 2 before it")],
        },
    ]
    VALID += [
        # per-head values written and read in loops with the same bound: one item each side, compared per iteration,
        # and the values after them are compared too
        {"files": {"plugins/bar.cpp": _looped()}},
        # loops with different bounds (`mAxis` and `8`): not known to agree or to differ, not judged
        {"files": {"plugins/bar.cpp": _looped(bound="8", after="mFlag = read<int32_t>(d)")}},
    ]
    INVALID += [
        {
            # a value after a loop (before: the comparison stopped at the first loop)
            "files": {"plugins/bar.cpp": _looped(after="mFlag = read<int32_t>(d)")},
            "expect": [("plugins/bar.cpp", 36, "BarPlugin's deserializing constructor reads item 3 (counting the loop over "
                                               "`mAxis` as one) as int (4 bytes), but serialize() writes `mFlag` as bool")],
        },
        {
            # an array element filled from a read call (`mScales[0] = read<float>(d)`) is a read, not a raw load
            "files": {"plugins/bar.cpp": serialization_v2(
                "write(d, mAxis); write(d, mScales[0]); write(d, mFlag)",
                "mAxis = read<int32_t>(d); mScales[0] = read<float>(d); mFlag = read<int32_t>(d)").replace(
                "    bool mFlag{};\n", "    bool mFlag{};\n    float mScales[8]{};\n", 1)},
            "expect": [("plugins/bar.cpp", 33, "reads item 3 as int (4 bytes), but serialize() writes `mFlag` as bool")],
        },
        {
            # a value inside the loops
            "files": {"plugins/bar.cpp": _looped(read="mScales[i] = read<int32_t>(d);")},
            "expect": [("plugins/bar.cpp", 34, "reads item 2 in each iteration of the loop over `mAxis` as int (4 bytes), "
                                               "but serialize() writes `mScales[i]` as float (4 bytes)")],
        },
        {
            # getSerializationSize() is the buffer TensorRT allocates for serialize(): 12 bytes for 9 written; the
            # constructor reads the 9 written, so the 3 others are never read (the effect says so)
            "files": {"plugins/bar.cpp": _with_size("3 * sizeof(int32_t)")},
            "expect": [("plugins/bar.cpp", 23, "BarPlugin::getSerializationSize() returns 12 bytes, but serialize() writes 9 "
                                               "(`mAxis` 4 + `mScale` 4 + `mFlag` 1): the engine stores 3 uninitialised bytes "
                                               "that the deserializing constructor never reads (it reads the 9 written), so the "
                                               "engine file differs from build to build")],
        },
        {
            # the constructor reads the 12 bytes the size promises: 3 of them were never written
            "files": {"plugins/bar.cpp": _with_size("3 * sizeof(int32_t)", reads="mAxis = read<int32_t>(d); "
                                                    "mScale = read<float>(d); mAxis = read<int32_t>(d)")},
            "expect": [("plugins/bar.cpp", 23, "the engine stores 3 bytes serialize() never writes (uninitialised), which "
                                               "the deserializing constructor reads back as data (it reads 12 bytes)"),
                       ("plugins/bar.cpp", 36, "reads item 3 as int (4 bytes), but serialize() writes `mFlag` as bool")],
        },
        {
            # what the constructor reads is not known (a read under a condition): both effects are named
            "files": {"plugins/bar.cpp": _with_size("3 * sizeof(int32_t)", reads="mAxis = read<int32_t>(d); "
                                                    "mScale = read<float>(d); if (mAxis > 0) { mFlag = read<bool>(d); }")},
            "expect": [("plugins/bar.cpp", 23, "the engine stores 3 bytes serialize() never writes (uninitialised), which "
                                               "the deserializing constructor reads as data or a length check rejects")],
        },
        {
            # 'beta' is read only when building, 'alpha' in both phases: the runtime branch reads names too, so a
            # serialized 'gamma' no branch reads is lost (only when every name is read in the build branch alone
            # are the runtime reads hidden: see VALID)
            "files": {"plugins/foo.cpp": serialization_v3("alpha gamma", "alpha", build_reads="beta")},
            "expect": [("plugins/foo.cpp", 15, "FooPlugin::getFieldsToSerialize writes 'gamma', but FooCreator::createPlugin never reads it")],
        },
    ]

    VALID += [
        # the first value stored through an element-0 cast of the buffer, the pointer then moved past it by hand,
        # and read back the same way: the advance moves past what was stored, no gap
        {"files": {"plugins/bar.cpp": serialization_v2(
            "reinterpret_cast<int32_t*>(d)[0] = mAxis; d += sizeof(int32_t); write(d, mScale)",
            "mAxis = reinterpret_cast<int32_t const*>(d)[0]; d += sizeof(int32_t); mScale = read<float>(d)")}},
        # reserved bytes both sides move past
        {"files": {"plugins/bar.cpp": serialization_v2(
            "write(d, mAxis); d += 4; write(d, mScale)", "mAxis = read<int32_t>(d); d += 4; mScale = read<float>(d)")}},
        # the constructor moves past a value it does not need: the next values still pair up (int vs float is no
        # mismatch here: the first read is of the second value)
        {"files": {"plugins/bar.cpp": serialization_v2(
            "write(d, mAxis); write(d, mScale)", "d += sizeof(int32_t); mScale = read<float>(d)")}},
        # padding written at the end and never read back
        {"files": {"plugins/bar.cpp": serialization_v2(
            "write(d, mAxis); d += 4", "mAxis = read<int32_t>(d)")}},
    ]
    VALID += [
        # a check of the buffer pointer that libclang drops (it names a member whose type a missing header declares:
        # the statement is read from the text) on both sides, and the values after it agree
        {"files": {"plugins/bar.cpp": _checked("write(d, mAxis); write(d, mScale)",
                                               "mAxis = read<int32_t>(d); mScale = read<float>(d)")}},
    ]
    INVALID += [
        {
            # such a check is no value: the values after it are compared (before: it was an item the comparison
            # could not read, and the comparison stopped there)
            "files": {"plugins/bar.cpp": _checked("write(d, mScale); write(d, mFlag)",
                                                  "mAxis = read<int32_t>(d); mScale = read<float>(d); mFlag = read<bool>(d)")},
            "expect": [("plugins/bar.cpp", 33, "BarPlugin's deserializing constructor reads item 1 as int (4 bytes), but "
                                               "serialize() writes `mScale` as float (4 bytes)")],
        },
        {
            # the first value's store dropped, the pointer still moved past its bytes: the constructor reads them
            "files": {"plugins/bar.cpp": serialization_v2(
                "d += sizeof(int32_t); write(d, mScale)",
                "mAxis = reinterpret_cast<int32_t const*>(d)[0]; d += sizeof(int32_t); mScale = read<float>(d)")},
            "expect": [("plugins/bar.cpp", 37, "BarPlugin::serialize() moves past item 1 (`d += sizeof(int32_t)`) "
                                               "without writing it, but the deserializing constructor reads int (4 "
                                               "bytes) there (`mAxis`): the 4 bytes are uninitialised in the engine, "
                                               "so the deserialized plugin gets an arbitrary value")],
        },
        {
            # a typed store dropped between two others (`*reinterpret_cast<T*>(d) = x; d += sizeof(T);` pairs)
            "files": {"plugins/bar.cpp": serialization_v2(
                "*reinterpret_cast<int32_t*>(d) = mAxis; d += sizeof(int32_t); d += sizeof(float); "
                "*reinterpret_cast<bool*>(d) = mFlag; d += sizeof(bool)",
                "mAxis = read<int32_t>(d); mScale = read<float>(d); mFlag = read<bool>(d)")},
            "expect": [("plugins/bar.cpp", 39, "BarPlugin::serialize() moves past item 2 (`d += sizeof(float)`) "
                                               "without writing it, but the deserializing constructor reads float (4 "
                                               "bytes) there (`read<float>(d)`)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        yield from self._v3(index)
        yield from self._v2(index)

    # -- IPluginV3: fields ----------------------------------------------------------------------------------
    def _v3(self, index) -> Iterable[Diagnostic]:
        for p in index.plugins:
            if p.cls.family != "v3" or not p.serialized or not p.plugin_name:
                continue
            creators = [c for c in index.creators_named(p.plugin_name) if c.cls.family == "creator_v3"
                        and (p.plugin_version is None or c.plugin_version in (None, p.plugin_version))]
            if len(creators) != 1:
                continue
            c = creators[0]
            reads = {}
            for r in c.reads:
                reads.setdefault(r.name, r)
            if not reads:
                continue  # the creator's reads are not visible (a helper trtlint did not follow)
            declared = {f.name: f for f in c.fields}
            ser = {f.name: f for f in p.serialized}
            gfs = f"{p.cls.name}::getFieldsToSerialize"
            cp = f"{c.cls.name}::createPlugin"
            build_only = [
                (md.span.path, lo, hi)
                for md in index.method_details(c.qualname, "createPlugin")
                for ph, lo, hi in md.phase_ranges
                if ph == "build"
            ]

            def in_build(r) -> bool:
                return any(r.span.path == pth and lo <= r.span.line <= hi for pth, lo, hi in build_only)

            # every name read sits in the build-phase branch: the runtime branch reads the serialized fields
            # some other way (by index, e.g. Torch-TensorRT's `fc->fields[0].data`), which is not visible here
            runtime_hidden = bool(build_only) and all(in_build(r) for r in reads.values())
            for name, f in ser.items():
                if runtime_hidden:
                    break
                if name not in reads:
                    yield self.diag(
                        f.span,
                        f"{gfs} writes '{name}', but {cp} never reads it: the deserialized plugin loses it",
                        related=[Related(c.cls.span, f"creator {c.cls.name} (reads: {', '.join(sorted(reads))})")],
                        symbol=f"{p.qualname}:{name}",
                    )
                    continue
                # a serialized type other than the declared (build-time) one is not judged: creators may accept
                # both (TensorRT OSS ModulatedDeformConv: kINT32 when building, kINT64 when deserializing)
            for name, r in reads.items():
                if name in ser or name not in declared or r.has_default:
                    continue
                if in_build(r):
                    continue  # read only when building: the runtime creator does not need it
                yield self.diag(
                    r.span,
                    f"{cp} reads '{name}' (declared in getFieldNames), but {gfs} never writes it: a deserialized "
                    "plugin is created without it",
                    related=[Related(p.cls.span, f"plugin {p.cls.name} serializes: {', '.join(ser)}")],
                    symbol=f"{p.qualname}:{name}",
                    severity=Severity.ERROR,
                )

    # -- IPluginV2*: byte stream ------------------------------------------------------------------------------
    def _v2(self, index) -> Iterable[Diagnostic]:
        done = set()
        handoffs = [(md, h) for md in index.lifecycle.values() for h in md.handoffs]
        for qn, cls in sorted(index.classes.items()):
            if cls.kind != "plugin" or not cls.family.startswith("v2"):
                continue
            sers = [m for m in index.lifecycle_by_cls.get(qn, ()) if m.name == "serialize"
                    and (m.serial or m.writes_nothing)]
            ctors = [m for m in index.lifecycle_by_cls.get(qn, ()) if m.role == "deserialize" and m.serial]
            # what the creators' deserializePlugin read of the blob before handing it to this class's constructor
            given = [(md, h) for md, h in handoffs if h.cls == qn or h.cls == cls.name or qn.endswith("::" + h.cls)]
            for s in sers:
                for d in ctors:
                    if (s.usr, d.usr) in done:
                        continue
                    done.add((s.usr, d.usr))
                    writes = [op for op in s.serial if op.op != "read"]
                    starts = {_start(writes, h) for _md, h in given}
                    if None in starts or len(starts) > 1:
                        continue  # where the constructor starts reading is not known (or the creators disagree)
                    start = starts.pop() if starts else 0
                    creator = next((md for md, _h in given), None) if start else None
                    diag = self._compare(cls.name, s, d, start, creator) or self._order(cls.name, s, d, start, creator)
                    if diag is not None:
                        yield diag
            # the constructor's reads tell the size mismatch's effect when it is handed the whole blob
            whole = all(not h.items and not h.bytes for _md, h in given)
            yield from self._size(index, qn, cls, sers, ctors if whole else [])

    def _size(self, index, qn: str, cls, sers, ctors=()) -> Iterable[Diagnostic]:
        """getSerializationSize() returns a constant other than the bytes serialize() writes (every write
        straight-line, of a known size)."""
        sizes = [m for m in index.lifecycle_by_cls.get(qn, ()) if m.name == "getSerializationSize"
                 and m.size_value is not None]
        if len(sizes) != 1 or len(sers) != 1:
            return
        g, s = sizes[0], sers[0]
        writes = [op for op in s.serial if op.op != "read"]
        # (a skip, `d += sizeof(int)` with nothing written, is bytes of the blob all the same)
        if not writes or any(op.op not in ("write", "skip") or op.conditional or op.loop or op.size is None
                             for op in writes):
            return
        total = sum(op.size for op in writes)
        if total == g.size_value:
            return
        listed = " + ".join(f"`{op.expr}` {op.size}" for op in writes[:6]) + (" + ..." if len(writes) > 6 else "")
        # what the deserializing constructor reads, when every read is straight-line and of a known size
        reads = [[op for op in d.serial if op.op != "write"] for d in ctors]
        read = (sum(op.size for op in reads[0]) if len(reads) == 1 and reads[0] and all(
            op.op == "read" and not op.conditional and not op.loop and op.size is not None for op in reads[0]) else None)
        extra = g.size_value - total
        if total > g.size_value:
            effect = "serialize() writes past the buffer TensorRT allocates for it"
        elif read == total:
            effect = (f"the engine stores {extra} uninitialised bytes that the deserializing constructor never reads "
                      f"(it reads the {total} written), so the engine file differs from build to build")
        elif read == g.size_value:
            effect = (f"the engine stores {extra} bytes serialize() never writes (uninitialised), which the "
                      f"deserializing constructor reads back as data (it reads {read} bytes)")
        else:
            effect = (f"the engine stores {extra} bytes serialize() never writes (uninitialised), which the "
                      "deserializing constructor reads as data or a length check rejects")
        yield self.diag(
            g.span,
            f"{cls.name}::getSerializationSize() returns {g.size_value} bytes, but serialize() writes {total} "
            f"({listed}): {effect}",
            related=[Related(s.span, "serialize() is defined here")] + [Related(op.span, f"writes {op.size} bytes")
                                                                         for op in writes],
            symbol=f"{s.qualname}:size",
        )

    def _compare(self, cname: str, s, d, start: int = 0, creator=None) -> Optional[Diagnostic]:
        """Compare serialize()'s writes from item ``start + 1`` on (the items before are read by ``creator``'s
        deserializePlugin, which hands the constructor the blob past them) with the constructor's reads."""
        writes, reads = list(s.serial), [op for op in d.serial if op.op != "write"]
        writes = [op for op in writes if op.op != "read"]
        writes = writes[start:]  # the first `start` items are the creator's
        # bytes moved past at the end (padding) are compared with nothing
        while writes and writes[-1].op == "skip":
            writes.pop()
        while reads and reads[-1].op == "skip":
            reads.pop()
        # a counting loop (`for (int i = 0; i < n; ++i)`) is one item on each side, matched by its bound
        wi, ri = _items(writes), _items(reads)
        anchored = self._anchor(cname, s, d, wi, ri, start, creator)
        if anchored is not None:
            return anchored
        straight = True
        looped = ""
        for i in range(min(len(wi), len(ri))):
            w, r = wi[i], ri[i]
            if isinstance(w, _Loop) and isinstance(r, _Loop):
                if w.bound != r.bound or len(w.ops) != len(r.ops):
                    straight = False
                    break
                pairs = list(zip(w.ops, r.ops))
                where = f" in each iteration of the loop over `{w.bound}`"
            elif isinstance(w, _Loop) or isinstance(r, _Loop):
                straight = False
                break
            else:
                pairs = [(w, r)]
                where = f" (counting the loop over `{looped}` as one)" if looped else ""
            for w1, r1 in pairs:
                if w1.op == "skip" and r1.op == "read" and not r1.conditional:
                    size = f"{w1.size} byte{'s' if w1.size != 1 else ''}" if w1.size is not None else "bytes"
                    return self.diag(
                        w1.span,
                        f"{cname}::serialize() moves past item {start + i + 1}{where} (`{w1.expr}`) without writing it, "
                        f"but the deserializing constructor reads {_t(r1) if r1.size is not None else 'a value'} "
                        f"there (`{r1.expr}`): the {size} are uninitialised in "
                        "the engine, so the deserialized plugin gets an arbitrary value",
                        related=[Related(r1.span, f"the deserializing constructor reads item {start + i + 1}{where} here")]
                        + _creator(creator, start),
                        symbol=f"{s.qualname}:{start + i + 1}",
                    )
                if r1.op == "skip" or (w1.op == "skip" and r1.op == "skip"):
                    continue  # the reader moves past what was written there (or both leave the bytes alone)
                if w1.op == "opaque" or r1.op == "opaque" or w1.conditional or r1.conditional:
                    straight = False
                    break
                if w1.size is None or r1.size is None or w1.kind is None or r1.kind is None:
                    continue  # a value of a type not known (a template parameter, a type not resolved): one item still
                float_mismatch = (w1.kind == "float") != (r1.kind == "float")
                if w1.size != r1.size or float_mismatch:
                    return self.diag(
                        r1.span,
                        f"{cname}'s deserializing constructor reads item {start + i + 1}{where} as {_t(r1)}, but "
                        f"serialize() writes `{w1.expr}` as {_t(w1)}" + ("" if w1.size == r1.size else ": every later read is shifted"),
                        related=[Related(w1.span, f"serialize() writes item {start + i + 1}{where} here")] + _creator(creator, start),
                        symbol=f"{s.qualname}:{start + i + 1}",
                    )
            if not straight:
                break
            if isinstance(w, _Loop):
                looped = w.bound
        if looped or any(isinstance(x, _Loop) for x in wi + ri):
            return None  # (counts with loops are items, not values: not compared)
        if not straight or len(writes) == len(reads):
            return None
        if any(op.conditional or op.op == "opaque" for op in writes + reads):
            return None
        nw, nr = start + len(writes), start + len(reads)  # items, counted from the blob's start
        if len(writes) > len(reads):
            extra = writes[len(reads)]
            return self.diag(
                extra.span,
                f"{cname}::serialize() writes {nw} values but the deserializing constructor reads "
                f"{len(reads)}{_after(start)}: `{extra.expr}` (item {nr + 1}) is never read back",
                related=[Related(d.span, "the deserializing constructor is defined here")] + _creator(creator, start),
                symbol=f"{s.qualname}:count",
            )
        extra = reads[len(writes)]
        return self.diag(
            extra.span,
            f"{cname}'s deserializing constructor reads {len(reads)} values{_after(start)} but serialize() writes "
            f"{nw}: item {nw + 1} (`{extra.expr}`) reads past what was written",
            related=[Related(s.span, "serialize() is defined here")] + _creator(creator, start),
            symbol=f"{s.qualname}:count",
        )

    def _anchor(self, cname: str, s, d, wi: list, ri: list, start: int, creator) -> Optional[Diagnostic]:
        """The same block copied on both sides (`memcpy(d, mKernels.data(), n)` and `memcpy(mKernels.data(), d, n)`:
        one member, one size), or a counting loop with the same bound and as many values in it, is an anchor: the
        values before it, straight-line on both sides, must be as many."""
        def first_anchor(items: list) -> Optional[int]:
            for i, x in enumerate(items):
                if isinstance(x, _Loop):
                    return i
                if x.conditional:
                    return None
                if x.op == "opaque":
                    return i
            return None

        def key(x) -> Optional[tuple]:
            if isinstance(x, _Loop):
                return ("loop", x.bound, len(x.ops))
            return ("block", x.expr) if x.expr.startswith("memcpy(") else None

        a, b = first_anchor(wi), first_anchor(ri)
        if a is None or b is None or a == b or key(wi[a]) is None or key(wi[a]) != key(ri[b]):
            return None
        wa, rb = wi[a], ri[b]
        if isinstance(wa, _Loop):
            what, wspan, rspan = f"the loop over `{wa.bound}`", wa.ops[0].span, rb.ops[0].span
        else:
            what, wspan, rspan = f"the block `{wa.expr[len('memcpy('):-1].rsplit(', ', 1)[0]}`", wa.span, rb.span
        return self.diag(
            rspan,
            f"{cname}::serialize() writes {start + a} value{'s' if start + a != 1 else ''} before {what}, but the "
            f"deserializing constructor reads {b}{_after(start)} before it: it and every value after it are read "
            "from the wrong place",
            related=[Related(wspan, "serialize() writes it here")] + _creator(creator, start),
            symbol=f"{s.qualname}:count",
        )

    def _order(self, cname: str, s, d, start: int = 0, creator=None) -> Optional[Diagnostic]:
        """The values serialize() writes and the constructor reads one by one, each a member by name on both sides
        (`write(d, mKh)`, `mKh = read<int>(d)`), up to the first that is not (a loop, a branch, a copy): the first
        place where the names differ, when one side has a value there that the other never names (a write or a
        read dropped: every later value lands one member off) or two neighbours swapped. Values of the same size
        in another order give no size mismatch, so only the names tell."""
        writes = [op for op in s.serial if op.op not in ("read", "skip")][start:]
        reads = [op for op in d.serial if op.op not in ("write", "skip")]
        w, r = _named_prefix(writes, "write"), _named_prefix(reads, "read")
        n = min(len(w), len(r))
        i = next((k for k in range(n) if w[k][0] != r[k][0]), None)
        if i is None:
            return None
        wn, rn = [x[0] for x in w], [x[0] for x in r]
        written = {_name(op.expr) for op in writes}
        read = {_name(op.into or op.expr) for op in reads}
        # how many values the two sides name alike once the difference is accounted for (the values before it, and
        # those after it one item off): fewer than 2, and the sides do not name their values alike
        def aligned(dw: int, dr: int) -> int:
            return i + sum(1 for k in range(i, n) if k + dw < len(wn) and k + dr < len(rn) and wn[k + dw] == rn[k + dr])

        item = start + i + 1
        wop, rop = w[i][1], r[i][1]
        wrote = Related(wop.span, f"serialize() writes item {item} (`{wn[i]}`) here")
        if i + 1 < len(w) and i + 1 < len(r) and wn[i] == rn[i + 1] and wn[i + 1] == rn[i]:
            span, related = rop.span, wrote
            msg = (f"{cname}'s deserializing constructor reads items {item} and {item + 1} into `{rn[i]}` and "
                   f"`{rn[i + 1]}`, but serialize() writes `{wn[i]}` then `{wn[i + 1]}`: the two values are swapped in "
                   "the deserialized plugin")
        elif rn[i] not in written and i + 1 < len(r) and rn[i + 1] == wn[i] and aligned(0, 1) >= 2:
            span, related = rop.span, wrote  # a write dropped
            msg = (f"{cname}'s deserializing constructor reads item {item} into `{rn[i]}`, but serialize() never writes "
                   f"`{rn[i]}`: it writes `{wn[i]}` there")
        elif wn[i] not in read and i + 1 < len(w) and wn[i + 1] == rn[i] and aligned(1, 0) >= 2:
            span = wop.span  # a read dropped
            related = Related(rop.span, f"the deserializing constructor reads item {item} into `{rn[i]}` here")
            msg = (f"{cname}::serialize() writes item {item} (`{wn[i]}`), but the deserializing constructor never reads "
                   f"`{wn[i]}`: it reads `{rn[i]}` there")
        else:
            return None
        if "swapped" not in msg:
            msg += f", so `{rn[i]}` gets the value of `{wn[i]}` and every later read lands one item off"
        return self.diag(span, msg, related=[related] + _creator(creator, start), symbol=f"{s.qualname}:{item}")


_NAMED = re.compile(r"[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*")


def _name(text: str) -> str:
    """A value's name as written, without spaces, a leading `&` or `*` and `this->`."""
    return re.sub(r"^[&*]*(?:this->)?", "", re.sub(r"\s", "", text or ""))


def _named_prefix(ops: list, kind: str) -> list:
    """(name, op) of the leading ops that move one named value each, unconditionally and outside loops: a write's
    value (`mKh`), a read's target (`mKh = read<int>(d)`) or out-parameter (`read(d, mKh)`)."""
    out = []
    for op in ops:
        if op.op != kind or op.conditional or op.loop:
            break
        nm = _name(op.into if kind == "read" and op.into else op.expr)
        if not _NAMED.fullmatch(nm):  # (a read call's text, `read<int>(d)`, a getter's, `getK()`: no name)
            break
        out.append((nm, op))
    return out


class _Loop:
    """The ops of one counting loop of serialize() or the deserializing constructor: one item, run ``bound`` times."""

    __slots__ = ("bound", "at", "ops")

    def __init__(self, bound: str, at: int, ops: list) -> None:
        self.bound, self.at, self.ops = bound, at, ops


def _items(ops: list) -> list:
    """The ops with those of one counting loop grouped as a :class:`_Loop`."""
    out: list = []
    for op in ops:
        if not op.loop:
            out.append(op)
        elif out and isinstance(out[-1], _Loop) and out[-1].at == op.loop_at:
            out[-1].ops.append(op)
        else:
            out.append(_Loop(op.loop, op.loop_at, [op]))
    return out


def _start(writes: list, h) -> Optional[int]:
    """How many of serialize()'s writes the blob handed over by ``h`` (a facts.BlobHandoff) is past: its item
    count, or the writes whose sizes add up to its byte offset; None when that is not known."""
    if h.items is not None:
        n = h.items
    elif h.bytes is not None:
        n, total = 0, 0
        while total < h.bytes and n < len(writes) and writes[n].size is not None:
            total += writes[n].size
            n += 1
        if total != h.bytes:
            return None  # not on a write's boundary, or a size unknown
    else:
        return None
    if n > len(writes) or any(w.op != "write" or w.conditional or w.loop for w in writes[:n]):
        return None
    return n


def _after(start: int) -> str:
    return f" (after the {start} its creator reads)" if start else ""


def _creator(md, start: int) -> list:
    if md is None or not start:
        return []
    return [Related(md.span, f"{md.qualname} reads the first {start} item{'s' if start != 1 else ''} and hands the "
                             "constructor the rest")]


def _t(op) -> str:
    t = (op.ctype or "?").replace("const ", "")
    return f"{t} ({op.size} byte{'s' if op.size != 1 else ''})"
