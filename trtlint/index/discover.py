"""discover: paths -> source files with a kind and a content digest.

In a git work tree git decides which files belong to the project (tracked ones, and untracked ones its
``.gitignore`` rules do not hide); outside one, ``.gitignore`` files are not applied. The config's
include/exclude and the profile's excludes use ``.gitignore`` pattern syntax (:mod:`trtlint.base.globs`). Symbolic links are
never followed (a link is reported, not read).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Union

from trtlint.base import safeio
from trtlint.base.digest import DIGEST_NAME, digest_bytes  # noqa: F401 - the names discovery gives its files
from trtlint.base.globs import globspec, globspec_memo  # noqa: F401 - discovery's include/exclude matchers
from trtlint.frontends import SourceFile


_EXT_KIND = {
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".c": "cpp",
    ".cu": "cuda",
    ".h": "header",
    ".hpp": "header",
    ".hh": "header",
    ".hxx": "header",
    ".cuh": "header",
    ".inl": "header",
    ".py": "python",
    ".onnx": "onnx",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".cmake": "cmake",
}

ALWAYS_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".trtlint_cache", "node_modules", ".venv", ".tox", ".mypy_cache", ".pytest_cache"}


def kind_of(name: str) -> Optional[str]:
    if name == "CMakeLists.txt":
        return "cmake"
    if name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk"):
        return "makefile"
    return _EXT_KIND.get(os.path.splitext(name)[1].lower())


@dataclass
class Discovery:
    """The files discovery found (sorted by path) and what it skipped, with the stats that spared hashing."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (rel path, reason)
    # rel -> (size, mtime_ns, inode, digest): what the next run may reuse instead of hashing again
    stats: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)
    hashed: int = 0  # files whose content was read and hashed in this run
    # the directories (with a trailing "/") and source files an ``announce`` exclude pattern (the profile's) kept
    # out, outermost only, sorted: the run names them, since the user did not write those patterns
    excluded: list[str] = field(default_factory=list)




def _digest(path: Path) -> Optional[str]:
    # non-blocking open and fstat: a file swapped for a FIFO after its lstat cannot block the run
    return safeio.digest_file(path)[0]


def link_reason(link: Path, root: Path) -> str:
    """Why a symbolic link is skipped, for the user: where it points (inside or outside the root, or a loop).
    Only the link's text is resolved (``os.path.realpath``); nothing it points to is opened."""
    try:
        target = os.readlink(link)
        real = Path(os.path.realpath(link))
    except (OSError, RuntimeError, ValueError):
        return "symbolic link (not followed)"
    try:
        real.relative_to(root)
        inside = True
    except ValueError:
        inside = False
    if os.path.islink(real) or (link.parent.resolve() == real or real in link.parent.resolve().parents):
        return f"symbolic link to '{target}', a loop (not followed)"
    if not inside:
        return f"symbolic link to '{target}', outside the project root (not followed)"
    return f"symbolic link to '{target}' (not followed; the target is checked where it lives)"


def _in_git_work_tree(root: Path) -> bool:
    """Whether ``root`` or a directory above it holds ``.git`` (a directory, or the file of a worktree or
    submodule), or the environment names a repository (``GIT_DIR``): else git need not be started (~10 ms)."""
    from trtlint.base import envvars

    if envvars.text("GIT_DIR") or envvars.text("GIT_WORK_TREE"):
        return True
    d = root.resolve()
    for p in (d, *d.parents):
        if os.path.lexists(os.path.join(p, ".git")):
            return True
    return False


def git_files(root: Path) -> Optional[set[str]]:
    """The files git would show for ``root``: tracked ones plus untracked ones not ignored, relative to root.

    ``.gitignore`` applies to untracked files only: a tracked file under a pattern such as ``build*`` (which
    matches TensorRT Edge-LLM's ``experimental/builder``) is still part of the project. None when ``root`` is
    not in a git work tree or git is unavailable. git runs with hooks and fsmonitor disabled: nothing of the
    repository is executed.
    """
    import subprocess

    if not _in_git_work_tree(root) or shutil.which("git") is None:
        return None
    cmd = [
        "git",
        "-c", "core.fsmonitor=false",
        "-c", "core.hooksPath=/dev/null",
        "-C", str(root),
        "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".",
    ]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    return {p.decode("utf-8", "surrogateescape") for p in r.stdout.split(b"\0") if p}


