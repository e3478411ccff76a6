from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import group, known_creators, plugin_nodes, requested, version_key, where


class ImplicitPluginVersion(Rule):
    """A plugin node without `plugin_version` whose creator's current version is not "1".

    ## What it does
    For every ONNX model node the parser looks up as a plugin and that has no `plugin_version` attribute,
    compares the parser's default ("1") with the versions the creators of that name register (the project's
    C++ and Python creators, the TensorRT OSS plugin specs, TensorRT's own plugin library). An error when no
    creator registers version "1" (the node does not resolve); a warning when "1" exists but a newer version
    is registered too (the node silently gets the old plugin).

    ## Why it matters
    A model exported before a plugin was bumped to version "2" keeps asking for "1": the engine build fails
    with "plugin not found", or, where the old version is still registered, builds with the old plugin and
    its old behaviour.

    ## Example
    ```cpp
    constexpr char const* kVERSION{"2"};
    ```
    and a model node `FooPlugin` with no `plugin_version` attribute.

    ## Fix
    Export the node with `plugin_version="2"` (the version you mean), or keep registering version "1".
    """

    code = "TRT502"
    reads = frozenset({"classes", "emissions", "files", "functions", "models", "plugin_specs", "py_creators",
                        "registrations"})
    name = "implicit-plugin-version"
    family = "onnx"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "models/foo.onnx": onnx_model(
                    onnx_node("FooPlugin", "trt_plugins", alpha=1.0, plugin_version="2"), opsets=(("", 17), ("trt_plugins", 1))
                ),
            }
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "1"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "2"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))),
            },
            "expect": [("models/foo.onnx", 1, "has no plugin_version, so the parser asks for version '1', but creator FooPluginCreator registers only version '2'")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", "1"),
                "cpp/plugins/foo/fooPluginV2.cpp": creator_cpp("FooPlugin", "2", cls="FooPluginV2Creator"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))),
            },
            "expect": [("models/foo.onnx", 1, "so the parser picks version '1' of 'FooPlugin', not the newest version '2'")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        known = known_creators(index)
        found = []
        for m, n in plugin_nodes(index):
            if n.standard or requested(n)[2]:
                continue
            ks = known.get(n.op_type)
            if not ks:
                continue
            versions = {k.version for k in ks}
            if None in versions:
                continue
            found.append((m, n, ks, versions))
        for _key, items in group(found, key=lambda it: (it[0].span.path, it[1].op_type, it[1].domain)):
            m, n, ks, versions = items[0]
            newest = max(versions, key=version_key)
            k_new = next(k for k in ks if k.version == newest)
            related = [Related(k_new.span, f"{k_new.source} registers version '{newest}'")] if k_new.span else []
            nodes = [it[1] for it in items]
            if "1" not in versions:
                regs = ", ".join(f"'{v}'" for v in sorted(versions, key=version_key))
                yield self.diag(
                    n.span,
                    f"{where(nodes)} has no plugin_version, so the parser asks for version '1', but {k_new.source} "
                    f"registers only version {regs}: set plugin_version=\"{newest}\"",
                    related=related,
                    symbol=n.op_type,
                    logical=n.logical,
                )
            elif newest != "1":
                yield self.diag(
                    n.span,
                    f"{where(nodes)} has no plugin_version, so the parser picks version '1' of '{n.op_type}', not the "
                    f"newest version '{newest}' that {k_new.source} registers: set plugin_version to the version meant",
                    related=related,
                    symbol=n.op_type,
                    logical=n.logical,
                    severity=Severity.WARNING,
                )
