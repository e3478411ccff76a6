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


# a library's creator list of a helper's results, registered by a loop over it (TensorRT-LLM's tllmPlugin.cpp)
_LISTED = """#include "../foo/fooPlugin.h"
#include <array>
#include <cstdint>
namespace
{
IPluginCreatorInterface* creatorPtr(IPluginCreatorInterface& creator)
{
    return &creator;
}
} // namespace
IPluginCreatorInterface* const* getMyCreators(int32_t& nbCreators);
bool initMyPlugins(char const* libNamespace)
{
    auto registry = getPluginRegistry();
    int32_t nbCreators = 0;
    auto creators = getMyCreators(nbCreators);
    for (int32_t i = 0; i < nbCreators; ++i)
    {
        registry->registerCreator(*creators[i], libNamespace);
    }
    return true;
}
IPluginCreatorInterface* const* getMyCreators(int32_t& nbCreators)
{
    static FooPluginCreator fooCreator;
    static std::array kCREATORS = {creatorPtr(fooCreator)};
    nbCreators = static_cast<int32_t>(kCREATORS.size());
    return kCREATORS.data();
}
"""


# a registry's member template registering an object of its type parameter, reached through a function template
# that hands the parameter on (TensorRT-LLM's examples/openai_triton/manual_plugin/tritonPlugins.cpp)
_TEMPLATED = """#include "../foo/fooPlugin.h"
#include <memory>
class CreatorRegistry
{
public:
    static CreatorRegistry& get()
    {
        static CreatorRegistry instance;
        return instance;
    }
    template <typename CreatorType>
    void add(char const* libNamespace)
    {
        std::unique_ptr<CreatorType> creator{new CreatorType{}};
        getPluginRegistry()->registerCreator(*creator, libNamespace);
        mCreators.push_back(std::move(creator));
    }

private:
    std::vector<std::unique_ptr<IPluginCreatorInterface>> mCreators;
};
template <typename CreatorType>
void initializeMyPlugin(char const* libNamespace)
{
    CreatorRegistry::get().add<CreatorType>(libNamespace);
}
extern "C" bool initMyPlugins(char const* libNamespace)
{
    initializeMyPlugin<FooPluginCreator>(libNamespace);
    return true;
}
"""


