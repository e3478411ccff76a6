"""``trtlint lsp``: the language server (pygls, stdio).

A thin shell over :class:`trtlint.editor.session.Session`: the project is indexed once when the client is initialized;
afterwards only the edited buffer's unsaved text is re-extracted, the index is rebuilt from the facts in
memory and the rules run again. Diagnostics are pushed (``textDocument/publishDiagnostics``) on open, on
change (debounced) and on save, for every file whose findings changed — a cross-file finding appears in the
Python file when the C++ name constant is edited, and clears when it is changed back. Pull diagnostics
(``textDocument/diagnostic``) are answered too. Code actions apply a rule's fix where it has one and add a
suppression comment; hover on a finding, or on a rule code in a suppression comment, shows the rule's docs.
A config change (``trtlint.toml``, ``[tool.trtlint]`` in ``pyproject.toml``, a rule pack) is picked up
without a restart. A broken config is an error diagnostic on the config file (at the line the parser names)
and a ``window/showMessage``; the project is checked with the built-in defaults until it is fixed. Loading the
project reports work-done progress (``$/progress``) when the client supports it.

Initialization options (all optional): ``debounceMs`` (default 25; also a ``workspace/didChangeConfiguration``
setting, ``{"trtlint": {"debounceMs": N}}``), ``diagnosticMode`` (``"push"``,
``"pull"`` or ``"auto"``: pull when the client supports it, else push; default ``"auto"``), ``jobs``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Optional

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from trtlint.base import safeio
from trtlint import __version__
from trtlint.checks.registry import find_rule
from trtlint.config.settings import ConfigError
from trtlint.base.diagnostics import Diagnostic
from trtlint.index.discover import kind_of
from trtlint.editor.session import Session
from trtlint.adoption.suppress import SUPPRESS_RE

log = logging.getLogger("trtlint.editor.server")

# how long the server waits after the last change before it checks (``--debounce-ms``, the ``debounceMs``
# initialization option or setting). An edit's check costs ~0.1-0.2 s on a real tree (one unit re-extracted, the
# rules whose facts changed run again), so a short wait only merges the changes of one burst of typing; changes
# that arrive while a check runs are merged into the next one anyway
DEFAULT_DEBOUNCE_MS = 25
_SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning, "info": T.DiagnosticSeverity.Information}
_COMMENT = {"python": "#", "cmake": "#", "makefile": "#", "yaml": "#", "cpp": "//", "cuda": "//", "header": "//"}
_WATCH_GLOBS = (
    "**/*.{cpp,cc,cxx,c,cu,h,hpp,hh,hxx,cuh,inl,py,yaml,yml,cmake}",
    "**/CMakeLists.txt",
    "**/{trtlint.toml,.trtlint.toml,pyproject.toml}",
)


def _units(text: str, encoding) -> int:
    """The length of ``text`` in the client's position units."""
    if encoding == T.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    if encoding == T.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _from_units(line: str, units: int, encoding) -> int:
    """A client position character offset -> a code-point offset in ``line``."""
    if encoding == T.PositionEncodingKind.Utf32 or line.isascii():
        return min(units, len(line))
    n = 0
    for i, ch in enumerate(line):
        if n >= units:
            return i
        n += _units(ch, encoding)
    return len(line)


