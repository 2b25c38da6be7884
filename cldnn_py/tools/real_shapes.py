"""Seeded ONNX models with the layer shapes of real mobile / detection / segmentation networks.

The zoo (``cldnn_py.tools.zoo``) holds the onnx wheel's 2012-2016 ImageNet classifiers: dense 3x3 / 1x1
convolutions with channel counts that are multiples of 16 or 32 at 224x224. The models of today that people deploy
look different, and this module builds five of them from scratch with ``onnx.helper`` (opset 13, IR version 10:
onnxruntime refuses newer IR versions), in the op forms the PyTorch exporter emits at opset 13:

* ``mobilenet_v3``: imitates torchvision's MobileNetV3-small. Stem Conv 3x3 stride 2 (16) + BatchNormalization +
  HardSwish; eleven inverted-residual blocks (expand Conv 1x1 + BN, depthwise Conv 3x3 or 5x5 with stride 1 or 2 +
  BN, squeeze-excitation GlobalAveragePool → Conv 1x1 → Relu → Conv 1x1 → HardSigmoid → Mul broadcast over the
  feature map, Relu or HardSwish, project Conv 1x1 + BN, a residual Add where input and output shapes match);
  channels 16, 24, 40, 48, 96 with expansions 72, 88, 96, 240, 120, 144, 288, 576 (not multiples of 16); Conv 1x1
  to 576 + BN + HardSwish, GlobalAveragePool → Flatten → Gemm (1000, ``logits``) → Softmax. Default 224x224;
  output (N, 1000).
* ``yolo_neck``: imitates Ultralytics YOLOv8n (width 0.25). Conv + BN + SiLU everywhere (SiLU as x * Sigmoid(x),
  the opset-13 export form); stride-2 Conv 3x3 downsampling to strides 8/16/32 (channels 64/128/256); C2f blocks
  (Conv 1x1 → Split in two halves with a constant ``split`` input → bottlenecks of two Conv 3x3 with a residual
  Add → Concat of all → Conv 1x1); SPPF (Conv 1x1, MaxPool 5x5 stride 1 pad 2 three times, Concat, Conv 1x1); a
  PAN neck with Resize (nearest, asymmetric / floor, constant ``scales`` (1, 1, 2, 2)) + Concat going up and
  stride-2 Conv + Concat going down; a detection head per scale (box branch 64 = 4 x 16 DFL bins and class branch
  80, each Conv 3x3 → Conv 3x3 → Conv 1x1), Concat to 144 channels, Reshape to (N, 144, -1), Concat of the three
  scales along the last axis, then Slice of the channels (steps given) into box (0:64) and class (64:144)
  logits, Sigmoid on the classes and Concat back. Default 320x320; output (N, 144, 2100) at 320.
* ``dbnet_head``: imitates the DBNet text detector (PaddleOCR / mmocr, MobileNet-sized): a small backbone of Conv
  3x3 + BN + Relu to strides 4/8/16/32 (channels 24, 40, 64, 96), an FPN of Conv 1x1 laterals (64) merged top-down
  with Resize x2 (nearest, and once linear with pytorch_half_pixel) + Add, Conv 3x3 smoothing to 16 channels,
  Resize x8 / x4 / x2 (nearest) to stride 4 and Concat (64), then the probability head Conv 3x3 + BN + Relu,
  ConvTranspose 2x2 stride 2 + BN + Relu, ConvTranspose 2x2 stride 2 (1 channel) + Sigmoid. Default 320x320;
  output (N, 1, 320, 320).
* ``crnn``: imitates a CRNN text-line recognizer (Shi et al. 2015; the recognizers of PaddleOCR / EasyOCR): input
  (N, 3, 32, width); six Conv 3x3 + BN + Relu (32, 64, 128, 128, 256, 256 channels) with MaxPool 2x2 twice and
  2x1 (height only) twice, a Conv 2x1 that folds the last two rows, Squeeze of the height and Transpose to the
  sequence (T = width / 4, N, 256); two bidirectional LSTMs (hidden 128, as torch exports ``nn.LSTM``: Transpose
  and Reshape of Y to (T, N, 256)); a per-step classifier MatMul + Add to 97 classes (CTC logits). Default width
  320 (80 steps); output (80, N, 97).
* ``vit_tiny``: imitates a DeiT-Tiny / ViT-Ti vision transformer at depth 4 (the real one has 12): Conv 16x16
  stride 16 patch embedding to 192, Reshape + Transpose to tokens, a class token (Expand + Concat) and a position
  Add; four pre-norm blocks of LayerNorm (the opset-13 export: ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div,
  Mul, Add), multi-head self-attention as timm exports it (one QKV MatMul + Add, Reshape to (N, T, 3, 3 heads, 64),
  Transpose, Gather of q / k / v, q·kᵀ MatMul of rank 4, Mul by 1/8, Softmax, ·v, Transpose + Reshape back, the
  output MatMul + Add, residual Add) and an MLP (192 → 768 → 192, GELU as x · 0.5 · (1 + Erf(x / sqrt 2))); a last
  LayerNorm, Gather of the class token and a Gemm to 1000. Default 224x224 (197 tokens); output (N, 1000).

Weights come from ``np.random.default_rng(seed)``: convolutions He-normal (std sqrt(2 / fan_in)), biases
N(0, 0.02), BatchNormalization scale U(0.8, 1.2), bias N(0, 0.05), mean N(0, 0.05), variance U(0.8, 1.2); the last
BN of a residual branch has its scale multiplied by ``RESIDUAL_SCALE`` and the Gemm of the classifier by
``CLASSIFIER_GAIN``, so intermediate activations and the pre-softmax / pre-sigmoid values stay O(1) on an N(0, 1)
input. The input is named ``"input"``, (N, 3, size, size) float32 ((N, 3, 32, size) for crnn), the single
output ``"output"``; any size that is a multiple of 32 works (tests use 64).

API: ``MODELS``, ``make_model(name, seed=0, batch=1, size=None)``, ``input_name(name)``,
``input_shape(name, batch=1, size=None)``, ``default_size(name)``, ``logits_name(name)``,
``save(name, out_dir, seed=0, batch=1, size=None)``. Uses numpy and onnx only.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

IR_VERSION = 10
OPSET = 13
MODELS: tuple[str, ...] = ("mobilenet_v3", "yolo_neck", "dbnet_head", "crnn", "vit_tiny")
DEFAULT_SIZE: dict[str, int] = {"mobilenet_v3": 224, "yolo_neck": 320, "dbnet_head": 320, "crnn": 320, "vit_tiny": 224}
RESIDUAL_SCALE = 0.5  # scale of the last BatchNormalization of a residual branch
# MobileNetV3 (measured on N(0, 1) inputs, seed 0): the Gemm's gain brings the logits RMS near 1; the gain of the
# project conv after squeeze-excitation (whose HardSigmoid ~0.5 shrinks the feature map) keeps the block outputs'
# RMS between 0.4 and 2 (without it they fall to 0.03 by the last block)
CLASSIFIER_GAIN = 0.7
SE_GAIN = 1.5
# YOLO: gain of every Conv + BN + SiLU (E[silu(x)^2] = 0.36 for x ~ N(0, 1), Relu's 0.5: without it the neck's
# activations fall to RMS 0.05; 1.1 already lets them grow to 5-30 through the 60 convs of the longest path)
SILU_GAIN = 1.05


class _Graph:
    """Collects nodes and initializers; every helper returns the name of its output tensor."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0

    def name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}_{self._n}"

    def const(self, prefix: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def scalar(self, prefix: str, value: float, dtype: Any = np.float32) -> str:
        """A rank-0 initializer (``const`` stores at least rank 1)."""
        from onnx import numpy_helper

        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.array(value, dtype), name))
        return name

    def node(self, op: str, inputs: Sequence[str], out: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        out = out or self.name(op.lower())
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=out, **attrs))
        return out

    def nodes_multi(self, op: str, inputs: Sequence[str], n: int, **attrs: Any) -> list[str]:
        from onnx import helper

        base = self.name(op.lower())
        outs = [f"{base}_{i}" for i in range(n)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=base, **attrs))
        return outs

    # ----- layers ------------------------------------------------------------------------------------------------
    def conv(self, x: str, cin: int, cout: int, k: int, stride: int = 1, group: int = 1, bias: bool = False,
             gain: float = 1.0) -> str:
        fan_in = cin // group * k * k
        w = self.rng.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / fan_in) * gain
        inputs = [x, self.const("w", w.astype(np.float32))]
        if bias:
            inputs.append(self.const("b", (self.rng.standard_normal(cout) * 0.02).astype(np.float32)))
        p = k // 2
        return self.node("Conv", inputs, kernel_shape=[k, k], strides=[stride, stride], pads=[p, p, p, p],
                         group=group)

    def bn(self, x: str, c: int, scale: float = 1.0) -> str:
        r = self.rng
        gamma = r.uniform(0.8, 1.2, c) * scale
        beta, mean = r.standard_normal(c) * 0.05, r.standard_normal(c) * 0.05
        var = r.uniform(0.8, 1.2, c)
        ins = [self.const(n, v.astype(np.float32)) for n, v in
               (("bn_scale", gamma), ("bn_bias", beta), ("bn_mean", mean), ("bn_var", var))]
        return self.node("BatchNormalization", [x, *ins], epsilon=1e-5)

    def relu(self, x: str) -> str:
        return self.node("Relu", [x])

    def hardsigmoid(self, x: str) -> str:
        return self.node("HardSigmoid", [x], alpha=1.0 / 6.0, beta=0.5)  # torch.nn.Hardsigmoid

    def hardswish(self, x: str) -> str:
        return self.node("Mul", [x, self.hardsigmoid(x)])  # torch's opset-13 export of Hardswish

    def silu(self, x: str) -> str:
        return self.node("Mul", [x, self.node("Sigmoid", [x])])  # torch's opset-13 export of SiLU

    def resize(self, x: str, scale: float, mode: str = "nearest") -> str:
        scales = self.const("scales", np.array([1.0, 1.0, scale, scale], np.float32))
        if mode == "nearest":
            return self.node("Resize", [x, "", scales], mode="nearest",
                             coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        return self.node("Resize", [x, "", scales], mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel")

    def ints(self, prefix: str, values: Sequence[int]) -> str:
        return self.const(prefix, np.array(values, np.int64))


# ----- MobileNetV3-small ------------------------------------------------------------------------------------------
# (kernel, expanded channels, out channels, squeeze-excitation, activation, stride): torchvision's
# mobilenet_v3_small configuration (width 1.0)
_MBV3_BLOCKS = (
    (3, 16, 16, True, "RE", 2),
    (3, 72, 24, False, "RE", 2),
    (3, 88, 24, False, "RE", 1),
    (5, 96, 40, True, "HS", 2),
    (5, 240, 40, True, "HS", 1),
    (5, 240, 40, True, "HS", 1),
    (5, 120, 48, True, "HS", 1),
    (5, 144, 48, True, "HS", 1),
    (5, 288, 96, True, "HS", 2),
    (5, 576, 96, True, "HS", 1),
    (5, 576, 96, True, "HS", 1),
)


def _divisible(v: float, d: int = 8) -> int:
    """torchvision's _make_divisible: nearest multiple of ``d``, at least 90 % of ``v``."""
    n = max(d, int(v + d / 2) // d * d)
    return n + d if n < 0.9 * v else n


def _mobilenet_v3(g: _Graph, x: str) -> str:
    y = g.hardswish(g.bn(g.conv(x, 3, 16, 3, 2), 16))
    cin = 16
    for k, exp, cout, se, act, stride in _MBV3_BLOCKS:
        a = g.relu if act == "RE" else g.hardswish
        h = y
        if exp != cin:
            h = a(g.bn(g.conv(h, cin, exp, 1), exp))
        h = a(g.bn(g.conv(h, exp, exp, k, stride, group=exp), exp))
        if se:
            sq = _divisible(exp / 4)
            s = g.node("GlobalAveragePool", [h])
            s = g.relu(g.conv(s, exp, sq, 1, bias=True))
            s = g.hardsigmoid(g.conv(s, sq, exp, 1, bias=True))
            h = g.node("Mul", [h, s])
        residual = stride == 1 and cin == cout
        h = g.bn(g.conv(h, exp, cout, 1, gain=SE_GAIN if se else 1.0), cout, RESIDUAL_SCALE if residual else 1.0)
        y = g.node("Add", [y, h]) if residual else h
        cin = cout
    y = g.hardswish(g.bn(g.conv(y, cin, 576, 1), 576))
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y])], axis=1)
    w = g.rng.standard_normal((1000, 576)) * np.sqrt(1.0 / 576) * CLASSIFIER_GAIN
    b = g.rng.standard_normal(1000) * 0.02
    logits = g.node("Gemm", [y, g.const("fc_w", w.astype(np.float32)), g.const("fc_b", b.astype(np.float32))],
                    out="logits", transB=1)
    return g.node("Softmax", [logits], out="output", axis=1)


