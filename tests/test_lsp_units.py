"""The LSP server's pure helpers, in process: suppression edits, fix conversion, position units."""

from __future__ import annotations

from lsprotocol import types as T

from trtlint.base.diagnostics import Edit, Fix
from trtlint.base.facts import Span
from trtlint.editor.server import _from_units, _units, fix_changes, rule_in_suppression, suppression_edit

U16 = T.PositionEncodingKind.Utf16


def apply(line: str, e: T.TextEdit) -> str:
    return line[: e.range.start.character] + e.new_text + line[e.range.end.character:]


def test_suppression_edit_appends_a_comment_in_the_files_language():
    e = suppression_edit("cpp", ["    cudaMalloc(&p, n);   \n"], 0, "TRT301", U16)
    assert apply("    cudaMalloc(&p, n);   \n", e) == "    cudaMalloc(&p, n);  // trtlint: ignore[TRT301]\n"
    e = suppression_edit("python", ["x = _trt.FooPlugn(x)\n"], 0, "TRT101", U16)
    assert apply("x = _trt.FooPlugn(x)\n", e) == "x = _trt.FooPlugn(x)  # trtlint: ignore[TRT101]\n"
    assert suppression_edit("onnx", ["\n"], 0, "TRT501", U16) is None  # nowhere to write a comment


def test_suppression_edit_extends_an_existing_comment_and_respects_a_bare_one():
    line = "f();  // trtlint: ignore[TRT302]\n"
    assert apply(line, suppression_edit("cpp", [line], 0, "TRT301", U16)) == "f();  // trtlint: ignore[TRT302, TRT301]\n"
    assert suppression_edit("cpp", [line], 0, "TRT302", U16) is None  # already there
    assert suppression_edit("cpp", ["f();  // trtlint: ignore\n"], 0, "TRT301", U16) is None


def test_suppression_edit_above_a_macro_continuation_line():
    lines = ["#define LAUNCH(x) \\\n", "    cudaMalloc(&x, 4); \\\n"]
    e = suppression_edit("cpp", lines, 1, "TRT301", U16)
    assert e.range.start == T.Position(1, 0) and e.new_text == "    // trtlint: ignore[TRT301]\n"


def test_positions_count_utf16_units_for_the_client():
    line = 's = "é😀"; FooPlugn(x)'
    col = line.index("FooPlugn")
    assert _units(line[:col], U16) == col + 1  # the emoji is two UTF-16 units
    assert _units(line[:col], T.PositionEncodingKind.Utf8) == col + 4
    assert _from_units(line, col + 1, U16) == col
    e = suppression_edit("python", [line + "\n"], 0, "TRT101", U16)
    assert e.range.start.character == len(line) + 1


def test_hover_finds_the_rule_under_the_cursor_in_a_suppression_comment():
    line = "x = 1  # trtlint: ignore[TRT301, plugin-name-mismatch]"
    assert rule_in_suppression(line, line.index("TRT301") + 1).code == "TRT301"
    assert rule_in_suppression(line, line.index("plugin-name") + 3).code == "TRT101"
    assert rule_in_suppression(line, 0) is None
    assert rule_in_suppression("x = 1  # trtlint: ignore[NOPE]", 27) is None


def test_a_rule_fix_becomes_a_workspace_edit_across_files():
    fix = Fix("rename", (Edit(Span("a.py", 3, 5, 3, 13), "FooPlugin"), Edit(Span("b/c.cpp", 1, 1, 2, 1), "")), "safe")
    changes = fix_changes(fix, lambda rel: f"file:///p/{rel}", lambda sp: T.Range(T.Position(sp.line - 1, sp.col - 1), T.Position(sp.end_line - 1, sp.end_col - 1)))
    assert list(changes) == ["file:///p/a.py", "file:///p/b/c.cpp"]
    (e,) = changes["file:///p/a.py"]
    assert e.new_text == "FooPlugin" and e.range == T.Range(T.Position(2, 4), T.Position(2, 12))
    (e2,) = changes["file:///p/b/c.cpp"]
    assert e2.range == T.Range(T.Position(0, 0), T.Position(1, 0)) and e2.new_text == ""


def test_frame_reader_limits_and_resynchronisation():
    import io

    from trtlint.editor.transport import MAX_HEADER_LINE, FrameReader, classify

    def frames(data: bytes):
        r = FrameReader(io.BytesIO(data).read)
        out = []
        while (f := r.next_frame()) is not None:
            out.append((f.body, f.problems))
        return out

    ok = b'{"jsonrpc": "2.0", "method": "x"}'
    frame = b"Content-Length: %d\r\n\r\n" % len(ok) + ok
    assert frames(frame * 2) == [(ok, []), (ok, [])]
    # too short: the cut body, then its tail is skipped up to the next header
    (cut, _), (again, problems) = frames(b"Content-Length: 10\r\n\r\n" + ok + frame)
    assert cut == ok[:10] and again == ok and "not a header" in problems[0]
    # a header line over the limit is dropped, not held; an over-limit length is refused without reading it
    (body, problems), = frames(b"X: " + b"a" * (MAX_HEADER_LINE * 3) + b"\r\n" + frame)
    assert body == ok and "longer than" in problems[0]
    out = frames(b"Content-Length: 99999999999999\r\n\r\n" + frame)
    assert out[0][0] is None and "over the limit" in out[0][1][0] and out[-1][0] == ok
    # the input ends inside a body
    (body, problems), = frames(b"Content-Length: 100\r\n\r\n{}")
    assert body is None and "ended inside" in problems[0]
    # what JSON-RPC calls an invalid Request, and what it does not
    assert classify([]).code == classify(3).code == -32600
    assert (classify({"jsonrpc": "2.0", "id": [1], "method": "x"}).id, classify({"jsonrpc": "2.0", "id": "a", "method": 1}).id) == (None, "a")
    assert classify({"jsonrpc": "2.0", "id": 1, "method": "x", "params": [1]}).kind == "request"
    assert classify({"jsonrpc": "2.0", "method": "x"}).kind == "notification"
    assert classify({"jsonrpc": "2.0", "id": 1, "result": None}).kind == "response"


def test_debounce_is_a_setting_with_a_short_default():
    """The debounce (issue 36): 25 ms unless set; ``workspace/didChangeConfiguration`` sets it as well (clangd-like:
    ``{"trtlint": {"debounceMs": N}}`` or ``{"debounceMs": N}``); a value that is not a number leaves it."""
    import asyncio

    from trtlint.editor.server import DEFAULT_DEBOUNCE_MS, make_server

    assert DEFAULT_DEBOUNCE_MS == 25
    ls = make_server()
    assert ls.debounce == 0.025

    async def change(settings) -> None:
        ls.on_did_change_configuration(T.DidChangeConfigurationParams(settings=settings))
        if ls._timer is not None:
            ls._timer.cancel()

    asyncio.run(change({"trtlint": {"debounceMs": 300}}))
    assert ls.debounce == 0.3
    asyncio.run(change({"debounceMs": 50}))
    assert ls.debounce == 0.05
    asyncio.run(change({"trtlint": {"debounceMs": "soon"}}))
    assert ls.debounce == 0.05
