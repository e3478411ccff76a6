"""What build files say they build: CMake's globs and targets, a Makefile's sources (re-exported by
:mod:`trtlint.base.facts`; their own module to keep that one short). The conventions of :mod:`trtlint.base.facts`
hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from trtlint.base.span import Span


@dataclass(frozen=True)
class CMakeGlob:
    """``file(GLOB|GLOB_RECURSE VAR patterns...)``; patterns are project-relative globs."""

    var: str
    recurse: bool
    patterns: tuple[str, ...]
    span: Span
    targets: tuple[str, ...] = ()  # targets whose sources use ${VAR}


@dataclass(frozen=True)
class MakeSources:
    """What a Makefile says it compiles (frontends/makefile.py): ``sources`` and ``objects`` (``x.o``, built
    from a unit ``x.*``) project-relative, ``patterns`` of its ``$(wildcard ...)`` project-relative; ``known``
    False when make computes the list (``$(shell find ...)``): then no file may be concluded unbuilt. ``span``:
    the first line naming a source (or the file's first line)."""

    sources: tuple[str, ...]
    objects: tuple[str, ...]
    patterns: tuple[str, ...]
    known: bool
    span: Span
    why_unknown: str = ""


@dataclass(frozen=True)
class CMakeTarget:
    """``add_executable``/``add_library`` (plus ``target_sources``) in one list file: its explicit sources
    (project-relative) and the variables its sources come from; ``test`` when the same file registers it as
    a test (``add_test``, ``gtest_discover_tests``/``gtest_add_tests``) or links it with googletest."""

    name: str
    span: Span
    sources: tuple[str, ...] = ()
    vars: tuple[str, ...] = ()
    test: bool = False
    # made by a call of a function or macro this list file does not define (``nvcv_add_test(name group)``): its
    # name; whether it makes or registers a test is up to the list file that defines it (CMakeFunction)
    via: Optional[str] = None


@dataclass(frozen=True)
class CMakeFunction:
    """A function or macro a list file defines that makes a googletest target of its caller's sources
    (``kind`` "makes") or registers the target its caller names first as a test (``kind`` "registers")."""

    name: str  # lower case, as CMake matches command names
    kind: str
    span: Span
