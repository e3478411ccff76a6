"""The Python facts TRT610 reads to tell the project's own classes from TensorRT's (re-exported by
:mod:`trtlint.base.facts`; their own module to keep that one short): the classes that declare a member named like a
TensorRT Python API, and the names a package's ``__init__.py`` re-exports, through which code names those classes
(``tensorrt_llm.Builder`` for the class of ``tensorrt_llm/builder.py``). The conventions of :mod:`trtlint.base.facts`
hold."""

from __future__ import annotations

from dataclasses import dataclass

from trtlint.base.span import Span


@dataclass(frozen=True)
class PyClassDecl:
    """A Python class of the project that declares, itself, a member named like a TensorRT Python API of the
    deprecation pack: a method, a class-level field, or a ``self.<name> = ...`` in one of its methods."""

    name: str  # qualified by the file's module path: "py.pkg.settings.Settings" for py/pkg/settings.py
    span: Span  # the class name
    members: tuple[str, ...] = ()  # the pack's names it declares


@dataclass(frozen=True)
class PyReexport:
    """A name a package's ``__init__.py`` binds at its top level by ``from <module> import <name>`` and by nothing
    else (no other import, assignment, ``def`` or ``class`` of that name at the top level, nor under an ``if`` or a
    ``try`` there): ``pkg.<name>`` is ``<module>.<name>``. Star imports are not recorded."""

    module: str  # the package, qualified by its path: "tensorrt_llm" for tensorrt_llm/__init__.py
    name: str  # the name it binds: "Builder"
    target: str  # what it binds, relative imports resolved against the package: "tensorrt_llm.builder.Builder"
    span: Span  # the imported name in the ``from ... import``
