"""The throw and exit walks below each plugin method (TRT204, ``checks/plugin/_escape.py``) kept by the editor's session
from check to check (``checks.reads.WalkCarry``, issue 36). After each edit the session's findings equal a
from-scratch run's over the same texts (real libclang), and:

- an edit of one plugin's ``enqueue``: the other plugin's walks, and those of the edited unit's methods the edit
  left as they were, are taken from the check before (the unit's facts repeat the header's inline function, which
  did not change: ``reads.moved_functions``);
- an edit of a helper in a unit of its own, below both plugins' ``enqueue``, that makes it throw: every kept walk
  that went into it is forgotten, and the throw is reported for both methods (without the forget the walks of
  the check before, which saw no throw there, would be taken)."""

from __future__ import annotations

from pathlib import Path

from trtlint.editor.session import Session

from .helpers import diag_keys as _key, full_run_keys, write_project
from .test_session_reuse import _plugin

A = "plugins/aPlugin.cpp"
B = "plugins/bPlugin.cpp"
HELPERS = "common/helpers.h"
DEEPER = "common/helpers.cpp"

_HELPERS = """#pragma once
#include <cuda_runtime.h>
namespace helpers
{
void deeper(cudaStream_t s);
inline void prepare(cudaStream_t s)
{
    deeper(s);
}
} // namespace helpers
"""

_DEEPER = """#include "common/helpers.h"
#include <stdexcept>
void helpers::deeper(cudaStream_t s)
{
    cudaStreamQuery(s);
}
"""


def _project(root: Path) -> None:
    files = {
        "CMakeLists.txt": "add_library(plugins SHARED plugins/aPlugin.cpp plugins/bPlugin.cpp common/helpers.cpp)\n",
        HELPERS: _HELPERS,
        DEEPER: _DEEPER,
        A: _plugin("APlugin"),
        B: _plugin("BPlugin"),
    }
    write_project(root, files)


def _throws(keys, rel: str) -> list:
    return [k for k in keys if k[0] == "TRT204" and k[1] == rel]


def test_walk_carry_forgets_a_walk_below_an_edited_function_and_keeps_the_others(tmp_path):
    proj = tmp_path / "proj"
    _project(proj)
    s = Session(proj, use_cache=False, jobs=1, isolate=True)
    try:
        s.load()
        s.check()
        carry = s.state.walk_carry
        taken: list[tuple] = []  # the keys of the walks taken from the check before
        get = carry.get

        def recording_get(index, key, start):
            got = get(index, key, start)
            if got is not None:
                taken.append(key)
            return got

        carry.get = recording_get
        texts: dict[str, str] = {}
        d = (proj / DEEPER).read_text()
        a = (proj / A).read_text()
        throwing = d.replace("    cudaStreamQuery(s);\n",
                             '    if (cudaStreamQuery(s) != cudaSuccess)\n        throw std::runtime_error("busy");\n')
        edited = a.replace("    helpers::prepare(stream);\n", "    helpers::prepare(stream);\n    cudaStreamQuery(stream);\n")
        steps = [
            # (the first check after loading takes nothing from the one before: the index's other inputs are set then)
            ("one plugin's enqueue edited (a call added)", A, edited),
            ("undo", A, a),
            ("the helper below both enqueues throws", DEEPER, throwing),
            ("the throw removed", DEEPER, d),
        ]
        for i, (label, rel, text) in enumerate(steps):
            texts[rel] = text
            s.set_buffer(rel, text)
            before = carry.hits_by_kind.get("escape", 0)
            taken.clear()
            got = _key(s.check())
            kept = carry.hits_by_kind.get("escape", 0) - before
            want = full_run_keys(proj, texts, tmp_path / f"scratch{i}", None)
            assert got == want, f"after '{label}': the session's findings differ from a full run"
            found = _throws(got, DEEPER) + _throws(got, A) + _throws(got, B)
            if i == 1:
                # BPlugin's methods and APlugin's unchanged ones (above the edit) are taken from the check before
                assert kept > 0
                # BPlugin::enqueue's throw walk entered the header's inline prepare, which the edited unit's facts
                # hold too, unchanged: kept
                assert any(k[0] == "escape" and k[4] == "BPlugin" and "@F@enqueue#" in k[7] for k in taken)
            if i == 2:
                # the walks of both enqueues entered deeper: made again, they find the throw (one finding per method,
                # or one at the helper's site naming both); kept, they would not
                assert found, "the throw below both enqueues is not reported: a kept walk was not forgotten"
                assert any("APlugin" in k[5] for k in found) and any("BPlugin" in k[5] for k in found)
                assert kept > 0  # the methods that do not reach deeper (getPluginName...) are still kept
            if i == 3:
                assert not found
    finally:
        s.close()


