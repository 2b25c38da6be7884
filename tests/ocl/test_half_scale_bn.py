"""f16 storage in scale_ref, scale_gpu_wg, batch_norm_ref, its GPU-tier twin batch_norm_gpu_wg (same template) and
batch_norm_b_fs_yx_fsv16: each forced, data, statistics / scale / bias and output in half, or mixed with f32 (each
tensor its own storage), padded data layouts (NaN halos), blocked data with a channel tail, vs float64 references
on half-rounded random data; a network built with ``inference_precision="f16"`` runs the blocked batch norm with a
fused relu in half (its statistics converted at build)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Padding
from kernel_selector import Params, selector
from tests.helpers import typed_attrs
from tests.ocl.half import assert_half_close, half_values
from tests.ocl.padded import run_kernel_padded
from tests.references import batch_norm_ref, scale_ref

F16, F32 = cl.DataType.f16, cl.DataType.f32
FSV16, BFYX, BYXF = cl.Format.b_fs_yx_fsv16, cl.Format.bfyx, cl.Format.byxf
PAD = Padding((0, 0, 1, 0), (1, 0, 0, 2))
# data, statistics (or scale and bias), output
MIXES = [(F16, F16, F16), (F32, F16, F16), (F16, F32, F32)]
MIX_IDS = ["h-h-h", "f-h-h", "h-f-f"]


def _tol(dt_out: cl.DataType) -> float:
    return 2e-3 if dt_out == F16 else 1e-5


def _vals(a: np.ndarray, dt: cl.DataType) -> np.ndarray:
    """``a`` rounded to half (what every tensor holds, whatever its storage), stored as ``dt``."""
    return half_values(a).astype(dt.numpy)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("kernel,tier", [("scale_ref", "cpu"), ("scale_gpu_wg", "gpu")])
@pytest.mark.parametrize("fmt", [BFYX, FSV16])
@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
def test_scale_half(ocl_engine, rng, kernel, tier, fmt, dts):
    dt_x, dt_s, dt_out = dts
    shape = (2, 19, 3, 5)
    x = _vals(rng.standard_normal(shape), dt_x)
    s = _vals(rng.standard_normal((1, 19, 1, 1)), dt_s)
    b = _vals(rng.standard_normal((19, 1, 1)), dt_s)
    ins = [cl.Layout(dt_x, fmt, shape, PAD), cl.Layout(dt_s, BYXF, s.shape), cl.Layout(dt_s, BFYX, b.shape)]
    out_l = cl.Layout(dt_out, fmt, shape, Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    out = run_kernel_padded(ocl_engine, "scale", ins, out_l, {"has_bias": True}, [x, s, b], kernel=kernel,
                            kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    assert_half_close(out, scale_ref(x, s, b), rtol=_tol(dt_out))


def _bn_case(rng, shape, dts, has_scale, has_shift):
    """Data, statistics ([mean, var, scale?, shift?]) and the float64 reference of a batch norm."""
    dt_x, dt_s, _ = dts
    c = shape[1]
    x = _vals(rng.standard_normal(shape) * 2 + 0.5, dt_x)
    stats = [_vals(rng.standard_normal(c), dt_s), _vals(rng.uniform(0.05, 3.0, c), dt_s)]
    stats += [_vals(rng.standard_normal(c), dt_s) for flag in (has_scale, has_shift) if flag]
    it = iter(stats[2:])
    scale = next(it) if has_scale else None
    shift = next(it) if has_shift else None
    ref = batch_norm_ref(x.astype(np.float64), stats[0], stats[1], scale, shift, 1e-3)
    return x, stats, ref


BN_KERNELS = [("batch_norm_ref", BYXF, "cpu"), ("batch_norm_gpu_wg", FSV16, "gpu"),
              ("batch_norm_b_fs_yx_fsv16", FSV16, "cpu")]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("kernel,fmt,tier", BN_KERNELS, ids=lambda v: getattr(v, "value", v))
@pytest.mark.parametrize("scale_shift", [(True, True), (False, True), (False, False)], ids=["ss", "s", "none"])
@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
def test_batch_norm_half(ocl_engine, rng, kernel, fmt, tier, scale_shift, dts):
    shape = (2, 37, 3, 5)
    x, stats, ref = _bn_case(rng, shape, dts, *scale_shift)
    ins = [cl.Layout(dts[0], fmt, shape, PAD)] + [cl.Layout(dts[1], BFYX, (s.size,)) for s in stats]
    out_l = cl.Layout(dts[2], fmt, shape, Padding((0, 0, 1, 1), (0, 0, 0, 1)))
    attrs = {"epsilon": 1e-3, "has_scale": scale_shift[0], "has_shift": scale_shift[1]}
    params = Params("batch_norm", ocl_engine.kind, ins, out_l, typed_attrs("batch_norm", attrs), layer_id="bn",
                    device=ocl_engine.info, caps=ocl_engine.info.caps, kernel_tier=tier)
    if fmt == FSV16:
        assert selector.select(params)[0].name == kernel  # chosen on its own in f16 too
    out = run_kernel_padded(ocl_engine, "batch_norm", ins, out_l, attrs, [x, *stats], kernel=kernel,
                            kernel_tier=tier)
    assert out.dtype == dts[2].numpy
    assert_half_close(out, ref, rtol=_tol(dts[2]))


def test_batch_norm_refuses_integer_statistics():
    x = cl.Layout(F16, BFYX, (1, 4, 2, 2))
    st = cl.Layout(cl.DataType.i32, BFYX, (4,))
    params = Params("batch_norm", "ocl", [x, st, st], x, typed_attrs("batch_norm", {"epsilon": 1e-3}))
    verdicts = {v.kernel: v.reason for v in selector.explain(params)}
    assert "input 1 data type i32 is not f32 or f16" in verdicts["batch_norm_ref"]


def test_f16_network_runs_batch_norm_fsv16_in_half(ocl_engine, rng):
    """inference_precision="f16": the blocked batch norm takes its fused relu (FUSED_OPS8) in half; its constant
    statistics are stored as half."""
    shape = (1, 21, 4, 6)
    x, stats, ref = _bn_case(rng, shape, (F32, F32, F32), True, True)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, shape)), cl.Reorder("xb", "x", format=FSV16))
    for name, v in zip(("mean", "var", "scale", "shift"), stats):
        topo.add(cl.Data(name, v))
    topo.add(cl.BatchNorm("bn", "xb", mean="mean", variance="var", scale="scale", shift="shift", epsilon=1e-3))
    topo.add(cl.Activation("act", "bn", "relu"))
    topo.add(cl.Reorder("out", "act", format=BFYX))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu", inference_precision="f16")))
    bn = net.program.node("bn")
    assert net.program.node("act") is bn and bn.impl.kernel_name == "batch_norm_b_fs_yx_fsv16"
    assert bn.layout().dtype == F16 and all(d.layout().dtype == F16 for d in bn.dependencies)
    net.poison()
    assert_half_close(net.run({"x": x})["out"], np.maximum(ref, 0))
