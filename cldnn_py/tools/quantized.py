"""Quantized models for tests and benchmarks, made by onnxruntime's own quantization tools (issue 18).

``quantize(model, kind, out_dir, calibration=...)`` writes and returns the path of ``model`` quantized as
onnxruntime's tools do it for users:

- ``"qdq"``: static, QDQ format (QuantizeLinear/DequantizeLinear pairs around every quantized op), uint8
  activations, int8 weights per tensor, calibrated (MinMax) on ``calibration`` (seeded N(0, 1) images by default);
- ``"qdq_per_channel"``: the same with per-channel weight scales;
- ``"qoperator"``: static, QOperator format: Conv and MatMul only (QLinearConv, QLinearMatMul: the standard ONNX
  ops; onnxruntime's QOperator forms of Add, Concat, pooling and Gemm are com.microsoft contrib ops);
- ``"dynamic"``: dynamic quantization (DynamicQuantizeLinear + ConvInteger / MatMulInteger), int8 weights.

Static kinds use ``reduce_range=True`` (7-bit weights), as onnxruntime recommends on x86 CPUs without VNNI: its
uint8 x int8 kernels sum pairs of products in saturating 16-bit lanes (``vpmaddubsw``), which with 8-bit weights
gave QLinearConv results up to 33 steps off the exact value on this machine (AMD Zen 4 without AVX-512).

Needs onnxruntime (``pip install onnxruntime``); nothing is downloaded. The model is pre-processed with onnx shape
inference and onnxruntime's ``quant_pre_process`` first (its graph optimizations fold BatchNormalization into the
convolutions), as onnxruntime's documentation asks.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterable
from typing import Any

import numpy as np

KINDS = ("qdq", "qdq_per_channel", "qoperator", "dynamic")


def calibration_set(model: Any, n: int = 4, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``n`` seeded N(0, 1) feeds for the model's single float input (static shape)."""
    inits = {i.name for i in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in inits]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    rng = np.random.default_rng(seed)
    return [{inp.name: rng.standard_normal(shape).astype(np.float32)} for _ in range(n)]


def quantize(model: Any, kind: str, out_dir: str | os.PathLike[str],
             calibration: Iterable[dict[str, np.ndarray]] | None = None, name: str = "model") -> pathlib.Path:
    """Quantize ``model`` (an onnx ModelProto) with onnxruntime's tools as ``kind`` (module docstring) into
    ``out_dir/<name>_<kind>.onnx``; returns the path. Raises ValueError for an unknown kind."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    if kind not in KINDS:
        raise ValueError(f"quantize: kind must be one of {KINDS}, got {kind!r}")
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    src = out / f"{name}_f32.onnx"
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
    if opset < 13:  # per-axis QuantizeLinear/DequantizeLinear need opset 13
        from onnx import version_converter

        model = version_converter.convert_version(model, 13)
    onnx.save(onnx.shape_inference.infer_shapes(model), str(src))
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pre = out / f"{name}_pre.onnx"  # onnxruntime's recommended pre-processing: BatchNormalization folded into Conv
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    src = pre
    dst = out / f"{name}_{kind}.onnx"
    if kind == "dynamic":
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8)
        return dst
    feeds = list(calibration) if calibration is not None else calibration_set(model)

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    ops = ["Conv", "MatMul"] if kind == "qoperator" else None
    quantize_static(str(src), str(dst), Reader(),
                    quant_format=QuantFormat.QOperator if kind == "qoperator" else QuantFormat.QDQ,
                    per_channel=kind == "qdq_per_channel", activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, op_types_to_quantize=ops, reduce_range=True)
    return dst


def output_step(model: Any, out: str) -> float | None:
    """The quantization step (scale) of graph output ``out``: the scale of the DequantizeLinear that makes it, or
    None when the output is not dequantized from a quantized tensor."""
    from onnx import numpy_helper

    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear" and n.output[0] == out and n.input[1] in inits:
            return float(np.asarray(inits[n.input[1]]).reshape(-1)[0])
    return None
