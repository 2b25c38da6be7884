"""Front ends that turn model files into Topologies: ONNX (``load_onnx``)."""

from .onnx import OnnxImportError, load_onnx

__all__ = ["OnnxImportError", "load_onnx"]
