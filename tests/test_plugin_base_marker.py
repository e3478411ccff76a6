"""A C++ file whose class derives a project plugin base is parsed like a file with a plugin marker.

The text pre-filter parses a C++ file only when it holds a plugin marker (``IPluginV``, ``getPluginName``,
``X::enqueue(``, ...) or calls a project marker macro (store/scancache.py). A plugin written on a project base
(``class BasePlugin : public IPluginV2`` in a header; ``class FooPlugin : public BasePlugin { ... }`` with its
methods in the class, in a file of its own) holds none of them: it was silently not analysed, and TRT207 then
took its base for an abstract base nothing derives and dropped the base's finding. The text scan now records
the classes a file declares on a TensorRT plugin or creator interface (and, to a fixed point, on such a class),
and a file deriving one of them is parsed too (real libclang)."""

from __future__ import annotations

import pytest

from .helpers import check_project, write_project

_BASE = """#pragma once
#include <NvInferRuntime.h>
#include <string>
using namespace nvinfer1;
class BasePlugin : public IPluginV2
{
protected:
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    std::string mNamespace;
};
"""

# no marker: no IPluginV*, no getPluginName, no X::enqueue(; its methods are written in the class
_FOO = """class FooPlugin final : public {base}
{{
public:
    char const* getPluginType() const noexcept override {{ return "Foo"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    int enqueue(int batchSize, void const* const* inputs, void* const* outputs, void* workspace,
                cudaStream_t stream) noexcept override
    {{
        void* scratch = nullptr;
        cudaMalloc(&scratch, 16);
        return 0;
    }}
}};
"""

_MID = """#pragma once
#include "common/plugin.h"
class MidPlugin : public ::BasePlugin
{
protected:
    int mCount{0};
};
"""

LAYOUTS = {
    # the plugin class in a unit of its own
    "unit": ({"plugins/common/plugin.h": _BASE,
              "plugins/foo.cpp": '#include "common/plugin.h"\n#include <cuda_runtime.h>\n' + _FOO.format(base="BasePlugin")},
             "plugins/foo.cpp", 12),
    # the plugin class in a header only a markerless unit includes
    "header": ({"plugins/common/plugin.h": _BASE,
                "plugins/foo.h": '#pragma once\n#include "common/plugin.h"\n#include <cuda_runtime.h>\n'
                                 + _FOO.format(base="BasePlugin"),
                "plugins/foo.cpp": '#include "foo.h"\nstatic int gUnused = 0;\n'},
               "plugins/foo.h", 13),
    # a base of a base: the middle class is written in a markerless header too
    "transitive": ({"plugins/common/plugin.h": _BASE, "plugins/common/mid.h": _MID,
                    "plugins/foo.cpp": '#include "common/mid.h"\n#include <cuda_runtime.h>\n' + _FOO.format(base="MidPlugin")},
                   "plugins/foo.cpp", 12),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_plugin_on_a_project_base_in_a_markerless_file_is_analysed(tmp_path, layout):
    files, path, line = LAYOUTS[layout]
    write_project(tmp_path, files)
    res = check_project(tmp_path, select=["TRT207", "TRT301"], config={"tensorrt-version": "8.6"})
    plugins = sorted((p.qualname, p.plugin_name, p.cls.span.path) for p in res.index.plugins)
    assert ("FooPlugin", "Foo", path) in plugins, plugins
    got = sorted((d.code, d.span.path, d.span.line) for d in res.diagnostics)
    # the hot path is walked, and the base is derived: its deprecated interface is reported where it names it
    assert ("TRT301", path, line) in got, got
    assert ("TRT207", "plugins/common/plugin.h", 5) in got, got


def test_scan_records_plugin_bases_and_derived_names():
    from trtlint.store.scancache import class_bases, project_plugin_classes

    text = (b"class A final : public nvinfer1::IPluginV2DynamicExt, private Helper<int, std::vector<int>> {};\n"
            b"struct B : A {};\n"
            b"template <typename T> class C : public ::ns::B<T>, public virtual Other {};\n"
            b"class D;\nenum class E : int { kX };\nclass F : public IPluginV2Layer {};\n"
            b"class __attribute__((visibility(\"default\"))) G : public nvinfer1::IPluginCreator {};\n")
    got = dict(class_bases(text))
    assert got["A"] == ("IPluginV2DynamicExt", "Helper"), got
    assert got["B"] == ("A",) and got["C"] == ("B", "Other"), got
    assert "D" not in got and got["G"] == ("IPluginCreator",), got
    # a layer interface (IPluginV2Layer) is not a plugin interface; the names close over derivation
    assert project_plugin_classes([class_bases(text)]) == {"A", "B", "C", "G"}
