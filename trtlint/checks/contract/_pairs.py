"""Example building blocks: a V3 plugin and its creator in one file (data for VALID/INVALID examples).

Line numbers are fixed so examples can name them: the plugin's getPluginName is line 16, getPluginVersion
line 17, getPluginNamespace line 18; the creator class starts on line 25, its getPluginName is line 28,
getPluginVersion line 29, getPluginNamespace line 30, createPlugin line 33, the ``new`` line 36, the
registration (when ``register``) line 47.
"""

from __future__ import annotations


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
