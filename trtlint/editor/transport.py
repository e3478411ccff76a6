"""The language server's stdio transport: framing, JSON-RPC validation and logging, so that nothing a client sends
prints a traceback or goes unanswered where the specification wants an answer.

pygls reads frames and parses them itself, and on anything malformed it logs a traceback (to stderr by default)
and answers nothing. :func:`serve` replaces its reading loop and hands pygls only messages that are valid:

- **framing** (the LSP base protocol): header lines are read with a length limit (:data:`MAX_HEADER_LINE`; a
  longer line is skipped unread), a ``Content-Length`` must be a decimal number, a body larger than
  :data:`MAX_BODY` is skipped unread; text that is not a header (the tail of a body whose ``Content-Length`` was
  too short) is skipped up to the next ``Content-Length:``, so the stream resynchronises. Each is logged; the
  framing has no way to answer.
- **JSON** that does not parse, or a body that is not UTF-8: ``-32700`` Parse error, ``id: null`` (JSON-RPC 2.0).
- **not a Request object** (an array, a number; no ``"jsonrpc": "2.0"``; a ``method`` that is not a string; an
  ``id`` that is not an integer or a string; ``params`` that are neither object nor array; neither a method
  nor a result): ``-32600`` Invalid Request, with the message's id when it has a valid one, else ``null``.
- **params that do not fit the method** (``textDocument/hover`` without a position): ``-32602`` Invalid params
  for a request; a notification is never answered, it is logged and dropped.
- **before** ``initialize`` a request gets ``-32002`` ServerNotInitialized, **after** ``shutdown`` ``-32600``;
  notifications then are dropped (``exit`` excepted).

Unknown methods go to pygls as before (a request gets ``-32601``; a notification is ignored). ``exit`` ends the
loop with exit code 0 after ``shutdown``, else 1 (LSP); end of input ends it with 0.

Logging (:func:`setup_logging`): records of level warning and above go to the client as ``window/logMessage``
(one line: the message and the exception's type and text, never a traceback); with a log file (``--log-file``
or ``$TRTLINT_LSP_LOG``) every record from info up goes there, tracebacks included. Nothing is written to
stderr: Python warnings, uncaught exceptions in threads and asyncio's own reports go through the same logging.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

log = logging.getLogger("trtlint.editor.server")

MAX_HEADER_LINE = 8 * 1024  # bytes; a header line is ~30
MAX_BODY = 256 * 1024 * 1024  # bytes; an editor buffer of the 20 MB the server is tested with is far below it
_CHUNK = 1 << 20

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


@dataclass
class Frame:
    body: Optional[bytes]  # None: the message was skipped (see problems)
    problems: list[str] = field(default_factory=list)


class FrameReader:
    """Reads base-protocol frames with ``read(n)`` (returns up to n bytes, ``b""`` at end of input), never holding
    more than one header line or one body of at most :data:`MAX_BODY` bytes."""

    def __init__(self, read: Callable[[int], bytes]):
        self._read = read
        self._buf = bytearray()
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        data = self._read(_CHUNK)
        if not data:
            self._eof = True
            return False
        self._buf += data
        return True

    def _line(self) -> Optional[bytes]:
        """The next line (with its newline); ``b"\\0"`` for a line longer than :data:`MAX_HEADER_LINE` (skipped);
        None at the end of input."""
        too_long = False
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                line = bytes(self._buf[: i + 1])
                del self._buf[: i + 1]
                return b"\0" if too_long or len(line) > MAX_HEADER_LINE else line
            if len(self._buf) > MAX_HEADER_LINE:
                too_long = True
                del self._buf[:]
            if not self._fill():  # the end of input (a last line without its newline is dropped)
                return b"\0" if too_long else None

    def _body(self, n: int) -> Optional[bytes]:
        """``n`` bytes of body; None when the input ends first."""
        out = bytearray()
        while n > 0:
            if not self._buf and not self._fill():
                return None
            take = min(n, len(self._buf))
            out += self._buf[:take]
            del self._buf[:take]
            n -= take
        return bytes(out)

    def next_frame(self) -> Optional[Frame]:
        """The next frame; None at the end of input."""
        problems: list[str] = []
        length: Optional[int] = None
        junk = 0
        headers = 0
        long_lines = 0
        bad_length = False
        while True:
            line = self._line()
            if line is None:
                return Frame(None, problems + [f"{junk} line(s) that are not a header before the end of input"]) if junk else None
            if line == b"\0":
                if not long_lines:
                    problems.append(f"a header line longer than {MAX_HEADER_LINE} bytes (skipped)")
                long_lines += 1
                continue
            text = line.strip()
            if not text:
                if length is not None:
                    break
                if junk or problems or headers:
                    if headers and not bad_length:
                        problems.append("a header without Content-Length (skipped)")
                    return Frame(None, _junk(problems, junk))
                continue  # blank lines between frames
            at = text.lower().find(b"content-length:")
            if at > 0:  # the tail of a body whose Content-Length was too short, then the next frame's header
                junk += 1
                text = text[at:]
            name, sep, value = text.partition(b":")
            if not sep or not _token(name):
                junk += 1
                continue
            headers += 1
            if name.strip().lower() == b"content-length":
                v = value.strip()
                if v.isdigit() and len(v) <= 15 and int(v) <= MAX_BODY:
                    length = int(v)
                    continue
                bad_length = True
                if v.isdigit():
                    # not skipped byte by byte: a length that lies would swallow everything after it; what
                    # follows is read as text that is not a header, up to the next Content-Length
                    problems.append(f"a message of {v[:40].decode()} bytes, over the limit of {MAX_BODY} (skipped)")
                else:
                    problems.append(f"an invalid Content-Length {v[:40].decode('ascii', 'replace')!r}")
        problems = _junk(problems, junk)
        body = self._body(length)
        if body is None:
            return Frame(None, problems + [f"the input ended inside a message of {length} bytes"])
        return Frame(body, problems)


def _token(name: bytes) -> bool:
    return bool(name) and all(33 <= c < 127 for c in name.strip()) and bool(name.strip())


def _junk(problems: list[str], junk: int) -> list[str]:
    return problems + ([f"{junk} line(s) that are not a header (skipped up to the next Content-Length)"] if junk else [])


# ------------------------------------------------------------------------------------------------ validation
def _valid_id(v: Any) -> bool:
    return isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))


@dataclass
class Checked:
    kind: str  # "request", "notification", "response", "error" (answer with code/message), "drop" (log only)
    message: Optional[dict] = None
    id: Any = None
    code: int = 0
    text: str = ""


def classify(obj: Any) -> Checked:
    """What a parsed JSON body is, by JSON-RPC 2.0's Request and Response objects."""
    if isinstance(obj, list):
        return Checked("error", code=INVALID_REQUEST, text="Invalid Request: batches are not part of LSP" if obj else "Invalid Request: an empty array")
    if not isinstance(obj, dict):
        return Checked("error", code=INVALID_REQUEST, text=f"Invalid Request: {_json_type(obj)}, not an object")
    mid = obj.get("id")
    reply_id = mid if _valid_id(mid) else None

    def bad(why: str) -> Checked:
        return Checked("error", id=reply_id, code=INVALID_REQUEST, text=f"Invalid Request: {why}")

    if obj.get("jsonrpc") != "2.0":
        return bad('"jsonrpc" is not "2.0"')
    if "method" in obj:
        if not isinstance(obj["method"], str):
            return bad('"method" is not a string')
        if "id" in obj and not _valid_id(mid):
            return bad(f'"id" is {_json_type(mid)}, not an integer or a string')
        if "params" in obj and not isinstance(obj["params"], (dict, list)):
            return bad(f'"params" is {_json_type(obj["params"])}, not an object or an array')
        return Checked("request" if "id" in obj else "notification", obj, id=mid)
    if "result" in obj or "error" in obj:
        if not (_valid_id(mid) or mid is None):
            return Checked("drop", text=f'a response whose "id" is {_json_type(mid)}')
        return Checked("response", obj, id=mid)
    return bad('neither "method" nor "result"/"error"')


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, float):
        return "a fractional number"
    return {dict: "an object", list: "an array", str: "a string", int: "an integer"}.get(type(v), type(v).__name__)


