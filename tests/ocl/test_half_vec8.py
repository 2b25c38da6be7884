"""f16 storage in the float8 element-wise kernels and the GPU-tier element-wise ones: eltwise_vec8 (flat variant
with a staged tail of 1-7 elements, b_fs_yx_fsv16 variant padded, channel tails, per-channel operands), its
subclass activation_vec8 (same template), activation_gpu_wg and the eltwise_ref twin eltwise_gpu_wg; each forced,
half in and out and f32 / f16 mixes (each tensor its own storage), vs float64 references on half-rounded random
data. A network built with ``inference_precision="f16"`` runs eltwise_vec8 with a fused activation (FUSED_OPS8)
and pooling_b_fs_yx_fsv16 in half."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Padding
from kernel_selector import Params, selector
from tests.helpers import typed_attrs
from tests.ocl.half import assert_half_close, half_values
from tests.ocl.padded import run_kernel_padded
from tests.references import activation_ref, eltwise_inputs, eltwise_ref, pool_dilated_ref

F16, F32 = cl.DataType.f16, cl.DataType.f32
FSV16, BFYX, BYXF = cl.Format.b_fs_yx_fsv16, cl.Format.bfyx, cl.Format.byxf
E = cl.EltwiseMode
MIXES = [((F16, F16), F16), ((F32, F16), F16), ((F16, F32), F32)]
MIX_IDS = ["hh-h", "fh-h", "hf-f"]


def _tol(dt_out: cl.DataType) -> float:
    return 2e-3 if dt_out == F16 else 1e-5


def _inputs(rng, shapes, mode, dts):
    """eltwise_inputs rounded to half (the values every input holds, whatever its storage), cast to ``dts``."""
    return [half_values(a).astype(dt.numpy) for a, dt in zip(eltwise_inputs(rng, shapes, mode), dts)]


def _selected(engine, kind, ins, out, attrs, tier="cpu") -> str:
    params = Params(kind, engine.kind, ins, out, typed_attrs(kind, attrs), layer_id=kind, device=engine.info,
                    caps=engine.info.caps, kernel_tier=tier)
    return selector.select(params)[0].name


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", [E.sum, E.div, E.max, E.prelu], ids=lambda m: m.value)
@pytest.mark.parametrize("fmt,shape", [(BFYX, (2, 5, 3, 7)), (BYXF, (1, 3, 1, 5)), (FSV16, (1, 32, 2, 3))],
                         ids=["bfyx-tail2", "byxf-count5", "fsv16-flat"])
@pytest.mark.parametrize("dts,dt_out", MIXES, ids=MIX_IDS)
def test_eltwise_vec8_flat_half(ocl_engine, rng, mode, fmt, shape, dts, dt_out):
    arrays = _inputs(rng, [shape] * 2, mode, dts)
    ins = [cl.Layout(dt, fmt, shape) for dt in dts]
    out_l = cl.Layout(dt_out, fmt, shape)
    attrs = {"mode": mode.value}
    assert _selected(ocl_engine, "eltwise", ins, out_l, attrs) == "eltwise_vec8"
    out = run_kernel_padded(ocl_engine, "eltwise", ins, out_l, attrs, arrays, kernel="eltwise_vec8")
    assert out.dtype == dt_out.numpy
    assert_half_close(out, eltwise_ref(arrays, mode), rtol=_tol(dt_out))


@pytest.mark.parametrize("dts,dt_out", [((F16, F16, F16), F16), ((F32, F16, F32), F16), ((F16, F16, F32), F32)],
                         ids=["hhh-h", "fhf-h", "hhf-f"])
def test_eltwise_vec8_fsv16_half(ocl_engine, rng, dts, dt_out):
    """Padded blocked tensors, 21 channels (a tail of 5), three inputs with coefficients."""
    shape, coeffs = (2, 21, 3, 7), (0.5, -1.25, 2.0)
    pads = [Padding((0, 0, 1, 0), (0, 0, 0, 2)), Padding((1, 0, 0, 0), (0, 0, 2, 1)), Padding()]
    arrays = _inputs(rng, [shape] * 3, E.sum, dts)
    ins = [cl.Layout(dt, FSV16, shape, p) for dt, p in zip(dts, pads)]
    out_l = cl.Layout(dt_out, FSV16, shape, Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    attrs = {"mode": "sum", "coefficients": coeffs}
    out = run_kernel_padded(ocl_engine, "eltwise", ins, out_l, attrs, arrays, kernel="eltwise_vec8")
    assert out.dtype == dt_out.numpy
    assert_half_close(out, eltwise_ref(arrays, E.sum, coeffs), rtol=_tol(dt_out))


@pytest.mark.parametrize("first", [False, True])
def test_eltwise_vec8_per_channel_half(ocl_engine, rng, first):
    """A squeeze-excitation scale: an f16 (N, C, 1, 1) operand broadcast over the pixels of padded f16 data."""
    shape = (1, 37, 2, 6)
    data = cl.Layout(F16, FSV16, shape, Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    scale = cl.Layout(F16, FSV16, (1, 37, 1, 1))
    x, s = half_values(rng.standard_normal(shape)), half_values(rng.standard_normal((1, 37, 1, 1)))
    lays, arrays = ([scale, data], [s, x]) if first else ([data, scale], [x, s])
    out_l = cl.Layout(F16, FSV16, shape)
    out = run_kernel_padded(ocl_engine, "eltwise", lays, out_l, {"mode": "prod"}, arrays, kernel="eltwise_vec8")
    assert_half_close(out, eltwise_ref(arrays, E.prod))


ACT_KERNELS = [("activation_vec8", BFYX, (1, 3, 7, 5), Padding(), "cpu"),
               ("activation_vec8", FSV16, (2, 21, 3, 4), Padding((0, 0, 1, 1), (0, 0, 0, 1)), "cpu"),
               ("activation_gpu_wg", FSV16, (2, 21, 3, 4), Padding((0, 0, 1, 1), (0, 0, 0, 1)), "gpu"),
               ("activation_gpu_wg", BYXF, (1, 3, 7, 5), Padding((1, 0, 0, 0), (0, 0, 2, 0)), "gpu")]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("kernel,fmt,shape,pad,tier", ACT_KERNELS, ids=lambda v: getattr(v, "value", v))
@pytest.mark.parametrize("func,a", [("logistic", None), ("hard_swish", None), ("elu", 1.0)])
@pytest.mark.parametrize("dt_in,dt_out", [(F16, F16), (F32, F16), (F16, F32)], ids=["h-h", "f-h", "h-f"])
def test_activation_half(ocl_engine, rng, kernel, fmt, shape, pad, tier, func, a, dt_in, dt_out):
    x = half_values(rng.standard_normal(shape) * 3).astype(dt_in.numpy)
    lin = cl.Layout(dt_in, fmt, shape, pad)
    lout = cl.Layout(dt_out, fmt, shape, pad)
    attrs = cl.Activation("a", "x", func=func, a=a).attrs()
    assert _selected(ocl_engine, "activation", [lin], lout, attrs, tier) == kernel  # chosen on its own in f16 too
    out = run_kernel_padded(ocl_engine, "activation", [lin], lout, attrs, [x], kernel=kernel, kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    assert_half_close(out, activation_ref(x.astype(np.float64), func, a), rtol=_tol(dt_out) if dt_out == F16 else 1e-5)


@pytest.mark.parametrize("mode", [E.sub, E.max], ids=lambda m: m.value)
def test_eltwise_gpu_wg_half_broadcast(ocl_engine, rng, mode):
    """The eltwise_ref twin (its template, its key: FLOATS; like eltwise_ref every input has the output's type):
    broadcasting, a padded blocked output, gpu tier."""
    shape, bshape = (2, 19, 3, 5), (1, 19, 1, 5)
    arrays = _inputs(rng, [shape, bshape], mode, (F16, F16))
    ins = [cl.Layout(F16, BFYX, shape, Padding((0, 0, 1, 0), (0, 0, 0, 1))), cl.Layout(F16, BYXF, bshape)]
    out_l = cl.Layout(F16, FSV16, shape, Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    attrs = {"mode": mode.value}
    assert _selected(ocl_engine, "eltwise", ins, out_l, attrs, "gpu") == "eltwise_gpu_wg"
    out = run_kernel_padded(ocl_engine, "eltwise", ins, out_l, attrs, arrays, kernel="eltwise_gpu_wg",
                            kernel_tier="gpu")
    assert out.dtype == np.float16
    assert_half_close(out, eltwise_ref(arrays, mode))


def test_f16_network_runs_vec8_kernels_in_half(ocl_engine, rng):
    """inference_precision="f16": the blocked sum with its fused relu (FUSED_OPS8, then a half store) and the
    blocked max pooling run in half."""
    xs = [half_values(rng.standard_normal((2, 21, 6, 7))).astype(np.float32) for _ in range(2)]
    t = cl.Topology()
    for i, x in enumerate(xs):
        t.add(cl.InputLayout(f"h{i}", cl.Layout(F32, BFYX, x.shape)))
        t.add(cl.Reorder(f"x{i}", f"h{i}", FSV16))
    t.add(cl.Eltwise("sum", ["x0", "x1"], mode="sum"))
    t.add(cl.Activation("relu", "sum", func="relu"))
    t.add(cl.Pooling("pool", "relu", mode="max", kernel=(3, 3), stride=(2, 2), pad=(1, 1), pad_end=(1, 1)))
    t.add(cl.Reorder("out", "pool", BFYX))
    opts = cl.BuildOptions(kernel_tier="cpu", inference_precision="f16")
    net = cl.Network(cl.Program(ocl_engine, t, opts))
    sum_node, pool = net.program.node("sum"), net.program.node("pool")
    assert net.program.node("relu") is sum_node  # fused
    assert (sum_node.impl.kernel_name, pool.impl.kernel_name) == ("eltwise_vec8", "pooling_b_fs_yx_fsv16")
    assert sum_node.layout().dtype == F16 and pool.layout().dtype == F16
    net.poison()
    out = net.run({"h0": xs[0], "h1": xs[1]})["out"]
    ref = pool_dilated_ref(np.maximum(eltwise_ref(xs, E.sum), 0), cl.PoolingMode.max, (3, 3), (2, 2), (1, 1),
                           (1, 1), (1, 1))
    assert_half_close(out, ref)