class TrtlintServer(LanguageServer):
    def __init__(self, debounce_ms: int = DEFAULT_DEBOUNCE_MS):
        super().__init__("trtlint", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.debounce = debounce_ms / 1000.0
        self.session: Optional[Session] = None
        self.mode = "push"
        self.jobs: Optional[int] = None
        self.mp_context = None  # the extraction pool's multiprocessing context (main(): "forkserver")
        self.published: dict[str, tuple] = {}  # uri -> what was last published there
        self._announce: set[str] = set()  # uris opened since: published on the next publish even when empty
        self.by_path: dict[str, list[Diagnostic]] = {}
        self._open: dict[str, str] = {}  # rel -> uri of open buffers whose text changed since the last check
        self._closed: set[str] = set()
        self._disk: set[str] = set()
        self._reload = False
        self._timer: Optional[asyncio.TimerHandle] = None
        self._lock: Optional[asyncio.Lock] = None
        self._ready: Optional[asyncio.Event] = None
        self._pending_task: Optional[asyncio.Task] = None
        self.checks = 0  # completed checks (tests and the benchmark read it)
        self.config_diagnostic: Optional[tuple[str, T.Diagnostic]] = None  # (uri, diagnostic) of a broken config
        self._config_shown: Optional[str] = None  # the config error last shown in a message
        self._progress_tokens = 0
        # rel -> lines of a file not open in the editor, read once per publication (publish, pull): a finding's
        # related locations each need their file's lines; None outside one
        self._line_cache: Optional[dict[str, list[str]]] = None

    def start_io(self, stdin=None, stdout=None, log_handler=None) -> int:  # type: ignore[override]
        """Serve over stdin/stdout with trtlint's transport (:func:`trtlint.editor.transport.serve`: malformed
        messages answered with JSON-RPC errors, never a traceback); the process exit code."""
        import sys
        import threading

        from pygls.io_ import StdoutWriter

        from trtlint.editor.transport import serve, stdin_reader

        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def run() -> int:
            if log_handler is not None:
                log_handler.loop = asyncio.get_running_loop()
            return await serve(self, stdin_reader(stdin))

        try:
            return asyncio.run(run())
        except BrokenPipeError:
            log.warning("the client closed the connection")
            return 0
        except KeyboardInterrupt:
            return 130
        finally:
            if log_handler is not None:
                log_handler.loop = None
            self.shutdown()

    def report_server_error(self, error: Exception, source) -> None:
        """pygls' report of an error outside a request (a notification handler that raised, as pygls' own
        ``didChange`` does for a document never opened; a message that could not be sent): logged (the client's log, the log file) rather than
        shown as a message box; a request's error is in its answer."""
        from pygls.exceptions import FeatureRequestError

        if source is not FeatureRequestError:  # (pygls logged a request's error already)
            log.error("error outside a request: %s: %s", type(error).__name__, error)

    # plumbing ---------------------------------------------------------------------------------------------
    def _sync_primitives(self) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
            self._ready = asyncio.Event()

    def uri_of(self, rel: str) -> str:
        return from_fs_path(str(self.session.root / rel))

    def rel_of(self, uri: str) -> Optional[str]:
        if self.session is None:
            return None
        p = to_fs_path(uri)
        return self.session.rel(Path(p)) if p else None

    def schedule(self, delay: float) -> None:
        """(Re)start the debounce timer: the check runs ``delay`` seconds after the last change."""
        self._sync_primitives()
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._pending_task = asyncio.ensure_future(self.run_check())

    def _has_pending(self) -> bool:
        return bool(self._open or self._closed or self._disk or self._reload)

    # work-done progress -----------------------------------------------------------------------------------
    def _progress_supported(self) -> bool:
        w = self.client_capabilities.window if self.client_capabilities else None
        return bool(w and w.work_done_progress)

    async def progress_begin(self, title: str) -> Optional[str]:
        """Create a work-done progress token (``window/workDoneProgress/create``) and begin it; None when the
        client did not declare ``window.workDoneProgress`` or refused the token."""
        if not self._progress_supported():
            return None
        self._progress_tokens += 1
        token = f"trtlint-load-{self._progress_tokens}"
        try:
            await asyncio.wait_for(self.work_done_progress.create_async(token), 30)
        except Exception as e:  # an error answer, no answer: go on without progress
            log.info("work-done progress token refused: %r", e)
            return None
        self.work_done_progress.begin(token, T.WorkDoneProgressBegin(title=title, cancellable=False, percentage=0))
        return token

    def progress_callback(self, token: Optional[str]):
        """A ``progress(phase, done, total)`` callback for :meth:`Session.load` (called from a worker thread)
        that reports on ``token``, once per phase and whole percent, never going back."""
        if token is None:
            return None
        loop = asyncio.get_running_loop()
        last = [-1, None]

        def report(phase: str, done: int, total: int) -> None:
            pct = max(last[0], _percent(phase, done, total))
            if (pct, phase) == tuple(last):
                return
            last[:] = [pct, phase]
            label = _PHASES.get(phase, phase)
            message = f"{label} {done}/{total}" if phase == "extract" else label
            loop.call_soon_threadsafe(
                self.work_done_progress.report, token, T.WorkDoneProgressReport(message=message, percentage=pct)
            )

        return report

    def progress_end(self, token: Optional[str], message: Optional[str] = None) -> None:
        if token is not None:
            self.work_done_progress.end(token, T.WorkDoneProgressEnd(message=message))

    async def load(self) -> None:
        self._sync_primitives()
        loop = asyncio.get_running_loop()
        async with self._lock:
            token = await self.progress_begin("trtlint: indexing the project")
            try:
                await loop.run_in_executor(None, self.session.load, self.progress_callback(token))
            except ConfigError as e:
                self.window_show_message(T.ShowMessageParams(T.MessageType.Error, f"trtlint: {e}"))
            except Exception as e:  # pragma: no cover - never let the server die
                log.exception("load failed")
                self.window_show_message(T.ShowMessageParams(T.MessageType.Error, f"trtlint: internal error: {e}"))
            self.progress_end(token, f"{len(self.session.sources)} files")
            self._ready.set()
        log.info("project loaded: %d files, %s", len(self.session.sources), self.session.timings)
        await self.run_check()

    async def run_check(self) -> None:
        """Apply the pending buffer/disk/config changes, check, publish what changed."""
        self._sync_primitives()
        await self._ready.wait()
        loop = asyncio.get_running_loop()
        async with self._lock:
            s = self.session
            buffers = {}
            for rel, uri in self._open.items():
                doc = self.workspace.get_text_document(uri)
                buffers[rel] = doc.source
            closed, disk, reload = set(self._closed), set(self._disk), self._reload
            self._open.clear()
            self._closed.clear()
            self._disk.clear()
            self._reload = False
            token = await self.progress_begin("trtlint: reloading the project") if reload else None
            progress = self.progress_callback(token)

            def work() -> list[Diagnostic]:
                for rel in closed:
                    s.close_buffer(rel)
                for rel, text in buffers.items():
                    s.set_buffer(rel, text)
                for rel in disk:
                    s.disk_changed(rel)
                if reload:
                    s.load(progress)
                return s.check()

            try:
                await loop.run_in_executor(None, work)
            except ConfigError as e:
                self.window_show_message(T.ShowMessageParams(T.MessageType.Error, f"trtlint: {e}"))
                return
            except Exception as e:  # pragma: no cover - never let the server die
                log.exception("check failed")
                self.window_show_message(T.ShowMessageParams(T.MessageType.Error, f"trtlint: internal error: {e}"))
                return
            finally:
                self.progress_end(token)
            self.by_path = s.by_path()
            self.config_diagnostic = self._config_problem()
            self.checks += 1
            log.info("check %d: %d buffers, %d on disk, reload %s: %s", self.checks, len(buffers), len(disk), reload, s.timings)
            self.publish()

    async def settle(self) -> None:
        """Wait until every change received so far is checked (for pull diagnostics)."""
        self._sync_primitives()
        if self._timer is not None or self._has_pending():
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            await self.run_check()
        else:
            await self._ready.wait()
            async with self._lock:
                pass

    # conversion -------------------------------------------------------------------------------------------
    def _lines(self, rel: str) -> list[str]:
        uri = self.uri_of(rel)
        doc = self.workspace.text_documents.get(uri)
        if doc is not None:
            return doc.lines
        cache = self._line_cache
        if cache is not None and rel in cache:
            return cache[rel]
        text = self.session.buffers.get(rel)
        if text is None:
            try:
                text = safeio.read_text(self.session.root / rel, root=self.session.root, limit=safeio.FRAME_LIMIT)
            except OSError:
                text = ""
        lines = text.splitlines(keepends=True)
        if cache is not None:
            cache[rel] = lines
        return lines

    def to_range(self, span, lines: Optional[list[str]] = None) -> T.Range:
        enc = self.workspace.position_encoding
        lines = self._lines(span.path) if lines is None else lines

        cpp = kind_of(span.path.rsplit("/", 1)[-1]) in ("cpp", "cuda", "header")

        def pos(line: int, col: int) -> T.Position:
            ln = max(0, line - 1)
            c = max(0, col - 1)
            if ln < len(lines):
                text = lines[ln]
                if cpp and not text.isascii():  # C++ columns are byte offsets within the line
                    c = len(text.encode("utf-8", "surrogatepass")[:c].decode("utf-8", "ignore"))
                c = _units(text[:c], enc)
            return T.Position(ln, c)

        start = pos(span.line, span.col)
        end = pos(span.end_line or span.line, span.end_col or span.col)
        return T.Range(start, end)

    def to_lsp(self, d: Diagnostic, lines: Optional[list[str]] = None) -> T.Diagnostic:
        rule = find_rule(d.code)
        related = [
            T.DiagnosticRelatedInformation(T.Location(self.uri_of(r.span.path), self.to_range(r.span)), r.message)
            for r in d.related
        ]
        message = d.message if not d.logical else f"[{d.logical}] {d.message}"
        if d.notes:
            message += "".join(f"\nnote: {n}" for n in d.notes)
        return T.Diagnostic(
            range=self.to_range(d.span, lines),
            message=message,
            severity=_SEVERITY.get(d.severity.value, T.DiagnosticSeverity.Warning),
            code=d.code,
            code_description=T.CodeDescription(href=rule.help_uri()) if rule and rule.help_uri() else None,
            source="trtlint",
            related_information=related or None,
            data={"name": d.name, "fingerprint": d.fingerprint, "fixable": d.fix is not None},
        )

    def _config_problem(self) -> Optional[tuple[str, T.Diagnostic]]:
        """The session's config error as (uri, diagnostic) on the config file, at the line the parser names (the
        whole line; from the column on when it names one); shown once more as a message when it is new."""
        err = self.session.config_error if self.session is not None else None
        if err is None:
            self._config_shown = None
            return None
        text = f"trtlint: {err} (checking with the default settings until it is fixed)"
        if text != self._config_shown:
            self._config_shown = text
            self.window_show_message(T.ShowMessageParams(T.MessageType.Error, text))
        at = self.session.config_error_at
        if at is None:
            return None
        path, line, col = at
        uri = from_fs_path(str(path))
        doc = self.workspace.text_documents.get(uri)
        if doc is not None:
            lines = doc.lines
        else:
            try:
                lines = safeio.read_text(path, root=self.session.root, limit=safeio.FRAME_LIMIT).splitlines(keepends=True)
            except OSError:
                lines = []
        ln = max(0, (line or 1) - 1)
        body = lines[ln].rstrip("\r\n") if ln < len(lines) else ""
        enc = self.workspace.position_encoding
        start = min(len(body), col - 1) if col else len(body) - len(body.lstrip())
        if start >= len(body.rstrip()):  # the column is past the text (the parser points at the end): whole line
            start = 0
        rng = T.Range(T.Position(ln, _units(body[:start], enc)), T.Position(ln, _units(body, enc)))
        message = str(err)
        prefix = f"{path}:{line}: " if line else f"{path}: "
        if message.startswith(prefix):
            message = message[len(prefix):]
        elif message.startswith(f"{path}: "):
            message = message[len(f"{path}: "):]
        return uri, T.Diagnostic(
            range=rng,
            message=f"{message} (trtlint goes on with the default settings)",
            severity=T.DiagnosticSeverity.Error,
            code="config",
            source="trtlint",
        )

    def lsp_diagnostics(self, rel: Optional[str], uri: Optional[str] = None) -> list[T.Diagnostic]:
        diags = self.by_path.get(rel, []) if rel is not None else []
        own = self._line_cache is None
        if own:
            self._line_cache = {}
        try:
            lines = self._lines(rel) if diags else []
            out = [self.to_lsp(d, lines) for d in diags]
        finally:
            if own:
                self._line_cache = None
        cd = self.config_diagnostic
        if cd is not None and cd[0] == (uri or (self.uri_of(rel) if rel is not None else None)):
            out.append(cd[1])
        return out

    def publish(self) -> None:
        """Push what changed since the last publication; an opened document is published even when it has no
        finding (an empty list, from which a client clears what it showed), unless its buffer is still to be
        checked."""
        targets = {self.uri_of(rel): rel for rel in self.by_path}
        for uri in list(self.published):
            targets.setdefault(uri, self.rel_of(uri))
        pending = set(self._open.values())
        announce = {u for u in self._announce if u not in pending}
        self._announce -= announce
        for uri in announce:
            targets.setdefault(uri, self.rel_of(uri))
        cd = self.config_diagnostic
        if cd is not None:
            targets.setdefault(cd[0], self.rel_of(cd[0]))
        self._line_cache = {}
        try:
            changed = self._publish(targets, cd, announce)
        finally:
            self._line_cache = None
        if changed and self.mode == "pull" and self._refresh_support():
            self.workspace_diagnostic_refresh(None)

    def _publish(self, targets: dict, cd, announce: set) -> bool:
        changed = False
        docs = self.workspace.text_documents
        # the documents open in the editor first (what the user looks at), then the others, each by uri
        for uri, rel in sorted(targets.items(), key=lambda item: (item[0] not in docs, item[0])):
            key = tuple((d.code, d.span, d.message, d.severity.value, d.related) for d in self.by_path.get(rel, []))
            if cd is not None and cd[0] == uri:
                key += ((cd[1].code, cd[1].message, cd[1].range.start.line, cd[1].range.start.character),)
            if self.published.get(uri, ()) == key and uri in self.published and uri not in announce:
                continue
            changed = True
            if key:
                self.published[uri] = key
            else:
                self.published.pop(uri, None)
            if self.mode == "push":
                doc = self.workspace.text_documents.get(uri)
                self.text_document_publish_diagnostics(
                    T.PublishDiagnosticsParams(uri=uri, diagnostics=self.lsp_diagnostics(rel, uri), version=doc.version if doc else None)
                )
        return changed

    def _refresh_support(self) -> bool:
        ws = self.client_capabilities.workspace
        return bool(ws and ws.diagnostics and ws.diagnostics.refresh_support)

    def diagnostics_at(self, rel: str, line0: int, char0: Optional[int] = None) -> list[Diagnostic]:
        out = []
        lines = self._lines(rel)
        for d in self.by_path.get(rel, []):
            r = self.to_range(d.span, lines)
            if not (r.start.line <= line0 <= r.end.line):
                continue
            if char0 is not None and r.start.line == r.end.line == line0 and r.end.character > r.start.character:
                if not (r.start.character <= char0 <= r.end.character):
                    continue
            out.append(d)
        return out

    # handlers (registered by make_server) ------------------------------------------------------------------
    def on_initialize(self, params: T.InitializeParams):
        opts = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        if isinstance(opts.get("debounceMs"), (int, float)):
            self.debounce = max(0.0, opts["debounceMs"] / 1000.0)
        if isinstance(opts.get("jobs"), int):
            self.jobs = opts["jobs"]
        mode = opts.get("diagnosticMode", "auto")
        td = params.capabilities.text_document
        pull_ok = bool(td and td.diagnostic)
        self.mode = mode if mode in ("push", "pull") else ("pull" if pull_ok else "push")
        root = None
        if params.workspace_folders:
            root = to_fs_path(params.workspace_folders[0].uri)
        elif params.root_uri:
            root = to_fs_path(params.root_uri)
        elif params.root_path:
            root = params.root_path
        # isolate: an edited buffer is re-extracted in a worker process killed past the file-timeout setting;
        # a broken config is reported (a diagnostic on it) and the project checked with the defaults meanwhile
        self.session = Session(Path(root or ".").resolve(), jobs=self.jobs, isolate=True, tolerate_config_errors=True,
                             mp_context=self.mp_context)

    async def on_initialized(self, params: T.InitializedParams):
        ws = self.client_capabilities.workspace
        if ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration:
            watchers = [T.FileSystemWatcher(glob_pattern=g) for g in _WATCH_GLOBS]
            self.client_register_capability(
                T.RegistrationParams(
                    [
                        T.Registration(
                            id="trtlint-watch",
                            method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=T.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                        )
                    ]
                )
            )
        await self.load()

    def on_did_open(self, params: T.DidOpenTextDocumentParams):
        uri = params.text_document.uri
        self._announce.add(uri)
        rel = self.rel_of(uri)
        if rel is None:  # outside the project: nothing to check, its (empty) list is published now or after the load
            if self._ready is not None and self._ready.is_set():
                self.publish()
            return
        self._open[rel] = uri
        self.schedule(0)

    def on_did_change(self, params: T.DidChangeTextDocumentParams):
        rel = self.rel_of(params.text_document.uri)
        if rel is None:
            return
        if self.session.is_config(self.session.root / rel):
            return  # a config takes effect when saved
        self._open[rel] = params.text_document.uri
        self.schedule(self.debounce)

    def on_did_save(self, params: T.DidSaveTextDocumentParams):
        path = to_fs_path(params.text_document.uri) if self.session is not None else None
        if path and self.session.is_config(Path(path)):  # also a config outside the project (extend, a parent dir)
            self._reload = True
            self.schedule(0)
            return
        rel = self.rel_of(params.text_document.uri)
        if rel is None:
            return
        self._open[rel] = params.text_document.uri
        self.schedule(0)

    def on_did_close(self, params: T.DidCloseTextDocumentParams):
        rel = self.rel_of(params.text_document.uri)
        if rel is None:
            return
        self._open.pop(rel, None)
        self._closed.add(rel)
        self.schedule(0)

    def on_did_change_watched(self, params: T.DidChangeWatchedFilesParams):
        for ch in params.changes:
            path = to_fs_path(ch.uri)
            if path and self.session is not None and self.session.is_config(Path(path)):
                self._reload = True
                continue
            rel = self.rel_of(ch.uri) if path else None
            if rel is not None:
                self._disk.add(rel)
        self.schedule(0)

    def on_did_change_configuration(self, params: T.DidChangeConfigurationParams):
        settings = params.settings if isinstance(params.settings, dict) else {}
        mine = settings.get("trtlint") if isinstance(settings.get("trtlint"), dict) else settings
        ms = mine.get("debounceMs")
        if isinstance(ms, (int, float)) and not isinstance(ms, bool):
            self.debounce = max(0.0, ms / 1000.0)
        self._reload = True
        self.schedule(0)

    async def on_pull_diagnostics(self, params: T.DocumentDiagnosticParams):
        await self.settle()
        rel = self.rel_of(params.text_document.uri)
        return T.RelatedFullDocumentDiagnosticReport(items=self.lsp_diagnostics(rel, params.text_document.uri))

    def on_code_action(self, params: T.CodeActionParams):
        rel = self.rel_of(params.text_document.uri)
        if rel is None:
            return None
        lines = self._lines(rel)
        out = []
        seen_sup = set()
        for d in self.by_path.get(rel, []):
            r = self.to_range(d.span, lines)
            if r.end.line < params.range.start.line or r.start.line > params.range.end.line:
                continue
            ld = self.to_lsp(d, lines)
            if d.fix is not None:
                changes = fix_changes(d.fix, self.uri_of, self.to_range)
                out.append(
                    T.CodeAction(
                        title=f"{d.code}: {d.fix.message}",
                        kind=T.CodeActionKind.QuickFix,
                        diagnostics=[ld],
                        edit=T.WorkspaceEdit(changes=changes),
                        is_preferred=d.fix.applicability == "safe",
                    )
                )
            key = (d.code, r.start.line)
            if key in seen_sup:
                continue
            seen_sup.add(key)
            edit = suppression_edit(self.session.sources.get(rel).kind if rel in self.session.sources else None, lines, r.start.line, d.code, self.workspace.position_encoding)
            if edit is not None:
                out.append(
                    T.CodeAction(
                        title=f"Suppress {d.code} ({d.name}) on this line",
                        kind=T.CodeActionKind.QuickFix,
                        diagnostics=[ld],
                        edit=T.WorkspaceEdit(changes={params.text_document.uri: [edit]}),
                    )
                )
        return out or None

    def on_hover(self, params: T.HoverParams):
        rel = self.rel_of(params.text_document.uri)
        if rel is None:
            return None
        lines = self._lines(rel)
        ln = params.position.line
        line = lines[ln].rstrip("\r\n") if ln < len(lines) else ""
        ch = _from_units(line, params.position.character, self.workspace.position_encoding)
        rule = rule_in_suppression(line, ch)
        if rule is not None:
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, _rule_doc(rule)))
        found = self.diagnostics_at(rel, ln, params.position.character)
        from trtlint.coverage.model import hover_text  # how the ONNX parser takes a node this line emits (trtlint coverage)

        node = hover_text(getattr(self.session, "index", None), rel, ln + 1) if self.session is not None else None
        if not found and node is None:
            return None
        parts = [node] if node else []
        for d in found:
            parts.append(f"**{d.code} {d.name}** ({d.severity.value}): {d.message}")
        for code in dict.fromkeys(d.code for d in found):
            r = find_rule(code)
            if r is not None:
                parts.append(_rule_doc(r))
        return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, "\n\n---\n\n".join(parts)))


