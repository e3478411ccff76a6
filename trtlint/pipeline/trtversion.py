"""The TensorRT release each program of the tree targets, when the ``tensorrt-version`` setting does not say it.

The evidence is read by :mod:`trtlint.frontends.trtversion` from files discovery lists (CMake files, an in-tree
``NvInferVersion.h``, ``setup.py``, and the C++ files whose ``#if`` lines name ``NV_TENSORRT_MAJOR``, known from
the text scans without reading the others) and from the few files of :data:`~trtlint.frontends.trtversion.EXTRA_NAMES`
in the project root and each program's directory.

Choosing, per program (``CheckInputs.scopes``; the whole project when it is one program): the evidence in the
program's directory, else that of the nearest program whose directory holds it (a sample with its own Makefile
inside a cookbook whose README names its release), else that of the files in no program (the root); the summary
names the programs left with none. Of it, the strongest tier present (in-tree
``NvInferVersion.h``, then build pins, then scripts and documents, then the floors of C++ version tests), and in
that tier the newest release (a tree that pins 8.6 in one CMake file and 10.3 in another is judged as 10.3: the
code is meant to build with it). The other versions the tree names are kept as ``others`` for the summary.

A directory named for a TensorRT release (``TRT-8-version/``, ``CCLPlugin-TRT7/``, ``TensorRT-8.6/``:
:func:`~trtlint.frontends.trtversion.release_named`) is that release: ``"release:<dir>"`` in :func:`infer`'s result,
the release a pin inside the subtree names (an in-tree ``NvInferVersion.h`` or a build pin), else the one its name
says (``TRT8``: 8.0, the first 8 release: the code is for every 8 release; a major alone that the code around the
folder already targets, ``TensorRT-10/`` in a tree pinned to 10.8, says no more and the folder keeps 10.8), never
the root's. A program inside such a directory with no pin of its own
takes the directory's release instead of the root's; the innermost such directory counts.

A directory or file whose name marks its code deprecated (``DeprecatedLayers/``, ``foo-V2-deprecated.py``:
:func:`~trtlint.frontends.trtversion.marked_deprecated`) is ``"deprecated:<path>"`` (version None): code kept for an
older TensorRT whose release the name does not say; :meth:`ProjectIndex.deprecated_mark` decides whether it is judged.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from trtlint.base import safeio
from ..frontends import SourceFile
from ..frontends.trtversion import Evidence, evidence, is_extra_name, marked_deprecated, may_hold_evidence, release_named
from trtlint.config.packs import parse_version

if TYPE_CHECKING:  # pragma: no cover - imported by what infers (a warm run reads only extras_key)
    from trtlint.index.project_index import TensorRTTarget

__all__ = ["DEPRECATED_PREFIX", "PACKAGE_PREFIX", "RELEASE_PREFIX", "choose", "deprecated_marks", "evidence_dirs",
           "extras_key", "gather", "infer", "packages", "release_dirs"]

_MAX_EXTRA = 1 << 20  # a larger README or script is not read


def _extras(root: Path, scopes: Iterable[str]) -> list[tuple[str, Path]]:
    """(rel, path) of the files of EXTRA_NAMES in the root and each program's directory, and the ``.txt`` files of
    a ``requirements/`` directory there (a listing, no walk)."""
    out = []
    for d0 in ("", *scopes):
        for d, want in ((d0, is_extra_name), (f"{d0}/requirements" if d0 else "requirements", _txt)):
            out.extend(_listed(root, d, want))
    return out


def _txt(name: str) -> bool:
    return name.endswith(".txt")


def _listed(root: Path, d: str, want) -> list[tuple[str, Path]]:
    out = []
    try:
        entries = sorted(os.scandir(root / d), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        try:
            if want(e.name) and e.is_file(follow_symlinks=False) and e.stat().st_size <= _MAX_EXTRA:
                out.append((f"{d}/{e.name}" if d else e.name, Path(e.path)))
        except OSError:
            continue
    return out


def extras_key(root: Path, scopes: Iterable[str]) -> str:
    """A key of those files (names, sizes, mtimes) for the run memo: discovery's digests do not cover them."""
    h = hashlib.sha256(b"trtversion-1\0")
    for rel, p in _extras(root, scopes):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def gather(root: Path, files: list[SourceFile], scopes: tuple, scans) -> list[Evidence]:
    """Every piece of evidence in the tree. ``scans`` (scancache.TextScans) says which C++ files hold a
    ``NV_TENSORRT_MAJOR`` test, so only those are read."""
    out: list[Evidence] = []
    for f in files:
        if f.kind in ("cpp", "cuda", "header") and f.rel.rsplit("/", 1)[-1] != "NvInferVersion.h":
            if "NV_TENSORRT_MAJOR" not in scans.scan(f).pp_idents:
                continue
        elif not may_hold_evidence(f.rel, f.kind):
            continue
        data = f.text.encode("utf-8") if f.text is not None else scans.read(f)
        out.extend(evidence(f.rel, data))
    for rel, p in _extras(root, scopes):
        try:
            out.extend(evidence(rel, safeio.read_bytes(p, root=root, limit=safeio.FRAME_LIMIT)))
        except OSError:
            continue
    return out


