"""f16 storage in the OpenCL fully connected kernels (issue 18): each kernel forced with half inputs, weights, bias
and output, and mixed (f32 activations with f16 weights, f16 in with f32 out ...), vs float64 references on the
half-rounded random values: fully_connected_ref (padded bfyx, padded b_fs_yx_fsv16 with 19 channels),
fully_connected_gemv (its call-free F16C loads, subnormal weights), fully_connected_gemm (os_iyx_osv16 weights, the
three store paths, every row tile, a fused f16 eltwise operand), the GPU tier (fully_connected_gpu_gemv,
fully_connected_gpu_tiled, fully_connected_gpu_gemv_sg with emulated sub-groups: every tuning variant); an f16
network (inference_precision="f16") keeps the GEMV; non-float weights are refused."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs, NoAttrs
from kernel_selector import Params, selector
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gemm import TUNE_TILES
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gpu_gemv import FullyConnectedKernelGpuGemv
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gpu_gemv_sg import FullyConnectedKernelGpuGemvSg
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gpu_tiled import FullyConnectedKernelGpuTiled
from kernel_selector.params import FusedOp
from tests.ocl.gpu_tier import upload_inputs
from tests.ocl.half import HALF_RTOL, assert_half_close
from tests.ocl.padded import run_kernel_padded
from tests.references import fc_ref

F16, F32 = cl.DataType.f16, cl.DataType.f32
BFYX, FSV16, OSV16 = cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.os_iyx_osv16
# (input, weights, bias, output) storage: all half, f32 activations with half weights, half in with f32 out
MIXES = [(F16, F16, F16, F16), (F32, F16, F32, F32), (F16, F32, F16, F32), (F32, F32, F16, F16)]
MIX_IDS = ["all16", "w16", "in16-out32", "out16"]


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: f16 storage is an OpenCL-kernel feature."""
    return ocl_engine


def fc_arrays(rng, shape, m):
    """x (shape), W (M, K), bias (M): seeded random float32."""
    k = int(np.prod(shape[1:]))
    return [rng.standard_normal(shape).astype(np.float32), rng.standard_normal((m, k)).astype(np.float32),
            rng.standard_normal(m).astype(np.float32)]


def run_fc(engine, lays, lout, arrays, kernel, **kw):
    """Round ``arrays`` to their layouts' storage, run ``kernel`` forced (run_kernel_padded: poisoned padding and
    output), check the output's dtype and compare with fc_ref of the rounded values (half tolerance for an f16
    output, 1e-4 for f32)."""
    vals = [a.astype(lay.dtype.numpy) for a, lay in zip(arrays, lays)]
    out = run_kernel_padded(engine, "fully_connected", lays, lout, {}, vals, kernel=kernel, **kw)
    assert out.dtype == lout.dtype.numpy
    ref = fc_ref(*[v.astype(np.float64) for v in vals], *([None] if len(vals) == 2 else []))
    assert_half_close(out, ref, rtol=HALF_RTOL if lout.dtype == F16 else 1e-4)


@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
@pytest.mark.parametrize("fmt", [BFYX, FSV16])
def test_fc_ref_half_padded(engine, rng, fmt, dts):
    """fully_connected_ref: 19 channels (b_fs_yx_fsv16: a partial slice), padded input, weights and output."""
    x, w, b = fc_arrays(rng, (2, 19, 3, 2), 9)
    pad_f = 0 if fmt.is_blocked else 2
    lays = [cl.Layout(dts[0], fmt, x.shape, cl.Padding((0, pad_f, 1, 2), (1, 0, 2, 1))),
            cl.Layout(dts[1], BFYX, w.shape, cl.Padding((0, 0, 0, 0), (0, 3, 0, 0))), cl.Layout(dts[2], BFYX, b.shape)]
    lout = cl.Layout(dts[3], BFYX, (2, 9), cl.Padding((1, 2, 0, 0), (0, 1, 0, 0)))
    run_fc(engine, lays, lout, [x, w, b], "fully_connected_ref")


