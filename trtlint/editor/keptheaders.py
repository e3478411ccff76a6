"""An edited C++ unit re-extracted without walking its shared headers again (the editor's session, issue 36).

A unit's facts hold the declarations of the project headers it walked: its own, and the *shared* ones (headers
without a plugin marker, which a full run lets one unit walk for all: ``pipeline.cpp_headers.shared_header_plan``).
After a keystroke in the unit's body the headers' part of its facts is what it was: a header's declarations are
parsed where it is included, from the unit's text before that point and the header's own text, never from what
follows (C++ declares before use; the body of a class's member sees only its class). So when

* the unit's text is unchanged up to and including its last ``#include`` line (nothing the headers see moved),
* the session's facts of the unit were extracted from its current headers (a header edit re-extracts its
  includers whole: ``Session._reextract_includers``), and completely (no "not analysed" problem),

the session extracts the unit with those shared headers in ``SourceFile.skip`` (their function bodies blanked and not
walked, as a full run does for the headers another unit walks) and takes their declarations from the unit's last
facts (:func:`splice`). Headers with a plugin marker are always walked: a unit's own methods need their class.
The findings equal a from-scratch run's (``tests/test_session_reuse.py``, after each edit of a sequence with a
``#define`` above the last ``#include`` that changes what a shared header's function calls: that edit must extract
the unit whole); measured on real trees, the facts equal a whole extraction's (amirstan_plugin, mmdeploy,
BEVFormer_tensorrt, Edge-LLM 0.5.0: 195 edits). Anything this module cannot match item for item makes the caller
extract the unit whole, as before.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from trtlint.base.facts import FileFacts

_INCLUDE = re.compile(r"^[ \t]*#[ \t]*(?:include|include_next|import)\b")


def last_include_line(lines: list[str]) -> int:
    """The 0-based index of the last line that starts an ``#include`` (-1: none). A line inside a comment counts
    too: the answer may only be later than the truth, never earlier."""
    return max((i for i, line in enumerate(lines) if _INCLUDE.match(line)), default=-1)


def same_prefix(old_text: str, new_text: str) -> bool:
    """Whether the two texts of a unit agree up to and including the last ``#include`` line of either."""
    a, b = old_text.splitlines(keepends=True), new_text.splitlines(keepends=True)
    last = max(last_include_line(a), last_include_line(b))
    if last < 0:
        return True
    return len(a) > last and len(b) > last and a[:last + 1] == b[:last + 1]


def failed(ff: FileFacts) -> bool:
    """A unit not analysed (a timeout, a crash, an unreadable file): a problem that is neither partial nor a note."""
    return any(not p.partial and not p.note for p in ff.problems)


def _path(item: Any) -> Optional[str]:
    span = getattr(item, "span", None)
    return getattr(span, "path", None)


def _subsequence(xs: list, ys: list) -> bool:
    it = iter(ys)
    return all(any(x == y for y in it) for x in xs)


def _merge(old: tuple, new: tuple, kept: frozenset) -> Optional[tuple]:
    """``new`` (the unit extracted without the ``kept`` headers) with ``old``'s items in those headers put back where
    ``old`` had them: the items of ``old`` up to its last kept one must be matched one for one by ``new``'s others,
    in order (they come from the unchanged text above the last ``#include``). None when they do not."""
    olds = [x for x in old if _path(x) in kept]
    news = [x for x in new if _path(x) in kept]
    if news and not _subsequence(news, olds):
        # what the skipping parse still gives of the headers (a defaulted special member it notes, a missing
        # include there) is part of what the whole one gave; anything else: no match
        return None
    if not olds:
        return new
    rest = [x for x in new if _path(x) not in kept]
    last = max(i for i, x in enumerate(old) if _path(x) in kept)
    out, j = [], 0
    for x in old[:last + 1]:
        if _path(x) in kept:
            out.append(x)
            continue
        if j >= len(rest) or rest[j] != x:
            return None
        out.append(rest[j])
        j += 1
    return tuple(out) + tuple(rest[j:])


def splice(old: FileFacts, new: FileFacts, kept: frozenset) -> Optional[FileFacts]:
    """The facts a whole extraction of the new text gives: ``new`` (extracted with ``kept`` in its skip set) with
    ``old``'s declarations of the ``kept`` headers; None when the two cannot be matched item for item."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(FileFacts):
        if f.name in ("path", "kind", "digest"):
            continue
        a, b = getattr(old, f.name), getattr(new, f.name)
        if f.name == "skipped_defs":  # ((header, usr), ...): a whole extraction notes no kept header's
            got = tuple(x for x in b if x[0] not in kept)
        elif not isinstance(a, tuple) or not isinstance(b, tuple):
            continue
        else:
            got = _merge(a, b, kept)
            if got is None:
                return None
        if got != b:
            changes[f.name] = got
    return dataclasses.replace(new, **changes) if changes else new
