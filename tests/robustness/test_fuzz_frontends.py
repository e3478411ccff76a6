"""Bounded fuzzing of every frontend (CI): random bytes, random text and mutated real-looking inputs.

Each frontend's ``extract`` is called directly on bytes written to a temporary file; the oracle is
:func:`tests.robustness.fuzzlib.extract_bytes` (no exception, no internal error, picklable facts). The long run
with many more inputs is ``python3 bench/fuzz.py`` (outside CI).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from . import fuzzlib

# small budgets: the whole module runs in about a minute (C++ examples pay a libclang parse each)
_BUDGET = {"cpp": 40, "cuda": 25, "header": 25, "python": 100, "cmake": 100, "onnx": 100, "testlist": 100, "plugin-spec": 100}

_COMMON = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("label", sorted(_BUDGET))
def test_frontend_survives_fuzzed_input(label):
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)

        @settings(max_examples=_BUDGET[label], **_COMMON)
        @given(data=fuzzlib.inputs(label))
        def run(data):
            fuzzlib.extract_bytes(label, data, work)

        run()


def test_config_loader_survives_fuzzed_input():
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)

        @settings(max_examples=150, **_COMMON)
        @given(data=fuzzlib.inputs("config"))
        def run(data):
            fuzzlib.load_config_bytes(data, work)

        run()


@pytest.mark.parametrize("label", sorted(_BUDGET))
def test_seeds_give_facts(label):
    """The seeds are real-looking: unmutated, each gives facts (so the mutations start from inputs that exercise
    the extraction, not from files the frontend rejects at once)."""
    from trtlint.base.facts import FileFacts

    # a seed is extracted alone (its project's headers are not beside it): at least one seed of each kind must
    # still give facts (fooPlugin.cpp alone depends on its header; clipPlugin.cpp and the headers do not)
    got = []
    for seed in fuzzlib.seeds(label):
        with tempfile.TemporaryDirectory() as d:
            ff = fuzzlib.extract_bytes(label, seed, Path(d))
            got.append(ff != FileFacts(path=ff.path, kind=ff.kind, digest=ff.digest, problems=ff.problems))
    assert any(got), got


def test_function_body_blanking_keeps_every_offset_on_fuzzed_headers():
    """cpp.device.blank_function_bodies (the bodies of headers a unit leaves to another unit): on any text it
    returns text of the same UTF-8 length and lines, whose bytes change only to spaces after a brace it reports,
    and never raises."""
    from trtlint.frontends.cpp.device import blank_function_bodies

    blanked = []

    @settings(max_examples=300, **_COMMON)
    @given(data=fuzzlib.inputs("header"))
    def run(data):
        text = data.decode("utf-8", "replace")
        out, opened = blank_function_bodies(text)
        assert len(out.encode("utf-8", "surrogatepass")) == len(text.encode("utf-8", "surrogatepass"))
        assert out.count("\n") == text.count("\n")
        if not opened:
            assert out is text
            return
        blanked.append(len(opened))
        # libclang's offsets are bytes: a body's non-ASCII character becomes as many spaces as it has bytes
        tb, ob = text.encode("utf-8", "surrogatepass"), out.encode("utf-8", "surrogatepass")
        braces = [len(text[:at].encode("utf-8", "surrogatepass")) for at in opened]
        for at in braces:
            assert tb[at] == ob[at] == ord("{")
        for i, (a, b) in enumerate(zip(tb, ob)):
            if a != b:
                assert b == ord(" ") and a != ord("\n") and any(at < i for at in braces)

    run()
    assert blanked, "no fuzzed header had a body to blank: the test would check nothing"
