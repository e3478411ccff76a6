"""The shared-header plan: a project header several C++ units include is walked by the first of them only
(``SourceFile.skip`` for the others), and the index holds the same facts as when every includer walks it."""

from __future__ import annotations

import dataclasses

from trtlint.config.settings import Settings
from trtlint.pipeline.cpp_headers import shared_header_plan
from trtlint.pipeline.run import run
from trtlint.base.facts import to_json
from trtlint.frontends import ExtractContext, SourceFile

from .helpers import write_project

UTIL = """#pragma once
#include <cuda_runtime.h>
namespace demo
{
inline void* scratch(size_t n)
{
    void* p = nullptr;
    cudaMalloc(&p, n);
    return p;
}
struct Box
{
    Box() noexcept = default; // a definition only in a unit that uses it
    int v{0};
};
} // namespace demo
"""

COND = UTIL.replace("scratch", "condScratch").replace("Box", "CondBox")


def plugin(name: str, includes: str, body: str) -> str:
    return f"""#include <NvInferRuntime.h>
#include <cuda_runtime.h>
{includes}
using namespace nvinfer1;
class {name} : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{{
public:
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
}};
int32_t {name}::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{{
{body}
    return 0;
}}
"""


# aPlugin comes first and names cond.h only in a branch the parse does not take: the plan gives cond.h to it
# (by text), the parse does not include it, and bPlugin (which skipped it) must walk it after all
FILES = {
    "cpp/common/util.h": UTIL,
    "cpp/common/cond.h": COND,
    "cpp/plugins/aPlugin/aPlugin.cpp": plugin(
        "APlugin", '#include "common/util.h"\n#ifdef DEMO_NEVER_DEFINED\n#include "common/cond.h"\n#endif',
        "    demo::scratch(16);"),
    "cpp/plugins/bPlugin/bPlugin.cpp": plugin(
        "BPlugin", '#include "common/util.h"\n#include "common/cond.h"', "    demo::scratch(8);\n    demo::condScratch(8);\n    demo::Box box;"),
}


def _run(root, monkeypatch, shared: bool, cache: bool = False):
    monkeypatch.setenv("TRTLINT_SHARED_HEADERS", "1" if shared else "0")
    return run(Settings(root=root), jobs=1, use_cache=cache)


def _index_facts(res) -> dict:
    ix = res.index
    return {
        "functions": {k: to_json(v) for k, v in ix.functions.items()},
        "classes": {k: to_json(v) for k, v in ix.classes.items()},
        "lifecycle": {k: to_json(v) for k, v in ix.lifecycle.items()},
        "includes": {p: ff.includes for p, ff in ix.files.items()},
    }


