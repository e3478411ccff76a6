"""`trtlint lsp` with a broken config, and work-done progress while the project is indexed.

A real LSP client (pytest-lsp) talks to the server over stdio, as in test_lsp.py; here each test writes the
project's config before the client initializes the server, and chooses the client's capabilities.
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
TIMEOUT = 60

pytestmark = pytest.mark.asyncio(loop_scope="function")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "trtlint", "lsp", "--debounce-ms", "20"], server_env=_env()
    ),
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    """A client and a fresh copy of the fixture project; the test initializes the session (see ``start``)."""
    proj = tmp_path_factory.mktemp("lspcfg") / "proj"
    shutil.copytree(FIXTURE, proj)
    lsp_client.project = proj  # type: ignore[attr-defined]
    lsp_client.started = False  # type: ignore[attr-defined]

    @lsp_client.feature(T.CLIENT_REGISTER_CAPABILITY)
    def register(params: T.RegistrationParams):
        pass

    yield
    if lsp_client.started:
        await lsp_client.shutdown_session()


async def start(client, *, progress: bool = False, watch: bool = False) -> None:
    caps = T.ClientCapabilities(
        window=T.WindowClientCapabilities(work_done_progress=True) if progress else None,
        workspace=T.WorkspaceClientCapabilities(
            did_change_watched_files=T.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
        )
        if watch
        else None,
        text_document=T.TextDocumentClientCapabilities(
            publish_diagnostics=T.PublishDiagnosticsClientCapabilities(related_information=True),
            diagnostic=T.DiagnosticClientCapabilities(),
        ),
    )
    proj = client.project
    await client.initialize_session(
        T.InitializeParams(
            capabilities=caps,
            root_uri=proj.as_uri(),
            workspace_folders=[T.WorkspaceFolder(uri=proj.as_uri(), name="proj")],
            initialization_options={"debounceMs": 20, "diagnosticMode": "push", "jobs": 1},
        )
    )
    client.started = True


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
            pytest.fail(f"timed out waiting for {what}; diagnostics: { {k: [(d.code, d.range.start.line + 1, d.message) for d in v] for k, v in client.diagnostics.items()} }; messages: {[m.message for m in client.messages]}")
        try:
            await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), min(left, 2))
        except asyncio.TimeoutError:
            pass


async def test_broken_config_is_a_diagnostic_on_it_and_the_project_is_checked_with_defaults(client):
    cfg = client.project / "trtlint.toml"
    # line 3 is not TOML; the ignore on line 2 would hide TRT101 if the config were read
    cfg.write_text('# settings\nignore = ["plugin-name-mismatch"]\nselect = "ALL" "x"\n', encoding="utf-8")
    await start(client)
    cfg_uri = cfg.as_uri()
    # an open buffer before the first check (this once gave "internal error: 'Session' object has no attribute")
    client.text_document_did_open(
        T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri(client, TRANSLATIONS), language_id="python", version=1, text=(client.project / TRANSLATIONS).read_text())
        )
    )
    await wait_for(client, lambda: client.diagnostics.get(cfg_uri), "a diagnostic on the broken config")
    (d,) = client.diagnostics[cfg_uri]
    assert d.severity == T.DiagnosticSeverity.Error and d.source == "trtlint" and d.code == "config"
    assert "invalid TOML" in d.message and "default settings" in d.message
    assert d.range.start.line == 2  # the parser's line 3 (0-based 2), from its column on
    assert d.range.start.character == 15 and d.range.end.character == 18
    # also a message, once
    errors = [m for m in client.messages if m.type == T.MessageType.Error]
    assert len(errors) == 1 and "trtlint.toml" in errors[0].message and "invalid TOML" in errors[0].message
    assert not any("internal error" in m.message for m in client.messages)
    # the other files are checked with the defaults: TRT101 is not ignored
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "TRT101 under the defaults")
    assert ("TRT103", 17) in found(client, TRANSLATIONS)
    # pull diagnostics for the config file say the same
    rep = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(cfg_uri)))
    assert [x.message for x in rep.items] == [d.message]
    # this client did not declare window.workDoneProgress: no progress was created or sent
    assert client.progress_reports == {}

    # the user fixes the config in the editor and saves it: settings reloaded, the diagnostic cleared
    fixed = '# settings\nignore = ["plugin-name-mismatch"]\nselect = ["ALL"]\n'
    client.text_document_did_open(
        T.DidOpenTextDocumentParams(T.TextDocumentItem(uri=cfg_uri, language_id="toml", version=1, text=cfg.read_text()))
    )
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=cfg_uri, version=2), [T.TextDocumentContentChangeWholeDocument(text=fixed)]
        )
    )
    cfg.write_text(fixed, encoding="utf-8")
    client.text_document_did_save(T.DidSaveTextDocumentParams(T.TextDocumentIdentifier(cfg_uri)))
    await wait_for(client, lambda: not client.diagnostics.get(cfg_uri), "the config diagnostic to clear")
    await wait_for(client, lambda: not any(c == "TRT101" for c, _ in found(client, TRANSLATIONS)), "the fixed config's ignore")
    assert ("TRT103", 17) in found(client, TRANSLATIONS)
    assert len([m for m in client.messages if m.type == T.MessageType.Error]) == 1


async def test_broken_pyproject_section_points_at_the_key_and_a_watched_fix_clears_it(client):
    pp = client.project / "pyproject.toml"
    pp.write_text('[project]\nname = "x"\n\n[tool.trtlint]\nignore = 3\n', encoding="utf-8")
    await start(client, watch=True)
    pp_uri = pp.as_uri()
    await wait_for(client, lambda: client.diagnostics.get(pp_uri), "a diagnostic on pyproject.toml")
    (d,) = client.diagnostics[pp_uri]
    assert d.range.start.line == 4 and "'ignore' must be a list of strings" in d.message
    assert (d.range.start.character, d.range.end.character) == (0, len("ignore = 3"))
    assert any("pyproject.toml" in m.message for m in client.messages if m.type == T.MessageType.Error)
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "TRT101 under the defaults")

    pp.write_text('[project]\nname = "x"\n\n[tool.trtlint]\nignore = ["TRT103"]\n', encoding="utf-8")
    client.workspace_did_change_watched_files(
        T.DidChangeWatchedFilesParams([T.FileEvent(uri=pp_uri, type=T.FileChangeType.Changed)])
    )
    await wait_for(client, lambda: not client.diagnostics.get(pp_uri), "the config diagnostic to clear")
    await wait_for(client, lambda: ("TRT103", 17) not in found(client, TRANSLATIONS), "the fixed config's ignore")
    assert ("TRT101", 32) in found(client, TRANSLATIONS)


async def test_indexing_reports_work_done_progress_when_the_client_supports_it(client):
    await start(client, progress=True)
    await wait_for(client, lambda: ("TRT101", 32) in found(client, TRANSLATIONS), "the initial TRT101")
    # the progress notifications precede the first diagnostics on the wire
    assert len(client.progress_reports) == 1, client.progress_reports
    (values,) = client.progress_reports.values()
    begin, *reports, end = values
    assert isinstance(begin, T.WorkDoneProgressBegin) and "indexing" in begin.title
    assert isinstance(end, T.WorkDoneProgressEnd) and end.message.endswith("files")
    assert reports and all(isinstance(r, T.WorkDoneProgressReport) for r in reports)
    pcts = [r.percentage for r in reports]
    assert pcts == sorted(pcts) and pcts[-1] <= 100
    assert any("extracting facts" in (r.message or "") for r in reports)
