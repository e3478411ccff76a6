from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..contract._creators import CREATING_METHODS, contracts_by_usr, created_plugins
from ..examples.contract import pair_cpp, xmacro_plugins

_CPP = ("cpp", "cuda", "header")

_BASE_H = """#pragma once
#include <NvInferRuntime.h>
namespace acme {
class PluginBase : public nvinfer1::IPluginV2DynamicExt
{
};
class PluginCreatorBase : public nvinfer1::IPluginCreator
{
};
} // namespace acme
"""

_ROI_H = """#pragma once
#include <NvInferRuntime.h>
#include "plugin_base.h"
namespace acme {
class RoiPlugin : public PluginBase
{
public:
    char const* getPluginType() const noexcept;
    int getNbOutputs() const noexcept;
    int enqueue(void const* const* inputs, void* const* outputs, void* workspace, void* stream) noexcept;
};
class RoiPluginCreator : public PluginCreatorBase
{
public:
    char const* getPluginName() const noexcept;
    void* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept;
};
} // namespace acme
"""

_ROI_CPP = """#include "roiPlugin.h"
namespace acme {
char const* RoiPlugin::getPluginType() const noexcept { return "Roi"; }
int RoiPlugin::getNbOutputs() const noexcept { return 1; }
char const* RoiPluginCreator::getPluginName() const noexcept { return "Roi"; }
} // namespace acme
REGISTER_TENSORRT_PLUGIN(acme::RoiPluginCreator);
"""


# the plugin interfaces of TensorRT 5-7, removed in 8.0 (a class deriving one is named by an IPluginFactory, not
# registered): trtlint analyses IPluginV2 and later
_LEGACY_IFACES = frozenset({"IPlugin", "IPluginExt"})

# TensorRT 5-7 plugins reached through a base the project defines (onnx-tensorrt's onnx2trt::Plugin): the base
# header is found, and it derives IPluginExt
_LEGACY_BASE_H = """#pragma once
#include <NvInfer.h>
namespace acme {
class Plugin : public nvinfer1::IPluginExt
{
public:
    virtual char const* getPluginType() const = 0;
    int initialize() override { return 0; }
};
class PluginAdapter : public Plugin
{
public:
    int getNbOutputs() const override;
    int enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace, cudaStream_t stream) override;
};
} // namespace acme
"""

_LEGACY_LEAKY_H = """#pragma once
#include "plugin.h"
class LeakyPlugin final : public acme::Plugin
{
public:
    char const* getPluginType() const override { return "Leaky"; }
    int getNbOutputs() const override { return 1; }
    int enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace, cudaStream_t stream) override;
};
"""

_LEGACY_LEAKY_CPP = """#include "leakyPlugin.h"
int LeakyPlugin::enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace, cudaStream_t stream)
{
    return 0;
}
"""

# a project built by CMake whose plugin directory holds a header no unit includes (its .cpp is gone): the header
# is code no program compiles
_DEAD_TREE = {
    "CMakeLists.txt": "project(acme)\nadd_library(acme_plugins SHARED plugins/leakyPlugin.cpp)\n",
    "plugins/leakyPlugin.h": "#pragma once\n#include <NvInferRuntime.h>\nint leakyForward(float const* in, float* out, int n);\n",
    "plugins/leakyPlugin.cpp": ('#include "leakyPlugin.h"\n'
                                "int leakyForward(float const* in, float* out, int n)\n{\n    return n;\n}\n"),
    "plugins/sigmoidPlugin.h": ("#pragma once\n#include <NvInferRuntime.h>\n"
                                "class SigmoidPlugin : public nvinfer1::IPlugin\n{\npublic:\n"
                                "    int getNbOutputs() const { return 1; }\n"
                                "    int enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace,\n"
                                "        cudaStream_t stream);\n};\n"),
}

# two samples each built by its own Makefile; the old one includes a shared Makefile.inc from a folder the tree no
# longer has (make stops at that include), and its unit holds a TensorRT 5-7 plugin
_UNRUNNABLE_TREE = {
    "samples/common/Makefile.inc": "NVCC = nvcc\n",
    "samples/live/Makefile": "include ../common/Makefile.inc\nall:\n\t$(NVCC) -c leaky.cu\n",
    "samples/live/leaky.cu": "int leakyForward(int n)\n{\n    return n;\n}\n",
    "samples/old/Makefile": "include ../../include/Makefile.inc\nall:\n\t$(NVCC) -c sigmoid.cu\n",
    "samples/old/sigmoid.cu": _DEAD_TREE["plugins/sigmoidPlugin.h"].replace("#pragma once\n", "", 1),
}