def make_server(debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> TrtlintServer:
    """A server with its handlers (the ``on_*`` methods of :class:`TrtlintServer`) registered (each through a
    ``functools.partial``: pygls marks what it registers with attributes, which a bound method cannot take)."""
    import functools

    ls = TrtlintServer(debounce_ms)
    on = functools.partial
    ls.feature(T.INITIALIZE)(on(ls.on_initialize))
    ls.feature(T.INITIALIZED)(on(ls.on_initialized))
    ls.feature(T.TEXT_DOCUMENT_DID_OPEN)(on(ls.on_did_open))
    ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)(on(ls.on_did_change))
    ls.feature(T.TEXT_DOCUMENT_DID_SAVE)(on(ls.on_did_save))
    ls.feature(T.TEXT_DOCUMENT_DID_CLOSE)(on(ls.on_did_close))
    ls.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)(on(ls.on_did_change_watched))
    ls.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)(on(ls.on_did_change_configuration))
    ls.feature(
        T.TEXT_DOCUMENT_DIAGNOSTIC,
        T.DiagnosticOptions(identifier="trtlint", inter_file_dependencies=True, workspace_diagnostics=False),
    )(on(ls.on_pull_diagnostics))
    ls.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))(
        on(ls.on_code_action)
    )
    ls.feature(T.TEXT_DOCUMENT_HOVER)(on(ls.on_hover))
    return ls


