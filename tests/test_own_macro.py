"""Issue 23 item 5: the project's own definitions win. rules/cpp_behaviour.yaml says CUDA_CHECK throws (TensorRT
Edge-LLM's does); a project whose visible definition calls assert(0) gets TRT205 naming that definition, not
TRT204; with no visible definition the table decides (real libclang)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .helpers import check_project

FIXTURE = Path(__file__).parent / "fixtures" / "own_macro"


def _found(root):
    res = check_project(root, select=["TRT204", "TRT205"])
    return [(d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics]


def test_visible_definition_decides(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "p")
    got = _found(tmp_path / "p")
    assert [(c, p, ln) for c, p, ln, _ in got] == [("TRT205", "plugins/foo.cpp", 15)], got
    assert ("(expanded from macro CUDA_CHECK as defined at common/macros.h:4, where it ends the process (a CUDA_CHECK "
            "elsewhere usually throws))") in got[0][3]


def test_table_decides_without_a_definition(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "p")
    (tmp_path / "p" / "common" / "macros.h").write_text("#pragma once\n#include <cuda_runtime.h>\n")
    got = _found(tmp_path / "p")
    # TRT204 is reported at the noexcept method (line 12), naming the CUDA_CHECK use on line 15 as its throw site
    assert [(c, p, ln) for c, p, ln, _ in got] == [("TRT204", "plugins/foo.cpp", 12)], got
    assert ": CUDA_CHECK (throws std::runtime_error on a CUDA error" in got[0][3]
    (d,) = check_project(tmp_path / "p", select=["TRT204"]).diagnostics
    assert [(r.span.path, r.span.line) for r in d.related] == [("plugins/foo.cpp", 15)]
