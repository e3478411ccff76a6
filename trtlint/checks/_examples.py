"""Building blocks for the rules' VALID/INVALID example projects (data, not checks)."""

from __future__ import annotations


def creator_cpp(
    name: str = "FooPlugin",
    version: str = "1",
    fields: tuple[tuple[str, str], ...] = (("alpha", "kFLOAT32"),),
    cls: str = "FooPluginCreator",
    reads: tuple[str, ...] = (),
) -> str:
    """A minimal V3 creator with its name and version in anonymous-namespace constants."""
    decls = "\n".join(
        f'        mFields.emplace_back(PluginField("{f}", nullptr, PluginFieldType::{t}, 1));' for f, t in fields
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
