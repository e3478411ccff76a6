"""The fact cache: warm runs reuse facts; editing an included header re-extracts its includers."""

from __future__ import annotations

from trtlint.config.settings import Settings
from trtlint.pipeline.run import run

from .helpers import write_project

HEADER = '#pragma once\nconstexpr char const* kNAME{"%s"};\n'
CPP = """#include <NvInferRuntime.h>
#include "names.h"
using namespace nvinfer1;
class FooCreator : public IPluginCreatorV3One
{
public:
    char const* getPluginName() const noexcept override { return kNAME; }
    char const* getPluginVersion() const noexcept override { return "1"; }
};
REGISTER_TENSORRT_PLUGIN(FooCreator);
"""


def names(root):
    res = run(Settings(root=root), jobs=1, use_cache=True)
    return [c.plugin_name for c in res.index.creators], res.files_parsed


def test_warm_run_parses_nothing_and_header_edit_reparses(tmp_path):
    write_project(tmp_path, {"plugins/names.h": HEADER % "FooPlugin", "plugins/foo.cpp": CPP, "a.py": "x = 1\n"})
    assert names(tmp_path) == (["FooPlugin"], 2)
    assert names(tmp_path) == (["FooPlugin"], 0)  # warm: everything from the cache
    (tmp_path / "plugins/names.h").write_text(HEADER % "BarPlugin")
    assert names(tmp_path) == (["BarPlugin"], 1)  # the includer was re-extracted
    (tmp_path / "a.py").write_text("y = 2\n")
    assert names(tmp_path) == (["BarPlugin"], 1)


def test_corrupt_cache_entry_is_a_miss(tmp_path):
    write_project(tmp_path, {"plugins/names.h": HEADER % "FooPlugin", "plugins/foo.cpp": CPP})
    names(tmp_path)
    entries = list((tmp_path / ".trtlint_cache").rglob("*.pkl"))
    assert entries
    for p in entries:
        p.write_bytes(b"\x80\x05not a pickle")
    assert names(tmp_path) == (["FooPlugin"], 1)


def test_planted_cache_entry_cannot_call_anything(tmp_path):
    """A cache entry is a pickle read with a restricted unpickler: only fact dataclasses resolve."""
    import pickle

    write_project(tmp_path, {"plugins/names.h": HEADER % "FooPlugin", "plugins/foo.cpp": CPP})
    names(tmp_path)
    canary = tmp_path / "canary"

    class Evil:
        def __reduce__(self):
            return (open, (str(canary), "w"))

    for p in (tmp_path / ".trtlint_cache").rglob("*.pkl"):
        p.write_bytes(pickle.dumps({"deps": {}, "facts": Evil()}))
    assert names(tmp_path) == (["FooPlugin"], 1)  # a miss: re-extracted
    assert not canary.exists()


def test_warm_run_keeps_onnx_runtime_ops(tmp_path):
    """The ONNX Runtime custom ops a header defines (base/ortfacts.py, re-exported by facts.py) come back from the
    cache: its restricted unpickler accepts them (else a warm run re-extracts every such unit)."""
    from trtlint.checks.examples.contract import ort_op_h

    write_project(tmp_path, {"plugins/names.h": HEADER % "FooPlugin", "plugins/foo.cpp": CPP,
                             "ort/soft_nms.h": ort_op_h("SoftNms", "SoftNmsOp")})

    def ops():
        res = run(Settings(root=tmp_path), jobs=1, use_cache=True)
        return [(o.name, o.op_name) for o in res.index.ort_ops], res.files_parsed

    assert ops() == ([("SoftNmsOp", "SoftNms")], 2)  # foo.cpp (with names.h) and the ONNX Runtime header
    assert ops() == ([("SoftNmsOp", "SoftNms")], 0)


def test_fact_json_round_trip_both_readers():
    import json

    from trtlint.base.facts import (
        Call,
        CppFunction,
        DirectRouteTable,
        FileFacts,
        Span,
        from_json,
        loads_facts,
        to_json,
    )

    ff = FileFacts(
        path="a.cpp",
        kind="cpp",
        digest="d",
        functions=(CppFunction(usr="u", qualname="q", name="n", span=Span("a.cpp", 1), calls=(Call("c", Span("a.cpp", 2), args=("x", "y"), guard="static-init"),)),),
        route_tables=(DirectRouteTable("t", Span("a.py", 1), entries=(("op", "Creator", Span("a.py", 3)),)),),
        suppressions=((3, ("TRT101", "TRT102")),),
    )
    text = json.dumps(to_json(ff))
    assert loads_facts(text) == ff
    assert from_json(json.loads(text)) == ff


