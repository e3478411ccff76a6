"""Issue 23 item 6: V2 serialization as written in the wild (real libclang): read helpers with an output parameter
(``read(d, mX)``) and ``memcpy`` of values and arrays are read as TRT202's writes and reads, in order."""

from __future__ import annotations

from trtlint.checks.examples.plugin import serialization_v2

from .helpers import check_project, write_project

_OUT_READ = """template <typename T>
void read(char const*& buffer, T& val)
{
    std::memcpy(&val, buffer, sizeof(T));
    buffer += sizeof(T);
}
class BarPlugin"""


def _out_param(reads: str) -> str:
    return serialization_v2("write(d, mAxis); write(d, mScale); write(d, mFlag)", reads).replace("class BarPlugin", _OUT_READ, 1)


def _memcpy(reads: str) -> str:
    return serialization_v2(
        "std::memcpy(d, mArr, sizeof(mArr)); d += sizeof(mArr); std::memcpy(d, &mScale, sizeof(mScale))", reads
    ).replace("    bool mFlag{};", "    bool mFlag{};\n    float mArr[4]{};")


def _found(tmp_path, files):
    write_project(tmp_path, files)
    return [(d.span.path, d.span.line, d.message) for d in check_project(tmp_path, select=["TRT202"]).diagnostics]


def test_output_parameter_read(tmp_path):
    got = _found(tmp_path, {"plugins/bar.cpp": _out_param("read(d, mAxis); read(d, mAxis); read(d, mFlag)")})
    assert got == [("plugins/bar.cpp", 37, "BarPlugin's deserializing constructor reads item 2 as int (4 bytes), but "
                    "serialize() writes `mScale` as float (4 bytes)")], got


def test_output_parameter_read_matching_is_quiet(tmp_path):
    assert _found(tmp_path, {"plugins/bar.cpp": _out_param("read(d, mAxis); read(d, mScale); read(d, mFlag)")}) == []


def test_memcpy_of_arrays(tmp_path):
    got = _found(tmp_path, {"plugins/bar.cpp": _memcpy(
        "std::memcpy(mArr, d, sizeof(mArr)); d += sizeof(mArr); std::memcpy(&mAxis, d, sizeof(mAxis))")})
    assert got == [("plugins/bar.cpp", 33, "BarPlugin's deserializing constructor reads item 2 as int (4 bytes), but "
                    "serialize() writes `mScale` as float (4 bytes)")], got


def test_memcpy_matching_is_quiet(tmp_path):
    assert _found(tmp_path, {"plugins/bar.cpp": _memcpy(
        "std::memcpy(mArr, d, sizeof(mArr)); d += sizeof(mArr); std::memcpy(&mScale, d, sizeof(mScale))")}) == []


_UNRESOLVED = """#include <NvInferRuntime.h>
#include <cstring>
#include "nms_params.h"
using namespace nvinfer1;
template <typename T>
void serialize_value(void** buffer, T const& value)
{
    std::memcpy(*buffer, &value, sizeof(T));
    *buffer = static_cast<char*>(*buffer) + sizeof(T);
}
template <typename T>
void deserialize_value(void const** buffer, size_t* length, T* value)
{
    std::memcpy(value, *buffer, sizeof(T));
    *buffer = static_cast<char const*>(*buffer) + sizeof(T);
    *length -= sizeof(T);
}
class NmsPlugin : public IPluginV2DynamicExt
{
public:
    NmsPlugin(void const* data, size_t length);
    void serialize(void* buffer) const noexcept override;
    NMSParameters param;
    bool mClip{};
    bool mIndex{};
};
NmsPlugin::NmsPlugin(void const* data, size_t length)
{
    deserialize_value(&data, &length, &param);
    deserialize_value(&data, &length, &mClip);
    deserialize_value(&data, &length, &mIndex);
}
void NmsPlugin::serialize(void* buffer) const noexcept
{
WRITES
}
"""


def _unresolved(writes: str) -> str:
    return _UNRESOLVED.replace("WRITES", "\n".join(f"    serialize_value(&buffer, {w});" for w in writes.split()))


def test_a_value_of_a_type_the_parse_did_not_resolve_is_still_an_item(tmp_path):
    """A member whose type comes from a header that is missing (TensorRT's NMSParameters): libclang drops the
    statements that name it, which are read from the text between the kept ones as values of a type not known.
    serialize() without its first write then writes 2 values where the constructor reads 3 (before: the dropped read
    left both sides at 2, and nothing was reported)."""
    got = _found(tmp_path, {"plugins/nms.cpp": _unresolved("mClip mIndex")})
    assert got == [("plugins/nms.cpp", 31, "NmsPlugin's deserializing constructor reads 3 values but serialize() writes 2: "
                    "item 3 (`&mIndex`) reads past what was written")], got


def test_a_value_of_a_type_not_resolved_on_both_sides_is_quiet(tmp_path):
    assert _found(tmp_path, {"plugins/nms.cpp": _unresolved("param mClip mIndex")}) == []


_HELPERS_H = """#pragma once
template <typename T>
void writeBUF(char*& buffer, T const& val)
{
    *reinterpret_cast<T*>(buffer) = val;
    buffer += sizeof(T);
}
template <typename T>
T readBUF(char const*& buffer)
{
    T val = *reinterpret_cast<T const*>(buffer);
    buffer += sizeof(T);
    return val;
}
"""


def _helper_plugin(name: str) -> str:
    src = serialization_v2("writeBUF(d, mScale); writeBUF(d, mFlag)",
                           "mAxis = readBUF<int32_t>(d); mScale = readBUF<float>(d); mFlag = readBUF<bool>(d)")
    return src.replace("#include <cstring>\n", '#include <cstring>\n#include "helpers.h"\n', 1).replace("BarPlugin", name)


def test_a_helper_in_a_header_two_units_share_is_read_in_both(tmp_path):
    """writeBUF/readBUF defined in a header two plugin units include: one unit's parse leaves the header's bodies to
    the other (blanked), so there the helper's body is read from its text. Both plugins' constructors read item 1 as
    an int where serialize() writes a float."""
    got = _found(tmp_path, {"plugins/helpers.h": _HELPERS_H, "plugins/a.cpp": _helper_plugin("APlugin"),
                            "plugins/b.cpp": _helper_plugin("BPlugin")})
    assert sorted((p, ln, m.split(":")[0]) for p, ln, m in got) == [
        ("plugins/a.cpp", 31, "APlugin's deserializing constructor reads item 1 as int (4 bytes), but serialize() writes `mScale` as float (4 bytes)"),
        ("plugins/b.cpp", 31, "BPlugin's deserializing constructor reads item 1 as int (4 bytes), but serialize() writes `mScale` as float (4 bytes)"),
    ], got
