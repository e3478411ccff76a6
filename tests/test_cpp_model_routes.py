"""Issue 23 item 1: C++ model code is a route. ``getPluginRegistry()->getPluginCreator/getCreator`` with the
``PluginField``s the same function builds for ``createPlugin`` (constructed, or filled field by field) are judged
like the Python routes (real libclang)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .helpers import check_project

FIXTURE = Path(__file__).parent / "fixtures" / "cpp_model"


def test_cpp_model_lookups_are_routes(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "p")
    res = check_project(tmp_path / "p", select=["TRT101", "TRT102", "TRT103", "TRT104", "TRT105", "TRT107"])
    got = sorted((d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics)
    assert [(c, p, ln) for c, p, ln, _ in got] == [
        ("TRT101", "src/model.cpp", 8),
        ("TRT103", "src/model.cpp", 14),
    ], got
    assert "getPluginCreator(\"LayerNorn\", \"1\", \"\") names plugin 'LayerNorn'" in got[0][3]
    assert "closest registered: 'LayerNorm'" in got[0][3]
    assert "attribute 'eps' of getCreator(\"LayerNorm\", \"1\", \"\") is not a field creator LayerNormCreator declares" in got[1][3]
    # the three lookups are in the index, the field-by-field one with its name and type
    lks = sorted(res.index.lookups, key=lambda lk: lk.span.line)
    assert [(lk.name, lk.version, lk.namespace, lk.form) for lk in lks] == [
        ("LayerNorn", "1", "", "getPluginCreator"),
        ("LayerNorm", "1", "", "getCreator"),
        ("LayerNorm", "1", "", "getCreator"),
    ]
    assert [(a.name, a.type) for a in lks[2].attrs] == [("epsilon", "kFLOAT32")]


def test_field_by_field_type_drift(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "p")
    model = tmp_path / "p" / "src" / "model.cpp"
    model.write_text(model.read_text().replace("pf.type = PluginFieldType::kFLOAT32;", "pf.type = PluginFieldType::kFLOAT16;"))
    res = check_project(tmp_path / "p", select=["TRT105"])
    got = [(d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics]
    assert got == [("TRT105", "src/model.cpp", 26,
                    "field 'epsilon' passed to getCreator(\"LayerNorm\", \"1\", \"\") is built as kFLOAT16, but creator "
                    "LayerNormCreator declares 'epsilon' as kFLOAT32 in getFieldNames(): the two disagree, so either "
                    "createPlugin reads this field as the wrong type or every route that trusts the declaration does; "
                    "fix this side (build it as kFLOAT32) unless createPlugin reads it as kFLOAT16, then fix the "
                    "declaration")], got


def test_lookup_is_not_creator_in_model_file_without_a_profile_saying_so(tmp_path):
    """A codebase whose design is to build networks in C++: the lookup is a route, not a TRT107 finding; a
    configured model-files glob makes it one."""
    shutil.copytree(FIXTURE, tmp_path / "p")
    assert [d for d in check_project(tmp_path / "p", select=["TRT107"]).diagnostics] == []
    res = check_project(tmp_path / "p", select=["TRT107"], config={"model-files": ["src/**"]})
    assert sorted(d.span.line for d in res.diagnostics) == [8, 13, 24]
