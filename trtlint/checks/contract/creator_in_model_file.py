from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic
from ..base import Rule
from ..examples.contract import cpp_model
from ._routes import lookup_what

_BACKEND = (
    "import tensorrt as trt\n"
    "def make(network, x):\n"
    '    creator = trt.get_plugin_registry().get_creator("FooPlugin", "1", "")\n'
    '    fc = trt.PluginFieldCollection([trt.PluginField("alpha")])\n'
    "    return network.add_plugin_v3([x], [], creator.create_plugin('foo', fc, trt.TensorRTPhase.BUILD))\n"
)


class CreatorInModelFile(Rule):
    """Creator lookup, `PluginField` construction or plugin creation inside a model file.

    ## What it does
    In files the profile marks as model files (TensorRT Edge-LLM: `tensorrt_edgellm/models/**`,
    `experimental/builder/models/**`; configurable with `model-files`), reports
    `get_plugin_registry()`/`get_creator(...)`, `trt.PluginField`, `trt.PluginFieldCollection`,
    `create_plugin` and `add_plugin_v3`/`add_plugin_v2`, and in C++ model files the registry's
    `getPluginCreator(...)`/`getCreator(...)`. Without a profile or setting naming model files nothing is
    reported: a codebase that builds its networks with the C++ API looks creators up by design, and those
    lookups are routes the other contract rules judge (TRT101 to TRT105).

    ## Why it matters
    Model files describe a network with semantic operations; the one place that turns an operation into a
    creator lookup with a fixed name, version, namespace and field encoding is the backend. A lookup in a
    model file bypasses that table: it is invisible to the route's checks and drifts on its own.

    ## Example
    ```python
    # experimental/builder/models/foo/model.py
    creator = trt.get_plugin_registry().get_creator("FooPlugin", "1", "")
    ```

    ## Fix
    Call the operation (`operation("foo", inputs, **attrs)`) and let the backend look the creator up.
    """

    code = "TRT107"
    reads = frozenset({"api_uses", "files", "lookups"})
    name = "creator-in-model-file"
    family = "contract"

    VALID = [
        {"files": {"experimental/builder/ops/backend.py": _BACKEND}, "config": {"model-files": ["experimental/builder/models/**"]}},
        # no profile or setting names model files: C++ model code looking creators up is a route, not a finding
        {"files": {"src/model.cpp": cpp_model("FooPlugin")}},
    ]
    INVALID = [
        {
            "files": {"experimental/builder/models/foo/model.py": _BACKEND},
            "config": {"model-files": ["experimental/builder/models/**"]},
            "expect": [
                ("experimental/builder/models/foo/model.py", 3, "get_creator('FooPlugin', '1', '')"),
                ("experimental/builder/models/foo/model.py", 4, "PluginFieldCollection, PluginField"),
                ("experimental/builder/models/foo/model.py", 5, "add_plugin_v3, create_plugin"),
            ],
        },
    ]

    INVALID += [
        {
            # the other Python creation forms: get_plugin_creator, a plugin_creator_list scan, a helper whose lookup
            # takes the name as a parameter (not known statically: shown as ?)
            "files": {"models/m.py": (
                "import tensorrt as trt\n"
                "def a():\n"
                '    return trt.get_plugin_registry().get_plugin_creator("FooPlugin", "1", "")\n'
                "def b(reg):\n"
                "    for c in reg.plugin_creator_list:\n"
                '        if c.name == "FooPlugin":\n'
                "            return c\n"
                "def helper(reg, name, fields):\n"
                '    return reg.get_creator(name, "1", "").create_plugin(name, trt.PluginFieldCollection(fields))\n'
            )},
            "config": {"model-files": ["models/**"]},
            "expect": [
                ("models/m.py", 3, "(get_creator('FooPlugin', '1', ''))"),
                ("models/m.py", 6, "(plugin_creator_list scan for 'FooPlugin')"),
                ("models/m.py", 9, "(create_plugin, get_creator(?, '1', ''), PluginFieldCollection)"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        globs = list(getattr(index.settings, "model_files", None) or index.profile.model_files)
        if not globs:
            return
        spec = index.glob_matcher(globs)
        # one finding per line, naming every plugin API the line uses
        by_line: dict[tuple[str, int], list] = {}
        for lk in index.lookups:
            if spec.match_file(lk.span.path):
                by_line.setdefault((lk.span.path, lk.span.line), []).append((lk.span, lookup_what(lk)))
        for u in index.api_uses:
            if spec.match_file(u.span.path):
                by_line.setdefault((u.span.path, u.span.line), []).append((u.span, u.api))
        for (path, line), items in sorted(by_line.items()):
            items.sort(key=lambda it: (it[0].col, it[1]))
            names = []
            for _, n in items:
                if n not in names and not (n == "get_plugin_registry" and any(x.startswith("get_creator") for _, x in items)):
                    names.append(n)
            yield self.diag(
                items[0][0],
                f"model file uses the TensorRT plugin API ({', '.join(names)}); model files call operations and "
                "leave creator lookup, field encoding and plugin creation to the backend",
                symbol="api:" + ",".join(sorted(names)),
            )
