"""The data types supportsFormatCombination accepts per position, and the reads of an input's data type in the runtime
methods (frontends/cpp/formats.py), parsed with the real libclang."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("clang.cindex")

from trtlint.checks.examples.plugin import exits_plugin  # noqa: E402
from trtlint.base.facts import from_json, to_json  # noqa: E402
from trtlint.frontends import ExtractContext, SourceFile  # noqa: E402
from trtlint.frontends import cpp  # noqa: E402

# (a statement macro holding a static_assert on its condition, as TensorRT OSS's PLUGIN_ASSERT does)
_ASSERT = "#define PLUGIN_ASSERT(a) do { static_assert(sizeof(a) > 0, \"a condition\"); if (!(a)) { abort(); } } while (0)"


def _facts(tmp_path: Path, supports: str = "", enqueue: str = "", helpers: str = ""):
    p = tmp_path / "plugins/foo.cpp"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(exits_plugin(supports=supports, enqueue=enqueue, helpers=_ASSERT + helpers), encoding="utf-8")
    ff = cpp.extract(SourceFile(path=p, rel="plugins/foo.cpp", kind="cpp", digest="d"), ExtractContext(root=tmp_path))
    assert from_json(to_json(ff)) == ff
    assert ff.problems == (), ff.problems
    return {md.name: md for md in ff.lifecycle}


def _accepted(tmp_path: Path, supports: str):
    md = _facts(tmp_path, supports).get("supportsFormatCombination")
    return None if md is None or md.accepted_types is None else dict(md.accepted_types)


# an early return on the format, a local reference to the descriptor, `if (pos == k)` and "the type of position 0"
_ROI = """        PLUGIN_ASSERT(pos >= 0 && pos <= 3);
        PluginTensorDesc const& desc = inOut[pos].desc;
        if (desc.format != TensorFormat::kLINEAR)
        {
            return false;
        }
        if (pos == 0)
        {
            return (desc.type == nvinfer1::DataType::kFLOAT || desc.type == nvinfer1::DataType::kHALF);
        }
        if (pos == 2)
        {
            return (desc.type == nvinfer1::DataType::kINT32);
        }
        return (desc.type == inOut[0].desc.type);"""

_SWITCH = """        switch (pos)
        {
        case 0:
        case 1: return inOut[pos].desc.type == DataType::kHALF && inOut[pos].desc.format == TensorFormat::kLINEAR;
        case 2: return inOut[pos].desc.type == DataType::kINT32;
        default: break;
        }
        return inOut[pos].desc.type == inOut[0].desc.type;"""


def test_if_chain_with_alias_and_same_as_first(tmp_path):
    got = _accepted(tmp_path, _ROI)
    fh = ("kFLOAT", "kHALF")
    assert got == {0: fh, 1: fh, 2: ("kINT32",), 3: fh, 4: fh, 5: fh, 6: fh, 7: fh}


def test_switch_on_pos(tmp_path):
    got = _accepted(tmp_path, _SWITCH)
    assert got[0] == ("kHALF",) and got[1] == ("kHALF",) and got[2] == ("kINT32",) and got[3] == ("kHALF",)


def test_switch_on_the_projects_own_position_names(tmp_path):
    # `case kMask:` names position 2 through an enumerator of the project's own: only that case is taken there
    named = _SWITCH.replace("case 2:", "case kMask:")
    md = _facts(tmp_path, named, helpers="\nenum IoPos : int32_t { kIds = 0, kMask = 2 };")["supportsFormatCombination"]
    got = dict(md.accepted_types)
    assert got[2] == ("kINT32",) and got[3] == ("kHALF",)


def test_unreadable_bodies_give_no_fact(tmp_path):
    # a loop, a call deciding the type, an assignment to a local: no fact, never a guess
    loop = "        for (int32_t i = 0; i < 2; ++i)\n        {\n        }\n" + _ROI
    assert _accepted(tmp_path, loop) is None
    reassigned = _ROI.replace("        if (pos == 0)\n", "        pos = 0;\n        if (pos == 0)\n", 1)
    assert _accepted(tmp_path, reassigned) is None
    # a helper deciding the type: every type may be accepted, so no position is recorded
    helper = "        return isFloat(inOut[pos].desc.type);"
    assert _facts(tmp_path, "")["supportsFormatCombination"].accepted_types == ()
    assert _accepted(tmp_path, helper.replace("isFloat", "static_cast<bool>")) in ({}, None)


def test_input_type_locals(tmp_path):
    md = _facts(tmp_path, enqueue="        auto type = inputDesc[0].type;\n        DataType const t1 = inputDesc[1].type;\n"
                                   "        auto t2 = inputDesc[0].type;\n        t2 = DataType::kHALF;\n"
                                   "        PLUGIN_ASSERT(type == DataType::kHALF || t1 == DataType::kFLOAT);")["enqueue"]
    assert md.input_desc == "inputDesc"
    assert md.type_locals == (("t1", 1), ("type", 0))  # t2 is written again
