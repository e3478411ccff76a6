from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..contract._creators import created_plugins, creator_defaults

_PLUGIN = '''#include <NvInferRuntime.h>
#include <optional>
#include <string>
#include <vector>
using namespace nvinfer1;
template <typename T>
std::optional<T> parseField(char const* name, PluginFieldCollection const* fc);
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    FooPlugin(float alpha, int32_t heads) : mAlpha(alpha), mHeads(heads) {{}}
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {{
        mData.clear();
        mData.emplace_back("alpha", &mAlpha, PluginFieldType::kFLOAT32, 1);
        mData.emplace_back("num_heads", &mHeads, PluginFieldType::kINT32, 1);
        mFC.nbFields = 2;
        mFC.fields = mData.data();
        return &mFC;
    }}

private:
    float mAlpha;
    int32_t mHeads;
    std::vector<PluginField> mData;
    PluginFieldCollection mFC{{}};
}};
class FooPluginCreator : public IPluginCreatorV3One
{{
public:
    char const* getPluginName() const noexcept override {{ return "FooPlugin"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {{
{body}
    }}
}};
REGISTER_TENSORRT_PLUGIN(FooPluginCreator);
'''


class CreatorAcceptsMissingFields(Rule):
    """A runtime-phase creator that silently falls back to defaults for fields its plugin serializes.

    ## What it does
    For a V3 creator, takes the fields the plugin it creates writes in `getFieldsToSerialize()`: at
    `TensorRTPhase::kRUNTIME` these are exactly what `createPlugin` receives back from the engine, so every
    one of them is required there. Reports the creator when it reads any of them with a silent fallback
    (`parse("f", fc).value_or(d)`, a local or member initializer that stays when the field is absent),
    naming each field and its fallback. A fallback is not silent, and not reported, when the field is
    required by name in the creating method (`validateRequiredAttributesExist({"a", "b"}, fc)` or another
    validating call) or its stored value is validated in the file (a `CHECK`/`ASSERT`/`VALIDATE` naming
    it, or an `if` on it that throws, logs an error or returns a failure). One finding per creating method.

    ## Why it matters
    A field missing at runtime means a renamed serialized field, an engine from an older plugin version or
    a corrupt blob. A creator that quietly substitutes a default turns that into a plugin that runs with
    other parameters than it was built with: wrong results instead of an error at deserialization.

    ## Example
    ```cpp
    // getFieldsToSerialize writes "num_heads"; at kRUNTIME a missing one becomes 0 heads
    int32_t const heads = parseField<int32_t>("num_heads", fc).value_or(0);
    ```

    ## Fix
    In the runtime phase, require every serialized field (`PLUGIN_VALIDATE(heads.has_value())`, or return
    nullptr with an error); keep defaults for the build phase only.
    """

    code = "TRT214"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "creator-accepts-missing-fields"
    family = "plugin"
    severity = Severity.WARNING
    default = False
    opt_in_why = "hygiene: TensorRT hands createPlugin exactly what getFieldsToSerialize wrote, so a default for a serialized field is not exercised; the triaged findings were deliberate back-compat defaults"

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": _PLUGIN.format(body=(
                    '        auto alpha = parseField<float>("alpha", fc);\n'
                    '        auto heads = parseField<int32_t>("num_heads", fc);\n'
                    "        if (!alpha || !heads) { return nullptr; }\n"
                    "        return new FooPlugin(*alpha, *heads);"
                ))
            }
        },
        {
            # the sentinel default is validated: a missing field fails loudly
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": _PLUGIN.format(body=(
                    '        float const alpha = parseField<float>("alpha", fc).value_or(-1.F);\n'
                    '        int32_t const heads = parseField<int32_t>("num_heads", fc).value_or(0);\n'
                    "        PLUGIN_VALIDATE(alpha >= 0.F && heads > 0);\n"
                    "        return new FooPlugin(alpha, heads);"
                ))
            }
        },
        {
            # the runtime phase requires the fields by name (TensorRT OSS validateRequiredAttributesExist)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": _PLUGIN.format(body=(
                    '        validateRequiredAttributesExist({"alpha", "num_heads"}, fc);\n'
                    '        float const alpha = parseField<float>("alpha", fc).value_or(1.F);\n'
                    '        int32_t const heads = parseField<int32_t>("num_heads", fc).value_or(0);\n'
                    "        return new FooPlugin(alpha, heads);"
                ))
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": _PLUGIN.format(body=(
                    '        float const alpha = parseField<float>("alpha", fc).value_or(1.F);\n'
                    '        int32_t const heads = parseField<int32_t>("num_heads", fc).value_or(0);\n'
                    "        return new FooPlugin(alpha, heads);"
                ))
            },
            "expect": [
                ("cpp/plugins/foo/fooPlugin.cpp", 34, "FooPluginCreator::createPlugin silently falls back to defaults for fields FooPlugin serializes (so they are required at runtime): alpha -> 1.F, num_heads -> 0"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for c in index.creators:
            if c.cls.family != "creator_v3":
                continue
            defaults = creator_defaults(index, c)
            if not defaults:
                continue
            done = set()
            for x in created_plugins(index, c):
                p = x.plugin
                key = (x.method.usr, p.qualname)
                if key in done or not p.serialized:
                    continue
                done.add(key)
                hits = [(f.name, defaults[f.name]) for f in p.serialized if f.name in defaults and not defaults[f.name].checked]
                if not hits:
                    continue
                yield self.diag(
                    x.method.span if x.method.span.line == x.method.span.end_line else _head(x.method.span),
                    f"{c.cls.name}::{x.method.name} silently falls back to defaults for fields {p.cls.name} serializes "
                    f"(so they are required at runtime): " + ", ".join(f"{n} -> {d.default}" for n, d in hits),
                    related=[Related(d.span, f"'{n}' falls back to {d.default} here ({d.how})") for n, d in hits[:8]]
                    + [Related(p.serialized[0].span, f"{p.cls.name}::getFieldsToSerialize writes its fields here")],
                    symbol=f"{c.qualname}.{x.method.name}",
                )


def _head(span):
    from trtlint.base.facts import Span

    return Span(span.path, span.line, span.col, span.line, span.col)
