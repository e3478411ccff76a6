"""`trtlint coverage`: ONNX node coverage (the model) and its run."""
