from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Fix, Related
from ..base import Rule
from ..examples.contract import creator_cpp, gs_surgery_py, macro_declared_pair, onnxscript_py, py_create_plugin
from ..examples.onnx import onnx_model, onnx_node
from ..examples.contract import pair_cpp
from ._creators import disagreeing_plugins, macro_paired
from ._routes import all_requests, nearest, requests



def _template_creators(v2: str = '"2"') -> str:
    """A plugin and its version 2 (a subclass), each made by its creator through one creator template
    ``make<PluginType>`` defined out of the class (TensorRT OSS's ``createPluginBase<T>``). FooPluginV2's
    getPluginVersion is line 18."""
    return f"""#include <NvInferRuntime.h>
#include <memory>
#include <string>
using namespace nvinfer1;
class FooPlugin : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    explicit FooPlugin(std::string const& name) {{}}
    char const* getPluginName() const noexcept override {{ return "Foo"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
}};
class FooPluginV2 : public FooPlugin
{{
public:
    explicit FooPluginV2(std::string const& name)
        : FooPlugin(name) {{}}
    char const* getPluginVersion() const noexcept override {{ return {v2}; }}
}};
class FooCreator : public IPluginCreatorV3One
{{
public:
    char const* getPluginName() const noexcept override {{ return "Foo"; }}
    char const* getPluginVersion() const noexcept override {{ return "1"; }}
    char const* getPluginNamespace() const noexcept override {{ return ""; }}
    PluginFieldCollection const* getFieldNames() noexcept override {{ return &mFC; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override;

protected:
    template <class PluginType>
    IPluginV3* make(char const* name) noexcept;
    PluginFieldCollection mFC{{}};
}};
class FooCreatorV2 : public FooCreator
{{
public:
    char const* getPluginVersion() const noexcept override {{ return "2"; }}
    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override;
}};
template <class PluginType>
IPluginV3* FooCreator::make(char const* name) noexcept
{{
    auto plugin = std::make_unique<PluginType>(std::string(name));
    return plugin.release();
}}
IPluginV3* FooCreator::createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept
{{
    return make<FooPlugin>(name);
}}
IPluginV3* FooCreatorV2::createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept
{{
    return make<FooPluginV2>(name);
}}
REGISTER_TENSORRT_PLUGIN(FooCreator);
REGISTER_TENSORRT_PLUGIN(FooCreatorV2);
"""