# ----- YOLOv8n ------------------------------------------------------------------------------------------------------
def _cbs(g: _Graph, x: str, cin: int, cout: int, k: int, stride: int = 1, scale: float = 1.0) -> str:
    """Ultralytics' Conv: Conv (no bias) + BatchNormalization + SiLU."""
    return g.silu(g.bn(g.conv(x, cin, cout, k, stride, gain=SILU_GAIN), cout, scale))


def _c2f(g: _Graph, x: str, cin: int, cout: int, n: int, shortcut: bool) -> str:
    """C2f: Conv 1x1 to ``cout``, Split in two, ``n`` bottlenecks on the second half, Concat all, Conv 1x1."""
    c = cout // 2
    y = _cbs(g, x, cin, 2 * c, 1)
    parts = g.nodes_multi("Split", [y, g.ints("split", [c, c])], 2, axis=1)
    for _ in range(n):
        h = _cbs(g, parts[-1], c, c, 3)
        h = _cbs(g, h, c, c, 3, scale=RESIDUAL_SCALE if shortcut else 1.0)
        parts.append(g.node("Add", [parts[-1], h]) if shortcut else h)
    return _cbs(g, g.node("Concat", parts, axis=1), (2 + n) * c, cout, 1)


def _sppf(g: _Graph, x: str, c: int) -> str:
    h = c // 2
    y = [_cbs(g, x, c, h, 1)]
    for _ in range(3):
        y.append(g.node("MaxPool", [y[-1]], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]))
    return _cbs(g, g.node("Concat", y, axis=1), 4 * h, c, 1)