_PHASES = {"discover": "discovering files", "extract": "extracting facts", "index": "joining the index", "check": "running the rules"}
_SPAN = {"discover": (0, 5), "extract": (5, 90), "index": (90, 95), "check": (95, 100)}


def _percent(phase: str, done: int, total: int) -> int:
    """The whole load's percentage at ``done`` of ``total`` in ``phase`` (extraction is most of the work)."""
    lo, hi = _SPAN.get(phase, (0, 0))
    frac = min(1.0, done / total) if total > 0 else 1.0
    return int(lo + (hi - lo) * frac)


def fix_changes(fix, uri_of, to_range) -> dict[str, list[T.TextEdit]]:
    """A rule's :class:`~trtlint.base.diagnostics.Fix` as LSP ``WorkspaceEdit.changes`` (edits may span files)."""
    changes: dict[str, list[T.TextEdit]] = {}
    for e in fix.edits:
        changes.setdefault(uri_of(e.span.path), []).append(T.TextEdit(to_range(e.span), e.text))
    return changes


def _rule_doc(rule) -> str:
    from trtlint.checks.docs import rule_markdown

    uri = rule.help_uri()  # "" unless $TRTLINT_DOCS_URL says where the rule pages are published
    return rule_markdown(rule) + (f"\n[{rule.code} documentation]({uri})\n" if uri else "")


