from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.contract import creator_cpp, onnxscript_py
from ._routes import requests, route_creators


def registered_namespaces(creator) -> set[str] | None:
    """The namespaces a creator is registered under, or None when not known statically: a literal
    getPluginNamespace() wins; otherwise REGISTER_TENSORRT_PLUGIN registers under "" and a library creator
    list under the namespace its init function is called with (not known here)."""
    if creator.namespace is not None and creator.namespace.value is not None:
        return {creator.namespace.value}
    hows = {r.how for r in creator.registrations}
    if creator.cls.family in ("python", "qdp"):
        return None
    if hows == {"macro"}:
        return {""}
    return None


class PluginNamespaceMismatch(Rule):
    """A route asks for a plugin in a namespace its creator is not registered under.

    ## What it does
    For every route that names a project creator — an ONNX node (its `plugin_namespace` attribute; absent
    means ""), the direct route's fixed namespace, a `get_creator(name, version, namespace)` lookup —
    compares the namespace it asks for with the one the creator is registered under: the literal its
    `getPluginNamespace()` returns, else "" for a creator registered with `REGISTER_TENSORRT_PLUGIN` (the
    macro registers under the empty namespace). Creators registered only through a library's init function
    (whose namespace is the caller's argument) are not judged.

    ## Why it matters
    TensorRT looks a creator up by (name, version, namespace): the right name in the wrong namespace is
    "plugin not found" at engine build.

    ## Example
    ```python
    reg.get_creator("FooPlugin", "1", "trt_edgellm")   # REGISTER_TENSORRT_PLUGIN registered it under ""
    ```

    ## Fix
    Ask for the namespace the creator is registered under (or register it under the one routes use).
    """

    code = "TRT104"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    name = "plugin-namespace-mismatch"
    family = "contract"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin", 'alpha=1.0, plugin_namespace=""'),
                "py/build.py": (
                    "import tensorrt as trt\n"
                    "def build():\n"
                    '    return trt.get_plugin_registry().get_creator("FooPlugin", "1", "")\n'
                ),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/build.py": (
                    "import tensorrt as trt\n"
                    "def build():\n"
                    '    return trt.get_plugin_registry().get_creator("FooPlugin", "1", "trt_edgellm")\n'
                ),
            },
            "expect": [("py/build.py", 3, "asks for 'FooPlugin' in namespace 'trt_edgellm', but creator FooPluginCreator is registered under namespace ''")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin", 'alpha=1.0, plugin_namespace="edgellm"'),
            },
            "expect": [("py/translate.py", 7, "ONNX node 'trt_edgellm::FooPlugin' asks for 'FooPlugin' in namespace 'edgellm'")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for r in requests(index, judged_once=True):
            if r.namespace is None:
                continue
            creators = route_creators(index, r)
            if not creators:
                continue  # TRT101 / TRT102
            spaces: set[str] = set()
            known = True
            for c in creators:
                ns = registered_namespaces(c)
                if ns is None:
                    known = False
                    break
                spaces |= ns
            if not known or r.namespace in spaces:
                continue
            c0 = creators[0]
            regs = ", ".join(f"'{s}'" for s in sorted(spaces))
            related = [Related(c0.namespace.span, f"{c0.cls.name}::getPluginNamespace() returns {c0.namespace.expr or repr(c0.plugin_namespace)}")] if c0.namespace else []
            related += [Related(reg.span, f"{c0.cls.name} is registered here (under '')") for reg in c0.registrations[:1]]
            span = r.span
            if r.kind == "onnx":
                span = next((a.span for a in index_attrs(index, r) if a.name == "plugin_namespace"), r.span)
            yield self.diag(
                span,
                f"{r.what} asks for '{r.name}' in namespace '{r.namespace}', but creator {c0.cls.name} is registered "
                f"under namespace {regs}: TensorRT will not find it",
                related=related,
                symbol=r.name,
            )


def index_attrs(index, r):
    """The raw attributes of the ONNX emission a request came from (the request drops plugin_namespace)."""
    for e in index.emissions:
        if e.span == r.span:
            return e.attrs
    return ()
