from __future__ import annotations

import ast
import math
import re
from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.contract import default_drift_bool_files, default_drift_files
from ._creators import creator_defaults

def literal(text: Optional[str]):
    """A default's value when it is a plain literal (Python or C++ spelling), else None (not comparable)."""
    if text is None:
        return None
    t = text.strip()
    if t in ("true", "True"):
        return 1.0
    if t in ("false", "False"):
        return 0.0
    t = re.sub(r"^static_cast<[^>]*>\((.*)\)$", r"\1", t)
    m = re.fullmatch(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?:[fFlLuU]*)", t.replace("'", ""))
    if m:
        try:
            return float(m.group(1))
        except ValueError:
            return None
    if t.startswith(('"', "'")):
        try:
            v = ast.literal_eval(t)
            return v if isinstance(v, str) else None
        except (ValueError, SyntaxError):
            return None
    return None


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=0.0) or a == b
    return a == b


class DefaultValueDrift(Rule):
    """An optional attribute whose default differs between the PyTorch stub, the translation and the creator.

    ## What it does
    Follows each PyTorch custom op (`@torch.library.custom_op("ns::op")`, or a `define` schema string
    `"(Tensor x, int k=4) -> Tensor"`) through the exporter's translation table
    (`{torch.ops.ns.op.default: _op_translation}`) to its onnxscript translation function (and the module
    functions it forwards to), to the plugin node it emits, to the C++ creator that reads the attribute.
    For each parameter it compares the literal defaults it finds:
    - the stub's default with the translation's (a stub default `None` means "absent" and is not compared);
    - the translation's default with the creator's fallback for the field:
      `parse("f", fc).value_or(d)`, a local `v` later read with `v.value_or(d)`, or the initializer of the
      local or member a compare-in-a-loop creator stores the field in.

    ## Why it matters
    `torch.export` drops a keyword argument equal to its default, so the translation runs with its own
    default; an export post-pass or a route that leaves the attribute out makes the creator use its own.
    When the three disagree, a model that relies on "the default" gets a different value depending on how
    it was exported, with no error anywhere. A stub default without a translation default fails the
    export of every model that relies on it.

    ## Example
    ```python
    @torch.library.custom_op("trt_edgellm::foo", mutates_args=())
    def foo(x: torch.Tensor, alpha: float = 1.0) -> torch.Tensor: ...
    def _foo_translation(x, alpha: float = 0.5):          # differs from the stub
        return _trt_edgellm.FooPlugin(x, alpha=alpha)
    ```

    ## Fix
    Use one default in all three places (or make the argument required in the stub).
    """

    code = "TRT106"
    reads = frozenset({"classes", "emissions", "files", "fn_contracts", "functions", "lookups", "models",
                        "plugin_specs", "py_creators", "py_functions", "registrations", "route_calls",
                        "route_tables", "torch_stubs", "translation_entries", "unresolved_classes"})
    name = "default-value-drift"
    family = "contract"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {"files": default_drift_files("1.0", "1.0", "1.F")},
        {
            # the stub's None means "absent": not compared with the translation's encoding of absent
            "files": default_drift_files("None", "1.0", "1.0f"),
        },
        # a flag: Python's True/False are C++'s true/false and 1/0
        {"files": default_drift_bool_files("True", "True", "true")},
        {"files": default_drift_bool_files("False", "False", "0")},
    ]
    INVALID = [
        {
            "files": default_drift_files("1.0", "0.5", "0.5F"),
            "expect": [
                ("tensorrt_edgellm/onnx/translations.py", 9, "default of 'alpha' drifts: translation _foo_translation has 0.5, the PyTorch stub trt_edgellm::foo has 1.0"),
            ],
        },
        {
            "files": default_drift_files("1.0", "1.0", "2.F"),
            "expect": [
                ("tensorrt_edgellm/onnx/translations.py", 9, "default of 'alpha' drifts: translation _foo_translation has 1.0, but creator FooPluginCreator falls back to 2.F for field 'alpha'"),
            ],
        },
        {
            # a flag on in Python, off in C++
            "files": default_drift_bool_files("True", "True", "false"),
            "expect": [
                ("tensorrt_edgellm/onnx/translations.py", 9, "default of 'causal' drifts: translation _foo_translation has True, but creator FooPluginCreator falls back to false for field 'causal' when the attribute is absent"),
            ],
        },
        {
            "files": default_drift_bool_files("True", "True", "0"),
            "expect": [
                ("tensorrt_edgellm/onnx/translations.py", 9, "default of 'causal' drifts: translation _foo_translation has True, but creator FooPluginCreator falls back to 0 for field 'causal' when the attribute is absent"),
            ],
        },
        {
            # the stub and the translation disagree; the creator's 0 agrees with the translation's False
            "files": default_drift_bool_files("True", "False", "0"),
            "expect": [
                ("tensorrt_edgellm/onnx/translations.py", 9, "default of 'causal' drifts: translation _foo_translation has False, the PyTorch stub trt_edgellm::foo has True: torch.export drops the argument when it equals the stub's default, so the exported node carries False"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        stubs: dict[str, object] = {}
        entries = []
        fns: dict[tuple[str, str], object] = {}
        fns_by_name: dict[str, list] = {}
        for ff in index.files.values():
            for s in getattr(ff, "torch_stubs", ()):
                stubs.setdefault(s.op, s)
            entries.extend(getattr(ff, "translation_entries", ()))
            for f in getattr(ff, "py_functions", ()):
                fns[(ff.path, f.name)] = f
                fns_by_name.setdefault(f.name, []).append(f)
        if not stubs and not entries:
            return
        # emissions per (path, function)
        emissions: dict[tuple[str, str], list] = {}
        for e in index.onnx_routes():
            if e.function:
                emissions.setdefault((e.span.path, e.function), []).append(e)
        reported = set()
        for ent in entries:
            fn = fns.get((ent.span.path, ent.function))
            if fn is None:
                cands = fns_by_name.get(ent.function, [])
                fn = cands[0] if len(cands) == 1 else None
            if fn is None:
                continue
            stub = stubs.get(ent.op)
            # stub <-> translation
            if stub is not None:
                for sp in stub.params:
                    tp = _aligned(stub.params, fn.params, sp)
                    if tp is None or sp.default is None or sp.default.strip() == "None":
                        continue
                    key = ("st", tp.span)
                    if tp.default is None:
                        if key in reported:
                            continue
                        reported.add(key)
                        yield self.diag(
                            tp.span,
                            f"default of '{sp.name}' drifts: the PyTorch stub {stub.op} has {sp.default}, but translation "
                            f"{fn.name} has no default for '{tp.name}': torch.export drops the argument when it equals "
                            "the stub's default, and the translation then fails",
                            related=[Related(sp.span, f"stub {stub.op}: {sp.name} = {sp.default}"), Related(ent.span, "translation table entry")],
                            symbol=f"{ent.op}.{sp.name}",
                        )
                        continue
                    a, b = literal(sp.default), literal(tp.default)
                    if a is None or b is None or same(a, b) or key in reported:
                        continue
                    reported.add(key)
                    yield self.diag(
                        tp.span,
                        f"default of '{tp.name}' drifts: translation {fn.name} has {tp.default}, the PyTorch stub {stub.op} "
                        f"has {sp.default}: torch.export drops the argument when it equals the stub's default, so the "
                        f"exported node carries {tp.default}",
                        related=[Related(sp.span, f"stub {stub.op}: {sp.name} = {sp.default}"), Related(ent.span, "translation table entry")],
                        symbol=f"{ent.op}.{sp.name}",
                    )
            # translation (else stub) <-> creator
            for tp, attr, emission in _emitted(fn, fns, fns_by_name, emissions):
                # the translation's default is what an exported node carries when the argument was dropped (a
                # stub default the translation lacks is reported above)
                py_default, who, where = tp.default, f"translation {fn.name}" if tp in fn.params else f"translation {_owner(tp, fns)}", tp.span
                a = literal(py_default)
                if a is None:
                    continue
                for c in index.creators_named(emission.op_type):
                    d = creator_defaults(index, c).get(attr)
                    if d is None:
                        continue
                    b = literal(d.default)
                    if b is None or same(a, b):
                        continue
                    key = ("cpp", where, d.span)
                    if key in reported:
                        continue
                    reported.add(key)
                    yield self.diag(
                        where,
                        f"default of '{tp.name}' drifts: {who} has {py_default}, but creator {c.cls.name} falls back to "
                        f"{d.default} for field '{attr}' when the attribute is absent",
                        related=[Related(d.span, f"{c.cls.name} falls back to {d.default} here ({d.how})"), Related(emission.span, f"emitted as attribute '{attr}' here")],
                        symbol=f"{emission.op_type}.{attr}",
                    )


def _aligned(stub_params, fn_params, sp):
    """The translation parameter a stub parameter arrives in: by name, else by position."""
    for p in fn_params:
        if p.name == sp.name:
            return p
    names = {p.name for p in fn_params}
    if sp.name in names:
        return None
    i = list(stub_params).index(sp)
    return fn_params[i] if i < len(fn_params) else None


def _owner(param, fns) -> str:
    for f in fns.values():
        if param in f.params:
            return f.name
    return "?"


def _emitted(fn, fns, fns_by_name, emissions, depth: int = 0):
    """(parameter of ``fn``, attribute name, emission) for each plugin attribute whose value is a parameter,
    following the functions ``fn`` forwards its parameters to (two calls deep)."""
    by_name = {p.name: p for p in fn.params}
    for e in emissions.get((fn.span.path, fn.name), ()):
        for a in e.attrs:
            if a.value in by_name:
                yield by_name[a.value], a.name, e
    if depth >= 2:
        return
    for callee, mapping in fn.forwards:
        g = fns.get((fn.span.path, callee))
        if g is None:
            continue
        passed = {cp: arg for cp, arg in mapping}
        for gp, attr, e in _emitted(g, fns, fns_by_name, emissions, depth + 1):
            arg = passed.get(gp.name)
            if arg is not None and arg in by_name:
                p = by_name[arg]
                # the caller's default wins when it has one; else the callee's
                yield (p if p.default is not None or gp.default is None else gp), attr, e
            elif arg is None:
                yield gp, attr, e  # not passed: the callee's default applies