class PluginVersionMismatch(Rule):
    """A route asks for a plugin version that the creator of that name does not register.

    ## What it does
    Between a plugin and its own creator: the plugin class a creator's `createPlugin`/`deserializePlugin`
    makes (`new FooPlugin(...)`) must return the same `getPluginVersion()` as the creator (TensorRT
    serializes the plugin's version into the engine and looks the creator up by it when the engine is
    deserialized).

    For every route that names a registered creator, compares the version it asks for with what the
    creator's `getPluginVersion()` returns: an ONNX node's `plugin_version` attribute (the ONNX parser's
    default is "1" when the attribute is absent; an onnx-graphsurgeon node's `attrs` included), the direct
    route's fixed version, a `get_creator(name, version, ns)`/`get_plugin_creator` lookup (a
    `plugin_creator_list` scan that also compares `c.plugin_version`). A route to one of TensorRT's own
    plugins (a name `rules/tensorrt_plugins.yaml` lists and the project does not define, e.g.
    `EfficientNMS_TRT`) is compared with the versions its plugin library registers in any release of
    `rules/tensorrt_plugin_fields.yaml` (ONNX model files: TRT501). Where several creators of the name live in
    different directories (independent samples of one tree, not split into programs by a build description), a
    route is judged against those nearest its file.

    ## Why it matters
    TensorRT looks creators up by (name, version, namespace). A plugin bumped to version "2" in C++ while
    the exporter still emits nodes without `plugin_version` fails at engine build with "plugin not found",
    on a GPU machine, long after the commit.

    ## Example
    ```cpp
    constexpr char const* kVERSION{"2"};   // bumped
    ```
    ```python
    _plugins.FooPlugin(x, alpha=a)          # no plugin_version: the parser asks for "1"
    ```

    ```cpp
    char const* FooPlugin::getPluginVersion() const noexcept { return "1"; }        // the plugin
    char const* FooPluginCreator::getPluginVersion() const noexcept { return "2"; } // its creator
    ```

    ## Fix
    Return one version constant from both the plugin and its creator.
    Emit `plugin_version="2"` (or the direct route's fixed version), or register the version routes ask for.
    When an ONNX node writes `plugin_version` as a literal and the creator registers one version,
    `trtlint check --fix --unsafe-fixes` sets the literal to it (unsafe: the engine then runs that version).
    """

    code = "TRT102"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    fixable = True
    name = "plugin-version-mismatch"
    family = "contract"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)
    confirm = "creator-lookup"

    VALID = [
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp()}},
        {"files": {"plugin/foo/fooPlugin.cpp": _template_creators()}},
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "py/translate.py": onnxscript_py("FooPlugin", 'alpha=1.0, plugin_version="2"'),
            }
        },
        {
            # a creator whose getPluginVersion() returns one of two versions (TensorRT OSS ReorgPluginCreator<T>)
            "files": {
                "plugin/reorg/reorgPlugin.cpp": creator_cpp("Reorg_TRT", "1").replace(
                    "getPluginVersion() const noexcept override { return kVERSION; }",
                    'getPluginVersion() const noexcept override { if (mDynamic) { return "2"; } return kVERSION; }\n    bool mDynamic{true};',
                ),
                "models/reorg.onnx": onnx_model(onnx_node("Reorg_TRT", "trt", plugin_version="1"), opsets=(("", 17), ("trt", 1))),
            }
        },
        {
            # a model node without plugin_version is TRT502's (implicit-plugin-version)
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))),
            }
        },
    ]
    INVALID = [
        {
            # a plugin and its creator declared by one macro use (the creator finds its plugin through a table)
            "files": macro_declared_pair("Gelu", "Gelu", creator_version="2"),
            "expect": [("layers/layer_builder.h", 9, "plugin GeluPluginLayer returns version '1' from getPluginVersion(), but creator GeluPluginCreator, declared with it by the same macro use, registers version '2'")],
        },
        {
            # a plugin made through a creator template that creates its template parameter
            # (``make<FooPluginV2>(name)``, the body's ``std::make_unique<PluginType>``) is that creator's plugin
            "files": {"plugin/foo/fooPlugin.cpp": _template_creators('"3"')},
            "expect": [("plugin/foo/fooPlugin.cpp", 18, "plugin FooPluginV2 returns version '3' from getPluginVersion(), but its creator FooCreatorV2 (which creates it in createPlugin) registers version '2'")],
        },
        {
            # two samples of one tree, each with its own creator of the plugin (no build description makes them two
            # programs): the route of the second is judged against its own creator's version, not both samples'
            "files": {"samples/one/fooPlugin.cpp": creator_cpp("FooPlugin"),
                      "samples/one/main.py": py_create_plugin(),
                      "samples/two/fooPlugin.cpp": creator_cpp("FooPlugin", "2", cls="BarCreator"),
                      "samples/two/main.py": py_create_plugin()},
            "expect": [("samples/two/main.py", 6, "get_creator('FooPlugin', '1', '') asks for 'FooPlugin' version '1', but its creator registers version '2'")],
        },
        {
            # TensorRT's own plugin asked for a version its plugin library does not register
            "files": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "plugin_version": "2"}')},
            "expect": [("py/surgeon.py", 6, "ONNX node 'EfficientNMS_TRT' asks for 'EfficientNMS_TRT' version '2', but TensorRT's plugin library (libnvinfer_plugin (TensorRT)) registers version '1'")],
            "fixed": {"py/surgeon.py": gs_surgery_py("EfficientNMS_TRT", attrs='{"score_threshold": 0.25, "plugin_version": "1"}')},
        },
        {
            # an onnx-graphsurgeon node's plugin_version attribute
            "files": {"cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                      "py/surgeon.py": gs_surgery_py(attrs='{"alpha": 1.0, "plugin_version": "2"}')},
            "expect": [("py/surgeon.py", 6, "ONNX node 'FooPlugin' asks for 'FooPlugin' version '2', but its creator registers version '1'")],
            "fixed": {"py/surgeon.py": gs_surgery_py(attrs='{"alpha": 1.0, "plugin_version": "1"}')},
        },
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(plugin_version='"1"', creator_version='"2"')},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 17, "plugin FooPlugin returns version '1' from getPluginVersion(), but its creator FooPluginCreator (which creates it in createPlugin) registers version '2'")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "py/translate.py": onnxscript_py("FooPlugin"),
            },
            "expect": [("py/translate.py", 7, "asks for 'FooPlugin' version '1' (the default when plugin_version is absent), but its creator registers version '2'")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "1"),
                "scripts/build_foo.py": (
                    "import tensorrt as trt\n"
                    "def build_foo():\n"
                    '    creator = trt.get_plugin_registry().get_creator("FooPlugin", "3", "")\n'
                ),
            },
            "expect": [("scripts/build_foo.py", 3, "get_creator('FooPlugin', '3', '') asks for 'FooPlugin' version '3'")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", alpha=1.0, plugin_version="3"), opsets=(("", 17), ("trt_plugins", 1))
                ),
            },
            "expect": [("models/foo.onnx", 1, "ONNX node 'main_graph/FooPlugin_0' (trt_plugins::FooPlugin) asks for 'FooPlugin' version '3', but its creator registers version '2'")],
        },
        {
            # the C++ creator is the reference: a plugin spec version it does not register is stale (TensorRT OSS
            # CropAndResizeDynamic_PluginConfig.yaml still lists version "1"; the creator registers "2")
            "files": {
                "plugin/crop/cropPlugin.cpp": creator_cpp("CropAndResizeDynamic", "2"),
                "plugin/crop/CropAndResizeDynamic_PluginConfig.yaml": (
                    '---\nname: CropAndResizeDynamic\nversions:\n  "1":\n    attributes: [alpha]\n  "2":\n    attributes: [alpha]\n'
                ),
                "models/crop.onnx": onnx_model(
                    onnx_node("CropAndResizeDynamic", "trt", alpha=1.0, plugin_version="1"), opsets=(("", 17), ("trt", 1))
                ),
            },
            "expect": [("models/crop.onnx", 1, "asks for 'CropAndResizeDynamic' version '1', but its creator registers version '2'")],
        },
        {
            # an explicit plugin_version and one registered version: the unsafe fix asks for that version
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "py/translate.py": onnxscript_py("FooPlugin", attrs='alpha=1.0, plugin_version="1"'),
            },
            "expect": [("py/translate.py", 7, "ONNX node 'trt_edgellm::FooPlugin' asks for 'FooPlugin' version '1', but its creator registers version '2'")],
            "fixed": {"py/translate.py": onnxscript_py("FooPlugin", attrs='alpha=1.0, plugin_version="2"')},
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for r in requests(index, judged_once=True):
            if r.version is None:
                continue
            if r.kind == "model" and r.version_default:
                continue  # a model node without plugin_version: TRT502 (implicit-plugin-version)
            creators = nearest(index.creators_named(r.name), r.span.path)
            if not creators:
                continue  # TRT101's business
            versions = [c.plugin_version for c in creators]
            if r.kind == "model":
                from ..onnx._nodes import known_creators

                # every version a creator can return (templated creators), and its TensorRT OSS plugin spec
                versions = versions + [k.version for k in known_creators(index).get(r.name, [])]
            if None in versions or r.version in versions:
                continue
            why = " (the default when plugin_version is absent)" if r.kind == "onnx" and r.version_default else (
                " (the route's fixed version)" if r.kind in ("route-table", "route-call") else ""
            )
            regs = ", ".join(sorted({f"'{v}'" for v in versions}))
            yield self.diag(
                r.version_span or r.span,
                f"{r.what} asks for '{r.name}' version '{r.version}'{why}, but its creator registers version {regs}",
                related=[
                    Related(c.version.def_span or c.version.span, f"{c.cls.name}::getPluginVersion() returns '{c.plugin_version}'")
                    for c in creators
                    if c.version is not None
                ],
                symbol=r.name,
                logical=r.logical,
                fix=_version_fix(r, versions),
            )
        yield from self._external(index)
        yield from self.check_plugins(index)

    def _external(self, index) -> Iterable[Diagnostic]:
        """Routes to TensorRT's own plugins (a name the rules/ packs list, no project creator of it) asking for a
        version no release of its plugin library registers (ONNX model files: TRT501)."""
        packs = index.packs
        for r in all_requests(index):
            if r.version is None or r.kind == "model" or index.creators_named(r.name):
                continue
            ext = packs.external_creator(r.name)
            if ext is None:
                continue
            versions = set(ext[2]) | {v for table in packs.plugin_fields.values() for (n, v) in table if n == r.name}
            if r.version in versions:
                continue
            why = " (the default when plugin_version is absent)" if r.kind == "onnx" and r.version_default else ""
            regs = ", ".join(f"'{v}'" for v in sorted(versions))
            yield self.diag(
                r.version_span or r.span,
                f"{r.what} asks for '{r.name}' version '{r.version}'{why}, but TensorRT's plugin library ({ext[0]}) "
                f"registers version {regs}",
                symbol=r.name,
                logical=r.logical,
                fix=_version_fix(r, sorted(versions)),
            )

    def check_plugins(self, index) -> Iterable[Diagnostic]:
        """A plugin and the creator that creates it return different versions."""
        for c, x in disagreeing_plugins(index, "plugin_version"):
            p = x.plugin
            yield self.diag(
                p.version.def_span or p.version.span,
                f"plugin {p.cls.name} returns version '{p.plugin_version}' from getPluginVersion(), but its creator "
                f"{c.cls.name} (which creates it in {x.method.name}) registers version '{c.plugin_version}': an engine "
                "holding this plugin cannot be deserialized",
                related=[
                    Related(c.version.def_span or c.version.span, f"{c.cls.name}::getPluginVersion() returns '{c.plugin_version}'"),
                    Related(x.obj.span, f"{c.cls.name}::{x.method.name} creates {p.cls.name} here"),
                ],
                symbol=p.qualname,
            )
        for c, p in macro_paired(index, "plugin_version"):
            yield self.diag(
                p.version.def_span or p.version.span,
                f"plugin {p.cls.name} returns version '{p.plugin_version}' from getPluginVersion(), but creator "
                f"{c.cls.name}, declared with it by the same macro use, registers version '{c.plugin_version}': an "
                "engine holding this plugin cannot be deserialized",
                related=[
                    Related(c.version.def_span or c.version.span, f"{c.cls.name}::getPluginVersion() returns '{c.plugin_version}'"),
                    Related(p.cls.span, f"{p.cls.name} and {c.cls.name} are both declared by this macro use"),
                ],
                symbol=p.qualname,
            )


def _version_fix(r, versions) -> "Fix | None":
    """Unsafe: an ONNX node's explicit plugin_version literal set to the one version its creator registers
    (the engine then runs that version of the plugin, which may compute something else)."""
    from trtlint.base.fixes import UNSAFE, rename_edit

    if r.kind != "onnx" or r.version_default or r.version_span is None or len(set(versions)) != 1:
        return None
    edit = rename_edit(r.version_span, r.version, versions[0])
    if edit is None or edit.span.col == r.version_span.col:  # the literal must end the span: plugin_version="1"
        return None
    return Fix(f"ask for the registered version '{versions[0]}'", (edit,), UNSAFE)