def _params_error(exc: BaseException) -> str:
    try:
        from cattrs import transform_error

        details = transform_error(exc)
    except Exception:  # not a cattrs validation error
        details = [f"{type(exc).__name__}: {exc}"]
    text = "; ".join(details[:5]) + (f"; and {len(details) - 5} more" if len(details) > 5 else "")
    return text[:500]


# ------------------------------------------------------------------------------------------------ the loop
class Dispatcher:
    """Validates each frame and hands the valid messages to the pygls protocol (on the event loop's thread)."""

    def __init__(self, server):
        from pygls.protocol import default_converter

        self.server = server
        self.protocol = server.protocol
        self.converter = default_converter()  # the factory pygls' LanguageServer uses for its own converter
        self.initialized = False
        self.shut_down = False
        self.exit_code: Optional[int] = None

    def send_error(self, mid: Any, code: int, message: str) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}})
        writer = self.protocol.writer
        if writer is not None:
            writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body.encode("ascii"))

    def reject(self, mid: Any, code: int, message: str, notification: bool = False) -> None:
        log.warning("rejected a message (%d): %s", code, message)
        if not notification:
            self.send_error(mid, code, message)

    def frame(self, frame: Frame) -> None:
        for p in frame.problems:
            log.warning("malformed input: %s", p)
        if frame.body is None:
            return
        try:
            text = frame.body.decode("utf-8")
        except UnicodeDecodeError as e:
            self.reject(None, PARSE_ERROR, f"Parse error: the message is not UTF-8 ({e.reason} at byte {e.start})")
            return
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as e:
            self.reject(None, PARSE_ERROR, f"Parse error: {str(e)[:200]}")
            return
        c = classify(obj)
        if c.kind == "error":
            self.reject(c.id, c.code, c.text)
            return
        if c.kind == "drop":
            log.warning("dropped %s", c.text)
            return
        self.message(c)

    def message(self, c: Checked) -> None:
        from lsprotocol import types as T
        from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage

        obj = c.message
        if c.kind == "response":
            try:
                msg = self.protocol.structure_message(obj)
            except Exception as e:
                log.warning("dropped a response to %r that does not fit its request: %s", c.id, _params_error(e.__cause__ or e))
                return
            self.protocol.handle_message(msg)
            return
        method = obj["method"]
        request = c.kind == "request"
        if method == T.EXIT:
            self.exit_code = 0 if self.shut_down else 1
            self._dispatch(self._structure(obj, None, notification=True), method)
            return
        if not self.initialized and method != T.INITIALIZE:
            if request:
                self.reject(c.id, SERVER_NOT_INITIALIZED, f"the server is not initialized: {method} before initialize")
            else:
                log.warning("dropped the notification %s: it came before initialize", method)
            return
        if self.shut_down:
            if request:
                self.reject(c.id, INVALID_REQUEST, f"Invalid Request: {method} after shutdown")
            else:
                log.info("dropped the notification %s: it came after shutdown", method)
            return
        typ = self.protocol.get_message_type(method) or (JsonRPCRequestMessage if request else JsonRPCNotification)
        msg = self._structure(obj, typ, notification=not request)
        if msg is None:
            return
        if method == T.INITIALIZE:
            self.initialized = True
        elif method == T.SHUTDOWN:
            self.shut_down = True
        self._dispatch(msg, method)

    def _structure(self, obj: dict, typ, notification: bool):
        from lsprotocol import types as T

        typ = typ or T.ExitNotification
        try:
            return self.converter.structure(obj, typ)
        except Exception as e:
            why = _params_error(e)
            if notification:
                log.warning("dropped the notification %s: its params do not fit (%s)", obj["method"], why)
            else:
                self.reject(obj["id"], INVALID_PARAMS, f"Invalid params for {obj['method']}: {why}")
            return None

    def _dispatch(self, msg, method: str) -> None:
        if msg is None:
            return
        try:
            self.protocol.handle_message(msg)
        except SystemExit:  # pygls' exit handler: the loop ends
            self.exit_code = self.exit_code if self.exit_code is not None else 1
        except Exception:
            log.exception("internal error handling %s", method)