def _yolo_head(g: _Graph, x: str, c: int, batch: int) -> str:
    box = _cbs(g, _cbs(g, x, c, 64, 3), 64, 64, 3)
    box = g.conv(box, 64, 64, 1, bias=True)
    cls = _cbs(g, _cbs(g, x, c, 80, 3), 80, 80, 3)
    cls = g.conv(cls, 80, 80, 1, bias=True)
    y = g.node("Concat", [box, cls], axis=1)
    return g.node("Reshape", [y, g.ints("shape", [batch, 144, -1])])


def _yolo(g: _Graph, x: str, batch: int) -> str:
    y = _cbs(g, x, 3, 16, 3, 2)                          # stride 2
    y = _cbs(g, y, 16, 32, 3, 2)                         # stride 4
    y = _c2f(g, y, 32, 32, 1, True)
    y = _cbs(g, y, 32, 64, 3, 2)                         # stride 8
    p3 = _c2f(g, y, 64, 64, 2, True)
    y = _cbs(g, p3, 64, 128, 3, 2)                       # stride 16
    p4 = _c2f(g, y, 128, 128, 2, True)
    y = _cbs(g, p4, 128, 256, 3, 2)                      # stride 32
    y = _c2f(g, y, 256, 256, 1, True)
    p5 = _sppf(g, y, 256)
    # top-down
    n4 = _c2f(g, g.node("Concat", [g.resize(p5, 2.0), p4], axis=1), 384, 128, 1, False)
    o3 = _c2f(g, g.node("Concat", [g.resize(n4, 2.0), p3], axis=1), 192, 64, 1, False)
    # bottom-up
    o4 = _c2f(g, g.node("Concat", [_cbs(g, o3, 64, 64, 3, 2), n4], axis=1), 192, 128, 1, False)
    o5 = _c2f(g, g.node("Concat", [_cbs(g, o4, 128, 128, 3, 2), p5], axis=1), 384, 256, 1, False)
    heads = [_yolo_head(g, o, c, batch) for o, c in ((o3, 64), (o4, 128), (o5, 256))]
    y = g.node("Concat", heads, axis=2)                  # (N, 144, anchors)
    box = g.node("Slice", [y, g.ints("starts", [0]), g.ints("ends", [64]), g.ints("axes", [1]),
                           g.ints("steps", [1])])
    cls = g.node("Slice", [y, g.ints("starts", [64]), g.ints("ends", [144]), g.ints("axes", [1]),
                           g.ints("steps", [1])])
    return g.node("Concat", [box, g.node("Sigmoid", [cls])], out="output", axis=1)


