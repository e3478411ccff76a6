"""Issue 32 deliverable 3: TensorRT's own plugin library as data. The C++ frontend finds a creator's name where it
comes from an element of a name array (``return kNAMES[1];``) or from a member a constructor sets
(``mPluginName = kNAMES[0];`` with the base class returning ``mPluginName.c_str()``), and reads what
``createPlugin`` says of each field: required (a validating call given the names and the collection), the one
length it accepts (``length == N`` in the field's branch), its default (real libclang)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from trtlint.config.packs import load_packs

from .helpers import check_project, write_project

REPO = Path(__file__).resolve().parents[1]

_HEAD = """#include <NvInferRuntime.h>
#include <cstring>
#include <set>
#include <string>
#include <vector>
using namespace nvinfer1;
namespace
{
char const* const kNAMES[] = {"Foo_X", "FooDynamic_X"};
std::string const kOTHER_NAMES[] = {"Bar_X", "BarRect_X"};
} // namespace
void validateRequired(std::set<std::string> names, PluginFieldCollection const* fc);
"""

_BASE = """
class {cls} : public IPluginCreator
{{
public:
    char const* getPluginName() const noexcept override {{ return {name}; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override;
    IPluginV2* deserializePlugin(char const* name, void const* data, size_t len) noexcept override {{ return nullptr; }}
    void setPluginNamespace(char const* ns) noexcept override {{}}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}

protected:
    std::string mPluginName;
    std::vector<PluginField> mFields;
    PluginFieldCollection mFC{{}};
}};
"""

_NAMES = _HEAD + _BASE.format(cls="BaseCreator", name="mPluginName.c_str()") + """
class FooCreator : public BaseCreator
{
public:
    FooCreator() { mPluginName = kNAMES[0]; }
};
class FooDynamicCreator : public BaseCreator
{
public:
    FooDynamicCreator() : mOther(1) { mPluginName = kNAMES[1]; }
    int mOther;
};
class BarRectCreator : public BaseCreator
{
public:
    BarRectCreator() { mPluginName = kOTHER_NAMES[1]; }
};
""" + _BASE.format(cls="DirectCreator", name="kNAMES[2 - 1]") + """
REGISTER_TENSORRT_PLUGIN(FooCreator);
REGISTER_TENSORRT_PLUGIN(FooDynamicCreator);
REGISTER_TENSORRT_PLUGIN(BarRectCreator);
REGISTER_TENSORRT_PLUGIN(DirectCreator);
"""

_FIELDS = _HEAD + _BASE.format(cls="FooCreator", name="kNAMES[0]").replace(
    "IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override;",
    """FooCreator()
    {
        mFields.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));
        mFields.emplace_back(PluginField("size", nullptr, PluginFieldType::kINT32, 2));
        mFields.emplace_back(PluginField("mode", nullptr, PluginFieldType::kINT32, 1));
        mFC.nbFields = mFields.size();
        mFC.fields = mFields.data();
    }
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {
        validateRequired({"alpha", "size"}, fc);
        float alpha = 0.F;
        int32_t mode = 3;
        int32_t size[2]{};
        PluginField const* fields = fc->fields;
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            char const* attrName = fields[i].name;
            if (!strcmp(attrName, "alpha"))
            {
                alpha = *static_cast<float const*>(fields[i].data);
            }
            else if (!strcmp(attrName, "size"))
            {
                if (fields[i].length == 2)
                {
                    size[0] = static_cast<int32_t const*>(fields[i].data)[0];
                }
            }
            else if (!strcmp(attrName, "mode"))
            {
                mode = *static_cast<int32_t const*>(fields[i].data);
            }
        }
        return nullptr;
    }""") + "\nREGISTER_TENSORRT_PLUGIN(FooCreator);\n"


def test_creator_names_from_an_array_element_and_a_member_a_constructor_sets(tmp_path):
    write_project(tmp_path, {"plugin/fooPlugin.cpp": _NAMES})
    res = check_project(tmp_path)
    got = {c.cls.name: c.plugin_name for c in res.index.creators}
    assert got == {"BaseCreator": None, "FooCreator": "Foo_X", "FooDynamicCreator": "FooDynamic_X",
                   "BarRectCreator": "BarRect_X", "DirectCreator": "FooDynamic_X"}, got


def test_dump_index_says_required_defaulted_and_fixed_length_fields(tmp_path):
    write_project(tmp_path, {"plugin/fooPlugin.cpp": _FIELDS})
    p = subprocess.run([sys.executable, "-m", "trtlint", "check", str(tmp_path), "--root", str(tmp_path), "--no-progress",
                        "--no-cache", "--dump-index"], capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    creators = [c for c in json.loads(p.stdout)["creators"] if c["name"] == "Foo_X"]
    assert len(creators) == 1, p.stdout
    c = creators[0]
    assert (c["required"], c["lengths"], c["defaults"]) == (["alpha", "size"], {"size": 2}, {"alpha": "0.F", "mode": "3"}), c


def test_shipped_data_marks_required_fields_and_the_nms_family():
    """rules/tensorrt_plugin_fields.yaml (regenerated by bench/tensorrt_plugin_fields.py): EfficientNMS_TRT's fields
    that its createPlugin asserts present are required, and the creators named from an array are there."""
    packs = load_packs()
    rel, fields = packs.external_fields("EfficientNMS_TRT", "1", "10.8")
    assert rel == "10.8"
    assert {f.name for f in fields if f.required} >= {"score_threshold", "iou_threshold", "max_output_boxes"}
    for name in ("BatchedNMS_TRT", "BatchedNMSDynamic_TRT", "NMS_TRT", "GridAnchor_TRT", "GridAnchorRect_TRT"):
        assert packs.external_fields(name, "1", "10.8") is not None, name
