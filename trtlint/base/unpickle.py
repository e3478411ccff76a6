"""The one hardened unpickler of trtlint's caches (facts per file, the run memo, the text scans).

A cache lives in the project (``.trtlint_cache/``), so a pull request can plant an entry: the unpickler
refuses every global but the frozen dataclasses of ``trtlint.base.facts`` (and the :class:`~trtlint.base.span.Span`
they share with the findings, and the facts of ``trtlint.base.helperfacts``, ``trtlint.base.ortfacts``,
``trtlint.base.buildfacts``, ``trtlint.base.pyclassfacts`` and ``trtlint.base.onnxfacts`` it re-exports) and, where
asked, the diagnostic types, so a planted pickle cannot name a callable to run. A refusal is ``pickle.UnpicklingError``; the callers treat
it, and every other failure to load, as a cache miss.
"""

from __future__ import annotations

import io
import pickle

from trtlint.base import diagnostics as _diags
from trtlint.base import span as _span

_DIAGNOSTIC_TYPES = frozenset({"Diagnostic", "Related", "Edit", "Fix", "Severity"})


_FACT_MODULES = ("trtlint.base.facts", "trtlint.base.span", "trtlint.base.helperfacts", "trtlint.base.ortfacts",
                 "trtlint.base.buildfacts", "trtlint.base.pyclassfacts", "trtlint.base.onnxfacts")


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, what: str, diagnostics: bool):
        super().__init__(io.BytesIO(data))
        self.what = what
        self.diagnostics = diagnostics

    def find_class(self, module: str, name: str):  # noqa: D401 - pickle API
        if module == "trtlint.base.span" and name == "Span":
            return _span.Span
        if module in _FACT_MODULES[:1] + _FACT_MODULES[2:]:
            # imported only when a pickle names a fact: the run memo's findings need none (the warm path)
            from trtlint.base import facts as _facts

            obj = getattr(_facts, name, None)
            if (isinstance(obj, type) and obj.__module__ in _FACT_MODULES
                    and hasattr(obj, "__dataclass_fields__")):
                return obj
        if self.diagnostics and module == "trtlint.base.diagnostics" and name in _DIAGNOSTIC_TYPES:
            return getattr(_diags, name)
        raise pickle.UnpicklingError(f"refusing global {module}.{name} in {self.what}")


def safe_loads(data: bytes, what: str = "a cache entry", diagnostics: bool = False):
    """The object pickled in ``data``, built only from facts (and, with ``diagnostics``, diagnostic types)."""
    return _Unpickler(data, what, diagnostics).load()
