"""The rule base class and the rule registry.

A rule is a small class: ``code``, kebab-case ``name``, default ``severity``, a docstring with the headings
*What it does*, *Why it matters*, *Example*, *Fix*, and ``VALID`` / ``INVALID`` examples. Each example is a
mini project ``{"files": {path: text}, "config": {...}}``; INVALID examples also carry ``"expect"``: the exact
list of findings ``(path, line, message-substring)`` the rule must produce there (and nothing else).

Rules read the :class:`~trtlint.index.ProjectIndex` only, never a parser object.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import TYPE_CHECKING, ClassVar, Iterable, Iterator, Optional

from ..diagnostics import Diagnostic, Fix, Related, Severity
from ..facts import Span

if TYPE_CHECKING:  # pragma: no cover
    from ..index import ProjectIndex



class Rule:
    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.ERROR
    fixable: ClassVar[bool] = False
    #: the `trtlint confirm` recipe that reproduces a finding on a machine with TensorRT (see
    #: trtlint/confirm/recipes.py); "" for the default of the rule's code, if any
    confirm: ClassVar[str] = ""
    VALID: ClassVar[list] = []
    INVALID: ClassVar[list] = []

    def check(self, index: "ProjectIndex") -> Iterable[Diagnostic]:  # pragma: no cover - abstract
        raise NotImplementedError

    # helpers -------------------------------------------------------------------------------------------
    def diag(
        self,
        span: Span,
        message: str,
        *,
        related: Iterable[Related] = (),
        symbol: str = "",
        fix: Optional[Fix] = None,
        severity: Optional[Severity] = None,
        logical: Optional[str] = None,
        notes: Iterable[str] = (),
    ) -> Diagnostic:
        return Diagnostic(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            message=message,
            span=span,
            related=tuple(related),
            fix=fix,
            symbol=symbol,
            logical=logical,
            notes=tuple(notes),
        )

    # docs ----------------------------------------------------------------------------------------------
    @classmethod
    def doc(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        return cls.doc().split("\n", 1)[0].strip()

    @classmethod
    def sections(cls) -> dict[str, str]:
        """The docstring split by its ``## Heading`` sections (plus ``summary``)."""
        text = cls.doc()
        parts = re.split(r"^## +(.+)$", text, flags=re.M)
        out = {"summary": parts[0].strip()}
        for i in range(1, len(parts), 2):
            out[parts[i].strip()] = parts[i + 1].strip()
        return out

    @classmethod
    def help_uri(cls) -> str:
        """The rule's page under ``$TRTLINT_DOCS_URL``, or "" when that is not set (see ``trtlint.docs_url``)."""
        from .. import docs_url

        base = docs_url()
        return f"{base.rstrip('/')}/{cls.code}.md" if base else ""


_REGISTRY: dict[str, type[Rule]] = {}


def _load() -> None:
    if _REGISTRY:
        return
    from .. import checks

    for mod in pkgutil.walk_packages(checks.__path__, checks.__name__ + "."):
        if mod.ispkg or mod.name.endswith(".base"):
            continue
        m = importlib.import_module(mod.name)
        for obj in vars(m).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.code:
                if obj.code in _REGISTRY and _REGISTRY[obj.code] is not obj:
                    raise RuntimeError(f"duplicate rule code {obj.code}")
                _REGISTRY[obj.code] = obj


def all_rules() -> list[type[Rule]]:
    _load()
    return [_REGISTRY[c] for c in sorted(_REGISTRY)]


def find_rule(key: str) -> Optional[type[Rule]]:
    """Look a rule up by code (``TRT101``, case-insensitive) or name (``plugin-name-mismatch``)."""
    _load()
    k = key.strip()
    if k.upper() in _REGISTRY:
        return _REGISTRY[k.upper()]
    for r in _REGISTRY.values():
        if r.name == k.lower():
            return r
    return None


def iter_rules() -> Iterator[type[Rule]]:
    yield from all_rules()
