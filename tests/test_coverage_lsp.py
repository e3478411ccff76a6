"""`trtlint coverage` in the language server (issue 25): hover on a node-emitting Python line says how TensorRT's
ONNX parser takes the node, with a real LSP client (pytest-lsp) over stdio, as tests/test_lsp.py."""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402

from tests.test_lsp import TRANSLATIONS, client, found, open_doc, uri, wait_for  # noqa: E402,F401 - the fixture

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def test_hover_on_emitting_line_classifies_the_node(client):  # noqa: F811 - the imported fixture
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    text = open_doc(client, TRANSLATIONS)
    lines = text.splitlines()

    async def hover(line1: int, word: str):
        col = lines[line1 - 1].index(word) + 1
        return await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS)), T.Position(line1 - 1, col)))

    # line 12 emits FooPlugin: a project creator answers it, named with its file and line
    h = await hover(12, "FooPlugin")
    assert h is not None, "no hover on a FooPlugin emission"
    assert "project plugin: plugin FooPlugin v1: creator FooPluginCreator (cpp/plugins/fooPlugin/fooPlugin.cpp:12)" in h.contents.value, h.contents.value
    # line 32 emits FooPlugn: no importer, no creator (and the TRT101 finding follows)
    h = await hover(32, "FooPlugn")
    assert h is not None and "`FooPlugn`: unsupported" in h.contents.value.replace("trt_edgellm::", ""), h.contents.value
    assert "TRT101" in h.contents.value