async def serve(server, read: Callable[[int], bytes]) -> int:
    """Read frames with ``read`` until ``exit`` or the end of input; the exit code."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_loop_exception)
    d = Dispatcher(server)
    reader = FrameReader(read)
    frames: asyncio.Queue = asyncio.Queue()
    room = threading.Semaphore(4)  # frames read ahead of the handling: the reader waits beyond that

    def pump() -> None:
        while True:
            room.acquire()
            try:
                f = reader.next_frame()
            except OSError as e:
                log.warning("reading the input failed: %s", e)
                f = None
            except BaseException:  # never a traceback on stderr from this thread
                log.exception("reading the input failed")
                f = None
            try:
                loop.call_soon_threadsafe(frames.put_nowait, f)
            except RuntimeError:  # the loop is closed: the server is gone
                return
            if f is None:
                return

    # a daemon thread: one blocked reading after exit does not hold the process
    threading.Thread(target=pump, name="trtlint-lsp-reader", daemon=True).start()
    stop = getattr(server, "_stop_event", None)
    while d.exit_code is None and not (stop is not None and stop.is_set()):
        f = await frames.get()
        if f is None:
            log.info("end of input")
            return 0
        room.release()
        d.frame(f)
        await asyncio.sleep(0)  # let the handlers scheduled by this message start before the next one
    return d.exit_code if d.exit_code is not None else 0


def _loop_exception(loop, context: dict) -> None:
    exc = context.get("exception")
    if isinstance(exc, asyncio.CancelledError):
        return  # a task cut short at exit
    msg = context.get("message", "error in the event loop")
    if exc is not None:
        log.error("%s", msg, exc_info=(type(exc), exc, exc.__traceback__))
    else:
        log.error("%s", msg)


def stdin_reader(stdin=None) -> Callable[[int], bytes]:
    """``read(n)`` over ``stdin`` (a binary stream), else over file descriptor 0 without Python's buffering (a
    buffered reader blocked in a daemon thread can stall the interpreter's exit)."""
    if stdin is not None:
        return getattr(stdin, "read1", stdin.read)
    if sys.stdin is None:
        return lambda n: b""
    fd = sys.stdin.fileno()
    return lambda n: os.read(fd, n)


