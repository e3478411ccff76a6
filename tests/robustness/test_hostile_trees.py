"""Hostile trees: links, loops, oversize and badly encoded files, deep nesting, malformed configs, ONNX
external data outside the root. The run always finishes, says what it skipped, and prints no traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import FifoWatch, at, check_json

PLUGIN = """
class FooPlugin : public nvinfer1::IPluginV3 {
};
"""


def _tree(root: Path, files: dict) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content if isinstance(content, bytes) else content.encode())


def test_symlink_loops_and_links_outside_the_root_are_said_not_followed(tmp_path):
    root, outside = tmp_path / "proj", tmp_path / "outside"
    _tree(root, {"src/a.cpp": "int a() { return 1; }\n"})
    _tree(outside, {"secret.py": "import os\n"})
    (root / "src" / "loop").symlink_to("..", target_is_directory=True)  # src/loop -> proj
    (root / "self.h").symlink_to("self.h")  # a link to itself
    (root / "leak.py").symlink_to(outside / "secret.py")
    (root / "leakdir").symlink_to(outside, target_is_directory=True)
    rc, diags, _ = check_json(root, timeout=60)
    assert rc in (0, 1)
    assert at(diags, "src/loop") == ["skipped: symbolic link to '..', a loop (not followed)"]
    assert at(diags, "self.h") == ["skipped: symbolic link to 'self.h', a loop (not followed)"]
    assert at(diags, "leak.py") == [f"skipped: symbolic link to '{outside / 'secret.py'}', outside the project root (not followed)"]
    assert at(diags, "leakdir") == [f"skipped: symbolic link to '{outside}', outside the project root (not followed)"]
    assert all(d["severity"] == "info" for d in diags if "symbolic link" in d["message"])
    assert not [d for d in diags if d["location"]["path"].startswith(("leakdir/", "src/loop/"))]


def test_oversize_file_is_skipped_with_trt001_and_the_limit_is_configurable(tmp_path):
    _tree(tmp_path, {"big.py": "x = 1\n" * 5000, "small.py": "y = 2\n", "trtlint.toml": "max-file-size = 10000\n"})
    _, diags, _ = check_json(tmp_path)
    assert at(diags, "big.py") == ["skipped: file is 30000 bytes, over the 10000-byte limit"]
    assert at(diags, "small.py") == []
    (tmp_path / "trtlint.toml").write_text("max-file-size = 100000\n")
    _, diags, _ = check_json(tmp_path)
    assert at(diags, "big.py") == []


def test_non_utf8_and_mixed_encodings_are_read_or_trt001_and_the_run_goes_on(tmp_path):
    _tree(
        tmp_path,
        {
            "latin1.cpp": ("// caf\xe9\n" + PLUGIN).encode("latin-1"),
            "mixed.py": "s = 'ok \u00e9'\n".encode() + b"t = '\xff\xfe'\n",
            "utf16.h": PLUGIN.encode("utf-16"),
            "nul.py": b"import os\n\x00\x00x = 1\n",
            "bom.py": b"\xef\xbb\xbfx = 1\n",
            "plugins/FooPlugin.h": PLUGIN,
        },
    )
    rc, diags, _ = check_json(tmp_path)
    assert rc in (0, 1)
    # C++ in a legacy encoding is read (a Latin-1 comment: nvcc takes it); Python without a coding cookie is not
    assert at(diags, "latin1.cpp") == []
    assert at(diags, "mixed.py") == ["mixed.py could not be parsed: not valid UTF-8 (byte 0xff at offset 17)"]
    # UTF-16 text shows no plugin marker to the byte scan: the header is not parsed, and so not reported
    assert at(diags, "utf16.h") == []
    assert at(diags, "nul.py") == ["nul.py could not be parsed: binary file (contains NUL bytes)"]
    assert at(diags, "bom.py") == []  # a UTF-8 byte-order mark is fine


@pytest.mark.parametrize(
    "rel,text",
    [
        ("deep.py", "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"),
        ("deep2.py", "".join("    " * i + "if x:\n" for i in range(120)) + "    " * 120 + "pass\n"),
        ("deep.cpp", "int f() { " + "{" * 4000 + "}" * 4000 + " return 0; }\n"),
        ("deep.h", "int v = " + "(" * 5000 + "1" + ")" * 5000 + ";\n"),
        ("CMakeLists.txt", "add_library(foo " + "$<" * 3000 + "x" + ">" * 3000 + ")\n" + "if(A)\n" * 2000),
        ("tests.yml", "tests:\n  - " + "[" * 3000 + "]" * 3000 + "\n"),
    ],
)
def test_deep_nesting_does_not_crash_the_run(tmp_path, rel, text):
    _tree(tmp_path, {rel: text, "plugins/FooPlugin.h": PLUGIN})
    rc, diags, err = check_json(tmp_path, timeout=120)
    assert rc in (0, 1), err
    assert not [d for d in diags if "internal error" in d["message"]], diags


def test_malformed_config_is_exit_2_naming_file_line_and_key(tmp_path):
    _tree(tmp_path, {"a.py": "x = 1\n", "trtlint.toml": 'select = ["ALL"]\n\nmax-file-size = "big"\n'})
    rc, _, err = check_json(tmp_path)
    assert rc == 2
    assert f"{tmp_path / 'trtlint.toml'}:3: 'max-file-size' must be a non-negative integer" in err
    (tmp_path / "trtlint.toml").write_text('select = ["ALL"]\n[test-lists]\nfiles = ["t.yml"]\nselectr = "nodeid"\n')
    rc, _, err = check_json(tmp_path)
    assert rc == 2 and f"{tmp_path / 'trtlint.toml'}:4: unknown setting 'test-lists.selectr'; did you mean 'test-lists.selector'?" in err
    (tmp_path / "trtlint.toml").write_text('select = ["ALL"\nignore = 3\n')
    rc, _, err = check_json(tmp_path)
    assert rc == 2 and "trtlint.toml: invalid TOML" in err and "line 2" in err
    (tmp_path / "trtlint.toml").write_bytes(b'select = ["ALL"]\nignore = ["\xff"]\n')
    rc, _, err = check_json(tmp_path)
    assert rc == 2 and f"{tmp_path / 'trtlint.toml'}:2: invalid TOML: not valid UTF-8" in err


def test_malformed_test_list_is_trt001_at_its_line_and_the_run_goes_on(tmp_path):
    _tree(tmp_path, {"tests/list.yml": "tests:\n  - test_a.py::test_x\n  - [unclosed\n", "plugins/FooPlugin.h": PLUGIN})
    rc, diags, _ = check_json(tmp_path)
    assert rc in (0, 1)
    msgs = [(d["message"], d["location"]["line"]) for d in diags if d["location"]["path"] == "tests/list.yml"]
    assert msgs == [("tests/list.yml could not be parsed: invalid YAML in a test list: did not find expected ',' or ']'", 4)]


def test_onnx_external_data_outside_the_root_is_never_read(tmp_path):
    """The tensor's data is a FIFO outside the root: opening it for reading would block, so a run that
    finishes (within the timeout) never opened it."""
    from onnx import TensorProto, helper

    root = tmp_path / "proj"
    root.mkdir()
    fifo = tmp_path / "weights.bin"
    os.mkfifo(fifo)
    t = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../weights.bin"), ("offset", "0"), ("length", "16")):
        e = t.external_data.add()
        e.key, e.value = k, v
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        initializer=[t],
    )
    (root / "model.onnx").write_bytes(helper.make_model(graph).SerializeToString())
    watch = FifoWatch(fifo)
    rc, diags, err = check_json(root, timeout=60)
    assert rc in (0, 1), err
    assert at(diags, "model.onnx") == [
        "model.onnx could only partly be parsed: external tensor data outside the project root is never read: ../weights.bin"
    ]
    assert not watch.opened_by_run()


def test_cpp_includes_of_devices_and_fifos_are_never_opened(tmp_path):
    """``#include`` of /dev/zero (endless), /proc/self/fd/0 (the process's stdin: in the LSP server the
    JSON-RPC stream) or a FIFO (blocks) is blanked before libclang sees it, and said."""
    os.mkfifo(tmp_path / "pipe.h")
    _tree(tmp_path, {
        "FooPlugin.cpp": '#include "/dev/zero"\n#include "../../../../../../../../../../proc/self/fd/0"\n#include "pipe.h"\n'
                         '#include <vector>\n' + PLUGIN,
    })
    rc, diags, err = check_json(tmp_path, timeout=60)
    assert rc in (0, 1), err
    assert at(diags, "FooPlugin.cpp") == [
        'FooPlugin.cpp could only partly be parsed: #include "/dev/zero" names a device or special file; not read',
        'FooPlugin.cpp could only partly be parsed: #include "../../../../../../../../../../proc/self/fd/0" names a device or special file; not read',
        'FooPlugin.cpp could only partly be parsed: #include "pipe.h" names a device or special file; not read',
    ]
    assert at(diags, "pipe.h") == ["skipped: not a regular file (a FIFO, socket or device); not read"]


def test_devices_and_fifos_included_by_a_pulled_in_header_are_never_opened(tmp_path):
    """The unit's own includes are clean, but a project header it includes (directly, through another header,
    or found through an include dir) includes /dev/zero (libclang would read it without end) or a FIFO in
    the tree (it would block): the header is handed to libclang with that directive blanked, and the unit
    says which header and line."""
    (tmp_path / "inc" / "deep").mkdir(parents=True)
    os.mkfifo(tmp_path / "inc" / "pipe.h")
    _tree(tmp_path, {
        "trtlint.toml": 'include-dirs = ["inc"]\n',
        "inc/a.h": '#pragma once\n#include "deep/c.h"\nint a();\n',
        "inc/deep/c.h": '#pragma once\n\n#include "/dev/zero"\nint c();\n',
        "inc/b.h": '#pragma once\n#include "pipe.h"\nint b();\n',
        "FooPlugin.cpp": '#include "inc/a.h"\n' + PLUGIN + "int f() { return a() + c(); }\n",
        "BarPlugin.cpp": "// bar\n#include <b.h>\n" + PLUGIN.replace("Foo", "Bar"),
    })
    rc, diags, err = check_json(tmp_path, timeout=90)
    assert rc in (0, 1), err
    assert at(diags, "FooPlugin.cpp") == [
        'FooPlugin.cpp could only partly be parsed: #include "/dev/zero" in inc/deep/c.h:3 names a device or special file; not read',
    ]
    assert at(diags, "BarPlugin.cpp") == [
        'BarPlugin.cpp could only partly be parsed: #include "pipe.h" in inc/b.h:2 names a device or special file; not read',
    ]
    # each said at the unit's line that pulls the header in
    lines = {d["location"]["path"]: d["location"]["line"] for d in diags if "in inc/" in d["message"]}
    assert lines == {"FooPlugin.cpp": 1, "BarPlugin.cpp": 2}
