from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Fix, Related
from ..base import Rule
from ..examples.contract import (cpp_model, macro_declared_pair, xmacro_plugins, creator_cpp, gs_surgery_py, multi_backend_py, onnxscript_py, ort_op_h, pair_cpp,
                                 py_create_plugin, symbolic_py)
from ..examples.onnx import onnx_model, onnx_node
from ._creators import disagreeing_plugins, macro_paired
from ._routes import requests
from trtlint.base.facts import SURGERY_FORMS


def creator_related(index, names, verb="registers") -> list[Related]:
    out = []
    for n in names:
        for c in index.creators_named(n):
            out.append(Related(c.name_span, f"creator {c.cls.name} {verb} '{n}' (version {c.plugin_version!r})"))
            break
    return out


def _one_of(p) -> str:
    """'Foo', or 'Foo', 'Foo2' or 'Bar' for a plugin that names itself by a condition."""
    names = [f"'{n}'" for n in (p.names or (p.plugin_name,))]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" or {names[-1]}"


def _subclass_creators(min_name: str = "CumMin") -> str:
    """A base creator registered nowhere ("CumMaxMin") holding createPlugin, and two registered subclasses that
    name themselves and pass the base a kind that picks the plugin's getPluginType ("CumMax" / "CumMin").
    Lines: the plugin's first name (`return "CumMax";`) 17, CumMinCreator's getPluginName 48."""
    return f"""#include <NvInferRuntime.h>
#include <string>
using namespace nvinfer1;
enum class Kind
{{
    kMAX,
    kMIN
}};
class CumPlugin : public IPluginV2DynamicExt
{{
public:
    explicit CumPlugin(Kind kind) : mKind(kind) {{}}
    char const* getPluginType() const noexcept override
    {{
        switch (mKind)
        {{
        case Kind::kMAX: return "CumMax";
        case Kind::kMIN: return "CumMin";
        default: return "UnknownCum";
        }}
    }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}

private:
    Kind mKind;
}};
class CumMaxMinCreator : public IPluginCreator
{{
public:
    explicit CumMaxMinCreator(Kind kind) : mKind(kind) {{}}
    char const* getPluginName() const noexcept override {{ return "CumMaxMin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override {{ return new CumPlugin(mKind); }}

protected:
    Kind mKind;
}};
class CumMaxCreator : public CumMaxMinCreator
{{
public:
    CumMaxCreator() : CumMaxMinCreator(Kind::kMAX) {{}}
    char const* getPluginName() const noexcept override {{ return "CumMax"; }}
}};
class CumMinCreator : public CumMaxMinCreator
{{
public:
    CumMinCreator() : CumMaxMinCreator(Kind::kMIN) {{}}
    char const* getPluginName() const noexcept override {{ return "{min_name}"; }}
}};
REGISTER_TENSORRT_PLUGIN(CumMaxCreator);
REGISTER_TENSORRT_PLUGIN(CumMinCreator);
"""


def _checker_pair(plugin_name: str = "Dcn") -> str:
    """A V2 plugin and its creator written as a consistency checker (``nvinfer1::consistency::IPluginChecker``, a
    plugin creator that also validates serialized plugins: TensorRT's ``NvInferConsistency.h``), registered with
    the macro. Line of the plugin's ``getPluginType``: 8."""
    return f"""#include <NvInfer.h>
#include <NvInferConsistency.h>
using namespace nvinfer1;
class DcnPlugin : public IPluginV2IOExt
{{
public:
    DcnPlugin() noexcept {{}}
    char const* getPluginType() const noexcept override {{ return "{plugin_name}"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
}};
class DcnPluginChecker : public nvinfer1::consistency::IPluginChecker
{{
public:
    char const* getPluginName() const noexcept override {{ return "Dcn"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    IPluginV2IOExt* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override
    {{
        return new DcnPlugin();
    }}
    bool validate(char const* name, void const* serialData, size_t serialLength, PluginTensorDesc const* in,
        size_t nbInputs, PluginTensorDesc const* out, size_t nbOutputs, int64_t workspaceSize) const noexcept override
    {{
        return true;
    }}
}};
REGISTER_TENSORRT_PLUGIN(DcnPluginChecker);
"""


def _ort_project(emitted: str, ort_op: str) -> dict:
    """A TensorRT creator 'MMXNonMaxSuppression', an ONNX Runtime custom op ``ort_op`` (class SoftNmsOp) and autograd
    functions emitting ``emitted`` (line 5) and ``ort_op`` (line 10) in the domain 'mmx'."""
    return {
        "csrc/tensorrt/nms/nmsPlugin.cpp": creator_cpp("MMXNonMaxSuppression", fields=(("iou_threshold", "kFLOAT32"),)),
        "csrc/onnxruntime/soft_nms.h": ort_op_h(ort_op, "SoftNmsOp"),
        "mmx/ops/nms.py": symbolic_py(emitted, ort_op),
    }



