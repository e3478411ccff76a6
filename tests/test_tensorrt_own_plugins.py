"""Issue 32's acceptance on a project that only uses TensorRT's own plugins (libnvinfer_plugin), through graph
surgery and the Python plugin API: a misspelt op, a misspelt or mistyped attribute, a wrong plugin_version and a
renamed trt.PluginField are each a finding; the consistent code gives none."""

from __future__ import annotations

from .helpers import check_project, write_project

GOOD = '''import numpy as np
import onnx_graphsurgeon as gs
import tensorrt as trt

NMS = {"plugin_version": "1", "background_class": -1, "max_output_boxes": 100, "score_threshold": 0.25,
       "iou_threshold": 0.45, "score_activation": False, "box_coding": 0}


def add_nms(graph, boxes, scores, outs):
    graph.layer(op="EfficientNMS_TRT", inputs=[boxes, scores], outputs=outs, attrs=NMS)


def nms_node(boxes, scores, outs):
    return gs.Node(op="EfficientNMS_TRT", inputs=[boxes, scores], outputs=outs,
                   attrs={"plugin_version": "1", "background_class": -1, "max_output_boxes": 100,
                          "score_threshold": 0.25, "iou_threshold": 0.45, "score_activation": False, "box_coding": 0})


def make_plugin():
    creator = trt.get_plugin_registry().get_creator("EfficientNMS_TRT", "1", "")
    fields = [
        trt.PluginField("score_threshold", np.array([0.25], dtype=np.float32), trt.PluginFieldType.FLOAT32),
        trt.PluginField("iou_threshold", np.array([0.45], dtype=np.float32), trt.PluginFieldType.FLOAT32),
        trt.PluginField("max_output_boxes", np.array([100], dtype=np.int32), trt.PluginFieldType.INT32),
        trt.PluginField("background_class", np.array([-1], dtype=np.int32), trt.PluginFieldType.INT32),
        trt.PluginField("score_activation", np.array([0], dtype=np.int32), trt.PluginFieldType.INT32),
        trt.PluginField("box_coding", np.array([0], dtype=np.int32), trt.PluginFieldType.INT32),
    ]
    return creator.create_plugin("nms", trt.PluginFieldCollection(fields))
'''

DEFECTS = {
    "misspelt op": ('graph.layer(op="EfficientNMS_TRT"', 'graph.layer(op="EfficientNMS_TRTX"', "TRT101"),
    "misspelt attribute": ('"score_threshold": 0.25, "iou_threshold": 0.45, "score_activation"',
                           '"score_treshold": 0.25, "iou_threshold": 0.45, "score_activation"', "TRT103"),
    "mistyped attribute": ('attrs={"plugin_version": "1", "background_class": -1, "max_output_boxes": 100,',
                           'attrs={"plugin_version": "1", "background_class": -1, "max_output_boxes": 0.5,', "TRT105"),
    "wrong plugin_version": ('NMS = {"plugin_version": "1"', 'NMS = {"plugin_version": "2"', "TRT102"),
    "renamed PluginField": ('trt.PluginField("box_coding"', 'trt.PluginField("box_code"', "TRT103"),
}


def _codes(tmp_path, text):
    write_project(tmp_path, {"requirements.txt": "tensorrt==10.8.0\n", "deploy/nms.py": text})
    return sorted({d.code for d in check_project(tmp_path).diagnostics})


def test_consistent_code_using_tensorrt_plugins_gives_nothing(tmp_path):
    assert _codes(tmp_path, GOOD) == []


def test_each_defect_on_tensorrt_plugins_is_a_finding(tmp_path):
    for i, (what, (old, new, code)) in enumerate(DEFECTS.items()):
        assert GOOD.count(old) == 1, what
        got = _codes(tmp_path / str(i), GOOD.replace(old, new))
        assert code in got, (what, got)
