"""Example building blocks for the contract rules and those that need a creator and a route: a creator, an
onnxscript translation, a direct builder backend, a plugin and creator pair, the three sides of a default."""

from __future__ import annotations

from typing import Optional


def creator_cpp(
    name: str = "FooPlugin",
    version: str = "1",
    fields: tuple[tuple[str, Optional[str]], ...] = (("alpha", "kFLOAT32"),),
    cls: str = "FooPluginCreator",
    reads: tuple[str, ...] = (),
) -> str:
    """A minimal V3 creator with its name and version in anonymous-namespace constants; a field whose type is None
    is declared by its name only (``PluginField("alpha")``: TensorRT's defaults, no data, ``kUNKNOWN``)."""
    decls = "\n".join(
        f'        mFields.emplace_back(PluginField("{f}", nullptr, PluginFieldType::{t}, 1));' if t is not None else
        f'        mFields.emplace_back(PluginField("{f}"));' for f, t in fields
    )
    read_lines = "\n".join(
        f'            if (std::string("{r}") == fc->fields[i].name) {{ ++seen; }}' for r in reads
    )
    return f"""#include <NvInferRuntime.h>
#include <string>
#include <vector>
using namespace nvinfer1;
namespace
{{
constexpr char const* kNAME{{"{name}"}};
constexpr char const* kVERSION{{"{version}"}};
}} // namespace
class {cls} : public IPluginCreatorV3One
{{
public:
    {cls}()
    {{
{decls}
        mFC.nbFields = static_cast<int32_t>(mFields.size());
        mFC.fields = mFields.data();
    }}
    char const* getPluginName() const noexcept override {{ return kNAME; }}
    char const* getPluginVersion() const noexcept override {{ return kVERSION; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* n, PluginFieldCollection const* fc, TensorRTPhase p) noexcept override
    {{
        int32_t seen = 0;
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {{
{read_lines}
        }}
        return nullptr;
    }}

private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mFC{{}};
}};
REGISTER_TENSORRT_PLUGIN({cls});
"""


def onnxscript_py(op: str, attrs: str = "alpha=1.0", domain: str = "trt_edgellm") -> str:
    return f"""import onnxscript

_plugins = onnxscript.values.Opset("{domain}", 1)


def translate(x):
    return _plugins.{op}(x, {attrs})
"""


def backend_py(table: str = '{"foo": "FooPlugin"}') -> str:
    """A direct builder backend: an operation-to-creator table looked up with version "1", namespace ""."""
    return (
        "import tensorrt as trt\n"
        f"_OPERATION_CREATORS = {table}\n"
        "def _creator(name):\n"
        "    creator_name = _OPERATION_CREATORS.get(name, name)\n"
        '    return trt.get_plugin_registry().get_creator(creator_name, "1", "")\n'
    )


