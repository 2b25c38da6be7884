"""The CPU engine's row kernels vs independent references, on NaN-poisoned physical buffers: batch_norm_cpu_vec and
eltwise_cpu_channel (the per-channel affine rows of common/cpu_channel_affine.py), shuffle_channels_cpu_copy and
lrn_cpu_planes vs float64 numpy, resize_cpu_rows vs the CPU reference kernel (itself checked against onnxruntime);
plain and blocked layouts, padding, channel tails, fused chains."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.cpu_engine import aligned_bytes
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import BatchNormAttrs, EltwiseAttrs, FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates, selector
from tests.helpers import assert_close, f32

FSV16 = Format.b_fs_yx_fsv16


def run(kernel, params, arrays, extra=()):
    """Run ``kernel`` on buffers holding ``arrays`` (then ``extra`` (layout, array) chain operands); the logical
    output in float64, and the selector's pick. The output's padding must stay NaN."""
    k = next(c for c in candidates(params.kind) if c.name == kernel)
    assert k.validate(params) is None, k.validate(params)
    fn = k.kernel_data(params).kernels[0].fn
    bufs = []
    for lay, arr in list(zip(params.inputs, arrays)) + list(extra):
        b = aligned_bytes(lay.bytes)
        b[:] = lay.to_physical(arr).view(np.uint8)
        bufs.append(b)
    out = aligned_bytes(params.output.bytes)
    out.view(np.float32)[:] = np.nan
    n = len(params.inputs)
    fn(*bufs[:n], out, *bufs[n:])
    flat = out.view(np.float32)
    if not params.output.padding.is_zero:
        mask = params.output.to_physical(np.ones(params.output.shape, np.float32)) == 0
        assert np.isnan(flat[mask]).all(), "wrote into the padding"
    return params.output.from_physical(flat).astype(np.float64), selector.select(params)[0].name


LAYOUTS = [(Format.bfyx, False), (Format.bfyx, True), (Format.byxf, False), (FSV16, False), (FSV16, True)]


@pytest.mark.parametrize("fmt,padded", LAYOUTS, ids=lambda v: str(getattr(v, "value", v)))
@pytest.mark.parametrize("shape", [(2, 21, 5, 7), (1, 32, 3, 4)])
def test_batch_norm_vec(rng, fmt, padded, shape):
    c = shape[1]
    x = f32(rng.standard_normal(shape))
    mean, var = f32(rng.standard_normal(c)), f32(rng.uniform(0.1, 2.0, c))
    scale, shift = f32(rng.standard_normal(c)), f32(rng.standard_normal(c))
    pad = Padding((0, 0, 1, 2), (0, 0, 2, 1)) if padded else Padding()
    xl = Layout(DataType.f32, fmt, shape, pad)
    out = Layout(DataType.f32, fmt, shape, Padding((0, 0, 0, 1), (0, 0, 1, 0)) if padded else Padding())
    stat = Layout(DataType.f32, Format.bfyx, (c,))
    ops = [FusedOp("activation", FusedActivationAttrs("relu"))]
    p = Params("batch_norm", "cpu", [xl, stat, stat, stat, stat], out,
               BatchNormAttrs(epsilon=1e-3, has_scale=True, has_shift=True), ops)
    got, pick = run("batch_norm_cpu_vec", p, [x, mean, var, scale, shift])
    b = (1, c, 1, 1)
    ref = (x.astype(np.float64) - mean.reshape(b)) / np.sqrt(var.reshape(b).astype(np.float64) + 1e-3)
    ref = np.maximum(ref * scale.reshape(b) + shift.reshape(b), 0)
    assert_close(got, ref, rtol=1e-5, atol=1e-5)
    assert pick == "batch_norm_cpu_vec"


@pytest.mark.parametrize("fmt,padded", LAYOUTS, ids=lambda v: str(getattr(v, "value", v)))
@pytest.mark.parametrize("mode,gate_first,gate_batch", [("prod", False, 2), ("prod", True, 1), ("sum", False, 2)])
def test_eltwise_channel(rng, fmt, padded, mode, gate_first, gate_batch):
    shape = (2, 19, 4, 6)
    x = f32(rng.standard_normal(shape))
    gate = f32(rng.standard_normal((gate_batch, shape[1], 1, 1)))
    res = f32(rng.standard_normal(shape))
    pad = Padding((0, 0, 1, 0), (0, 0, 0, 2)) if padded else Padding()
    xl = Layout(DataType.f32, fmt, shape, pad)
    gl = Layout(DataType.f32, fmt, gate.shape)
    rl = Layout(DataType.f32, Format.bfyx, shape)
    out = Layout(DataType.f32, fmt, shape, pad)
    ops = [FusedOp("eltwise", FusedEltwiseAttrs(mode="sum"), [rl], [3]),
           FusedOp("activation", FusedActivationAttrs("hard_swish"))]
    ins, arrs = ([gl, xl], [gate, x]) if gate_first else ([xl, gl], [x, gate])
    p = Params("eltwise", "cpu", ins, out, EltwiseAttrs(mode=mode), ops)
    got, pick = run("eltwise_cpu_channel", p, arrs, [(rl, res)])
    v = x.astype(np.float64) * gate if mode == "prod" else x.astype(np.float64) + gate
    v = v + res
    assert_close(got, v * np.clip(v + 3, 0, 6) / 6, rtol=1e-5, atol=1e-5)
    assert pick == "eltwise_cpu_channel"


def test_eltwise_channel_refuses_spatial_operand():
    x = Layout(DataType.f32, Format.bfyx, (1, 8, 4, 4))
    g = Layout(DataType.f32, Format.bfyx, (1, 8, 4, 1))
    p = Params("eltwise", "cpu", [x, g], x, EltwiseAttrs(mode="prod"), [])
    k = next(c for c in candidates("eltwise") if c.name == "eltwise_cpu_channel")
    assert "one value per" in k.validate(p)


@pytest.mark.parametrize("padded", [False, True])
def test_shuffle_channels_copy(rng, padded):
    from cldnn_py.ops import ShuffleChannelsAttrs

    shape = (2, 12, 5, 7)
    x = f32(rng.standard_normal(shape))
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 2)) if padded else Padding()
    xl = Layout(DataType.f32, Format.bfyx, shape, pad)
    out = Layout(DataType.f32, Format.bfyx, shape, Padding((0, 0, 2, 0), (0, 0, 0, 1)) if padded else Padding())
    p = Params("shuffle_channels", "cpu", [xl], out, ShuffleChannelsAttrs(group=3), [])
    got, pick = run("shuffle_channels_cpu_copy", p, [x])
    ref = np.empty_like(x)
    for c in range(12):  # output channel j*3 + g holds input channel g*4 + j
        ref[:, (c % 4) * 3 + c // 4] = x[:, c]
    assert_close(got, ref.astype(np.float64), rtol=0, atol=0)
    assert pick == "shuffle_channels_cpu_copy"


@pytest.mark.parametrize("mode,ctm,scales", [
    ("nearest", "asymmetric", (1.0, 1.0, 2.0, 2.0)),
    ("linear", "half_pixel", (1.0, 1.0, 2.0, 1.5)),
    ("linear", "align_corners", (1.0, 1.0, 0.5, 0.75)),
    ("cubic", "pytorch_half_pixel", (1.0, 1.0, 1.7, 2.0)),
])
@pytest.mark.parametrize("padded", [False, True])
def test_resize_rows_matches_reference(rng, mode, ctm, scales, padded):
    """resize_cpu_rows against the CPU reference kernel (itself checked against onnxruntime in tests/onnx)."""
    from cldnn_py.ops import ResizeAttrs

    shape = (2, 3, 6, 8)
    oshape = tuple(int(np.floor(s * d)) for s, d in zip(scales, shape))
    x = f32(rng.standard_normal(shape))
    attrs = ResizeAttrs(mode=mode, coordinate_transformation_mode=ctm, scales=scales)
    pad = Padding((0, 0, 1, 2), (0, 0, 2, 1)) if padded else Padding()
    xl = Layout(DataType.f32, Format.bfyx, shape, pad)
    out = Layout(DataType.f32, Format.bfyx, oshape, Padding((0, 0, 0, 1), (0, 0, 1, 0)) if padded else Padding())
    p = Params("resize", "cpu", [xl], out, attrs, [])
    got, pick = run("resize_cpu_rows", p, [x])
    ref = next(c for c in candidates("resize") if c.name == "resize_cpu_ref")
    rb = aligned_bytes(xl.bytes)
    rb[:] = xl.to_physical(x).view(np.uint8)
    ob = aligned_bytes(out.bytes)
    ref.kernel_data(p).kernels[0].fn(rb, ob)
    assert_close(got, out.from_physical(ob.view(np.float32)).astype(np.float64), rtol=1e-5, atol=1e-5)
    assert pick == "resize_cpu_rows"


@pytest.mark.parametrize("size", [5, 4])
@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("beta", [0.75, 0.6])  # 0.75: the square-root form; others: exp(-beta log base)
def test_lrn_planes(rng, size, padded, beta):
    from cldnn_py.ops import LRNAttrs
    from tests.references import lrn_ref

    shape = (2, 7, 5, 6)
    x = f32(rng.standard_normal(shape) * 3)
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 2)) if padded else Padding()
    xl = Layout(DataType.f32, Format.bfyx, shape, pad)
    out = Layout(DataType.f32, Format.bfyx, shape, Padding((0, 1, 0, 1), (0, 0, 2, 0)) if padded else Padding())
    p = Params("lrn", "cpu", [xl], out, LRNAttrs(size=size, alpha=2e-2, beta=beta, k=2.0), [])
    got, pick = run("lrn_cpu_planes", p, [x])
    assert_close(got, lrn_ref(x.astype(np.float64), size, 2e-2, beta, 2.0), rtol=1e-5, atol=1e-5)
    assert pick == "lrn_cpu_planes"


@pytest.mark.parametrize("func,a,b", [("hard_swish", 0.0, 0.0), ("swish", 1.0, 0.0), ("relu_negative_slope", 0.1, 0.0),
                                      ("logistic", 0.0, 0.0), ("elu", 0.5, 0.0), ("hard_sigmoid", 0.2, 0.5)])
@pytest.mark.parametrize("fmt", [Format.bfyx, FSV16])
def test_activation_vec(rng, func, a, b, fmt):
    """activation_cpu_vec with a fused clamp vs the float64 table (tests/references.py activation_ref), values on
    both sides of the functions' kinks (NaN rules: tests/cpu/test_cpu_epilogue.py)."""
    from cldnn_py.ops import ActivationAttrs, ActivationFunc
    from tests.references import activation_ref

    shape = (2, 20, 3, 5)
    x = f32(rng.standard_normal(shape) * 4)
    lay = Layout(DataType.f32, fmt, shape)
    ops = [FusedOp("activation", FusedActivationAttrs("clamp", -2.0, 3.0))]
    p = Params("activation", "cpu", [lay], lay, ActivationAttrs(func=ActivationFunc(func), a=a, b=b), ops)
    got, pick = run("activation_cpu_vec", p, [x])
    ref = activation_ref(activation_ref(x.astype(np.float64), func, a, b), "clamp", -2.0, 3.0)
    assert_close(got, ref, rtol=2e-5, atol=2e-6)
    assert pick == "activation_cpu_vec"