# ----- DBNet --------------------------------------------------------------------------------------------------------
def _cbr(g: _Graph, x: str, cin: int, cout: int, k: int, stride: int = 1) -> str:
    return g.relu(g.bn(g.conv(x, cin, cout, k, stride), cout))


def _dbnet(g: _Graph, x: str) -> str:
    y = _cbr(g, x, 3, 16, 3, 2)                          # stride 2
    feats = []
    cin = 16
    for cout in (24, 40, 64, 96):                        # strides 4, 8, 16, 32
        y = _cbr(g, y, cin, cout, 3, 2)
        y = _cbr(g, y, cout, cout, 3)
        feats.append((y, cout))
        cin = cout
    c2, c3, c4, c5 = (g.conv(f, c, 64, 1) for f, c in feats)  # FPN laterals
    o4 = g.node("Add", [c4, g.resize(c5, 2.0)])
    o3 = g.node("Add", [c3, g.resize(o4, 2.0, "linear")])
    o2 = g.node("Add", [c2, g.resize(o3, 2.0)])
    p5 = g.resize(g.conv(c5, 64, 16, 3), 8.0)
    p4 = g.resize(g.conv(o4, 64, 16, 3), 4.0)
    p3 = g.resize(g.conv(o3, 64, 16, 3), 2.0)
    p2 = g.conv(o2, 64, 16, 3)
    y = g.node("Concat", [p5, p4, p3, p2], axis=1)       # (N, 64, H/4, W/4)
    y = _cbr(g, y, 64, 16, 3)
    w1 = g.rng.standard_normal((16, 16, 2, 2)) * np.sqrt(2.0 / 16)  # stride = kernel: each output sees one tap
    y = g.node("ConvTranspose", [y, g.const("w", w1.astype(np.float32))], kernel_shape=[2, 2], strides=[2, 2])
    y = g.relu(g.bn(y, 16))
    w2 = g.rng.standard_normal((16, 1, 2, 2)) * np.sqrt(1.0 / 16)
    b2 = g.rng.standard_normal(1) * 0.02
    y = g.node("ConvTranspose", [y, g.const("w", w2.astype(np.float32)), g.const("b", b2.astype(np.float32))],
               kernel_shape=[2, 2], strides=[2, 2])
    return g.node("Sigmoid", [y], out="output")


