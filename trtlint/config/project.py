"""Where a run's project is: from the paths given upwards, the first directory with a config file, a
repository root or a profile's markers (docs/configuration.md, "The project"). Above discovery in the import
order: it reads the config's file names and the shipped profiles' markers."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from trtlint.config.settings import config_in
from trtlint.config.packs import shipped_profiles

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
    for name, prof in shipped_profiles().profiles.items():
        if name != "generic" and prof.detect and all((d / m).exists() for m in prof.detect):
            return name
    return None


def _home() -> Optional[Path]:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return None


def _root_of(path: Path, cwd: Path) -> ProjectRoot:
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
