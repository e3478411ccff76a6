"""TRT610 groups a file's uses of APIs the same release removed (or deprecated) into one finding: every use stays
reachable as a related location (issue 31: a TensorRT 8 script gave one finding per API, all saying the same)."""

from __future__ import annotations

from trtlint.config.settings import load_settings
from trtlint.pipeline.run import run

_SCRIPT = """import tensorrt as trt
layer = network.add_rnn_v2(x, 1, 5, 4, trt.RNNOperation.RELU)
n = engine.num_bindings
b = engine.binding_is_input(0)
c = engine.binding_is_input(1)
names = trt.get_plugin_registry().plugin_creator_list
"""


def test_one_finding_per_file_and_verdict_with_every_use_related(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorrt==10.0.1\n")
    (tmp_path / "old.py").write_text(_SCRIPT)
    settings = load_settings(tmp_path)
    settings.select = ["TRT610"]
    res = run(settings, jobs=1, use_cache=False)
    got = sorted(res.diagnostics, key=lambda d: d.span.line)
    # removed in 10.0 (add_rnn_v2, num_bindings, binding_is_input x2): one error; deprecated in 10.0: one warning
    assert [(d.span.line, d.severity.value) for d in got] == [(2, "error"), (6, "warning")]
    err = got[0]
    assert err.message.startswith("add_rnn_v2 was removed in TensorRT 10.0")
    assert "Also removed in TensorRT 10.0 in this file: num_bindings, binding_is_input (related locations)" in err.message
    assert sorted((r.span.line, r.message) for r in err.related) == [
        (3, "num_bindings was removed in TensorRT 10.0; use num_io_tensors"),
        (4, "binding_is_input was removed in TensorRT 10.0; use get_tensor_mode(name) == trt.TensorIOMode.INPUT"),
        (5, "binding_is_input is also used here"),
    ]
    assert "plugin_creator_list is deprecated since TensorRT 10.0" in got[1].message and not got[1].related
