"""Code as it is written in the wild (issue 23): sources in legacy encodings, nvcc's spaced launch chevrons."""

from __future__ import annotations

from trtlint.checks.examples.hotpath import plugin_cpp
from trtlint.frontends.cpp.device import join_launch_chevrons

from .helpers import check_project, write_project


def _problems(res):
    return [f"{p.span.path}:{p.span.line}: {p.message}" for ff in res.index.files.values() for p in ff.problems]


def test_gbk_and_latin1_sources_are_read_with_byte_offsets_kept(tmp_path):
    # the allocation follows a GBK comment on its own line: its column is the file's byte column
    body = "    void* p = nullptr;\n    /* 每次调用都分配 */ cudaMalloc(&p, 16);"
    cu = plugin_cpp(body).replace("#include <vector>", '#include <vector>\nstatic char const* kNote = "caf\u00e9";')
    write_project(tmp_path, {
        "plugins/foo.cu": cu.encode("gbk").replace(b"caf\xa8\xa6", b"caf\xe9"),  # and a Latin-1 string literal
        "CMakeLists.txt": "# 中文注释\nfile(GLOB SRCS plugins/*.cu)\nadd_library(foo SHARED ${SRCS})\n".encode("gbk"),
        "tools/gbk_tool.py": "# -*- coding: gbk -*-\n# 中文\nimport tensorrt as trt\n".encode("gbk"),
    })
    res = check_project(tmp_path, select=["TRT001", "TRT301"])
    assert _problems(res) == []
    assert [d.code for d in res.diagnostics] == ["TRT301"]
    d = res.diagnostics[0]
    line = cu.encode("gbk").splitlines()[d.span.line - 1]
    assert (d.span.path, d.span.line) == ("plugins/foo.cu", 17)
    assert line[d.span.col - 1:].startswith(b"cudaMalloc")


def test_python_without_a_cookie_is_still_not_utf8(tmp_path):
    write_project(tmp_path, {"tools/latin1.py": b"# caf\xe9\nimport tensorrt as trt\n"})
    res = check_project(tmp_path, select=["TRT001"])
    assert [d.message for d in res.diagnostics if d.code == "TRT001"] != []


def test_spaced_chevrons_are_joined_in_place():
    cases = {
        "k << <g, b, 0, s >> > (x);": "k <<< g, b, 0, s >>>  (x);",
        "RoIAlignForward<< <b, t, 0, stream>> > (\n  a);": "RoIAlignForward<<< b, t, 0, stream>>>  (\n  a);",
        "f<T> << <\n  g, b >> >\n(x);": "f<T> <<< \n  g, b >>> \n(x);",
    }
    for before, after in cases.items():
        assert join_launch_chevrons(before) == after
    # no launch: shifts, comparisons and already-joined launches are left as they are
    for same in ("k<<<g, b>>>(x);", "a << < b;", "cout << x << endl; y >> z;", "a << <b> (c);"):
        assert join_launch_chevrons(same) == same


def test_spaced_launch_in_a_plugin_is_seen(tmp_path):
    helpers = "__global__ void scaleKernel(float* x)\n{\n}"
    write_project(tmp_path, {"plugins/foo.cu": plugin_cpp("    scaleKernel << <1, 256 >> >\n        (static_cast<float*>(outputs[0]));", helpers)})
    res = check_project(tmp_path, select=["TRT001", "TRT303"])
    assert _problems(res) == []
    assert [(d.code, d.span.line) for d in res.diagnostics] == [("TRT303", 17)]
