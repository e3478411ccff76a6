"""The extraction pool pays for a costly parser import (libcst) once where it can (trtlint/workers.py): real
worker processes, real libcst, the facts compared with an in-process extraction of the same files."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path

from trtlint.engine import extract_one
from trtlint.facts import to_json
from trtlint.frontends import ExtractContext, SourceFile
from trtlint.workers import Pool

FIXTURE = Path(__file__).parent / "fixtures" / "edgellm_mini"
# files whose facts need the libcst extractors (they pass the cheap text and ast tests)
NEEDS_LIBCST = [
    "tensorrt_edgellm/onnx/custom_translations.py",
    "tensorrt_edgellm/onnx/dynamo_translations.py",
    "tensorrt_edgellm/models/ops.py",
    "experimental/builder/ops/backend.py",
    "experimental/builder/ops/functional/foo.py",
]


# workers that start from a fresh interpreter: forked from this test process they would inherit libcst
SPAWN = multiprocessing.get_context("spawn")


def _src(root: Path, rel: str) -> SourceFile:
    return SourceFile(path=root / rel, rel=rel, kind="python", digest=rel)


def test_a_second_worker_hands_libcst_files_back_instead_of_importing_libcst(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(FIXTURE, root)
    ctx = ExtractContext(root=root)
    first, rest = NEEDS_LIBCST[0], NEEDS_LIBCST[1:]
    with Pool(2, ctx, mp_context=SPAWN) as pool:
        # one file first: the worker that takes it imports libcst and says so before it answers
        (ff0,) = pool.collect(pool.submit([_src(root, first)]))
        assert pool.imports == {"libcst": 1}
        # the next two files go to the two workers; the one without libcst hands its file back
        facts = pool.collect(pool.submit([_src(root, r) for r in rest]))
        assert pool.imports == {"libcst": 1}  # too few files handed back to be worth a second import
        assert pool.handed_back >= 1
        assert len(pool.workers) == 2
    # the same facts as extracting them here, in order
    expected = [to_json(extract_one(_src(root, r), ctx)) for r in NEEDS_LIBCST]
    assert [to_json(ff0)] + [to_json(f) for f in facts] == expected
    # and each holds facts only the libcst extractors record
    assert all(f.emissions or f.route_tables or f.route_calls or f.torch_op_uses for f in [ff0, *facts])


def test_with_one_worker_nothing_is_handed_back(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(FIXTURE, root)
    ctx = ExtractContext(root=root)
    with Pool(1, ctx, mp_context=SPAWN) as pool:
        facts = pool.collect(pool.submit([_src(root, r) for r in NEEDS_LIBCST]))
        assert pool.imports == {"libcst": 1} and pool.handed_back == 0
    assert [to_json(f) for f in facts] == [to_json(extract_one(_src(root, r), ctx)) for r in NEEDS_LIBCST]
