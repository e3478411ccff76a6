"""The fact cache: warm runs reuse facts; editing an included header re-extracts its includers."""

from __future__ import annotations

from trtlint.config import Settings
from trtlint.engine import run

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


def test_fact_json_round_trip_both_readers():
    import json

    from trtlint.facts import (
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

    from trtlint.engine import run as run_

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
