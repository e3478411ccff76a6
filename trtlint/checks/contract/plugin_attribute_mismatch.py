from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Fix, Related
from ..base import Rule
from ..examples.contract import (backend_py, common_creator_cpp, cpp_model, creator_cpp, gop_fstring_py, gs_surgery_py,
                                 onnxscript_py,
                                 py_create_plugin, py_dict_helper, py_loader_class,
                                 py_param_helper)
from ..examples.onnx import onnx_model, onnx_node
from ._routes import library_routes, requests, route_creators


_SPLIT_H = """#pragma once
#include <NvInferRuntime.h>
#include <string>
#include <vector>
namespace foo
{
class FooPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    FooPluginCreator()
    {
        mFields.emplace_back(nvinfer1::PluginField("alpha", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1));
        mFields.emplace_back(nvinfer1::PluginField("num_heads", nullptr, nvinfer1::PluginFieldType::kINT32, 1));
        mFC.nbFields = static_cast<int32_t>(mFields.size());
        mFC.fields = mFields.data();
    }
    char const* getPluginName() const noexcept override { return "FooPlugin"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFC; }
    nvinfer1::IPluginV3* createPlugin(char const* n, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase p) noexcept override;

private:
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFC{};
};
} // namespace foo
"""

_SPLIT_CPP = """#include "fooCreator.h"
#include "pluginAliases.h"
namespace foo
{
IPluginV3* FooPluginCreator::createPlugin(char const* n, PluginFieldCollection const* fc, TensorRTPhase p) noexcept
{
    for (int32_t i = 0; i < fc->nbFields; ++i)
    {
        std::string field(fc->fields[i].name);
        if (field.compare("alpha") == 0) {}
        if (field.compare("num_head") == 0) {}
    }
    return nullptr;
}
} // namespace foo
REGISTER_TENSORRT_PLUGIN(foo::FooPluginCreator);
"""

def _fields_by_helper() -> str:
    """creator_cpp whose constructor has a method of its own fill the field list (`setupFields(mFields)`)."""
    return creator_cpp("FooPlugin").replace(
        '        mFields.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));\n',
        "        setupFields(mFields);\n", 1).replace(
        "private:\n",
        "private:\n    void setupFields(std::vector<PluginField>& f)\n    {\n"
        '        f.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));\n    }\n', 1)


def _derived_creator() -> str:
    """creator_cpp plus a version-2 creator deriving it, which declares no field of its own."""
    return creator_cpp("FooPlugin").replace("REGISTER_TENSORRT_PLUGIN(FooPluginCreator);", (
        "class FooPluginCreatorV2 : public FooPluginCreator\n{\npublic:\n"
        '    char const* getPluginVersion() const noexcept override { return "2"; }\n};\n'
        "REGISTER_TENSORRT_PLUGIN(FooPluginCreator);\nREGISTER_TENSORRT_PLUGIN(FooPluginCreatorV2);"))


def _parser_reads(reads: tuple[str, ...]) -> str:
    """creator_cpp declaring alpha and num_heads whose createPlugin reads fields through a field parser object of
    the project made from the collection (``FieldParser parser{fc->nbFields, fc->fields}; parser.getScalar<float>("alpha")``)."""
    parser = ("class FieldParser\n{\npublic:\n    FieldParser(int32_t n, PluginField const* f) : mN(n), mF(f) {}\n"
              "    template <typename T>\n    T getScalar(char const* name) { return T{}; }\n\nprivate:\n"
              "    int32_t mN;\n    PluginField const* mF;\n};\n")
    body = "        FieldParser parser{fc->nbFields, fc->fields};\n" + "".join(
        f'        int32_t v{i} = parser.getScalar<int32_t>("{r}");\n' for i, r in enumerate(reads))
    return creator_cpp(fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))).replace(
        "class FooPluginCreator", parser + "class FooPluginCreator", 1).replace("        int32_t seen = 0;\n", body, 1)


_STAR_CONV = """import numpy as np
from py.common import *


def make(p):
    creator = trt.get_plugin_registry().get_plugin_creator("FooPlugin", "1", "")
    fc = trt.PluginFieldCollection([trt.PluginField("alfa", np.array([p], np.float32), trt.PluginFieldType.FLOAT32)])
    return creator.create_plugin("", fc)
"""

