from __future__ import annotations

from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.plugin import CAPABILITY_DEFAULT, CAPABILITY_IF, capability_interface, plugin_class

_CAPS = ("kCORE", "kBUILD", "kRUNTIME")
_UNKNOWN_SIZE = "    std::array<int8_t, SOME_LIB_CONSTANT> mId{};\n"  # a macro of a library the run does not have
_WANT = {"kCORE": "IPluginV3OneCore", "kBUILD": "IPluginV3OneBuild", "kRUNTIME": "IPluginV3OneRuntime"}


class CapabilityInterfaceIncomplete(Rule):
    """`getCapabilityInterface` does not return the core, build and runtime capabilities, or casts wrongly.

    ## What it does
    For every `IPluginV3` plugin, reads the returns of `getCapabilityInterface` with the
    `PluginCapabilityType` each one is reached for (the `if (type == PluginCapabilityType::kBUILD)` or
    `case` around it; a return outside any such test serves the types not handled before it). Reports a
    capability type that gets `nullptr` or the interface of another capability (`kRUNTIME` answered with
    `static_cast<IPluginV3OneCore*>(this)`), and a cast to an interface that serves a different capability
    than the type tested. The capability of each interface comes from rules/tensorrt_interfaces.yaml
    (`IPluginV3OneBuildV2` serves `kBUILD`).

    ## Why it matters
    TensorRT asks for each capability and calls that interface's methods through the pointer it gets. A
    `nullptr` for `kRUNTIME` fails the build or deserialization with an opaque error; the wrong interface
    makes TensorRT call a different virtual method than it thinks (a crash or silent corruption), and it
    compiles without a warning because every capability interface derives from `IPluginCapability`.

    ## Example
    ```cpp
    if (type == PluginCapabilityType::kRUNTIME) { return static_cast<IPluginV3OneCore*>(this); }  // wrong
    ```

    ## Fix
    Return `static_cast<IPluginV3OneCore*>(this)` for `kCORE`, `IPluginV3OneBuild` (or `IPluginV3OneBuildV2`)
    for `kBUILD` and `IPluginV3OneRuntime` for `kRUNTIME`.
    """

    code = "TRT201"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "capability-interface-incomplete"
    family = "plugin"

    VALID = [
        {
            "files": {
                "plugins/foo.cpp": plugin_class(capability_interface(
                    CAPABILITY_IF.format(cap="kBUILD", iface="IPluginV3OneBuild")
                    + CAPABILITY_IF.format(cap="kRUNTIME", iface="IPluginV3OneRuntime") + CAPABILITY_DEFAULT))
            }
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(capability_interface(
                    "        switch (type)\n        {\n"
                    "        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);\n"
                    "        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuildV2*>(this);\n"
                    "        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);\n"
                    "        }\n        return nullptr;\n"),
                    bases="public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuildV2, public IPluginV3OneRuntime")
            }
        },
        {
            # a runtime-only plugin (TensorRT OSS samples/sampleSafePluginV3 MaxPoolPluginRuntime) has no build
            # capability: nullptr for kBUILD is the right answer
            "files": {
                "plugins/foo.cpp": plugin_class(capability_interface(
                    "        switch (type)\n        {\n"
                    "        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);\n"
                    "        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);\n"
                    "        case PluginCapabilityType::kBUILD: return nullptr;\n"
                    "        }\n        return nullptr;\n"),
                    bases="public IPluginV3, public IPluginV3OneCore, public IPluginV3OneRuntime")
            }
        },
        {
            # a member sized by a macro the run does not know makes clang find the class invalid and drop every
            # `static_cast<Base*>(this)` return with its statement: those cases return something unknown, they do
            # not fall through to the final `return nullptr`
            "files": {
                "plugins/foo.cpp": plugin_class(_UNKNOWN_SIZE + capability_interface(
                    "        switch (type)\n        {\n"
                    "        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);\n"
                    "        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);\n"
                    "        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);\n"
                    "        }\n        return nullptr;\n")).replace("#include <string>", "#include <array>")
            }
        },
    ]
    INVALID = [
        {
            # the same invalid class, if-form: the dropped returns answer kBUILD and kRUNTIME; kCORE, tested
            # nowhere, still falls through to nullptr
            "files": {
                "plugins/foo.cpp": plugin_class(_UNKNOWN_SIZE + capability_interface(
                    CAPABILITY_IF.format(cap="kBUILD", iface="IPluginV3OneBuild")
                    + CAPABILITY_IF.format(cap="kRUNTIME", iface="IPluginV3OneRuntime")
                    + "        return nullptr;\n")).replace("#include <string>", "#include <array>")
            },
            "expect": [("plugins/foo.cpp", 19, "FooPlugin::getCapabilityInterface returns nullptr for "
                        "PluginCapabilityType::kCORE (it falls through to this return)")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(capability_interface(
                    CAPABILITY_IF.format(cap="kBUILD", iface="IPluginV3OneBuild")
                    + CAPABILITY_IF.format(cap="kRUNTIME", iface="IPluginV3OneCore") + CAPABILITY_DEFAULT))
            },
            "expect": [("plugins/foo.cpp", 16, "FooPlugin::getCapabilityInterface returns IPluginV3OneCore (the kCORE capability) for PluginCapabilityType::kRUNTIME; it must return IPluginV3OneRuntime")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(capability_interface(CAPABILITY_IF.format(cap="kBUILD", iface="IPluginV3OneBuild") + CAPABILITY_DEFAULT))
            },
            "expect": [("plugins/foo.cpp", 14, "FooPlugin::getCapabilityInterface returns IPluginV3OneCore (the kCORE capability) for PluginCapabilityType::kRUNTIME (it falls through to this return); it must return IPluginV3OneRuntime")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(capability_interface(
                    CAPABILITY_IF.format(cap="kCORE", iface="IPluginV3OneCore")
                    + CAPABILITY_IF.format(cap="kBUILD", iface="IPluginV3OneBuild") + "        return nullptr;\n"))
            },
            "expect": [("plugins/foo.cpp", 18, "FooPlugin::getCapabilityInterface returns nullptr for PluginCapabilityType::kRUNTIME (it falls through to this return)")],
        },
    ]

    def _cap_of(self, index, target: Optional[str]) -> Optional[str]:
        if not target:
            return None
        it = index.packs.trt_interfaces.get(target)
        if it is not None:
            return it.capability
        q = index._resolve_class_name(target)
        if q and q in index.classes:
            caps = {index.packs.trt_interfaces[b].capability for b in index.classes[q].bases
                    if b in index.packs.trt_interfaces and index.packs.trt_interfaces[b].capability}
            if len(caps) == 1:
                return caps.pop()
        return None

    def check(self, index) -> Iterable[Diagnostic]:
        for info in index.plugins:
            c = info.cls
            if c.family != "v3":
                continue
            for md in index.method_details(c.qualname, "getCapabilityInterface"):
                rets = [r for r in md.returns if not r.in_catch]
                if not rets or any(r.cap == "?" for r in rets):
                    continue
                owner = md.qualname.split("::")[-2] if "::" in md.qualname else c.name
                where = f"{owner}::getCapabilityInterface"
                rel = [Related(md.span, f"{where} is defined here")]
                handled: set[str] = set()
                for r in rets:
                    if r.cap is None:
                        continue
                    for cap in r.cap.split(","):
                        handled.add(cap)
                        yield from self._judge(index, r, cap, where, rel, fell=False, bases=c.bases)
                # the first unconditional return answers every capability not handled before it
                default = next((r for r in rets if r.cap is None), None)
                if default is None:
                    continue
                for cap in _CAPS:
                    if cap not in handled:
                        yield from self._judge(index, default, cap, where, rel, fell=True, bases=c.bases)

    def _judge(self, index, r, cap: str, where: str, rel, fell: bool, bases=()) -> Iterable[Diagnostic]:
        how = " (it falls through to this return)" if fell else ""
        if r.kind == "nullptr":
            word = {"kCORE": "Core", "kBUILD": "Build", "kRUNTIME": "Runtime"}[cap]
            if bases and not any(word in b for b in bases):
                return  # a class without that capability (e.g. a safety runtime-only plugin) rightly answers nullptr
            yield self.diag(r.span, f"{where} returns nullptr for PluginCapabilityType::{cap}{how}; it must return "
                            f"{_WANT[cap]}", related=rel, symbol=f"{where}:{cap}")
            return
        if r.kind != "cast":
            return
        got = self._cap_of(index, r.value)
        if got is None or got == cap:
            return
        yield self.diag(r.span, f"{where} returns {r.value} (the {got} capability) for PluginCapabilityType::{cap}{how}; "
                        f"it must return {_WANT[cap]}", related=rel, symbol=f"{where}:{cap}")