def pair_cpp(
    plugin_name: str = "kNAME",
    plugin_version: str = "kVERSION",
    creator_name: str = "kNAME",
    creator_version: str = "kVERSION",
    creator_namespace: str = "mNamespace.c_str()",
    set_namespace: bool = True,
    register: str = "macro",
    fields: tuple[tuple[str, str], ...] = (("alpha", "kFLOAT32"),),
    plugin: str = "FooPlugin",
    creator: str = "FooPluginCreator",
    name: str = "FooPlugin",
    version: str = "1",
    create: str = "",
) -> str:
    """Example building blocks: a V3 plugin and its creator in one file (data for VALID/INVALID examples).
    
    Line numbers are fixed so examples can name them: the plugin's getPluginName is line 16, getPluginVersion
    line 17, getPluginNamespace line 18; the creator class starts on line 25, its getPluginName is line 28,
    getPluginVersion line 29, getPluginNamespace line 30, createPlugin line 33, the ``new`` line 36, the
    registration (when ``register``) line 47.
    """
    decl = " ".join(f'mFields.emplace_back(PluginField("{f}", nullptr, PluginFieldType::{t}, 1));' for f, t in fields)
    ns_line = "        plugin->setPluginNamespace(mNamespace.c_str());" if set_namespace else "        // namespace not set"
    reg = f"REGISTER_TENSORRT_PLUGIN({creator});" if register == "macro" else "// not registered here"
    create = create or "        float alpha = 0.5F;"
    return f"""#include <NvInferRuntime.h>
#include <string>
#include <vector>
using namespace nvinfer1;
namespace
{{
constexpr char const* kNAME{{"{name}"}};
constexpr char const* kVERSION{{"{version}"}};
}} // namespace
class {plugin} : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    {plugin}(std::string const& name, float alpha)
        : mAlpha(alpha)
    {{}}
    char const* getPluginName() const noexcept override {{ return {plugin_name}; }}
    char const* getPluginVersion() const noexcept override {{ return {plugin_version}; }}
    char const* getPluginNamespace() const noexcept override {{ return mNamespace.c_str(); }}
    void setPluginNamespace(char const* ns) noexcept {{ mNamespace = ns; }}

private:
    float mAlpha{{0.5F}};
    std::string mNamespace;
}};
class {creator} : public IPluginCreatorV3One
{{
public:
    char const* getPluginName() const noexcept override {{ return {creator_name}; }}
    char const* getPluginVersion() const noexcept override {{ return {creator_version}; }}
    char const* getPluginNamespace() const noexcept override {{ return {creator_namespace}; }}
    {creator}() {{ {decl} mFC.nbFields = static_cast<int32_t>(mFields.size()); mFC.fields = mFields.data(); }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
{create}
        auto* plugin = new {plugin}(std::string(name), alpha);
{ns_line}
        return plugin;
    }}
    void setPluginNamespace(char const* ns) noexcept {{ mNamespace = ns; }}

private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mFC{{}};
    std::string mNamespace;
}};
{reg}
"""


_DRIFT_STUB = '''import torch


@torch.library.custom_op("trt_edgellm::foo", mutates_args=())
def foo(x: torch.Tensor, {name}: {py} = {stub}) -> torch.Tensor:
    return x.clone()
'''

_DRIFT_TRANSLATION = '''import onnxscript
import torch
from onnxscript import script

_trt_edgellm = onnxscript.values.Opset("trt_edgellm", 1)


@script()
def _foo_translation(x: onnxscript.FLOAT16, {name}: {py} = {tr}) -> onnxscript.FLOAT16:
    return _trt_edgellm.FooPlugin(x, {name}={name})


def build_custom_translation_table() -> dict:
    return {{
        torch.ops.trt_edgellm.foo.default: _foo_translation,
    }}
'''

_DRIFT_CREATOR = '''#include <NvInferRuntime.h>
#include <optional>
#include <string>
#include <vector>
using namespace nvinfer1;
template <typename T>
std::optional<T> parseField(char const* name, PluginFieldCollection const* fc);
class FooPluginCreator : public IPluginCreatorV3One
{{
public:
    FooPluginCreator()
    {{
        mFields.emplace_back(PluginField("{name}", nullptr, PluginFieldType::{ftype}, 1));
        mFC.nbFields = 1;
        mFC.fields = mFields.data();
    }}
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
        {ctype} const {name} = parseField<{ctype}>("{name}", fc).value_or({cpp});
        return nullptr;
    }}

private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mFC{{}};
}};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
'''


def default_drift_files(stub: str, tr: str, cpp: str, name: str = "alpha", py: str = "float", ctype: str = "float",
           ftype: str = "kFLOAT32") -> dict:
    """The stub's, the translation's and the creator's default (as written) of one attribute ``name``."""
    return {
        "tensorrt_edgellm/models/ops.py": _DRIFT_STUB.format(stub=stub, name=name, py=py),
        "tensorrt_edgellm/onnx/translations.py": _DRIFT_TRANSLATION.format(tr=tr, name=name, py=py),
        "cpp/plugins/foo/fooPlugin.cpp": _DRIFT_CREATOR.format(cpp=cpp, name=name, ctype=ctype, ftype=ftype),
    }


