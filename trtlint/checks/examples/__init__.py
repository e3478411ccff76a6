"""Building blocks for the rules' VALID/INVALID example projects (data, not checks), one module per family:
:mod:`.contract` (a creator, translations, a backend, a plugin and creator pair), :mod:`.onnx` (ONNX models
built when an example is written), :mod:`.plugin`, :mod:`.hotpath`, :mod:`.python`.

An example is a mini project ``{"files": {path: text}, "config": {...}}``; INVALID examples also carry
``"expect"`` (the findings) and, for a fixable rule, ``"fixed"`` (``{path: text}``: the files as ``--fix``
leaves them). A path may map to ``bytes`` or to a zero-argument callable returning bytes (see :mod:`.onnx`).
"""
