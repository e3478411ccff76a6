"""A run's kept walk from the unit's cache entry (issue 36; kept.record, unit._stored_kept): a run re-extracting an
edited C++ unit parses it with the bodies of its marker-free project headers blanked, walks only its own declarations
and takes the headers' part from the unit's last cache entry; the facts are a complete extraction's, and anything that
could make the headers' part differ makes the extraction complete again."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from trtlint import frontends
from trtlint.frontends import ExtractContext, SourceFile

pytest.importorskip("clang.cindex")

from trtlint.frontends.cpp import fnmemo, kept, unit  # noqa: E402
from trtlint.store.cache import EntryWriter  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "edgellm_mini"
FOO = "cpp/plugins/fooPlugin/fooPlugin.cpp"
HELPERS = "cpp/common/helpers.h"
ENQUEUE = "void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept\n{"
# a header without a plugin marker: an inline function with a body (blanked in the kept parse, its facts from the entry)
# and a class with defaulted members (clang defines them only in a unit that uses them)
HELPERS_TEXT = """#pragma once
#include <cuda_runtime.h>

namespace mini
{
inline int trtlintRoundUp(int n, int k)
{
    int r = n % k;
    cudaGetLastError();
    return r == 0 ? n : n + k - r;
}
struct TrtlintHelper
{
    TrtlintHelper() = default;
    ~TrtlintHelper() = default;
    int x;
};
} // namespace mini
"""


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "mini"
    shutil.copytree(FIX, root)
    (root / HELPERS).write_text(HELPERS_TEXT, encoding="utf-8")
    foo = root / FOO
    foo.write_text(foo.read_text(encoding="utf-8").replace('#include "fooPlugin.h"\n',
                                                            '#include "fooPlugin.h"\n#include "common/helpers.h"\n', 1),
                   encoding="utf-8")
    kept.clear()
    fnmemo.forget()
    was = (frontends.MEMO_LOAD, frontends.MEMO_OUT, unit._KEPT_HEADERS)
    yield root
    frontends.MEMO_LOAD, frontends.MEMO_OUT, unit._KEPT_HEADERS = was
    fnmemo.forget()


def _insert_after(text: str, anchor: str, line: str) -> str:
    i = text.index(anchor)
    j = text.index("\n", i + len(anchor) - 1) + 1
    return text[:j] + line + text[j:]


class Runs:
    """Extractions of the unit as the workers of successive runs make them (one entry store), each beside a complete
    extraction of the same text."""

    def __init__(self, root: Path, store: Path) -> None:
        self.root = root
        self.ctx = ExtractContext(root=root, include_dirs=(str(root / "cpp"),))
        self.writer = EntryWriter(store, ("ctx", "py"), {"cpp": "v"}, {})

    def src(self, text: str) -> SourceFile:
        return SourceFile(path=self.root / FOO, rel=FOO, kind="cpp", digest=str(hash(text)), text=text)

    def run(self, text: str):
        """(how the run's extraction went, its facts, a complete extraction's facts)."""
        fnmemo.forget()
        frontends.MEMO_LOAD, frontends.MEMO_OUT = self.writer.load_memo, {}
        unit._KEPT_HEADERS = True
        before = dict(kept.STATS)
        got = unit.extract(self.src(text), self.ctx)
        self.writer.put(self.src(text), got, frontends.MEMO_OUT.pop(FOO, None))
        how = "/".join(w for w in kept.STATS if kept.STATS[w] != before.get(w, 0)) or "complete"
        frontends.MEMO_LOAD, frontends.MEMO_OUT = None, None
        unit._KEPT_HEADERS = False
        fnmemo.forget()
        return how, got, unit.extract(self.src(text), self.ctx)


def test_an_edited_unit_takes_its_headers_part_from_its_entry(tree, tmp_path):
    runs = Runs(tree, tmp_path / "store")
    text = (tree / FOO).read_text(encoding="utf-8")
    typed = _insert_after(text, ENQUEUE, "    void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);\n")
    commented = _insert_after(typed, ENQUEUE, "    // a comment\n")
    added = commented + "\nstatic int trtlintAdded(int x)\n{\n    return mini::trtlintRoundUp(x, 4);\n}\n"
    steps = [runs.run(t) for t in (text, typed, commented, added)]
    assert [h for h, _g, _c in steps] == ["complete"] + ["kept from the entry"] * 3
    for how, got, complete in steps:
        assert got == complete, how
    got = steps[3][1]
    # the header's inline function, whose body the kept parse blanked, is there with its calls (from the entry)
    helper = [f for f in got.functions if f.name == "trtlintRoundUp"]
    assert [f.span.path for f in helper] == [HELPERS]
    assert any(c.callee == "cudaGetLastError" for c in helper[0].calls)
    assert {c.span.path for c in got.classes} == {"cpp/plugins/fooPlugin/fooPlugin.h"}
    assert HELPERS in got.includes
    assert any(c.callee == "cudaMalloc" for f in got.functions if f.name == "enqueue" for c in f.calls)


def test_an_edit_of_the_include_block_or_a_header_makes_it_complete(tree, tmp_path):
    runs = Runs(tree, tmp_path / "store")
    text = (tree / FOO).read_text(encoding="utf-8")
    typed = _insert_after(text, ENQUEUE, "    cudaMalloc(nullptr, 64);\n")
    moved = typed.replace('#include "common/helpers.h"\n', '#include "common/helpers.h"\n#define TRTLINT_PROBE 1\n', 1)
    hows = [runs.run(t)[0] for t in (text, typed, moved)]
    assert hows == ["complete", "kept from the entry", "entry fresh: preamble text"]
    (tree / HELPERS).write_text(HELPERS_TEXT.replace("k - r", "(k - r)"), encoding="utf-8")
    how, got, complete = runs.run(moved + "// again\n")
    assert how == "entry fresh: header text"
    assert got == complete


def test_a_defaulted_member_the_edit_uses_makes_it_complete(tree, tmp_path):
    runs = Runs(tree, tmp_path / "store")
    text = (tree / FOO).read_text(encoding="utf-8")
    used = _insert_after(text, ENQUEUE, "    mini::TrtlintHelper trtlintH;\n")
    steps = [runs.run(t) for t in (text, used)]
    assert [h for h, _g, _c in steps] == ["complete", "entry fresh: defaulted member"]
    for how, got, complete in steps:
        assert got == complete, how


def test_a_planted_record_is_a_miss(tree, tmp_path):
    runs = Runs(tree, tmp_path / "store")
    text = (tree / FOO).read_text(encoding="utf-8")
    runs.run(text)
    entries = [p for p in (tmp_path / "store").rglob("*.pkl")]
    assert len(entries) == 1
    data = pickle.loads(entries[0].read_bytes())
    data["fnmemo"]["kept"]["counts"] = {"classes": 10 ** 6}
    entries[0].write_bytes(pickle.dumps(data))
    how, got, complete = runs.run(text + "// edited\n")
    assert how == "entry fresh: not a record"
    assert got == complete


def test_a_header_with_an_error_in_a_body_keeps_its_bodies(tree, tmp_path):
    # an error in a header's function body (an undeclared call: the environment's, not the file's) is among the
    # diagnostics outside the unit the kept parse must give again: that header is parsed with its bodies
    (tree / HELPERS).write_text(HELPERS_TEXT.replace("    cudaGetLastError();\n", "    trtlintUndeclared(n);\n"),
                                encoding="utf-8")
    runs = Runs(tree, tmp_path / "store")
    text = (tree / FOO).read_text(encoding="utf-8")
    typed = _insert_after(text, ENQUEUE, "    cudaMalloc(nullptr, 64);\n")
    steps = [runs.run(t) for t in (text, typed)]
    assert [h for h, _g, _c in steps] == ["complete", "kept from the entry"]
    for how, got, complete in steps:
        assert got == complete, how


def test_each_extraction_reads_the_entry_afresh(monkeypatch):
    # the headers' part and the per-function memo of one extraction share one read of the entry; the next extraction
    # (a worker that lives on) reads it again, never the memo an earlier extraction read
    reads = []

    def load(rel, kind):
        reads.append(rel)
        return None

    monkeypatch.setattr(frontends, "MEMO_LOAD", load)
    monkeypatch.setattr(frontends, "MEMO_OUT", {})
    fnmemo.forget()
    fnmemo.stored(FOO, "cpp")
    fnmemo._find(FOO, "cpp")  # the same extraction's begin: no second read
    assert reads == [FOO]
    fnmemo.stored(FOO, "cpp")  # the next extraction
    fnmemo._find(FOO, "cpp")
    fnmemo._find(FOO, "cpp")  # an extraction without stored (a retry): reads
    assert reads == [FOO, FOO, FOO]