def default_drift_bool_files(stub: str, tr: str, cpp: str) -> dict:
    """A flag: a Python bool, a kINT32 field in C++ (TensorRT has no bool field type)."""
    return default_drift_files(stub, tr, cpp, name="causal", py="bool", ctype="int32_t", ftype="kINT32")


def cpp_model(name: str = "FooPlugin", field: str = "alpha", ftype: str = "kFLOAT32") -> str:
    """C++ model code (the way networks built with the C++ API use a plugin): the registry lookup and the
    ``PluginField``s handed to ``createPlugin``."""
    return f"""#include <NvInferRuntime.h>
using namespace nvinfer1;
IPluginV3* makeFoo(float alpha)
{{
    auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("{name}", "1"));
    PluginField pf("{field}", &alpha, PluginFieldType::{ftype}, 1);
    PluginFieldCollection pfc;
    pfc.nbFields = 1;
    pfc.fields = &pf;
    return creator->createPlugin("foo", &pfc, TensorRTPhase::kBUILD);
}}
"""


def multi_backend_py(trt_op: str = "FooPlugin") -> str:
    """A multi-backend exporter (mmdeploy-shaped): symbolic functions registered per backend with a decorator's
    ``backend=`` argument, all emitting in one custom domain; only the TensorRT one is a route to a plugin."""
    return f"""from torch.onnx import symbolic_helper
from mmx.core import SYMBOLIC_REWRITER
from mmx.utils import Backend


@SYMBOLIC_REWRITER.register_symbolic("foo", backend="tensorrt")
def foo__tensorrt(g, x):
    return g.op("mmx::{trt_op}", x, alpha_f=1.0)


@SYMBOLIC_REWRITER.register_symbolic("adaptive_avg_pool2d", backend="ncnn")
def adaptive_avg_pool2d__ncnn(g, x, output_size):
    return g.op("mmx::AdaptiveAvgPool2d", x, output_size)


@symbolic_helper.parse_args("v")
def _gelu_ncnn(g, x):
    return g.op("mmx::Gelu", x)


@SYMBOLIC_REWRITER.register_symbolic("gelu", backend=Backend.NCNN.value)
def gelu__ncnn(g, x, approximate="none"):
    return _gelu_ncnn(g, x)


def lstm(g, x):
    return g.op("ncnn::LSTM", x, outputs=3, hidden_size_i=8)
"""


def py_create_plugin(name: str = "FooPlugin", fields: tuple[str, ...] = ("alpha",), scan: bool = False) -> str:
    """Python model code creating a plugin through the TensorRT API: a registry lookup (or a scan of
    ``plugin_creator_list``), ``trt.PluginField``s in a list, ``create_plugin`` with their collection."""
    made = "\n".join(
        f'    f{i} = trt.PluginField("{f}", np.array([1.0], dtype=np.float32), trt.PluginFieldType.FLOAT32)'
        for i, f in enumerate(fields)
    )
    coll = ", ".join(f"f{i}" for i in range(len(fields)))
    lookup = (
        f'    for c in trt.get_plugin_registry().plugin_creator_list:\n        if c.name == "{name}":\n            creator = c\n'
        if scan
        else f'    creator = trt.get_plugin_registry().get_plugin_creator("{name}", "1", "")\n'
    )
    return (
        "import numpy as np\nimport tensorrt as trt\n\n\ndef add_foo(network, x):\n"
        + lookup
        + made
        + f'\n    plugin = creator.create_plugin("foo", trt.PluginFieldCollection([{coll}]))\n'
        "    return network.add_plugin_v2([x], plugin)\n"
    )


