from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.plugin import (accepted_type_plugin, after_switch, configure_plugin, constructed_dispatch, exits_plugin,
                               own_program,
                               own_request, profile_program)
from ..hotpath._walk import short
from ._exits import ExitSite, check_macro, exit_sites

_ASSERT = "#include <cassert>\n#define PLUGIN_ASSERT(a) do { if (!(a)) { abort(); } } while (0)"
_CHECK = "#define CHECK(e) do { if ((e) != cudaSuccess) { exit(1); } } while (0)"


class InvariantAssertInPlugin(Rule):
    """Checks that end the process on a failed invariant, one finding per plugin.

    ## What it does
    Reports, once per plugin or creator class, the places below its methods that end the process (`exit`,
    `abort`, `PLUGIN_ASSERT`, `assert`, a project macro expanding to one of them) and that TRT205
    (process-exit-in-plugin) does not report: asserts of invariants on arguments, dimensions or members
    (`PLUGIN_ASSERT(pos >= 0 && pos < 4)` in `supportsFormatCombination`, `assert(nbOutputs == 1)` in
    `getOutputDataTypes`, `PLUGIN_ASSERT(inputs != nullptr)`), and checks of a CUDA status reached only from
    build-time or teardown methods. A check on a condition only the run decides (a device property, a shape or
    data type at run time, an `assert(false)` in a dispatch's fall-through on `enqueue`'s path), reached from a
    method TensorRT calls at run time, is a runtime failure: TRT205's; except a check in a creator's `createPlugin` on a
    value it is handed where no model can reach the creator and the program's own routes pass that value as checked
    (or none calls it), and a check in `configurePlugin` on dimensions other than the first where the program's
    optimization profiles vary only the first dimension of each input (decided at engine build: see TRT205), and a
    check in an IPluginV2DynamicExt's `configurePlugin` on ranks and on dimensions equal to constants (the builder
    calls it first with -1 for every dimension the run decides: see TRT205), and an
    exit in a workspace carver on more than is left of the plugin's own `getWorkspaceSize(...)`, which `enqueue`
    passes on unchanged (see TRT205), and a check in `enqueue`, `configurePlugin` or `onShapeChange` on an input's data
    type naming every type `supportsFormatCombination` accepts at that position (`PLUGIN_ASSERT(type ==
    DataType::kHALF || type == DataType::kFLOAT)` where it accepts only those two; TensorRT runs these methods only
    with an accepted combination: see TRT205), and a failure in the fall-through of a dispatch on the plugin's own
    members whose values every constructor already rejected (an `init` every constructor calls tests the same
    members, fails in its own `else`, and nothing else writes them: see TRT205): those
    are here, and say why. The finding is at the first such place; every other one is a related
    location, named with the method that reaches it. Together with TRT205 it covers every process exit in the
    plugin's code. Opt-in: select it with `extend-select = ["TRT215"]`.

    ## Why it matters
    Most of these asserts state what TensorRT already guarantees (it asks `supportsFormatCombination` only for
    `pos < nbInputs + nbOutputs`; it creates the outputs `getNbOutputs` declares): they never fire in a correct
    build and are not worth a finding each. But an assert is still an `abort()` inside someone else's process:
    when one does fire (a plugin used with a new TensorRT version, a model wired wrongly), the whole server
    ends instead of a layer reporting an error. The per-plugin count shows how much of a plugin fails that way.

    ## Example
    ```cpp
    bool FooPlugin::supportsFormatCombination(int32_t pos, ...) noexcept
    {
        PLUGIN_ASSERT(pos >= 0 && pos < 2);   // an abort(), never a `false`
    ```

    ## Fix
    Where the method can say no, say no: return `false` from `supportsFormatCombination`, `-1` from
    `enqueue`, a status from `getOutputDataTypes`, after logging the reason; use `PLUGIN_VALIDATE` inside the
    method's `try` / `catch`. Asserts that only document what TensorRT guarantees can stay.
    """

    code = "TRT215"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations",
                       "emissions", "route_tables", "route_calls", "lookups", "models", "includes", "plugin_specs"})
    name = "invariant-assert-in-plugin"
    family = "plugin"
    severity = Severity.INFO
    default = False
    opt_in_why = ("noise: most asserts state what TensorRT guarantees (a format position in range, the output count) "
                  "and never fire; on TensorRT OSS they were 721 of the 755 sites TRT205 reported before, against 34 "
                  "aborts on a runtime status")

    VALID = [
        {"files": {"plugins/foo.cpp": exits_plugin(
            supports="        if (pos < 0 || pos >= 2)\n        {\n            return false;\n        }")}},
        # a check on a runtime status in enqueue: TRT205's finding, not this rule's
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue="        CHECK(cudaMemsetAsync(outputs[0], 0, 16, stream));",
                                                   helpers=_CHECK)}},
        # a check on the GPU it runs on (a device property) in enqueue: a runtime failure, TRT205's
        {"files": {"plugins/foo.cpp": exits_plugin(enqueue="        PLUGIN_ASSERT(getSmVersion() >= 80);",
                                                   helpers=_ASSERT + "\nstatic int getSmVersion()\n{\n    return 80;\n}")}},
    ]
    INVALID = [
        {
            # a check in configurePlugin on the inputs' heights, where the program's optimization profile varies only
            # the first dimension: TensorRT ran it at engine build with the values every run sees
            "files": profile_program("        assert(in[0].desc.dims.d[2] == in[1].desc.dims.d[2]);"),
            "expect": [(
                "plugins/foo.cpp", 12,
                "1 check in FooPlugin can end the process (assert(in[0].desc.dims.d[2] == in[1].desc.dims.d[2]) in "
                "FooPlugin::configurePlugin, an invariant (a check on dimensions other than the first, decided at "
                "engine build: the program's optimization profiles (app/build.cpp:6) vary only the first dimension "
                "of each input)), where a failure could be an error status TensorRT reports",
            )],
        },
        {
            # a data-type check in an IPluginV2IOExt's configurePlugin, which only the builder calls (before
            # initialize): an engine is built with a type the plugin accepted, or not at all
            "files": {"plugins/foo.cpp": configure_plugin("IPluginV2IOExt", "        PLUGIN_ASSERT(in[0].type == DataType::kFLOAT);")},
            "expect": [("plugins/foo.cpp", 12, "1 check in FooPlugin can end the process (PLUGIN_ASSERT(in[0].type == "
                                                "DataType::kFLOAT) in FooPlugin::configurePlugin, a check on a data type "
                                                "made only while the engine is built)")],
        },
        {
            # ranks and a dimension equal to a constant in an IPluginV2DynamicExt's configurePlugin: decided at build
            "files": {"plugins/foo.cpp": configure_plugin("IPluginV2DynamicExt", (
                "        PLUGIN_ASSERT(in[1].desc.dims.nbDims == 3 || (in[1].desc.dims.nbDims == 4 && "
                "in[1].desc.dims.d[3] == 1));"))},
            "expect": [("plugins/foo.cpp", 12, "1 check in FooPlugin can end the process (PLUGIN_ASSERT(in[1].desc.dims."
                                                "nbDims == 3 || (in[1].desc.dims.nbDims == 4 && in[1].desc.dims.d[3] == "
                                                "1)) in FooPlugin::configurePlugin, an invariant (a check on ranks and on dimensions "
                                                "equal to constants in an IPluginV2DynamicExt's configurePlugin, decided "
                                                "when the engine is built (TensorRT calls it first with -1 for every "
                                                "dimension the run decides))), where")],
        },
        {
            # three invariant asserts in one plugin: one finding, at the first, naming the other two
            "files": {"plugins/foo.cpp": exits_plugin(
                supports="        PLUGIN_ASSERT(pos >= 0 && pos < 2);\n        assert(nbOutputs == 1);",
                enqueue="        PLUGIN_ASSERT(inputs != nullptr);",
                helpers=_ASSERT)},
            "expect": [(
                "plugins/foo.cpp", 13,
                "3 checks in FooPlugin can end the process (PLUGIN_ASSERT(pos >= 0 && pos < 2) in "
                "FooPlugin::supportsFormatCombination, an invariant, and 2 more)",
                "FooPlugin:invariant-asserts",
            )],
        },
        {
            # an abort after a switch with no default whose every case returns: reached only by a data type no case
            # names (elementSize) or a value no enumerator of the plugin's own enum names (tile), as a default would be
            "files": {"plugins/foo.cpp": exits_plugin(
                enqueue="        unsigned n = elementSize(inputDesc[0].type) + tile(gTactic);", helpers=after_switch("abort();"))},
            "expect": [(
                "plugins/foo.cpp", 21,
                "2 checks in FooPlugin can end the process (abort in FooPlugin::enqueue via elementSize, an invariant, "
                "and 1 more)",
            )],
        },
        {
            # a CUDA status checked with exit, but only in a build-time query
            "files": {"plugins/foo.cpp": exits_plugin(
                supports="        int32_t device = 0;\n        CHECK(cudaGetDevice(&device));", helpers=_CHECK)},
            "expect": [(
                "plugins/foo.cpp", 13,
                "1 check in FooPlugin can end the process (CHECK(cudaGetDevice(&device)) in "
                "FooPlugin::supportsFormatCombination, a status checked only at build time or teardown)",
            )],
        },
        {
            # a field's type checked in createPlugin, in a program that parses no model and whose own executable
            # links the plugin library: its one route passes the field as kINT32, so the check is an invariant here
            "files": own_program("        PLUGIN_ASSERT(fc->fields[0].type == PluginFieldType::kINT32);", _ASSERT),
            "expect": [(
                "plugins/foo.cpp", 30,
                "1 check in FooPluginCreator can end the process (PLUGIN_ASSERT(fc->fields[0].type == "
                "PluginFieldType::kINT32) in FooPluginCreator::createPlugin, an invariant (a check on the type of "
                "`fc->fields[0]` in FooPluginCreator::createPlugin, which only the program's own routes call "
                "(app/main.cpp:6; no model can), each passing field 0 as kINT32))",
            )],
        },
    ]

    INVALID += [
        {
            # a workspace carver's exit on more than is left of the size enqueue passes on from the plugin's own
            # getWorkspaceSize(...): an invariant of the plugin's own size arithmetic
            "files": {"plugins/foo.cpp": own_request(exits=True)},
            "expect": [(
                "plugins/foo.cpp", 10,
                "1 check in FooPlugin can end the process (exit in FooPlugin::enqueue via nextPtr, an invariant (a "
                "check of the plugin's own workspace arithmetic: FooPlugin::enqueue passes its getWorkspaceSize(...) on "
                "to nextPtr unchanged, and TensorRT hands it at least that much))",
            )],
        },
    ]

    INVALID += [
        {
            # the fall-through of enqueue's dispatch on mType and mBits, whose values init (every constructor calls it)
            # already rejected: nothing else writes those members
            "files": {"plugins/foo.cpp": constructed_dispatch()},
            "expect": [(
                "plugins/foo.cpp", 46,
                "1 check in FooPlugin can end the process (assert(false) in FooPlugin::enqueue, an invariant (the "
                "fall-through of a dispatch on mBits, mType, which FooPlugin sets only while it is constructed, where "
                "FooPlugin::init (plugins/foo.cpp:20) already rejects every value this dispatch does not handle))",
            )],
        },
    ]

    INVALID += [
        {
            # a check in enqueue on input 0's data type naming both types supportsFormatCombination accepts there:
            # TensorRT runs enqueue only with an accepted combination
            "files": {"plugins/foo.cpp": accepted_type_plugin(
                "        PLUGIN_ASSERT(type == DataType::kHALF || type == DataType::kFLOAT);")},
            "expect": [(
                "plugins/foo.cpp", 32,
                "1 check in FooPlugin can end the process (PLUGIN_ASSERT(type == DataType::kHALF || type == "
                "DataType::kFLOAT) in FooPlugin::enqueue, an invariant (a check on the data type of input 0, which "
                "FooPlugin::supportsFormatCombination (plugins/foo.cpp:9) accepts only as kFLOAT, kHALF: TensorRT runs "
                "enqueue only with a combination it accepted))",
            )],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        by_class: dict[str, list[ExitSite]] = {}
        for site in exit_sites(index):
            if not site.reported_by_trt205:
                by_class.setdefault(site.esc.entry.plugin, []).append(site)
        for cls, sites in by_class.items():
            sites.sort(key=lambda s: (s.esc.call.span.path, s.esc.call.span.line, s.esc.call.span.col))
            first, rest = sites[0], sites[1:]
            n = len(sites)
            what = _what(first)
            more = f", and {len(rest)} more" if rest else ""
            yield self.diag(
                first.esc.call.span,
                f"{n} check{'s' if n > 1 else ''} in {cls} can end the process ({what}{more}), where a failure "
                f"could be an error status TensorRT reports",
                related=[Related(s.esc.call.span, _what(s)) for s in rest],
                symbol=f"{cls}:invariant-asserts",
            )


def _what(site: ExitSite) -> str:
    esc = site.esc
    m = check_macro(esc) or esc.call
    text = f"{m.callee}({site.checked})" if site.checked is not None else m.callee
    where = f"{esc.entry.plugin}::{esc.entry.fn.name}"
    if len(esc.chain) > 1:
        where += " via " + short(esc.chain[-1])
    if site.status is None:
        note = ", an invariant"
    elif site.status.startswith(("on a data type", "on a shape")):  # a value of the build: the engine is built or not
        note = f", a check {site.status.split(' at run time', 1)[0]} made only while the engine is built"
    else:
        note = ", a status checked only at build time or teardown"
    if site.aside is not None:  # a check createPlugin makes on what no model can hand it here (TRT205's otherwise)
        note += f" ({site.aside})"
    return f"{text} in {where}{note}"