_TOKEN = re.compile(r"[A-Za-z0-9_-]+")


def rule_in_suppression(line: str, col0: int):
    """The rule named by the token under code-point offset ``col0`` of a suppression comment's rule list."""
    m = SUPPRESS_RE.search(line)
    if not m or m.group(1) is None:
        return None
    start = m.start(1)
    for t in _TOKEN.finditer(m.group(1)):
        if start + t.start() <= col0 <= start + t.end():
            return find_rule(t.group(0))
    return None


def suppression_edit(kind: Optional[str], lines: list[str], line0: int, code: str, encoding) -> Optional[T.TextEdit]:
    """A text edit that suppresses ``code`` on line ``line0``: add it to the line's suppression comment, or
    append one (a comment line above when the line ends in a backslash continuation)."""
    tok = _COMMENT.get(kind or "")
    if tok is None or line0 >= len(lines) + (1 if not lines else 0):
        return None
    raw = lines[line0] if line0 < len(lines) else ""
    line = raw.rstrip("\r\n")
    m = SUPPRESS_RE.search(line)
    if m:
        if m.group(1) is None:
            return None  # a bare `trtlint: ignore` covers every rule already
        codes = [c.strip() for c in m.group(1).split(",") if c.strip()]
        if code in codes:
            return None
        at = _units(line[: m.end(1)], encoding)
        sep = ", " if codes else ""
        return T.TextEdit(T.Range(T.Position(line0, at), T.Position(line0, at)), f"{sep}{code}")
    comment = f"{tok} trtlint: ignore[{code}]"
    if line.rstrip().endswith("\\"):
        indent = line[: len(line) - len(line.lstrip())]
        return T.TextEdit(T.Range(T.Position(line0, 0), T.Position(line0, 0)), f"{indent}{comment}\n")
    body = line.rstrip()
    start = _units(body, encoding)
    end = _units(line, encoding)
    return T.TextEdit(T.Range(T.Position(line0, start), T.Position(line0, end)), f"  {comment}")


def main(debounce_ms: int = DEFAULT_DEBOUNCE_MS, log_file: Optional[str] = None) -> int:
    """Serve over stdio until ``exit`` (exit code 0 after ``shutdown``, else 1) or the end of input (0). The log
    goes to the client (``window/logMessage``) and to ``log_file`` or ``$TRTLINT_LSP_LOG`` when given; never to
    stderr (:mod:`trtlint.editor.transport`)."""
    import multiprocessing
    import sys

    from trtlint.base.envvars import text as env_text
    from trtlint.editor.transport import setup_logging

    log_file = log_file or env_text("TRTLINT_LSP_LOG") or None
    server = make_server(debounce_ms)
    try:
        handler = setup_logging(server, log_file)
    except OSError as e:
        print(f"trtlint: error: cannot open the log file {log_file}: {e.strerror or e}", file=sys.stderr)
        return 2
    # the initial index is built in a worker thread: fork-starting its process pool there can deadlock
    server.mp_context = multiprocessing.get_context("forkserver")
    try:
        return server.start_io(log_handler=handler)
    finally:
        if server.session is not None:
            server.session.close()