def gs_surgery_py(op: str = "FooPlugin", attrs: str = '{"alpha": 1.0}', helper: bool = False,
                  via_param: bool = False) -> str:
    """onnx-graphsurgeon code inserting a plugin node: ``gs.Node(op, name, attrs=...)`` (standard ops around it),
    or a ``@gs.Graph.register()`` helper calling ``self.layer(op=..., attrs=...)``; ``via_param``: a registered
    helper taking the op and the attributes as parameters, called with them (line 10)."""
    if via_param:
        return (
            "import onnx_graphsurgeon as gs\n\n\n@gs.Graph.register()\ndef trt_plugin(self, op, inputs, outputs, attrs):\n"
            "    return self.layer(op=op, inputs=inputs, outputs=outputs, attrs=attrs)\n\n\n"
            "def insert(graph, x, y):\n"
            f'    graph.trt_plugin("{op}", [x], [y], {attrs})\n'
        )
    if helper:
        return (
            "import onnx_graphsurgeon as gs\n\n\n@gs.Graph.register()\ndef foo(self, x, y):\n"
            f'    return self.layer(op="{op}", attrs={attrs}, inputs=[x], outputs=[y])\n'
        )
    return (
        "import onnx_graphsurgeon as gs\n\n\ndef insert(graph, x, y, z):\n"
        '    graph.nodes.append(gs.Node(op="Relu", inputs=[x], outputs=[y]))\n'
        f'    graph.nodes.append(gs.Node("{op}", "foo_0", attrs={attrs}, inputs=[y], outputs=[z]))\n'
    )


def py_lookup(name: str = "FooPlugin", fields: tuple[tuple[str, str], ...] = (("alpha", "FLOAT32"),),
              keyword: bool = False) -> str:
    """Python model code: ``get_creator(name, "1", "")``, then one ``trt.PluginField(f, data, trt.PluginFieldType.T)``
    per field (``type=...`` when ``keyword``; fields from line 8 on, one a line) handed to ``create_plugin``."""
    made = "\n".join(
        f'        trt.PluginField("{f}", np.array([1], np.int32), {"type=" if keyword else ""}trt.PluginFieldType.{t}),'
        for f, t in fields
    )
    return (
        "import numpy as np\nimport tensorrt as trt\n\n\ndef make_foo():\n"
        f'    creator = trt.get_plugin_registry().get_creator("{name}", "1", "")\n'
        f"    fields = [\n{made}\n    ]\n"
        '    return creator.create_plugin("foo", trt.PluginFieldCollection(fields))\n'
    )


def py_lookup_v3(name: str = "FooPlugin", field: str = "axis", ftype: str = "INT32") -> str:
    """Python model or test code creating a V3 plugin: ``get_creator(name, "1", "")`` held in a variable, one
    ``trt.PluginField(field, data, type=trt.PluginFieldType.<ftype>)`` held in a variable (line 9), its
    ``PluginFieldCollection`` in another, and ``create_plugin(name=..., field_collection=..., phase=...)``."""
    return (
        "import numpy as np\nimport tensorrt as trt\n\n\ndef build_foo(value):\n"
        "    registry = trt.get_plugin_registry()\n"
        f'    foo_creator = registry.get_creator("{name}", "1", "")\n'
        "    value_data = np.array([value])\n"
        f'    value_field = trt.PluginField("{field}", value_data, type=trt.PluginFieldType.{ftype})\n'
        "    collection = trt.PluginFieldCollection([value_field])\n"
        "    return foo_creator.create_plugin(\n"
        '        name="foo_0", field_collection=collection, phase=trt.TensorRTPhase.BUILD\n'
        "    )\n"
    )


