"""Malformed JSON-RPC to ``trtlint lsp``: each message is answered with the error JSON-RPC 2.0 and LSP ask for
(-32700 Parse error, -32600 Invalid Request, -32602 Invalid params, -32002 before ``initialize``; a notification
never gets an answer), the framing resynchronises after a ``Content-Length`` that lies, nothing is written to
stderr (no traceback: the log goes to the client as ``window/logMessage`` and to ``$TRTLINT_LSP_LOG``), and a
valid request afterwards is served. The exit code: 0 after ``shutdown`` + ``exit`` or at the end of input, 1 for
``exit`` alone."""

from __future__ import annotations

import json
import subprocess

import pytest

pytest.importorskip("pygls")

from .lsp_raw import RawLsp  # noqa: E402

HOVER = "textDocument/hover"


def _frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def _msg(obj) -> bytes:
    return _frame(json.dumps(obj).encode())


def _project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    py = root / "a.py"
    py.write_text("x = 1\n")
    return root, py


def _hover(lsp: RawLsp, py, timeout: float = 30) -> dict:
    return lsp.request(HOVER, {"textDocument": {"uri": py.as_uri()}, "position": {"line": 0, "character": 0}}, timeout=timeout)


def _errors(lsp: RawLsp) -> list[dict]:
    """The error answers received so far (and not yet matched), oldest first; they are taken off the list."""
    out = [m for m in lsp.seen if "error" in m and "method" not in m]
    for m in out:
        lsp.seen.remove(m)
    return out


def _no_stderr(lsp: RawLsp) -> None:
    err = lsp.stderr()
    assert "Traceback" not in err and err.strip() == "", err[-3000:]


