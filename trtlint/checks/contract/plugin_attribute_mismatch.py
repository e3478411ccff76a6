from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Related
from .._examples import creator_cpp, onnxscript_py
from ..base import Rule
from ._routes import requests


class PluginAttributeMismatch(Rule):
    """An emitted attribute that the creator does not declare: the ONNX parser silently drops it.

    ## What it does
    Compares the attributes a route passes (an ONNX node's attributes, a direct-route `operation(...)`'s
    keyword attributes, including those built up in a dict across branches) with the fields the creator
    declares in `getFieldNames()` (its `PluginField` list). `plugin_version` and `plugin_namespace` are the
    parser's own and are not compared. When a route's attributes come partly from something trtlint cannot
    follow, only the names it did follow are judged.

    ## Why it matters
    TensorRT's ONNX parser passes a plugin only the attributes its creator declares. An attribute the
    creator does not declare is dropped without a word: the plugin silently runs with its default, and the
    engine computes something else than the model says.

    ## Example
    ```cpp
    mFields.emplace_back(PluginField("alpha", nullptr, PluginFieldType::kFLOAT32, 1));
    ```
    ```python
    _plugins.FooPlugin(x, alpha=a, beta=b)   # 'beta' is dropped by the parser
    ```

    ## Fix
    Declare the field in the creator (and read it in `createPlugin`), or stop emitting it.
    """

    code = "TRT103"
    name = "plugin-attribute-mismatch"
    family = "contract"

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("alpha", "kFLOAT32"), ("beta", "kINT32"))),
                "py/translate.py": onnxscript_py("FooPlugin", 'alpha=1.0, beta=2, plugin_version="1"'),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "py/translate.py": onnxscript_py("FooPlugin", "alpha=1.0, beta=2"),
            },
            "expect": [("py/translate.py", 7, "attribute 'beta' of ONNX node 'trt_edgellm::FooPlugin' is not a field creator FooPluginCreator declares (getFieldNames: alpha)")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "builder/backend.py": (
                    "import tensorrt as trt\n"
                    '_OPERATION_CREATORS = {"foo": "FooPlugin"}\n'
                    "def _creator(name):\n"
                    "    creator_name = _OPERATION_CREATORS.get(name, name)\n"
                    '    return trt.get_plugin_registry().get_creator(creator_name, "1", "")\n'
                ),
                "builder/functional.py": (
                    "from .ops import operation\n"
                    "def foo(x, scale=None):\n"
                    '    attributes = {"alpha": 1.0}\n'
                    "    if scale is not None:\n"
                    '        attributes["gamma"] = scale\n'
                    '    return operation("foo", [x], output_count=1, **attributes)\n'
                ),
            },
            "expect": [("builder/functional.py", 5, "attribute 'gamma' of direct-route operation 'foo' (creator 'FooPlugin' via _OPERATION_CREATORS)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for r in requests(index):
            if not r.attrs:
                continue
            creators = [c for c in index.creators_named(r.name) if r.version is None or c.plugin_version in (r.version, None)]
            if not creators:
                continue
            declared = set()
            for c in creators:
                declared.update(f.name for f in c.fields)
            if not declared:
                continue  # the creator's fields were not found: nothing to compare with
            c0 = creators[0]
            for a in r.attrs:
                if a.name in declared or a.name in ("plugin_version", "plugin_namespace"):
                    continue
                yield self.diag(
                    a.span,
                    f"attribute '{a.name}' of {r.what} is not a field creator {c0.cls.name} declares "
                    f"(getFieldNames: {', '.join(sorted(declared))}): TensorRT drops it silently",
                    related=[Related(c0.fields[0].span, f"{c0.cls.name} declares its fields here")] if c0.fields else [],
                    symbol=f"{r.name}.{a.name}",
                )