class CreatorNotRegistered(Rule):
    """A concrete plugin creator that no registration reaches.

    ## What it does
    Reports every concrete C++ creator class (deriving from `IPluginCreatorV3One` or `IPluginCreator`, not
    abstract, not a base of other creators, and defining `getPluginName` or `createPlugin` itself or in a
    project base: a class that defines neither is a base whose derived creators register) that is named by no `REGISTER_TENSORRT_PLUGIN(...)`, no
    registered library creator list, no `initializePlugin<Creator>(...)`, no
    `getPluginRegistry()->registerCreator(creator, ns)` call and no call of a project function template that
    registers its type parameter (`initMyPlugin<FooPluginCreator>(ns)` whose body, or a template it hands the
    parameter to, calls `registerCreator` on a `FooPluginCreator` object). A pybind11 trampoline (its methods reach
    `get_override` or a `PYBIND11_OVERRIDE*` macro) is not reported: Python code implements it and registers its
    creators. Nor is a creator whose `REGISTER_TENSORRT_PLUGIN(...)` or `registerCreator` sits in a preprocessor
    branch the run's parse did not compile (`#ifdef ENABLE_FOO_PLUGIN` without that define): the registration is
    there, and TRT004 names the branch as not checked.

    A creator list is an array or container of creator pointers initialised with a brace list, whose elements
    are creator objects (`&sCreator`, `new FooPluginCreator`, or a one-statement helper returning its argument or
    its address: `creatorPtr(sCreator)`). It registers its creators only when its function (the one holding it,
    or reading it when it is declared outside functions) is a plugin library entry point, `getCreators` or
    `getPluginCreators` (TensorRT's library loader registers what they return), or is called by, or is itself, a
    function calling `registerCreator` (a loop over the list). A list nothing registers is named in the finding.

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
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "inactive", "lifecycle", "py_creators",
                       "registrations"})
    name = "creator-not-registered"
    family = "plugin"
    severity = Severity.ERROR

    VALID = [
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp()}},
        {
            # registered by a direct call on an object a header declares, through a smart pointer's get(): the
            # creator is the argument's type
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "app/seg.hpp": ('#pragma once\n#include <memory>\n#include "../plugin/foo/fooPlugin.h"\n'
                                "struct Seg\n{\n    void registerPlugins();\n    std::unique_ptr<FooPluginCreator> creator;\n};\n"),
                "app/seg.cpp": ('#include "seg.hpp"\nusing namespace nvinfer1;\nvoid Seg::registerPlugins()\n{\n'
                                "    creator.reset(new FooPluginCreator{});\n"
                                '    getPluginRegistry()->registerCreator(*creator.get(), "");\n}\n'),
            }
        },
        {
            # registered in a preprocessor branch this run does not compile (a build option's define): the
            # registration exists, and TRT004 names the branch as not checked
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/register.cpp": ('#include "../foo/fooPlugin.h"\n#ifdef ENABLE_FOO_PLUGIN\n'
                                            "REGISTER_TENSORRT_PLUGIN(FooPluginCreator);\n#endif\n"),
            }
        },
        # a pybind11 trampoline creator: Python code registers its subclasses (register_creator), not C++
        {"files": {"python/src/pyPlugin.cpp": _TRAMPOLINE}},
        {
            # registered by a library creator list in another file, which the library's entry point returns
            # (TensorRT's loader registers what getCreators returns)
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": (
                    '#include "../foo/fooPlugin.h"\n'
                    "static FooPluginCreator sFooCreator;\n"
                    "static IPluginCreatorInterface* const kCREATORS[] = {&sFooCreator};\n"
                    'extern "C" IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)\n'
                    "{\n    nbCreators = 1;\n    return kCREATORS;\n}\n"
                ),
            }
        },
        {
            # a list of a helper's results (TensorRT-LLM's tllmPlugin.cpp: creatorPtr returns its argument's
            # address) that a function loops over calling registerCreator
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": _LISTED,
            }
        },
        {
            # the same through a helper template, in the exported entry point
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": (
                    '#include "../foo/fooPlugin.h"\n#include <array>\n'
                    "template <typename T>\nIPluginCreatorInterface* creatorPtr(T& creator)\n{\n    return &creator;\n}\n"
                    'extern "C" IPluginCreatorInterface* const* getPluginCreators(int32_t& nbCreators)\n{\n'
                    "    static FooPluginCreator fooCreator;\n"
                    "    static std::array kCREATORS = {creatorPtr(fooCreator)};\n"
                    "    nbCreators = kCREATORS.size();\n    return kCREATORS.data();\n}\n"
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
    VALID += [
        {
            # registered by a function template whose type parameter is the creator class (tritonPlugins.cpp)
            "files": {"plugin/foo/fooPlugin.h": pair_cpp(register="none"), "plugin/api/plugins.cpp": _TEMPLATED},
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
        {
            # a creator list no registerCreator call reads, in a function that is no library entry point
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": _LISTED.replace("registry->registerCreator(*creators[i], libNamespace);",
                                                          "(void) creators[i];"),
            },
            "expect": [("plugin/foo/fooPlugin.h", 25, "creator FooPluginCreator ('FooPlugin', version '1') is never "
                        "registered: only the creator list of getMyCreators() at plugin/api/plugins.cpp:26 names it")],
        },
        {
            # a template that constructs its parameter's objects but registers none of them
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": _TEMPLATED.replace("getPluginRegistry()->registerCreator(*creator, libNamespace);",
                                                             "creator->setPluginNamespace(libNamespace);"),
            },
            "expect": [("plugin/foo/fooPlugin.h", 25, "creator FooPluginCreator ('FooPlugin', version '1') is never registered: no REGISTER")],
        },
        {
            # a list declared outside functions that no function reads
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/plugins.cpp": (
                    '#include "../foo/fooPlugin.h"\n'
                    "static FooPluginCreator sFooCreator;\n"
                    "static IPluginCreatorInterface* const kCREATORS[] = {&sFooCreator};\n"
                ),
            },
            "expect": [("plugin/foo/fooPlugin.h", 25, "creator FooPluginCreator ('FooPlugin', version '1') is never registered: no REGISTER")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        # a base class other creators derive from is registered through them
        bases = {q for other in index.classes.values() for b in other.bases for q in [index._resolve_class_name(b)] if q}
        inactive = {i.name for ff in index.files.values() for i in getattr(ff, "inactive", ()) if i.what == "registration"}
        for c in index.creators:
            if not c.cls.family.startswith("creator_") or c.cls.abstract or c.registrations or c.qualname in bases:
                continue
            # a class that defines neither the name nor the factory (here or in a project base) is a base
            if not index.find_method(c.qualname, "getPluginName") and not index.find_method(c.qualname, "createPlugin"):
                continue
            # a registration written with a name trtlint could not resolve to one class still counts
            if any(r.qualname is None and r.creator.split("::")[-1].strip() == c.cls.name for r in index.registrations):
                continue
            # registered in a branch the parse did not compile (TRT004 names it there)
            if c.cls.name in inactive:
                continue
            # a pybind11 trampoline: Python code registers the creators derived from it (register_creator)
            if index.forwards_to_python(c.qualname):
                continue
            what = f"('{c.plugin_name}', version '{c.plugin_version}')" if c.plugin_name else "(name not resolved)"
            related = [Related(c.name_span, f"{c.cls.name}::getPluginName() returns {c.plugin_name!r}")] if c.name else []
            listed = [r for r in index.unregistered_lists if r.qualname == c.qualname]
            if listed:
                r = listed[0]
                msg = (f"creator {c.cls.name} {what} is never registered: only the creator list of {r.holder}() at "
                       f"{r.span.path}:{r.span.line} names it, and nothing registers that list (no registerCreator "
                       f"call reads it; {r.holder} is not a plugin library entry point, getCreators or "
                       "getPluginCreators), so TensorRT cannot find the plugin")
                related.append(Related(r.span, f"listed in {r.holder}()'s creator list here"))
            else:
                msg = (f"creator {c.cls.name} {what} is never registered: no REGISTER_TENSORRT_PLUGIN({c.cls.name}), no "
                       "creator list and no initializePlugin<...> names it, so TensorRT cannot find the plugin")
            yield self.diag(c.cls.span, msg, related=related, symbol=c.qualname)
