"""What the Python frontend knows of a value's numpy dtype beyond a numpy call (:mod:`.torchtrt`'s PluginField data):
a torch tensor converted before ``.numpy()``, and the bindings of a local name in its function."""

from __future__ import annotations

from typing import Optional

import libcst as cst

# a torch tensor's conversion before ``.numpy()``: the numpy array's dtype
_TORCH_CONVERSIONS = {"float": "float32", "half": "float16", "double": "float64", "int": "int32", "long": "int64",
                      "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool"}
_TORCH_KEEPS = frozenset({"cpu", "detach", "contiguous", "clone", "cuda"})  # (calls that keep the dtype)


def torch_numpy_dtype(node) -> Optional[str]:
    """The dtype of ``<tensor>.<conversion>().numpy()`` (``.float()``, ``.half()``..., with ``.cpu()``/``.detach()``
    on either side of it); None for anything else."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy"
            and not node.args):
        return None
    cur = node.func.value
    while isinstance(cur, cst.Call) and isinstance(cur.func, cst.Attribute) and not cur.args:
        name = cur.func.attr.value
        if name in _TORCH_CONVERSIONS:
            return _TORCH_CONVERSIONS[name]
        if name not in _TORCH_KEEPS:
            return None
        cur = cur.func.value
    return None


class Bindings(cst.CSTVisitor):
    """Every binding of one name in a function body (or a module's top level), not entering nested scopes: the
    values of plain assignments (``x = v``, ``x: T = v``), and whether any other binding (a tuple target, ``for``,
    ``with ... as``, ``+=``, ``global``, an import, a parameter) makes the value unknown."""

    def __init__(self, name: str) -> None:
        self.name, self.values, self.other = name, [], False

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name) and t.target.value == self.name:
                self.values.append(node.value)
            elif names_in(t.target, self.name):
                self.other = True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            if node.value is not None:
                self.values.append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.other = self.other or names_in(node.target, self.name)

    def visit_For(self, node: cst.For) -> None:
        self.other = self.other or names_in(node.target, self.name)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self.other = self.other or (node.asname is not None and names_in(node.asname.name, self.name))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.other = self.other or names_in(node.target, self.name)

    def visit_Global(self, node) -> None:
        self.other = self.other or any(n.name.value == self.name for n in node.names)

    def visit_Nonlocal(self, node) -> None:
        self.other = self.other or any(n.name.value == self.name for n in node.names)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname is not None else node.name
        self.other = self.other or (isinstance(bound, cst.Name) and bound.value == self.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self.other = self.other or (node.name is not None and names_in(node.name.name, self.name))


def names_in(target, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(names_in(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return names_in(target.value, name)
    return False
