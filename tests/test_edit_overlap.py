"""A ``trtlint check`` after one C++ unit changed (issue 36): the parent does what needs no fact of the run while the
worker parses the unit, instead of before handing it the unit or after its facts came back.

Not timed: the order of the steps is what is asserted, from spies around the real pool and the real steps (each
spy records the step and calls through), and the findings are compared with a run without the cache."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers import check_project

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "edgellm_mini"
FOO = "cpp/plugins/fooPlugin/fooPlugin.cpp"


def _key(diags) -> list[tuple]:
    return sorted((d.code, d.span.path, d.span.line, d.message) for d in diags)


def _cli_run(root: Path):
    from trtlint.config.settings import Settings
    from trtlint.pipeline.run import run

    return run(Settings(root=root.resolve()), jobs=1, use_cache=True, memo=True)


def test_the_check_inputs_are_made_while_the_edited_unit_is_parsed(tmp_path, monkeypatch):
    """The project state is made after the edited unit went to the worker, and the check's inputs that need no fact
    (here: the TensorRT release inferred from the text scans) and the last facts of the edited unit (what the rule
    memo compares with) are read before the parent waits for the unit's facts; the findings equal a run without the
    cache."""
    from trtlint.pipeline import state as state_mod
    from trtlint.pipeline import trtversion
    from trtlint.pipeline.workers import Pool
    from trtlint.store.cache import FactCache

    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    _cli_run(proj)
    text = (proj / FOO).read_text(encoding="utf-8")
    (proj / FOO).write_text(text + "\n// an edit\n", encoding="utf-8")

    events: list[str] = []
    submit, collect, init, infer, load_entry = (Pool.submit, Pool.collect, state_mod.ProjectState.__init__,
                                                trtversion.infer, FactCache.load_entry)
    batches: dict[int, bool] = {}

    def spy_submit(self, files, priority=0):
        b = submit(self, files, priority)
        batches[id(b)] = any(f.rel == FOO for f in files)
        if batches[id(b)]:
            events.append("unit sent")
        return b

    def spy_collect(self, batch, stored=None):
        if batches.get(id(batch)):
            events.append("wait for the unit")
        return collect(self, batch, stored)

    def spy_init(self, *a, **kw):
        events.append("project state")
        return init(self, *a, **kw)

    def spy_infer(*a, **kw):
        events.append("check inputs")
        return infer(*a, **kw)

    def spy_load_entry(self, key, deps):
        ff = load_entry(self, key, deps)
        if ff is not None and ff.path == FOO:
            events.append("last facts of the unit")
        return ff

    monkeypatch.setattr(Pool, "submit", spy_submit)
    monkeypatch.setattr(Pool, "collect", spy_collect)
    monkeypatch.setattr(state_mod.ProjectState, "__init__", spy_init)
    monkeypatch.setattr(trtversion, "infer", spy_infer)
    monkeypatch.setattr(FactCache, "load_entry", spy_load_entry)
    res = _cli_run(proj)
    monkeypatch.undo()

    assert res.state is not None and res.state.rule_memo.reused, "the rule memo of the run before was not used"
    assert events.count("unit sent") == 1 and events.count("wait for the unit") == 1, events
    order = {e: events.index(e) for e in events}
    assert order["unit sent"] < order["project state"], events
    assert order["check inputs"] < order["wait for the unit"], events
    assert order["last facts of the unit"] < order["wait for the unit"], events

    scratch = tmp_path / "scratch"
    shutil.copytree(proj, scratch, ignore=shutil.ignore_patterns(".trtlint_cache"))
    full = check_project(scratch)
    assert _key(res.diagnostics) == [(c, p, ln, m.replace(str(scratch), str(proj))) for c, p, ln, m in _key(full.diagnostics)]


_EXIT_PROBE = r"""
import gc, json, runpy, sys
sys.argv = ["trtlint"] + sys.argv[1:]
code = None
try:
    runpy.run_module("trtlint", run_name="__main__")
except SystemExit as e:
    code = e.code
sys.stdout.flush()
print("\nEXIT " + json.dumps({"exit": code, "frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}))
"""


def test_a_check_leaves_its_objects_out_of_the_exit_collection(tmp_path):
    """The interpreter's exit collects once more even with the collector disabled; ``trtlint check`` freezes what
    it holds first, so that collection does not traverse the run's objects (facts, index, findings) again."""
    import json
    import os
    import subprocess
    import sys

    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    p = subprocess.run([sys.executable, "-c", _EXIT_PROBE, "check", str(proj), "--no-progress", "--no-cache"],
                       env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=proj, capture_output=True, text=True, timeout=600)
    _, _, tail = p.stdout.rpartition("\nEXIT ")
    assert tail, p.stderr
    got = json.loads(tail)
    assert got["exit"] in (0, 1), p.stderr
    assert got["frozen"] > 10 * max(got["tracked"], 1), got