def _default_domain_py(second: str, domain: str = "") -> str:
    """Autograd functions emitting 'FooPlugin' (line 5) in ONNX's own domain and ``second`` (line 9) in ``domain``."""
    pre = f"{domain}::" if domain else ""
    return (
        "import torch\n"
        "class Foo(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def symbolic(g, x):\n"
        '        return g.op("FooPlugin", x)\n'
        "class Second(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def symbolic(g, x):\n"
        f'        return g.op("{pre}{second}", x)\n'
    )


def _two_creators() -> dict:
    return {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
            "cpp/plugins/rotate/rotatePlugin.cpp": creator_cpp("RotatePlugin", cls="RotatePluginCreator")}


class PluginNameMismatch(Rule):
    """A route asks for a plugin name that no creator registers.

    ## What it does
    Collects every place that names a plugin creator: ONNX node emission in a plugin domain (onnxscript
    opset calls, `g.op("dom::Op")`, `onnx.helper.make_node`, onnx-graphsurgeon `gs.Node(op=...)`/`gs.Node("Op",
    ...)` and `graph.layer(op=...)`, also inside `@gs.Graph.register()` helpers), a direct builder's
    operation-to-creator table and its `operation(...)` calls, `get_creator`/`get_plugin_creator(name, version,
    namespace)` lookups and `for c in registry.plugin_creator_list: if c.name == "Name"` scans, and in C++ model
    code `getPluginRegistry()->getPluginCreator(...)`/`getCreator(...)`. Each name must be
    one that a C++ creator returns from `getPluginName()`. The message lists the closest registered names.
    Creators defined in Python (`tensorrt.IPluginCreator*` subclasses, `@tensorrt.plugin.register`) count
    as registered. The rule only runs when the project's creators were found (otherwise it cannot know the
    names; a near miss of TensorRT's own plugins, below, excepted), and it does not report a name that a creator it
    could not analyse returns from `getPluginName()` (TRT004 names that creator), and it leaves alone lookups of other libraries' creators: a namespace no project creator
    registers under (TensorRT-LLM's `tensorrt_llm`), or a name the rules/ packs list as shipped by TensorRT's
    own plugin library (`EfficientNMS_TRT`, ...). Which ONNX domains are plugin domains: those
    `onnx-plugin-domains` (or the profile) names; with none named, a domain where some node names a creator of
    the project or of TensorRT's plugin library, or a near miss of a project creator's name (a typo). Nodes
    emitted in a function registered for another backend (`backend="ncnn"`) and in test files are not routes.
    With no domains named, an emitted node whose name is no near miss of a project creator's name (difflib
    ratio 0.85, or a case difference) is not reported either: such a domain counts only because some other node in it resolves, and a multi-backend exporter
    emits its other backends' ops (ncnn, Ascend, ONNX Runtime) and internal markers there too; only a near miss
    (a typo, a case difference) is evidence that the node is meant for a project creator. A node whose op type is
    an ONNX Runtime custom op the project defines (a class deriving `Ort::CustomOpBase<Self, Kernel>` whose `GetName()`
    returns that op type, as open-mmlab/mmcv ships next to its TensorRT plugins) is no near miss, however close its
    name is to a creator's: ONNX Runtime runs it. It is judged as a node with no near miss: not reported without the
    domains named; with them named, or in an ONNX model, reported with the ONNX Runtime op as the related location and
    no closest name or rename. Name the domains
    (`onnx-plugin-domains`) to have every unknown name in them reported. An onnx-graphsurgeon node is different:
    graph surgery edits a model for TensorRT, so a node whose op is no standard ONNX op is a plugin node whatever
    its domain, and it is reported when some registered name is close to it (the closest names the message lists,
    difflib ratio 0.6) or when it is a registered name with something added. So is a node in ONNX's own domain
    (`g.op("Op")` with no domain, `make_node` without one) whose op no ONNX opset defines: no runtime other than
    TensorRT, whose ONNX parser looks an unknown op up as a plugin, runs it. A route whose name is a near miss
    of one of TensorRT's own plugins (`EfficientNMS_TRt`, `EfficientNMS_TRT2`) is reported also in a project that
    defines no creator: the message names the closest plugin of TensorRT's library.

    Between a plugin and its own creator: the plugin class a creator's `createPlugin`/`deserializePlugin`
    makes (`new FooPlugin(...)`) must return from `getPluginName()` (`getPluginType()` for `IPluginV2*`) the
    name the creator returns from its `getPluginName()`: TensorRT writes the plugin's name into the engine
    and looks the creator up by it when the engine is deserialized. A base creator that no registration names
    but whose registered subclasses define their own `getPluginName()` (each passing the inherited
    `createPlugin` a value that picks the plugin's name) is judged through those subclasses: each is compared
    with the plugin it creates, the base's own name (never looked up) is not. A creation that names the class
    through a macro (`new PLUGIN_NAME(...)` in an X-macro header included once per plugin) links the creator to the
    class the macro names in each unit that includes the header.

    ## Why it matters
    Nothing fails at commit time. TensorRT fails at engine build, on a GPU machine: the ONNX parser reports
    "Plugin not found, are the plugin name, version, and namespace correct?", the direct builder gets `None`
    from `get_creator`. A plugin renamed on one side only builds an engine that cannot be deserialized:
    the registry has no creator of the name the plugin wrote into it.

    ## Example
    ```python
    _plugins = onnxscript.values.Opset("trt_edgellm", 1)
    _plugins.FooPlugn(x, alpha=a)      # the creator registers "FooPlugin"
    ```

    ```cpp
    char const* FooPlugin::getPluginType() const noexcept { return "Foo_TRt"; }         // the plugin
    char const* FooPluginCreator::getPluginName() const noexcept { return "Foo_TRT"; } // its creator
    ```

    ## Fix
    Use the registered name (or rename the creator, and every other route with it). When exactly one
    registered name is close, `trtlint check --fix --unsafe-fixes` renames it (unsafe: the engine may be
    built against a creator that is not in this tree). Return one name constant from both a plugin and its
    creator.
    """

    code = "TRT101"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "ort_ops", "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    name = "plugin-name-mismatch"
    family = "contract"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)
    confirm = "creator-lookup"
    fixable = True

    VALID = [
        {
            # an X-macro header included once per plugin: each unit's creator creates the class AP_NAME names there
            # (`new AP_PLUGIN()`), which returns the creator's name
            "files": xmacro_plugins(),
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin"),
            }
        },
        {
            # a base creator registered nowhere ('CumMaxMin') holds createPlugin; its registered subclasses name
            # themselves 'CumMax' / 'CumMin' and pick the plugin's type by a constructor argument: each registered
            # creator's name is a type the plugin returns (open-mmlab/mmcv's cummax/cummin creators)
            "files": {"plugins/cum.cpp": _subclass_creators()},
        },
        {
            # no creators in the tree: names cannot be judged, nothing is reported
            "files": {"py/translate.py": onnxscript_py("Whatever")},
        },
        {
            # creators defined in Python (a tensorrt.IPluginCreatorV3One subclass, a QDP registration) count
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "samples/py_plugin.py": (
                    "import tensorrt as trt\n"
                    "import tensorrt.plugin as trtp\n"
                    "class NonZeroCreator(trt.IPluginCreatorV3One):\n"
                    "    def __init__(self):\n"
                    '        self.name = "NonZeroPlugin"\n'
                    '        self.plugin_version = "1"\n'
                    '        self.plugin_namespace = ""\n'
                    '@trtp.register("sample::circ_pad")\n'
                    "def circ_pad(x):\n"
                    "    return x.like()\n"
                    "def build():\n"
                    '    trt.get_plugin_registry().get_creator("NonZeroPlugin", "1", "")\n'
                    '    trt.get_plugin_registry().get_creator("circ_pad", "1", "sample")\n'
                ),
            },
        },
        {
            # ONNX model nodes: built-in ops are not plugins; a node naming a registered creator resolves
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("Relu"), onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))
                ),
            },
        },
        {
            # other libraries' creators: TensorRT-LLM's namespace, TensorRT's own plugin library
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/dist.py": (
                    "import tensorrt as trt\n"
                    "def build():\n"
                    "    reg = trt.get_plugin_registry()\n"
                    '    reg.get_creator("AllReduce", "1", "tensorrt_llm")\n'
                    '    reg.get_creator("EfficientNMS_TRT", "1", "")\n'
                ),
            },
        },
        {
            # a plugin older releases of TensorRT's library registered (CustomGeluPluginDynamic, not in 11.x) looked up
            # from C++ model code: a TensorRT plugin, not a typo of the project's creators
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "src/model.cpp": cpp_model("FooPlugin").replace('"FooPlugin", "1"', '"CustomGeluPluginDynamic", "1"'),
            },
        },
        {
            # a multi-backend exporter (generic profile): 'mmx' is a plugin domain (a node in it names the project's
            # creator), but nodes emitted in functions registered for another backend (backend="ncnn",
            # Backend.NCNN.value, and an undecorated helper only they call) are that backend's ops; 'ncnn' is a
            # domain where nothing names a creator
            "files": {
                "csrc/backend_ops/tensorrt/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "mmx/symbolics.py": multi_backend_py("FooPlugin"),
            },
        },
        {
            # zero-config (no onnx-plugin-domains): 'mmx' is a plugin domain only because one node in it names the
            # project's creator; an autograd Function's symbolic() for another backend's op (called from elsewhere,
            # so no backend= tells) and an exporter-internal marker are far from every registered name: not reported
            "files": {
                "csrc/backend_ops/tensorrt/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "mmx/symbolics.py": multi_backend_py("FooPlugin"),
                "mmx/ops/nms_match.py": (
                    "import torch\n"
                    "class NMSMatchOp(torch.autograd.Function):\n"
                    "    @staticmethod\n"
                    "    def symbolic(g, boxes, iou_threshold):\n"
                    '        return g.op("mmx::NMSMatch", boxes, iou_threshold)\n'
                    "def mark(g, x):\n"
                    '    return g.op("mmx::Mark", x, func_s="backbone", type_s="input")\n'
                ),
            },
        },
        {
            # a test stub: a test's emission of a fake op is not a route (TRT101 does not judge test files)
            "files": {
                "csrc/backend_ops/tensorrt/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "mmx/symbolics.py": multi_backend_py("FooPlugin"),
                "tests/test_core/test_register.py": (
                    "from mmx.core import SYMBOLIC_REWRITER\n"
                    "def test_register():\n"
                    '    @SYMBOLIC_REWRITER.register_symbolic("testfunc")\n'
                    "    def symbolic_testfunc(g, x):\n"
                    '        return g.op("mmx::symbolic_testfunc", x)\n'
                ),
            },
        },
    ]
    VALID += [
        # a plugin that names itself by a condition (use_h2 ? NAME2 : NAME): the creator registers one of them
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(plugin_name='mH2 ? "Foo_TRT2" : "Foo_TRT"',
                                                             creator_name='"Foo_TRT"').replace(
            "public:\n", "public:\n    bool mH2{false};\n", 1)}},
    ]
    VALID += [
        # a plugin TensorRT OSS describes in a spec next to its code (plugin/<dir>/<Name>_PluginConfig.yaml) is
        # registered under the spec's name, also where the tree has no C++ creator of that name
        {"files": {
            "plugin/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
            "plugin/scaleShiftPlugin/ScaleShift_PluginConfig.yaml": (
                "---\nname: ScaleShift_TRT\ninterface: \"IPluginV2DynamicExt\"\nversions:\n  \"1\":\n"
                "    attributes:\n      - scale\n    attribute_types:\n      scale: float32\n"),
            "py/build.py": (
                "import tensorrt as trt\n"
                "def build():\n"
                '    trt.get_plugin_registry().get_creator("ScaleShift_TRT", "1", "")\n'),
        }},
    ]
    VALID += [
        # a creator trtlint could not analyse (its base is declared in a header that is missing: TRT004 says so)
        # still registers its name: a route to it is not "unregistered"
        {"files": {
            "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
            "cpp/plugins/bar/barPlugin.cpp": (
                '#include "plugin.h"\nnamespace\n{\nconst char* BAR_NAME{"BarPlugin"};\n}\n'
                "class BarPluginCreator : public BaseCreator\n{\npublic:\n"
                "    const char* getPluginName() const noexcept override { return BAR_NAME; }\n"
                '    const char* getPluginVersion() const noexcept override { return "1"; }\n'
                "    IPluginV2* createPlugin(const char* name, const PluginFieldCollection* fc) noexcept override { return nullptr; }\n"
                "};\n"
            ),
            "py/model.py": py_create_plugin("BarPlugin", scan=True),
        }},
        # graph surgery: standard ONNX ops are not plugins, and a node far from every creator name (a placeholder the
        # script removes later, another library's plugin) is not judged without the plugin domains named
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/surgeon.py": gs_surgery_py("TrashNode")}},
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/surgeon.py": gs_surgery_py("FooPlugin", via_param=True)}},
        # a project with TensorRT plugins and ONNX Runtime custom ops (open-mmlab/mmcv): 'mmx' is a plugin domain (a
        # node names the TensorRT creator), and the node next to it names an op only the ONNX Runtime side implements
        # (Ort::CustomOpBase, GetName()): another runtime's op, no misspelling of 'MMXNonMaxSuppression'
        {"files": _ort_project("MMXNonMaxSuppression", "MMXSoftNonMaxSuppression")},
        # ONNX's own domain: a node far from every creator's name is not judged zero-config; and a close name in
        # another domain may be another backend's op (the near-miss leniency)
        {"files": {**_two_creators(), "py/functions.py": _default_domain_py("TrashNode")}},
        {"files": {**_two_creators(), "py/functions.py": _default_domain_py("RotatePluginExtra", domain="mmx")}},
    ]
    INVALID = [
        {
            # the same header with the plugin's type drifted: each unit's pair is compared through the macro (the
            # name is reported where the string the macro makes is spelled)
            "files": xmacro_plugins(plugin_name="AP_STR(AP_CAT(AP_NAME, Op))"),
            "expect": [
                ("include/auto_plugin.h", 7, "plugin ScalePlugin returns 'ScaleOp' from getPluginType(), but its creator ScalePluginCreator (which creates it in createPlugin) registers 'Scale'"),
                ("include/auto_plugin.h", 7, "plugin ShiftPlugin returns 'ShiftOp' from getPluginType(), but its creator ShiftPluginCreator (which creates it in createPlugin) registers 'Shift'"),
            ],
        },
        {
            # no creator in the project: a misspelt name of TensorRT's own plugins is still judged
            "files": {"py/model.py": py_create_plugin("EfficientNMS_TRt", fields=("score_threshold",))},
            "expect": [("py/model.py", 6, "get_creator('EfficientNMS_TRt', '1', '') names plugin 'EfficientNMS_TRt', but no creator registers it; closest in TensorRT's plugin library (libnvinfer_plugin): 'EfficientNMS_TRT'")],
            "fixed": {"py/model.py": py_create_plugin("EfficientNMS_TRT", fields=("score_threshold",))},
        },
        {
            # Python model code scanning the registry's creators for one name
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/model.py": py_create_plugin("FooPlugn", scan=True)},
            "expect": [("py/model.py", 7, "plugin_creator_list scan for 'FooPlugn' names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'")],
            "fixed": {"py/model.py": py_create_plugin("FooPlugin", scan=True)},
        },
        {
            # an onnx-graphsurgeon node is meant for TensorRT: a non-standard op close to a creator's name is judged
            # (a g.op in another domain would need a near miss: it may be another backend's op)
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/surgeon.py": gs_surgery_py("FooPlugin_TRT")},
            "expect": [("py/surgeon.py", 6, "ONNX node 'FooPlugin_TRT' names plugin 'FooPlugin_TRT', but no creator registers it; closest registered: 'FooPlugin'")],
            "fixed": {"py/surgeon.py": gs_surgery_py("FooPlugin")},
        },
        {
            # a registered graph-surgery helper taking the op as a parameter: each call of it in the module is the node
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"), "py/surgeon.py": gs_surgery_py("FooPlugin_TRT", via_param=True)},
            "expect": [("py/surgeon.py", 10, "ONNX node 'FooPlugin_TRT' names plugin 'FooPlugin_TRT', but no creator registers it; closest registered: 'FooPlugin'")],
            "fixed": {"py/surgeon.py": gs_surgery_py("FooPlugin", via_param=True)},
        },
        {
            # two samples, each built by its own Makefile, each emitting its own plugin: sample b's creator drifted.
            # Sample a's creator does not serve b's node (another program), so the drift is not hidden
            "files": {
                "samples/a/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "samples/a/Makefile": "libfoo.so: fooPlugin.cpp\n\tnvcc -shared -Xcompiler -fPIC -o $@ $^\n",
                "samples/a/export.py": onnxscript_py("FooPlugin"),
                "samples/b/fooPlugin.cpp": creator_cpp("FooPlugn"),
                "samples/b/Makefile": "libfoo.so: fooPlugin.cpp\n\tnvcc -shared -Xcompiler -fPIC -o $@ $^\n",
                "samples/b/export.py": onnxscript_py("FooPlugin"),
            },
            "expect": [("samples/b/export.py", 7, "ONNX node 'trt_edgellm::FooPlugin' names plugin 'FooPlugin', but no creator registers it; closest registered: 'FooPlugn'")],
            "fixed": {"samples/b/export.py": onnxscript_py("FooPlugn")},
        },
        {
            # the TensorRT function of a multi-backend exporter is judged; its other backends' ops are not
            "files": {
                "csrc/backend_ops/tensorrt/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "mmx/symbolics.py": multi_backend_py("FooPlugin"),
                "mmx/bar.py": (
                    "from mmx.core import SYMBOLIC_REWRITER\n"
                    '@SYMBOLIC_REWRITER.register_symbolic("bar", backend="tensorrt")\n'
                    "def bar__tensorrt(g, x):\n"
                    '    return g.op("mmx::FooPlugn", x, alpha_f=1.0)\n'
                ),
            },
            "expect": [("mmx/bar.py", 4, "ONNX node 'mmx::FooPlugn' names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'")],
            "fixed": {
                "mmx/bar.py": (
                    "from mmx.core import SYMBOLIC_REWRITER\n"
                    '@SYMBOLIC_REWRITER.register_symbolic("bar", backend="tensorrt")\n'
                    "def bar__tensorrt(g, x):\n"
                    '    return g.op("mmx::FooPlugin", x, alpha_f=1.0)\n'
                ),
            },
        },
        {
            # a plugin and the creator that creates it name different plugins (the creator's name is registered)
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(plugin_name='"Foo_TRt"', creator_name='"Foo_TRT"')},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 16, "plugin FooPlugin returns 'Foo_TRt' from getPluginName(), but its creator FooPluginCreator (which creates it in createPlugin) registers 'Foo_TRT'", "FooPlugin")],
        },
        {
            # the same through a registered subclass of a base creator registered nowhere: the subclass's name is
            # none of the plugin's types (the base's own name is never looked up, so it is not compared)
            "files": {"plugins/cum.cpp": _subclass_creators(min_name="CumMn")},
            "expect": [("plugins/cum.cpp", 17, "plugin CumPlugin returns 'CumMax', 'CumMin' or 'UnknownCum' from getPluginType(), but its creator CumMinCreator (which creates it in createPlugin, inherited from CumMaxMinCreator) registers 'CumMn': an engine holding this plugin cannot be deserialized (no creator of that name)", "CumPlugin")],
        },
        {
            # a plugin that names itself by a condition: every branch is one of its names, and a creator matching
            # none of them is a drift (a creator of the other branch's name agrees: see VALID)
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(plugin_name='mH2 ? "Foo_TRT2" : "Foo_TRt"',
                                                                creator_name='"Foo_TRT"').replace(
                "public:\n", "public:\n    bool mH2{false};\n", 1)},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 17, "plugin FooPlugin returns 'Foo_TRT2' or 'Foo_TRt' from getPluginName(), but its creator FooPluginCreator (which creates it in createPlugin) registers 'Foo_TRT'")],
        },
        {
            # zero-config: a misspelling of a project creator's name is itself evidence that the domain is a plugin
            # domain (else a typo in the only route of a domain would silence the route)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn"),
            },
            "expect": [("py/translate.py", 7, "names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'")],
            "fixed": {"py/translate.py": onnxscript_py("FooPlugin")},
        },
        {
            # the generic profile counts a domain as a plugin domain when a node in it names a project creator or
            # when the config names it (nothing else here names one)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugn"),
            },
            "config": {"onnx-plugin-domains": ["trt_edgellm"]},
            "expect": [("py/translate.py", 7, "names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'")],
            # the unsafe fix: the op renamed to the close registered name
            "fixed": {"py/translate.py": onnxscript_py("FooPlugin")},
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "builder/backend.py": (
                    "import tensorrt as trt\n"
                    "_OPERATION_CREATORS = {\n"
                    '    "foo": "FooPlugin",\n'
                    '    "bar": "BarPlugin",\n'
                    "}\n"
                    "def _creator(name):\n"
                    "    creator_name = _OPERATION_CREATORS.get(name, name)\n"
                    '    return trt.get_plugin_registry().get_creator(creator_name, "1", "")\n'
                ),
            },
            "expect": [("builder/backend.py", 4, "direct-route entry 'bar': 'BarPlugin' in _OPERATION_CREATORS names plugin 'BarPlugin'")],
        },
        {
            # an ONNX model node: located in the model file at graph/node (SARIF logical location)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", alpha=1.0), onnx_node("FooPlugn", "trt_plugins", alpha=1.0),
                    opsets=(("", 17), ("trt_plugins", 1)),
                ),
            },
            "expect": [("models/foo.onnx", 1, "ONNX node 'main_graph/FooPlugn_0' (trt_plugins::FooPlugn) names plugin 'FooPlugn', but no creator registers it; closest registered: 'FooPlugin'")],
        },
        {
            # with the plugin domains named, every unknown name emitted in them is reported, close to a registered
            # name or not (the zero-config leniency of the VALID example above does not apply)
            "files": {
                "csrc/backend_ops/tensorrt/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "mmx/ops/nms_match.py": (
                    "import torch\n"
                    "class NMSMatchOp(torch.autograd.Function):\n"
                    "    @staticmethod\n"
                    "    def symbolic(g, boxes, iou_threshold):\n"
                    '        return g.op("mmx::NMSMatch", boxes, iou_threshold)\n'
                ),
            },
            "config": {"onnx-plugin-domains": ["mmx"]},
            "expect": [("mmx/ops/nms_match.py", 5, "ONNX node 'mmx::NMSMatch' names plugin 'NMSMatch', but no creator registers it; 1 names are registered")],
        },
        {
            # an ONNX Runtime custom op in the tree does not hide a typo of a TensorRT creator's name next to it
            "files": _ort_project("MMXNonMaxSupression", "MMXSoftNonMaxSuppression"),
            "expect": [("mmx/ops/nms.py", 5, "ONNX node 'mmx::MMXNonMaxSupression' names plugin 'MMXNonMaxSupression', but no creator registers it; closest registered: 'MMXNonMaxSuppression'")],
            "fixed": {"mmx/ops/nms.py": symbolic_py("MMXNonMaxSuppression", "MMXSoftNonMaxSuppression")},
        },
        {
            # with the plugin domains named, the ONNX Runtime op's node is reported as any node with no near miss:
            # TensorRT does not run it; no closest name, no rename
            "files": _ort_project("MMXNonMaxSuppression", "MMXSoftNonMaxSuppression"),
            "config": {"onnx-plugin-domains": ["mmx"]},
            "expect": [("mmx/ops/nms.py", 10, "ONNX node 'mmx::MMXSoftNonMaxSuppression' names plugin 'MMXSoftNonMaxSuppression', but no creator registers it; 'MMXSoftNonMaxSuppression' is an ONNX Runtime custom op of the project (SoftNmsOp), which TensorRT does not run; 1 names are registered")],
        },
        {
            # C++ model code: a registry lookup (getPluginCreator / getCreator) is a route too
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "src/model.cpp": cpp_model("FooPlugn"),
            },
            "expect": [("src/model.cpp", 5, 'getCreator("FooPlugn", "1", "") names plugin \'FooPlugn\', but no creator registers it; closest registered: \'FooPlugin\'')],
            "fixed": {"src/model.cpp": cpp_model("FooPlugin")},
        },
    ]

    INVALID += [
        {
            # a node of ONNX's own domain whose op ONNX does not define is for TensorRT (no other runtime runs it):
            # as for a graph-surgery node, a close registered name (or one with something added) is evidence enough
            "files": {**_two_creators(), "py/functions.py": _default_domain_py("RotatePluginExtra")},
            "expect": [("py/functions.py", 9, "ONNX node 'RotatePluginExtra' names plugin 'RotatePluginExtra', but no creator registers it; closest registered: 'RotatePlugin'")],
            "fixed": {"py/functions.py": _default_domain_py("RotatePlugin")},
        },
        {
            # a creator written as a consistency checker (IPluginChecker derives IPluginCreator): its plugin's name
            # is compared with the one it registers, with or without TensorRT's NvInferConsistency.h at hand
            "files": {"plugins/dcn.cpp": _checker_pair("DcnDrift")},
            "expect": [("plugins/dcn.cpp", 8, "plugin DcnPlugin returns 'DcnDrift' from getPluginType(), but its creator DcnPluginChecker (which creates it in createPlugin) registers 'Dcn'")],
        },
        {
            # a plugin and its creator declared by one macro use, the creator finding its plugin at run time (a
            # table of layers): the macro use pairs them
            "files": macro_declared_pair("Gelux", "Gelu"),
            "expect": [("layers/gelu.cc", 9, "plugin GeluPluginLayer returns 'Gelux' from getPluginType(), but creator GeluPluginCreator, declared with it by the same macro use, registers 'Gelu'")],
        },
    ]
    VALID += [{"files": macro_declared_pair("Gelu", "Gelu")}]

    def check(self, index) -> Iterable[Diagnostic]:
        own = index.has_creators
        registered = set(index.registered_names()) | {sp.name for sp in getattr(index, "plugin_specs", ())}
        # with the plugin domains configured, every emission in them is meant for a creator; without, only a near
        # miss of a registered name is evidence of that (the domain counts only because some other node resolves)
        domains_named = bool(index.configured_plugin_domains())
        unanalysed = index.unanalysed_creator_names()  # creators TRT004 names: present, only not checked
        for r in requests(index, judged_once=True):
            if r.name in registered or r.name in unanalysed:
                continue
            # a node of an op the project implements for ONNX Runtime (Ort::CustomOpBase, GetName()) is that
            # runtime's op, not a misspelt creator name: judged as a node with no near miss, never renamed
            ort = index.ort_op(r.name) if r.kind in ("onnx", "model") else None
            ext = index.external_near_miss(r.name) if ort is None else None  # a misspelt or extended name of TensorRT's own plugins
            if not own and ext is None:
                continue  # without the project's creators only a near miss of TensorRT's plugin library is judged
            close = index.closest_names(r.name) if own and ort is None else []
            if r.kind == "onnx" and not domains_named and ext is None and (ort is not None or not index.near_miss(r.name)):
                # zero-config: a node that is no near miss of a project creator may be another backend's op; a
                # graph-surgery node is for TensorRT, and so is a node of an op ONNX does not define in ONNX's own
                # domain (no other runtime runs it: the frontend keeps only such ops there), so for those any close
                # registered name is evidence enough
                for_trt = r.form in SURGERY_FORMS or r.domain in ("", "ai.onnx")
                if ort is not None or not for_trt or not (close or _extends(r.name, registered)):
                    continue
            if ort is not None:
                yield self.diag(
                    r.span,
                    f"{r.what} names plugin '{r.name}', but no creator registers it; '{r.name}' is an ONNX Runtime "
                    f"custom op of the project ({ort.name}), which TensorRT does not run; {len(registered)} names are "
                    "registered (see `trtlint check --dump-index`)",
                    related=[Related(ort.name_span, f"{ort.name}::GetName() returns '{r.name}' (ONNX Runtime)")],
                    symbol=r.name,
                    logical=r.logical,
                )
                continue
            if close:
                hint = "closest registered: " + ", ".join(f"'{c}'" for c in close)
                if ext is not None and ext not in close:
                    hint += f"; in TensorRT's plugin library: '{ext}'"
            elif ext is not None:
                hint = f"closest in TensorRT's plugin library (libnvinfer_plugin): '{ext}'"
            else:
                hint = f"{len(registered)} names are registered (see `trtlint check --dump-index`)"
            yield self.diag(
                r.span,
                f"{r.what} names plugin '{r.name}', but no creator registers it; {hint}",
                related=creator_related(index, close),
                symbol=r.name,
                logical=r.logical,
                fix=_rename_fix(r, registered if close or ext is None else {ext}),
            )
        if own:
            yield from self.check_plugins(index)

    def check_plugins(self, index) -> Iterable[Diagnostic]:
        """A plugin and the creator that creates it return different names (TRT102 does the same for versions)."""
        for c, x in disagreeing_plugins(index, "plugin_name"):
            p = x.plugin
            method = "getPluginName" if index.find_method(p.qualname, "getPluginName") or not index.find_method(p.qualname, "getPluginType") else "getPluginType"
            # a createPlugin the creator inherits (a base creator's, the subclass registered): say whose it is
            owner = x.method.qualname.rsplit("::", 1)[0]
            base = index.classes.get(owner) if owner != c.qualname else None
            maker = base.name if base is not None else c.cls.name
            yield self.diag(
                p.name.def_span or p.name.span,
                f"plugin {p.cls.name} returns {_one_of(p)} from {method}(), but its creator {c.cls.name} "
                f"(which creates it in {x.method.name}{f', inherited from {maker}' if base is not None else ''}) "
                f"registers '{c.plugin_name}': an engine holding this plugin cannot be deserialized (no creator of that name)",
                related=[
                    Related(c.name_span, f"{c.cls.name}::getPluginName() returns '{c.plugin_name}'"),
                    Related(x.obj.span, f"{maker}::{x.method.name} creates {p.cls.name} here"),
                ],
                symbol=p.qualname,
            )
        for c, p in macro_paired(index, "plugin_name"):
            method = "getPluginName" if index.find_method(p.qualname, "getPluginName") or not index.find_method(p.qualname, "getPluginType") else "getPluginType"
            yield self.diag(
                p.name.def_span or p.name.span,
                f"plugin {p.cls.name} returns {_one_of(p)} from {method}(), but creator {c.cls.name}, declared with it "
                f"by the same macro use, registers '{c.plugin_name}': an engine holding this plugin cannot be "
                "deserialized (no creator of that name)",
                related=[
                    Related(c.name_span, f"{c.cls.name}::getPluginName() returns '{c.plugin_name}'"),
                    Related(p.cls.span, f"{p.cls.name} and {c.cls.name} are both declared by this macro use"),
                ],
                symbol=p.qualname,
            )


def _extends(name: str, registered) -> bool:
    """``name`` is a registered name (of 6 characters or more) with something added before or after it."""
    return any(len(n) >= 6 and n in name for n in registered)


def _rename_fix(r, registered) -> "Fix | None":
    """Unsafe: rename to the registered name, when exactly one is close (the engine may be built against a
    creator that is not in this tree, so a rename can change behaviour)."""
    from trtlint.base.fixes import UNSAFE, close_candidate, rename_edit

    new = close_candidate(r.name, registered)
    edit = rename_edit(r.name_span, r.name, new) if new else None
    if edit is None:
        return None
    return Fix(f"rename '{r.name}' to the registered '{new}'", (edit,), UNSAFE)
