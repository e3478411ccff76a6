"""TRT610 groups a file's uses of APIs the same release removed (or deprecated) into one finding: every use stays
reachable as a related location (issue 31: a TensorRT 8 script gave one finding per API, all saying the same); in a
file with a removed API, the deprecated ones join that finding (the re-triage of an archive of TensorRT 8 scripts
found a deprecation warning beside each file's removal error, both saying the file is code for an older release)."""

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
    # removed in 10.0 (add_rnn_v2, num_bindings, binding_is_input x2): one error; the API the file uses that 10.0 only
    # deprecated is part of the same port: named in that finding, a related location, no warning of its own
    assert [(d.span.line, d.severity.value) for d in got] == [(2, "error")]
    err = got[0]
    assert err.message.startswith("add_rnn_v2 was removed in TensorRT 10.0")
    assert "Also removed in TensorRT 10.0 in this file: num_bindings, binding_is_input (related locations)" in err.message
    assert err.message.endswith("Deprecated in this file too: plugin_creator_list (since TensorRT 10.0) (related locations)")
    assert sorted((r.span.line, r.message) for r in err.related) == [
        (3, "num_bindings was removed in TensorRT 10.0; use num_io_tensors"),
        (4, "binding_is_input was removed in TensorRT 10.0; use get_tensor_mode(name) == trt.TensorIOMode.INPUT"),
        (5, "binding_is_input is also used here"),
        (6, "plugin_creator_list is deprecated since TensorRT 10.0; use registry.all_creators"),
    ]


def test_deprecated_uses_alone_are_their_own_finding(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorrt==10.0.1\n")
    (tmp_path / "new.py").write_text("import tensorrt as trt\nnames = trt.get_plugin_registry().plugin_creator_list\n")
    settings = load_settings(tmp_path)
    settings.select = ["TRT610"]
    got = run(settings, jobs=1, use_cache=False).diagnostics
    assert [(d.span.line, d.severity.value) for d in got] == [(2, "warning")]
    assert "plugin_creator_list is deprecated since TensorRT 10.0" in got[0].message and not got[0].related