# (what, the bytes sent, the answer: (id, code) or None for none at all)
MALFORMED = [
    ("a body that is not JSON", _frame(b"{not json"), (None, -32700)),
    ("JSON cut short", _frame(b'{"jsonrpc": "2.0", "id": "c1", "method": '), (None, -32700)),
    ("a body that is not UTF-8", _frame(b'{"jsonrpc": "2.0", "id": "u1", "method": "\xff\xfe"}'), (None, -32700)),
    ("JSON nested too deep to parse", _frame(b"[" * 200_000 + b"]" * 200_000), (None, -32700)),
    ("an empty array (a batch: not in LSP)", _frame(b"[]"), (None, -32600)),
    ("an array of requests", _msg([{"jsonrpc": "2.0", "id": "b1", "method": "shutdown"}]), (None, -32600)),
    ("a number", _frame(b"5"), (None, -32600)),
    ("a string", _frame(b'"hello"'), (None, -32600)),
    ("null", _frame(b"null"), (None, -32600)),
    ("no jsonrpc member", _msg({"id": "j1", "method": HOVER}), ("j1", -32600)),
    ("jsonrpc 1.0", _msg({"jsonrpc": "1.0", "id": "j2", "method": HOVER}), ("j2", -32600)),
    ("neither method nor result", _msg({"jsonrpc": "2.0", "id": "n1", "params": {}}), ("n1", -32600)),
    ("a method that is a number", _msg({"jsonrpc": "2.0", "id": "m1", "method": 5}), ("m1", -32600)),
    ("a method that is a number, no id", _msg({"jsonrpc": "2.0", "method": 5}), (None, -32600)),
    ("an id that is an array", _msg({"jsonrpc": "2.0", "id": [1], "method": HOVER, "params": {}}), (None, -32600)),
    ("an id that is an object", _msg({"jsonrpc": "2.0", "id": {"a": 1}, "method": HOVER}), (None, -32600)),
    ("an id that is a boolean", _msg({"jsonrpc": "2.0", "id": True, "method": HOVER}), (None, -32600)),
    ("an id that is fractional", _msg({"jsonrpc": "2.0", "id": 1.5, "method": HOVER}), (None, -32600)),
    ("an id that is null", _msg({"jsonrpc": "2.0", "id": None, "method": HOVER}), (None, -32600)),
    ("params that are a string", _msg({"jsonrpc": "2.0", "id": "p1", "method": HOVER, "params": "s"}), ("p1", -32600)),
    ("params that are a number, a notification", _msg({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": 3}), (None, -32600)),
    ("hover without its params", _msg({"jsonrpc": "2.0", "id": "h1", "method": HOVER}), ("h1", -32602)),
    ("hover with wrong params", _msg({"jsonrpc": "2.0", "id": "h2", "method": HOVER, "params": {"bogus": True}}), ("h2", -32602)),
    ("hover with a position of the wrong type", _msg({"jsonrpc": "2.0", "id": "h3", "method": HOVER, "params": {
        "textDocument": {"uri": "file:///x.py"}, "position": {"line": "one", "character": 0}}}), ("h3", -32602)),
    ("hover with params as an array", _msg({"jsonrpc": "2.0", "id": "h4", "method": HOVER, "params": [1, 2]}), ("h4", -32602)),
    ("didOpen with wrong params (a notification: no answer)", _msg({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"bogus": 1}}), None),
    ("didChange with a text that is a number", _msg({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": "file:///x.py", "version": 2}, "contentChanges": [{"text": 5}]}}), None),
    ("cancelRequest without an id", _msg({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {}}), None),
    ("an unknown request with odd params", _msg({"jsonrpc": "2.0", "id": "x1", "method": "trtlint/nope", "params": {"a": [1, {"b": None}]}}), ("x1", -32601)),
    ("an unknown request with params that are a number", _msg({"jsonrpc": "2.0", "id": "x2", "method": "trtlint/nope", "params": 7}), ("x2", -32600)),
    ("an unknown notification with odd params", _msg({"jsonrpc": "2.0", "method": "$/nope", "params": [None, "x"]}), None),
    ("a response to nothing", _msg({"jsonrpc": "2.0", "id": "r1", "result": {"a": 1}}), None),
    ("an error response to nothing, its error a string", _msg({"jsonrpc": "2.0", "id": "r2", "error": "bad"}), None),
    ("a response whose id is an object", _msg({"jsonrpc": "2.0", "id": {"x": 1}, "result": None}), None),
    ("an id too long a number to parse", _frame(b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "x"}'), (None, -32700)),
]


def test_each_malformed_message_gets_the_error_the_specification_asks_for_and_no_traceback(tmp_path):
    root, py = _project(tmp_path)
    with RawLsp(root) as lsp:
        lsp.initialize()
        assert "result" in _hover(lsp, py)
        for what, data, answer in MALFORMED:
            lsp.send_raw(data)
            # the next valid request is answered, after whatever the malformed message got (in order)
            r = _hover(lsp, py)
            assert "result" in r and "error" not in r, (what, r)
            got = [(e["id"], e["error"]["code"]) for e in _errors(lsp)]
            assert got == ([answer] if answer else []), (what, got)
        # each rejection is logged to the client, one line, no traceback
        logs = [m["params"]["message"] for m in lsp.seen if m.get("method") == "window/logMessage"]
        assert any("Parse error" in m for m in logs) and any("Invalid params for textDocument/hover" in m for m in logs), logs
        assert all("\n" not in m and "Traceback" not in m for m in logs), logs
        # the server still works: a didOpen gets its diagnostics, an empty list for a clean file
        lsp.open(py, "x = 1  # trtlint: ignore[TRT101]\n")
        d = lsp.wait_diagnostics(py.as_uri())
        assert [(i["code"], i["range"]["start"]["line"]) for i in d["params"]["diagnostics"]] == [("TRT002", 0)]
        clean = root / "b.py"
        clean.write_text("y = 2\n")
        lsp.open(clean, "y = 2\n")
        assert lsp.wait_diagnostics(clean.as_uri())["params"]["diagnostics"] == []
        assert lsp.alive()
    _no_stderr(lsp)


def test_the_framing_resynchronises_after_a_content_length_that_lies(tmp_path):
    root, py = _project(tmp_path)
    hover = json.dumps({"jsonrpc": "2.0", "id": "f1", "method": HOVER, "params": {
        "textDocument": {"uri": py.as_uri()}, "position": {"line": 0, "character": 0}}}).encode()
    with RawLsp(root) as lsp:
        lsp.initialize()
        # shorter than the body: the cut body is a parse error, its tail is skipped up to the next frame
        lsp.send_raw(_frame(hover, len(hover) - 5))
        assert "result" in _hover(lsp, py)
        assert [(e["id"], e["error"]["code"]) for e in _errors(lsp)] == [(None, -32700)]
        # longer than the body: the body swallows the start of the next message (the framing cannot tell);
        # a parse error, then the stream is back at the one after
        lsp.send_raw(_frame(hover, len(hover) + 40))
        lost = []
        for _ in range(3):
            try:
                r = _hover(lsp, py, timeout=10)
                break
            except TimeoutError as e:
                lost.append(e)
        else:
            pytest.fail("no answer after a Content-Length longer than its body")
        assert len(lost) <= 1 and "result" in r
        assert [e["error"]["code"] for e in _errors(lsp)] == [-32700]
        # a header line of 3 MB, 20,000 headers that are not Content-Length, a header without Content-Length,
        # a negative, a huge and a non-numeric Content-Length, a header that is not ASCII: each is logged, the
        # message after it is served
        for junk in (
            b"X-Junk: " + b"a" * 3_000_000 + b"\r\n" + _frame(hover),
            b"X-Many: a\r\n" * 20_000 + _frame(hover),
            b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + hover,
            b"Content-Length: -5\r\n\r\n" + hover,
            b"Content-Length: 99999999999999999999\r\n\r\n" + hover,
            b"Content-Length: 1" + b"0" * 5000 + b"\r\n\r\n" + hover,
            b"Content-Length: twelve\r\n\r\n" + hover,
            b"Content-\xff\xfeLength: 3\r\n\r\n{}\r\n",
            b"\r\n\r\n\r\n",
        ):
            lsp.send_raw(junk)
            r = _hover(lsp, py)
            assert "result" in r, junk[:60]
            _errors(lsp)
        logs = " | ".join(m["params"]["message"] for m in lsp.seen if m.get("method") == "window/logMessage")
        for said in ("a header line longer than", "a header without Content-Length", "an invalid Content-Length",
                     "over the limit", "not a header"):
            assert said in logs, (said, logs)
        assert lsp.alive()
    _no_stderr(lsp)


def test_requests_before_initialize_and_after_shutdown_and_the_exit_codes(tmp_path, monkeypatch):
    root, py = _project(tmp_path)
    log = tmp_path / "lsp.log"
    monkeypatch.setenv("TRTLINT_LSP_LOG", str(log))
    with RawLsp(root) as lsp:
        r = _hover(lsp, py)  # before initialize
        assert r["error"]["code"] == -32002
        lsp.notify("textDocument/didOpen", {"textDocument": {"uri": py.as_uri(), "languageId": "python", "version": 1, "text": "x = 1\n"}})
        lsp.initialize()
        assert "result" in _hover(lsp, py)
        lsp.send({"jsonrpc": "2.0", "id": "z1", "method": HOVER, "params": {"bogus": 1}})
        assert lsp.request("shutdown", timeout=30)["result"] is None
        r = _hover(lsp, py)
        assert r["error"]["code"] == -32600 and "after shutdown" in r["error"]["message"]
        lsp.notify("exit")
        assert lsp.proc.wait(30) == 0
    _no_stderr(lsp)
    # the log file has the details (the rejections, with their reasons)
    text = log.read_text()
    assert "not initialized" in text and "Invalid params for textDocument/hover" in text, text[-2000:]
    monkeypatch.delenv("TRTLINT_LSP_LOG")

    with RawLsp(root) as lsp:  # exit without shutdown: 1, as LSP says
        lsp.initialize()
        assert "result" in _hover(lsp, py)
        lsp.notify("exit")
        assert lsp.proc.wait(30) == 1
    _no_stderr(lsp)

    for initialize in (True, False):  # the end of input: a clean exit, also while the project loads
        with RawLsp(root) as lsp:
            if initialize:
                lsp.initialize()
            lsp.proc.stdin.close()
            try:
                assert lsp.proc.wait(60) == 0
            except subprocess.TimeoutExpired:
                pytest.fail("the server did not exit at the end of its input")
        _no_stderr(lsp)
