"""eltwise_cpu_vec (numba flat / row loops) vs an independent float64 numpy reference.

Both paths: flat (every tensor unpadded, any format, rank up to 6) and rows (per-tensor padding, b_fs_yx_fsv16
channel tails that must stay untouched); every float mode, coefficients, 3 inputs, NaN rules of max/min, fused
activation and residual (broadcast too); the selector's unforced choice; broadcasting inputs rejected; a network.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import assert_close, f32, typed_attrs

FAST = "eltwise_cpu_vec"
FSV16 = Format.b_fs_yx_fsv16
MODES = ["sum", "sub", "prod", "div", "max", "min", "pow", "prelu"]


def fold64(mode, xs, coeffs=None):
    """Left fold in float64; max/min ignore a NaN operand (C fmax/fmin)."""
    xs = [x.astype(np.float64) for x in xs]
    if coeffs is not None:
        return sum(c * x for c, x in zip(coeffs, xs))
    ops = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "div": np.divide, "max": np.fmax,
           "min": np.fmin, "pow": np.power, "prelu": lambda a, b: np.where(a >= 0, a, a * b)}
    acc = xs[0]
    with np.errstate(all="ignore"):
        for x in xs[1:]:
            acc = ops[mode](acc, x)
    return acc


def _inputs(rng, mode, shape, n=2):
    xs = [f32(rng.standard_normal(shape)) for _ in range(n)]
    if mode == "pow":  # a positive base, moderate exponents
        xs[0] = f32(np.abs(xs[0]) + 0.5)
    if mode == "div":
        xs[1] = f32(np.sign(xs[1]) * (np.abs(xs[1]) + 0.5))
    return xs


def _run(engine, xs, fmt, pads, out_pad, attrs, fused=None, operands=None):
    lays = [Layout(DataType.f32, fmt, x.shape, p) for x, p in zip(xs, pads)]
    lout = Layout(DataType.f32, fmt, xs[0].shape, out_pad)
    out, chosen = run_kernel(engine, "eltwise", lays, lout, attrs, xs, FAST, fused, operands)
    assert chosen == FAST
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", [Format.bfyx, FSV16, Format.byxf], ids=lambda f: f.value)
def test_flat(cpu_engine, rng, fmt, mode):
    xs = _inputs(rng, mode, (2, 21, 7, 9) if fmt != FSV16 else (2, 32, 5, 3))
    out = _run(cpu_engine, xs, fmt, [Padding()] * 2, Padding(), {"mode": mode})
    assert_close(out, fold64(mode, xs))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", [FSV16, Format.bfyx], ids=lambda f: f.value)
def test_rows_padded_and_tails(cpu_engine, rng, fmt, mode):
    """Each tensor padded its own way; C = 19 leaves a 13-lane tail in the last fsv16 slice."""
    xs = _inputs(rng, mode, (2, 19, 5, 7))
    pads = [Padding((0, 0, 1, 1), (0, 0, 1, 1)), Padding((1, 0, 0, 2), (0, 0, 2, 0))]
    out = _run(cpu_engine, xs, fmt, pads, Padding((0, 0, 1, 0), (1, 0, 0, 1)), {"mode": mode})
    assert_close(out, fold64(mode, xs))


def test_unpadded_fsv16_tail_uses_rows(cpu_engine, rng):
    """Unpadded b_fs_yx_fsv16 with C % 16 != 0: the block tail must not be written (rows path)."""
    xs = _inputs(rng, "sum", (1, 5, 3, 4))
    out = _run(cpu_engine, xs, FSV16, [Padding()] * 2, Padding(), {"mode": "sum"})
    assert_close(out, fold64("sum", xs))


@pytest.mark.parametrize("fmt,pad", [(Format.bfyx, Padding()), (FSV16, Padding((0, 0, 1, 1), (0, 0, 1, 1)))],
                         ids=["flat", "rows"])
def test_three_inputs_with_coefficients(cpu_engine, rng, fmt, pad):
    xs = _inputs(rng, "sum", (2, 17, 4, 5), 3)
    coeffs = (0.5, -2.0, 1.25)
    out = _run(cpu_engine, xs, fmt, [pad, Padding(), pad], Padding(), {"mode": "sum", "coefficients": coeffs})
    assert_close(out, fold64("sum", xs, coeffs))


@pytest.mark.parametrize("mode", ["max", "prod", "sub"])
def test_three_inputs_fold(cpu_engine, rng, mode):
    xs = _inputs(rng, mode, (3, 20, 3, 3), 3)
    out = _run(cpu_engine, xs, FSV16, [Padding()] * 3, Padding((0, 0, 1, 1), (0, 0, 0, 0)), {"mode": mode})
    assert_close(out, fold64(mode, xs))


def test_max_min_ignore_nan(cpu_engine, rng):
    xs = _inputs(rng, "max", (1, 3, 4, 4))
    xs[0][0, 0, 0, :2] = np.nan
    xs[1][0, 1, 1, 1:3] = np.nan
    for mode in ("max", "min"):
        out = _run(cpu_engine, xs, Format.bfyx, [Padding()] * 2, Padding(), {"mode": mode})
        np.testing.assert_allclose(out, fold64(mode, xs), rtol=1e-6)


def test_rank6_flat(cpu_engine, rng):
    xs = _inputs(rng, "prod", (2, 3, 2, 2, 3, 2))
    out = _run(cpu_engine, xs, Format.bfyx, [Padding()] * 2, Padding(), {"mode": "prod"})
    assert_close(out, fold64("prod", xs))


@pytest.mark.parametrize("fmt,pad,rfmt,rpad", [
    (Format.bfyx, Padding(), Format.bfyx, Padding()),                                   # flat, same layout
    (Format.bfyx, Padding(), FSV16, Padding((0, 0, 1, 1), (0, 0, 0, 0))),               # rows: operand differs
    (FSV16, Padding((0, 0, 1, 1), (0, 0, 1, 1)), Format.bfyx, Padding((0, 0, 0, 2), (0, 0, 0, 0))),
], ids=["flat", "flat-blocked-operand", "rows"])
def test_fused_residual_relu(cpu_engine, rng, fmt, pad, rfmt, rpad):
    """ResNet's block end as an eltwise: y = relu((a + b) + residual)."""
    xs = _inputs(rng, "sum", (2, 18, 5, 6))
    r = f32(rng.standard_normal(xs[0].shape))
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("sum")), FusedOp("activation", FusedActivationAttrs("relu"))]
    out = _run(cpu_engine, xs, fmt, [pad, Padding()], pad, {"mode": "sum"}, fused,
               [(Layout(DataType.f32, rfmt, r.shape, rpad), r)])
    assert_close(out, np.maximum(fold64("sum", xs) + r, 0))


