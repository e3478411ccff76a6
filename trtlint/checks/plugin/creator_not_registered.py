from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.contract import pair_cpp


# a creator trampoline of Python bindings (TensorRT OSS's python/src/infer/pyPlugin.cpp): its methods reach
# pybind11's get_override, so Python plugins implement it and register their creators from Python
_TRAMPOLINE = """#include <NvInferRuntime.h>
namespace pybind11
{
struct function
{
    explicit operator bool() const;
    char const* operator()() const;
};
template <typename T>
function get_override(T const* self, char const* name);
} // namespace pybind11
namespace py = pybind11;
using namespace nvinfer1;
class IPluginCreatorImpl : public IPluginCreatorV3One
{
public:
    char const* getPluginName() const noexcept override
    {
        py::function f = py::get_override(static_cast<IPluginCreatorV3One const*>(this), "name");
        return f ? f() : "";
    }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }
    PluginFieldCollection const* getFieldNames() noexcept override { return nullptr; }
    IPluginV3* createPlugin(char const* n, PluginFieldCollection const* fc, TensorRTPhase p) noexcept override
    {
        return nullptr;
    }
};
"""


class CreatorNotRegistered(Rule):
    """A concrete plugin creator that no registration reaches.

    ## What it does
    Reports every concrete C++ creator class (deriving from `IPluginCreatorV3One` or `IPluginCreator`, not
    abstract, not a base of other creators, and defining `getPluginName` or `createPlugin` itself or in a
    project base: a class that defines neither is a base whose derived creators register) that is named by no `REGISTER_TENSORRT_PLUGIN(...)`, no
    library creator list (`static IPluginCreatorInterface* kLIST[] = {&sCreator, ...}`), no
    `initializePlugin<Creator>(...)` and no `getPluginRegistry()->registerCreator(creator, ns)` call. A pybind11
    trampoline (its methods reach `get_override` or a `PYBIND11_OVERRIDE*` macro) is not reported: Python code
    implements it and registers its creators.

    ## Why it matters
    A creator TensorRT never hears of is dead code that looks alive: the ONNX parser and every
    `get_creator(...)` fail with "plugin not found" on the GPU machine, although the plugin compiles, links
    and passes its unit tests (which construct the creator directly).

    ## Example
    ```cpp
    class FooPluginCreator : public IPluginCreatorV3One { ... };
    // no REGISTER_TENSORRT_PLUGIN(FooPluginCreator); and no creator list names it
    ```

    ## Fix
    Add `REGISTER_TENSORRT_PLUGIN(FooPluginCreator);` next to the creator, or add it to the library's
    creator list.
    """

    code = "TRT211"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "creator-not-registered"
    family = "plugin"
    severity = Severity.ERROR

    VALID = [
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp()}},
        # a pybind11 trampoline creator: Python code registers its subclasses (register_creator), not C++
        {"files": {"python/src/pyPlugin.cpp": _TRAMPOLINE}},
        {
            # registered by a library creator list in another file
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": (
                    '#include "../foo/fooPlugin.h"\n'
                    "static FooPluginCreator sFooCreator;\n"
                    "static IPluginCreatorInterface* const kCREATORS[] = {&sFooCreator};\n"
                ),
            }
        },
        {
            # registered by a direct registry call (TensorRT OSS sampleNonZeroPlugin)
            "files": {
                "samples/foo/sampleFoo.cpp": pair_cpp(register="none") + (
                    "class SampleFoo\n{\n    FooPluginCreator mPluginCreator;\n\npublic:\n"
                    "    bool setup() { return getPluginRegistry()->registerCreator(mPluginCreator, \"\"); }\n};\n"
                ),
            }
        },
        {
            # a base creator class: registered through the creators deriving from it
            "files": {
                "plugin/foo/fooPlugin.cpp": pair_cpp().replace("class FooPluginCreator : public IPluginCreatorV3One", "class FooPluginCreator : public FooBaseCreator").replace(
                    "using namespace nvinfer1;",
                    "using namespace nvinfer1;\nclass FooBaseCreator : public IPluginCreatorV3One\n{\npublic:\n"
                    "    char const* getPluginName() const noexcept override { return \"FooPlugin\"; }\n};",
                ),
            }
        },
    ]
    VALID += [
        {
            # a project's own registration macro (Torch-TensorRT core/plugins/plugins.h: a static registrar
            # object whose constructor calls registerCreator(instance, "torch_tensorrt"))
            "files": {
                "core/plugins/plugins.h": (
                    "template <typename T>\nclass PluginRegistrarV3\n{\npublic:\n"
                    '    PluginRegistrarV3() { getPluginRegistry()->registerCreator(instance, "torch_tensorrt"); }\n\n'
                    "private:\n    T instance{};\n};\n"
                    "#define REGISTER_TORCHTRT_PLUGIN_V3(name) static PluginRegistrarV3<name> pluginRegistrarV3##name {}\n"
                ),
                "core/plugins/impl/foo_plugin.cpp": pair_cpp(register="none").replace(
                    "#include <NvInferRuntime.h>", '#include <NvInferRuntime.h>\n#include "core/plugins/plugins.h"', 1
                ) + "REGISTER_TORCHTRT_PLUGIN_V3(FooPluginCreator);\n",
            }
        },
    ]
    VALID += [
        {
            # an abstract base: no getPluginName, no createPlugin (mmdeploy's TRTPluginCreatorBase), even when
            # the creators deriving from it are not seen (their header did not resolve: TRT004 says so)
            "files": {
                "common/trt_plugin_base.hpp": (
                    "#pragma once\n#include <NvInferRuntime.h>\n#include <string>\n"
                    "class TRTPluginCreatorBase : public nvinfer1::IPluginCreator\n{\npublic:\n"
                    '    char const* getPluginVersion() const noexcept override { return "1"; }\n'
                    "    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFC; }\n"
                    "protected:\n    nvinfer1::PluginFieldCollection mFC;\n    std::string mNamespace;\n};\n"
                ),
            }
        },
    ]
    INVALID = [
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(register="none")},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 25, "creator FooPluginCreator ('FooPlugin', version '1') is never registered")],
        },
        {
            # a creator whose base is a project class template instantiated with its plugin (amirstan_plugin's
            # PluginCreatorBase<P>): the template's bases are the instantiation's, so it is a creator
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(register="none").replace(
                "class FooPluginCreator : public IPluginCreatorV3One",
                "template <class P>\nclass CreatorBase : public IPluginCreatorV3One\n{\npublic:\n"
                "    char const* getPluginVersion() const noexcept override { return \"1\"; }\n};\n"
                "class FooPluginCreator : public CreatorBase<FooPlugin>", 1)},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 31, "creator FooPluginCreator ('FooPlugin', version '1') is never registered")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        # a base class other creators derive from is registered through them
        bases = {q for other in index.classes.values() for b in other.bases for q in [index._resolve_class_name(b)] if q}
        for c in index.creators:
            if not c.cls.family.startswith("creator_") or c.cls.abstract or c.registrations or c.qualname in bases:
                continue
            # a class that defines neither the name nor the factory (here or in a project base) is a base
            if not index.find_method(c.qualname, "getPluginName") and not index.find_method(c.qualname, "createPlugin"):
                continue
            # a registration written with a name trtlint could not resolve to one class still counts
            if any(r.qualname is None and r.creator.split("::")[-1].strip() == c.cls.name for r in index.registrations):
                continue
            # a pybind11 trampoline: Python code registers the creators derived from it (register_creator)
            if index.forwards_to_python(c.qualname):
                continue
            what = f"('{c.plugin_name}', version '{c.plugin_version}')" if c.plugin_name else "(name not resolved)"
            yield self.diag(
                c.cls.span,
                f"creator {c.cls.name} {what} is never registered: no REGISTER_TENSORRT_PLUGIN({c.cls.name}), no "
                "creator list and no initializePlugin<...> names it, so TensorRT cannot find the plugin",
                related=[Related(c.name_span, f"{c.cls.name}::getPluginName() returns {c.plugin_name!r}")] if c.name else [],
                symbol=c.qualname,
            )
