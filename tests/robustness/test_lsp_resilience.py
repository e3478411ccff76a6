"""LSP resilience: malformed JSON-RPC, unknown methods, a huge document and rapid edits. The server answers
or rejects each, and keeps serving (a request after them is answered)."""

from __future__ import annotations

import pytest

pytest.importorskip("pygls")

from .lsp_raw import RawLsp  # noqa: E402


def test_the_server_survives_bad_traffic_and_keeps_serving(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    doc = root / "FooPlugin.cpp"
    doc.write_text("class FooPlugin : public nvinfer1::IPluginV3 {};\n")
    py = root / "a.py"
    py.write_text("x = 1\n")
    with RawLsp(root) as lsp:
        lsp.initialize()
        lsp.open(py, py.read_text())
        assert lsp.pull(py)["result"]["kind"] == "full"
        # not JSON at all, JSON that is not JSON-RPC, a body shorter than announced is not sent (it would
        # swallow the next frame by design of the framing), a bad header line
        lsp.send_raw(b"Content-Length: 9\r\n\r\n{not json")
        lsp.send_raw(b"Content-Length: 2\r\n\r\n[]")
        lsp.send({"jsonrpc": "2.0", "id": "x1", "params": {}})  # no method
        # invalid params: an Invalid params answer (test_lsp_protocol_errors.py has every kind of malformed message)
        lsp.send({"jsonrpc": "2.0", "id": 9001, "method": "textDocument/hover", "params": {"bogus": True}})
        assert lsp.wait(lambda m: m.get("id") == 9001, timeout=30)["error"]["code"] == -32602
        # unknown methods: a request is rejected with MethodNotFound, a notification ignored
        r = lsp.request("trtlint/doesNotExist", {"a": 1}, timeout=30)
        assert r["error"]["code"] == -32601
        lsp.notify("$/unknownNotification", {"a": 1})
        # requests about documents the server does not know
        r = lsp.request("textDocument/diagnostic", {"textDocument": {"uri": (root / "nope.py").as_uri()}}, timeout=30)
        assert r["result"] == {"kind": "full", "items": []} and "error" not in r  # nothing is known about it
        r = lsp.request("textDocument/codeAction", {
            "textDocument": {"uri": "file:///elsewhere/x.py"},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []},
        }, timeout=30)
        assert r["result"] is None and "error" not in r  # outside the workspace: no actions, no error
        # a huge document (8 MB) and a burst of rapid edits
        lsp.change(py, "x = 1\n" * 1_400_000, version=2)
        for v in range(3, 40):
            lsp.change(py, f"x = {v}\n" + ("# pad\n" * v), version=v)
        # the last version alone holds a finding (a suppression that hides nothing, on line 41): the answer is
        # about it, not about an earlier version of the burst
        lsp.change(py, "x = 40\n" + "# pad\n" * 40 + "y = 2  # trtlint: ignore[TRT101]\n", version=40)
        final = lsp.pull(py, timeout=60)
        assert final["result"]["kind"] == "full"
        assert [(i["code"], i["severity"], i["range"]["start"]["line"], i["message"]) for i in final["result"]["items"]] == [
            ("TRT002", 2, 41, "unused suppression: no TRT101 (plugin-name-mismatch) finding on this line to hide")
        ]
        # an edit of the C++ file that is nonsense, then still answered
        lsp.open(doc, doc.read_text(), lang="cpp")
        lsp.change(doc, "template<" * 2000 + "\x00\ud7ff", version=2)
        assert lsp.pull(doc, timeout=60)["result"]["kind"] == "full"
        # hover still answers from the buffer: the rule named in the suppression comment, and nothing on a pad line
        hover = lsp.request("textDocument/hover", {"textDocument": {"uri": py.as_uri()}, "position": {"line": 41, "character": 28}}, timeout=30)
        assert hover["result"]["contents"]["value"].startswith("# TRT101 plugin-name-mismatch\n")
        hover = lsp.request("textDocument/hover", {"textDocument": {"uri": py.as_uri()}, "position": {"line": 1, "character": 0}}, timeout=30)
        assert hover["result"] is None and "error" not in hover
        assert lsp.alive(), lsp.stderr()
    assert "Traceback" not in lsp.stderr(), lsp.stderr()[-3000:]  # the log goes to the client, never to stderr