def _findings(res) -> list:
    return sorted((d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics)


def test_plan_leaves_a_shared_header_to_the_first_unit_that_names_it(tmp_path):
    write_project(tmp_path, FILES)
    ctx = ExtractContext(root=tmp_path)
    units = [SourceFile(tmp_path / r, r, "cpp", "") for r in sorted(FILES) if r.endswith(".cpp")]
    plan = shared_header_plan(units, ctx, lambda rel: rel.startswith("cpp/common/"))
    assert [(f.rel, f.skip) for f in plan] == [
        ("cpp/plugins/aPlugin/aPlugin.cpp", ()),
        ("cpp/plugins/bPlugin/bPlugin.cpp", ("cpp/common/cond.h", "cpp/common/util.h")),
    ]
    # a header the candidate test refuses (e.g. one with a plugin marker) is walked by every includer
    plan = shared_header_plan(units, ctx, lambda rel: rel == "cpp/common/util.h")
    assert plan[1].skip == ("cpp/common/util.h",)


def test_index_and_findings_equal_walking_every_header_in_every_unit(tmp_path, monkeypatch):
    write_project(tmp_path, FILES)
    shared = _run(tmp_path, monkeypatch, True)
    every = _run(tmp_path, monkeypatch, False)
    assert _index_facts(shared) == _index_facts(every)
    found = _findings(shared)
    assert found == _findings(every)
    # an allocation in each header, reached from enqueue (bPlugin reaches cond.h through the header it skipped);
    # one finding per allocation site, naming every plugin that reaches it, on the first path to it
    assert found == [
        ("TRT301", "cpp/common/cond.h", 8, "cudaMalloc (device allocation) allocates on the hot path of "
         "BPlugin::enqueue: BPlugin::enqueue -> condScratch -> cudaMalloc"),
        ("TRT301", "cpp/common/util.h", 8, "cudaMalloc (device allocation) allocates on the hot path of "
         "APlugin::enqueue, BPlugin::enqueue: APlugin::enqueue -> scratch -> cudaMalloc"),
    ]  # (each cudaMalloc's discarded status is its TRT301 finding's note "also TRT304": one finding per call)
    files = shared.index.files
    a, b = files["cpp/plugins/aPlugin/aPlugin.cpp"], files["cpp/plugins/bPlugin/bPlugin.cpp"]
    # util.h is walked by aPlugin only; cond.h, which aPlugin's parse did not include, by bPlugin after all
    assert {fn.qualname for fn in a.functions} == {"APlugin::enqueue", "demo::scratch"}
    # bPlugin also has the defaulted constructor of util.h it uses (aPlugin, which walks util.h, does not use
    # it, so for aPlugin's parse it is no definition)
    assert {fn.qualname for fn in b.functions} == {"BPlugin::enqueue", "demo::condScratch", "demo::Box::Box"}
    assert b.includes == ("cpp/common/cond.h", "cpp/common/util.h")  # skipped headers are still recorded
    assert a.includes == ("cpp/common/util.h",)


def test_owner_dropping_the_include_hands_the_header_to_the_next_unit(tmp_path, monkeypatch):
    """The plan is part of a unit's cache key: when the unit that walked a header stops including it, the next
    includer's cached facts (made while skipping it) are not reused, and the header's facts stay in the index."""
    write_project(tmp_path, FILES)
    first = _run(tmp_path, monkeypatch, True, cache=True)
    assert "demo::scratch" in {fn.qualname for fn in first.index.functions.values()}
    a = tmp_path / "cpp/plugins/aPlugin/aPlugin.cpp"
    a.write_text(a.read_text().replace('#include "common/util.h"\n', "").replace("    demo::scratch(16);\n", ""))
    warm = _run(tmp_path, monkeypatch, True, cache=True)
    cold = _run(tmp_path, monkeypatch, False)
    assert _index_facts(warm) == _index_facts(cold)
    assert _findings(warm) == _findings(cold)
    b = warm.index.files["cpp/plugins/bPlugin/bPlugin.cpp"]
    assert {fn.qualname for fn in b.functions} == {"BPlugin::enqueue", "demo::scratch", "demo::condScratch",
                                                   "demo::Box::Box"}
    again = _run(tmp_path, monkeypatch, True, cache=True)  # and the new plan's entries are used from now on
    assert again.files_parsed == 0
    assert _findings(again) == _findings(cold)


def test_skip_set_is_part_of_the_cache_key(tmp_path):
    from trtlint.store.cache import FactCache

    cache = FactCache(tmp_path, ExtractContext(root=tmp_path), {"cpp": "1"})
    src = SourceFile(tmp_path / "a.cpp", "a.cpp", "cpp", "d1")
    assert cache._key(src) == cache._key(dataclasses.replace(src, skip=()))
    assert cache._key(src) != cache._key(dataclasses.replace(src, skip=("common/util.h",)))
    assert cache._key(dataclasses.replace(src, skip=("x.h",))) != cache._key(dataclasses.replace(src, skip=("y.h",)))


def test_editor_dropping_the_include_keeps_the_header_facts(tmp_path, monkeypatch):
    """In the language server, a buffer of the unit that walked a shared header stops including it: the first
    unit that still includes it is extracted again, so the header's findings stay."""
    from trtlint.editor.session import Session

    write_project(tmp_path, FILES)
    monkeypatch.setenv("TRTLINT_SHARED_HEADERS", "1")
    s = Session(tmp_path, jobs=1, use_cache=False)
    try:
        s.load()
        b = s.facts["cpp/plugins/bPlugin/bPlugin.cpp"]
        assert "demo::scratch" not in {fn.qualname for fn in b.functions}  # left to aPlugin by the full run
        a = (tmp_path / "cpp/plugins/aPlugin/aPlugin.cpp").read_text()
        s.set_buffer("cpp/plugins/aPlugin/aPlugin.cpp",
                     a.replace('#include "common/util.h"\n', "").replace("    demo::scratch(16);\n", ""))
        found = sorted((d.code, d.span.path, d.message.split(": ")[-1]) for d in s.check())
        assert found == [
            ("TRT301", "cpp/common/cond.h", "BPlugin::enqueue -> condScratch -> cudaMalloc"),
            ("TRT301", "cpp/common/util.h", "BPlugin::enqueue -> scratch -> cudaMalloc"),
        ]  # (with TRT304 as their notes: one finding per call)
    finally:
        s.close()


# -- the function bodies of a skipped header are blanked before the parse -----------------------------------

def _blanked(text: str) -> list[str]:
    """The first line of every body blank_function_bodies blanked (the text up to the brace)."""
    from trtlint.frontends.cpp.device import blank_function_bodies

    out, opened = blank_function_bodies(text)
    assert len(out.encode()) == len(text.encode()) and out.count("\n") == text.count("\n")
    return [text[text.rfind("\n", 0, at) + 1:at].strip() for at in opened]


def test_function_bodies_are_blanked_in_namespaces_classes_and_linkage_specs():
    text = (
        "#pragma once\n"
        "namespace a { inline namespace v1 {\n"
        "inline int f(int x) { if (x) { return 1; } return 2; }\n"
        "template <typename T, int N = 3> T k(T t) { return t; }\n"
        "struct S : public Base {\n"
        "  int get() const noexcept override { return m; }\n"
        "  template <class U> void put(U u) { m = u; }\n"
        "  int m{0};\n"
        "};\n"
        "extern \"C\" { void c() { go(); } }\n"
        "void withDirective() {\n#ifdef X\n  one();\n#else\n  two();\n#endif\n}\n"
        "}}\n"
    )
    assert _blanked(text) == [
        "inline int f(int x)", "template <typename T, int N = 3> T k(T t)", "int get() const noexcept override",
        "template <class U> void put(U u)", 'extern "C" { void c()', "void withDirective()",
    ]
    from trtlint.frontends.cpp.device import blank_function_bodies

    out, _ = blank_function_bodies(text)
    assert "#ifdef X\n" in out and "#else\n" in out and "one()" not in out  # directives stay, code goes


def test_bodies_callers_need_or_the_scan_cannot_prove_are_kept():
    kept = [
        "constexpr int g() { return 3; }\n",  # callable in constant expressions
        "inline auto h() { return 4; }\n",  # the body decides the return type
        "inline auto t() -> int { return 4; }\n",
        "decltype(auto) d() { return x; }\n",
        "struct C { C(int v) : m(v) { init(); } int m; };\n",  # an initializer list
        "enum class E { A, B };\nint arr[] = {1, 2};\n",
        "auto l = [] (int i) { return i; };\n",
        "bool operator==(A const& a, B const& b) { return true; }\n",
        "void sep() { int n = 1'000; }\n",  # a digit separator: beyond the scan
        # clang spells a dependent decltype type the way it first met it, and USRs spell it: kept
        "template <auto L> void load() { static_assert(sizeof(decltype(L)) > 0, \"\"); }\n",
    ]
    for text in kept:
        assert _blanked(text) == [], text
    # a body stepped over is never looked into: the if inside the constexpr function stays
    assert _blanked("constexpr int g(int x) { if (x) { return 1; } return 2; }\nvoid after() { x(); }\n") == [
        "void after()"]
    # past a body whose end cannot be proved, nothing is blanked
    assert _blanked("void first() { a(); }\nvoid inc() {\n#include \"body.inc\"\n}\nvoid later() { b(); }\n") == [
        "void first()"]
    assert _blanked("void odd() {\n#if A\n  if (a) {\n#else\n  if (b) {\n#endif\n  }\n}\nvoid later() { b(); }\n") == []


def test_unit_facts_are_the_same_with_skipped_bodies_blanked(tmp_path, monkeypatch):
    from trtlint.frontends.cpp import unit

    write_project(tmp_path, FILES)
    monkeypatch.setenv("TRTLINT_SHARED_HEADERS", "1")
    monkeypatch.setattr(unit, "_BLANK_SKIPPED", True)
    on = run(Settings(root=tmp_path), jobs=1, use_cache=False)
    monkeypatch.setattr(unit, "_BLANK_SKIPPED", False)
    off = run(Settings(root=tmp_path), jobs=1, use_cache=False)
    assert {p: to_json(ff) for p, ff in on.index.files.items()} == {p: to_json(ff) for p, ff in off.index.files.items()}
    # and the parse really was handed the blanked header: a unit that skips util.h sees no body in it
    ctx = ExtractContext(root=tmp_path)
    units = [SourceFile(tmp_path / r, r, "cpp", "") for r in sorted(FILES) if r.endswith(".cpp")]
    b = shared_header_plan(units, ctx, lambda rel: rel.startswith("cpp/common/"))[1]
    reached = [str(tmp_path / "cpp/common/util.h")]
    out = dict(unit._blank_skipped([], reached, str(tmp_path.resolve()), frozenset(b.skip), frozenset()))
    assert "cudaMalloc" not in out[reached[0]] and "inline void* scratch(size_t n)" in out[reached[0]]
    assert unit._blank_skipped([], reached, str(tmp_path.resolve()), frozenset(), frozenset()) == []


def test_units_the_call_graph_expansion_parses_leave_walked_headers_alone(tmp_path, monkeypatch):
    """A kernel unit parsed only because the hot path calls into it (the call-graph expansion) leaves alone the
    shared headers the plugin units walked; the index and the findings equal those of walking every header."""
    import shutil
    from pathlib import Path

    from trtlint.config.settings import load_settings

    root = tmp_path / "p"
    shutil.copytree(Path(__file__).parent / "fixtures" / "edgellm_mini", root)
    monkeypatch.setenv("TRTLINT_SHARED_HEADERS", "1")
    shared = run(load_settings(root), jobs=1, use_cache=False)
    monkeypatch.setenv("TRTLINT_SHARED_HEADERS", "0")
    every = run(load_settings(root), jobs=1, use_cache=False)
    # barPlugin.cpp comes first and walks the kernel header (and the macros header it includes)
    assert shared.skips == {
        "cpp/plugins/fooPlugin/fooPlugin.cpp": ("cpp/common/checkMacros.h", "cpp/kernels/fooKernels.h"),
        "cpp/kernels/fooKernels.cu": ("cpp/common/checkMacros.h", "cpp/kernels/fooKernels.h"),
    }
    assert every.skips == {}
    assert _index_facts(shared) == _index_facts(every)
    assert _findings(shared) == _findings(every)
    assert any(code == "TRT301" and path == "cpp/kernels/fooKernels.cu" for code, path, _l, _m in _findings(shared))


def test_what_units_include_is_remembered_until_a_header_changes(tmp_path, monkeypatch):
    """The text walk of the units' #include lines is kept in the cache (reach.json): a re-run after an edit
    walks again only the units whose text, or a header they reached, changed."""
    from trtlint.frontends import cpp

    write_project(tmp_path, FILES)
    walked: list = []
    real = cpp.reached_headers

    def counting(units, ctx):
        walked.extend(f.rel for f in units)
        return real(units, ctx)

    monkeypatch.setattr(cpp, "reached_headers", counting)
    first = _run(tmp_path, monkeypatch, True, cache=True)
    assert sorted(walked) == ["cpp/plugins/aPlugin/aPlugin.cpp", "cpp/plugins/bPlugin/bPlugin.cpp"]
    b = tmp_path / "cpp/plugins/bPlugin/bPlugin.cpp"
    b.write_text(b.read_text() + "// edited\n")
    walked.clear()
    _run(tmp_path, monkeypatch, True, cache=True)
    assert walked == ["cpp/plugins/bPlugin/bPlugin.cpp"]  # aPlugin's include walk came from the memo
    # a header both reach now includes another one: both are walked again, and both plans see it
    write_project(tmp_path, {"cpp/common/extra.h": "#pragma once\nnamespace demo\n{\ninline int extra() { return 1; }\n}\n"})
    util = tmp_path / "cpp/common/util.h"
    util.write_text(util.read_text().replace("#include <cuda_runtime.h>\n", '#include <cuda_runtime.h>\n#include "extra.h"\n'))
    walked.clear()
    after = _run(tmp_path, monkeypatch, True, cache=True)
    assert sorted(walked) == ["cpp/plugins/aPlugin/aPlugin.cpp", "cpp/plugins/bPlugin/bPlugin.cpp"]
    # (cond.h, which aPlugin's parse does not include, was given back to bPlugin both times)
    assert first.skips == {"cpp/plugins/bPlugin/bPlugin.cpp": ("cpp/common/util.h",)}
    assert after.skips == {"cpp/plugins/bPlugin/bPlugin.cpp": ("cpp/common/extra.h", "cpp/common/util.h")}
    assert _index_facts(after) == _index_facts(_run(tmp_path, monkeypatch, False))


def test_definitions_only_one_includer_sees_are_walked_by_it(tmp_path, monkeypatch):
    """A shared header may define more in one unit than in another (an #if on a macro the unit defines before
    including it): the unit that skipped it notes what its parse defines there, and the engine extracts it
    again without skipping when the index lacks one of those definitions."""
    gated = UTIL.replace("struct Box", "#ifdef DEMO_WITH_EXTRA\ninline int extraOnly() { return 2; }\n#endif\nstruct Box")
    files = dict(FILES, **{
        "cpp/common/util.h": gated,
        "cpp/plugins/bPlugin/bPlugin.cpp": "#define DEMO_WITH_EXTRA 1\n" + FILES["cpp/plugins/bPlugin/bPlugin.cpp"],
    })
    write_project(tmp_path, files)
    shared = _run(tmp_path, monkeypatch, True)
    every = _run(tmp_path, monkeypatch, False)
    assert _index_facts(shared) == _index_facts(every)
    assert "demo::extraOnly" in {fn.qualname for fn in shared.index.functions.values()}
    b = shared.index.files["cpp/plugins/bPlugin/bPlugin.cpp"]
    assert "demo::extraOnly" in {fn.qualname for fn in b.functions}  # bPlugin walked util.h after all
    assert shared.skips == {}  # (cond.h went back to it too: aPlugin's parse does not include it)


def test_bench_units_only_gives_the_units_the_skip_sets_of_a_check(tmp_path):
    """bench/units_only.py (the units-only side of the clang-tidy comparison) extracts the units a check parsed
    with the skip sets a check gives them, in one batch or in a check's two phases."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from trtlint.config.settings import load_settings

    root = tmp_path / "p"
    shutil.copytree(Path(__file__).parent / "fixtures" / "edgellm_mini", root)
    res = run(load_settings(root), jobs=1, use_cache=False)
    units = sorted(p for p, f in res.index.files.items() if f.kind in ("cpp", "cuda") and (f.functions or f.classes))
    script = Path(__file__).resolve().parents[1] / "bench" / "units_only.py"
    outs = []
    for mode in ([], ["--phases"]):
        p = subprocess.run([sys.executable, str(script), *mode, str(root), "2", *units], capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        outs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    functions = sum(len(res.index.files[u].functions) for u in units)
    expect = {"units": len(units), "headers_left_to_another_unit": sum(len(s) for s in res.skips.values()),
              "with_problems": 0, "functions": functions, "classes": sum(len(res.index.files[u].classes) for u in units)}
    assert outs == [expect, expect]
    assert expect["headers_left_to_another_unit"] == 4