def gs_var_py(op: str = "FooPlugin", value: str = "(1, 1, 1, 1)", extra: str = "") -> str:
    """onnx-graphsurgeon code whose attribute ``pads`` is a local variable bound to ``value`` (line 5; ``extra``:
    statements after it, one a line) and passed as ``attrs={"pads": pads}`` (the dict on the ``gs.Node`` line,
    line 6 plus the lines of ``extra``)."""
    more = "".join(f"    {x}\n" for x in extra.split("\n") if x) if extra else ""
    return (
        "import onnx_graphsurgeon as gs\n\n\ndef insert(graph, x, y):\n"
        f"    pads = {value}\n{more}"
        f'    graph.nodes.append(gs.Node("{op}", "foo_0", attrs={{"pads": pads}}, inputs=[x], outputs=[y]))\n'
    )


def py_script(op: str = "FooPlugin", ftype: str = "INT32") -> str:
    """A self-contained Python script: its own creator class of ``op`` declaring ``pads`` as ``ftype`` (line 11), and
    an onnx-graphsurgeon node asking for ``op`` with ``pads`` a tuple of ints (line 17)."""
    return (
        "import numpy as np\nimport onnx_graphsurgeon as gs\nimport tensorrt as trt\n\n\n"
        "class FooCreator(trt.IPluginCreatorV3One):\n    def __init__(self):\n        super().__init__()\n"
        f'        self.name = "{op}"\n'
        "        self.field_names = trt.PluginFieldCollection(\n"
        f'            [trt.PluginField("pads", np.array([]), trt.PluginFieldType.{ftype})]\n'
        "        )\n\n\n"
        "def insert(graph, x, y):\n    pads = (1, 1)\n"
        f'    graph.nodes.append(gs.Node("{op}", "foo_0", attrs={{"pads": pads}}, inputs=[x], outputs=[y]))\n'
    )


def py_loader_class(name: str = "FooPlugin", fields: tuple[str, ...] = ("alpha",)) -> str:
    """Python model code as a loader class: the creator looked up once and kept on ``self``, the field collection
    built and returned by a method of its own, the plugin created in a third method."""
    made = "\n".join(
        f'        f{i} = trt.PluginField("{f}", np.array([1.0], dtype=np.float32), trt.PluginFieldType.FLOAT32)'
        for i, f in enumerate(fields)
    )
    coll = ", ".join(f"f{i}" for i in range(len(fields)))
    return (
        "import numpy as np\nimport tensorrt as trt\n\n\nclass FooLoader:\n    def __init__(self):\n"
        f'        self.creator = trt.get_plugin_registry().get_plugin_creator("{name}", "1", "")\n\n'
        "    def build_fields(self, weights):\n"
        + made
        + "\n        extra = [trt.PluginField(k, weights[k], trt.PluginFieldType.FLOAT32) for k in weights]\n"
        f"        return trt.PluginFieldCollection([{coll}] + extra)\n\n"
        "    def add(self, network, x, weights):\n"
        "        fc = self.build_fields(weights)\n"
        '        plugin = self.creator.create_plugin("foo", fc)\n'
        "        return network.add_plugin_v2([x], plugin)\n"
    )


def gop_fstring_py(op: str = "FooPlugin", attrs: str = "alpha_f=1.0") -> str:
    """A torch.onnx symbolic emitting a plugin node whose op is an f-string over a local domain name."""
    return (
        "def symbolic(g, x):\n"
        '    domain = "trt_plugins"\n'
        f'    return g.op(f"{{domain}}::{op}", x, {attrs})\n'
    )


