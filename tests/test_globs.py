"""trtlint.base.globs: gitignore-style patterns matched in time linear in the path, with pathspec's semantics."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from trtlint.base.globs import GlobSpec, compile_spec

REPO = Path(__file__).resolve().parents[1]


def test_same_answers_as_pathspec_gitignorespec_on_random_patterns():
    pathspec = pytest.importorskip("pathspec")
    if int(pathspec.__version__.split(".")[0]) < 1:
        pytest.skip("compared with pathspec 1.x's GitIgnoreSpec")
    rnd = random.Random(37)
    atoms = ["a", "b", "ab", "*", "**", "?", "[ab]", "[a-b]", "/", "/", "\\*", "x"]
    names = ["a", "b", "ab", "ba", "aab", "x", "*", "abab", "bb"]
    compared = 0
    for _ in range(4000):
        pats = []
        for _ in range(rnd.randint(1, 3)):
            p = "".join(rnd.choice(atoms) for _ in range(rnd.randint(1, 7)))
            pats.append("!" + p if rnd.random() < 0.2 else p)
        try:
            ref = pathspec.GitIgnoreSpec.from_lines(pats)
        except Exception:  # a pattern pathspec rejects ("/" alone, "!")
            continue
        mine = GlobSpec(pats)
        for _ in range(10):
            f = "/".join(rnd.choice(names) for _ in range(rnd.randint(1, 5))) + ("/" if rnd.random() < 0.2 else "")
            assert mine.match_file(f) == ref.match_file(f), (pats, f)
            compared += 1
    assert compared > 30000


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("*.py", "a/b/c.py", True),
        ("/*.py", "a/c.py", False),
        ("src/**/x.cu", "src/x.cu", True),
        ("src/**/x.cu", "src/a/b/x.cu", True),
        ("a/**/b/**/c", "a/q/b/r/s/c", True),
        ("a/**/b/**/c", "a/q/c/r/b", False),
        ("build/", "build/x.py", True),
        ("build/", "build", False),
        ("a***b", "axyzb", True),  # "***" inside a segment is "*"
        ("a***b", "ax/yb", False),
        ("a[!x]c", "a/c", False),  # a class never matches "/" (Git's behaviour)
        ("a[!x]c", "abc", True),
        ("a\\*c", "a*c", True),
        ("a\\*c", "abc", False),
        ("a[b", "a[b", False),  # an unclosed "[" drops the pattern, as Git does
        ("*a*a*b", "xaxayb", True),
        ("**/a/**/b/**/c.py", "q/a/a/b/b/c.py", True),
    ],
)
def test_semantics(pattern, path, expected, monkeypatch):
    assert GlobSpec([pattern]).match_file(path) is expected
    # before Python 3.11 (no "(?>...)"), atomic groups are a lookahead and a backreference: same answers
    import trtlint.base.globs

    monkeypatch.setattr(trtlint.base.globs, "_ATOMIC", False)
    assert GlobSpec([pattern]).match_file(path) is expected
    assert GlobSpec(["*a" * 30 + "b"]).match_file("a" * 250) is False


def test_negation_and_blank_patterns():
    spec = compile_spec(["*.py", "!keep.py", "", "  "])
    assert spec.match_file("x/drop.py") and not spec.match_file("x/keep.py")
    assert compile_spec(["", " "]) is None


def test_catastrophic_patterns_end():
    # in a child with a timeout: a backtracking matcher would never return (the 60-star pattern against this
    # path ran over 60 s with pathspec's GitIgnoreSpec; ~1 ms each here). No bound on the time itself: a test
    # does not depend on how fast the machine is, the 30 s timeout only catches the exponential case
    code = textwrap.dedent(
        """
        import time
        from trtlint.base.globs import GlobSpec
        deep = "/".join(["a"] * 1000) + "/b.py"
        cases = [
            ("*" * 60 + "x", "sub/" + "a" * 200 + ".py"),
            ("*" * 60, "sub/" + "a" * 200 + "/"),
            ("*a" * 30 + "b", "a" * 250),
            ("*?" * 30 + "b", "a" * 250),
            ("**/a" * 30 + "/c", deep),
            ("a/**/" * 30 + "c", deep),
            ("*/" * 60 + "c", deep),
            ("**a**/" * 20 + "c", deep),
        ]
        worst = 0.0
        for pat, path in cases:
            t = time.perf_counter()
            GlobSpec([pat]).match_file(path)
            worst = max(worst, time.perf_counter() - t)
        print(worst)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=env)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout) >= 0
