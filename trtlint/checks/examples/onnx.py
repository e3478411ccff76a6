"""Example building blocks for ONNX models and other files built when an example is written."""

from __future__ import annotations


# ----------------------------------------------------------------------------------------------------------
# ONNX models in examples
#
# An example's files map paths to text; a path may also map to ``bytes`` (written as is) or to a zero-argument
# callable returning bytes, built when the example is written (so importing the rules never imports onnx).
# :func:`onnx_model` returns such a callable: an ONNX model built with ``onnx.helper`` from node specs made
# with :func:`onnx_node`. ``describe()`` gives the one-line summary the rule docs show instead of the binary.
# ----------------------------------------------------------------------------------------------------------


def onnx_node(op: str, domain: str = "", name: str = "", inputs: tuple[str, ...] = ("x",), **attrs) -> dict:
    """A node spec: attribute values as ``onnx.helper.make_node`` takes them (int -> INT, float -> FLOAT,
    str -> STRING, lists -> INTS/FLOATS/STRINGS), or ``("TENSOR", "INT64", (2,))`` for a zero-filled tensor."""
    return {"op": op, "domain": domain, "name": name or f"{op}_0", "inputs": tuple(inputs), "attrs": attrs}


class OnnxExample:
    """A lazily built ONNX model for a rule example (see the comment above)."""

    def __init__(self, nodes, opsets=(("", 17),), graph: str = "main_graph", functions: tuple[tuple, ...] = ()):
        self.nodes = tuple(nodes)
        self.opsets = tuple(opsets)
        self.graph = graph
        # model-local functions: (domain, name), whose body is one Identity and which imports only ("", 17), or
        # (domain, name, node, opsets): a body of one node spec (a -> b) and the function's own opset imports
        self.functions = tuple(f if len(f) == 4 else (f[0], f[1], None, (("", 17),)) for f in functions)

    def __call__(self) -> bytes:
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper

        nodes, produced, inputs = [], set(), []
        for spec in self.nodes:
            kwargs = {}
            for k, v in spec["attrs"].items():
                if isinstance(v, tuple) and v and v[0] == "TENSOR":
                    dtype = helper.tensor_dtype_to_np_dtype(getattr(TensorProto, v[1]))
                    kwargs[k] = numpy_helper.from_array(np.zeros(v[2], dtype=dtype), name=k)
                else:
                    kwargs[k] = v
            out = f"{spec['name']}_out"
            nodes.append(helper.make_node(spec["op"], list(spec["inputs"]), [out], name=spec["name"], domain=spec["domain"] or None, **kwargs))
            for i in spec["inputs"]:
                if i and i not in produced and i not in inputs:
                    inputs.append(i)
            produced.add(out)
        graph = helper.make_graph(
            nodes,
            self.graph,
            [helper.make_tensor_value_info(i, TensorProto.FLOAT, None) for i in inputs],
            [helper.make_tensor_value_info(f"{s['name']}_out", TensorProto.FLOAT, None) for s in self.nodes],
        )
        functions = [
            helper.make_function(
                dom, name, ["a"], ["b"],
                [helper.make_node("Identity", ["a"], ["b"]) if body is None else
                 helper.make_node(body["op"], ["a"], ["b"], name=body["name"], domain=body["domain"] or None, **body["attrs"])],
                [helper.make_opsetid(d, v) for d, v in fn_opsets],
            )
            for dom, name, body, fn_opsets in self.functions
        ]
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid(d, v) for d, v in self.opsets], functions=functions, producer_name="trtlint-example"
        )
        return model.SerializeToString()

    def describe(self) -> str:
        parts = []
        for s in self.nodes:
            attrs = ", ".join(f"{k}={v!r}" for k, v in s["attrs"].items())
            op = f"{s['domain']}::{s['op']}" if s["domain"] else s["op"]
            parts.append(f"node '{s['name']}': {op}({attrs})")
        ops = ", ".join(f"'{d}' {v}" for d, v in self.opsets)
        for dom, name, body, fn_opsets in self.functions:
            if body is not None:
                b_op = f"{body['domain']}::{body['op']}" if body["domain"] else body["op"]
                imports = ", ".join(f"'{d}' {v}" for d, v in fn_opsets)
                parts.append(f"model-local function {dom + '::' if dom else ''}{name} (opset imports {imports}): {b_op}")
        return f"ONNX model built with onnx.helper (graph '{self.graph}', opset imports {ops}): " + "; ".join(parts)


def onnx_model(*nodes: dict, opsets=(("", 17),), graph: str = "main_graph", functions=()) -> OnnxExample:
    return OnnxExample(nodes, opsets=opsets, graph=graph, functions=functions)


def file_bytes(content) -> "bytes | str":
    """An example file's content as written: a callable is built, bytes and text are returned as they are."""
    return content() if callable(content) else content


class Truncated:
    """The first ``keep`` bytes of another lazily built file (a model cut short, as by an interrupted copy)."""

    def __init__(self, build, keep: int):
        self.build = build
        self.keep = keep

    def __call__(self) -> bytes:
        return self.build()[: self.keep]

    def describe(self) -> str:
        inner = self.build.describe() if hasattr(self.build, "describe") else "a file"
        return f"the first {self.keep} bytes of {inner}"
