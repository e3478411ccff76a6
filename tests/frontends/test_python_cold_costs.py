"""What a worker pays before and while extracting Python files (issue 36, cold): the ONNX standard's op table comes
from the shipped pack, not from importing onnx (~1 s in a fresh worker, ml_dtypes), and the version-guard scan
reads source segments without re-splitting the file for each one. The facts stay the same."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from trtlint.frontends.python.guards import _Refs

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def test_python_extraction_tells_standard_ops_without_importing_onnx(tmp_path):
    (tmp_path / "export.py").write_text(
        "import torch\n"
        "def symbolic(g, x):\n"
        "    y = g.op('Relu', x)\n"
        "    return g.op('custom::MyPlugin', y, alpha_f=1.0)\n",
        encoding="utf-8",
    )
    code = (
        "import sys, json\n"
        "from pathlib import Path\n"
        "from trtlint.config.settings import load_settings\n"
        "from trtlint.config.packs import load_packs, detect_profile\n"
        "from trtlint.index.discover import discover\n"
        "from trtlint.pipeline.extract import extract_one, make_context\n"
        f"root = Path({str(tmp_path)!r})\n"
        "s = load_settings(root)\n"
        "p = detect_profile(load_packs(), root, s.profile)\n"
        "f = [x for x in discover(root, None).files if x.rel == 'export.py'][0]\n"
        "facts = extract_one(f, make_context(s, p, root))\n"
        "print(json.dumps(sorted(e.op_type for e in facts.emissions)))\n"
        "print('onnx' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ops, onnx_imported = r.stdout.split()
    assert ops == '["MyPlugin"]'
    assert onnx_imported == "False"


SEGMENT_CASES = [
    "if a and b:\n    pass\n",
    "x = (1 if TRT_VERSION >= (10, 0)\n     else 2)\n",
    "if 'é' == v and w:\r\n    pass\r\nif z\\\r\n  or y:\r\n  pass\r\n",
    "if a:\r    pass\rif b['ü'] > 3:\r    pass\r",
    "try:\n    import tensorrt\nexcept (ImportError,\n        AttributeError) as e:\n    pass\n",
    "s = '\x0c'\nif (c or\n\x0c d):\n    pass\n",
]


def test_source_segments_equal_ast_get_source_segment():
    for text in SEGMENT_CASES:
        tree = ast.parse(text)
        refs = _Refs(text, {})
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.expr, ast.stmt))]
        assert nodes
        for n in nodes:
            assert refs._segment(n) == ast.get_source_segment(text, n), (text, ast.dump(n))
