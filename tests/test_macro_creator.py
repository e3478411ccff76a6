"""Issues 22/23 (a project's own plugin macros): the plugin file writes only ``DECLARE_LAYER(X)`` in its class and
``EXPORT_LAYER(X)`` after it; the macros, defined in a project header, give the plugin its type (``#kind``) and
write the creator class with its REGISTER_TENSORRT_PLUGIN. The plugin file holds no plugin marker of its own
(no IPluginV*, no getPluginName), so the text pre-filter must learn the project's marker macros, and the
registration inside the expansion (no cursor of its own in libclang) must still count (real libclang)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .helpers import check_project

FIXTURE = Path(__file__).parent / "fixtures" / "macro_creator"


def test_macro_written_plugins_and_creators_are_indexed_at_the_macro_use():
    res = check_project(FIXTURE)
    idx = res.index
    plugins = sorted((p.qualname, p.plugin_name, p.plugin_version, p.cls.span.path, p.cls.span.line)
                     for p in idx.plugins)
    assert plugins == [("ScaleLayer", "ScaleLayer", "1", "plugins/scale_layer.cu", 7),
                       ("ShiftLayer", "ShiftLayer", "1", "plugins/shift_layer.cu", 7)], plugins
    creators = sorted((c.qualname, c.plugin_name, c.plugin_version, c.cls.span.path, c.cls.span.line,
                       [(r.span.path, r.span.line) for r in c.registrations]) for c in idx.creators)
    # the creator class and its registration are both at the line the user wrote: EXPORT_LAYER(...)
    assert creators == [
        ("ScaleLayerFactory", "ScaleLayer", "1", "plugins/scale_layer.cu", 20, [("plugins/scale_layer.cu", 20)]),
        ("ShiftLayerFactory", "ShiftLayer", "1", "plugins/shift_layer.cu", 22, [("plugins/shift_layer.cu", 22)]),
    ], creators


def test_hot_path_of_a_macro_written_plugin_is_walked_and_its_creators_count_as_registered():
    res = check_project(FIXTURE, select=["TRT211", "TRT301"])
    got = [(d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics]
    assert [(c, p, ln) for c, p, ln, _ in got] == [("TRT301", "plugins/shift_layer.cu", 16)], got
    assert got[0][3].endswith("ShiftLayer::enqueue -> cudaMalloc"), got


def test_a_project_registrar_of_the_same_name_is_not_a_registration_under_the_empty_namespace(tmp_path):
    """A project macro that declares a variable of the project's own ``PluginRegistrar`` class (it may register
    under a namespace of its choosing, e.g. ``registerCreator(c, "mylib")``) is not TensorRT's registration."""
    shutil.copytree(FIXTURE, tmp_path / "p")
    (tmp_path / "p" / "include" / "own_registrar.hpp").write_text(
        "#pragma once\n#include <NvInfer.h>\n"
        "namespace mylib {\n"
        "template <typename T> class PluginRegistrar {\n"
        "public:\n"
        '    PluginRegistrar() { getPluginRegistry()->registerCreator(instance, "mylib"); }\n'
        "private:\n    T instance{};\n};\n}\n"
        "#define MYLIB_EXPORT(name) static mylib::PluginRegistrar<name> pluginRegistrar##name {}\n"
    )
    shift = tmp_path / "p" / "plugins" / "shift_layer.cu"
    shift.write_text(shift.read_text().replace("EXPORT_LAYER(ShiftLayer)", "MYLIB_EXPORT(ShiftLayerMaker);").replace(
        '#include "../include/layer_base.hpp"\n',
        '#include "../include/layer_base.hpp"\n#include "../include/own_registrar.hpp"\n'
        "class ShiftLayerMaker : public nvinfer1::IPluginCreator {};\n"))
    res = check_project(tmp_path / "p")
    regs = sorted((c.qualname, [(r.span.path, r.span.line) for r in c.registrations]) for c in res.index.creators)
    assert ("ScaleLayerFactory", [("plugins/scale_layer.cu", 20)]) in regs, regs
    assert ("ShiftLayerMaker", []) in regs, regs
