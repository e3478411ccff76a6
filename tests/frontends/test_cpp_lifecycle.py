"""The C++ lifecycle facts (frontends/cpp/lifecycle.py), parsed with the real libclang."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from trtlint.checks.examples.plugin import serialization_v2, serialization_v3  # noqa: E402
from trtlint.base.facts import from_json, to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile  # noqa: E402
from trtlint.frontends import cpp  # noqa: E402


def _facts(tmp_path: Path, rel: str, text: str):
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel=rel, kind="cpp", digest="d"), ExtractContext(root=tmp_path))
    assert from_json(to_json(ff)) == ff
    assert ff.problems == (), ff.problems  # the facts below are only meaningful for source that parses
    return {md.name: md for md in ff.lifecycle}


def test_v2_serialize_and_deserializing_constructor(tmp_path):
    mds = _facts(tmp_path, "p/bar.cpp", serialization_v2("write(d, mAxis); write(d, mScale); if (mFlag) { write(d, mFlag); }",
                                            "mAxis = read<int32_t>(d); mScale = read<float>(d)"))
    ser = mds["serialize"]
    assert [(o.op, o.expr, o.ctype, o.size, o.kind, o.conditional) for o in ser.serial] == [
        ("write", "mAxis", "int", 4, "int", False),
        ("write", "mScale", "float", 4, "float", False),
        ("write", "mFlag", "bool", 1, "bool", True),
    ]
    ctor = mds["BarPlugin"]
    assert ctor.role == "deserialize"
    assert [(o.op, o.ctype, o.size) for o in ctor.serial] == [("read", "int", 4), ("read", "float", 4)]


def test_capability_returns_and_phase_ranges(tmp_path):
    src = serialization_v3("alpha", "alpha", build_reads="beta").replace(
        "    explicit FooPlugin",
        "    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override\n"
        "    {\n"
        "        switch (type)\n        {\n"
        "        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);\n"
        "        default: break;\n        }\n"
        "        if (type != PluginCapabilityType::kRUNTIME) { return static_cast<IPluginV3OneCore*>(this); }\n"
        "        return nullptr;\n    }\n    explicit FooPlugin",
    )
    mds = _facts(tmp_path, "p/foo.cpp", src)
    rets = [(r.kind, r.value, r.cap) for r in mds["getCapabilityInterface"].returns]
    assert rets == [("cast", "IPluginV3OneBuild", "kBUILD"), ("cast", "IPluginV3OneCore", "?"), ("nullptr", "nullptr", None)]
    phases = mds["createPlugin"].phase_ranges
    assert [p[0] for p in phases] == ["build"] and phases[0][2] > phases[0][1]


def test_plugin_field_data_storage(tmp_path):
    src = """#include <NvInferRuntime.h>
#include <string>
#include <vector>
using namespace nvinfer1;
class C : public IPluginCreatorV3One
{
public:
    C(int32_t byValue, int32_t const& byRef)
    {
        static int32_t sCount = 1;
        int32_t local = 2;
        mF.emplace_back("a", &local, PluginFieldType::kINT32, 1);
        mF.emplace_back("b", &sCount, PluginFieldType::kINT32, 1);
        mF.emplace_back("c", &byValue, PluginFieldType::kINT32, 1);
        mF.emplace_back("d", &byRef, PluginFieldType::kINT32, 1);
        mF.emplace_back("e", std::to_string(local).c_str(), PluginFieldType::kCHAR, 1);
        mF.emplace_back("f", mName.c_str(), PluginFieldType::kCHAR, 1);
        std::vector<PluginField> tmp;
        tmp.emplace_back(PluginField("g", &local, PluginFieldType::kINT32, 1));
    }
    std::string mName;
    std::vector<PluginField> mF;
};
"""
    mds = _facts(tmp_path, "p/c.cpp", src)
    got = {f.name: (f.storage, f.container, f.pointee_kind, f.pointee_size) for f in mds["C"].field_data}
    assert got == {
        "a": ("local", "member", "int", 4),
        "b": ("static", "member", "int", 4),
        "c": ("param", "member", "int", 4),
        "d": (None, "member", "int", 4),
        "e": ("temporary", "member", "char", 1),
        "f": ("member", "member", "char", 1),
        "g": ("local", "local", "int", 4),
    }
