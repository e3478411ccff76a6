from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..contract._creators import created_plugins
from ..examples.contract import pair_cpp


class NameVersionLiteral(Rule):
    """A plugin's name or version spelled as a string literal in more than one place.

    ## What it does
    For each creator and the plugin classes it creates, looks at what `getPluginName()` (`getPluginType()`
    for V2 plugins) and `getPluginVersion()` return. When the same name or version is written as a bare
    string literal in one getter and spelled again elsewhere (another literal, or a constant), it reports
    the literal: the pair is kept in sync by hand.

    ## Why it matters
    The plugin's getters are serialized into the engine; the creator's are what the registry looks up.
    Bumping the version in one place and not the other produces an engine that cannot be deserialized
    (TRT102 catches the drift once it happened; one constant keeps it from happening).

    ## Example
    ```cpp
    char const* FooPlugin::getPluginVersion() const noexcept { return "1"; }
    char const* FooPluginCreator::getPluginVersion() const noexcept { return "1"; }
    ```

    ## Fix
    Define the name and the version once (`constexpr char const* kFOO_PLUGIN_VERSION{"1"};`) and return the
    constant from every getter.
    """

    code = "TRT203"
    reads = frozenset({"classes", "files", "fn_contracts", "functions", "lifecycle", "py_creators", "registrations"})
    name = "name-version-literal"
    family = "plugin"
    severity = Severity.WARNING
    default = False
    opt_in_why = "style: literals that agree are not a defect; triage found every finding on real trees was agreeing literals"

    VALID = [
        {"files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp()}},
        {
            # one macro for both (TensorRT OSS style): not literals
            "files": {"cpp/plugins/foo/fooPlugin.cpp": '#define FOO_VERSION "1"\n' + pair_cpp(plugin_version="FOO_VERSION", creator_version="FOO_VERSION")},
        },
    ]
    INVALID = [
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(plugin_version='"1"', creator_version='"1"')},
            "expect": [
                ("cpp/plugins/foo/fooPlugin.cpp", 17, "plugin version '1' is written as a string literal in FooPlugin::getPluginVersion() and spelled again in FooPluginCreator::getPluginVersion()")
            ],
        },
        {
            "files": {"cpp/plugins/foo/fooPlugin.cpp": pair_cpp(creator_name='"FooPlugin"')},
            "expect": [
                ("cpp/plugins/foo/fooPlugin.cpp", 28, "plugin name 'FooPlugin' is written as a string literal in FooPluginCreator::getPluginName() and spelled again in FooPlugin::getPluginName() (kNAME)")
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        reported = set()
        for c in index.creators:
            if not c.cls.family.startswith("creator_"):
                continue
            members = [c]
            for x in created_plugins(index, c):
                if all(x.plugin is not m for m in members):
                    members.append(x.plugin)
            if len(members) < 2:
                continue
            for what, attr, getter in (("name", "name", None), ("version", "version", "getPluginVersion")):
                sites = []
                for m in members:
                    rs = getattr(m, attr)
                    if rs is None or rs.value is None:
                        continue
                    g = getter or ("getPluginName" if m.cls.kind == "creator" or m.cls.family == "v3" else "getPluginType")
                    sites.append((m, rs, g))
                values = {rs.value for _, rs, _ in sites}
                if len(values) != 1 or len(sites) < 2:
                    continue  # different values: TRT102's business
                sites.sort(key=lambda s: (s[1].span.path, s[1].span.line, s[1].span.col))
                raw = [s for s in sites if s[1].via is None]
                if not raw:
                    continue
                constants = {(rs.via, rs.def_span) for _, rs, _ in sites if rs.via is not None}
                if len(raw) + len(constants) < 2:
                    continue
                m0, rs0, g0 = raw[0]
                key = (rs0.span.path, rs0.span.line, rs0.span.col)
                if key in reported:
                    continue
                reported.add(key)
                others = [s for s in sites if s is not raw[0]]
                where = ", ".join(f"{m.cls.name}::{g}()" + (f" ({rs.via})" if rs.via else "") for m, rs, g in others)
                yield self.diag(
                    rs0.span,
                    f"plugin {what} '{rs0.value}' is written as a string literal in {m0.cls.name}::{g0}() and spelled "
                    f"again in {where}: define it once as a named constant",
                    related=[Related(rs.def_span or rs.span, f"{m.cls.name}::{g}() returns '{rs.value}' here") for m, rs, g in others],
                    symbol=f"{m0.qualname}.{what}",
                )
