"""The per-function memo of the C++ body walk (frontends/cpp/fnmemo.py, issue 36): a unit extracted again after an
edit takes unchanged functions' facts from its last extraction, and the facts equal a from-scratch extraction's."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtlint import frontends
from trtlint.frontends import ExtractContext, SourceFile

pytest.importorskip("clang.cindex")

from trtlint.frontends.cpp import fnmemo, unit  # noqa: E402

FIX = Path(__file__).parent / "fixtures" / "edgellm_mini"
FOO = "cpp/plugins/fooPlugin/fooPlugin.cpp"
CTX = ExtractContext(root=FIX, include_dirs=(str(FIX / "cpp"),))


def _src(root: Path, rel: str, text: str) -> SourceFile:
    return SourceFile(path=root / rel, rel=rel, kind="cpp", digest=str(hash(text)), text=text)


def _again(root: Path, rel: str, before: str, after: str, ctx: ExtractContext = CTX):
    """(facts of ``after`` with the memo of ``before``, ``after``'s facts from scratch, the memo's counters)."""
    fnmemo.forget()
    first = unit.extract(_src(root, rel, before), ctx)
    assert not first.problems, first.problems
    fnmemo.STATS.update(reused=0, walked=0)
    got = unit.extract(_src(root, rel, after), ctx)
    stats = dict(fnmemo.STATS)
    fnmemo.forget()
    fresh = unit.extract(_src(root, rel, after), ctx)
    return got, fresh, stats


def _differences(a, b) -> list[str]:
    out = []
    for name in ("functions", "lifecycle", "registrations", "lookups", "classes", "fn_contracts", "includes"):
        for i, (x, y) in enumerate(zip(getattr(a, name), getattr(b, name))):
            if x != y:
                out.append(f"{name}[{i}]: memo {x}\n fresh {y}")
        if len(getattr(a, name)) != len(getattr(b, name)):
            out.append(f"{name}: {len(getattr(a, name))} vs {len(getattr(b, name))}")
    return out


def _insert_after(text: str, anchor: str, line: str) -> str:
    i = text.index(anchor)
    j = text.index("\n", i + len(anchor) - 1) + 1
    return text[:j] + line + text[j:]


FOO_TEXT = (FIX / FOO).read_text(encoding="utf-8")
ENQUEUE = "void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept\n{"


def test_a_line_typed_into_enqueue_walks_enqueue_only():
    after = _insert_after(FOO_TEXT, ENQUEUE, "    void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);\n")
    got, fresh, stats = _again(FIX, FOO, FOO_TEXT, after)
    assert _differences(got, fresh) == [] and got == fresh
    assert stats["walked"] == 1 and stats["reused"] >= 15, stats
    assert any(c.callee == "cudaMalloc" for f in got.functions if f.name == "enqueue" for c in f.calls)


def test_a_line_typed_above_shifts_the_functions_below_and_their_facts_equal_a_fresh_walk():
    # runFoo's body: enqueue calls runFoo (it may read its body) and is walked again; everything below is moved
    after = _insert_after(FOO_TEXT, "float* out, int32_t n, cudaStream_t stream)\n{", "    int32_t trtlint_unused = n;\n")
    got, fresh, stats = _again(FIX, FOO, FOO_TEXT, after)
    assert _differences(got, fresh) == [] and got == fresh
    assert stats["walked"] == 2 and stats["reused"] >= 14, stats
    before = {f.qualname: f.span.line for f in unit.extract(_src(FIX, FOO, FOO_TEXT), CTX).functions}
    moved = [f for f in got.functions if f.span.path == FOO and f.span.line == before[f.qualname] + 1]
    assert len(moved) == 8  # the memo's facts were rebased, not just kept


def test_a_comment_line_above_everything_reuses_every_function():
    after = _insert_after(FOO_TEXT, "using namespace nvinfer1;", "// a comment\n\n")
    got, fresh, stats = _again(FIX, FOO, FOO_TEXT, after)
    assert got == fresh, _differences(got, fresh)
    assert stats["walked"] == 0 and stats["reused"] >= 16, stats


def test_an_edit_that_is_not_neutral_walks_everything_again():
    after = _insert_after(FOO_TEXT, ENQUEUE, "#define TRTLINT_X 1\n")
    got, fresh, stats = _again(FIX, FOO, FOO_TEXT, after)
    assert got == fresh, _differences(got, fresh)
    assert stats["reused"] == 0, stats


GETTER = """\
typedef struct CUstream_st* cudaStream_t;
void launch(float* p, int n, cudaStream_t stream);

class Runner
{
public:
    int enqueue(float* p, int n);
    int other(float* p, int n);
    cudaStream_t getStream() const;

private:
    cudaStream_t mStream{nullptr};
    cudaStream_t mOther{nullptr};
};