@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
@pytest.mark.parametrize("shape, m", [((1, 64), 13), ((3, 4, 2, 3), 21)], ids=["b1-m13", "b3-rank4"])
def test_fc_gemv_half(engine, rng, shape, m, dts):
    """fully_connected_gemv: M not a multiple of its 8 rows, batch 1 and 3, a padded output."""
    x, w, b = fc_arrays(rng, shape, m)
    lays = [cl.Layout(dt, BFYX, a.shape) for dt, a in zip(dts, (x, w, b))]
    lout = cl.Layout(dts[3], BFYX, (shape[0], m), cl.Padding((0, 1, 0, 0), (0, 2, 0, 0)))
    run_fc(engine, lays, lout, [x, w, b], "fully_connected_gemv")


def test_fc_gemv_subnormal_half_weights(engine, rng):
    """Half weights of 1e-7-1e-5 (subnormal in half: the call-free F16C load must renormalize them exactly), f32
    activations and output, no bias: each output within 1e-4 of the float64 sum."""
    x = rng.standard_normal((2, 48)).astype(np.float32)
    w = (rng.standard_normal((11, 48)) * 3e-6).astype(np.float32)
    assert (np.abs(w.astype(np.float16)) < 6.1e-5).all() and np.count_nonzero(w.astype(np.float16)) > 400
    lays = [cl.Layout(F32, BFYX, x.shape), cl.Layout(F16, BFYX, w.shape)]
    run_fc(engine, lays, cl.Layout(F32, BFYX, (2, 11)), [x, w], "fully_connected_gemv")


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("dts", MIXES[:3], ids=MIX_IDS[:3])
@pytest.mark.parametrize("m", [32, 24, 20], ids=["m16k", "m8k", "m-odd"])
def test_fc_gemm_half_every_tile(engine, rng, m, dts):
    """fully_connected_gemm (batch 10, os_iyx_osv16 weights): float8 stores (M % 16 == 0, M % 16 == 8) and scalar
    stores (M = 20), each row tile of its tuning variants."""
    x, w, b = fc_arrays(rng, (10, 24), m)
    lays = [cl.Layout(dts[0], BFYX, x.shape), cl.Layout(dts[1], OSV16, w.shape), cl.Layout(dts[2], BFYX, b.shape)]
    lout = cl.Layout(dts[3], BFYX, (10, m))
    for tile in TUNE_TILES:
        run_fc(engine, lays, lout, [x, w, b], "fully_connected_gemm", variant={"tile": tile})


def run_fused(engine, params, arrays, kernel):
    """Run ``kernel`` forced on ``params`` (fused ops' extra inputs after the inputs in ``arrays``) into an output
    poisoned with NaN; returns the logical output in its own dtype."""
    mems = upload_inputs(engine, params, arrays)
    out_l = params.output
    out = engine.allocate(out_l)
    engine.write_buffer(out.buffer, np.full(out_l.buffer_size, np.nan, dtype=out_l.dtype.numpy))
    (kc,) = selector.select(params, kernel)[1].kernels
    knl = engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
    engine.enqueue_kernel(knl, kc.gws, kc.lws).wait()
    raw = np.empty(out_l.buffer_size, dtype=out_l.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    return out_l.from_physical(raw)


@pytest.mark.parametrize("kernel, n, wfmt", [("fully_connected_gemm", 10, OSV16), ("fully_connected_gemv", 3, BFYX)])
def test_fc_half_fused_eltwise_and_relu(engine, rng, kernel, n, wfmt):
    """All f16, a fused residual sum read from an f16 operand (FUSED_OPS8 in the GEMM, FUSED_OPS in the GEMV),
    then a fused relu."""
    m = 24
    x, w, b = fc_arrays(rng, (n, 32), m)
    r = rng.standard_normal((n, m)).astype(np.float16)
    lays = [cl.Layout(F16, BFYX, x.shape), cl.Layout(F16, wfmt, w.shape), cl.Layout(F16, BFYX, b.shape)]
    r_l = cl.Layout(F16, BFYX, r.shape)
    ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [r_l], [3]),
           FusedOp("activation", FusedActivationAttrs("relu"))]
    params = Params("fully_connected", "ocl", lays, cl.Layout(F16, BFYX, (n, m)), NoAttrs(), ops, "fc", engine.info,
                    caps=engine.info.caps, kernel_tier="cpu")
    vals = [a.astype(np.float16) for a in (x, w, b)]
    out = run_fused(engine, params, [*vals, r], kernel)
    assert out.dtype == np.float16
    ref = np.maximum(fc_ref(*(v.astype(np.float64) for v in vals)) + r.astype(np.float64), 0.0)
    assert_half_close(out, ref)