# a pack macro (CUDA_CHECK: "throw" in rules_data/cpp_behaviour.yaml) the project defines, calling a helper of a unit
# of its own: what the helper does decides what the macro's use does (_escape._own_definition)
_CHECK_H = """#pragma once
#include <cuda_runtime.h>
namespace helpers
{
void fail();
}
#define CUDA_CHECK(x)                                                                                                  \\
    do                                                                                                                 \\
    {                                                                                                                  \\
        if ((x) != cudaSuccess)                                                                                        \\
            helpers::fail();                                                                                           \\
    } while (0)
"""

_LAUNCH = """#include "common/helpers.h"
#include "common/check.h"
void helpers::deeper(cudaStream_t s)
{
    CUDA_CHECK(cudaStreamQuery(s));
}
"""

_FAIL = """#include "common/check.h"
#include <cstdlib>
#include <stdexcept>
void helpers::fail()
{
    throw std::runtime_error("cuda");
}
"""


def test_walk_carry_forgets_a_kept_answer_below_a_macro_whose_helper_changed(tmp_path):
    """TRT205's exit walk from enqueue goes through deeper only if an exit is below it (``_escape._leads``). deeper's
    CUDA_CHECK is taken as the pack says (it throws: its definition calls fail, which throws), so nothing below deeper
    exits. Then fail is edited to exit: the macro's definition now decides, the walk follows fail from deeper, and the
    exit is reported. The kept answer for deeper read no function of fail's unit through the walk's own steps; it is
    forgotten because what deeper's body reads depends on fail (without that, the exit goes unreported)."""
    proj = tmp_path / "proj"
    _project(proj)
    fail = "common/fail.cpp"
    files = {"common/check.h": _CHECK_H, DEEPER: _LAUNCH, fail: _FAIL,
             "CMakeLists.txt": "add_library(plugins SHARED plugins/aPlugin.cpp plugins/bPlugin.cpp common/helpers.cpp"
                               " common/fail.cpp)\n"}
    for rel, text in files.items():
        (proj / rel).write_text(text, encoding="utf-8")
    s = Session(proj, use_cache=False, jobs=1, isolate=True)
    try:
        s.load()
        s.check()
        texts: dict[str, str] = {}
        a = (proj / A).read_text()
        exits = _FAIL.replace('    throw std::runtime_error("cuda");\n', "    exit(1);\n")
        steps = [
            # (the first check after loading takes nothing from the one before)
            ("one plugin's enqueue edited (a call added)", A,
             a.replace("    helpers::prepare(stream);\n", "    helpers::prepare(stream);\n    cudaStreamQuery(stream);\n")),
            ("undo", A, a),
            ("the helper the macro calls now ends the process", fail, exits),
            ("undo", fail, _FAIL),
        ]
        for i, (label, rel, text) in enumerate(steps):
            texts[rel] = text
            s.set_buffer(rel, text)
            got = _key(s.check())
            want = full_run_keys(proj, texts, tmp_path / f"scratch{i}", None)
            assert got == want, f"after '{label}': the session's findings differ from a full run"
            exits_found = [k for k in got if k[0] == "TRT205"]
            if i == 2:
                assert exits_found, "the exit below enqueue is not reported: a kept answer was not forgotten"
            else:
                assert not exits_found
    finally:
        s.close()