def test_unchanged_files_are_not_rehashed_but_edits_are_seen(tmp_path):
    import os

    from trtlint.pipeline.run import run as run_

    write_project(tmp_path, {"plugins/names.h": HEADER % "FooPlugin", "plugins/foo.cpp": CPP, "a.py": "x = 1\n"})
    # age the files so the last run's stat entries are trusted (an edit within 2 s of a run is re-hashed)
    for p in tmp_path.rglob("*"):
        if p.is_file():
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns - 10_000_000_000))
    run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    assert res.discovery.hashed == 0 and res.files_parsed == 0
    (tmp_path / "plugins/names.h").write_text(HEADER % "BarPlugin")  # same size, new mtime
    res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    assert res.discovery.hashed == 1
    assert [c.plugin_name for c in res.index.creators] == ["BarPlugin"]


def test_digests_made_with_another_function_are_not_reused(tmp_path):
    """stats.json names its digest function: a tree last checked by a trtlint that hashed with another one
    is hashed again, so --fix never compares a file with a digest of a different kind."""
    import json
    import os

    from trtlint.index.discover import DIGEST_NAME, digest_bytes
    from trtlint.pipeline.run import run as run_

    write_project(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    for p in tmp_path.rglob("*"):
        if p.is_file():
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns - 10_000_000_000))
    res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    assert res.discovery.hashed == 2
    stats = tmp_path / ".trtlint_cache" / "stats.json"
    data = json.loads(stats.read_text())
    assert data["digest"] == DIGEST_NAME
    assert data["files"]["a.py"][3] == digest_bytes(b"x = 1\n")
    assert run_(Settings(root=tmp_path), jobs=1, use_cache=True).discovery.hashed == 0
    data["digest"] = "blake2b-128"  # as an older trtlint would have written it
    for v in data["files"].values():
        v[3] = "0" * 32
    stats.write_text(json.dumps(data))
    res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    assert res.discovery.hashed == 2
    assert {f.rel: f.digest for f in res.discovery.files}["a.py"] == digest_bytes(b"x = 1\n")


# -- text-scan cache (scancache.py) and whole-run memo (runmemo.py) ------------------------------------------

LAZY_CPP = "int helper(int x) { return x + 1; }\n"
GTEST_CPP = '#include <gtest/gtest.h>\nTEST(FooSuite, First) { }\n'


def _age(root):
    import os

    for p in root.rglob("*"):
        if p.is_file() and ".trtlint_cache" not in p.parts:
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns - 10_000_000_000))


def _codes(res):
    return sorted((d.code, d.span.path, d.span.line) for d in res.diagnostics)


def test_warm_run_reads_no_unchanged_file_and_sees_edits(tmp_path):
    from trtlint.pipeline.run import run as run_

    write_project(
        tmp_path,
        {"plugins/foo.cpp": CPP, "plugins/util.cpp": LAZY_CPP, "tests/foo_test.cpp": GTEST_CPP, "a.py": "x = 1\n"},
    )
    _age(tmp_path)
    res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    assert res.files_parsed == 2  # foo.cpp (a plugin marker) and a.py; util.cpp and the test are lazy
    assert not any(d.code == "TRT002" for d in res.diagnostics)
    cases = [t.name for ff in res.index.files.values() for t in ff.test_cases]
    assert cases == ["First"]

    # warm: every text scan comes from the cache, no file is read for them
    from trtlint.store import scancache

    reads = []
    orig = scancache.read_bytes
    scancache.read_bytes = lambda f: reads.append(f.rel) or orig(f)
    try:
        res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
        assert reads == [] and res.files_parsed == 0 and res.discovery.hashed == 0

        # a new suppression comment (an unused one: TRT002 reports it), a new TEST(), a new plugin marker
        (tmp_path / "a.py").write_text("x = 1  # trtlint: ignore[TRT101]\n")
        (tmp_path / "tests/foo_test.cpp").write_text(GTEST_CPP + "TEST(FooSuite, Second) { }\n")
        (tmp_path / "plugins/util.cpp").write_text(CPP.replace("Foo", "Util"))
        res = run_(Settings(root=tmp_path), jobs=1, use_cache=True)
    finally:
        scancache.read_bytes = orig
    assert sorted(reads) == ["a.py", "a.py", "plugins/util.cpp", "tests/foo_test.cpp"]  # a.py: scanned, then read
    assert ("TRT002", "a.py", 1) in _codes(res)
    cases = sorted(t.name for ff in res.index.files.values() for t in ff.test_cases)
    assert cases == ["First", "Second"]
    assert sorted(c.cls.qualname for c in res.index.creators) == ["FooCreator", "UtilCreator"]


