"""The C++ contract helper (frontends/cpp/contract.py) through the real C++ frontend."""

from __future__ import annotations

from tests.helpers import check_project, write_project

CREATOR = r'''#include <NvInferRuntime.h>
#include <cstring>
#include <optional>
#include <string>
using namespace nvinfer1;
template <typename T>
std::optional<T> parseField(char const* name, PluginFieldCollection const* fc);
class BarPlugin;
class BarPluginCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "Bar"; }
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {
        float scale = 1.F;   // compare-in-a-loop: the local's initializer is the default
        int32_t axis{-1};
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            if (!strcmp(fc->fields[i].name, "scale"))
            {
                scale = *static_cast<float const*>(fc->fields[i].data);
            }
            else if (!strcmp(fc->fields[i].name, "axis"))
            {
                axis = *static_cast<int32_t const*>(fc->fields[i].data);
            }
            else if (!strcmp(fc->fields[i].name, "mode"))
            {
                mMode = *static_cast<int32_t const*>(fc->fields[i].data);
            }
        }
        std::optional<int32_t> heads = parseField<int32_t>("heads", fc);
        // new in a comment is ignored: new Fake(1)
        return new BarPlugin(scale, axis, heads.value_or(8));
    }

private:
    int32_t mMode{3};
};
'''


def test_defaults_and_created_classes(tmp_path):
    write_project(tmp_path, {"plugin/bar/barPlugin.cpp": CREATOR})
    res = check_project(tmp_path)
    fcs = [c for ff in res.index.files.values() for c in ff.fn_contracts]
    (fc,) = [c for c in fcs if c.name == "createPlugin"]
    assert [(o.cls, o.span.line) for o in fc.creates] == [("BarPlugin", 34)]
    got = {d.field: (d.default, d.how, d.target, d.span.line) for d in fc.defaults}
    assert got == {
        "scale": ("1.F", "local-init", "scale", 15),
        "axis": ("-1", "local-init", "axis", 16),
        "mode": ("3", "member-init", "mMode", 38),
        "heads": ("8", "value_or", "heads", 34),
    }
    assert "setPluginNamespace" not in fc.called and "parseField" in fc.called
