from __future__ import annotations

import re
from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from trtlint.config.packs import advice_at, normalize_callee, version_at_least
from trtlint.index.project_index import supported_release
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.plugin import plugin_class

_V2_BODY = """    char const* getPluginType() const noexcept override { return "Foo"; }
    char const* getPluginVersion() const noexcept override { return "1"; }"""
# the V2 version "1" of plugin Foo with its V2 creator, kept beside a V3 version "2" (TensorRT OSS's Legacy files)
_V2_CREATOR = """class FooPluginLegacyCreator : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override { return "Foo"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
};
REGISTER_TENSORRT_PLUGIN(FooPluginLegacyCreator);
"""
# TensorRT's own header shipped in the tree (TensorRT OSS's include/NvInferRuntime.h)
_API_HEADER = """#include <NvInferRuntime.h>
namespace nvinfer1
{
namespace v_1_0
{
class IPluginV2Legacy : public IPluginV2Ext
{
public:
    virtual int32_t getLegacyFormat() const noexcept = 0;
};
} // namespace v_1_0
} // namespace nvinfer1
"""
# a pybind11 trampoline (TensorRT OSS's python/src/infer/pyPlugin.cpp: its methods reach pybind11's get_override
# through a helper of the bindings); pybind11's declarations, as its headers give them
_PYBIND = """#include <NvInferRuntime.h>
namespace pybind11
{
struct function
{
    explicit operator bool() const;
    int operator()() const;
};
template <typename T>
function get_override(T const* self, char const* name);
} // namespace pybind11
namespace py = pybind11;
namespace bindings
{
namespace utils
{
template <typename T>
py::function getOverride(T const* self, char const* name)
{
    return py::get_override(self, name);
}
} // namespace utils
} // namespace bindings
using namespace nvinfer1;
using namespace bindings;
class PyIPluginV2DynamicExt : public IPluginV2DynamicExt
{
};
class PyIPluginV2DynamicExtImpl : public PyIPluginV2DynamicExt
{
public:
    int32_t initialize() noexcept override
    {
        py::function f = utils::getOverride(static_cast<PyIPluginV2DynamicExt const*>(this), "initialize");
        return f ? f() : 0;
    }
};
"""

# a helper base on IPluginV2 that defines only the namespace methods (TensorRT OSS's pluginInternal::BasePlugin, as
# samples vendor it): it leaves the interface's pure virtual methods to a derived class
_BASE = """#include <NvInferRuntime.h>
#include <string>
using namespace nvinfer1;
class BasePlugin : public IPluginV2
{
protected:
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    std::string mNamespace;
};
"""
_ON_BASE = """class FooPlugin : public BasePlugin
{
public:
    char const* getPluginType() const noexcept override { return "Foo"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
};
"""


