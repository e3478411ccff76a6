from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from trtlint.base.diagnostics import Severity
from ..base import Rule
from ..examples.contract import pair_cpp


def registered_namespace(creator) -> str:
    """The namespace a creator registers under: its literal getPluginNamespace(), else "" (what
    REGISTER_TENSORRT_PLUGIN passes, and what a library's init function is called with in practice)."""
    return creator.plugin_namespace


class DuplicatePluginRegistration(Rule):
    """Two registrations of the same (name, version, namespace).

    ## What it does
    Collects every registration of a C++ creator (`REGISTER_TENSORRT_PLUGIN(Creator)`, a library's creator
    list or `initializePlugin<Creator>(...)`) and every quickly deployable Python plugin
    (`@tensorrt.plugin.register`), keys each by the name, version and namespace its creator returns, and
    reports every registration after the first of a key: two creator classes claiming the same plugin, or
    one creator registered twice.

    ## Why it matters
    The plugin registry keeps the first creator of a (name, version, namespace) and rejects the second
    ("plugin creator already registered"); which one wins depends on library load order. Two classes that
    claim one name usually mean a copy-pasted plugin that kept its old name: one of the two plugins can
    never be built.

    ## Example
    ```cpp
    // fooPlugin.cpp
    REGISTER_TENSORRT_PLUGIN(FooPluginCreator);      // "FooPlugin", "1"
    // fooPluginV2.cpp (copied, name not changed)
    REGISTER_TENSORRT_PLUGIN(FooPluginV2Creator);    // "FooPlugin", "1" again
    ```

    ## Fix
    Give the second plugin its own name or version, or register the creator in one place only.
    """

    code = "TRT108"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    name = "duplicate-plugin-registration"
    family = "contract"
    severity = Severity.ERROR

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": pair_cpp(),
                # the same name with another version is a different key
                "cpp/plugins/foo2/fooPlugin2.cpp": pair_cpp(plugin="Foo2Plugin", creator="Foo2PluginCreator", version="2"),
            }
        },
        {
            # one creator in the lists of two plugin libraries (TensorRT OSS: inferPlugin.cpp and vfcCommon.cpp)
            "files": {
                "plugin/foo/fooPlugin.h": pair_cpp(register="none"),
                "plugin/api/inferPlugin.cpp": (
                    '#include "../foo/fooPlugin.h"\n'
                    "static FooPluginCreator sFooCreator;\n"
                    "static IPluginCreatorInterface* const kCREATORS[] = {&sFooCreator};\n"
                ),
                "plugin/vc/vfcCommon.cpp": (
                    '#include "../foo/fooPlugin.h"\n'
                    "static FooPluginCreator sFooCreator;\n"
                    "static IPluginCreatorInterface* const kCREATORS[] = {&sFooCreator};\n"
                ),
            }
        },
        {
            # two samples, each built by its own Makefile: two programs, each with its own FooPlugin (a tree of
            # samples is no plugin library: each registers its plugin in its own process)
            "files": {
                "samples/a/fooPlugin.cpp": pair_cpp(),
                "samples/a/Makefile": "libfoo.so: fooPlugin.cpp\n\tnvcc -shared -Xcompiler -fPIC -o $@ $^\n",
                "samples/b/fooPlugin.cpp": pair_cpp(),
                "samples/b/Makefile": "libfoo.so: fooPlugin.cpp\n\tnvcc -shared -Xcompiler -fPIC -o $@ $^\n",
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": pair_cpp(),
                "cpp/plugins/foo2/fooPlugin2.cpp": pair_cpp(plugin="Foo2Plugin", creator="Foo2PluginCreator"),
            },
            "expect": [
                ("cpp/plugins/foo2/fooPlugin2.cpp", 47, "Foo2PluginCreator registers ('FooPlugin', version '1', namespace ''), which FooPluginCreator already registers at cpp/plugins/foo/fooPlugin.cpp:47")
            ],
        },
        {
            # one creator registered by the macro and again by the library's creator list
            "files": {
                "plugin/foo/fooPlugin.cpp": pair_cpp(),
                "plugin/api/inferPlugin.cpp": (
                    '#include "../foo/fooPlugin.cpp"\n'
                    "template <typename T> void initializePlugin(void* logger, char const* ns) { static T creator{}; }\n"
                    'extern "C" bool initLibNvInferPlugins(void* logger, char const* ns)\n'
                    "{\n"
                    "    initializePlugin<FooPluginCreator>(logger, ns);\n"
                    "    return true;\n"
                    "}\n"
                ),
            },
            "expect": [("plugin/foo/fooPlugin.cpp", 47, "FooPluginCreator registers ('FooPlugin', version '1', namespace '') a second time")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        groups: dict[tuple, list] = defaultdict(list)
        for c in index.creators:
            if c.plugin_name is None or c.plugin_version is None:
                continue
            key = (c.plugin_name, c.plugin_version, registered_namespace(c))
            if c.cls.family == "qdp":
                groups[key].append((c, c.name_span, "registration"))
                continue
            seen_spans = set()
            for r in c.registrations:
                k = (r.span.path, r.span.line)
                if k in seen_spans:
                    continue
                seen_spans.add(k)
                groups[key].append((c, r.span, {"macro": "REGISTER_TENSORRT_PLUGIN", "call": "registerCreator", "project-macro": "a registration macro"}.get(r.how, "creator list")))
        for (name, version, ns), regs in sorted(groups.items()):
            if len(regs) < 2:
                continue
            regs.sort(key=lambda t: (t[1].path, t[1].line, t[1].col))
            first_c, first_span, first_how = regs[0]
            for c, span, how in regs[1:]:
                if c is first_c and not _conflict(c, first_span, span):
                    continue
                what = f"('{name}', version '{version}', namespace '{ns}')"
                if c is first_c:
                    msg = (
                        f"{c.cls.name} registers {what} a second time (also by {first_how} at "
                        f"{first_span.path}:{first_span.line}): the registry rejects the second registration"
                    )
                else:
                    msg = (
                        f"{c.cls.name} registers {what}, which {first_c.cls.name} already registers at "
                        f"{first_span.path}:{first_span.line}: the registry keeps only one of them"
                    )
                yield self.diag(
                    span,
                    msg,
                    related=[
                        Related(first_span, f"{first_c.cls.name} registered here ({first_how})"),
                        Related(c.name_span, f"{c.cls.name} returns '{name}'"),
                    ],
                    symbol=f"{name}/{version}/{ns}",
                )


def _conflict(c, a, b) -> bool:
    """Whether two registrations of one creator class conflict. Not when both are creator lists of different
    files (the entry points of two plugin libraries, e.g. TensorRT OSS's libnvinfer_plugin and its
    version-compatible libnvinfer_vc_plugin), nor when they name different spellings of a class template
    (``ReorgPluginCreator<ReorgStatic>`` and ``<ReorgDynamic>`` through two aliases: other versions)."""
    ra = next((r for r in c.registrations if r.span == a), None)
    rb = next((r for r in c.registrations if r.span == b), None)
    if ra is None or rb is None:
        return True
    if ra.how == rb.how == "list" and ra.span.path != rb.span.path:
        return False
    if ra.creator.split("::")[-1].strip() != rb.creator.split("::")[-1].strip() and c.cls.name not in (ra.creator, rb.creator):
        return False
    return True
