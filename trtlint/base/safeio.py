"""The one guarded way to read a project file.

Every file of a project is attacker-controlled input (trtlint runs in CI on strangers' pull requests): a link
to ``/dev/zero`` or to a file outside the project, a FIFO that blocks an ``open``, a file larger than memory.
Every reader of a project file (frontends, the build model, config, rule packs, the reporters' code frames,
the caches) goes through :func:`read_bytes` / :func:`read_text`, which read

- only regular files (no FIFO, device or socket; the file is opened non-blocking, then judged by ``fstat`` on
  the open descriptor, so a file swapped for a FIFO after a check cannot block the run);
- only inside ``root`` after resolving symbolic links (a link that leaves the root is refused, never read);
- at most ``limit`` bytes (the size checked before reading, and the read itself bounded by the limit, so a
  file that grows while it is read, or lies about its size as ``/proc`` files do, cannot exhaust memory).

A refusal is a :class:`ReadRefused` (an ``OSError``) whose ``reason`` is written for the user, e.g.
``"not a regular file (a FIFO, socket or device); not read"``; callers that report it turn it into TRT001 or a
clear error, and callers that only wanted context (a code frame) go on without it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Optional, Union

PathLike = Union[str, "os.PathLike[str]"]

# what a reader that names no limit may read: the default max-file-size (config.Settings.max_file_size)
DEFAULT_LIMIT = 4 * 1024 * 1024
# what a reader of context only (a code frame, a snippet, a related line) reads at most: a larger file is shown
# without its lines
FRAME_LIMIT = 16 * 1024 * 1024
# the hard cap of a source file's read (discovery's max-file-size, 4 MiB by default, decides first; this bounds
# a file that grows after it was discovered)
SOURCE_LIMIT = 256 * 1024 * 1024
# a cache entry of .trtlint_cache (inside the project, so as hostile as the rest: a planted link or FIFO is a miss)
CACHE_LIMIT = 256 * 1024 * 1024
_CHUNK = 1 << 20


class ReadRefused(OSError):
    """A project file that was not read, and why (``reason``, for the user)."""

    def __init__(self, path: PathLike, reason: str):
        super().__init__(reason)
        self.path = os.fspath(path)
        self.reason = reason
        self.strerror = reason

    def __str__(self) -> str:
        return self.reason


def inside(path: PathLike, root: PathLike) -> bool:
    """Whether ``path``, its links resolved, is ``root`` or below it (``root`` resolved too)."""
    return _inside_real(os.path.realpath(os.fspath(path)), os.fspath(root))


_ROOTS: dict[str, str] = {}  # a project root -> its real path (a run reads thousands of files under one root)


def _inside_real(real: str, root: str) -> bool:
    """:func:`inside` for a path already resolved (``os.path.realpath``): only the root is resolved, once per
    process (``os.path.realpath`` is pure Python, an lstat per component: it was two of the three per read)."""
    r = _ROOTS.get(root)
    if r is None:
        r = os.path.realpath(root)
        if os.path.isabs(root):  # (a relative one depends on the working directory: resolved each time)
            _ROOTS[root] = r
            if len(_ROOTS) > 64:  # (a long-lived process that checks many projects)
                _ROOTS.pop(next(iter(_ROOTS)))
    return real == r or real.startswith(r.rstrip(os.sep) + os.sep)


def _refuse_special(p: str, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise ReadRefused(p, os.strerror(errno.EISDIR))
    if not stat.S_ISREG(st.st_mode):
        raise ReadRefused(p, "not a regular file (a FIFO, socket or device); not read")


def open_regular(path: PathLike, root: Optional[PathLike] = None, limit: Optional[int] = DEFAULT_LIMIT,
                 follow: bool = False) -> tuple[int, os.stat_result]:
    """A read-only descriptor of ``path`` and its ``fstat``, after the checks above; the caller closes it.
    A symbolic link as the last component is refused unless ``follow`` (discovery never follows one, so no
    project file is read through one); links of the folders above are resolved and must stay in ``root``."""
    p = os.fspath(path)
    real = os.path.realpath(p)
    if root is not None and not _inside_real(real, os.fspath(root)):
        raise ReadRefused(p, f"a link to '{real}', outside the project root (not read)")
    if not follow and os.path.islink(p):
        raise ReadRefused(p, "a symbolic link (not followed)")
    # judged by stat before it is opened (a FIFO is never opened, not even non-blocking: that would wake a
    # writer waiting on it), and again by fstat on the descriptor (a file swapped after the stat)
    try:
        _refuse_special(p, os.stat(real))
    except ReadRefused:
        raise
    except OSError as e:
        raise ReadRefused(p, f"cannot read file: {e.strerror or e}") from None
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as e:
        raise ReadRefused(p, f"cannot read file: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        _refuse_special(p, st)
        if limit is not None and st.st_size > limit:
            raise ReadRefused(p, f"file is {st.st_size} bytes, over the {limit}-byte limit")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_bytes(path: PathLike, root: Optional[PathLike] = None, limit: Optional[int] = DEFAULT_LIMIT,
               follow: bool = False) -> bytes:
    """The content of a project file, guarded as the module says; raises :class:`ReadRefused`."""
    fd, st = open_regular(path, root, limit, follow)
    try:
        if limit is None:
            chunks = []
            while True:
                b = os.read(fd, _CHUNK)
                if not b:
                    break
                chunks.append(b)
            return b"".join(chunks)
        chunks, got = [], 0
        while got <= limit:
            b = os.read(fd, min(_CHUNK, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
        if got > limit:
            raise ReadRefused(path, f"file grew over the {limit}-byte limit while it was read")
        return b"".join(chunks)
    except OSError as e:
        if isinstance(e, ReadRefused):
            raise
        raise ReadRefused(path, f"cannot read file: {e.strerror or e}") from None
    finally:
        os.close(fd)


def read_text(path: PathLike, root: Optional[PathLike] = None, limit: Optional[int] = DEFAULT_LIMIT,
              errors: str = "replace", follow: bool = False) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a BOM dropped); undecodable bytes per ``errors``."""
    return read_bytes(path, root, limit, follow).decode("utf-8-sig", errors=errors)


def try_read_bytes(path: PathLike, root: Optional[PathLike] = None, limit: Optional[int] = DEFAULT_LIMIT) -> Optional[bytes]:
    """:func:`read_bytes`, or None when the file is refused or cannot be read (for context only: code frames,
    snippets, related lines)."""
    try:
        return read_bytes(path, root, limit)
    except OSError:
        return None


def digest_file(path: PathLike, root: Optional[PathLike] = None, limit: Optional[int] = None) -> tuple[Optional[str], Optional[str]]:
    """``(sha256-128 hex digest, None)`` of a file read in chunks (nothing held in memory), or ``(None, reason)``."""
    import hashlib

    try:
        fd, _ = open_regular(path, root, limit)
    except ReadRefused as e:
        return None, e.reason
    h = hashlib.sha256()
    got = 0
    try:
        while True:
            b = os.read(fd, _CHUNK)
            if not b:
                break
            got += len(b)
            if limit is not None and got > limit:
                return None, f"file grew over the {limit}-byte limit while it was read"
            h.update(b)
    except OSError as e:
        return None, f"cannot read file: {e.strerror or e}"
    finally:
        os.close(fd)
    return h.hexdigest()[:32], None