@pytest.mark.parametrize("func,a,b,ref", [
    ("relu_negative_slope", 0.1, 0.0, lambda v: np.where(v >= 0, v, 0.1 * v)),
    ("logistic", 0.0, 0.0, lambda v: 1 / (1 + np.exp(-v))),
    ("hard_swish", 0.0, 0.0, lambda v: v * np.clip(v + 3, 0, 6) / 6),
    ("elu", 0.7, 0.0, lambda v: np.where(v >= 0, v, 0.7 * np.expm1(v))),
    ("softplus", 0.0, 0.0, lambda v: np.log1p(np.exp(v))),
])
def test_fused_activations(cpu_engine, rng, func, a, b, ref):
    xs = _inputs(rng, "sub", (1, 20, 3, 5))
    out = _run(cpu_engine, xs, FSV16, [Padding()] * 2, Padding(), {"mode": "sub"},
               [FusedOp("activation", FusedActivationAttrs(func, a=a, b=b))])
    assert_close(out, ref(fold64("sub", xs)))


def test_fused_broadcast_operand(cpu_engine, rng):
    """A fused prod with a (C, 1, 1) operand (rank 3 against rank 4: leading dimension added)."""
    xs = _inputs(rng, "max", (2, 19, 3, 4))
    sc = f32(rng.standard_normal((19, 1, 1)))
    out = _run(cpu_engine, xs, FSV16, [Padding()] * 2, Padding(), {"mode": "max"},
               [FusedOp("eltwise", FusedEltwiseAttrs("prod"))], [(Layout(DataType.f32, Format.bfyx, sc.shape), sc)])
    assert_close(out, fold64("max", xs) * sc.astype(np.float64))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scalar_first", [False, True])