@pytest.mark.parametrize("shape,xpad,opad", [
    ((1, 80, 21), Padding(), Padding((0, 64, 0, 0), (0, 16, 0, 0))),             # a detection head's concat slice
    ((2, 6, 5, 7), Padding((0, 0, 1, 0), (0, 0, 0, 1)), Padding((0, 3, 0, 0), (1, 0, 0, 0))),  # rows of 7
])
def test_activation_vec_padded_runs(rng, shape, xpad, opad):
    """activation_cpu_vec on padded tensors (contiguous runs, a table of run starts): logistic then a fused clamp,
    vs the float64 table; the output's padding keeps its sentinel (kernel harness)."""
    from cldnn_py.ops import ActivationAttrs, ActivationFunc
    from tests.references import activation_ref

    x = f32(rng.standard_normal(shape) * 4)
    xl = Layout(DataType.f32, Format.bfyx, shape, xpad)
    ol = Layout(DataType.f32, Format.bfyx, shape, opad)
    ops = [FusedOp("activation", FusedActivationAttrs("clamp", 0.1, 0.9))]
    p = Params("activation", "cpu", [xl], ol, ActivationAttrs(func=ActivationFunc("logistic")), ops)
    got, pick = run("activation_cpu_vec", p, [x])
    ref = activation_ref(activation_ref(x.astype(np.float64), "logistic", 0.0, 0.0), "clamp", 0.1, 0.9)
    assert_close(got, ref, rtol=2e-5, atol=2e-6)
    assert pick == "activation_cpu_vec"