cudaStream_t Runner::getStream() const
{
    return mStream;
}

int Runner::enqueue(float* p, int n)
{
    launch(p, n, getStream());
    return 0;
}

int Runner::other(float* p, int n)
{
    launch(p, n, mOther);
    return 0;
}
"""


@pytest.mark.parametrize("through_macro", [False, True])
def test_a_function_whose_walk_reads_the_edited_body_is_walked_again(tmp_path, through_macro):
    # enqueue's call records the stream field the getter returns (the walk reads the getter's body); enqueue may
    # also call the getter through a macro it names instead
    text = GETTER
    if through_macro:
        text = "#define RUNNER_STREAM() getStream()\n" + text.replace("launch(p, n, getStream());", "launch(p, n, RUNNER_STREAM());")
    (tmp_path / "runner.cpp").write_text(text, encoding="utf-8")
    ctx = ExtractContext(root=tmp_path)
    after = text.replace("    return mStream;\n", "    return mOther;\n")
    got, fresh, stats = _again(tmp_path, "runner.cpp", text, after, ctx)
    fields = [c.stream_field for f in fresh.functions if f.name == "enqueue" for c in f.calls if c.callee == "launch"]
    assert fields == ["Runner::mOther"]
    assert got == fresh, _differences(got, fresh)
    assert stats == {"reused": 1, "walked": 2}  # other() kept; getStream and enqueue walked


def test_the_memo_kept_in_the_cache_entry_is_used_by_a_fresh_process(tmp_path, monkeypatch):
    from trtlint.store.cache import EntryWriter

    writer = EntryWriter(tmp_path / "v1", ("cppctx", "pyctx"), {"cpp": "v"}, {})
    monkeypatch.setattr(frontends, "MEMO_LOAD", writer.load_memo)
    monkeypatch.setattr(frontends, "MEMO_OUT", {})
    # the memo alone (with the headers' part taken from the entry the header functions are not walked at all:
    # tests/test_entry_kept.py)
    monkeypatch.setattr(unit, "_KEPT_HEADERS", False)
    fnmemo.forget()
    src = _src(FIX, FOO, FOO_TEXT)
    ff = unit.extract(src, CTX)
    assert writer.put(src, ff, frontends.MEMO_OUT.pop(FOO))
    assert fnmemo._MEMO == {}  # a pool worker keeps nothing in memory
    after = _insert_after(FOO_TEXT, ENQUEUE, "    void* trtlint_p = nullptr; cudaMalloc(&trtlint_p, 64);\n")
    fnmemo.STATS.update(reused=0, walked=0)
    got = unit.extract(_src(FIX, FOO, after), CTX)
    assert fnmemo.STATS["reused"] >= 15 and fnmemo.STATS["walked"] == 1
    monkeypatch.setattr(frontends, "MEMO_LOAD", None)
    fnmemo.forget()
    assert got == unit.extract(_src(FIX, FOO, after), CTX)
    # another frontend version: the pointer is not followed
    other = EntryWriter(tmp_path / "v1", ("cppctx", "pyctx"), {"cpp": "w"}, {})
    assert writer.load_memo(FOO, "cpp") is not None and other.load_memo(FOO, "cpp") is None
    # a planted memo (slots of the wrong form) is a miss, not an error
    ff, memo = writer.load_memo(FOO, "cpp")
    assert fnmemo.UnitMemo.from_dict({**memo, "slots": (("x",) * 12,)}, ff) is None
    assert fnmemo.UnitMemo.from_dict({**memo, "slots": "nope"}, ff) is None
    assert fnmemo.UnitMemo.from_dict(memo, ff) is not None


def test_a_header_rewritten_invalidates_the_memo(tmp_path):
    # the unit's text is unchanged; the header it reads its constant from is rewritten at once, same size and all
    (tmp_path / "names.h").write_text('constexpr char const* kNAME = "AAAA";\n', encoding="utf-8")
    unit_text = '#include "names.h"\nchar const* getPluginName()\n{\n    return kNAME;\n}\n'
    (tmp_path / "named.cpp").write_text(unit_text, encoding="utf-8")
    ctx = ExtractContext(root=tmp_path)
    fnmemo.forget()
    first = unit.extract(_src(tmp_path, "named.cpp", unit_text), ctx)
    assert [r.value for f in first.functions for r in f.returns] == ["AAAA"]
    (tmp_path / "names.h").write_text('constexpr char const* kNAME = "BBBB";\n', encoding="utf-8")
    fnmemo.STATS.update(reused=0, walked=0)
    again = unit.extract(_src(tmp_path, "named.cpp", unit_text), ctx)
    assert [r.value for f in again.functions for r in f.returns] == ["BBBB"]
    assert fnmemo.STATS["reused"] == 0
