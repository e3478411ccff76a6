"""The default rule set (issue 24): a rule whose ``default`` is False runs only when selected. ``select`` unset is
``["DEFAULT"]``; ``extend-select``, ``ALL``, a code prefix or the rule's code or name bring an opt-in rule in."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trtlint.checks.registry import all_rules, find_rule, select_rules
from trtlint.config.settings import Settings

from .helpers import check_project, write_project

OPT_IN = [r for r in all_rules() if not r.default]


def test_some_rules_are_opt_in_and_the_default_set_is_what_select_means_unset():
    assert {"TRT203", "TRT212", "TRT214", "TRT604"} <= {r.code for r in OPT_IN}
    s = Settings()
    assert s.select == ["DEFAULT"]
    chosen = {r.code for r in select_rules(s.select, s.ignore, s.extend_select)}
    assert chosen == {r.code for r in all_rules() if r.default}
    assert not chosen & {r.code for r in OPT_IN}


@pytest.mark.parametrize("select,extend,expect_in", [
    (None, [], False),
    (None, ["TRT604"], True),
    (None, ["unnamed-layer"], True),
    (["ALL"], [], True),
    (["TRT6"], [], True),
    (["DEFAULT"], ["TRT60"], True),
])
def test_an_opt_in_rule_runs_only_when_selected(tmp_path, select, extend, expect_in):
    rule = find_rule("TRT604")
    ex = rule.INVALID[0]
    write_project(tmp_path, ex["files"])
    config = dict(ex.get("config") or {})
    if extend:
        config["extend-select"] = extend
    res = check_project(tmp_path, select=select, config=config)
    got = [d for d in res.diagnostics if d.code == "TRT604"]
    assert bool(got) == expect_in
    if expect_in:
        assert len(got) == len(ex["expect"])


def test_ignore_wins_over_extend_select(tmp_path):
    ex = find_rule("TRT604").INVALID[0]
    write_project(tmp_path, ex["files"])
    res = check_project(tmp_path, config={"extend-select": ["TRT604"], "ignore": ["TRT6"]})
    assert not [d for d in res.diagnostics if d.code == "TRT604"]


def test_rules_lists_the_default_column_and_docs_say_how_to_enable(tmp_path):
    r = subprocess.run([sys.executable, "-m", "trtlint", "rules", "--format", "json"], capture_output=True, text=True, timeout=120)
    rows = {x["code"]: x for x in json.loads(r.stdout)}
    for rule in all_rules():
        assert rows[rule.code]["default"] is rule.default
    for rule in OPT_IN:
        page = subprocess.run([sys.executable, "-m", "trtlint", "rule", rule.code, "--format", "markdown"], capture_output=True, text=True, timeout=120).stdout
        assert f'extend-select = ["{rule.code}"]' in page


def test_default_is_a_known_selector_in_config(tmp_path):
    (tmp_path / "trtlint.toml").write_text('select = ["DEFAULT", "TRT604"]\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "trtlint", "config", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "select = ['DEFAULT', 'TRT604']" in r.stdout


def test_every_opt_in_rule_says_why_and_the_rules_index_lists_it():
    from trtlint.cli.docsgen import render_all

    index = render_all()["README.md"]
    assert "## The opt-in rules" in index
    for rule in OPT_IN:
        assert rule.opt_in_why, f"{rule.code} is opt-in but does not say why (opt_in_why)"
        assert f"| [{rule.code}]({rule.code}.md) {rule.name} |" in index and rule.opt_in_why in index