# a plugin only a build option the project marks experimental builds (pipeline.buildmodel.gates): the option is
# off by default and the plugin's folder is globbed only in its branch
_OPTIONAL_TREE = {
    "CMakeLists.txt": (
        "cmake_minimum_required(VERSION 3.18)\nproject(demo LANGUAGES CXX CUDA)\n"
        'option(BUILD_EXTRAS "Build the experimental plugins" OFF)\n'
        "file(GLOB SRCS plugins/*.cu)\n"
        "if(BUILD_EXTRAS)\n  file(GLOB_RECURSE MORE plugins/extras/*.cu)\n  list(APPEND SRCS ${MORE})\nendif()\n"
        "add_library(demo SHARED ${SRCS})\n"),
    "plugins/leaky.cu": "int leakyForward(int n)\n{\n    return n;\n}\n",
    "plugins/extras/sigmoid.cu": _DEAD_TREE["plugins/sigmoidPlugin.h"].replace("#pragma once\n", "", 1),
}
# the same plugin added by a setup.py only with a flag that the README calls deprecated
_FLAG_TREE = {
    "setup.py": (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nimport sys\n"
        "ext_modules = []\nold = CUDAExtension(name='old', sources=['old/sigmoid.cu'])\n"
        "if '--old-plugins' in sys.argv:\n    ext_modules.append(old)\n    sys.argv.remove('--old-plugins')\n"
        "setup(name='demo', ext_modules=ext_modules)\n"),
    "README.md": "# demo\n\nThe deprecated plugins are built by `python setup.py install --old-plugins`.\n",
    "old/sigmoid.cu": _DEAD_TREE["plugins/sigmoidPlugin.h"].replace("#pragma once\n", "", 1),
}


def _legacy(u) -> bool:
    """Whether the unresolved class ``u`` derives only from the legacy plugin interfaces, or reaches one through
    bases the project defines (``legacy_via``)."""
    if getattr(u, "legacy_via", ()):
        return True
    return bool(u.bases) and all(b.split("<", 1)[0].split("::")[-1].strip() in _LEGACY_IFACES
                                 and b.split("::")[0] in ("nvinfer1", b) for b in u.bases)


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