def test_scan_cache_without_trtlint_comment_after_edit(tmp_path):
    """Removing a suppression comment is seen too (the file's scan result changes with its digest)."""
    from trtlint.pipeline.run import run as run_

    write_project(tmp_path, {"a.py": "x = 1  # trtlint: ignore[TRT101]\n"})
    _age(tmp_path)
    assert ("TRT002", "a.py", 1) in _codes(run_(Settings(root=tmp_path), jobs=1, use_cache=True))
    (tmp_path / "a.py").write_text("x = 1  # no comment here any more\n")
    assert ("TRT002", "a.py", 1) not in _codes(run_(Settings(root=tmp_path), jobs=1, use_cache=True))


def test_run_memo_hit_and_invalidation(tmp_path):
    from trtlint.pipeline.run import run as run_

    write_project(tmp_path, {"plugins/foo.cpp": CPP, "a.py": "x = 1  # trtlint: ignore[TRT101]\n"})
    _age(tmp_path)
    first = run_(Settings(root=tmp_path), jobs=1, use_cache=True, memo=True)
    assert first.index is not None and ("TRT002", "a.py", 1) in _codes(first)
    hit = run_(Settings(root=tmp_path), jobs=1, use_cache=True, memo=True)
    assert hit.index is None and "memo" in hit.timings  # nothing loaded, indexed or checked
    assert [d.to_dict() for d in hit.diagnostics] == [d.to_dict() for d in first.diagnostics]
    # other settings: a miss
    s = Settings(root=tmp_path)
    s.ignore = ["TRT002"]
    other = run_(s, jobs=1, use_cache=True, memo=True)
    assert other.index is not None and ("TRT002", "a.py", 1) not in _codes(other)
    # an edit: a miss, and the new findings
    (tmp_path / "a.py").write_text("x = 1\n")
    edited = run_(Settings(root=tmp_path), jobs=1, use_cache=True, memo=True)
    assert edited.index is not None and ("TRT002", "a.py", 1) not in _codes(edited)
    # a nested config file appearing below the root: a miss
    (tmp_path / "plugins" / "trtlint.toml").write_text("[tool.trtlint]\n")
    assert run_(Settings(root=tmp_path), jobs=1, use_cache=True, memo=True).index is not None


def test_planted_run_memo_cannot_call_anything(tmp_path):
    import pickle

    from trtlint.pipeline.run import run as run_

    write_project(tmp_path, {"a.py": "x = 1\n"})
    _age(tmp_path)
    run_(Settings(root=tmp_path), jobs=1, use_cache=True, memo=True)
    memos = list((tmp_path / ".trtlint_cache").rglob("runs/*.pkl"))
    assert len(memos) == 1

    class Evil:
        def __reduce__(self):
            return (exec, ("raise SystemExit('planted')",))

    memos[0].write_bytes(pickle.dumps({"diagnostics": [Evil()]}))
    res = run_(Settings(root=tmp_path), jobs=1, use_cache=True, memo=True)
    assert res.index is not None  # refused: a miss, the run goes on


def test_exclude_pattern_answers_are_remembered_per_pattern_set(tmp_path):
    from trtlint.pipeline.run import run as run_

    write_project(tmp_path, {"a.py": "x = 1\n", "gen/b.py": "y = 2\n"})
    _age(tmp_path)

    def files(exclude):
        s = Settings(root=tmp_path)
        s.exclude = exclude
        return sorted(f.rel for f in run_(s, jobs=1, use_cache=True).discovery.files)

    assert files(["gen/"]) == ["a.py"]
    assert files(["gen/"]) == ["a.py"]  # answered from .trtlint_cache/globs.json
    assert (tmp_path / ".trtlint_cache" / "globs.json").is_file()
    assert files([]) == ["a.py", "gen/b.py"]  # another pattern set
    assert files(["*.py", "!a.py"]) == ["a.py"]
    (tmp_path / "gen" / "c.py").write_text("z = 3\n")  # a new path: asked afresh
    assert files(["gen/"]) == ["a.py"]
    assert files(["gen/b.py"]) == ["a.py", "gen/c.py"]