_MAP_CREATOR = """#include <NvInferRuntime.h>
#include <map>
#include <string>
using namespace nvinfer1;
class FooPluginCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "FooPlugin"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {
        int alpha = 0;
        int numHeads = 0;
        std::map<std::string, int*> name2ptr{{"alpha", &alpha}, {"num_heads", &numHeads}};
        for (int i = 0; i < fc->nbFields; i++)
        {
            auto it = name2ptr.find(fc->fields[i].name);
            if (it != name2ptr.end())
            {
                *(it->second) = *static_cast<int const*>(fc->fields[i].data);
            }
        }
        return nullptr;
    }
};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""

_LOST_FIELD_MODEL = """#include <NvInferRuntime.h>
#include <vector>
#include "third/tensor_util.h"
using namespace nvinfer1;
IPluginV3* makeFoo(third::Tensor const& t)
{
    auto shape = third::toVec(t.sizes());
    std::vector<PluginField> f;
    f.emplace_back(PluginField("alfa", shape.data(), PluginFieldType::kFLOAT32, 1));
    PluginFieldCollection pfc;
    pfc.nbFields = static_cast<int32_t>(f.size());
    pfc.fields = f.data();
    auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("FooPlugin", "1"));
    return creator->createPlugin("foo", &pfc, TensorRTPhase::kBUILD);
}
"""

_RENAMED = 0.75  # difflib ratio at which a read field name and a declared one are one field renamed on one side


def _affix(a: str, b: str) -> bool:
    """One name begins or ends the other (case aside): a field shortened or lengthened by a rename (``K`` and
    ``K_dim``, ``thresh`` and ``score_thresh``)."""
    a, b = a.lower(), b.lower()
    return a != b and (a.startswith(b) or b.startswith(a) or a.endswith(b) or b.endswith(a))


_AFFIX_MIN = 3  # characters the shorter of two names must have to pair them by affix among several unpaired fields


def _affix_mates(name: str, pool) -> list[str]:
    """The names of ``pool`` that ``name`` begins or ends, or that begin or end it, the shorter of the two having
    at least ``_AFFIX_MIN`` characters (``type_id`` and ``type_id_version``; never ``S`` and ``...us``)."""
    return [m for m in pool if _affix(name, m) and min(len(name), len(m)) >= _AFFIX_MIN]


class PluginAttributeMismatch(Rule):
    """An emitted attribute that the creator does not declare: the ONNX parser silently drops it.

    ## What it does
    Compares the attributes a route passes (an ONNX node's attributes, an onnx-graphsurgeon node's `attrs`
    dict, a direct-route `operation(...)`'s keyword attributes, including those built up in a dict across
    branches, the `PluginField`s C++ model code hands to `createPlugin` (one built in a statement libclang loses, under a
    missing header, read from the function's text), and in Python the `trt.PluginField`
    list a `create_plugin(name, trt.PluginFieldCollection(fields))` call hands to the creator a
    `get_plugin_creator`/`get_creator` lookup or a `plugin_creator_list` scan found) with the fields the creator
    declares in `getFieldNames()` (its `PluginField` list; a field given by its name only, `PluginField("mode")`,
    is declared too; when the creator's constructor appends to a list that is a member of a project base creator,
    the fields the base's constructor put there first are declared too, through any number of such bases, unless
    the creator or a base below empties the list with `clear()` or an assignment). A route to one of TensorRT's own plugins (no
    creator of that name in the project, e.g. `EfficientNMS_TRT`) is compared with the fields its creator
    declares in TensorRT's plugin library, for the release the code targets (`rules/tensorrt_plugin_fields.yaml`,
    generated from NVIDIA/TensorRT's `plugin/` tree; the newest release there when no version is known); a route
    there whose attributes are all known and that leaves out a field that creator's `createPlugin` asserts present
    (`required` in the data) is reported too. `plugin_version` and `plugin_namespace` are the
    parser's own and are not compared. A direct route hands the creator its whole field collection, so there
    a field that `createPlugin` reads counts as accepted even when undeclared; for ONNX nodes it does not:
    a field the creator reads but does not declare is the classic drift (the parser drops it and the plugin
    runs with its default), and the message says so. Where several creators of the name live in different
    directories (independent samples of one tree, not split into programs by a build description), a route is
    judged against those nearest its file, not the union of their fields. When a route's attributes come partly from something trtlint cannot
    follow, only the names it did follow are judged. Inside one creator, with or without a route: a field
    `createPlugin` reads that `getFieldNames()` does not declare, when exactly one declared field it never reads
    is a near miss of it (`score_threshold` read, `score_thresh` declared), or, when that read field and that
    declared field are the only two without their counterpart, one begins or ends the other (`k` read, `k_dim`
    declared), is a field renamed on one side only; among several of each (a V3 creator's `createPlugin` also reads
    the fields its plugin serialized, which it does not declare), so is a read field that begins or ends exactly one
    declared field never read, when no other field read and not declared begins or ends that one (the shorter name
    of three characters or more: `type_id` read, `type_id_version` declared).
    Model code (Python `create_plugin`, C++ `createPlugin` after a registry lookup) hands the creator its whole field
    collection: where the creator declares no fields but `createPlugin` reads them by name (compared in a loop,
    looked up in a table keyed by the names, or handed to a method of an object made from the collection: a field
    parser's `p.getScalar<int32_t>("num_heads")`), a passed field it never reads, when exactly one read field the route
    does not pass is a near miss of it, is a field renamed on one side too. A plugin made by a helper of another
    module of the project from a dict describing it (`get_plugin(info)` imported from a package, whose
    `get_creator(info["name"], ...)` and `trt.PluginField(key, ...)` per key of `info["argument_dict"]` read the
    dict) is judged at the call, with the name, version, namespace and fields the caller's dict gives. So is a plugin
    made by a helper (in the same module or another, imported by name, as a module, or by a star import) whose
    lookup takes the name, version and namespace from its parameters and whose `create_plugin` is handed the
    collection parameter (`get_trt_plugin("LayerNorm", field_collection, "1")`): judged at the call, with the
    fields of the collection it passes. A call handing a function a `PluginField` collection that no such helper of
    the project completes is named in the run's summary (`plugin_helper_calls_not_followed`), with the reason.

    ## Why it matters
    TensorRT's ONNX parser passes a plugin only the attributes its creator declares. An attribute the
    creator does not declare is dropped without a word: the plugin silently runs with its default, and the
    engine computes something else than the model says. A direct route (`create_plugin` with a field
    collection, a direct builder) hands `createPlugin` the whole collection unfiltered: there a field the
    creator neither declares nor is seen to read has no effect, and the message says that instead.

    ## Example
    ```cpp
    mFields.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));
    ```
    ```python
    _plugins.FooPlugin(x, alpha=a, beta=b)   # 'beta' is dropped by the parser
    ```

    ## Fix
    Declare the field in the creator (and read it in `createPlugin`), or stop emitting it. When the
    attribute is a keyword argument and exactly one declared, not yet emitted field is close to it (a typo:
    `num_head` for `num_heads`), `trtlint check --fix --unsafe-fixes` renames it (unsafe: the value may
    have been meant for a field the creator has yet to declare).
    """

    code = "TRT103"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    name = "plugin-attribute-mismatch"
    family = "contract"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)
    confirm = "attribute-fields"
    fixable = True

    VALID = [
        # the creator reads exactly what it declares (and nothing close to an undeclared name)
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32")),
                                                               reads=("alpha", "num_heads"))}},
        # a field read and not declared beside one declared and not read, neither name beginning or ending the
        # other (an optional field and one read in a way not seen), or several of each: no pairing is sure
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("scale", "kINT32")),
                                                               reads=("alpha", "gamma"))}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("k_dim", "kINT32"), ("n_dim", "kINT32")),
                                                               reads=("alpha", "k", "n"))}},
        # a read that begins two declared fields it does not read: which one was renamed is not sure
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("scale_bias", "kINT32"), ("scale_bias2", "kINT32")),
                                                               reads=("alpha", "scale", "B"))}},
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("beta", "kINT32"))),
                "py/translate.py": onnxscript_py("FooPlugin", 'alpha=1.0, beta=2, plugin_version="1"'),
            }
        },
        {
            # a direct route hands the whole collection to createPlugin: a field it reads is accepted
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", reads=("alpha", "gamma")),
                "builder/backend.py": backend_py(),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x):\n"
                    '    return operation("foo", [x], alpha=1.0, gamma=2)\n'
                ),
            }
        },
        # fields declared by their name only (`PluginField("alpha")`, as open-mmlab/mmcv's creators do): declared
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", None), ("mode", None))),
                   "py/translate.py": onnxscript_py("FooPlugin", 'alpha=1.0, mode=2')}},
        # Python model code creating the plugin through the TensorRT API with the creator's fields, and an
        # onnx-graphsurgeon node setting them
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))),
                   "py/model.py": py_create_plugin(fields=("alpha", "num_heads"))}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))),
                   "py/surgeon.py": gs_surgery_py(attrs='{"alpha": 1.0, "num_heads": 2}')}},
        # TensorRT's own plugin, every attribute one of its creator's fields (rules/tensorrt_plugin_fields.yaml)
        {"files": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "iou_threshold": 0.45, "max_output_boxes": 100, "background_class": -1, "score_activation": 0, "box_coding": 0, "plugin_version": "1"}')}},
    ]
    INVALID = [
        {
            # TensorRT's own plugin (no creator in the project): judged against libnvinfer_plugin's declared fields
            "files": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "iou_treshold": 0.45}')},
            "expect": [
                ("py/surgeon.py", 6, "ONNX node 'EfficientNMS_TRT' does not set 'iou_threshold', 'max_output_boxes', 'background_class', 'score_activation', 'box_coding', which TensorRT's own EfficientNMS_TRT creator requires (libnvinfer_plugin 11.1: its createPlugin asserts them present"),
                ("py/surgeon.py", 6, "attribute 'iou_treshold' of ONNX node 'EfficientNMS_TRT' is not a field of TensorRT's own EfficientNMS_TRT creator (libnvinfer_plugin 11.1 declares: background_class, box_coding, class_agnostic, iou_threshold,"),
            ],
        },
        {
            # TensorRT's own plugin with every attribute declared, but one its createPlugin requires left out
            "files": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "iou_threshold": 0.45, "background_class": -1, "score_activation": 0, "box_coding": 0}')},
            "expect": [("py/surgeon.py", 6, "ONNX node 'EfficientNMS_TRT' does not set 'max_output_boxes', which TensorRT's own EfficientNMS_TRT creator requires (libnvinfer_plugin 11.1: its createPlugin asserts it present; no TensorRT version is known, so judged against the newest release here): creating the plugin fails at engine build")],
        },
        {
            # inside the creator: it declares 'num_heads' but reads 'num_head' (and never 'num_heads')
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32")),
                                                                   reads=("alpha", "num_head"))},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 30, "reads field 'num_head', which FooPluginCreator does not declare in getFieldNames(); it declares 'num_heads', which it never reads", "FooPluginCreator.num_head")],
        },
        {
            # the only field read and not declared, 'k', and the only one declared and not read, 'k_dim': one field
            # renamed on one side though too far apart for a near miss
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("k_dim", "kINT32")),
                                                                   reads=("alpha", "k"))},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 30, "reads field 'k', which FooPluginCreator does not declare in getFieldNames(); it declares 'k_dim', which it never reads", "FooPluginCreator.k")],
        },
        {
            # several fields read and not declared (a V3 creator's runtime reads of the fields its plugin serializes:
            # 'S', 'B', 'runnerState'), one declared and not read, 'type_id_version': the one read it begins, 'type_id',
            # is the field renamed on one side
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp(fields=(("alpha", "kFLOAT32"), ("type_id_version", "kINT32")),
                                                                   reads=("alpha", "type_id", "S", "B", "runnerState"))},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 30, "reads field 'type_id', which FooPluginCreator does not declare in getFieldNames(); it declares 'type_id_version', which it never reads", "FooPluginCreator.type_id")],
        },
        {
            # the same, with createPlugin defined where a header is missing (the using-declarations of nvinfer1's
            # names came from it): its PluginFieldCollection parameter does not resolve, and is still the fields
            "files": {"plugins/fooCreator.h": _SPLIT_H, "plugins/fooCreator.cpp": _SPLIT_CPP},
            "expect": [("plugins/fooCreator.cpp", 11, "reads field 'num_head', which FooPluginCreator does not declare in getFieldNames(); it declares 'num_heads'")],
        },
        {
            # an ONNX model node: the parser passes only declared fields; the plugin spec's required ones must be set
            "files": {
                "plugin/fooPlugin/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("n", "kINT32"))),
                "plugin/fooPlugin/FooPlugin_PluginConfig.yaml": (
                    "---\nname: FooPlugin\ninterface: IPluginV3\nversions:\n  \"1\":\n    attributes:\n      - alpha\n      - n\n"
                    "    attribute_types:\n      alpha: float32\n      n: int32\n    attributes_required:\n      - n\n"
                ),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", alpha=1.0, beta=2), opsets=(("", 17), ("trt_plugins", 1))
                ),
            },
            "expect": [
                ("models/foo.onnx", 1, "attribute 'beta' of ONNX node 'main_graph/FooPlugin_0' (trt_plugins::FooPlugin) is not a field creator FooPluginCreator declares (getFieldNames: alpha, n)"),
                ("models/foo.onnx", 1, "does not set attribute 'n', which FooPlugin_PluginConfig.yaml marks required for 'FooPlugin' version '1'"),
            ],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2"),
            },
            "expect": [("py/translate.py", 7, "attribute 'beta' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # the same against fields declared by their name only (`PluginField("alpha")`: no type, no data)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", None), ("mode", None))),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, mdoe=2"),
            },
            "expect": [("py/translate.py", 7, "attribute 'mdoe' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha, mode)")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "builder/backend.py": backend_py(),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x, scale=None):\n"
                    '    attributes = {"alpha": 1.0}\n'
                    "    if scale is not None:\n"
                    '        attributes["gamma"] = scale\n'
                    '    return operation("foo", [x], output_count=1, **attributes)\n'
                ),
            },
            "expect": [("builder/functional.py", 5, "attribute 'gamma' of direct-route operation 'foo' (creator 'FooPlugin' via _OPERATION_CREATORS)")],
        },
        {
            # read by createPlugin but not declared: the ONNX parser drops it (TensorRT Edge-LLM's
            # update_ssm_state emitted dt_softplus and ngroups this way)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", reads=("alpha", "gamma")),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, gamma=2"),
            },
            "expect": [
                ("py/translate.py", 7, "creator FooPluginCreator reads 'gamma' but does not declare it in getFieldNames() (declared: alpha), so TensorRT's ONNX parser drops it and the plugin silently gets its default")
            ],
        },
        {
            # an undeclared attribute close to a declared field no one emits: the unsafe fix renames it
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin", attrs="alpah=1.0"),
            },
            "expect": [("py/translate.py", 7, "attribute 'alpah' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha): TensorRT drops it silently")],
            "fixed": {"py/translate.py": onnxscript_py("FooPlugin", attrs="alpha=1.0")},
        },
        {
            # C++ model code: the PluginFields handed to createPlugin after a registry lookup
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "src/model.cpp": cpp_model("FooPlugin", field="alfa"),
            },
            "expect": [("src/model.cpp", 6, "attribute 'alfa' of getCreator(\"FooPlugin\", \"1\", \"\") is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # the same, the field built in a statement libclang loses (it names a local whose type comes from a
            # header that is missing): read from the function's text
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "src/model.cpp": _LOST_FIELD_MODEL,
            },
            "expect": [("src/model.cpp", 9, "attribute 'alfa' of getCreator(\"FooPlugin\", \"1\", \"\") is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # Python model code: the trt.PluginField list handed to create_plugin on the creator a lookup found
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))),
                      "py/model.py": py_create_plugin(fields=("alpha", "num_head"))},
            "expect": [("py/model.py", 8, "attribute 'num_head' of get_creator('FooPlugin', '1', '') is not a field creator FooPluginCreator declares (getFieldNames: alpha, num_heads)")],
            "fixed": {"py/model.py": py_create_plugin(fields=("alpha", "num_heads"))},
        },
        {
            # an onnx-graphsurgeon node made in a helper registered on gs.Graph (self.layer(op=..., attrs=...))
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                      "py/surgeon.py": gs_surgery_py(attrs='{"alpha": 1.0, "beta": 2}', helper=True)},
            "expect": [("py/surgeon.py", 6, "attribute 'beta' of ONNX node 'FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # the creator's fields filled by a method of its own that its constructor calls
            "files": {"cpp/plugins/foo/fooPlugin.cpp": _fields_by_helper(), "src/model.cpp": cpp_model("FooPlugin", field="alfa")},
            "expect": [("src/model.cpp", 6, "attribute 'alfa' of getCreator(\"FooPlugin\", \"1\", \"\") is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # a version-2 creator without fields or getFieldNames of its own declares those of the creator it derives
            "files": {"cpp/plugins/foo/fooPlugin.cpp": _derived_creator(),
                      "src/model.cpp": cpp_model("FooPlugin", field="alfa").replace('"FooPlugin", "1"', '"FooPlugin", "2"')},
            "expect": [("src/model.cpp", 6, "is not a field creator FooPluginCreatorV2 declares (getFieldNames: alpha)")],
        },
    ]

    INVALID += [
        {
            # a loader class: the creator kept on self by one method, the fields returned by another, the plugin made
            # in a third (the weights' fields, named by a loop variable, are not judged)
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))),
                      "py/loader.py": py_loader_class(fields=("alpha", "num_head"))},
            "expect": [("py/loader.py", 11, "attribute 'num_head' of get_creator('FooPlugin', '1', '') is not a field creator FooPluginCreator declares (getFieldNames: alpha, num_heads)")],
            "fixed": {"py/loader.py": py_loader_class(fields=("alpha", "num_heads"))},
        },
        {
            # trt brought by a star import of a project module (``import tensorrt as trt`` over there)
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                      "py/common.py": "import tensorrt as trt\n", "py/conv.py": _STAR_CONV},
            "expect": [("py/conv.py", 7, "attribute 'alfa' of get_creator('FooPlugin', '1', '') is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # a torch.onnx symbolic naming its op by an f-string over a local domain name
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/symbolic.py": gop_fstring_py(attrs="alfa_f=1.0")},
            "expect": [("py/symbolic.py", 3, "attribute 'alfa' of ONNX node 'trt_plugins::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # the creator declares no field but its createPlugin reads them by name; the model code passes the whole
            # collection, one field renamed: 'num_head' is ignored and 'num_heads' never arrives
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(), reads=("alpha", "num_heads")),
                      "py/model.py": py_create_plugin(fields=("alpha", "num_head"))},
            "expect": [("py/model.py", 8, "attribute 'num_head' of get_creator('FooPlugin', '1', '') is not a field creator FooPluginCreator's createPlugin reads (it declares none in getFieldNames()); it reads 'num_heads', which this route never passes")],
        },
        {
            # the same, createPlugin reading the fields through a table keyed by their names (name2ptr.find(...))
            "files": {"cpp/plugins/foo/fooPlugin.cpp": _MAP_CREATOR, "py/model.py": py_create_plugin(fields=("alpha", "num_head"))},
            "expect": [("py/model.py", 8, "attribute 'num_head' of get_creator('FooPlugin', '1', '') is not a field creator FooPluginCreator's createPlugin reads (it declares none in getFieldNames()); it reads 'num_heads'")],
        },
    ]

    INVALID += [
        {
            # two samples of one tree, each with its own creator of the plugin (no build description makes them two
            # programs): a route is judged against the creator nearest it, not the union of both (which has 'alpha')
            "files": {"samples/one/fooPlugin.cpp": creator_cpp("FooPlugin"),
                      "samples/one/main.py": py_create_plugin(fields=("alpha",)),
                      "samples/two/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alphaX", "kFLOAT32"),), cls="BarCreator"),
                      "samples/two/main.py": py_create_plugin(fields=("alpha",))},
            "expect": [("samples/two/main.py", 7, "attribute 'alpha' of get_creator('FooPlugin', '1', '') is not a field creator BarCreator declares (getFieldNames: alphaX)")],
            "fixed": {"samples/two/main.py": py_create_plugin(fields=("alphaX",))},
        },
    ]

    INVALID += [
        {
            # a helper of another module (a package re-exporting it) looks the creator up by a dict's entries and
            # makes a field per key of its argument_dict: the sample's dict names a field the creator does not declare
            "files": {"samples/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), **py_dict_helper(field="alfa")},
            "expect": [("samples/foo/main.py", 6, "attribute 'alfa' of get_creator('FooPlugin', '1', '') through get_plugin(...) is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
    ]

    INVALID += [
        {
            # a helper of another module (brought by a star import) looks the creator up by its parameters and hands
            # create_plugin the collection it is given: the converter hands it a field the creator does not declare
            "files": {"plugins/fooPlugin.cpp": creator_cpp("FooPlugin"), **py_param_helper(field="alfa")},
            "expect": [("mypkg/converters.py", 7, "attribute 'alfa' of get_creator('FooPlugin', '1', '') through get_trt_plugin(...) is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            # the same helper reached through its module imported under another name (u.get_trt_plugin(...))
            "files": {"plugins/fooPlugin.cpp": creator_cpp("FooPlugin"), **py_param_helper(field="alfa", how="module")},
            "expect": [("mypkg/converters.py", 7, "attribute 'alfa' of get_creator('FooPlugin', '1', '') through get_trt_plugin(...) is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
    ]

    VALID += [
        # the helper handed the creator's own fields
        {"files": {"samples/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), **py_dict_helper()}},
        # the parameter helper (imported by name) handed the creator's own fields
        {"files": {"plugins/fooPlugin.cpp": creator_cpp("FooPlugin"), **py_param_helper(how="from")}},
        # each sample's route with its own creator's fields (the other sample's creator declares other ones)
        {"files": {"samples/one/fooPlugin.cpp": creator_cpp("FooPlugin"),
                   "samples/one/main.py": py_create_plugin(fields=("alpha",)),
                   "samples/two/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alphaX", "kFLOAT32"),), cls="BarCreator"),
                   "samples/two/main.py": py_create_plugin(fields=("alphaX",))}},
        # the same loader, f-string and renamed-read shapes with the fields the creator declares or reads; a passed
        # field createPlugin does not read by name, with no read field close to it, is not judged (weights a creator
        # reads by computed names)
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("num_heads", "kINT32"))),
                   "py/loader.py": py_loader_class(fields=("alpha", "num_heads"))}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/symbolic.py": gop_fstring_py()}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(), reads=("alpha", "num_heads")),
                   "py/model.py": py_create_plugin(fields=("alpha", "num_heads", "patch_embed_kernel"))}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": _MAP_CREATOR, "py/model.py": py_create_plugin(fields=("alpha", "num_heads"))}},
        # the fields filled by the constructor's own helper, and the version-2 creator's inherited ones, are passed
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": _fields_by_helper(), "src/model.cpp": cpp_model("FooPlugin")}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": _derived_creator(),
                   "src/model.cpp": cpp_model("FooPlugin").replace('"FooPlugin", "1"', '"FooPlugin", "2"')}},
    ]

    # a direct route (create_plugin with the collection) reaches createPlugin unfiltered: the message says the
    # creator ignores the field, not that TensorRT drops it
    INVALID += [
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", reads=("alpha",)),
                      "py/model.py": py_create_plugin(fields=("alpha", "gama"))},
            "expect": [("py/model.py", 8, "attribute 'gama' of get_creator('FooPlugin', '1', '') is not a field creator FooPluginCreator declares (getFieldNames: alpha): this route hands createPlugin the whole collection, and it is not seen to read it, so the value has no effect")],
        },
    ]

    # fields read through a field parser object made from the collection, by the name its method is handed
    VALID += [{"files": {"cpp/plugins/foo/fooPlugin.cpp": _parser_reads(("alpha", "num_heads"))}}]
    INVALID += [
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": _parser_reads(("alpha", "num_head"))},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 39, "reads field 'num_head', which FooPluginCreator does not declare in getFieldNames(); it declares 'num_heads', which it never reads")],
        },
    ]

    # a creator appending to the field list of a project base creator whose constructor filled it first (a common
    # creator of several plugins): the base's fields are declared too, unless the creator empties the list itself
    VALID += [
        {"files": {"cpp/foo.cpp": common_creator_cpp(), "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2")}},
    ]
    INVALID += [
        {
            "files": {"cpp/foo.cpp": common_creator_cpp(), "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2, gama=3")},
            "expect": [("py/translate.py", 7, "attribute 'gama' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha, beta)")],
        },
        {
            # through a creator between the two, which appends its own after the base's
            "files": {"cpp/foo.cpp": common_creator_cpp(middle=("gamma",)),
                      "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2, gamma=3, delta=4")},
            "expect": [("py/translate.py", 7, "attribute 'delta' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha, beta, gamma)")],
        },
        {
            # the creator empties the inherited list before appending: the base's fields are gone
            "files": {"cpp/foo.cpp": common_creator_cpp(derived_clears=True),
                      "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2")},
            "expect": [("py/translate.py", 7, "attribute 'alpha' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: beta)")],
        },
        {
            # the creator between them empties it: only its fields and the creator's are there
            "files": {"cpp/foo.cpp": common_creator_cpp(middle=("gamma",), middle_clears=True),
                      "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2, gamma=3")},
            "expect": [("py/translate.py", 7, "attribute 'alpha' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: beta, gamma)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        yield from self._renamed_on_one_side(index)
        yield from self._external(index)
        for r in requests(index):
            creators = route_creators(index, r)
            if not creators:
                continue
            specs = [sp for sp in index.specs_named(r.name) if r.version is None or sp.version == r.version]
            if r.kind == "model" and not r.open_attrs:
                yield from self._missing_required(r, specs)
            if not r.attrs:
                continue
            declared = set()
            reads: dict[str, object] = {}
            for c in creators:
                declared.update(f.name for f in c.fields)
                for rd in c.reads:
                    reads.setdefault(rd.name, rd)
            c0 = creators[0]
            decl_name, decl_fields = c0.cls.name, c0.fields
            if not declared and specs and r.kind in ("onnx", "model"):
                # the creator's fields were not found in C++: its TensorRT OSS plugin spec lists them
                declared = {f.name for sp in specs for f in sp.fields}
                decl_name, decl_fields = f"{c0.cls.name} (per {specs[0].span.path.rsplit('/', 1)[-1]})", specs[0].fields
            if not declared:
                if r.kind == "lookup" and reads:
                    yield from self._renamed_read(r, c0, reads)
                continue  # the creator's fields were not found: nothing else to compare with
            # The ONNX parser hands a creator only the attributes it declares; a direct route hands over the
            # whole collection, so there a field the creator reads is accepted even when undeclared.
            accepted = declared if r.kind in ("onnx", "model") else declared | set(reads)
            for a in r.attrs:
                if a.name in accepted or a.name in ("plugin_version", "plugin_namespace"):
                    continue
                rd = reads.get(a.name)
                related = [Related(decl_fields[0].span, f"{decl_name} declares its fields here")] if decl_fields else []
                if rd is not None:
                    related.append(Related(rd.span, f"{rd.method} reads '{a.name}' here"))
                    why = (
                        f"creator {decl_name} reads '{a.name}' but does not declare it in getFieldNames() "
                        f"(declared: {', '.join(sorted(declared))}), so TensorRT's ONNX parser drops it and the "
                        "plugin silently gets its default"
                    )
                elif r.kind in ("onnx", "model"):
                    why = (
                        f"not a field creator {decl_name} declares (getFieldNames: {', '.join(sorted(declared))}): "
                        "TensorRT drops it silently"
                    )
                else:  # a direct route: nothing filters the collection, the creator's createPlugin ignores the field
                    why = (
                        f"not a field creator {decl_name} declares (getFieldNames: {', '.join(sorted(declared))}): "
                        "this route hands createPlugin the whole collection, and it is not seen to read it, so the "
                        "value has no effect"
                    )
                fix = None
                if rd is None and getattr(a, "name_span", None) is not None:
                    from trtlint.base.fixes import UNSAFE, close_candidate, rename_edit

                    emitted = {x.name for x in r.attrs}
                    new = close_candidate(a.name, declared - emitted)
                    edit = rename_edit(a.name_span, a.name, new) if new else None
                    if edit is not None:
                        fix = Fix(f"rename attribute '{a.name}' to the declared field '{new}'", (edit,), UNSAFE)
                yield self.diag(
                    a.span,
                    f"attribute '{a.name}' of {r.what} is {why}" if rd is None else f"attribute '{a.name}' of {r.what}: {why}",
                    related=related,
                    symbol=f"{r.name}.{a.name}",
                    logical=r.logical,
                    fix=fix,
                )

    def _external(self, index) -> Iterable[Diagnostic]:
        """Routes to TensorRT's own plugins (a name the rules/ packs list, no project creator of it): each attribute
        compared with the fields libnvinfer_plugin's creator declares in the release the code targets
        (rules/tensorrt_plugin_fields.yaml; the newest release there when no version is known)."""
        from trtlint.base.fixes import UNSAFE, close_candidate, rename_edit

        for r, rel, fields, note in library_routes(index):
            declared = {f.name for f in fields}
            emitted = {x.name for x in r.attrs}
            missing = [f.name for f in fields if f.required and f.name not in emitted]
            if missing and not r.open_attrs:
                # every attribute the route passes is known: a field createPlugin asserts present is not among them
                yield self.diag(
                    r.span,
                    f"{r.what} does not set {', '.join(repr(m) for m in missing)}, which TensorRT's own {r.name} creator "
                    f"requires (libnvinfer_plugin {rel}: its createPlugin asserts {'them' if len(missing) > 1 else 'it'} "
                    f"present{note}): creating the plugin fails at engine build",
                    symbol=f"{r.name}.{missing[0]}",
                    logical=r.logical,
                )
            for a in r.attrs:
                if a.name in declared or a.name in ("plugin_version", "plugin_namespace"):
                    continue
                fix = None
                new = close_candidate(a.name, declared - emitted) if getattr(a, "name_span", None) is not None else None
                edit = rename_edit(a.name_span, a.name, new) if new else None
                if edit is not None:
                    fix = Fix(f"rename attribute '{a.name}' to the declared field '{new}'", (edit,), UNSAFE)
                yield self.diag(
                    a.span,
                    f"attribute '{a.name}' of {r.what} is not a field of TensorRT's own {r.name} creator "
                    f"(libnvinfer_plugin {rel} declares: {', '.join(sorted(declared))}{note}): TensorRT drops it silently",
                    symbol=f"{r.name}.{a.name}",
                    logical=r.logical,
                    fix=fix,
                )

    def _renamed_read(self, r, c0, reads: dict) -> Iterable[Diagnostic]:
        """A plugin created from model code (the whole field collection handed to ``createPlugin``) whose creator
        declares no fields but reads them by name: a passed field that ``createPlugin`` never reads, when exactly
        one field it reads and the route does not pass is a near miss of it, is a field renamed on one side."""
        import difflib

        passed = {a.name for a in r.attrs}
        missing = sorted(n for n in reads if n not in passed)
        unread = sorted(n for n in passed if n not in reads)
        for a in r.attrs:
            if a.name in reads or a.name in ("plugin_version", "plugin_namespace"):
                continue
            close = difflib.get_close_matches(a.name, missing, n=2, cutoff=_RENAMED)
            if len(close) != 1 or difflib.get_close_matches(close[0], unread, n=2, cutoff=_RENAMED) != [a.name]:
                continue
            rd = reads[close[0]]
            yield self.diag(
                a.span,
                f"attribute '{a.name}' of {r.what} is not a field creator {c0.cls.name}'s {rd.method} reads (it "
                f"declares none in getFieldNames()); it reads '{rd.name}', which this route never passes: a field "
                f"renamed on one side only ('{a.name}' is ignored and '{rd.name}' never arrives)",
                related=[Related(rd.span, f"{rd.method} reads '{rd.name}' here")],
                symbol=f"{r.name}.{a.name}",
                logical=r.logical,
            )

    def _renamed_on_one_side(self, index) -> Iterable[Diagnostic]:
        """Inside one creator: a field ``createPlugin`` reads that ``getFieldNames`` does not declare, when exactly one
        declared field that it never reads is a near miss of it (``score_threshold`` read, ``score_thresh``
        declared), or is the only such field and one name begins or ends the other (the only read field undeclared
        ``k``, the only declared field unread ``k_dim``): a field renamed on one side only."""
        import difflib

        seen = set()
        for c in index.creators:
            declared = {f.name: f for f in c.fields}
            if not declared:
                continue
            read = {rd.name for rd in c.reads}
            unread = sorted(n for n in declared if n not in read)
            undeclared = {rd.name for rd in c.reads if rd.name not in declared}
            for rd in c.reads:
                if rd.name in declared or (c.cls.qualname, rd.name) in seen:
                    continue
                close = difflib.get_close_matches(rd.name, unread, n=2, cutoff=_RENAMED)
                if len(close) != 1 and len(undeclared) == 1 and len(unread) == 1 and _affix(rd.name, unread[0]):
                    close = unread  # the one name read and not declared, the one declared and not read: one field
                if len(close) != 1:
                    # among several unpaired fields (a V3 creator's runtime reads of the serialized fields, other
                    # drifts): the one declared unread field this read begins or ends, when this read is also the
                    # only undeclared one that begins or ends it
                    mates = _affix_mates(rd.name, unread)
                    if len(mates) == 1 and _affix_mates(mates[0], undeclared) == [rd.name]:
                        close = mates
                if len(close) != 1:
                    continue
                seen.add((c.cls.qualname, rd.name))
                d = declared[close[0]]
                yield self.diag(
                    rd.span,
                    f"{rd.method} reads field '{rd.name}', which {c.cls.name} does not declare in getFieldNames(); it "
                    f"declares '{d.name}', which it never reads: a field renamed on one side only (TensorRT's ONNX "
                    f"parser passes only declared fields, so '{rd.name}' never arrives"
                    + (" and its default is used)" if rd.has_default else ")"),
                    related=[Related(d.span, f"{c.cls.name} declares '{d.name}' here")],
                    symbol=f"{c.cls.name}.{rd.name}",
                )

    def _missing_required(self, r, specs) -> Iterable[Diagnostic]:
        """A model node without an attribute its TensorRT OSS plugin spec marks required."""
        emitted = {a.name for a in r.attrs}
        for sp in specs[:1]:
            for name in sp.required:
                if name in emitted:
                    continue
                yield self.diag(
                    r.span,
                    f"{r.what} does not set attribute '{name}', which {sp.span.path.rsplit('/', 1)[-1]} marks required "
                    f"for '{sp.name}' version '{sp.version}': the parser only warns (\"Attribute {name} not found in "
                    "plugin node\") and the creator gets no value for it",
                    related=[Related(sp.version_span or sp.span, f"plugin spec of '{sp.name}' version '{sp.version}'")],
                    symbol=f"{r.name}.{name}",
                    logical=r.logical,
                )