# ------------------------------------------------------------------------------------------------ logging
class ClientLogHandler(logging.Handler):
    """Sends records to the client as ``window/logMessage`` from the event loop's thread, one line each."""

    def __init__(self, server, level=logging.WARNING):
        super().__init__(level)
        self.server = server
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage().splitlines()[0] if record.getMessage() else ""
            if record.exc_info and record.exc_info[1] is not None:
                e = record.exc_info[1]
                text += f" ({type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''})"
            kind = 1 if record.levelno >= logging.ERROR else 2 if record.levelno >= logging.WARNING else 3
            text = f"trtlint: {text}"
            loop = self.loop
            if loop is None or loop.is_closed():
                return
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                self._send(kind, text)
            else:
                loop.call_soon_threadsafe(self._send, kind, text)
        except Exception:  # a log record must never raise, nor print (logging's handleError writes to stderr)
            pass

    def _send(self, kind: int, text: str) -> None:
        if getattr(self._busy, "on", False):
            return  # a record logged while sending one (the pipe is broken): dropped
        self._busy.on = True
        try:
            from lsprotocol import types as T

            if self.server.protocol.writer is not None:
                self.server.window_log_message(T.LogMessageParams(type=T.MessageType(kind), message=text))
        except Exception:
            pass
        finally:
            self._busy.on = False

    def handleError(self, record) -> None:  # noqa: N802 - logging's name
        pass


def setup_logging(server, log_file: Optional[str]) -> ClientLogHandler:
    """Route every log record to the client (warnings and errors) and to ``log_file`` (info up) and nowhere
    else; raises OSError when the log file cannot be opened."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    client = ClientLogHandler(server)
    root.addHandler(client)
    root.setLevel(logging.INFO if log_file else logging.WARNING)
    if log_file:
        fh = logging.FileHandler(log_file, encoding="utf-8")
        fh.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.addHandler(fh)
    logging.captureWarnings(True)

    def thread_exception(args) -> None:
        if args.exc_type is SystemExit:
            return
        logging.getLogger("trtlint.editor.server").error(
            "uncaught exception in thread %s", getattr(args.thread, "name", "?"),
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
        )

    threading.excepthook = thread_exception
    return client