class AnalysisIncomplete(Rule):
    """A plugin or creator class did not resolve, because an include did not: that part of the project is unchecked.

    ## What it does
    Reports every file that defines a class with a plugin's or a creator's methods (`createPlugin` and
    `getPluginName`; `enqueue`, `getOutputDimensions`, `getNbOutputs`, ...) that reaches no TensorRT
    interface, when an `#include` of the units that parse it was not found: the class's base is declared in
    a header trtlint could not find, so it is no plugin or creator to any rule. One finding per file, at
    the `#include` that most likely declares the base (in the class's own file when there is one), naming
    the other includes that were not found, and the setting that fixes it. A class that still resolves in
    another unit (one with the right include path) is analysed there and is not reported. An abstract class
    (pure virtual methods) is a base, not a plugin; a class template deriving from its own parameter gets its
    interface from the instantiation. When every base is a TensorRT interface and no TensorRT header is among
    the includes not found, the cause named is the TensorRT headers in use (trtlint's stand-ins lack it). A class
    deriving a plugin interface of TensorRT 5-7 (`IPlugin`, `IPluginExt`, removed in 8.0) is never analysed,
    whatever the includes: it is reported with that reason, and no include is blamed. That holds too when it
    reaches the interface through bases the project defines (onnx-tensorrt's `onnx2trt::Plugin`, which derives
    `nvinfer1::IPluginExt`): the message names that chain of bases, and a related location where the last of them
    derives the interface. So is plugin code in a preprocessor branch the
    parse did not compile (a registration, a plugin or creator class, or a registry lookup by literal name,
    `getPluginCreator("X", "1")`, under `#if NV_TENSORRT_MAJOR <= 7` parsed with newer headers, or under `#if 0`),
    unless the compiled code registers, defines or looks up the same. And so is a
    creator whose `createPlugin` or `deserializePlugin` creates its plugin through a macro (`new PLUGIN_NAME(...)`,
    an X-macro header included once per plugin) when libclang cannot tell which class the macro names there (it
    dropped the expression, and the spot holds several classes: such a header included twice in one unit) and no
    other creation links it to a plugin: the creator is not linked to the plugin it creates, so no rule compares
    the two.

    Like every rule's, its findings in a header no C++/CUDA unit of the tree includes (with the build known: a
    CMake target, Makefile, `setup.py` or `compile_commands.json` compiles some unit) are set aside: no program
    compiles that code. The run's summary names such headers, and `judge-unincluded-headers = true` judges them.
    So are its findings in code only a program whose Makefile cannot run compiles (a plain `include` of a file
    the tree does not have, in a folder it does not have either, reached with `../`: make stops there); the
    summary names the Makefile, and `judge-unrunnable-builds = true` judges it. So are its findings in code only a
    build option the project marks experimental or deprecated builds: a CMake option off by default
    (`option(BUILD_X "..." OFF)`, `set(BUILD_X NO CACHE BOOL "...")`) whose name or description says experimental,
    deprecated, legacy or obsolete, when the code's files are named only inside `if(BUILD_X)`; or a `setup.py`
    extension added only under `if '--flag' in sys.argv:` that a README line naming the flag calls so. The summary
    names the option, and `judge-optional-builds = true` judges it.

    ## Why it matters
    Every rule is silent about a plugin trtlint cannot see: "All checks passed" would hide that nothing in
    the file was checked. Plugins of a project whose headers live in a directory only CMake adds to the
    include path are the common case (mmdeploy's `TRTPluginBase` in `common/`).

    ## Example
    ```cpp
    #include "trt_plugin_base.hpp"                 // not found: the directory is not on the include path
    class TRTRoIAlign : public TRTPluginBase { ... };
    ```

    ## Fix
    Add the header's directory to `include-dirs` in the config, or give `compile-commands`
    (a `compile_commands.json` from CMake's `-DCMAKE_EXPORT_COMPILE_COMMANDS=ON`) so each unit is parsed
    with its real flags. A plugin of TensorRT 5-7 is checked only once ported (its project base included) to
    `IPluginV2DynamicExt` or `IPluginV3`; no setting changes that.
    """

    code = "TRT004"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "inactive", "includes", "lookups",
                        "missing_includes", "py_creators", "registrations", "unresolved_classes"})
    name = "analysis-incomplete"
    family = "core"
    severity = Severity.WARNING

    VALID = [
        {
            # an X-macro header included once per plugin: each creator's `new AP_PLUGIN()` is the class AP_NAME names
            # in its unit (libclang's type for it), so every creator is linked to its plugin
            "files": xmacro_plugins(make_unique=False),
        },
        {
            # the base header is found: the plugin and its creator resolve
            "files": {
                "plugins/common/plugin_base.h": _BASE_H,
                "plugins/roi/plugin_base.h": '#include "../common/plugin_base.h"\n',
                "plugins/roi/roiPlugin.h": _ROI_H,
                "plugins/roi/roiPlugin.cpp": _ROI_CPP,
            }
        },
        {
            # an include that is not found, but the plugin in the file resolves: nothing is missing from it
            "files": {
                "plugins/roi/plugin_base.h": _BASE_H,
                "plugins/roi/roiPlugin.h": _ROI_H.replace('#include "plugin_base.h"', '#include "plugin_base.h"\n#include <cub/cub.cuh>'),
                "plugins/roi/roiPlugin.cpp": _ROI_CPP,
            }
        },
        {
            # an abstract class with a plugin's methods is a base, whatever its own base is
            "files": {
                "plugins/roi/roiBase.h": (
                    '#pragma once\n#include "missing_base.h"\nclass RoiBase : public MissingBase\n{\npublic:\n'
                    "    virtual char const* getPluginName() const noexcept = 0;\n"
                    "    virtual int getNbOutputs() const noexcept = 0;\n};\n"
                ),
            }
        },
        {
            # a class template deriving from its parameter (a pybind11 trampoline): its interface is the
            # instantiation's, whatever the includes
            "files": {
                "python/src/pyPlugin.cpp": (
                    '#include <NvInferRuntime.h>\n#include <pybind11/pybind11.h>\n'
                    "template <class T>\nclass PyPluginImpl : public T\n{\npublic:\n"
                    "    int getNbOutputs() const noexcept { return 1; }\n"
                    '    char const* getPluginName() const noexcept { return "Py"; }\n};\n'
                ),
            }
        },
        {
            # the capabilities of a quickly deployable plugin (TensorRT 10.6+ impl/NvInferPythonPlugin.h; the
            # stand-ins declare them too) are IPluginV3 capabilities: the class resolves, pybind11 or not
            "files": {
                "python/src/pyPlugin.cpp": (
                    '#include <NvInferRuntime.h>\n#include "impl/NvInferPythonPlugin.h"\n'
                    "#include <pybind11/pybind11.h>\nusing namespace nvinfer1;\n"
                    "class PyQuickRuntimeImpl : public IPluginV3QuickRuntime\n{\npublic:\n"
                    "    APILanguage getAPILanguage() const noexcept final { return APILanguage::kPYTHON; }\n"
                    "    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,\n"
                    "        void const* const* inputs, void* const* outputs, Dims const* inputStrides,\n"
                    "        Dims const* outputStrides, int32_t nbInputs, int32_t nbOutputs, cudaStream_t stream)"
                    " noexcept override\n    {\n        return 0;\n    }\n"
                    "    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFC; }\n"
                    "private:\n    PluginFieldCollection mFC;\n};\n"
                ),
            }
        },
        {
            # another release's branch repeats a registration the compiled branch makes: nothing goes unchecked
            "files": {
                "plugins/foo/fooPlugin.cpp": pair_cpp(register="none") + (
                    "#if NV_TENSORRT_MAJOR >= 8\nREGISTER_TENSORRT_PLUGIN(FooPluginCreator);\n#else\n"
                    "REGISTER_TENSORRT_PLUGIN(FooPluginCreator);\n#endif\n"),
            }
        },
        {
            # both branches look the same plugin up by name and version: the compiled one's route is checked
            "files": {
                "src/convert.cpp": (
                    "#include <NvInferRuntime.h>\nusing namespace nvinfer1;\nvoid* convert()\n{\n"
                    "#if NV_TENSORRT_MAJOR >= 8\n"
                    '    return getPluginRegistry()->getPluginCreator("Foo", "1");\n#else\n'
                    '    return getPluginRegistry()->getPluginCreator("Foo", "1", "");\n#endif\n}\n'
                ),
            },
        },
        {
            # a header no unit includes in a project whose build is known (CMake compiles the other file of its
            # directory): no program compiles it, so its class is not reported; the summary names the header
            "files": _DEAD_TREE,
        },
        {
            # a sample whose Makefile includes a file from a folder the tree does not have: make cannot run it, so
            # no build compiles its plugin; the summary names the Makefile
            "files": _UNRUNNABLE_TREE,
        },
        {
            # a plugin only the experimental build option builds (off by default: its folder is globbed only in
            # the option's branch): not judged; the summary names the option
            "files": _OPTIONAL_TREE,
        },
        {
            # ... and one a setup.py adds only with a flag the README calls deprecated
            "files": _FLAG_TREE,
        },
    ]
    INVALID = [
        {
            # the same header included twice in one unit: the `new` spots hold two classes and clang dropped both
            # expressions (the plugin looks abstract under the stand-in headers): the creators are linked to nothing
            "files": xmacro_plugins(one_unit=True, make_unique=False),
            "expect": [
                ("include/auto_plugin.h", 31, "ScalePluginCreator::createPlugin creates a class whose name macro AP_PLUGIN writes, and trtlint could not tell which class that is here (the parse dropped the expression), so the plugin it creates is not linked to this creator"),
                ("include/auto_plugin.h", 31, "ShiftPluginCreator::createPlugin creates a class whose name macro AP_PLUGIN writes"),
            ],
        },
        {
            # the same with judge-unrunnable-builds = true: the sample is judged like the rest
            "files": _UNRUNNABLE_TREE,
            "config": {"judge-unrunnable-builds": True},
            "expect": [(
                "samples/old/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # `-include` of the missing file: make goes on without it, the sample builds and is judged
            "files": dict(_UNRUNNABLE_TREE, **{"samples/old/Makefile": "-include ../../include/Makefile.inc\nall:\n"
                                               "\t$(NVCC) -c sigmoid.cu\n"}),
            "expect": [(
                "samples/old/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # the missing file's folder is in the tree (a file a configure step writes there): judged
            "files": dict(_UNRUNNABLE_TREE, **{"include/version.h": "#define ACME 1\n"}),
            "expect": [(
                "samples/old/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # an option off by default that the project does not mark experimental or deprecated: judged
            "files": dict(_OPTIONAL_TREE, **{"CMakeLists.txt": _OPTIONAL_TREE["CMakeLists.txt"].replace(
                "Build the experimental plugins", "Build the extra plugins")}),
            "expect": [(
                "plugins/extras/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # the experimental option's folder is also globbed outside its branch: every build compiles it, judged
            "files": dict(_OPTIONAL_TREE, **{"CMakeLists.txt": _OPTIONAL_TREE["CMakeLists.txt"].replace(
                "file(GLOB SRCS plugins/*.cu)", "file(GLOB_RECURSE SRCS plugins/*.cu)")}),
            "expect": [(
                "plugins/extras/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # the same with judge-optional-builds = true
            "files": _OPTIONAL_TREE,
            "config": {"judge-optional-builds": True},
            "expect": [(
                "plugins/extras/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # the setup.py flag the README does not call deprecated or experimental: judged
            "files": dict(_FLAG_TREE, **{"README.md": "Build the plugins with `python setup.py install --old-plugins`.\n"}),
            "expect": [(
                "old/sigmoid.cu", 2,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # the same with judge-unincluded-headers = true: the header is judged like the rest
            "files": _DEAD_TREE,
            "config": {"judge-unincluded-headers": True},
            "expect": [(
                "plugins/sigmoidPlugin.h", 3,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # the same tree with no build file: which files are compiled is not known, so the header is judged
            "files": {k: v for k, v in _DEAD_TREE.items() if k != "CMakeLists.txt"},
            "expect": [(
                "plugins/sigmoidPlugin.h", 3,
                "plugin SigmoidPlugin derives from nvinfer1::IPlugin, a plugin interface of TensorRT 5-7",
            )],
        },
        {
            # a plugin written for TensorRT 7 only, parsed with newer headers: its code is not compiled, so nothing
            # checks it, and the run says so
            "files": {
                "plugins/old/oldPlugin.cpp": (
                    "#include <NvInferRuntime.h>\n#if NV_TENSORRT_MAJOR <= 7\n"
                    "class OldPluginCreator : public nvinfer1::IPluginCreator\n{\npublic:\n"
                    '    char const* getPluginName() const noexcept override { return "Old"; }\n};\n'
                    "REGISTER_TENSORRT_PLUGIN(OldPluginCreator);\n#endif\n"
                ),
            },
            "expect": [(
                "plugins/old/oldPlugin.cpp", 3,
                "class OldPluginCreator and REGISTER_TENSORRT_PLUGIN(OldPluginCreator) are in a preprocessor branch "
                "this run does not compile (`#if NV_TENSORRT_MAJOR <= 7` at line 2), so no rule checks the plugin "
                "code there",
            )],
        },
        {
            # a route only TensorRT 7's branch takes (a layer converter that builds the plugin there and uses a
            # built-in layer on newer releases): no rule compares that lookup with the creator, and the run says so
            "files": {
                "src/convert.cpp": (
                    "#include <NvInferRuntime.h>\nusing namespace nvinfer1;\nvoid* convert()\n{\n"
                    "#if NV_TENSORRT_MAJOR < 8\n"
                    '    auto creator = getPluginRegistry()->getPluginCreator("UpSample_x", "1");\n'
                    "    return creator;\n#else\n    return nullptr;\n#endif\n}\n"
                ),
            },
            "expect": [(
                "src/convert.cpp", 6,
                'getPluginCreator("UpSample_x", "1") is in a preprocessor branch this run does not compile '
                "(`#if NV_TENSORRT_MAJOR < 8` at line 5), so no rule checks the plugin code there",
            )],
        },
        {
            # a TensorRT interface the SDK headers in use (here trtlint's stand-ins, TensorRT 10/11) do not
            # declare: IPluginExt, TensorRT 5-7's
            "files": {
                "plugins/legacy/legacyPlugin.cpp": (
                    '#include <NvInferRuntime.h>\n#include "legacy_kernels.h"\n'
                    "using namespace nvinfer1;\n"
                    "class LegacyPlugin : public IPluginExt\n{\npublic:\n"
                    "    int getNbOutputs() const noexcept { return 1; }\n"
                    "    int enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace,\n"
                    "        cudaStream_t stream) noexcept;\n};\n"
                    "int LegacyPlugin::enqueue(int batchSize, void const* const* inputs, void** outputs,\n"
                    "    void* workspace, cudaStream_t stream) noexcept\n{\n    return 0;\n}\n"
                ),
            },
            "expect": [(
                "plugins/legacy/legacyPlugin.cpp", 4,
                "plugin LegacyPlugin derives from IPluginExt, a plugin interface of TensorRT 5-7 (removed in "
                "TensorRT 8.0) that trtlint does not analyse, so no rule checks it; port it to IPluginV2DynamicExt or "
                "IPluginV3 to have it checked",
            )],
        },
        {
            # the same with every include found (TensorRT 5's samples: IPlugin and IPluginExt, named by an
            # IPluginFactory): still never analysed, and the run says so
            "files": {
                "plugins/legacy/legacyPlugin.cpp": (
                    "#include <NvInferRuntime.h>\n#include <string>\n"
                    "class LegacyPlugin : public nvinfer1::IPlugin\n{\npublic:\n"
                    "    int getNbOutputs() const { return 1; }\n"
                    "    int enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace,\n"
                    "        cudaStream_t stream);\n};\n"
                    "class LegacyExtPlugin : public nvinfer1::IPluginExt\n{\npublic:\n"
                    "    int getNbOutputs() const { return 1; }\n"
                    "    int enqueue(int batchSize, void const* const* inputs, void** outputs, void* workspace,\n"
                    "        cudaStream_t stream);\n};\n"
                ),
            },
            "expect": [(
                "plugins/legacy/legacyPlugin.cpp", 3,
                "plugin LegacyPlugin and plugin LegacyExtPlugin derive from nvinfer1::IPlugin, nvinfer1::IPluginExt, "
                "a plugin interface of TensorRT 5-7 (removed in TensorRT 8.0) that trtlint does not analyse, so no "
                "rule checks them; port them to IPluginV2DynamicExt or IPluginV3 to have it checked",
            )],
        },
        {
            # a TensorRT 5-7 plugin through a project base: the base's header is found and derives IPluginExt, so
            # the class is a plugin trtlint does not analyse (no include is missing: it would have gone unsaid)
            "files": {
                "plugins/plugin.h": _LEGACY_BASE_H,
                "plugins/leakyPlugin.h": _LEGACY_LEAKY_H,
                "plugins/leakyPlugin.cpp": _LEGACY_LEAKY_CPP,
            },
            "expect": [(
                "plugins/leakyPlugin.h", 3,
                "plugin LeakyPlugin derives from acme::Plugin, which derives from nvinfer1::IPluginExt, a plugin "
                "interface of TensorRT 5-7 (removed in TensorRT 8.0) that trtlint does not analyse, so no rule checks "
                "it; port it to IPluginV2DynamicExt or IPluginV3 to have it checked",
                "plugins/leakyPlugin.h",
            ), (
                "plugins/plugin.h", 10,
                "plugin PluginAdapter derives from acme::Plugin, which derives from nvinfer1::IPluginExt",
            )],
        },
        {
            # the same with an include that is not found (thrust, for the kernels): that is not why the class goes
            # unchecked, and no include-dirs setting would change it; a second level of project base is named too
            "files": {
                "plugins/plugin.h": _LEGACY_BASE_H,
                "plugins/leakyPlugin.h": _LEGACY_LEAKY_H.replace(
                    '#include "plugin.h"\n', '#include "plugin.h"\n#include <thrust/device_vector.h>\n').replace(
                    "public acme::Plugin", "public acme::PluginAdapter").replace(
                    "    int getNbOutputs() const override { return 1; }\n", ""),
                "plugins/leakyPlugin.cpp": _LEGACY_LEAKY_CPP,
            },
            "expect": [(
                "plugins/leakyPlugin.h", 4,
                "plugin LeakyPlugin derives from acme::PluginAdapter, which derives from acme::Plugin, which derives "
                "from nvinfer1::IPluginExt, a plugin interface of TensorRT 5-7 (removed in TensorRT 8.0) that trtlint "
                "does not analyse, so no rule checks it; port it to IPluginV2DynamicExt or IPluginV3 to have it checked",
            ), (
                "plugins/plugin.h", 10,
                "plugin PluginAdapter derives from acme::Plugin, which derives from nvinfer1::IPluginExt",
            )],
        },
        {
            # two such classes in one file: one finding, each class's chain of project bases named
            "files": {
                "plugins/plugin.h": _LEGACY_BASE_H,
                "plugins/leakyPlugin.h": _LEGACY_LEAKY_H + _LEGACY_LEAKY_H.split("\n", 2)[2].replace(
                    "Leaky", "Relu").replace("acme::Plugin", "acme::PluginAdapter"),
                "plugins/leakyPlugin.cpp": _LEGACY_LEAKY_CPP,
            },
            "expect": [(
                "plugins/leakyPlugin.h", 3,
                "plugin LeakyPlugin and plugin ReluPlugin derive from nvinfer1::IPluginExt (LeakyPlugin through "
                "acme::Plugin; ReluPlugin through acme::PluginAdapter, acme::Plugin), a plugin interface of TensorRT "
                "5-7 (removed in TensorRT 8.0) that trtlint does not analyse, so no rule checks them",
            ), (
                "plugins/plugin.h", 10,
                "plugin PluginAdapter derives from acme::Plugin, which derives from nvinfer1::IPluginExt",
            )],
        },
        {
            # the base header is in ../common, which nothing puts on the include path
            "files": {
                "plugins/common/plugin_base.h": _BASE_H,
                "plugins/roi/roiPlugin.h": _ROI_H,
                "plugins/roi/roiPlugin.cpp": _ROI_CPP,
            },
            "expect": [(
                "plugins/roi/roiPlugin.h", 3,
                "plugin RoiPlugin and creator RoiPluginCreator did not resolve to a TensorRT interface (bases "
                "PluginBase, PluginCreatorBase are unknown), so no rule checks them: #include \"plugin_base.h\" "
                "was not found; add its directory to `include-dirs` or give `compile-commands`",
                "plugins/roi/roiPlugin.h",
            )],
        },
        {
            # the class and the includes in one .cpp: the include whose name matches the base is named first
            "files": {
                "plugins/nms/nmsPlugin.cpp": (
                    '#include "cuda_helpers.h"\n#include "nms_plugin_base.h"\n'
                    "class NmsPluginCreator : public NmsPluginBase\n{\npublic:\n"
                    '    char const* getPluginName() const noexcept { return "Nms"; }\n'
                    "    void* createPlugin(char const* name, void const* fc) noexcept { return nullptr; }\n};\n"
                ),
            },
            "expect": [(
                "plugins/nms/nmsPlugin.cpp", 2,
                "creator NmsPluginCreator did not resolve to a TensorRT interface (base NmsPluginBase is unknown), "
                "so no rule checks it: #include \"nms_plugin_base.h\" was not found (also not found: "
                "cuda_helpers.h); add its directory to `include-dirs` or give `compile-commands`",
            )],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        yield from self._inactive(index)
        yield from self._macro_created(index)
        # (a class another unit resolved is analysed there: not reported)
        # the classes that reached no interface, by the file defining them
        by_file: dict[str, dict] = defaultdict(dict)
        for path, ff in sorted(index.files.items()):
            if ff.kind not in _CPP:
                continue
            for uc in ff.unresolved_classes:
                if uc.qualname not in index.classes:
                    by_file[uc.span.path].setdefault(uc.qualname, uc)
        # with the includes not found in every unit that parses that file (whichever unit walked the header
        # and recorded its classes: the shared-header plan leaves a header's classes to one unit)
        missing_of: dict[str, dict] = defaultdict(dict)
        if by_file:
            for path, ff in sorted(index.files.items()):
                if ff.kind not in _CPP or not ff.missing_includes:
                    continue
                for f in {path, *ff.includes} & by_file.keys():
                    for mi in ff.missing_includes:
                        missing_of[f].setdefault((mi.name, mi.span.path, mi.span.line), mi)
        # a class of a plugin interface of TensorRT 5-7 (IPlugin, IPluginExt) is never analysed, its includes found
        # or not: reported with that reason
        legacy = {f: [u for u in v.values() if _legacy(u)] for f, v in by_file.items()}
        by_file = {f: v for f, v in by_file.items() if missing_of.get(f) or legacy[f]}
        regs = defaultdict(list)
        for r in index.registrations:
            regs[r.creator.split("::")[-1].strip()].append(r)
        for path in sorted(by_file):
            old = sorted(legacy[path], key=lambda u: (u.span.line, u.span.col))
            if old:
                yield self._legacy_diag(path, old)
                if len(old) == len(by_file[path]) or not missing_of.get(path):
                    continue
                by_file[path] = {q: u for q, u in by_file[path].items() if u not in old}
            classes = sorted(by_file[path].values(), key=lambda u: (u.span.line, u.span.col))
            missing = list(missing_of[path].values())
            bases = list(dict.fromkeys(b for u in classes for b in u.bases))
            # a base's name in the include's (trt_plugin_base.hpp declares TRTPluginBase); a TensorRT interface
            # (IPluginExt, nvinfer1::...) in a TensorRT header's
            keys = [k for b in bases for k in [_norm(b.split("<", 1)[0].split("::")[-1])] if len(k) >= 3]
            sdk = any(b.startswith("nvinfer1::") or re.match(r"^I\w*Plugin\w*$", b) for b in bases)

            def rank(mi) -> tuple:
                stem = _norm(mi.name.rsplit("/", 1)[-1].rsplit(".", 1)[0])
                matches = any(k == stem or k in stem or (len(stem) > 3 and stem in k) for k in keys) or (
                    sdk and mi.name.rsplit("/", 1)[-1].startswith("NvInfer"))
                return (not matches, mi.span.path != path, mi.span.path, mi.span.line, mi.span.col)

            missing.sort(key=rank)
            first = missing[0]
            if sdk and rank(first)[0] and all(b.startswith("nvinfer1::") or re.match(r"^I\w*Plugin\w*$", b) for b in bases):
                # every base is a TensorRT interface and no TensorRT header is missing: the SDK headers in use
                # (trtlint's stand-ins) do not declare it
                names = " and ".join(", ".join(f"{u.kind} {u.name}" for u in classes).rsplit(", ", 1))
                yield self.diag(
                    classes[0].span,
                    f"{names} did not resolve to a TensorRT interface ({', '.join(bases)} is not declared by the "
                    "TensorRT headers in use: the real ones were not found), so no rule checks "
                    f"{'them' if len(classes) > 1 else 'it'}; add the TensorRT include directory to `include-dirs` "
                    "or give `compile-commands`",
                    related=[Related(u.span, f"{u.kind} {u.name} is defined here") for u in classes[1:]],
                    symbol=path,
                )
                continue
            others = list(dict.fromkeys(m.name for m in missing[1:] if m.name != first.name))
            where = first.span if first.span.path == path else classes[0].span
            names = " and ".join(", ".join(f"{u.kind} {u.name}" for u in classes).rsplit(", ", 1))
            them = "them" if len(classes) > 1 else "it"
            btxt = ""
            if bases:
                btxt = (f" (bases {', '.join(bases)} are unknown)" if len(bases) > 1 else f" (base {bases[0]} is unknown)")
            at = "" if first.span.path == path else f" in {first.span.path}:{first.span.line}"
            also = f" (also not found: {', '.join(others)})" if others else ""
            related = [Related(u.span, f"{u.kind} {u.name} is defined here") for u in classes]
            for u in classes:
                for r in regs.get(u.name, ()):
                    related.append(Related(r.span, f"{r.creator} is registered here"))
            yield self.diag(
                where,
                f"{names} did not resolve to a TensorRT interface{btxt}, so no rule checks {them}: "
                f"#include \"{first.name}\"{at} was not found{also}; add its directory to `include-dirs` or give "
                "`compile-commands`",
                related=related,
                symbol=path,
            )

    def _legacy_diag(self, path: str, old: list) -> Diagnostic:
        """One finding for the classes of ``path`` that derive a plugin interface of TensorRT 5-7, directly or
        through project bases (each such chain named, and where its last project class derives the interface)."""
        names = " and ".join(", ".join(f"{u.kind} {u.name}" for u in old).rsplit(", ", 1))
        many = len(old) > 1
        related = [Related(u.span, f"{u.kind} {u.name} is defined here") for u in old[1:]]
        for u in old:
            if u.legacy_via and u.legacy_span is not None:
                r = Related(u.legacy_span, f"{u.legacy_via[-2]} derives from {u.legacy_via[-1]} here")
                if r not in related:
                    related.append(r)
        if not many and old[0].legacy_via:
            # "derives from onnx2trt::Plugin, which derives from nvinfer1::IPluginExt"
            head = f"{names} derives from {', which derives from '.join(old[0].legacy_via)}"
        else:
            bases = ", ".join(dict.fromkeys(b for u in old for b in (u.legacy_via[-1:] or u.bases)))
            through = "; ".join(f"{u.name} through {', '.join(u.legacy_via[:-1])}" for u in old if u.legacy_via)
            head = f"{names} {'derive' if many else 'derives'} from {bases}" + (f" ({through})" if through else "")
        them = "them" if many else "it"
        return self.diag(
            old[0].span,
            f"{head}, a plugin interface of TensorRT 5-7 (removed in TensorRT 8.0) that trtlint does not analyse, so "
            f"no rule checks {them}; port {them} to IPluginV2DynamicExt or IPluginV3 to have it checked",
            related=related,
            symbol=path,
        )

    def _macro_created(self, index) -> Iterable[Diagnostic]:
        """A creator whose ``new``/``make_unique`` names the class through a macro that libclang could not tell
        (facts.CreatedObject.unresolved), when no other creation links it to a plugin: one finding per creator, at
        its first such creation (the others related)."""
        contracts = contracts_by_usr(index)
        for c in index.creators:
            if created_plugins(index, c):
                continue  # linked to its plugin by another creation (the rules compare them)
            lost = []
            for mname in CREATING_METHODS:
                for fn in index.find_method(c.qualname, mname):
                    fc = contracts.get(fn.usr)
                    lost += [(mname, o) for o in (fc.creates if fc is not None else ()) if o.unresolved
                             and all(o.span != p.span for _m, p in lost)]
            if not lost:
                continue
            mname, obj = lost[0]
            yield self.diag(
                obj.span,
                f"{c.cls.name}::{mname} creates a class whose name macro {obj.macro} writes, and trtlint could not "
                "tell which class that is here (the parse dropped the expression), so the plugin it creates is not "
                "linked to this creator and no rule compares them (name, version, namespace, fields); add the "
                "TensorRT include directory to `include-dirs` or give `compile-commands`",
                related=[Related(o.span, f"{c.cls.name}::{m} creates a class {o.macro} names here") for m, o in lost[1:]],
                symbol=c.qualname,
            )

    def _inactive(self, index) -> Iterable[Diagnostic]:
        """Plugin code in a branch its unit's parse did not compile (facts.InactiveCode) that is nowhere else in
        the index: one finding per file."""
        registered = {r.creator.split("::")[-1].strip() for r in index.registrations}
        names = {q.split("::")[-1] for q in index.classes}
        looked_up = {(lk.name, lk.version) for lk in index.lookups} | {(lk.name, None) for lk in index.lookups}

        def live(i) -> bool:  # what the compiled code registers, defines or looks up too
            if i.what == "lookup":
                return (i.name, i.version) in looked_up
            return i.name in (registered if i.what == "registration" else names)

        def written(i) -> str:
            if i.what == "registration":
                return f"REGISTER_TENSORRT_PLUGIN({i.name})"
            if i.what == "lookup":
                args = f'"{i.name}"' + (f', "{i.version}"' if i.version is not None else "")
                return f"{i.call or 'getPluginCreator'}({args})"
            return f"class {i.name}"

        for path, ff in sorted(index.files.items()):
            items = [i for i in getattr(ff, "inactive", ()) if i.what != "construction" and not live(i)]
            if not items:
                continue
            what = [written(i) for i in items]
            first = items[0]
            yield self.diag(
                first.span,
                f"{', '.join(what[:-1]) + ' and ' + what[-1] if len(what) > 1 else what[0]} "
                f"{'are' if len(items) > 1 else 'is'} in a preprocessor "
                f"branch this run does not compile (`{first.directive}` at line {first.directive_line}), so no rule "
                "checks the plugin code there; when the project builds that branch (another TensorRT release's "
                "headers, a macro), give the run its `defines` or `compile-commands`",
                related=[Related(i.span, f"{w} is here") for i, w in zip(items[1:], what[1:])],
                symbol=path,
            )
