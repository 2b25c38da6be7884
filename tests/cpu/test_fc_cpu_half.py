"""f16 storage in fully_connected_cpu_blas (issue 18): the small-batch path (numba ``fc_rows``) with half weights
converted as they stream, and half input, bias and output converted on the host, vs float64 references on
half-rounded random values; the cases where f16 is refused (BLAS batches, padded weights); and an MLP built with
``inference_precision="f16"`` on the CPU engine: its hidden fully connected layers store half (half weights, half
activations, converting reorders at the edges), the result stays within 1e-2 of the f32 run, constants shrink.

All cases share one numba specialization of ``fc_rows`` (uint16 weights; the f32 one is the other tests').
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops import FusedActivationAttrs, NoAttrs
from kernel_selector import Params, selector
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.ocl.half import assert_half_close
from tests.references import fc_ref

FAST = "fully_connected_cpu_blas"
F16, F32 = cl.DataType.f16, cl.DataType.f32
BFYX, FSV16 = cl.Format.bfyx, cl.Format.b_fs_yx_fsv16
RELU = [FusedOp("activation", FusedActivationAttrs("relu"))]
HALF_ROUNDING = 2.0**-11 + 1e-4  # one rounding to half, plus float32 accumulation

# input shape (N, ...: K = 45 or 57, not a multiple of the 8-float vectors' 16-element unroll), M (odd: a last
# weight-row pair of one row), storage of (input, weights, bias, output), input format and padding, output padding
CASES = [
    ((1, 45), 13, (F32, F16, F32, F32), BFYX, cl.Padding(), cl.Padding()),                 # half weights only
    ((1, 45), 13, (F16, F16, F16, F16), BFYX, cl.Padding(), cl.Padding()),                 # all half (the pass's)
    ((3, 45), 21, (F16, F16, F16, F16), BFYX, cl.Padding(), cl.Padding()),                 # 2 x 1 blocks
    ((3, 45), 21, (F32, F16, F16, F32), BFYX, cl.Padding(), cl.Padding((0, 1, 0, 0), (1, 2, 0, 0))),  # padded out
    ((6, 19, 3, 1), 9, (F16, F16, F32, F16), FSV16, cl.Padding((0, 0, 1, 0), (0, 0, 0, 1)), cl.Padding()),  # 2 x 4
]


def _ids(c):
    return f"n{c[0][0]}-m{c[1]}-" + "".join("h" if d == F16 else "f" for d in c[2]) + f"-{c[3].value}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_fc_half_storage_matches_reference(cpu_engine, rng, case):
    """Forced and chosen unforced: the output (poisoned with NaN first) within one half rounding (2^-11 relative)
    of the float64 product of the half-rounded values (f32 output: float32 accumulation only), bias and fused relu
    included."""
    shape, m, dts, xfmt, xpad, opad = case
    k = int(np.prod(shape[1:]))
    arrays = [rng.standard_normal(shape), rng.standard_normal((m, k)), rng.standard_normal(m)]
    vals = [a.astype(dt.numpy) for a, dt in zip(arrays, dts)]
    lays = [cl.Layout(dts[0], xfmt, shape, xpad), cl.Layout(dts[1], BFYX, (m, k)), cl.Layout(dts[2], BFYX, (m,))]
    lout = cl.Layout(dts[3], BFYX, (shape[0], m), opad)
    out, chosen = run_kernel(cpu_engine, "fully_connected", lays, lout, {}, vals, FAST, fused=RELU)
    assert chosen == FAST
    assert out.dtype == dts[3].numpy
    ref = fc_ref(*[v.astype(np.float64) for v in vals], relu=True)
    assert_half_close(out, ref, rtol=HALF_ROUNDING if dts[3] == F16 else 1e-5, atol=1e-4)


def _reason(cpu_engine, n: int, wpad: cl.Padding | None = None) -> str | None:
    lays = [cl.Layout(F16, BFYX, (n, 32)), cl.Layout(F16, BFYX, (8, 32), wpad or cl.Padding())]
    p = Params("fully_connected", "cpu", lays, cl.Layout(F16, BFYX, (n, 8)), NoAttrs(), device=cpu_engine.info)
    return {v.kernel: v.reason for v in selector.explain(p)}[FAST]


def test_fc_half_only_on_the_small_batch_path(cpu_engine):
    """f16 at N > SMALL_BATCH (BLAS) and with padded weights is refused with its reason; N = 16 is accepted."""
    assert _reason(cpu_engine, 16) is None
    assert "small-batch" in (_reason(cpu_engine, 17) or "")
    assert "unpadded" in (_reason(cpu_engine, 2, cl.Padding((0, 0, 0, 0), (0, 3, 0, 0))) or "")


def mlp(x_shape: tuple[int, int], ws: list[np.ndarray], bs: list[np.ndarray]) -> cl.Topology:
    """x -> fc0 + relu -> fc1 + relu -> fc2 (the output)."""
    t = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, x_shape)))
    src = "x"
    for i, (w, b) in enumerate(zip(ws, bs)):
        t.add(cl.Data(f"w{i}", w), cl.Data(f"b{i}", b), cl.FullyConnected(f"fc{i}", src, weights=f"w{i}", bias=f"b{i}"))
        src = f"fc{i}"
        if i < len(ws) - 1:
            t.add(cl.Activation(f"relu{i}", src, "relu"))
            src = f"relu{i}"
    return t


def _weights(rng, sizes: list[int]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    ws = [(rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32) for i, o in zip(sizes, sizes[1:])]
    return ws, [rng.standard_normal(o).astype(np.float32) for o in sizes[1:]]


def test_f16_mlp_on_the_cpu_engine(cpu_engine, rng):
    """inference_precision="f16" at batch 3: fc0 and fc1 (relu fused) store half with half weights and keep
    fully_connected_cpu_blas; fc2, the output, stays f32; reorder_cpu_half converts at the two edges. Within 1e-2
    of the f32 run, and the constants take less memory."""
    sizes = [70, 48, 40, 10]
    ws, bs = _weights(rng, sizes)
    x = rng.standard_normal((3, sizes[0])).astype(np.float32)
    nets = {p: cl.Network(cl.Program(cpu_engine, mlp(x.shape, ws, bs), cl.BuildOptions(inference_precision=p)))
            for p in ("f32", "f16")}
    prog = nets["f16"].program
    dt = {n.id: n.layout().dtype for n in prog.order}
    assert dt["fc0"] == dt["fc1"] == F16 and dt["fc2"] == F32
    assert dt["w0"] == dt["w1"] == dt["b0"] == dt["b1"] == F16 and dt["w2"] == F32
    for fc in ("fc0", "fc1", "fc2"):
        assert prog.node(fc).impl.kernel_name == FAST
    reorders = {n.id: n.impl.kernel_name for n in prog.order if n.kind == "reorder"}
    assert reorders == {"x__to_f16": "reorder_cpu_half", "fc1__to_f32": "reorder_cpu_half"}
    assert all(n.layout().dtype == F32 for n in nets["f32"].program.order)
    out = {}
    for p, net in nets.items():
        net.poison()
        out[p] = net.run({"x": x})["fc2"]
    assert out["f16"].dtype == np.float32
    ref = out["f32"].astype(np.float64)
    np.testing.assert_allclose(out["f16"], ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max())
    assert not np.array_equal(out["f16"], out["f32"])  # it did run in half
    mem16, mem32 = nets["f16"].memory_info()["constants"], nets["f32"].memory_info()["constants"]
    assert mem32 - mem16 == sum(a.nbytes for a in (*ws[:2], *bs[:2])) // 2  # the hidden layers' constants halved


def test_f16_mlp_at_a_blas_batch_stays_f32(cpu_engine, rng):
    """At batch 20 the product is BLAS (float32 only): convert_precision leaves every layer in f32 (build only)."""
    sizes = [24, 16, 8]
    ws, bs = _weights(rng, sizes)
    prog = cl.Program(cpu_engine, mlp((20, sizes[0]), ws, bs), cl.BuildOptions(inference_precision="f16"))
    assert all(n.layout().dtype == F32 for n in prog.order)
