from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.plugin import plugin_class

_V2_BASES = "public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuildV2, public IPluginV3OneRuntime"
_ALIAS = """    int32_t getAliasedInput(int32_t outputIndex) noexcept{override}
    {{
        return outputIndex == 1 ? 0 : -1;
    }}"""
_BUILDER_CPP = """#include <NvInfer.h>
void enableAliasing(nvinfer1::IBuilderConfig* config)
{
    config->setPreviewFeature(nvinfer1::PreviewFeature::kALIASED_PLUGIN_IO_10_03, true);
}
"""
_BUILDER_PY = """import tensorrt as trt


def make_config(builder):
    config = builder.create_builder_config()
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    return config
"""


class AliasedOutputUngated(Rule):
    """A plugin output aliased to an input that TensorRT will not honour: no builder turns the feature on,
    or the plugin lacks the build interface that declares it.

    ## What it does
    For every `IPluginV3` plugin whose `getAliasedInput` can return an input index (anything but a constant
    `-1`), checks that
    * the plugin derives from `IPluginV3OneBuildV2` (the interface that declares `getAliasedInput`; on
      `IPluginV3OneBuild` the method is never called), and
    * the project turns the feature on for the builder: `setPreviewFeature(PreviewFeature::
      kALIASED_PLUGIN_IO_10_03, true)` in C++ or `set_preview_feature(trt.PreviewFeature.
      ALIASED_PLUGIN_IO_10_03, True)` in Python, anywhere in its sources.

    ## Why it matters
    TensorRT calls `getAliasedInput` only when the preview feature is on. Otherwise the output gets a buffer
    of its own, and a plugin that updates the input in place (a KV cache, a recurrent state) and leaves the
    output unwritten returns garbage: no error, only wrong results, and only with builders that forget the
    flag (trtexec without `--preview=+aliasedPluginIO1003`, another application).

    ## Example
    ```cpp
    int32_t FooPlugin::getAliasedInput(int32_t outputIndex) noexcept { return outputIndex == 1 ? 0 : -1; }
    ```
    with no `setPreviewFeature(PreviewFeature::kALIASED_PLUGIN_IO_10_03, true)` in the project.

    ## Fix
    Turn the preview feature on in every builder configuration that builds the plugin (and document it for
    users' builders), derive from `IPluginV3OneBuildV2`, and keep the output written correctly when aliasing
    is off, or return -1.
    """

    code = "TRT213"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "aliased-output-ungated"
    family = "plugin"
    severity = Severity.WARNING

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_class(_ALIAS.format(override=" override"), bases=_V2_BASES),
                   "builder/config.cpp": _BUILDER_CPP}},
        {"files": {"plugins/foo.cpp": plugin_class(_ALIAS.format(override=" override"), bases=_V2_BASES),
                   "python/build.py": _BUILDER_PY}},
        # the V2 build interface by its TensorRT 10 versioned name (v_2_0::IPluginV3OneBuild is IPluginV3OneBuildV2)
        {"files": {"plugins/foo.cpp": plugin_class(_ALIAS.format(override=" override"), bases=_V2_BASES.replace(
            "IPluginV3OneBuildV2", "v_2_0::IPluginV3OneBuild")), "python/build.py": _BUILDER_PY}},
        # no alias: a constant -1
        {"files": {"plugins/foo.cpp": plugin_class(
            "    int32_t getAliasedInput(int32_t outputIndex) noexcept override { return -1; }", bases=_V2_BASES)}},
    ]
    INVALID = [
        {
            "files": {"plugins/foo.cpp": plugin_class(_ALIAS.format(override=" override"), bases=_V2_BASES)},
            "expect": [("plugins/foo.cpp", 10, "FooPlugin::getAliasedInput aliases an output to an input (`outputIndex == 1 ? 0 : -1`), but nothing in the project turns on PreviewFeature::kALIASED_PLUGIN_IO_10_03")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_class(_ALIAS.format(override="")), "python/build.py": _BUILDER_PY},
            "expect": [("plugins/foo.cpp", 10, "FooPlugin::getAliasedInput aliases an output to an input, but FooPlugin derives from IPluginV3OneBuild, not IPluginV3OneBuildV2: TensorRT never calls it")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for info in index.plugins:
            c = info.cls
            if c.family != "v3":
                continue
            for md in index.method_details(c.qualname, "getAliasedInput"):
                rets = [r for r in md.returns if not r.in_catch]
                alias = next((r for r in rets if not (r.kind == "int" and r.value == "-1") and r.kind != "unknown"), None)
                if alias is None:
                    continue
                owner = md.qualname.split("::")[-2] if "::" in md.qualname else c.name
                rel = [Related(md.span, f"{owner}::getAliasedInput is defined here")]
                if "IPluginV3OneBuildV2" not in c.bases:
                    yield self.diag(
                        alias.span,
                        f"{owner}::getAliasedInput aliases an output to an input, but {c.name} derives from "
                        "IPluginV3OneBuild, not IPluginV3OneBuildV2: TensorRT never calls it",
                        related=rel, symbol=f"{c.qualname}:v2", severity=Severity.ERROR,
                    )
                    continue
                gates = [sp for feat, sp in index.preview_features() if feat == "ALIASED_PLUGIN_IO_10_03"]
                if gates:
                    continue
                yield self.diag(
                    alias.span,
                    f"{owner}::getAliasedInput aliases an output to an input (`{alias.expr}`), but nothing in the "
                    "project turns on PreviewFeature::kALIASED_PLUGIN_IO_10_03: builders without it ignore the "
                    "alias and give the output a buffer of its own",
                    related=rel, symbol=f"{c.qualname}:gate",
                )