# ----- CRNN ---------------------------------------------------------------------------------------------------------
CRNN_HEIGHT = 32  # the text-line height (the input is (N, 3, 32, width))
CRNN_HIDDEN = 128
CRNN_CLASSES = 97  # printable ASCII and the CTC blank: not a multiple of 8, as real alphabets


def _bilstm(g: _Graph, x: str, cin: int, hidden: int) -> str:
    """Bidirectional LSTM as torch exports nn.LSTM at opset 13 (W, R, B uniform ±1/sqrt(hidden), as torch
    initializes them), Y (T, 2, N, hidden) → Transpose → Reshape to (T, N, 2·hidden)."""
    s = 1.0 / np.sqrt(hidden)
    w = g.const("lstm_w", g.rng.uniform(-s, s, (2, 4 * hidden, cin)).astype(np.float32))
    r = g.const("lstm_r", g.rng.uniform(-s, s, (2, 4 * hidden, hidden)).astype(np.float32))
    b = g.const("lstm_b", g.rng.uniform(-s, s, (2, 8 * hidden)).astype(np.float32))
    y = g.node("LSTM", [x, w, r, b], hidden_size=hidden, direction="bidirectional")
    y = g.node("Transpose", [y], perm=[0, 2, 1, 3])
    return g.node("Reshape", [y, g.ints("shape", [0, 0, -1])])


