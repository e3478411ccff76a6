"""Each rule's declared fact kinds (``Rule.reads``, trtlint.checks.reads) cover what it touches: every rule runs
over a traced index of the fixture projects (the index attributes it reads, mapped to the fact kinds they are
built from, and the fields of ``index.files`` it reads), and what it touched must be declared. The editor reuses
a rule's findings while none of its declared kinds changed, so a kind it reads but does not declare would keep a
stale finding (tests/test_incremental.py checks the outcome; ``test_rule_examples`` traces each rule over its own
examples too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtlint.checks.reads import FACT_KINDS, INDEX_ATTRIBUTES, traced_reads
from trtlint.checks.registry import all_rules
from trtlint.index.project_index import ProjectIndex

from .helpers import check_project

FIXTURES = Path(__file__).parent / "fixtures"
PROJECTS = ["edgellm_mini", "oss_mini", "corpus_mini", "zoo", "cpp_model", "macro_creator", "exit_split"]


def undeclared(rule, state) -> set:
    """What ``rule`` touches over a fresh index of ``state``'s facts and is not in its ``reads``."""
    idx = ProjectIndex.build(state.root, state.profile, state.packs, list(state.facts.values()), state.settings,
                             inputs=state.check_inputs())
    touched, _ = traced_reads(rule, idx)
    return touched - rule.reads


@pytest.mark.parametrize("name", PROJECTS)
def test_rules_touch_only_what_they_declare(name):
    res = check_project(FIXTURES / name, select=["ALL"])
    bad = {r.code: sorted(undeclared(r, res.state)) for r in all_rules() if r.reads is not None}
    assert {c: k for c, k in bad.items() if k} == {}


def test_the_tracer_sees_a_read():
    """The tracer is not blind: a rule that reads the emissions is seen reading them, through the index and through
    a file's facts; an attribute the mapping does not know comes back as ``?name``."""
    from trtlint.checks.base import Rule

    class ReadsEmissions(Rule):
        code = "TRT999"
        reads = frozenset()

        def check(self, index):
            list(index.emissions)
            for ff in index.files.values():
                ff.route_calls
            index.__dict__["new_thing"] = 1
            index.new_thing
            return []

    res = check_project(FIXTURES / "corpus_mini", select=["TRT001"])
    assert undeclared(ReadsEmissions, res.state) == {"emissions", "files", "route_calls", "?new_thing"}
    assert set().union(*INDEX_ATTRIBUTES.values()) <= FACT_KINDS
