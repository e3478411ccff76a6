"""The rule base class (the registry of rules and the selectors are in :mod:`trtlint.checks.registry`).

A rule is a small class: ``code``, kebab-case ``name``, default ``severity``, a docstring with the headings
*What it does*, *Why it matters*, *Example*, *Fix*, and ``VALID`` / ``INVALID`` examples. Each example is a
mini project ``{"files": {path: text}, "config": {...}}``; INVALID examples also carry ``"expect"``: the exact
list of findings ``(path, line, message-substring)`` the rule must produce there (and nothing else).

Rules read the :class:`~trtlint.index.project_index.ProjectIndex` only, never a parser object.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar, Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Fix, Related, Severity
from trtlint.base.span import Span

if TYPE_CHECKING:  # pragma: no cover
    from trtlint.index.project_index import ProjectIndex



class Rule:
    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.ERROR
    fixable: ClassVar[bool] = False
    #: the `trtlint confirm` recipe that reproduces a finding on a machine with TensorRT (see
    #: trtlint/confirm/recipes.py); "" for the default of the rule's code, if any
    confirm: ClassVar[str] = ""
    #: whether the rule is in the default rule set (what runs when ``select`` is unset, ``["DEFAULT"]``); a rule
    #: whose findings triage on real code does not show worth a reviewer's time sets False and is then opt-in
    #: (``extend-select``, ``select = ["ALL"]``)
    default: ClassVar[bool] = True
    #: for an opt-in rule (``default = False``): why triage kept it out of the default set (shown in its docs)
    opt_in_why: ClassVar[str] = ""
    #: whether the rule judges the filter itself (TRT002 unused-suppression): the engine runs it after
    #: selection, suppressions and per-file ignores, with ``index.suppression_use`` set, and a bare
    #: ``trtlint: ignore`` does not hide its findings (else an unused bare suppression would hide that it is unused)
    after_filter: ClassVar[bool] = False
    applies_to_tests: ClassVar[bool] = True  # False: findings in test files (index.is_test_path) are dropped (route rules)
    #: the codes of less specific rules this one takes over on the same call: when findings of both point at one
    #: call (same span and callee), the check stage keeps this rule's finding and notes "also TRTxxx" on it
    #: (among the selected rules only, after suppressions; never over a more severe finding). Must not form a cycle
    supersedes: ClassVar[tuple[str, ...]] = ()
    #: the fact kinds the rule's findings depend on (trtlint.checks.reads: FileFacts fields by name, and
    #: ``files``, the project's files and their kinds); the check stage reuses the findings of the last check
    #: while none of them changed (the editor, per edit). None: undeclared, run on every check.
    #: tests/test_rule_reads.py checks it against what the rule touches.
    reads: ClassVar[Optional[frozenset]] = None
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
