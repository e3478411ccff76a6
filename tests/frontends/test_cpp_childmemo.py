"""The C++ body walk's child memo (frontends/cpp/base.py: children_memo, arguments): inside it a cursor object's
children and a call's arguments are listed once (the same objects come back, in a new list); outside it, and once
it ends, nothing is cached; the collector's state is restored."""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("clang.cindex")

from trtlint.frontends.cpp import base  # noqa: E402

SRC = "int add(int a, int b) { return a + b; }\nint f(int x) { int y = add(x, 2); return y + 1; }\n"


def _fn(tmp_path):
    ci = base.load()
    p = tmp_path / "u.cpp"
    p.write_text(SRC)
    tu = base.libclang.index.parse(str(p), args=["-x", "c++"])
    fn = [c for c in base.children(tu.cursor) if c.spelling == "f"][0]
    return ci, tu, fn


def _call(ci, fn):
    todo = [fn]
    while todo:
        c = todo.pop()
        if c.kind == ci.CursorKind.CALL_EXPR:
            return c
        todo.extend(base.children(c))
    raise AssertionError("no call")


def test_outside_nothing_cached(tmp_path):
    ci, _tu, fn = _fn(tmp_path)
    a, b = base.children(fn), base.children(fn)
    assert [x.kind for x in a] == [x.kind for x in b] and a[0] is not b[0]
    call = _call(ci, fn)
    assert base.arguments(call)[0] is not base.arguments(call)[0]


def test_inside_same_objects_new_lists(tmp_path):
    ci, _tu, fn = _fn(tmp_path)
    was = gc.isenabled()
    with base.children_memo():
        a = base.children(fn)
        b = base.children(fn)
        assert a == b and all(x is y for x, y in zip(a, b)) and a is not b
        a.pop()  # a caller's list is its own
        assert len(base.children(fn)) == len(b)
        call = _call(ci, fn)
        args = base.arguments(call)
        assert len(args) == 2
        assert all(x is y for x, y in zip(args, base.arguments(call)))
    assert gc.isenabled() == was
    assert not hasattr(fn, "_trtlint_kids") and not hasattr(call, "_trtlint_args")
    assert base.children(fn)[0] is not b[0]  # (dropped when the block ended)
