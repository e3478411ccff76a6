"""`trtlint lsp` end to end: a real LSP client (pytest-lsp) talks to the server over stdio.

The server runs in a subprocess on a copy of the Edge-LLM-shaped fixture project, with a short debounce.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"
TRANSLATIONS = "tensorrt_edgellm/onnx/dynamo_translations.py"
FOO_CPP = "cpp/plugins/fooPlugin/fooPlugin.cpp"
TIMEOUT = 60

pytestmark = pytest.mark.asyncio(loop_scope="function")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("TRTLINT_DOCS_URL", None)  # the default: no address for the rule pages
    return env


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "trtlint", "lsp", "--debounce-ms", "20"], server_env=_env()
    ),
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    proj = tmp_path_factory.mktemp("lsp") / "proj"
    shutil.copytree(FIXTURE, proj)
    lsp_client.project = proj  # type: ignore[attr-defined]
    lsp_client.registrations = []  # type: ignore[attr-defined]

    @lsp_client.feature(T.CLIENT_REGISTER_CAPABILITY)
    def register(params: T.RegistrationParams):
        lsp_client.registrations.extend(params.registrations)

    caps = T.ClientCapabilities(
        workspace=T.WorkspaceClientCapabilities(
            did_change_watched_files=T.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
        ),
        text_document=T.TextDocumentClientCapabilities(
            publish_diagnostics=T.PublishDiagnosticsClientCapabilities(related_information=True),
            hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown]),
            code_action=T.CodeActionClientCapabilities(
                code_action_literal_support=T.ClientCodeActionLiteralOptions(
                    code_action_kind=T.ClientCodeActionKindOptions(value_set=[T.CodeActionKind.QuickFix])
                )
            ),
            diagnostic=T.DiagnosticClientCapabilities(),
        ),
    )
    await lsp_client.initialize_session(
        T.InitializeParams(
            capabilities=caps,
            root_uri=proj.as_uri(),
            workspace_folders=[T.WorkspaceFolder(uri=proj.as_uri(), name="proj")],
            initialization_options={"debounceMs": 20, "diagnosticMode": "push", "jobs": 1},
        )
    )
    yield
    await lsp_client.shutdown_session()


def uri(client, rel: str) -> str:
    return (client.project / rel).as_uri()


def found(client, rel: str) -> set:
    return {(d.code, d.range.start.line + 1) for d in client.diagnostics.get(uri(client, rel), [])}


async def wait_for(client, pred, what: str):
    """Wait for published diagnostics that satisfy ``pred``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + TIMEOUT
    while not pred():
        left = end - loop.time()
        if left <= 0:
            pytest.fail(f"timed out waiting for {what}; diagnostics: { {k: [(d.code, d.range.start.line + 1) for d in v] for k, v in client.diagnostics.items()} }")
        try:
            await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), min(left, 2))
        except asyncio.TimeoutError:
            pass


def open_doc(client, rel: str) -> str:
    text = (client.project / rel).read_text(encoding="utf-8")
    client.text_document_did_open(
        T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=uri(client, rel), language_id="cpp" if rel.endswith(".cpp") else "python", version=1, text=text))
    )
    return text


def edit_line(client, rel: str, text: str, line1: int, old: str, new: str, version: int) -> str:
    """One incremental edit: replace ``old`` with ``new`` on line ``line1`` (1-based); returns the new text."""
    lines = text.splitlines(keepends=True)
    col = lines[line1 - 1].index(old)
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri(client, rel), version=version),
            [
                T.TextDocumentContentChangePartial(
                    range=T.Range(T.Position(line1 - 1, col), T.Position(line1 - 1, col + len(old))), text=new
                )
            ],
        )
    )
    lines[line1 - 1] = lines[line1 - 1][:col] + new + lines[line1 - 1][col + len(old):]
    return "".join(lines)