def _crnn(g: _Graph, x: str) -> str:
    y = x
    for cin, cout, pool in ((3, 32, 2), (32, 64, 2), (64, 128, 0), (128, 128, 1), (128, 256, 0), (256, 256, 1)):
        y = _cbr(g, y, cin, cout, 3)
        if pool:  # 2x2, or 2x1 (height only: the width is the sequence)
            y = g.node("MaxPool", [y], kernel_shape=[2, pool], strides=[2, pool])
    w = g.rng.standard_normal((256, 256, 2, 1)) * np.sqrt(2.0 / 512)  # the last 2 rows into one: (N, 256, 1, W/4)
    y = g.relu(g.node("Conv", [y, g.const("w", w.astype(np.float32))], kernel_shape=[2, 1]))
    y = g.node("Squeeze", [y, g.ints("axes", [2])])                  # (N, 256, T)
    y = g.node("Transpose", [y], perm=[2, 0, 1])                     # (T, N, 256)
    y = _bilstm(g, y, 256, CRNN_HIDDEN)
    y = _bilstm(g, y, 2 * CRNN_HIDDEN, CRNN_HIDDEN)
    fc = g.rng.standard_normal((2 * CRNN_HIDDEN, CRNN_CLASSES)) * np.sqrt(1.0 / (2 * CRNN_HIDDEN))
    fb = g.rng.standard_normal(CRNN_CLASSES) * 0.02
    y = g.node("MatMul", [y, g.const("fc_w", fc.astype(np.float32))])  # torch's Linear on a 3-D input
    return g.node("Add", [y, g.const("fc_b", fb.astype(np.float32))], out="output")


# ----- ViT (DeiT-Tiny) ---------------------------------------------------------------------------------------------
VIT_DIM, VIT_HEADS, VIT_MLP, VIT_DEPTH, VIT_PATCH = 192, 3, 768, 4, 16


def _layer_norm(g: _Graph, x: str, dim: int) -> str:
    """LayerNorm over the last axis as torch exports it at opset 13: ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt,
    Div, Mul, Add."""
    mean = g.node("ReduceMean", [x], axes=[-1], keepdims=1)
    d = g.node("Sub", [x, mean])
    var = g.node("ReduceMean", [g.node("Pow", [d, g.scalar("two", 2.0, np.float32)])], axes=[-1],
                 keepdims=1)
    den = g.node("Sqrt", [g.node("Add", [var, g.scalar("eps", 1e-6, np.float32)])])
    y = g.node("Div", [d, den])
    gamma = g.const("ln_w", g.rng.uniform(0.8, 1.2, dim).astype(np.float32))
    beta = g.const("ln_b", (g.rng.standard_normal(dim) * 0.02).astype(np.float32))
    return g.node("Add", [g.node("Mul", [y, gamma]), beta])


def _linear(g: _Graph, x: str, cin: int, cout: int, gain: float = 1.0) -> str:
    """torch's Linear on a 3-D input: MatMul with the (cin, cout) weight, then Add of the bias."""
    w = g.rng.standard_normal((cin, cout)) * np.sqrt(1.0 / cin) * gain
    b = g.rng.standard_normal(cout) * 0.02
    return g.node("Add", [g.node("MatMul", [x, g.const("fc_w", w.astype(np.float32))]),
                          g.const("fc_b", b.astype(np.float32))])


