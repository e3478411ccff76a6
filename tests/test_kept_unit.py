"""The editor's kept translation unit (frontends/cpp/kept.py, issue 36): a unit re-parsed with libclang's preamble
(``tu.reparse``), its own declarations walked and its headers' part taken from its last complete extraction, gives
the facts of a fresh parse; an edit of its leading ``#include`` block parses it afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtlint.frontends import ExtractContext, SourceFile

pytest.importorskip("clang.cindex")

from trtlint.frontends.cpp import fnmemo, kept, unit  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "edgellm_mini"
FOO = "cpp/plugins/fooPlugin/fooPlugin.cpp"
CTX = ExtractContext(root=FIX, include_dirs=(str(FIX / "cpp"),))
FOO_TEXT = (FIX / FOO).read_text(encoding="utf-8")
ENQUEUE = "void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept\n{"


def _src(text: str) -> SourceFile:
    return SourceFile(path=FIX / FOO, rel=FOO, kind="cpp", digest=str(hash(text)), text=text)


def _insert_after(text: str, anchor: str, line: str) -> str:
    i = text.index(anchor)
    j = text.index("\n", i + len(anchor) - 1) + 1
    return text[:j] + line + text[j:]


@pytest.fixture
def keeping():
    kept.clear()
    fnmemo.forget()
    was = kept.ENABLED
    kept.ENABLED = True
    yield
    kept.ENABLED = was
    kept.clear()
    fnmemo.forget()


def _fresh(text: str):
    was = kept.ENABLED
    kept.ENABLED = False
    saved = dict(fnmemo._MEMO)
    fnmemo.forget()
    try:
        return unit.extract(_src(text), CTX)
    finally:
        fnmemo._MEMO.update(saved)
        kept.ENABLED = was


def _steps(texts: list[str]) -> list[tuple[str, object, object]]:
    """(how the kept extraction went, its facts, a fresh parse's facts) per text, in order."""
    out = []
    for t in texts:
        before = dict(kept.STATS)
        got = unit.extract(_src(t), CTX)
        how = [w for w in kept.STATS if kept.STATS[w] != before.get(w, 0)]
        out.append(("/".join(how), got, _fresh(t)))
    return out


def test_edits_through_the_kept_unit_give_a_fresh_parses_facts(keeping):
    typed = _insert_after(FOO_TEXT, ENQUEUE, "    void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);\n")
    commented = _insert_after(typed, ENQUEUE, "    // a comment\n")
    added = commented + "\nstatic int trtlintAdded(int x)\n{\n    return x + 1;\n}\n"
    steps = _steps([FOO_TEXT, typed, commented, added, FOO_TEXT])
    assert [h for h, _g, _f in steps] == ["fresh: none kept", "kept", "kept", "kept", "kept"]
    for how, got, fresh in steps:
        assert got == fresh, how
    # the headers' part is there: the plugin classes (declared in fooPlugin.h) and the includes
    got = steps[1][1]
    assert {c.span.path for c in got.classes} == {"cpp/plugins/fooPlugin/fooPlugin.h"}
    assert "cpp/plugins/fooPlugin/fooPlugin.h" in got.includes
    assert any(c.callee == "cudaMalloc" for f in got.functions if f.name == "enqueue" for c in f.calls)


def test_an_edit_of_the_include_block_parses_the_unit_afresh(keeping):
    typed = _insert_after(FOO_TEXT, ENQUEUE, "    cudaMalloc(nullptr, 64);\n")
    moved = typed.replace('#include "fooPlugin.h"\n', '#include "fooPlugin.h"\n#define TRTLINT_PROBE 1\n', 1)
    steps = _steps([FOO_TEXT, typed, moved, typed])
    assert [h for h, _g, _f in steps] == ["fresh: none kept", "kept", "fresh: preamble text", "fresh: preamble text"]
    for how, got, fresh in steps:
        assert got == fresh, how


def test_a_header_buffer_edit_parses_the_unit_afresh(keeping):
    from trtlint import frontends

    header = FIX / "cpp/plugins/fooPlugin/fooPlugin.h"
    typed = _insert_after(FOO_TEXT, ENQUEUE, "    cudaMalloc(nullptr, 64);\n")
    try:
        _steps([FOO_TEXT])
        frontends.UNSAVED[str(header)] = header.read_text(encoding="utf-8") + "\n// edited\n"
        steps = _steps([typed])
    finally:
        frontends.UNSAVED.pop(str(header), None)
    assert steps[0][0] == "fresh: context or buffers"
    assert steps[0][1] == steps[0][2]


def test_the_command_line_keeps_nothing():
    kept.clear()
    assert not kept.ENABLED
    unit.extract(_src(FOO_TEXT), CTX)
    assert not kept._KEPT


HEADER = FIX / "cpp/plugins/fooPlugin/fooPlugin.h"
# a header class with defaulted members (clang defines them only in a unit that uses them: kept.check_defaults)
HELPER = "\nnamespace mini\n{\nstruct TrtlintHelper\n{\n    TrtlintHelper() = default;\n    ~TrtlintHelper() = default;\n    int x;\n};\n} // namespace mini\n"


@pytest.fixture
def helper_header():
    from trtlint import frontends

    frontends.UNSAVED[str(HEADER)] = HEADER.read_text(encoding="utf-8") + HELPER
    yield
    frontends.UNSAVED.pop(str(HEADER), None)


def test_a_header_location_is_looked_up_once_per_kept_unit(keeping, helper_header, monkeypatch):
    """kept.locate: the first ``SourceLocation.from_offset`` in a preamble header after a reparse reads every source
    location entry of the preamble (~10 ms); a location found once is taken back by its raw encoding on the next
    reparse (checked to decompose to the same file and offset), so later kept extractions look up only the main
    file's; a defaulted member the edit makes defined is still seen."""
    from trtlint.frontends.cpp.base import load

    ci = load()
    typed = _insert_after(FOO_TEXT, ENQUEUE, "    void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);\n")
    commented = _insert_after(typed, ENQUEUE, "    // a comment\n")
    used = _insert_after(typed, ENQUEUE, "    mini::TrtlintHelper trtlintH;\n")
    assert [h for h, _g, _f in _steps([FOO_TEXT, typed])] == ["fresh: none kept", "kept"]
    k = kept.get(str(FIX / FOO))
    assert k is not None and k.defaults and k.raw
    orig = ci.SourceLocation.from_offset
    files = []

    def spy(tu, f, off):
        files.append(f.name)
        return orig(tu, f, off)

    monkeypatch.setattr(ci.SourceLocation, "from_offset", staticmethod(spy))
    steps = _steps([commented, typed])
    monkeypatch.setattr(ci.SourceLocation, "from_offset", staticmethod(orig))
    assert [h for h, _g, _f in steps] == ["kept", "kept"]
    for how, got, fresh in steps:
        assert got == fresh, how
    assert files and all(Path(f).name == Path(FOO).name for f in files), files
    steps = _steps([used, typed])
    assert [h for h, _g, _f in steps] == ["fresh: defaulted member", "fresh: defaulted member"]
    for how, got, fresh in steps:
        assert got == fresh, how


def test_a_raw_location_that_does_not_decompose_as_before_is_looked_up_again(keeping, helper_header):
    typed = _insert_after(FOO_TEXT, ENQUEUE, "    void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);\n")
    _steps([FOO_TEXT, typed])
    k = kept.get(str(FIX / FOO))
    assert k is not None and k.raw
    good = dict(k.raw)
    for key, (raw, name) in good.items():
        k.raw[key] = (raw + 1, name)  # one byte off: another offset
    steps = _steps([FOO_TEXT])
    assert [h for h, _g, _f in steps] == ["kept"]
    assert steps[0][1] == steps[0][2]
    assert k.raw == good


def test_the_editors_extraction_worker_keeps_an_edited_unit():
    """The LSP server's worker process (pipeline/isolated.py) turns the kept unit on: the second extraction of an
    edited unit goes through it, with a fresh parse's facts."""
    from trtlint.pipeline.isolated import IsolatedExtractor

    iso = IsolatedExtractor()
    try:
        first = iso.extract(_src(FOO_TEXT), CTX, 120.0, {})
        edited = _insert_after(FOO_TEXT, ENQUEUE, "    void* p = nullptr; cudaMalloc(&p, 4);\n")
        second = iso.extract(_src(edited), CTX, 120.0, {})
        stats = iso.stats()
    finally:
        iso.close()
    assert not first.problems or all("timed out" not in p.message for p in first.problems)
    assert stats.get("kept", 0) >= 1, stats
    assert second == _fresh(edited)