async def test_initial_diagnostics_are_pushed_for_the_whole_project(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    d = next(d for d in client.diagnostics[uri(client, TRANSLATIONS)] if d.code == "TRT101")
    assert "FooPlugn" in d.message and d.source == "trtlint"
    assert d.code_description is None  # no TRTLINT_DOCS_URL: no link to an address trtlint does not have
    # findings in other files, not opened, are pushed too
    assert ("TRT301", 17) in found(client, "cpp/kernels/fooKernels.cu")
    # the server asked to be told about changed sources and configs
    (reg,) = client.registrations
    assert reg.method == T.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert any("trtlint.toml" in w["globPattern"] for w in reg.register_options["watchers"])


async def test_cross_file_finding_follows_an_unsaved_cpp_edit_and_clears_when_reverted(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    assert ("TRT101", 17) not in found(client, TRANSLATIONS)
    text = open_doc(client, FOO_CPP)
    on_disk = (client.project / FOO_CPP).read_text()
    # rename the C++ plugin name constant in the buffer (not saved)
    text = edit_line(client, FOO_CPP, text, 12, '"FooPlugin"', '"FooPluginX"', 2)
    await wait_for(client, lambda: ("TRT101", 17) in found(client, TRANSLATIONS), "TRT101 on the Python side")
    msgs = [d.message for d in client.diagnostics[uri(client, TRANSLATIONS)] if d.range.start.line == 16]
    assert any("'FooPlugin'" in m and "FooPluginX" in m for m in msgs), msgs
    d = next(d for d in client.diagnostics[uri(client, TRANSLATIONS)] if d.range.start.line == 16 and d.code == "TRT101")
    assert (client.project / FOO_CPP).read_text() == on_disk  # nothing written
    # change it back: the Python file's finding clears
    edit_line(client, FOO_CPP, text, 12, '"FooPluginX"', '"FooPlugin"', 3)
    await wait_for(client, lambda: ("TRT101", 17) not in found(client, TRANSLATIONS), "TRT101 to clear")
    assert ("TRT101", 32) in found(client, TRANSLATIONS)
    assert d.related_information is None or all(r.location.uri.startswith("file://") for r in d.related_information)


async def test_python_edit_is_checked_from_the_buffer_and_close_reverts_to_disk(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    text = open_doc(client, TRANSLATIONS)
    edit_line(client, TRANSLATIONS, text, 32, "FooPlugn", "FooPlugin", 2)
    await wait_for(client, lambda: ("TRT101", 32) not in found(client, TRANSLATIONS), "TRT101 to clear")
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS))))
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the on-disk TRT101 again")


async def test_suppression_code_action_and_hover(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    text = open_doc(client, TRANSLATIONS)
    diag = next(d for d in client.diagnostics[uri(client, TRANSLATIONS)] if d.code == "TRT101")
    actions = await client.text_document_code_action_async(
        T.CodeActionParams(
            T.TextDocumentIdentifier(uri(client, TRANSLATIONS)), diag.range, T.CodeActionContext(diagnostics=[diag])
        )
    )
    sup = next(a for a in actions if a.title.startswith("Suppress TRT101"))
    (edit,) = sup.edit.changes[uri(client, TRANSLATIONS)]
    lines = text.splitlines(keepends=True)
    ln = edit.range.start.line
    line = lines[ln]
    new_line = line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
    assert new_line == '    return _trt_edgellm.FooPlugn(x, alpha=1.0)  # trtlint: ignore[TRT101]\n'
    # apply it as the editor would: the finding goes away
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri(client, TRANSLATIONS), version=2),
            [T.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)],
        )
    )
    await wait_for(client, lambda: ("TRT101", 32) not in found(client, TRANSLATIONS), "the suppressed TRT101 to clear")

    # hover on the rule code inside the suppression comment: the rule's docs
    col = new_line.index("TRT101") + 2
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS)), T.Position(ln, col)))
    assert h is not None and "# TRT101 plugin-name-mismatch" in h.contents.value and "## What it does" in h.contents.value
    # hover on another finding (TRT103 on line 17): its message and its rule's docs
    d103 = next(d for d in client.diagnostics[uri(client, TRANSLATIONS)] if d.code == "TRT103")
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS)), d103.range.start))
    assert "**TRT103 plugin-attribute-mismatch**" in h.contents.value and "'scale'" in h.contents.value
    # nothing to say elsewhere
    assert await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS)), T.Position(0, 0))) is None


async def test_pull_diagnostics_see_unsaved_edits(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    text = open_doc(client, TRANSLATIONS)
    rep = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS))))
    assert ("TRT101", 32) in {(d.code, d.range.start.line + 1) for d in rep.items}
    edit_line(client, TRANSLATIONS, text, 32, "FooPlugn", "FooPlugin", 2)
    # asked right after the edit (inside the debounce): the answer already reflects it
    rep = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri(client, TRANSLATIONS))))
    assert ("TRT101", 32) not in {(d.code, d.range.start.line + 1) for d in rep.items}


async def test_config_change_is_picked_up_without_restart(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    cfg = client.project / "trtlint.toml"
    cfg.write_text('ignore = ["plugin-name-mismatch"]\n', encoding="utf-8")
    client.workspace_did_change_watched_files(
        T.DidChangeWatchedFilesParams([T.FileEvent(uri=cfg.as_uri(), type=T.FileChangeType.Created)])
    )
    await wait_for(client, lambda: not any(c == "TRT101" for c, _ in found(client, TRANSLATIONS)), "TRT101 to be ignored")
    assert ("TRT103", 17) in found(client, TRANSLATIONS)
    # back again, noticed on the next edit even without a file-watch notification
    cfg.write_text("ignore = []\n", encoding="utf-8")
    text = open_doc(client, TRANSLATIONS)
    edit_line(client, TRANSLATIONS, text, 1, "onnxscript", "onnxscript ", 2)
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "TRT101 back")