def discover(
    root: Path,
    paths: Optional[list[Path]] = None,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    respect_gitignore: bool = True,
    max_file_size: int = 4 * 1024 * 1024,
    known_stats: Optional[dict] = None,
    trust_before_ns: int = 0,
    glob_memos: Optional[dict] = None,
    announce: Iterable[str] = (),
) -> Discovery:
    """Walk ``root`` (or only ``paths`` below it) and return the source files, sorted by path.

    ``known_stats`` (from the last run's cache) maps a path to ``(size, mtime_ns, inode, digest)``: a file
    whose size, modification time and inode are unchanged keeps its digest without being read, as ruff and
    git do. Entries modified at or after ``trust_before_ns`` (the last run's start, less a margin) are
    hashed anyway: an edit in the same clock tick as the last run must not go unseen. ``glob_memos`` (pattern
    set -> path -> matched), when given, remembers include/exclude answers across runs; new ones are added.
    ``announce``: the exclude patterns (among ``exclude``) whose exclusions ``Discovery.excluded`` lists."""
    root = root.resolve()
    inc = globspec_memo(include, glob_memos)
    exc = globspec_memo(exclude, glob_memos)
    ann = globspec_memo(announce, glob_memos) if announce else None
    out = Discovery()
    # in a git work tree, git decides: tracked files are never ignored (.gitignore applies to untracked ones)
    tracked = git_files(root) if respect_gitignore else None
    tracked_dirs: set[str] = set()
    for t in tracked or ():
        parts = t.split("/")
        for i in range(1, len(parts)):
            tracked_dirs.add("/".join(parts[:i]))

    def ignored(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        if exc and exc.match_file(probe):
            if ann is not None and ann.match_file(probe) and (is_dir or kind_of(rel.rsplit("/", 1)[-1]) is not None):
                out.excluded.append(probe)
            return True
        if not respect_gitignore:
            return False
        if tracked is not None:
            return rel not in (tracked_dirs if is_dir else tracked)
        # Outside a git work tree .gitignore files are not applied (ripgrep's and ruff's convention): in a
        # source archive nothing says which ignored paths were tracked, and TensorRT Edge-LLM's `build*` and
        # `onnx*` patterns would hide its direct builder and ONNX translations.
        return False

    def add_file(abs_path: Union[Path, str], rel: str, entry: Optional[os.DirEntry] = None) -> None:
        kind = kind_of(entry.name if entry is not None else Path(abs_path).name)
        if kind is None:
            return
        if inc and not inc.match_file(rel):
            return
        abs_path = Path(abs_path)
        try:
            st = entry.stat(follow_symlinks=False) if entry is not None else abs_path.lstat()
        except OSError as e:
            out.skipped.append((rel, f"cannot stat: {e.strerror}"))
            return
        if not stat.S_ISREG(st.st_mode):  # a FIFO, socket or device: opening it could block or never end
            out.skipped.append((rel, "not a regular file (a FIFO, socket or device); not read"))
            return
        if st.st_size > max_file_size and kind != "onnx":
            out.skipped.append((rel, f"file is {st.st_size} bytes, over the {max_file_size}-byte limit"))
            return
        k = known_stats.get(rel) if known_stats else None
        if (
            k is not None
            and k[0] == st.st_size
            and k[1] == st.st_mtime_ns
            and k[2] == st.st_ino
            and st.st_mtime_ns < trust_before_ns
        ):
            d = k[3]
        else:
            d = _digest(abs_path)
            out.hashed += 1
        if d is not None:
            out.stats[rel] = (st.st_size, st.st_mtime_ns, st.st_ino, d)
        if d is None:
            out.skipped.append((rel, "cannot read"))
            return
        out.files.append(SourceFile(path=abs_path, rel=rel, kind=kind, digest=d))

    def walk(start_abs: Path) -> None:
        rel_start = start_abs.relative_to(root).as_posix() if start_abs != root else ""
        if start_abs.is_file():
            if start_abs.is_symlink():
                out.skipped.append((rel_start, link_reason(start_abs, root)))
                return
            if not ignored(rel_start, False):
                add_file(start_abs, rel_start)
            return
        # os.walk's order and classification (a link to a directory is listed with the directories and not
        # entered), with the directory entries' own type and stat: no Path object per file (2408 files: ~4x faster)
        todo = [(str(start_abs), rel_start)]
        while todo:
            dirpath, rel_dir = todo.pop()
            try:
                with os.scandir(dirpath) as it:
                    entries = list(it)
            except OSError:
                continue
            dirs, files = [], []
            for e in entries:
                try:
                    is_dir = e.is_dir()
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(e)
            keep = []
            for e in sorted(dirs, key=lambda e: e.name):
                d = e.name
                rel = f"{rel_dir}/{d}" if rel_dir else d
                if d in ALWAYS_SKIP_DIRS:
                    continue
                if os.path.isfile(os.path.join(e.path, "pyvenv.cfg")):
                    continue  # a Python virtual environment (any name, as `.venv` above): installed packages
                if e.is_symlink():
                    out.skipped.append((rel, link_reason(Path(e.path), root)))
                    continue
                if ignored(rel, True):
                    continue
                keep.append((e.path, rel))
            for e in sorted(files, key=lambda e: e.name):
                f = e.name
                rel = f"{rel_dir}/{f}" if rel_dir else f
                if e.is_symlink():
                    if kind_of(f):
                        out.skipped.append((rel, link_reason(Path(e.path), root)))
                    continue
                if ignored(rel, False):
                    continue
                add_file(e.path, rel, e)
            todo.extend(reversed(keep))  # depth first, in name order, as os.walk

    starts = [root] if not paths else [p.resolve() for p in paths]
    for s in starts:
        try:
            s.relative_to(root)
        except ValueError:
            out.skipped.append((str(s), "outside the project root"))
            continue
        if not s.exists():
            out.skipped.append((str(s), "does not exist"))
            continue
        walk(s)
    seen = set()
    uniq = []
    for f in sorted(out.files, key=lambda f: f.rel):
        if f.rel not in seen:
            seen.add(f.rel)
            uniq.append(f)
    out.files = uniq
    out.excluded = sorted(set(out.excluded))
    return out