def _attention(g: _Graph, x: str, batch: int, tokens: int) -> str:
    """Multi-head self-attention as timm exports it: one QKV Linear, Reshape (N, T, 3, heads, d), Transpose to
    (3, N, heads, T, d), Gather q / k / v, q·kᵀ · d^-0.5, Softmax, ·v, Transpose and Reshape back, the output
    Linear."""
    d = VIT_DIM // VIT_HEADS
    qkv = _linear(g, x, VIT_DIM, 3 * VIT_DIM)
    qkv = g.node("Reshape", [qkv, g.ints("shape", [batch, tokens, 3, VIT_HEADS, d])])
    qkv = g.node("Transpose", [qkv], perm=[2, 0, 3, 1, 4])
    q, k, v = (g.node("Gather", [qkv, g.scalar("idx", i, np.int64)], axis=0) for i in range(3))
    kt = g.node("Transpose", [k], perm=[0, 1, 3, 2])
    att = g.node("Mul", [g.node("MatMul", [q, kt]), g.scalar("scale", d ** -0.5, np.float32)])
    att = g.node("Softmax", [att], axis=-1)
    y = g.node("Transpose", [g.node("MatMul", [att, v])], perm=[0, 2, 1, 3])
    y = g.node("Reshape", [y, g.ints("shape", [batch, tokens, VIT_DIM])])
    return _linear(g, y, VIT_DIM, VIT_DIM, gain=0.5)


def _gelu(g: _Graph, x: str) -> str:
    """GELU as torch exports it at opset 13: x · 0.5 · (1 + erf(x / sqrt 2))."""
    e = g.node("Erf", [g.node("Div", [x, g.scalar("sqrt2", np.sqrt(2.0), np.float32)])])
    one = g.scalar("one", 1.0, np.float32)
    return g.node("Mul", [g.node("Mul", [x, g.node("Add", [e, one])]), g.scalar("half", 0.5, np.float32)])


def _vit(g: _Graph, x: str, batch: int, size: int) -> str:
    side = size // VIT_PATCH
    tokens = side * side + 1
    w = g.rng.standard_normal((VIT_DIM, 3, VIT_PATCH, VIT_PATCH)) * np.sqrt(1.0 / (3 * VIT_PATCH * VIT_PATCH))
    b = g.rng.standard_normal(VIT_DIM) * 0.02
    y = g.node("Conv", [x, g.const("w", w.astype(np.float32)), g.const("b", b.astype(np.float32))],
               kernel_shape=[VIT_PATCH, VIT_PATCH], strides=[VIT_PATCH, VIT_PATCH])
    y = g.node("Transpose", [g.node("Reshape", [y, g.ints("shape", [batch, VIT_DIM, side * side])])], perm=[0, 2, 1])
    cls = g.const("cls", (g.rng.standard_normal((1, 1, VIT_DIM)) * 0.02).astype(np.float32))
    cls = g.node("Expand", [cls, g.ints("shape", [batch, 1, VIT_DIM])])
    y = g.node("Concat", [cls, y], axis=1)
    pos = g.const("pos", (g.rng.standard_normal((1, tokens, VIT_DIM)) * 0.02).astype(np.float32))
    y = g.node("Add", [y, pos])
    for _ in range(VIT_DEPTH):
        y = g.node("Add", [y, _attention(g, _layer_norm(g, y, VIT_DIM), batch, tokens)])
        h = _gelu(g, _linear(g, _layer_norm(g, y, VIT_DIM), VIT_DIM, VIT_MLP))
        y = g.node("Add", [y, _linear(g, h, VIT_MLP, VIT_DIM, gain=0.5)])
    y = _layer_norm(g, y, VIT_DIM)
    y = g.node("Gather", [y, g.scalar("cls_idx", 0, np.int64)], axis=1)   # (N, dim): the class token
    wh = g.rng.standard_normal((1000, VIT_DIM)) * np.sqrt(1.0 / VIT_DIM)
    return g.node("Gemm", [y, g.const("head_w", wh.astype(np.float32)), g.const("head_b", np.zeros(1000, np.float32))],
                  out="output", transB=1)


