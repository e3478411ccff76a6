"""trtlint: a static analyzer and linter for TensorRT plugin and converter code."""

__version__ = "0.1.0"
