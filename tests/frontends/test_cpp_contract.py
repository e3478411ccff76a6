"""The C++ contract helper (frontends/cpp/contract.py) through the real C++ frontend."""

from __future__ import annotations

from tests.helpers import check_project, write_project
from trtlint.checks.contract._creators import created_plugins
from trtlint.checks.examples.contract import xmacro_plugins

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


def _created(tmp_path, files):
    write_project(tmp_path, files)
    res = check_project(tmp_path)
    got = sorted((ff.path, c.qualname.split("::")[-2], c.name, o.cls, o.macro, o.unresolved, o.span.path, o.span.line)
                 for ff in res.index.files.values() for c in ff.fn_contracts for o in c.creates)
    links = sorted((c.qualname, x.plugin.qualname, x.method.name) for c in res.index.creators
                   for x in created_plugins(res.index, c))
    return got, links


def test_a_class_named_by_a_macro_is_the_one_the_macro_names_in_each_unit(tmp_path):
    """Issue 31: an X-macro header (the class written `AP_PLUGIN`, a macro of the `AP_NAME` each unit defines before
    including it) gives every unit its own creator and plugin; the text says `new AP_PLUGIN()`, libclang's view of
    the unit says which class that is there (the `new` of a class abstract under the stand-in headers is dropped:
    clang's diagnostic names its type; the make_unique call keeps its template argument). The span stays the text's."""
    got, links = _created(tmp_path, xmacro_plugins())
    h = "include/auto_plugin.h"
    assert got == [
        ("plugins/scale.cpp", "ScalePluginCreator", "createPlugin", "demo::ScalePlugin", "AP_PLUGIN", False, h, 31),
        ("plugins/scale.cpp", "ScalePluginCreator", "deserializePlugin", "demo::ScalePlugin", "AP_PLUGIN", False, h, 35),
        ("plugins/shift.cpp", "ShiftPluginCreator", "createPlugin", "demo::ShiftPlugin", "AP_PLUGIN", False, h, 31),
        ("plugins/shift.cpp", "ShiftPluginCreator", "deserializePlugin", "demo::ShiftPlugin", "AP_PLUGIN", False, h, 35),
    ], got
    assert links == [
        ("demo::ScalePluginCreator", "demo::ScalePlugin", "createPlugin"),
        ("demo::ScalePluginCreator", "demo::ScalePlugin", "deserializePlugin"),
        ("demo::ShiftPluginCreator", "demo::ShiftPlugin", "createPlugin"),
        ("demo::ShiftPluginCreator", "demo::ShiftPlugin", "deserializePlugin"),
    ], links


def test_a_function_like_macro_naming_a_class_that_clang_keeps(tmp_path):
    """`new AP_CAT(AP_NAME, State)()`: a class clang does not drop (not abstract): the new-expression's type, and the
    constructor's arguments are those after the macro's."""
    files = xmacro_plugins(names=("Scale",))
    h = files["include/auto_plugin.h"]
    files["include/auto_plugin.h"] = h.replace("namespace demo\n{\n", "namespace demo\n{\nstruct AP_CAT(AP_NAME, State) { int v; };\n", 1).replace(
        "        return new AP_PLUGIN();", "        delete new AP_CAT(AP_NAME, State)(); return new AP_PLUGIN();")
    got, _links = _created(tmp_path, files)
    assert [(g[3], g[4], g[5]) for g in got if g[2] == "createPlugin"] == [
        ("demo::ScalePlugin", "AP_PLUGIN", False), ("demo::ScaleState", "AP_CAT", False)], got


def test_a_macro_named_class_that_cannot_be_told_is_kept_unresolved(tmp_path):
    """The header included twice in one unit, the plugin abstract under the stand-in headers: the `new` spot holds two
    classes and clang dropped both expressions; the creation is kept, marked unresolved (TRT004 reports it)."""
    got, links = _created(tmp_path, xmacro_plugins(one_unit=True, make_unique=False))
    assert {(g[3], g[5]) for g in got} == {("AP_PLUGIN", True)}, got
    assert links == []