def py_dict_helper(name: str = "FooPlugin", field: str = "alpha") -> dict:
    """A plugin helper in a package of the project (re-exported by the package's ``__init__``: ``from .plugins
    import *``) that looks the creator up by the entries of a dict parameter and makes a ``PluginField`` per key of
    its ``argument_dict`` entry, and a sample importing it that describes its plugin by such a dict (line 6)."""
    helper = (
        "import tensorrt as trt\n\n\ndef get_plugin(info: dict):\n"
        '    creator = trt.get_plugin_registry().get_creator(info["name"], info.get("version", "1"), info["namespace"])\n'
        "    field_list = []\n"
        '    for key, value in info["argument_dict"].items():\n'
        "        field_list.append(trt.PluginField(key, value, trt.PluginFieldType.FLOAT32))\n"
        '    return creator.create_plugin(info["name"], trt.PluginFieldCollection(field_list))\n'
    )
    main = (
        "import numpy as np\nfrom mypkg import get_plugin\n\n\ndef build(network, x):\n"
        f'    infos = {{"Layer": dict(name="{name}", version="1", namespace="", argument_dict=dict({field}=np.array([1.0])))}}\n'
        '    return network.add_plugin_v3([x], [], get_plugin(infos["Layer"]))\n'
    )
    return {"mypkg/__init__.py": "from .plugins import *\n", "mypkg/plugins.py": helper, "samples/foo/main.py": main}


def ort_op_h(op: str = "FooSoftNms", cls: str = "FooSoftNmsOp") -> str:
    """An ONNX Runtime custom op (open-mmlab/mmcv-shaped): a class deriving ``Ort::CustomOpBase<Self, Kernel>``
    whose ``GetName()`` returns the op type; ONNX Runtime's header is not in the tree."""
    return f"""#include <onnxruntime_cxx_api.h>
struct {cls}Kernel
{{
    {cls}Kernel(OrtApi api, const OrtKernelInfo* info);
    void Compute(OrtKernelContext* context);
}};
struct {cls} : Ort::CustomOpBase<{cls}, {cls}Kernel>
{{
    void* CreateKernel(OrtApi api, const OrtKernelInfo* info) const {{ return new {cls}Kernel(api, info); }}
    const char* GetName() const {{ return "{op}"; }}
    size_t GetInputTypeCount() const {{ return 2; }}
}};
"""


def symbolic_py(*ops: str, domain: str = "mmx") -> str:
    """Autograd functions whose ``symbolic()`` emits one op each in ``domain`` (no backend named). The op of the
    i-th is emitted on line 5 + 5 * i."""
    out = ["import torch"]
    for i, op in enumerate(ops):
        out += [f"class Op{i}(torch.autograd.Function):", "    @staticmethod", "    def symbolic(g, boxes, scores):",
                f'        return g.op("{domain}::{op}", boxes, scores, iou_threshold_f=0.5)']
        if i < len(ops) - 1:
            out.append("")
    return "\n".join(out) + "\n"


def py_param_helper(name: str = "FooPlugin", field: str = "alpha", how: str = "star") -> dict:
    """A plugin helper in a module of the project that looks the creator up by its parameters and hands
    ``create_plugin`` the collection it is given, and a converter module of the same package calling it with a
    plugin's name, a collection of fields (the field named at line 7) and a version. ``how``: the converter's import of the helper
    ("star": ``from .utils import *``; "from": ``from .utils import get_trt_plugin``; "module": ``import
    mypkg.utils as u``)."""
    helper = (
        "import tensorrt as trt\n\n\n"
        'def get_trt_plugin(plugin_name, field_collection, version, plugin_namespace=""):\n'
        "    creator = trt.get_plugin_registry().get_plugin_creator(plugin_name, version, plugin_namespace)\n"
        "    return creator.create_plugin(name=plugin_name, field_collection=field_collection)\n"
    )
    imp, call = {"star": ("from .utils import *", "get_trt_plugin"),
                 "from": ("from .utils import get_trt_plugin", "get_trt_plugin"),
                 "module": ("import mypkg.utils as u", "u.get_trt_plugin")}[how]
    conv = (
        f"import numpy as np\nimport tensorrt as trt\n{imp}\n\n\ndef convert(network, x, eps):\n"
        f'    f = trt.PluginField("{field}", np.array([eps], np.float32), trt.PluginFieldType.FLOAT32)\n'
        "    fc = trt.PluginFieldCollection([f])\n"
        f'    plugin = {call}("{name}", fc, "1")\n'
        "    return network.add_plugin_v2([x], plugin)\n"
    )
    return {"mypkg/__init__.py": "", "mypkg/utils.py": helper, "mypkg/converters.py": conv}


