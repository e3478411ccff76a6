from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Fix, Related
from .._examples import creator_cpp, onnx_model, onnx_node, onnxscript_py
from ..base import Rule
from ._routes import requests


class PluginVersionMismatch(Rule):
    """A route asks for a plugin version that the creator of that name does not register.

    ## What it does
    For every route that names a registered creator, compares the version it asks for with what the
    creator's `getPluginVersion()` returns: an ONNX node's `plugin_version` attribute (the ONNX parser's
    default is "1" when the attribute is absent), the direct route's fixed version, a
    `get_creator(name, version, ns)` lookup.

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

    ## Fix
    Emit `plugin_version="2"` (or the direct route's fixed version), or register the version routes ask for.
    When an ONNX node writes `plugin_version` as a literal and the creator registers one version,
    `trtlint check --fix --unsafe-fixes` sets the literal to it (unsafe: the engine then runs that version).
    """

    code = "TRT102"
    fixable = True
    name = "plugin-version-mismatch"
    family = "contract"
    confirm = "creator-lookup"

    VALID = [
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
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "py/translate.py": onnxscript_py("FooPlugin"),
            },
            "expect": [("py/translate.py", 7, "asks for 'FooPlugin' version '1' (the default when plugin_version is absent), but its creator registers version '2'")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "1"),
                "tests/test_foo.py": (
                    "import tensorrt as trt\n"
                    "def test_foo():\n"
                    '    creator = trt.get_plugin_registry().get_creator("FooPlugin", "3", "")\n'
                ),
            },
            "expect": [("tests/test_foo.py", 3, "get_creator('FooPlugin', '3', '') asks for 'FooPlugin' version '3'")],
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
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for r in requests(index, judged_once=True):
            if r.version is None:
                continue
            if r.kind == "model" and r.version_default:
                continue  # a model node without plugin_version: TRT502 (implicit-plugin-version)
            creators = index.creators_named(r.name)
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


def _version_fix(r, versions) -> "Fix | None":
    """Unsafe: an ONNX node's explicit plugin_version literal set to the one version its creator registers
    (the engine then runs that version of the plugin, which may compute something else)."""
    from ...fixes import UNSAFE, rename_edit

    if r.kind != "onnx" or r.version_default or r.version_span is None or len(set(versions)) != 1:
        return None
    edit = rename_edit(r.version_span, r.version, versions[0])
    if edit is None or edit.span.col == r.version_span.col:  # the literal must end the span: plugin_version="1"
        return None
    return Fix(f"ask for the registered version '{versions[0]}'", (edit,), UNSAFE)