_BUILDERS: dict[str, Callable[[_Graph, str, int, int], str]] = {  # (graph, input, batch, size) -> "output"
    "mobilenet_v3": lambda g, x, batch, size: _mobilenet_v3(g, x),
    "yolo_neck": lambda g, x, batch, size: _yolo(g, x, batch),
    "dbnet_head": lambda g, x, batch, size: _dbnet(g, x),
    "crnn": lambda g, x, batch, size: _crnn(g, x),
    "vit_tiny": _vit,
}


def _check_name(name: str) -> None:
    if name not in MODELS:
        raise ValueError(f"unknown real-shapes model {name!r}; known: {', '.join(MODELS)}")


def default_size(name: str) -> int:
    """The input height = width of ``name`` when none is given (crnn: the width; its height is CRNN_HEIGHT): 224
    for mobilenet_v3, 320 for the others."""
    _check_name(name)
    return DEFAULT_SIZE[name]


def input_name(name: str) -> str:
    """The image input of every model: ``"input"``."""
    _check_name(name)
    return "input"


def input_shape(name: str, batch: int = 1, size: int | None = None) -> tuple[int, int, int, int]:
    """(batch, 3, size, size), size defaulting to ``default_size(name)``; crnn: (batch, 3, CRNN_HEIGHT, size)."""
    s = size or default_size(name)
    return (batch, 3, CRNN_HEIGHT if name == "crnn" else s, s)


def logits_name(name: str) -> str:
    """The pre-softmax logits (mobilenet_v3: the Gemm's output ``"logits"``); the others: ``"output"``."""
    _check_name(name)
    return "logits" if name == "mobilenet_v3" else "output"


def make_model(name: str, seed: int = 0, batch: int = 1, size: int | None = None) -> Any:
    """The ``onnx.ModelProto`` of ``name`` (one of ``MODELS``) with weights from seed ``seed``, input "input"
    (batch, 3, size, size) float32 (crnn: (batch, 3, 32, size)) and output "output" (see the module docstring);
    ``size`` must be a multiple of 32 (default ``default_size(name)``). The model passes
    ``onnx.checker.check_model``; the weights depend on ``seed`` only, not on ``batch`` or ``size``."""
    import onnx
    from onnx import TensorProto, helper

    _check_name(name)
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    shape = input_shape(name, batch, size)
    if shape[3] < 32 or shape[3] % 32:
        raise ValueError(f"size must be a positive multiple of 32, got {shape[3]}")
    g = _Graph(seed)
    out = _BUILDERS[name](g, "input", batch, shape[3])
    assert out == "output"
    graph = helper.make_graph(g.nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)], g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="cldnn_py.tools.real_shapes")
    m.ir_version = IR_VERSION
    m.doc_string = f"{name} with seeded random weights (seed {seed}, batch {batch}, size {shape[3]})"
    # the output shape from shape inference, so that tools reading the graph output see it
    inferred = onnx.shape_inference.infer_shapes(m)
    m.graph.output[0].CopyFrom(inferred.graph.output[0])
    onnx.checker.check_model(m, full_check=True)
    return m


def save(name: str, out_dir: str | os.PathLike[str], seed: int = 0, batch: int = 1,
         size: int | None = None) -> pathlib.Path:
    """Write ``make_model(name, seed, batch, size)`` to ``out_dir/<name>_b<batch>_s<seed>.onnx`` (with
    ``_<size>px`` before ``.onnx`` when ``size`` is given and differs from the default) and return the path."""
    import onnx

    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    px = f"_{size}px" if size and size != default_size(name) else ""
    path = out / f"{name}_b{batch}_s{seed}{px}.onnx"
    onnx.save(make_model(name, seed, batch, size), str(path))
    return path