def _order(v: str) -> tuple:
    return parse_version(v.replace(".x", ".999")) or (0,)  # "10.x": the newest 10 release


# a version test that turns at a release older than this is a compatibility guard for a release long out of
# support (onnx-tensorrt's `#if NV_TENSORRT_MAJOR < 4`), not the release the code targets: no floor
_OLDEST_FLOOR = (8,)
# no TensorRT release is numbered 0.x: `tensorrt==0.0.1` (the PyPI placeholder an environment dump pins) says
# nothing about the release the code targets
_FIRST_RELEASE = (1,)


def choose(found: list[Evidence]) -> Optional[TensorRTTarget]:
    """One version from ``found``: the strongest tier, the newest release in it (module docstring). The floors of
    version tests below TensorRT 8 (:data:`_OLDEST_FLOOR`) and versions no release has (0.x) do not count."""
    found = [e for e in found if _order(e.version) >= _FIRST_RELEASE and (e.tier != 3 or _order(e.version) >= _OLDEST_FLOOR)]
    if not found:
        return None
    tier = min(e.tier for e in found)
    best = max((e for e in found if e.tier == tier), key=lambda e: _order(e.version))  # the first such
    kind = "floor: the code tests for it" if tier == 3 else ""
    reason = f"{best.what} in {best.path}:{best.line}" + (f" ({kind})" if kind else "")
    others: dict[str, Evidence] = {}
    from trtlint.index.project_index import BEFORE, TensorRTTarget

    for e in sorted(found, key=lambda e: (e.tier, e.path, e.line)):
        if e.version != best.version:
            others.setdefault(e.version, e)
    # the older releases the build pins too (not prose): the project supports them, so a deprecation whose
    # replacement they lack cannot be acted on while they are kept (TRT207)
    pinned = {v: e for v, e in others.items() if e.tier <= 1 and best.tier <= 1 and _order(v) < _order(best.version)}
    # the older side of the code's own version tests: `#if NV_TENSORRT_MAJOR >= 10 ... #else` (or `< 10`) is written
    # to build on a release before 10.0 too, so the project supports one (a floor above the target says nothing older)
    for e in sorted(found, key=lambda e: (e.path, e.line)):
        if e.tier == 3 and _order(e.version) <= _order(best.version):
            pinned.setdefault(BEFORE + e.version, e)
    from trtlint.index.project_index import supported_release

    return TensorRTTarget(best.version, "inferred", reason,
                          tuple(f"{v} ({e.what} in {e.path}:{e.line})" for v, e in sorted(
                              others.items(), key=lambda kv: _order(kv[0]), reverse=True)),
                          tuple(f"{v} ({e.what} in {e.path}:{e.line})" for v, e in sorted(
                              pinned.items(), key=lambda kv: _order(supported_release(kv[0])))))


RELEASE_PREFIX = "release:"  # the key of a directory named for a release in :func:`infer`'s result


def release_dirs(files: list[SourceFile]) -> dict[str, str]:
    """dir -> the release its name says (module docstring), for every directory discovery's files are in."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for f in files:
        d = f.rel.rpartition("/")[0]
        while d and d not in seen:
            seen.add(d)
            v = release_named(d.rpartition("/")[2])
            if v is not None:
                out[d] = v
            d = d.rpartition("/")[0]
    return out


DEPRECATED_PREFIX = "deprecated:"  # the key of a path whose name marks it deprecated in :func:`infer`'s result
_CODE_KINDS = ("python", "cpp", "cuda", "header")


def deprecated_marks(files: list[SourceFile]) -> dict[str, str]:
    """path -> the word that marks it, for the outermost directory or file of each source file whose name marks its
    code deprecated (:func:`~trtlint.frontends.trtversion.marked_deprecated`: ``DeprecatedLayers/``,
    ``add_scalar-V2-deprecated.py``): code its project keeps for an older TensorRT, whose release it does not name."""
    out: dict[str, str] = {}
    for f in files:
        if f.kind not in _CODE_KINDS:
            continue
        parts = f.rel.split("/")
        for i, part in enumerate(parts):
            w = marked_deprecated(part)
            if w is not None:
                out.setdefault("/".join(parts[: i + 1]), w)
                break
    return out


def _innermost(path: str, dirs) -> str:
    """The longest of ``dirs`` that is ``path`` or holds it ("" when none)."""
    best = ""
    for d in dirs:
        if (path == d or path.startswith(d + "/")) and len(d) > len(best):
            best = d
    return best


def _release_target(d: str, v: str, found: list[Evidence], around: Optional[TensorRTTarget]) -> Optional[TensorRTTarget]:
    """The release of a folder named for one: a pin inside it, else its name; None when the name is a major alone
    and the code around the folder targets a release of that major already (``TensorRT-10/`` in a tree pinned to
    10.8 is 10.8 code: the name says no more)."""
    pinned = [e for e in found if e.tier <= 1]
    if pinned:
        return choose(pinned)
    if "." not in v:
        if around is not None and around.version and around.version.split(".")[0] == v:
            return None
        # a major alone names the code of every release of that major: its first one, as a version test's floor
        # does (what 8.5 deprecated is no concern of code kept for TensorRT 8; an 8.0 removal is)
        v = f"{v}.0"
    from trtlint.index.project_index import TensorRTTarget

    return TensorRTTarget(v, "inferred", f"the folder name {d}")


PACKAGE_FILES = ("setup.py", "pyproject.toml", "setup.cfg")
PACKAGE_PREFIX = "package:"  # the key of a Python package's release in :func:`infer`'s result


def packages(files: list[SourceFile], scopes: tuple) -> tuple[str, ...]:
    """The directories below the root, other than the programs', that hold a Python package of their own (a
    ``setup.py``, ``pyproject.toml`` or ``setup.cfg`` discovery lists): a tool shipped in the tree (TensorRT OSS's
    Polygraphy) supports the TensorRT releases its own metadata says, not the root's."""
    out = set()
    for f in files:
        d, _, name = f.rel.rpartition("/")
        if name in PACKAGE_FILES and d and d not in scopes:
            out.add(d)
    return tuple(sorted(out))


