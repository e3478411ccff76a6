"""Nested configs in a monorepo: for each file, the closest config file wins.

A run has one set of settings, those of the config closest to the project root it checks. A directory
below the root may hold a config of its own (``trtlint.toml``, ``.trtlint.toml`` or ``pyproject.toml`` with
``[tool.trtlint]``); for the findings in files below it, that config's *filter* settings apply instead:
``select`` / ``ignore`` / ``extend-select`` (which of the rules that ran may report there),
``per-file-ignores`` (globs relative to that config's directory) and ``severity``. Like ruff, a nested config
does not merge with the root one implicitly: ``extend = "../pyproject.toml"`` inherits. Settings that shape
the whole-project analysis (profile, include dirs, defines, excludes, ...) stay the root config's; a rule
that the root config does not select does not run, so a nested config cannot turn it on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from trtlint.checks.registry import load_checked_settings
from trtlint.config.settings import CONFIG_LIMIT, Settings, find_config
from trtlint.base.safeio import read_text
from trtlint.checks.registry import rule_matches
from trtlint.adoption.suppress import PerFileIgnores

_NAMES = ("trtlint.toml", ".trtlint.toml")


class _Nested:
    def __init__(self, directory: str, settings: Settings):
        self.dir = directory  # project-relative, POSIX
        self.settings = settings
        self.pfi = PerFileIgnores(settings.per_file_ignores)

    def rel(self, path: str) -> str:
        return path[len(self.dir) + 1 :] if self.dir else path

    def selects(self, rule) -> bool:
        s = self.settings
        sel = list(s.select) + list(s.extend_select)
        return any(rule_matches(rule, x) for x in sel) and not any(rule_matches(rule, x) for x in s.ignore)


class NestedConfigs:
    """The closest nested config of each project file (None: the run's own settings apply)."""

    def __init__(self, settings: Settings):
        self.root = Path(settings.root).resolve()
        own = settings.config_file
        self.own = Path(own).resolve() if own is not None else None
        self._by_dir: dict[str, Optional[_Nested]] = {}

    def _has_config(self, d: Path) -> bool:
        if any((d / n).is_file() for n in _NAMES):
            return True
        pp = d / "pyproject.toml"
        if pp.is_file():
            try:
                return "[tool.trtlint" in read_text(pp, limit=CONFIG_LIMIT)
            except OSError:
                return False
        return False

    def for_dir(self, rel_dir: str) -> Optional[_Nested]:
        if rel_dir in self._by_dir:
            return self._by_dir[rel_dir]
        out: Optional[_Nested] = None
        if rel_dir not in ("", "."):
            d = self.root / rel_dir
            if self._has_config(d):
                found = find_config(d)
                if found is not None and found[0].resolve() != self.own:
                    out = _Nested(rel_dir, load_checked_settings(d))
            else:
                parent = rel_dir.rsplit("/", 1)[0] if "/" in rel_dir else ""
                out = self.for_dir(parent)
        self._by_dir[rel_dir] = out
        return out

    def for_path(self, path: str) -> Optional[_Nested]:
        if path.startswith("/") or path.startswith(".."):
            return None
        return self.for_dir(path.rsplit("/", 1)[0] if "/" in path else "")
