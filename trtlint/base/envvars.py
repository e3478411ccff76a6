"""Every environment variable trtlint reads, in one place.

Settings that change what a run reports live in the config file (``[tool.trtlint]`` / ``trtlint.toml``); the
environment carries only what belongs to a machine or a session (where caches go, links to published docs,
colour) and the switches that exist to compare two ways of doing the same work (A/B measurements) or to make a
test deterministic. Each is read when it is used (a module that reads one at import says so), through
:func:`text`, :func:`flag` or :func:`number`, so ``tests/test_layout.py`` can check that no other module reads the
environment itself. ``docs/configuration.md`` lists them from :data:`VARIABLES` (a test compares the two).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Variable:
    name: str
    default: str  # as the variable would be written; "" is unset
    kind: str  # "path", "url", "flag" (0 turns it off / 1 on), "seconds", "test" (test-only hook)
    what: str


VARIABLES: tuple[Variable, ...] = (
    Variable("TRTLINT_PCH_DIR", "", "path",
             "where the shared precompiled C++ headers are kept (else `$XDG_CACHE_HOME/trtlint/pch`, else a "
             "per-user directory in the system temp dir); `trtlint clean --all` empties it"),
    Variable("XDG_CACHE_HOME", "~/.cache", "path",
             "the per-user cache directory (the PCHs go in `trtlint/pch` below it, the parsed shipped rule packs "
             "in `trtlint/packs`)"),
    Variable("TRTLINT_NO_PCH", "", "flag", "1: parse every C++ unit without the shared precompiled header (slower; for comparison)"),
    Variable("TRTLINT_SHARED_HEADERS", "1", "flag",
             "0: every C++ unit walks every project header it includes, instead of one unit per shared header (A/B)"),
    Variable("TRTLINT_BLANK_SKIPPED", "1", "flag",
             "0: keep the function bodies of the headers a unit leaves to another unit (A/B; read at import)"),
    Variable("TRTLINT_KEPT_HEADERS", "1", "flag",
             "0: a run re-extracting an edited C++ unit walks its headers again instead of taking their part from the "
             "unit's cache entry (A/B; the facts are the same; read at import)"),
    Variable("TRTLINT_BLANK_DEVICE", "1", "flag",
             "0: keep GPU-only function bodies in a CUDA-mode parse (A/B; the facts are the same; read at import)"),
    Variable("TRTLINT_DOCS_URL", "", "url",
             "where the rule pages are published: SARIF `helpUri`, the language server's links, `rules --format json`"),
    Variable("TRTLINT_LSP_LOG", "", "path",
             "`trtlint lsp`: write the server's log to this file (as `--log-file`; the client is sent its warnings "
             "and errors as `window/logMessage` either way, nothing goes to stderr)"),
    Variable("TRTLINT_PROJECT_URL", "", "url", "trtlint's web address for SARIF `tool.driver.informationUri`"),
    Variable("NO_COLOR", "", "flag", "any value: no colour in the text report (https://no-color.org)"),
    Variable("GIT_DIR", "", "path",
             "git's own: when set (or `GIT_WORK_TREE`), discovery asks git which files are tracked even with no "
             "`.git` at or above the project root (else git is not started there)"),
    Variable("GIT_WORK_TREE", "", "path", "git's own: as `GIT_DIR`"),
    Variable("TRTLINT_PROGRESS_DELAY", "0.5", "seconds",
             "how long a run on a terminal waits before it shows its progress display (0: at once)"),
    Variable("TRTLINT_PLUGIN_LIB", "", "path",
             "`trtlint confirm`'s repro scripts: the built plugin library to load (on the machine with TensorRT)"),
    Variable("TRTLINT_TEST_SLOW_FILE", "", "test",
             "tests only: `<path suffix>=<seconds>[:ctypes]` makes extracting that file take so long (to test "
             "`file-timeout`; `:ctypes` sleeps inside a ctypes call, as a busy libclang call does)"),
    Variable("TRTLINT_TEST_CRASH_FILE", "", "test",
             "tests only: `<path suffix>`: the process extracting that file kills itself with SIGSEGV, as a parser "
             "crash in native code does (to test that a crash costs only its file)"),
)
_BY_NAME = {v.name: v for v in VARIABLES}


def _declared(name: str) -> Variable:
    try:
        return _BY_NAME[name]
    except KeyError:  # a programming error: every variable is declared above
        raise KeyError(f"environment variable {name} is not declared in trtlint.base.envvars.VARIABLES") from None


def text(name: str) -> str:
    """The variable's value, stripped; "" when unset (declared defaults are documentation, not returned)."""
    _declared(name)
    return os.environ.get(name, "").strip()


def flag(name: str) -> bool:
    """A switch: "0" (and for a default-off switch, unset or "") is off, anything else on."""
    var = _declared(name)
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return var.default not in ("", "0")
    return raw.strip() != "0"


def number(name: str) -> Optional[float]:
    """A non-negative number, or None when unset or not one."""
    raw = text(name)
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


def markdown_table() -> str:
    """The table docs/configuration.md shows."""
    rows = ["| variable | default | what |", "| --- | --- | --- |"]
    for v in VARIABLES:
        rows.append(f"| `{v.name}` | {('`' + v.default + '`') if v.default else 'unset'} | {v.what} |")
    return "\n".join(rows) + "\n"