async def test_broken_config_is_reported_and_the_server_keeps_running(client):
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    cfg = client.project / "trtlint.toml"
    cfg.write_text("ignore = [\n", encoding="utf-8")
    client.workspace_did_change_watched_files(
        T.DidChangeWatchedFilesParams([T.FileEvent(uri=cfg.as_uri(), type=T.FileChangeType.Created)])
    )
    loop = asyncio.get_running_loop()
    end = loop.time() + TIMEOUT
    while not client.messages and loop.time() < end:
        await asyncio.sleep(0.05)
    assert client.messages and "invalid TOML" in client.messages[-1].message
    cfg.unlink()
    text = open_doc(client, TRANSLATIONS)
    edit_line(client, TRANSLATIONS, text, 32, "FooPlugn", "FooPlugin", 2)
    await wait_for(client, lambda: ("TRT101", 32) not in found(client, TRANSLATIONS), "checks to go on")


async def test_a_clean_file_gets_an_empty_diagnostics_list_on_open_and_after_its_last_finding_goes(client):
    # clients clear what they showed for a file from an empty publication; a clean file opened gets one
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    clean = client.project / "tensorrt_edgellm" / "clean_helpers.py"
    clean.write_text("def helper(x):\n    return x + 1\n", encoding="utf-8")
    rel = "tensorrt_edgellm/clean_helpers.py"
    assert uri(client, rel) not in client.diagnostics
    text = open_doc(client, rel)
    await wait_for(client, lambda: uri(client, rel) in client.diagnostics, "a publication for the clean file")
    assert list(client.diagnostics[uri(client, rel)]) == []
    # a finding comes (a suppression that hides nothing: TRT002) and goes: the last publication is empty again
    text = edit_line(client, rel, text, 2, "x + 1", "x + 1  # trtlint: ignore[TRT101]", 2)
    await wait_for(client, lambda: ("TRT002", 2) in found(client, rel), "TRT002 on the edited line")
    edit_line(client, rel, text, 2, "x + 1  # trtlint: ignore[TRT101]", "x + 1", 3)
    await wait_for(client, lambda: list(client.diagnostics.get(uri(client, rel), [None])) == [], "an empty list once the finding is gone")
    # a file outside the project gets its empty list too (nothing is known about it)
    outside = client.project.parent / "outside.py"
    outside.write_text("y = 2\n", encoding="utf-8")
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=outside.as_uri(), language_id="python", version=1, text="y = 2\n")))
    await wait_for(client, lambda: outside.as_uri() in client.diagnostics, "a publication for the file outside the project")
    assert list(client.diagnostics[outside.as_uri()]) == []


class _Order(dict):
    """The client's diagnostics store, recording the order in which the server's publications arrive."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.order: list[str] = []

    def __setitem__(self, key, value):
        self.order.append(key)
        super().__setitem__(key, value)


async def test_the_edited_document_is_published_before_other_files_whose_findings_moved(client):
    """An edit that changes findings in several files: the open document's come first (what the user looks at),
    though another file sorts before it."""
    kernels = "cpp/kernels/fooKernels.cu"
    await wait_for(client, lambda: ("TRT301", 17) in found(client, kernels), "the initial TRT301")
    text = open_doc(client, FOO_CPP)
    await wait_for(client, lambda: uri(client, FOO_CPP) in client.diagnostics, "the opened document's diagnostics")
    # the rest of that check's publications (the other files come after the open document now): wait for a quiet second
    while True:
        try:
            await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 1.0)
        except asyncio.TimeoutError:
            break
    assert text.splitlines()[71].lstrip().startswith("int32_t const n")
    store = _Order(client.diagnostics)
    client.diagnostics = store
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri(client, FOO_CPP), version=2),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(71, 0), T.Position(71, 0)),
                                                text="    void* p = nullptr; cudaMalloc(&p, 4);\n")],
        )
    )
    await wait_for(client, lambda: ("TRT301", 72) in found(client, FOO_CPP), "TRT301 in the edited enqueue")
    await wait_for(client, lambda: uri(client, kernels) in store.order, "the kernel file's findings again (they changed: the server publishes only what changed)")
    assert uri(client, kernels) < uri(client, FOO_CPP)  # it sorts first ...
    assert store.order[0] == uri(client, FOO_CPP), store.order  # ... but the open document is published first
