"""The ONNX Runtime custom ops a project defines (re-exported by :mod:`trtlint.base.facts`; their own module to keep
that one short): the C++ frontend records them (frontends/cpp/decls.py), the index holds them, and TRT101 reads a node
of such an op as another runtime's, not as a misspelt plugin name. The conventions of :mod:`trtlint.base.facts` hold."""

from __future__ import annotations

from dataclasses import dataclass

from trtlint.base.span import Span


@dataclass(frozen=True)
class OrtCustomOp:
    """An ONNX Runtime custom op the project defines: a class deriving ``Ort::CustomOpBase<Self, Kernel>`` (any
    namespace spelling, the base as written: ONNX Runtime's headers are seldom there) whose ``GetName()`` returns a
    string constant, the op type ONNX Runtime runs it for. A node of that op type is implemented by that runtime."""

    qualname: str
    name: str  # the class
    op_name: str  # what GetName() returns
    span: Span  # the class's name
    name_span: Span  # the returned string