def common_creator_cpp(base: tuple[str, ...] = ("alpha",), derived: tuple[str, ...] = ("beta",),
                       derived_clears: bool = False, middle: Optional[tuple[str, ...]] = None,
                       middle_clears: bool = False) -> str:
    """A creator deriving a project's common creator whose constructor fills the list member ``mPluginAttributes``
    it declares (after emptying it), the derived constructor appending its own fields (after emptying the list too
    when ``derived_clears``); with ``middle``, a creator between the two that appends those fields (after emptying
    the list when ``middle_clears``)."""
    def adds(fields: tuple[str, ...], clear: bool) -> str:
        lines = ["        mPluginAttributes.clear();"] if clear else []
        lines += [f'        mPluginAttributes.emplace_back(PluginField("{f}", nullptr, PluginFieldType::kINT32, 1));'
                  for f in fields]
        return "\n".join(lines + ["        mFC.nbFields = mPluginAttributes.size();",
                                  "        mFC.fields = mPluginAttributes.data();"])

    parent = "FooCreatorCommon"
    mid = ""
    if middle is not None:
        mid = (f"class FooCreatorMid : public FooCreatorCommon\n{{\npublic:\n    FooCreatorMid()\n    {{\n"
               f"{adds(middle, middle_clears)}\n    }}\n}};\n")
        parent = "FooCreatorMid"
    return f"""#include <NvInferRuntime.h>
#include <vector>
using namespace nvinfer1;
class FooCreatorCommon : public IPluginCreator
{{
public:
    FooCreatorCommon()
    {{
{adds(base, True)}
    }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}

protected:
    std::vector<PluginField> mPluginAttributes;
    PluginFieldCollection mFC{{}};
}};
{mid}class FooPluginCreator : public {parent}
{{
public:
    FooPluginCreator()
    {{
{adds(derived, derived_clears)}
    }}
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    IPluginV2* createPlugin(char const* name, PluginFieldCollection const* fc) noexcept override {{ return nullptr; }}
}};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
"""


