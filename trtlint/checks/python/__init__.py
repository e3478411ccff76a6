"""Python converters, Torch-TensorRT plugin generation, TensorRT Python plugins and QDP (TRT6xx)."""
