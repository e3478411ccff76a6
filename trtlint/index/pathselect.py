"""Which findings the paths given to ``trtlint check`` select.

The whole project is always indexed (a plugin's contract spans files and languages); the paths only choose
what is reported. A finding is selected when its primary location is under a path, or when one of its related
locations is (the other side of the contract was edited). ``--related-findings`` narrows the second kind:

- ``all`` (the default): every finding with a related location under the paths;
- ``new``: only those the changes to the files under the paths created: the files that differ from git's
  ``HEAD`` (a file new since ``HEAD`` counts as empty there, a deleted one as its ``HEAD`` text) are put back
  to their ``HEAD`` text in memory, the project is checked again, and a finding whose line-independent
  fingerprint is also found there is not reported. This is what the pre-commit hook uses: a commit that only
  touches the other side of an old finding is not blocked by it, one that creates a drift is;
- ``none``: never; only findings whose primary location is under the paths.

Nothing here writes a file; git is run read-only, with hooks and fsmonitor disabled.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable, Optional

from trtlint.base.diagnostics import Diagnostic

RELATED_MODES = ("all", "new", "none")


class PathSelection:
    """Project-relative path prefixes (``""`` is the whole project)."""

    def __init__(self, prefixes: list[str]):
        self.prefixes = [p.strip("/") for p in prefixes]

    def under(self, rel: str) -> bool:
        return any(p in ("", ".") or rel == p or rel.startswith(p + "/") for p in self.prefixes)

    def primary(self, d: Diagnostic) -> bool:
        return self.under(d.span.path)

    def selects(self, d: Diagnostic) -> bool:
        return self.primary(d) or any(self.under(r.span.path) for r in d.related)


def _git(root: Path, *args: str, input: Optional[bytes] = None) -> Optional[bytes]:
    cmd = ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-C", str(root), *args]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=120, input=input, stdin=None if input is not None else subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def head_texts(root: Path, sel: PathSelection) -> Optional[dict[str, str]]:
    """The files under the selection that differ between git's ``HEAD`` and the work tree, as
    project-relative path -> text at ``HEAD`` ("" for a file ``HEAD`` lacks). None when ``root`` is not in a
    git work tree (or git cannot be run)."""
    if _git(root, "rev-parse", "--is-inside-work-tree") is None:
        return None
    specs = [str(root / p) if p not in ("", ".") else str(root) for p in sel.prefixes] or [str(root)]
    has_head = _git(root, "rev-parse", "--verify", "-q", "HEAD") is not None
    if has_head:
        out = _git(root, "diff", "--relative", "--name-only", "--no-renames", "-z", "HEAD", "--", *specs)
        untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", *specs)
    else:  # no commit yet: every file is new
        out = b""
        untracked = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs)
    if out is None or untracked is None:
        return None
    changed = [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]
    new = [p.decode("utf-8", "surrogateescape") for p in untracked.split(b"\0") if p]
    texts = {rel: "" for rel in new}
    if changed:
        batch = _git(root, "cat-file", "--batch", input=b"".join(f"HEAD:./{rel}\n".encode("utf-8", "surrogateescape") for rel in changed))
        if batch is None:
            return None
        pos = 0
        for rel in changed:
            nl = batch.index(b"\n", pos)
            header = batch[pos:nl].split()
            pos = nl + 1
            if header[-1:] == [b"missing"]:  # added since HEAD
                texts[rel] = ""
            elif len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                texts[rel] = batch[pos : pos + size].decode("utf-8", "surrogateescape")
                pos += size + 1
            elif len(header) == 3 and header[2].isdigit():  # not a blob: skip its content
                pos += int(header[2]) + 1
    return {rel: t for rel, t in texts.items() if sel.under(rel)}


def keep_new_related(
    diags: list[Diagnostic],
    sel: PathSelection,
    root: Path,
    session_factory: Callable[[], object],
) -> tuple[list[Diagnostic], Optional[str]]:
    """``--related-findings new``: drop the findings selected only by a related location that the project
    with the selected files at their ``HEAD`` text has too. Returns the findings kept and, when the
    comparison could not be made (not a git work tree), a note saying so (then every finding is kept)."""
    related_only = [d for d in diags if not sel.primary(d)]
    if not related_only:
        return diags, None
    old = head_texts(root, sel)
    if old is None:
        return diags, "--related-findings new: not a git work tree, so every finding related to the paths given is reported"
    if not old:  # nothing under the paths changed since HEAD: nothing of theirs is new
        return [d for d in diags if sel.primary(d)], None
    from trtlint.frontends import UNSAVED

    sess = session_factory()
    try:
        sess.load()
        for rel, text in sorted(old.items()):
            sess.set_buffer(rel, text)
        before = {d.fingerprint for d in sess.check()}
    finally:
        for rel in old:
            UNSAVED.pop(str(Path(sess.root) / rel), None)  # the HEAD text must not reach a later run
        sess.close()
    return [d for d in diags if sel.primary(d) or d.fingerprint not in before], None