def xmacro_plugins(plugin_name: str = "AP_STR(AP_NAME)", names: tuple[str, ...] = ("Scale", "Shift"),
                   one_unit: bool = False, make_unique: bool = True) -> dict:
    """An X-macro plugin header (``include/auto_plugin.h``: the plugin class, its creator and the registration, each
    class named by a macro of ``AP_NAME``) and the units that build one plugin each from it (``plugins/<name>.cpp``:
    ``#define AP_NAME <Name>``, the include, the plugin's ``enqueue``), or with ``one_unit`` one unit building every
    plugin (``plugins/all.cpp``: the header included once per name). The plugin's ``getPluginType`` returns
    ``plugin_name`` (line 20); the creator's ``getPluginName`` returns ``AP_STR(AP_NAME)`` (line 27); ``createPlugin``'s
    ``new`` is line 31, ``deserializePlugin``'s ``make_unique`` (without ``make_unique``: ``new``) line 35."""
    made = "std::make_unique<AP_PLUGIN>(data, length).release()" if make_unique else "new AP_PLUGIN(data, length)"
    header = f"""// an X-macro header: included once per plugin, after AP_NAME is defined
#include <NvInferRuntime.h>
#include <memory>
#define AP_CAT_(a, b) a##b
#define AP_CAT(a, b) AP_CAT_(a, b)
#define AP_STR_(a) #a
#define AP_STR(a) AP_STR_(a)
#define AP_PLUGIN AP_CAT(AP_NAME, Plugin)
#define AP_CREATOR AP_CAT(AP_NAME, PluginCreator)
namespace demo
{{
class AP_PLUGIN : public nvinfer1::IPluginV2DynamicExt
{{
public:
    AP_PLUGIN() = default;
    AP_PLUGIN(void const* data, size_t length) {{}}
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    char const* getPluginType() const noexcept override {{ return {plugin_name}; }}
    int32_t getNbOutputs() const noexcept override {{ return 1; }}
}};
class AP_CREATOR : public nvinfer1::IPluginCreator
{{
public:
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    char const* getPluginName() const noexcept override {{ return AP_STR(AP_NAME); }}
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {{
        // the class is the one AP_NAME names in this unit
        return new AP_PLUGIN();
    }}
    nvinfer1::IPluginV2* deserializePlugin(char const* name, void const* data, size_t length) noexcept override
    {{
        return {made};
    }}
}};
REGISTER_TENSORRT_PLUGIN(AP_CREATOR);
}} // namespace demo
"""

    def enqueue(n: str) -> str:
        return (f"int32_t demo::{n}Plugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc,\n"
                "    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,\n"
                "    void* workspace, cudaStream_t stream) noexcept\n{\n    return 0;\n}\n")

    files = {"include/auto_plugin.h": header}
    if one_unit:
        files["plugins/all.cpp"] = "".join(f'#undef AP_NAME\n#define AP_NAME {n}\n#include "../include/auto_plugin.h"\n'
                                           for n in names) + "".join(enqueue(n) for n in names)
    else:
        for n in names:
            files[f"plugins/{n.lower()}.cpp"] = f'#define AP_NAME {n}\n#include "../include/auto_plugin.h"\n' + enqueue(n)
    return files


_MACRO_BASE = """#pragma once
#include <NvInferRuntime.h>
#include <map>
#include <string>
using namespace nvinfer1;
class PluginLayer : public IPluginV2DynamicExt
{
public:
    char const* getPluginVersion() const noexcept override { return "1"; }
    IPluginV2DynamicExt* clone() const noexcept override { return nullptr; }
};
std::map<std::string, PluginLayer*>& layerTable();
#define DECLARE_PLUGIN_LAYER(type_string)                                                   \\
    class type_string##PluginLayer : public PluginLayer                                     \\
    {                                                                                       \\
    public:                                                                                 \\
        char const* getPluginType() const noexcept override;                                \\
    };                                                                                      \\
    class type_string##PluginCreator : public IPluginCreator                                \\
    {                                                                                       \\
    public:                                                                                 \\
        char const* getPluginName() const noexcept override;                                \\
        char const* getPluginVersion() const noexcept override { return "%s"; }             \\
        IPluginV2* createPlugin(char const* name, PluginFieldCollection const*) noexcept override \\
        {                                                                                   \\
            return layerTable()[name]->clone();                                             \\
        }                                                                                   \\
    };                                                                                      \\
    REGISTER_TENSORRT_PLUGIN(type_string##PluginCreator);
"""

_MACRO_USE = """#include "layer_builder.h"

// the layer's plugin and its creator, both declared by the macro

DECLARE_PLUGIN_LAYER(Gelu);

char const* GeluPluginLayer::getPluginType() const noexcept
{
    return "%s";
}

char const* GeluPluginCreator::getPluginName() const noexcept
{
    return "%s";
}
"""


def macro_declared_pair(plugin_name: str, creator_name: str, creator_version: str = "1") -> dict:
    """A plugin class and its creator declared by one use of a project macro pasting the layer's name into both
    (TNN's DECLARE_TENSORRT_PLUGIN_LAYER_BUILDER), the creator finding its plugin through a run-time table; the
    plugin returns ``plugin_name`` (version "1"), the creator ``creator_name`` and ``creator_version``."""
    return {"layers/layer_builder.h": _MACRO_BASE % creator_version,
            "layers/gelu.cc": _MACRO_USE % (plugin_name, creator_name)}