def test_one_element_operand(cpu_engine, rng, mode, scalar_first):
    """One input of a single element (a scale or zero point computed at run time) broadcast on the flat path, in
    either operand order; a fused relu after it."""
    x, s = _inputs(rng, mode, (2, 21, 7, 9))
    s = f32(s[:1, :1, :1, :1].reshape(1))
    if mode == "pow" and scalar_first:
        s = f32(np.abs(s) + 0.5)
    if mode == "div":
        x = f32(np.sign(x) * (np.abs(x) + 0.5)) if scalar_first else x
        s = f32(np.sign(s) * (np.abs(s) + 0.5))
    xs = [s, x] if scalar_first else [x, s]
    lays = [Layout(DataType.f32, Format.bfyx, a.shape) for a in xs]
    lout = Layout(DataType.f32, Format.bfyx, x.shape)
    relu = [FusedOp("activation", FusedActivationAttrs("relu"))]
    attrs = {"mode": mode, "coefficients": [0.5, -2.0]} if mode == "sum" else {"mode": mode}
    out, chosen = run_kernel(cpu_engine, "eltwise", lays, lout, attrs, xs, FAST, relu)
    assert chosen == FAST
    full = [np.broadcast_to(a.reshape(-1)[0], x.shape) if a.size == 1 else a for a in xs]
    ref = fold64(mode, full, attrs.get("coefficients"))
    assert_close(out, np.maximum(ref, 0.0), rtol=2e-5, atol=1e-5)
    if mode in ("div", "sub", "prod"):  # one float32 operation: exactly numpy's (QuantizeLinear's x / scale)
        op = {"div": np.divide, "sub": np.subtract, "prod": np.multiply}[mode]
        np.testing.assert_array_equal(out, np.maximum(op(full[0], full[1]), np.float32(0)))


@pytest.mark.parametrize("mode", ["sum", "prod", "sub", "max"])
@pytest.mark.parametrize("shape, row, first", [((197, 24), (24,), False), ((2, 5, 40), (1, 40), True),
                                               ((3, 7, 16), (7, 16), False)], ids=["bias", "rank3", "two-dims"])
def test_row_operand(cpu_engine, rng, mode, shape, row, first):
    """A bias of the output's trailing dims (a dynamically quantized linear's Add after its scale), first or second
    (sub only second), then a fused GELU: numpy's broadcast on the flat buffers, the epilogue after."""
    if mode == "sub" and first:
        pytest.skip("a row operand goes first only for a mode that commutes")
    x, r = f32(rng.standard_normal(shape)), f32(rng.standard_normal(row))
    xs = [r, x] if first else [x, r]
    lays = [Layout(DataType.f32, Format.bfyx, a.shape) for a in xs]
    gelu = [FusedOp("activation", FusedActivationAttrs("gelu"))]
    out, chosen = run_kernel(cpu_engine, "eltwise", lays, Layout(DataType.f32, Format.bfyx, shape), {"mode": mode},
                             xs, FAST, gelu)
    assert chosen == FAST
    a, b = (np.broadcast_to(xs[0].astype(np.float64), shape), np.broadcast_to(xs[1].astype(np.float64), shape))
    v = fold64(mode, [np.ascontiguousarray(a), np.ascontiguousarray(b)])
    from math import erf
    ref = v * 0.5 * (1.0 + np.vectorize(erf)(v / np.sqrt(2.0)))
    assert_close(out, ref, rtol=2e-5, atol=1e-5)


def test_rejects_broadcast_and_int(cpu_engine):
    from kernel_selector.params import Params
    from kernel_selector.selector import candidates

    (k,) = [c for c in candidates("eltwise") if c.name == FAST]
    a = Layout(DataType.f32, Format.bfyx, (1, 4, 3, 3))
    b = Layout(DataType.f32, Format.bfyx, (1, 4, 1, 1))
    p = Params("eltwise", "cpu", [a, b], a, typed_attrs("eltwise", {"mode": "sum"}), device=cpu_engine.info)
    assert "broadcast" in (k.validate(p) or "")
    ai = a.with_(dtype=DataType.i32)
    pi = Params("eltwise", "cpu", [ai, ai], ai, typed_attrs("eltwise", {"mode": "sum"}), device=cpu_engine.info)
    assert k.supported_key().mismatch(pi, None) is not None


def test_network_sum_relu(cpu_engine, rng):
    """Two poolings summed (no convolution to fuse the sum into), relu fused into the eltwise."""
    x = f32(rng.standard_normal((1, 24, 8, 8)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Pooling("p1", "x", mode=cl.PoolingMode.max, kernel=(2, 2), stride=(2, 2)))
    topo.add(cl.Pooling("p2", "x", mode=cl.PoolingMode.average, kernel=(2, 2), stride=(2, 2)))
    topo.add(cl.Eltwise("sum", ["p1", "p2"], mode="sub"))
    topo.add(cl.Activation("act", "sum", "relu"))
    net = cl.Network(cl.Program(cpu_engine, topo))
    assert net.program.node("sum").impl.kernel_name == FAST
    net.poison()
    got = net.run({"x": x})["act"]
    x64 = x.astype(np.float64).reshape(1, 24, 4, 2, 4, 2)
    assert_close(got, np.maximum(x64.max(axis=(3, 5)) - x64.mean(axis=(3, 5)), 0))
