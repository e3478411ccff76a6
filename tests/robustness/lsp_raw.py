"""A raw JSON-RPC client for ``trtlint lsp`` over stdio: it can send what a well-behaved client never would
(malformed frames, bad JSON, unknown methods), which pytest-lsp's typed client cannot."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parents[2]


class RawLsp:
    def __init__(self, root: Path, cwd: Optional[Path] = None, debounce_ms: int = 20):
        self.root = root
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "trtlint", "lsp", "--debounce-ms", str(debounce_ms)] + (["--log-file", os.environ["TRTLINT_TEST_LSP_LOG"]] if os.environ.get("TRTLINT_TEST_LSP_LOG") else []),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd or root, env=env,
        )
        self.inbox: "queue.Queue[dict]" = queue.Queue()
        self.seen: list[dict] = []
        self._id = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err: list[bytes] = []
        threading.Thread(target=lambda: self._err.extend(iter(self.proc.stderr.readline, b"")), daemon=True).start()

    # ------------------------------------------------------------- transport
    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode("ascii", "replace").partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers.get("content-length", "0")))
            try:
                self.inbox.put(json.loads(body))
            except ValueError:
                self.inbox.put({"unparsable": body})

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg: Any) -> None:
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def request(self, method: str, params: Any = None, timeout: float = 60) -> dict:
        self._id += 1
        rid = self._id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params is not None else {})})
        return self.wait(lambda m: m.get("id") == rid and ("result" in m or "error" in m), timeout)

    def wait(self, pred, timeout: float = 60) -> dict:
        for m in self.seen:
            if pred(m):
                self.seen.remove(m)
                return m
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                m = self.inbox.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            if m.get("method") in ("window/workDoneProgress/create", "client/registerCapability") and "id" in m:
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
                continue
            if pred(m):
                return m
            self.seen.append(m)
        raise TimeoutError(f"no matching message in {timeout} s; stderr: {b''.join(self._err)[-2000:]!r}")

    # ------------------------------------------------------------- LSP
    def initialize(self) -> dict:
        r = self.request("initialize", {
            "processId": os.getpid(), "rootUri": self.root.as_uri(),
            "workspaceFolders": [{"uri": self.root.as_uri(), "name": "proj"}],
            "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}},
            "initializationOptions": {"debounceMs": 20, "diagnosticMode": "push", "jobs": 1},
        })
        self.notify("initialized", {})
        return r

    def open(self, path: Path, text: str, lang: str = "python") -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": lang, "version": 1, "text": text}})

    def change(self, path: Path, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                               "contentChanges": [{"text": text}]})

    def save(self, path: Path) -> None:
        self.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})

    def wait_diagnostics(self, uri: str, timeout: float = 60) -> dict:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri, timeout)

    def pull(self, path: Path, timeout: float = 60) -> dict:
        """``textDocument/diagnostic``: the server answers it after checking the pending edits."""
        return self.request("textDocument/diagnostic", {"textDocument": {"uri": path.as_uri()}}, timeout=timeout)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        try:
            if self.alive():
                self.request("shutdown", timeout=20)
                self.notify("exit")
                self.proc.wait(10)
        except (OSError, TimeoutError, subprocess.TimeoutExpired, ValueError):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(5)

    def stderr(self) -> str:
        return b"".join(self._err).decode("utf-8", "replace")

    def __enter__(self) -> "RawLsp":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
