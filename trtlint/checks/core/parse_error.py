from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related, Severity
from ..base import Rule
from ..examples.onnx import Truncated, onnx_model, onnx_node


class ParseError(Rule):
    """A file could not be parsed, or only partly: its analysis is incomplete.

    ## What it does
    Reports every file that a frontend could not read or parse: not UTF-8, binary, a syntax error, a
    libclang failure. The message says why. The rest of the run goes on without the file's facts.

    ## Why it matters
    A file trtlint cannot read is a file it cannot check: a plugin in it is invisible to every contract rule,
    so drift in it goes unreported.

    ## Example
    ```python
    def translate(x):
        return _plugins.FooPlugin(x,   # unclosed call: a syntax error
    ```

    A model that is a Git LFS pointer (the repository was cloned without `git lfs pull`) is not a broken
    file: it is reported as info, "model not fetched". Nor is a C++ file that is a code generator's template
    (`string.Template` text: `#include "$plugin_name.h"`, `class $plugin_name`, a lone `$plugin_attributes` line,
    `${NAME}`; outside comments and strings): it is not C++, is not parsed, and is reported as info, "a
    code-generator template, not C++". Files not analysed for the same reason are one finding, the others its
    related locations.

    ## Fix
    Make the file valid (or exclude it with `exclude = [...]` if it is not source code); fetch LFS models
    with `git lfs pull` before the run.
    """

    code = "TRT001"
    reads = frozenset({"files", "problems"})
    name = "parse-error"
    family = "core"
    severity = Severity.WARNING

    VALID = [{"files": {"ok.py": "x = 1\n"}}]
    LFS = (b"version https://git-lfs.github.com/spec/v1\n"
           b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
    INVALID = [
        {
            "files": {"tools/broken.py": "import tensorrt as trt\ndef f(:\n    trt.PluginField('a')\n"},
            "expect": [("tools/broken.py", 2, "could not be parsed")],
        },
        {
            "files": {"tools/latin1.py": b"# caf\xe9\nimport tensorrt as trt\n"},
            "expect": [("tools/latin1.py", 1, "not valid UTF-8")],
        },
        {
            # ONNX models: truncated, not ONNX at all (a PNG renamed), empty
            "files": {
                "models/cut.onnx": Truncated(onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))), 60),
                "models/picture.onnx": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64)),
                "models/empty.onnx": b"",
            },
            "expect": [
                ("models/cut.onnx", 1, "not a valid ONNX model (protobuf decoding failed"),
                ("models/picture.onnx", 1, "not a valid ONNX model"),
                ("models/empty.onnx", 1, "empty file, not an ONNX model"),
            ],
        },
        {
            # a Git LFS pointer in place of the model: info, not a corrupt model
            "files": {"models/big.onnx": LFS},
            "expect": [("models/big.onnx", 1, "models/big.onnx not analysed: model not fetched (a Git LFS pointer in "
                        "place of the file); run `git lfs pull` to check it")],
        },
        {
            # code-generator templates (string.Template text): not C++, said once at info level, not parse errors
            "files": {
                "gen/templates/Plugin.h": "#include <NvInfer.h>\nclass $plugin_name : public nvinfer1::IPluginV2DynamicExt {\n"
                "private:\n    $plugin_private_attributes\n};\n",
                "gen/templates/Plugin.cpp": '#include "$plugin_name.h"\nusing namespace nvinfer1;\n'
                "IPluginV2DynamicExt* $plugin_name::clone() const noexcept { return new $plugin_name(*this); }\n",
                "gen/render.py": "import string\nfrom pathlib import Path\n"
                "def render(**kw):\n    return string.Template((Path(__file__).parent / 'templates' / 'Plugin.h').read_text()).substitute(**kw)\n",
            },
            "expect": [("gen/templates/Plugin.cpp", 1, "gen/templates/Plugin.cpp not analysed: a code-generator template, "
                        "not C++ (`$name` placeholders where C++ has names: substituted by the generator before anything "
                        "compiles it) (and 1 more file like it)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        notes: dict[str, list] = {}  # message -> [(path, span)]: the files not analysed for the same reason
        for path, ff in sorted(index.files.items()):
            for p in ff.problems:
                if getattr(p, "note", False):  # deliberately not analysed, nothing wrong with the file: a note
                    notes.setdefault(p.message, []).append((path, p.span))
                    continue
                what = "could only partly be parsed" if p.partial else "could not be parsed"
                yield self.diag(p.span, f"{path} {what}: {p.message}", symbol=path)
        for message, group in notes.items():  # said once per reason: the other files are related locations
            (path, span), rest = group[0], group[1:]
            more = f" (and {len(rest)} more file{'s' if len(rest) > 1 else ''} like it)" if rest else ""
            yield self.diag(span, f"{path} not analysed: {message}{more}", symbol=path, severity=Severity.INFO,
                            related=[Related(s, f"{p} is not analysed either") for p, s in rest])