def evidence_dirs(files: list[SourceFile], scopes: tuple) -> tuple[str, ...]:
    """The directories whose requirement files, READMEs and scripts are read besides the root's: the programs',
    the Python packages' (:func:`packages`) and those named for a release (:func:`release_dirs`)."""
    return tuple(dict.fromkeys((*scopes, *packages(files, scopes), *release_dirs(files))))


def infer(root: Path, files: list[SourceFile], scopes: tuple, scans) -> dict[str, TensorRTTarget]:
    """scope -> the release inferred for it ("" the files in no program, or the whole project when it is one
    program); a scope with no evidence, and no root evidence to fall back on, is missing. Each Python package
    below the root (:func:`packages`) is ``"package:<dir>"``: the release its own files name, else none known
    (``version`` None: its metadata pins no TensorRT, so it is not judged against the root's)."""
    from trtlint.index.project_index import TensorRTTarget, scope_of

    pkgs = packages(files, scopes)
    found = gather(root, files, evidence_dirs(files, tuple(scopes)), scans)
    by_scope: dict[str, list[Evidence]] = {}
    in_pkg: dict[str, list[Evidence]] = {}
    for e in found:
        pkg = scope_of(e.path, pkgs) if pkgs else ""
        if pkg:
            in_pkg.setdefault(pkg, []).append(e)
            continue
        by_scope.setdefault(scope_of(e.path, scopes) if scopes else "", []).append(e)
    rdirs = release_dirs(files)
    in_rdir: dict[str, list[Evidence]] = {}
    for e in found:
        d = _innermost(e.path, rdirs)
        if d:
            in_rdir.setdefault(d, []).append(e)

    def plain(s: str) -> Optional[TensorRTTarget]:
        """The release of the nearest scope with evidence: ``s``'s own, else that of the innermost program whose
        directory holds ``s`` (a sample's own Makefile inside a cookbook that pins its release), else the root's."""
        for e in (s, *sorted((o for o in scopes if o != s and s.startswith(o + "/")), key=len, reverse=True), ""):
            t = choose(by_scope.get(e, []))
            if t is not None:
                return t
            if not s:
                break
        return None

    out: dict[str, TensorRTTarget] = {}
    for s in ("", *scopes):  # the programs outside every folder named for a release
        if not (s and _innermost(s, rdirs)):
            t = plain(s)
            if t is not None:
                out[s] = t
    releases: dict[str, TensorRTTarget] = {}
    for d, v in sorted(rdirs.items()):  # (a folder before the folders inside it)
        above = _innermost(d.rpartition("/")[0], releases)
        parent = d.rpartition("/")[0]  # (the program around the folder: not one the folder is or holds)
        around = releases[above] if above else out.get(scope_of(parent, scopes) if scopes and parent else "", out.get(""))
        t = _release_target(d, v, in_rdir.get(d, []), around)
        if t is not None:
            releases[d] = t
    for s in scopes:  # the programs in such a folder: their own pin, else the folder's release
        if not _innermost(s, rdirs):
            continue
        d = _innermost(s, releases)
        t = choose(by_scope[s]) if any(e.tier <= 1 for e in by_scope.get(s, ())) else (releases[d] if d else plain(s))
        if t is not None:
            out[s] = t
    for d, t in releases.items():
        out[RELEASE_PREFIX + d] = t
    for d in pkgs:
        out[PACKAGE_PREFIX + d] = choose(in_pkg.get(d, [])) or TensorRTTarget(
            None, "", f"{d} is a Python package of its own whose files pin no TensorRT release")
    for d, w in deprecated_marks(files).items():  # judged or not: ProjectIndex.deprecated_mark
        out[DEPRECATED_PREFIX + d] = TensorRTTarget(None, "marked", f"the name {d} marks it {w}")
    return out
