"""Issue 23 item 6: idioms the hot-path rules must read (real libclang): allocation by construction
(``std::vector<float> v(n)``, ``thrust::device_vector``), and a helper shared by several plugins' ``enqueue``s
reported once, naming every plugin that reaches it."""

from __future__ import annotations

import shutil
from pathlib import Path

from trtlint.checks.examples.hotpath import plugin_cpp

from .helpers import check_project, write_project

FIXTURE = Path(__file__).parent / "fixtures" / "shared_helper"

_THRUST = "namespace thrust { template <class T> class device_vector { public: explicit device_vector(int n); }; }"


def test_allocation_by_construction(tmp_path):
    body = ("    std::vector<float> v(16);\n"  # line 15: allocates
            "    std::vector<int> w;\n"  # a default-constructed vector allocates nothing
            "    thrust::device_vector<float> d(16);")  # line 17: device allocation
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(body, _THRUST)})
    res = check_project(tmp_path, select=["TRT301", "TRT306"])
    got = sorted((d.span.line, d.code, d.message.split(" allocates")[0]) for d in res.diagnostics)
    assert got == [
        (15, "TRT306", "std::vector::vector (container construction (allocates its elements))"),  # host: opt-in rule
        (17, "TRT301", "thrust::device_vector::device_vector (device allocation (thrust::device_vector))"),
    ], got


def test_shared_helper_names_every_plugin(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "p")
    res = check_project(tmp_path / "p", select=["TRT301"])
    got = [(d.span.path, d.span.line, d.message) for d in res.diagnostics]
    assert len(got) == 1, got
    path, line, msg = got[0]
    assert (path, line) == ("plugins/shared.h", 6)
    for name in ("FooPlugin::enqueue", "BarPlugin::enqueue", "BazPlugin::enqueue"):
        assert name in msg.split(": ")[0], msg  # the message's head, before the chain
    related = {r.message for r in res.diagnostics[0].related}
    assert sum("reaches it too" in m for m in related) == 2, related
