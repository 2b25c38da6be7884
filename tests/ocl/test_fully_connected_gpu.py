"""The GPU-tier fully connected kernels vs float64 numpy, forced in the gpu tier: fully_connected_gpu_tiled (any
batch) and fully_connected_gpu_gemv (first up to batch 16, 8 batch items per work-group), K and M of 1, 17, 33, 65
(tile edges), batch 1, 3, 8, 9 and 17 (batch blocks of 8 with tails), rank 2 and 4 inputs, with and without
bias, a fused relu (network) and a fused residual sum + relu (kernel level, every tuning variant); and the
selection for a ResNet-50-like FC (N x 2048 -> 1000) on the described GPU_LIKE device."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs, NoAttrs
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gpu_gemv import FullyConnectedKernelGpuGemv
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gpu_tiled import FullyConnectedKernelGpuTiled
from kernel_selector.params import FusedOp
from tests.helpers import assert_close, f32
from tests.ocl.gpu_tier import run_every_variant
from tests.references import fc_ref

TILED, GEMV = "fully_connected_gpu_tiled", "fully_connected_gpu_gemv"


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels."""
    return ocl_engine


def run_fc(engine, kernel, x, w, b=None, relu=False):
    """x -> fc [-> relu] in the gpu tier, fc forced to ``kernel`` (None: the selector's choice; a forced
    node takes no fused ops); returns (output, node)."""
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    feeds = {"x": x}
    topo.add(cl.Data("w", w))
    if b is not None:
        topo.add(cl.Data("b", b))
    topo.add(cl.FullyConnected("fc", "x", weights="w", bias="b" if b is not None else None))
    out = "fc"
    if relu:
        topo.add(cl.Activation("act", out, "relu"))
        out = "act"
    opts = cl.BuildOptions(kernel_tier="gpu", force_implementations={"fc": kernel} if kernel else {})
    net = cl.Network(cl.Program(engine, topo, opts))
    net.poison()
    return net.run(feeds)[out], net.program.node("fc")


CASES = [
    # input shape, M, bias
    ((1, 1), 1, True),
    ((1, 17), 33, True),
    ((3, 33), 17, False),
    ((3, 65), 65, True),
    ((1, 65), 17, False),
    ((3, 4, 2, 3), 33, True),   # rank 4, K = 24
    ((17, 33), 65, True),       # batch past one row tile of the 8 x 8 tile; GEMV: batch blocks 8 + 8 + 1
    ((8, 40), 9, True),         # GEMV: one full batch block
    ((9, 2, 5, 3), 5, False),   # GEMV: batch blocks 8 + 1, rank 4
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("kernel", [TILED, GEMV])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-b{int(c[2])}")
def test_fc_gpu_matches_reference(engine, rng, kernel, case):
    """Each kernel forced, at every shape (batch 1 or more, edges of K and M)."""
    shape, m, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m)) if bias else None
    out, node = run_fc(engine, kernel, x, w, b)
    assert node.impl.kernel_name == kernel
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


FUSED = [
    # input shape, M, the kernel the gpu tier picks
    ((1, 65), 33, GEMV),
    ((1, 17), 65, GEMV),
    ((3, 33), 17, GEMV),
    ((3, 2, 3, 3), 65, GEMV),
    ((17, 33), 17, TILED),
]


@pytest.mark.parametrize("case", FUSED, ids=lambda c: f"{c[0]}-m{c[1]}")
def test_fc_gpu_fused_relu(engine, rng, case):
    """The gpu tier's own choice (GEMV up to batch 16, tiled above) with the relu fused into it (a residual sum fuses
    into convolutions only: :func:`test_fc_gpu_every_variant` fuses one at the kernel level)."""
    shape, m, want = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m))
    out, node = run_fc(engine, None, x, w, b, relu=True)
    assert node.impl.kernel_name == want
    assert [op.kind for op in node.fused_ops] == ["activation"]
    assert_close(out, fc_ref(x, w, b, relu=True), rtol=1e-4, atol=1e-4)


def _fc_params(shape: tuple[int, ...], m: int, bias: bool = True) -> Params:
    k = int(np.prod(shape[1:]))
    lay = [Layout(DataType.f32, Format.bfyx, shape), Layout(DataType.f32, Format.bfyx, (m, k))]
    if bias:
        lay.append(Layout(DataType.f32, Format.bfyx, (m,)))
    out = Layout(DataType.f32, Format.bfyx, (shape[0], m))
    return Params("fully_connected", "ocl", lay, out, NoAttrs(), caps=GPU_LIKE, kernel_tier="gpu")


@pytest.mark.parametrize("kernel_cls", [FullyConnectedKernelGpuTiled, FullyConnectedKernelGpuGemv])
@pytest.mark.parametrize("batch", [1, 3, 9])
def test_fc_gpu_every_variant(engine, rng, kernel_cls, batch):
    """Each tuning variant through kernel_data(params, variant), run directly (K 33, M 65, bias) with a fused
    residual sum then relu in the epilogue."""
    x, w, b, r = (f32(rng.standard_normal(s)) for s in ((batch, 33), (65, 33), (65,), (batch, 65)))
    params = _fc_params((batch, 33), 65)
    params.device = engine.info
    res_l = Layout(DataType.f32, Format.bfyx, (batch, 65))
    params.fused_ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [res_l], [3]),
                        FusedOp("activation", FusedActivationAttrs("relu"))]
    expect = np.maximum(fc_ref(x, w, b) + r, 0.0)
    for variant, out in run_every_variant(engine, kernel_cls(), params, [x, w, b, r]):
        try:
            assert_close(out, expect, rtol=1e-4, atol=1e-4)
        except AssertionError as err:
            raise AssertionError(f"variant {variant}: {err}") from None


def test_gpu_like_selects_gemv_up_to_batch_16_and_tiled_above():
    """ResNet-50's FC (N x 2048 -> 1000) on the described GPU: the GEMV kernel up to batch 16 (bound by the weight
    reads, each weight read once per 8 batch items), the tiled one above."""
    assert selector.select(_fc_params((1, 2048), 1000))[0].name == GEMV
    assert selector.select(_fc_params((8, 2048), 1000))[0].name == GEMV
    assert selector.select(_fc_params((16, 2048), 1000))[0].name == GEMV
    assert selector.select(_fc_params((17, 2048), 1000))[0].name == TILED