GPU_CASES = [((3, 33), 17), ((9, 2, 5, 3), 5), ((1, 65), 9)]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("dts", MIXES[:2], ids=MIX_IDS[:2])
@pytest.mark.parametrize("case", GPU_CASES, ids=lambda c: f"{c[0]}-m{c[1]}")
@pytest.mark.parametrize("kernel", [FullyConnectedKernelGpuGemv, FullyConnectedKernelGpuTiled,
                                    FullyConnectedKernelGpuGemvSg], ids=lambda k: k.name)
def test_fc_gpu_tier_half_every_variant(engine, rng, kernel, case, dts):
    """The GPU-tier kernels (gpu tier Params; the sub-group GEMV with emulated sub-groups), K and M at tile edges,
    batch blocks with tails, every tuning variant."""
    shape, m = case
    x, w, b = fc_arrays(rng, shape, m)
    lays = [cl.Layout(dt, BFYX, a.shape) for dt, a in zip(dts, (x, w, b))]
    lout = cl.Layout(dts[3], BFYX, (shape[0], m))
    caps = dataclasses.replace(engine.info.caps, subgroup_emulation=True)
    params = Params("fully_connected", "ocl", lays, lout, NoAttrs(), caps=caps, kernel_tier="gpu")
    variants = kernel().tune_variants(params)
    assert len(variants) > 1
    for variant in variants:
        run_fc(engine, lays, lout, [x, w, b], kernel.name, variant=variant, kernel_tier="gpu", caps=caps)


@pytest.mark.parametrize("batch, kernel", [(2, "fully_connected_gemv"), (10, "fully_connected_gemm")])
def test_f16_network_keeps_the_fast_kernel(engine, rng, batch, kernel):
    """inference_precision="f16": x -> fc1 + relu (f16 with f16 weights, the kernel f32 would run: the GEMV, or at
    batch 10 the GEMM with packed os_iyx_osv16 weights) -> fc2 (a network output: f32); within half rounding of
    the float64 network on the f16-rounded values."""
    x, w1, b1 = fc_arrays(rng, (batch, 64), 40)
    _, w2, b2 = fc_arrays(rng, (batch, 40), 12)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, x.shape)), cl.Data("w1", w1), cl.Data("b1", b1),
                       cl.Data("w2", w2), cl.Data("b2", b2), cl.FullyConnected("fc1", "x", weights="w1", bias="b1"),
                       cl.Activation("act", "fc1", "relu"), cl.FullyConnected("fc2", "act", weights="w2", bias="b2"))
    opts = cl.BuildOptions(inference_precision="f16", kernel_tier="cpu")
    net = cl.Network(cl.Program(engine, topo, opts))
    fc1 = net.program.node("fc1")
    assert fc1.impl.kernel_name == kernel
    assert fc1.layout().dtype == F16 and fc1.dependencies[1].layout().dtype == F16
    net.poison()
    out = net.run({"x": x})["fc2"]
    assert out.dtype == np.float32
    h = [a.astype(np.float16).astype(np.float64) for a in (x, w1, b1, w2, b2)]
    hidden = fc_ref(h[0], h[1], h[2], relu=True).astype(np.float16).astype(np.float64)
    assert_half_close(out, fc_ref(hidden, h[3], h[4]), rtol=4e-3)


@pytest.mark.parametrize("kernel", ["fully_connected_ref", "fully_connected_gemv"])
def test_non_float_weights_are_refused(engine, kernel):
    """i8 weights with f16 data: the key passes (it checks the data input), validate() names the weights."""
    lays = [cl.Layout(F16, BFYX, (1, 16)), cl.Layout(cl.DataType.i8, BFYX, (8, 16))]
    params = Params("fully_connected", "ocl", lays, cl.Layout(F16, BFYX, (1, 8)), NoAttrs(), caps=engine.info.caps,
                    kernel_tier="cpu")
    reasons = {v.kernel: v.reason for v in selector.explain(params)}
    assert "f32 or f16" in (reasons[kernel] or "")
