"""Every rule's VALID and INVALID examples, run through the real pipeline (real libclang, libcst)."""

from __future__ import annotations

import re

import pytest

from trtlint.checks.registry import all_rules
from trtlint.base.fixes import plan_fixes, write_fixes

from .helpers import check_project, write_project

# words that name trtlint's own machinery; a message that needs one (a rule about rule packs) is listed below
_INTERNALS = re.compile(r"\brule packs?\b|\bpacks?\b|\brules/|\bfrontends?\b|\blibclang\b|\bfacts?\b|\bindex(?:ed)?\b|"
                        r"\bthe walk\b|\bcursors?\b|\bUSR\b|\bAST\b|\bcallee\b", re.I)
# (rule code, the word in lower case) pairs where the word is the user's business
_INTERNALS_ALLOWED = {
    ("TRT101", "index"),  # `trtlint check --dump-index`: the command that lists the registered names
    ("TRT505", "index"),  # TensorRT's own words: "Out-of-range shape input index"
}

CASES = []
for rule in all_rules():
    for i, ex in enumerate(rule.VALID):
        CASES.append(pytest.param(rule, ex, False, id=f"{rule.code}-valid-{i}"))
    for i, ex in enumerate(rule.INVALID):
        CASES.append(pytest.param(rule, ex, True, id=f"{rule.code}-invalid-{i}"))


def test_every_rule_has_examples_and_docs():
    for rule in all_rules():
        assert rule.VALID, f"{rule.code} has no VALID example"
        assert rule.INVALID, f"{rule.code} has no INVALID example"
        secs = rule.sections()
        for head in ("What it does", "Why it matters", "Example", "Fix"):
            assert head in secs, f"{rule.code} docstring lacks '## {head}'"
        # a fixable rule shows what its fix leaves: at least one INVALID example states the fixed files
        assert not rule.fixable or any("fixed" in ex for ex in rule.INVALID), f"{rule.code} is fixable, but no INVALID example has 'fixed'"


@pytest.mark.parametrize("rule,example,invalid", CASES)
def test_example(tmp_path, rule, example, invalid):
    write_project(tmp_path, example["files"])
    res = check_project(tmp_path, select=[rule.code], config=example.get("config"))
    got = [d for d in res.diagnostics if d.code == rule.code]
    if rule.reads is not None:  # the fact kinds the rule touches here are declared (tests/test_rule_reads.py)
        from .test_rule_reads import undeclared

        missing = undeclared(rule, res.state)
        assert not missing, f"{rule.code} reads {sorted(missing)} without declaring them in Rule.reads"
    # an example proves nothing about a rule if its source does not parse: the frontends' parse problems (what
    # TRT001 reports) must be empty, except in TRT001's own INVALID examples, which are unparseable on purpose
    problems = [f"{p.span.path}:{p.span.line}: {p.message}" for ff in res.index.files.values() for p in ff.problems]
    if not (rule.code == "TRT001" and invalid):
        assert problems == [], "the example does not parse cleanly:\n" + "\n".join(problems)
    if not invalid:
        assert got == [], "\n".join(f"{d.span.path}:{d.span.line}: {d.message}" for d in got)
        return
    expect = list(example["expect"])
    remaining = list(got)
    # (path, line, message fragment) or (path, line, message fragment, symbol): the symbol is part of the
    # fingerprint that baselines and suppressions key on
    for path, line, fragment, *symbol in expect:
        match = next((d for d in remaining if d.span.path == path and d.span.line == line and fragment in d.message
                      and (not symbol or d.symbol == symbol[0])), None)
        assert match is not None, (
            f"expected {path}:{line} containing {fragment!r}" + (f" (symbol {symbol[0]!r})" if symbol else "") + "; got:\n"
            + "\n".join(f"{d.span.path}:{d.span.line}: {d.message} (symbol {d.symbol!r})" for d in got)
        )
        remaining.remove(match)
    # every finding names the symbol involved (else its fingerprint falls back to the message and shifts with it)
    assert all(d.symbol for d in got), "findings without a symbol:\n" + "\n".join(
        f"{d.span.path}:{d.span.line}: {d.message}" for d in got if not d.symbol)
    assert not remaining, "unexpected findings:\n" + "\n".join(f"{d.span.path}:{d.span.line}: {d.message}" for d in remaining)
    # a message speaks of the user's code, not of trtlint's insides (rule packs, frontends, facts, the index)
    for d in got:
        for text in [d.message] + [r.message for r in d.related]:
            leaks = [m.group(0) for m in _INTERNALS.finditer(text) if (rule.code, m.group(0).lower()) not in _INTERNALS_ALLOWED]
            assert not leaks, f"{rule.code} message speaks of trtlint's internals ({leaks}): {text}"
    # an example may state the severity of its findings (a severity the rule does not always give: a pack's entry,
    # a method's temperature)
    if "severity" in example:
        assert [d.severity.value for d in got] == [example["severity"]] * len(got), [d.severity.value for d in got]
    # the fix, applied as `--fix --unsafe-fixes` applies it (trtlint.base.fixes), leaves exactly the stated files; an
    # example whose findings carry a fix must state what it leaves
    if any(d.fix for d in got) or "fixed" in example:
        assert "fixed" in example, "the findings carry fixes: state the files they leave as 'fixed'"
        plan = plan_fixes(got, tmp_path, {}, unsafe=True)
        assert plan.refused == []
        write_fixes(plan, tmp_path)
        changed = sorted(f.path for f in plan.files)
        assert changed == sorted(example["fixed"]), f"the fixes changed {changed}"
        for path, text in example["fixed"].items():
            assert (tmp_path / path).read_text(encoding="utf-8") == text, f"{path} after the fix"
