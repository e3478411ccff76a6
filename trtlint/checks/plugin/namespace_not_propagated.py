from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..contract._creators import contracts_by_usr, created_plugins
from ..examples.contract import pair_cpp


class NamespaceNotPropagated(Rule):
    """A creator that does not pass its namespace to the plugin it creates.

    ## What it does
    For a creator whose namespace is set at registration (its `getPluginNamespace()` returns a member such
    as `mNamespace.c_str()`, set by `setPluginNamespace`), looks at every plugin its `createPlugin` /
    `deserializePlugin` makes whose own `getPluginNamespace()` also returns a member. The creating method
    must hand the namespace over: call `plugin->setPluginNamespace(...)` or pass the namespace to the
    plugin's constructor.

    ## Why it matters
    TensorRT serializes the plugin's `getPluginNamespace()` into the engine and looks the creator up by it
    when the engine is deserialized. A plugin that keeps an empty namespace while its creator is registered
    under a library namespace builds fine and then fails to deserialize ("plugin not found").

    ## Example
    ```cpp
    auto* plugin = new FooPlugin(name, alpha);
    return plugin;                               // namespace never set
    ```

    ## Fix
    `plugin->setPluginNamespace(mNamespace.c_str());` before returning it.
    """

    code = "TRT212"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "namespace-not-propagated"
    family = "plugin"
    severity = Severity.WARNING
    default = False
    opt_in_why = "latent: harmless while the library registers its creators under the empty namespace, as every tree triaged does"

    VALID = [
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp()}},
        {
            # the creator's namespace is a fixed literal: nothing to propagate
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(creator_namespace='""', set_namespace=False)},
        },
    ]
    INVALID = [
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(set_namespace=False)},
            "expect": [("cpp/plugins/foo/fooPlugin.cpp", 36, "FooPluginCreator::createPlugin creates FooPlugin without passing it the creator's namespace")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        contracts = contracts_by_usr(index)
        for c in index.creators:
            if c.namespace is None or c.namespace.value is not None:
                continue  # fixed (or no) namespace
            for x in created_plugins(index, c):
                p = x.plugin
                if p.namespace is None or p.namespace.value is not None:
                    continue  # the plugin returns a fixed namespace (or we could not see its getter)
                fc = contracts.get(x.method.usr)
                called = set(fc.called) if fc is not None else set()
                called |= {call.callee.split("::")[-1] for call in x.method.calls}
                if "setPluginNamespace" in called or "amespace" in x.obj.args:
                    continue
                yield self.diag(
                    x.obj.span,
                    f"{c.cls.name}::{x.method.name} creates {p.cls.name} without passing it the creator's namespace "
                    f"(no setPluginNamespace call, no namespace constructor argument): {p.cls.name}::getPluginNamespace() "
                    "returns its own member, so the engine records the wrong namespace",
                    related=[
                        Related(c.namespace.span, f"{c.cls.name}::getPluginNamespace() returns {c.namespace.expr}"),
                        Related(p.namespace.span, f"{p.cls.name}::getPluginNamespace() returns {p.namespace.expr}"),
                    ],
                    symbol=f"{c.qualname}->{p.qualname}",
                )
