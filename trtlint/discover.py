"""discover: paths -> source files with a kind and a content digest.

In a git work tree git decides which files belong to the project (tracked ones, and untracked ones its
``.gitignore`` rules do not hide); outside one, ``.gitignore`` files are not applied. The config's
include/exclude and the profile's excludes use ``.gitignore`` pattern syntax (:mod:`trtlint.globs`). Symbolic links are
never followed (a link is reported, not read).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from . import safeio
from .frontends import SourceFile

if TYPE_CHECKING:  # the pattern compiler is imported only when a pattern is matched
    from .globs import GlobSpec

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
    return _EXT_KIND.get(os.path.splitext(name)[1].lower())


@dataclass
class Discovery:
    files: list[SourceFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (rel path, reason)
    # rel -> (size, mtime_ns, inode, digest): what the next run may reuse instead of hashing again
    stats: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)
    hashed: int = 0  # files whose content was read and hashed in this run


# A file's content digest (the fact cache's key, the check that a file did not change before --fix edits it):
# SHA-256, cut to 128 bits. With the SHA instructions of current x86 and ARM cores it hashes ~1 GB/s here,
# against ~350 MB/s for BLAKE2b; a cold run over TensorRT OSS hashes 260 MB. Stored digests name it
# (DIGEST_NAME), so those made with another function are not reused.
DIGEST_NAME = "sha256-128"


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


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


def globspec(patterns: Iterable[str]) -> Optional[GlobSpec]:
    """Patterns with .gitignore semantics (include/exclude, per-file-ignores, model-files, test-lists), compiled
    to a matcher whose time is linear in the path (:mod:`trtlint.globs`: a config is attacker-controlled in CI,
    and a pattern of 60 ``*`` must not backtrack for ever); None if empty."""
    from .globs import compile_spec

    return compile_spec(patterns)


class _MemoSpec:
    """A :func:`globspec` whose answers are remembered in ``memo`` (``probe -> matched``, kept by the engine in
    ``.trtlint_cache`` per pattern set): a warm run asks the same paths again and needs no pattern compiled
    (nor the compiler imported). Matching is a pure function of the patterns and the path."""

    def __init__(self, pats: list[str], memo: dict):
        self.pats = pats
        self.memo = memo
        self.spec = None
        self.dirty = False

    def match_file(self, probe: str) -> bool:
        hit = self.memo.get(probe)
        if hit is None:
            if self.spec is None:
                self.spec = globspec(self.pats)
            hit = self.memo[probe] = bool(self.spec.match_file(probe))
            self.dirty = True
        return hit


def globspec_memo(patterns: Iterable[str], memos: Optional[dict] = None):
    """:func:`globspec` of the non-blank ``patterns`` (None when there are none); with ``memos``, one whose
    matches are remembered in ``memos`` by pattern list, so a warm run matches each path once."""
    pats = [p for p in patterns if p and p.strip()]
    if not pats:
        return None
    if memos is None:
        return globspec(pats)
    key = "\n".join(pats)
    memo = memos.get(key)
    if not isinstance(memo, dict):
        memo = memos[key] = {}
    return _MemoSpec(pats, memo)


VCS_MARKERS = (".git", ".hg")


class ProjectRootError(ValueError):
    """The paths given lie in different projects (a usage error)."""


@dataclass(frozen=True)
class ProjectRoot:
    """Where a run's project is: ``root``; ``is_project`` False for loose files that belong to no project
    (only they are read, and no cache is written beside them); ``reason`` says how the root was found."""

    root: Path
    is_project: bool
    reason: str


def _markers(d: Path) -> Optional[str]:
    """The name of the first shipped profile whose ``detect`` markers all exist in ``d``."""
    from .packs import load_packs

    for name, prof in load_packs().profiles.items():
        if name != "generic" and prof.detect and all((d / m).exists() for m in prof.detect):
            return name
    return None


def _home() -> Optional[Path]:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return None


def _root_of(path: Path, cwd: Path) -> ProjectRoot:
    from .config import config_in

    p = (path if path.is_absolute() else cwd / path).resolve()
    start = p if p.is_dir() else p.parent
    levels = [start, *start.parents]
    for i, d in enumerate(levels):
        cfg = config_in(d)
        if cfg is not None:
            # a config below another one (up to the repository root) is a nested config of that project
            # (subconfig.py): the outermost one makes the root
            if not any((d / m).exists() for m in VCS_MARKERS):
                for up in levels[i + 1 :]:
                    outer = config_in(up)
                    if outer is not None:
                        d, cfg = up, outer
                    if any((up / m).exists() for m in VCS_MARKERS):
                        break
            return ProjectRoot(d, True, f"config file {cfg.name}")
        vcs = next((m for m in VCS_MARKERS if (d / m).exists()), None)
        if vcs is not None:
            return ProjectRoot(d, True, f"repository root ({vcs})")
        prof = _markers(d)
        if prof is not None:
            return ProjectRoot(d, True, f"markers of the {prof} profile")
    if (cwd == p or cwd in p.parents) and cwd.parent != cwd and cwd != _home():
        # (never the filesystem root or the home directory: a container's `/` is not a project)
        return ProjectRoot(cwd, True, "the current directory")
    if p.is_dir():
        return ProjectRoot(p, True, "the directory given")
    return ProjectRoot(p.parent, False, "no project found: only the files given are read")


def project_root(paths: list[Path], cwd: Optional[Path] = None) -> ProjectRoot:
    """The project the ``paths`` belong to (files or directories; a file need not exist, e.g. the
    ``--stdin-filename`` of a new buffer). From each path upwards, the first directory that holds a config
    file (the outermost of nested ones, up to the repository root), is a repository root (``.git``, ``.hg``)
    or holds the markers of a profile; else the current directory when it contains the path (unless it is
    the filesystem root or the home directory); else a directory given is its own project, and files given
    are read alone. The whole project is indexed; the
    paths only select which findings are reported. Raises :class:`ProjectRootError` when the paths lie in
    different projects."""
    cwd = (cwd or Path.cwd()).resolve()
    found = [_root_of(Path(p), cwd) for p in paths] or [_root_of(cwd, cwd)]
    roots = {f.root for f in found if f.is_project}
    if len(roots) > 1 or (roots and not all(f.is_project for f in found)):
        listed = ", ".join(sorted({str(f.root) for f in found}))
        raise ProjectRootError(f"the paths given lie in different projects ({listed}): check one project at a time, or give --root")
    if roots:
        return found[0]
    common = Path(os.path.commonpath([str(f.root) for f in found]))
    return ProjectRoot(common, False, found[0].reason)


def git_files(root: Path) -> Optional[set[str]]:
    """The files git would show for ``root``: tracked ones plus untracked ones not ignored, relative to root.

    ``.gitignore`` applies to untracked files only: a tracked file under a pattern such as ``build*`` (which
    matches TensorRT Edge-LLM's ``experimental/builder``) is still part of the project. None when ``root`` is
    not in a git work tree or git is unavailable. git runs with hooks and fsmonitor disabled: nothing of the
    repository is executed.
    """
    import subprocess

    if shutil.which("git") is None:
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
) -> Discovery:
    """Walk ``root`` (or only ``paths`` below it) and return the source files, sorted by path.

    ``known_stats`` (from the last run's cache) maps a path to ``(size, mtime_ns, inode, digest)``: a file
    whose size, modification time and inode are unchanged keeps its digest without being read, as ruff and
    git do. Entries modified at or after ``trust_before_ns`` (the last run's start, less a margin) are
    hashed anyway: an edit in the same clock tick as the last run must not go unseen. ``glob_memos`` (pattern
    set -> path -> matched), when given, remembers include/exclude answers across runs; new ones are added."""
    root = root.resolve()
    inc = globspec_memo(include, glob_memos)
    exc = globspec_memo(exclude, glob_memos)
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
            return True
        if not respect_gitignore:
            return False
        if tracked is not None:
            return rel not in (tracked_dirs if is_dir else tracked)
        # Outside a git work tree .gitignore files are not applied (ripgrep's and ruff's convention): in a
        # source archive nothing says which ignored paths were tracked, and TensorRT Edge-LLM's `build*` and
        # `onnx*` patterns would hide its direct builder and ONNX translations.
        return False

    def add_file(abs_path: Path, rel: str) -> None:
        kind = kind_of(abs_path.name)
        if kind is None:
            return
        if inc and not inc.match_file(rel):
            return
        try:
            st = abs_path.lstat()
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
        for dirpath, dirnames, filenames in os.walk(start_abs, followlinks=False):
            dpath = Path(dirpath)
            rel_dir = dpath.relative_to(root).as_posix() if dpath != root else ""
            keep = []
            for d in sorted(dirnames):
                rel = f"{rel_dir}/{d}" if rel_dir else d
                if d in ALWAYS_SKIP_DIRS:
                    continue
                if (dpath / d).is_symlink():
                    out.skipped.append((rel, link_reason(dpath / d, root)))
                    continue
                if ignored(rel, True):
                    continue
                keep.append(d)
            dirnames[:] = keep
            for f in sorted(filenames):
                rel = f"{rel_dir}/{f}" if rel_dir else f
                fp = dpath / f
                if fp.is_symlink():
                    if kind_of(f):
                        out.skipped.append((rel, link_reason(fp, root)))
                    continue
                if ignored(rel, False):
                    continue
                add_file(fp, rel)

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
    return out