class DeprecatedPluginInterface(Rule):
    """A plugin or creator built on a TensorRT interface or API that the targeted TensorRT deprecates or removed.

    ## What it does
    Compares each plugin and creator class's TensorRT interfaces, the interface methods it overrides and the
    TensorRT APIs the plugin code calls with the deprecation and removal versions in the
    `tensorrt` table of the rules/ packs (`rules/tensorrt_interfaces.yaml`, taken from the `TRT_DEPRECATED`
    markers of the TensorRT headers), for the TensorRT release set by `tensorrt-version`, else the one
    inferred from the tree (`find_package(TensorRT 8.6)`, a `TensorRT-8.6.1.6` path, a `tensorrt==8.6.1` pin,
    an in-tree `NvInferVersion.h`; the message names where). An interface or API removed in the target is an
    error; a deprecated one is a warning; an interface newer than the target (e.g. `IPluginV3OneBuildV2`
    before 10.3) is an error. With no version set or found, nothing is judged (a TensorRT 7 codebase is not
    told what TensorRT 11 removed; the run's summary line says no version is known and how to set it). A class
    declared in a preprocessor branch that only a newer release compiles (`#if NV_TENSORRT_MAJOR >= 10`, or the
    `#else` of `#if NV_TENSORRT_MAJOR < 10`) is judged at that release when the target is older: the older
    release compiles the other branch, so the V3 interfaces there are not "added in 10.0" errors for an 8.6
    target. The class is reported where it names the interface, not in every class that
    inherits it. A method pure virtual in a deprecated interface the class is already reported for
    (`IPluginV2Ext::canBroadcastInputAcrossBatch`, `isOutputBroadcastAcrossBatch`) is one of that finding's related
    locations, not a finding of its own (the class must override it as long as it implements the interface; leaving
    the interface is the one fix), unless the method's verdict is the graver one (removed while the interface is
    only deprecated).

    Not reported: the classes of TensorRT's own API headers shipped in the tree (namespace `nvinfer1`, or a
    versioned `nvinfer1::v_1_0`, in a header named `NvInfer*`); and a deprecation (not a removal) in a class
    that keeps its interface on purpose: a back-compat copy, whose plugin name another creator of the project
    registers on a current interface (TensorRT OSS keeps a plugin's `IPluginV2DynamicExt` version "1" beside its
    `IPluginV3` version "2" so that engines built with it still load), and a pybind11 trampoline, whose methods
    forward to Python (`get_override`, `PYBIND11_OVERRIDE*`), binding the interface for Python plugins. Nor a
    class in a file or folder whose name marks its code deprecated (`deprecated`, `obsolete` or `archived` as a
    word of the name: `BasicExample-V2-deprecated/`, `DeprecatedLayers/`): code its project keeps for an older
    TensorRT, as for TRT610; the run's summary line names such paths, and `judge-deprecated-code = true` judges
    them. Nor a deprecation whose replacement is missing from an older release the build also pins (tier-1
    evidence: a requirement pin, `find_package`, a `TensorRT-X.Y` build path; not prose): a tree pinning both
    `tensorrt==8.6.1` and `tensorrt==10.0.1` cannot move an `IPluginV2DynamicExt` plugin to `IPluginV3`, which 8.6
    lacks, until it drops 8.6 (no plugin interface is free of deprecation in both). The code's own version tests
    count the same way: `#if NV_TENSORRT_MAJOR >= 10 ... #else` (or `< 10`, `> 7`) keeps a branch for the releases
    before that one, so the code is written to build there too (a test above the target release says nothing
    older). The run's summary line counts such deprecations and names the replacement and the older pin or
    version test; `report-unadoptable-deprecations = true` reports them. A removal, and a class in a branch the older release does not compile, are always reported.
    Nor a deprecation in an abstract base that nothing uses: a class that leaves a pure virtual method of its
    interface (the `pure` entries of the pack's method tables) undefined, defines no plugin's (creator's) name,
    version or work (`getPluginType`, `getPluginName`, `getPluginVersion`, `enqueue`, `createPlugin`,
    `deserializePlugin`), and that no project class derives, no registration names and no function creates
    (`new X`, `make_unique<X>`): vendored helper code such as a copy of TensorRT OSS's `pluginInternal::BasePlugin`
    cannot be instantiated and no plugin is built on it, so there is nothing to port. The run's summary line counts
    and names such classes (`summary.tensorrt_version.unused_base_deprecations` in the JSON report). A base that a
    project class derives is reported where it names the interface (a file whose class derives it is parsed even
    when it holds no plugin marker of its own: a plugin written on the base with its methods in the class).

    ## Why it matters
    `IPluginV2`, `IPluginV2Ext`, `IPluginV2IOExt`, `IPluginV2DynamicExt` and `IPluginCreator` are deprecated
    (since 8.5 and 10.0): deprecated APIs are removed in a later major release, and a plugin built on them
    stops compiling (methods such as `IPluginV2Ext::isOutputBroadcastAcrossBatch` and
    `IPluginRegistry::getPluginCreator` are gone in TensorRT 11). Knowing it from a lint is cheaper than
    from a failed upgrade.

    ## Example
    ```cpp
    class FooPlugin : public IPluginV2DynamicExt { ... };   // deprecated since TensorRT 10.0
    ```

    ## Fix
    Port the plugin to `IPluginV3` (`IPluginV3OneCore` / `IPluginV3OneBuild` / `IPluginV3OneRuntime`) and
    its creator to `IPluginCreatorV3One`; replace removed APIs with their successors (the message names
    them). The advice fits the targeted release: before TensorRT 10.0, which has no `IPluginV3`, a plugin on
    `IPluginV2` or `IPluginV2Ext` is told what that release's headers advise (`IPluginV2DynamicExt` or
    `IPluginV2IOExt`; the pack's `replacement_before`). If you must build against an older TensorRT, set
    `tensorrt-version`.
    """

    code = "TRT207"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "marked_strings", "py_creators",
                       "registrations"})
    name = "deprecated-plugin-interface"
    family = "plugin"
    severity = Severity.WARNING

    VALID = [
        {"files": {"plugins/foo.cpp": plugin_class("    int32_t getNbOutputs() const noexcept override { return 1; }")}},
        {
            # targeting TensorRT 8.4: IPluginV2DynamicExt was not yet deprecated
            "files": {"plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")},
            "config": {"tensorrt-version": "8.4"},
        },
        # no version set or found: nothing to judge against (the run's summary line says so)
        {"files": {"plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")}},
        {
            # a back-compat copy: the V2 version "1" of Foo is kept beside its V3 version "2", so that engines
            # built with it still load; the migration the finding would ask for is done
            "files": {
                "plugins/fooLegacy.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt", name="FooPluginLegacy")
                + _V2_CREATOR,
                "plugins/fooCreator.cpp": creator_cpp(name="Foo", version="2"),
            },
            "config": {"tensorrt-version": "11.1"},
        },
        {
            # TensorRT's API header shipped in the tree declares the interfaces: it is not a project plugin
            "files": {"include/NvInferLegacy.h": _API_HEADER,
                      "plugins/use.cpp": '#include "NvInferLegacy.h"\nint32_t one() { return 1; }\n'},
            "config": {"tensorrt-version": "11.1"},
        },
        {
            # a pybind11 trampoline binds the interface for Python plugins on purpose
            "files": {"python/src/pyPlugin.cpp": _PYBIND},
            "config": {"tensorrt-version": "11.1"},
        },
    ]
    VALID += [
        {
            # the V3 interfaces (added in 10.0) in the `#if NV_TENSORRT_MAJOR >= 10` branch of a tree targeting 8.6,
            # whose other branch keeps the V2 plugin: no "added in 10.0" for the branch only 10.x compiles
            "files": {"plugins/foo.cpp": plugin_class(
                "    int32_t getNbOutputs() const noexcept override { return 1; }").replace(
                "class FooPlugin", "#if NV_TENSORRT_MAJOR >= 10\nclass FooPlugin").replace("};\n", "};\n#endif\n")},
            "config": {"tensorrt-version": "8.6"},
        },
    ]
    VALID += [
        # a sample its folder's name marks deprecated, kept beside its V3 successor for older TensorRT releases
        {
            "files": {"samples/BasicExample-V2-deprecated/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")},
            "config": {"tensorrt-version": "11.1"},
        },
    ]
    VALID += [
        # the base is abstract for IPluginV2 and nothing derives, registers or creates it: nothing to port (the
        # run's summary names it)
        {"files": {"plugins/common/plugin.h": _BASE}, "config": {"tensorrt-version": "8.6"}},
    ]
    # the build pins two releases (10.0 and 8.6): IPluginV3 is not in 8.6, so the port cannot be made while the
    # project keeps 8.6 (the summary counts the deprecations not reported)
    _TWO_PINS = {"requirements/requirements_8.txt": "tensorrt==8.6.1\n",
                 "requirements/requirements_10.txt": "tensorrt==10.0.1\n"}
    VALID += [
        {"files": {**_TWO_PINS, "plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")}},
    ]
    # the code's own version test keeps a branch for releases before 10.0 (`#else` of `NV_TENSORRT_MAJOR >= 10`):
    # it is written to build on a release without IPluginV3, so the port cannot be made while that branch is kept
    _OLD_SIDE = {"requirements.txt": "tensorrt==10.0.1\n",
                 "plugins/common.h": "#if NV_TENSORRT_MAJOR >= 10\n#define TRT_NOEXCEPT noexcept\n#else\n"
                                     "#define TRT_NOEXCEPT\n#endif\n"}
    VALID += [
        {"files": {**_OLD_SIDE, "plugins/foo.cpp": '#include "common.h"\n' + plugin_class(
            _V2_BODY, bases="public IPluginV2DynamicExt")}},
    ]
    INVALID = [
        {
            # the same base with a plugin deriving it: reported where it names the interface
            "files": {"plugins/common/plugin.h": _BASE + _ON_BASE},
            "config": {"tensorrt-version": "8.6"},
            "expect": [("plugins/common/plugin.h", 4, "BasePlugin implements IPluginV2, deprecated since TensorRT 8.5 (targeting 8.6); use IPluginV2DynamicExt or IPluginV2IOExt, as the headers of releases before 10.0 advise (IPluginV3 arrives in TensorRT 10.0)")],
        },
        {
            # the version test's branch holds the class itself: only 10.0 and newer compile it, so it is judged
            "files": {**_OLD_SIDE, "plugins/foo.cpp": '#include "common.h"\n' + plugin_class(
                _V2_BODY, bases="public IPluginV2DynamicExt").replace(
                "class FooPlugin", "#if NV_TENSORRT_MAJOR >= 10\nclass FooPlugin").replace("};\n", "};\n#endif\n")},
            "expect": [("plugins/foo.cpp", 7, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 10.0, inferred from requirements.txt:1); use IPluginV3")],
        },
        {
            # report-unadoptable-deprecations = true: reported although the older pinned release lacks IPluginV3
            "files": {**_TWO_PINS, "plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")},
            "config": {"report-unadoptable-deprecations": True},
            "expect": [("plugins/foo.cpp", 5, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 10.0, inferred from requirements/requirements_10.txt:1); use IPluginV3")],
        },
        {
            # only prose names 8.6 besides the 10.0 pin: not a release the build supports, the deprecation is reported
            "files": {"requirements.txt": "tensorrt==10.0.1\n", "README.md": "Tested with TensorRT 8.6.\n",
                      "plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")},
            "expect": [("plugins/foo.cpp", 5, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 10.0, inferred from requirements.txt:1); use IPluginV3")],
        },
        {
            # both releases pinned, but the class is in an `#if NV_TENSORRT_MAJOR >= 10` branch 8.6 does not compile
            "files": {**_TWO_PINS, "plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt").replace(
                "class FooPlugin", "#if NV_TENSORRT_MAJOR >= 10\nclass FooPlugin").replace("};\n", "};\n#endif\n")},
            "expect": [("plugins/foo.cpp", 6, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 10.0, inferred from requirements/requirements_10.txt:1); use IPluginV3")],
        },
        {
            # judge-deprecated-code = true: the deprecated sample is judged like the rest
            "files": {"samples/BasicExample-V2-deprecated/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")},
            "config": {"tensorrt-version": "11.1", "judge-deprecated-code": True},
            "expect": [("samples/BasicExample-V2-deprecated/foo.cpp", 5, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 11.1); use IPluginV3")],
        },
        {
            "files": {"plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt")},
            "config": {"tensorrt-version": "11.1"},
            "expect": [("plugins/foo.cpp", 5, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 11.1); use IPluginV3")],
        },
        {
            # no tensorrt-version: the CMake file's find_package says the code builds with TensorRT 8.6
            "files": {
                "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(foo)\nfind_package(TensorRT 8.6 REQUIRED)\n",
                "plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2Ext"),
            },
            "expect": [("plugins/foo.cpp", 5, "FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5 (targeting 8.6, inferred from CMakeLists.txt:3); use IPluginV2DynamicExt or IPluginV2IOExt, as the headers of releases before 10.0 advise")],
        },
        {
            "files": {
                "plugins/foo.cpp": plugin_class(
                    _V2_BODY + "\n    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept { return false; }",
                    bases="public IPluginV2Ext",
                )
            },
            "config": {"tensorrt-version": "11.x"},
            "expect": [
                ("plugins/foo.cpp", 5, "FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5"),
                ("plugins/foo.cpp", 10, "FooPlugin::canBroadcastInputAcrossBatch overrides IPluginV2Ext::canBroadcastInputAcrossBatch, removed in TensorRT 11.0 (targeting 11.x)"),
            ],
        },
        {
            # methods pure virtual in the deprecated interface the class is told to leave: every IPluginV2Ext plugin
            # overrides them, so they are related locations of the class's finding, not findings of their own
            "files": {
                "plugins/foo.cpp": plugin_class(
                    _V2_BODY + "\n    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept { return false; }"
                    "\n    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept { return false; }",
                    bases="public IPluginV2Ext",
                )
            },
            "config": {"tensorrt-version": "10.0"},
            "expect": [("plugins/foo.cpp", 5, "FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5 (targeting 10.0)")],
        },
        {
            "files": {
                "plugins/lookup.cpp": (
                    "#include <NvInferRuntime.h>\n"
                    "using namespace nvinfer1;\n"
                    "IPluginCreator* find(IPluginRegistry& r)\n"
                    "{\n"
                    '    return static_cast<IPluginCreator*>(r.getPluginCreator("Foo", "1", ""));\n'
                    "}\n"
                )
            },
            "config": {"tensorrt-version": "11.0"},
            "expect": [("plugins/lookup.cpp", 5, "IPluginRegistry::getPluginCreator was removed in TensorRT 11.0 (targeting 11.0); use IPluginRegistry::getCreator")],
        },
        {
            # IPluginV3OneBuildV2 (getAliasedInput) arrived in TensorRT 10.3
            "files": {"plugins/foo.cpp": plugin_class(
                "    int32_t getNbOutputs() const noexcept override { return 1; }",
                bases="public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuildV2, public IPluginV3OneRuntime")},
            "config": {"tensorrt-version": "10.2"},
            "expect": [("plugins/foo.cpp", 5, "FooPlugin implements IPluginV3OneBuildV2, added in TensorRT 10.3 (targeting 10.2)")],
        },
        {
            # a class in an `#if NV_TENSORRT_MAJOR >= 10` branch, in a tree that targets 8.6: judged at 10.0, the
            # release that compiles it (IPluginV2DynamicExt: deprecated there, not "fine at 8.6")
            "files": {"plugins/foo.cpp": plugin_class(_V2_BODY, bases="public IPluginV2DynamicExt").replace(
                "class FooPlugin", "#if NV_TENSORRT_MAJOR >= 10\nclass FooPlugin").replace("};\n", "};\n#endif\n")},
            "config": {"tensorrt-version": "8.6"},
            "expect": [("plugins/foo.cpp", 6, "FooPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (in a branch only TensorRT 10.0 and newer compiles, judged at 10.0; the tree targets 8.6); use IPluginV3")],
        },
        {
            # a back-compat copy is still told when the target removed what it overrides: it stops compiling
            "files": {
                "plugins/fooLegacy.cpp": plugin_class(
                    _V2_BODY + "\n    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept { return false; }",
                    bases="public IPluginV2Ext", name="FooPluginLegacy") + _V2_CREATOR,
                "plugins/fooCreator.cpp": creator_cpp(name="Foo", version="2"),
            },
            "config": {"tensorrt-version": "11.1"},
            "expect": [("plugins/fooLegacy.cpp", 10, "FooPluginLegacy::canBroadcastInputAcrossBatch overrides IPluginV2Ext::canBroadcastInputAcrossBatch, removed in TensorRT 11.0 (targeting 11.1)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        report_all = getattr(index.settings, "report_unadoptable_deprecations", False)
        for d, held in self._judge(index):
            if held is None or (report_all and held is not UNUSED_BASE):
                yield d

    @classmethod
    def unused_bases(cls, index) -> list[Diagnostic]:
        """The deprecations :meth:`check` does not report because their class is an abstract base nobody uses
        (:func:`_unused_abstract_bases`): the run's summary names them (:func:`unused_base_deprecations`)."""
        return [d for d, held in cls()._judge(index) if held is UNUSED_BASE]

    @classmethod
    def held_back(cls, index) -> list[tuple[Diagnostic, str]]:
        """The deprecations :meth:`check` does not report because their replacement is missing from an older
        release the build also pins, each with that release (``"8.6 (tensorrt==8.6.1 in requirements.txt:1)"``):
        the run's summary counts them (:func:`unadoptable_deprecations`); none when the
        ``report-unadoptable-deprecations`` setting asks to report them."""
        if getattr(index.settings, "report_unadoptable_deprecations", False):
            return []
        return [(d, held) for d, held in cls()._judge(index) if isinstance(held, str)]

    def _judge(self, index) -> Iterable[tuple[Diagnostic, Optional[str]]]:
        """Every finding, with the older pinned release that lacks its replacement, or :data:`UNUSED_BASE` for a
        deprecation in an abstract base nobody uses (None: reported)."""
        packs = index.packs
        known = index.tensorrt_target()
        if not known.version:
            return  # nothing to judge against: the run's summary says no version is known and how to set it
        target = index.tensorrt_version()
        pinned = known.pinned if known.source == "inferred" else ()
        against = f"targeting {target}" + (f", {known.why()}" if known.source == "inferred" else "")
        ifaces = packs.trt_interfaces

        def ancestors_of(name: str) -> set[str]:
            out, cur = set(), ifaces.get(name)
            while cur is not None and cur.extends and cur.extends not in out:
                out.add(cur.extends)
                cur = ifaces.get(cur.extends)
            return out

        def verdict(deprecated: Optional[str], removed: Optional[str], since: Optional[str] = None, at: str = target):
            if removed and version_at_least(at, removed):
                return Severity.ERROR, f"removed in TensorRT {removed}"
            if since and not version_at_least(at, since):
                return Severity.ERROR, f"added in TensorRT {since}"
            if deprecated and version_at_least(at, deprecated):
                return Severity.WARNING, f"deprecated since TensorRT {deprecated}"
            return None

        def lacking(sev: Severity, replacement, before, at: str, floor: Optional[str] = None) -> Optional[str]:
            """The oldest release the build also pins (and that compiles the code: ``floor``) whose headers lack the
            replacement advised at ``at``, for a deprecation (a removal or a too-new interface is always reported)."""
            if sev is not Severity.WARNING or not replacement:
                return None
            advice = advice_at(replacement, before, at)
            for p in pinned:
                rel = supported_release(p)
                if floor and not version_at_least(rel, floor):
                    continue  # that release compiles the other branch
                if _missing_at(ifaces, advice, advice_at(replacement, before, rel), rel):
                    return p
            return None

        kept = _kept_on_purpose(index)
        unused = _unused_abstract_bases(index, ancestors_of)
        for qn, c in sorted(index.classes.items()):
            if _tensorrt_api(c):
                continue  # TensorRT's own headers shipped in the tree declare the interfaces
            if index.deprecated_mark(c.span.path):
                continue  # code its name marks deprecated, kept for an older TensorRT: the summary names it
            own = [b for b in c.bases if b in ifaces]
            inherited: set[str] = set()
            for b in c.bases:
                bq = index._resolve_class_name(b)
                if bq and bq != qn and bq in index.classes:
                    inherited.update(x for x in index.classes[bq].bases if x in ifaces)
            direct = [b for b in own if b not in inherited]
            implied = set().union(*(ancestors_of(b) for b in direct)) if direct else set()
            # a class in an `#if NV_TENSORRT_MAJOR >= 10` branch is compiled only by that release and newer: judged
            # against it when the tree targets an older one (the older release compiles the other branch)
            at, c_against = target, against
            if c.version_floor and not version_at_least(target, c.version_floor):
                at = c.version_floor
                c_against = (f"in a branch only TensorRT {c.version_floor} and newer compiles, judged at "
                             f"{c.version_floor}; the tree targets {target}")
            reported = []  # (interface, severity, message, [Related], held) of the class-level findings
            for b in direct:
                if b in implied:
                    continue  # IPluginV2 when the class names IPluginV2DynamicExt
                it = ifaces[b]
                v = verdict(it.deprecated, it.removed, it.since, at)
                if v is None or (qn in kept and v[0] is Severity.WARNING):
                    continue
                sev, why = v
                advice = advice_at(it.replacement, it.replacement_before, at)  # what the target's headers have
                repl = f"; use {advice}" if advice else ""
                held = lacking(sev, it.replacement, it.replacement_before, at, c.version_floor)
                if held is None and qn in unused and sev is Severity.WARNING:
                    held = UNUSED_BASE
                reported.append((b, sev, f"{c.name} implements {b}, {why} ({c_against}){repl}", [], held))
            # overridden interface methods that are deprecated / removed
            all_ifaces = set(own) | set().union(*(ancestors_of(b) for b in own)) if own else set()
            for fn in index.class_methods(qn):
                for b in sorted(all_ifaces):
                    m = next((m for m in ifaces[b].methods if m.name == fn.name), None)
                    if m is None:
                        continue
                    v = verdict(m.deprecated, m.removed, at=at)
                    if v is not None and not (qn in kept and v[0] is Severity.WARNING):
                        sev, why = v
                        # a method pure virtual in the interface the class is already told to leave: it must
                        # override it while it implements that interface, and leaving it is the one fix
                        cover = next((r for r in reported if m.pure and _rank(r[1]) >= _rank(sev)
                                      and (r[0] == b or b in ancestors_of(r[0]))), None) if m.pure else None
                        if cover is not None:
                            cover[3].append(Related(fn.span, f"{c.name}::{fn.name} overrides {b}::{fn.name}, {why} "
                                                    f"(pure virtual in {b}: every implementation overrides it)"))
                            break
                        repl = f"; use {m.replacement}" if m.replacement else ""
                        held = lacking(sev, m.replacement, (), at, c.version_floor)
                        if held is None and qn in unused and sev is Severity.WARNING:
                            held = UNUSED_BASE
                        yield (self.diag(fn.span, f"{c.name}::{fn.name} overrides {b}::{fn.name}, {why} ({c_against}){repl}",
                                         severity=sev, symbol=fn.qualname, related=[Related(c.span, f"{c.name} is declared here")]),
                               held)
                    break
            for b, sev, msg, related, held in reported:
                yield self.diag(c.span, msg, severity=sev, symbol=qn, related=related), held
        # APIs called
        # a call can match an API only when their last name components agree: candidates by that component,
        # in pack order (the first verdict wins)
        by_last: dict[str, list] = {}
        for a in packs.trt_apis:
            an = normalize_callee(a.name)
            by_last.setdefault(an.rsplit("::", 1)[-1], []).append((a, an, "::".join(an.split("::")[-2:])))
        for fn in index.functions.values():
            for call in fn.calls:
                callee = call.callee
                last = callee.rsplit("::", 1)[-1]
                if last not in by_last and "<" not in callee:  # (normalizing strips template arguments only)
                    continue
                name = normalize_callee(callee)
                for a, an, short in by_last.get(name.rsplit("::", 1)[-1], ()):
                    if name == an or name.endswith("::" + short) or name == short:
                        v = verdict(a.deprecated, a.removed)
                        if v is None:
                            continue
                        sev, why = v
                        why = why.replace("removed in", "was removed in").replace("deprecated since", "is deprecated since")
                        advice = advice_at(a.replacement, a.replacement_before, target)
                        repl = f"; use {advice}" if advice else ""
                        yield (self.diag(call.span, f"{short} {why} ({against}){repl}", severity=sev, symbol=short),
                               lacking(sev, a.replacement, a.replacement_before, target))
                        break


_IDENT = re.compile(r"[A-Za-z_]\w*")


def _missing_at(ifaces, advice: str, advice_there: Optional[str], release: str) -> bool:
    """Whether ``release``'s headers lack ``advice`` (the replacement advised at the target): the pack advises
    otherwise for that release (``replacement_before``), or the interface the advice names first arrived later
    (``IPluginV3``, since 10.0)."""
    if advice_there != advice:
        return True
    m = _IDENT.match(advice)
    it = ifaces.get(m.group(0)) if m else None
    return bool(it is not None and it.since and not version_at_least(release, it.since))


def unadoptable_deprecations(index, scoped=None) -> dict:
    """The deprecations TRT207 does not report because an older release the build also pins lacks their
    replacement (:meth:`DeprecatedPluginInterface.held_back`), over the whole index and each program's
    (``scoped``: scope -> index), each program's own counted once: ``{"count": n, "releases": [pinned, ...],
    "replacements": [advice, ...]}``, or {} when there are none."""
    from trtlint.index.project_index import scope_of

    scopes = tuple(scoped or ())
    held: dict = {}
    for s, idx in [("", index), *(scoped or {}).items()]:
        for d, rel in DeprecatedPluginInterface.held_back(idx):
            if scopes and scope_of(d.span.path, scopes) != s:
                continue
            held.setdefault((d.span.path, d.span.line, d.message), (d, rel))
    if not held:
        return {}
    advice = [d.message.rsplit("; use ", 1)[1] for d, _ in held.values() if "; use " in d.message]
    return {"count": len(held), "releases": list(dict.fromkeys(rel for _, rel in held.values())),
            "replacements": list(dict.fromkeys(a.split(" (", 1)[0] for a in advice))}


UNUSED_BASE = object()  # _judge's mark of a deprecation in an abstract base nobody uses (not a release)


def _unused_abstract_bases(index, ancestors_of) -> set[str]:
    """The classes on a TensorRT interface that are abstract for it and that nothing uses: a pure virtual method of
    the interface (or of one it extends; the `pure` entries of the pack's method tables) is defined neither in the
    class nor in a project base of it, nor does either define a plugin's (a creator's) name, version or work
    (:data:`_PLUGIN_WORK`), no project class derives it, no registration names it and no function
    creates it (``new X``, ``make_unique<X>``). Such a class cannot be instantiated and is not built on: vendored
    helper code (TensorRT OSS's ``pluginInternal::BasePlugin`` copied into a sample) that no plugin adopts, so
    porting it asks for nothing. A class whose interfaces have no method table is not judged abstract (kept)."""
    ifaces = index.packs.trt_interfaces
    derived = {q for other_q, other in index.classes.items() for b in other.bases
               for q in [index._resolve_class_name(b)] if q and q != other_q}
    named = {r.qualname or index._resolve_class_name(r.creator) for r in index.registrations}
    made: set = set()
    for ff in index.files.values():
        for fc in getattr(ff, "fn_contracts", ()):
            for o in fc.creates:
                made.add(o.cls.replace(" ", "").lstrip(":"))
    made_q = {index._resolve_class_name(w) for w in made} | made
    out: set[str] = set()
    for qn, c in index.classes.items():
        if qn in derived or qn in named or qn in made_q or c.name in made:
            continue
        own = [b for b in c.bases if b in ifaces]
        if not own:
            continue
        chain = set(own).union(*(ancestors_of(b) for b in own))
        pure = {m.name for b in chain for m in ifaces[b].methods if m.pure}
        if any(index.find_method(qn, m) for m in _PLUGIN_WORK):
            continue  # it names or runs (creates) a plugin: a plugin (creator) whatever else it lacks
        if pure and any(not index.find_method(qn, m) for m in sorted(pure)):
            out.add(qn)
    return out


# the methods that make a class a plugin or a creator rather than a base of one: its name and version, its work
_PLUGIN_WORK = ("getPluginName", "getPluginType", "getPluginVersion", "enqueue", "createPlugin", "deserializePlugin")


def unused_base_deprecations(index, scoped=None) -> dict:
    """The deprecations TRT207 does not report because their class is an abstract base nobody uses
    (:meth:`DeprecatedPluginInterface.unused_bases`), over the whole index and each program's (``scoped``), each
    counted once: ``{"count": n, "classes": ["path:line Name", ...]}``, or {} when there are none."""
    from trtlint.index.project_index import scope_of

    scopes = tuple(scoped or ())
    held: dict = {}
    for s, idx in [("", index), *(scoped or {}).items()]:
        for d in DeprecatedPluginInterface.unused_bases(idx):
            if scopes and scope_of(d.span.path, scopes) != s:
                continue
            held.setdefault((d.span.path, d.span.line, d.message), d)
    if not held:
        return {}
    names = [f"{d.message.split(' ', 1)[0].split('::', 1)[0]} ({d.span.path}:{d.span.line})" for d in held.values()]
    return {"count": len(held), "classes": list(dict.fromkeys(names))}


def _rank(sev: Severity) -> int:
    return {Severity.ERROR: 2, Severity.WARNING: 1}.get(sev, 0)


_API_NAMESPACE = re.compile(r"nvinfer1(?:::v_\d+(?:_\d+)*)*")


def _tensorrt_api(c) -> bool:
    """A class of TensorRT's API: declared in namespace ``nvinfer1`` (or a versioned inline namespace of it,
    ``nvinfer1::v_1_0``) in a header named ``NvInfer*`` (TensorRT OSS ships ``include/NvInferRuntime.h``)."""
    ns = c.qualname.rpartition("::")[0]
    return c.span.path.rsplit("/", 1)[-1].startswith("NvInfer") and _API_NAMESPACE.fullmatch(ns) is not None


def _kept_on_purpose(index) -> set[str]:
    """Plugin and creator classes that keep a deprecated interface on purpose, so its deprecation is not
    reported (a removal still is: the code stops compiling):
    - a back-compat copy: its plugin name is also registered by another creator of the project on an interface
      that is not deprecated (TensorRT OSS keeps the ``IPluginV2DynamicExt`` version "1" of a plugin beside
      its ``IPluginV3`` version "2" so that engines built with the old one still load);
    - a pybind11 trampoline (:meth:`ProjectIndex.forwards_to_python`): it binds the interface for Python plugins."""
    modern = {c.plugin_name for c in index.creators
              if c.plugin_name and c.cls.family not in _DEPRECATED_CREATOR_FAMILIES}
    out = {i.qualname for i in (*index.plugins, *index.creators)
           if i.plugin_name in modern and i.cls.family in _DEPRECATED_FAMILIES}
    out.update(q for q in index.classes if index.forwards_to_python(q))
    return out


_DEPRECATED_CREATOR_FAMILIES = ("creator_v2",)
_DEPRECATED_FAMILIES = ("v2", "v2ext", "v2dynext", "v2iox", "creator_v2")