def test_expansion_memo_follows_calls_not_bytes(tmp_path):
    """The call-graph expansion's memo (which lazily skipped units to parse) survives an edit of a plugin unit
    that leaves its calls alone, and a new call to a function in a skipped unit is followed on the warm run
    exactly as on a cold one."""
    import shutil
    from pathlib import Path

    from trtlint.config.settings import load_settings

    root = tmp_path / "p"
    shutil.copytree(Path(__file__).parent / "fixtures" / "edgellm_mini", root)
    (root / "cpp/kernels/extraKernels.cu").write_text(
        '#include <stdexcept>\nnamespace mini\n{\nvoid extraHelper(int n)\n{\n    if (n < 0)\n    {\n'
        '        throw std::runtime_error("negative");\n    }\n}\n} // namespace mini\n'
    )
    bar = root / "cpp/plugins/barPlugin/barPlugin.cpp"
    memos = root / ".trtlint_cache/v1/expansion"

    def findings(cache: bool = True):
        res = run(load_settings(root), jobs=1, use_cache=cache)
        return sorted((d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics)

    findings()
    before = {p.name for p in memos.glob("*.json")}
    text = bar.read_text()
    bar.write_text(text + "// a comment: no call changed\n")
    findings()
    assert {p.name for p in memos.glob("*.json")} == before  # same call structure: the memo was reused
    edited = text.replace("namespace mini\n{\n", "namespace mini\n{\nvoid extraHelper(int n);\n", 1)
    bar.write_text(edited.replace("checkBarAxis(mAxis);", "checkBarAxis(mAxis);\n        extraHelper(mAxis);"))
    warm = findings()
    assert {p.name for p in memos.glob("*.json")} != before  # a new call: searched again
    assert any(code == "TRT204" and "extraHelper" in msg for code, _p, _l, msg in warm), warm
    assert warm == findings(cache=False)


def test_prefetched_expansion_units_still_see_header_edits(tmp_path):
    """While an edited plugin unit is parsed, the units of the last expansion are loaded ahead (prefetch); one
    whose included header changed in the same edit is a miss there too and is parsed again: the warm run's
    findings equal a cold run's."""
    import shutil
    from pathlib import Path

    from trtlint.config.settings import load_settings

    root = tmp_path / "p"
    shutil.copytree(Path(__file__).parent / "fixtures" / "edgellm_mini", root)

    def check(cache: bool = True):
        res = run(load_settings(root), jobs=1, use_cache=cache)
        # with the notes: the edit leaves the allocation (a macro use named cudaMalloc) but ends the discarded status
        # that TRT301's finding notes as "also TRT304" (one finding per call, issue 24 item 4)
        return sorted((d.code, d.span.path, d.span.line, d.message, d.notes) for d in res.diagnostics), res.files_parsed

    first, _ = check()
    assert any(code == "TRT301" and path == "cpp/kernels/fooKernels.cu" for code, path, _l, _m, _n in first), first
    # the expanded kernel unit's header now hides its allocation behind a macro
    hdr = root / "cpp/kernels/fooKernels.h"
    hdr.write_text(hdr.read_text() + "\n#define cudaMalloc(p, n) (0)\n")
    plugin = root / "cpp/plugins/fooPlugin/fooPlugin.cpp"
    plugin.write_text(plugin.read_text() + "// edited\n")
    warm, parsed = check()
    assert parsed >= 2  # the plugin unit and the kernel unit whose header changed
    assert warm == check(cache=False)[0]
    assert warm != first, "the header edit must show in the findings"


def test_text_scans_find_directives_and_markers_only_where_they_are():
    """The scans behind the cache (``#if`` identifiers, the plugin marker) on the cases their fast paths must
    not change: a directive after blanks, a '#' inside a line, each marker literal alone, cubin-like data."""
    from trtlint.store.scancache import MARKER_LITERALS, has_plugin_marker
    from trtlint.store.scancache import pp_idents, preview_switches

    text = (
        b"#if defined(ENABLE_FP8) && FOO\n"
        b"  \t# ifdef BAR_X\n"
        b"int x = a # if NOT_A_DIRECTIVE\n"
        b'char const* s = "#if NOR_THIS";\n'
        b"#elif BAZ\n#ifndef QUX\n#include <x.h>\n#endif\n"
    )
    assert pp_idents(text) == ("defined", "ENABLE_FP8", "FOO", "BAR_X", "BAZ", "QUX")
    assert pp_idents(b"") == ()
    for lit in MARKER_LITERALS:
        assert has_plugin_marker(b"namespace plugin {\n" + lit + b"\n}"), lit
    cubin = b"namespace nvinfer1 { namespace plugin {\nunsigned char k[] = {" + b"0x7f, 0x45, 0x4c, " * 10000 + b"};\n}}\n"
    assert not has_plugin_marker(cubin)
    assert has_plugin_marker(b"int32_t FooPlugin::enqueue(void const* in)\n{\n}")
    assert not has_plugin_marker(b"// see FooPlugin::enqueue;\n")
    call = b"setPreviewFeature(PreviewFeature::kALIASED_PLUGIN_IO_10_03, true)"
    assert preview_switches(b"x\n  config->" + call + b";\n") == (("ALIASED_PLUGIN_IO_10_03", 2, 11, 11 + len(call)),)
    assert preview_switches(b"config->setPreviewFeature(PreviewFeature::kFOO, false);") == ()
