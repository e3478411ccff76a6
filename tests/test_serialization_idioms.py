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
