"""fully_connected_gpu_gemv_sg, the sub-group GEMV, vs float64 numpy: run on PoCL with its sub-group collectives
emulated (no device here offers sub-groups), forced, at K and M tile edges, batch 1 and 3, with a fused relu, and
every tuning variant at kernel level with a fused residual sum; and its selection: first at batch 1 on a described
GPU with sub-groups, refused (with the reason) on one without, never preferred when emulated."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs, NoAttrs
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from kernel_selector.kernels.fully_connected.fully_connected_kernel_gpu_gemv_sg import FullyConnectedKernelGpuGemvSg
from kernel_selector.params import FusedOp
from tests.helpers import assert_close, f32
from tests.ocl.gpu_tier import run_every_variant
from tests.references import fc_ref

SG = "fully_connected_gpu_gemv_sg"
GPU_SG = dataclasses.replace(GPU_LIKE, name="described GPU with sub-groups", subgroups=True, intel_subgroups=True,
                             subgroup_sizes=(8, 16, 32))


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about an OpenCL kernel."""
    return ocl_engine


CASES = [((1, 1), 1, True), ((1, 17), 33, True), ((3, 33), 17, False), ((1, 65), 9, True), ((2, 4, 2, 3), 33, True)]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-b{int(c[2])}")
def test_fc_sg_emulated_matches_reference(engine, rng, case, relu):
    """Forced in the gpu tier with emulated sub-groups; the relu (when asked) runs fused in its epilogue."""
    shape, m, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m)) if bias else None
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w))
    if b is not None:
        topo.add(cl.Data("b", b))
    topo.add(cl.FullyConnected("fc", "x", weights="w", bias="b" if b is not None else None))
    out_id = "fc"
    if relu:
        topo.add(cl.Activation("act", "fc", "relu"))
        out_id = "act"
    opts = cl.BuildOptions(kernel_tier="gpu", emulate_subgroups=True, force_implementations={"fc": SG})
    net = cl.Network(cl.Program(engine, topo, opts))
    net.poison()
    out = net.run({"x": x})[out_id]
    node = net.program.node("fc")
    assert node.impl.kernel_name == SG
    assert_close(out, fc_ref(x, w, b, relu=relu), rtol=1e-4, atol=1e-4)


def _params(batch: int, k: int, m: int, caps) -> Params:
    lay = [Layout(DataType.f32, Format.bfyx, (batch, k)), Layout(DataType.f32, Format.bfyx, (m, k)),
           Layout(DataType.f32, Format.bfyx, (m,))]
    return Params("fully_connected", "ocl", lay, Layout(DataType.f32, Format.bfyx, (batch, m)), NoAttrs(),
                  caps=caps, kernel_tier="gpu")


@pytest.mark.parametrize("batch", [1, 3])
def test_fc_sg_every_variant(engine, rng, batch):
    """Every tuning variant through kernel_data(params, variant) with emulated sub-groups (K 33, M 65, bias), a
    residual sum then relu fused in the epilogue; output poisoned with NaN before each run."""
    x, w, b, r = (f32(rng.standard_normal(s)) for s in ((batch, 33), (65, 33), (65,), (batch, 65)))
    caps = dataclasses.replace(engine.info.caps, subgroup_emulation=True)
    params = _params(batch, 33, 65, caps)
    params.device = engine.info
    res_l = Layout(DataType.f32, Format.bfyx, (batch, 65))
    params.fused_ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [res_l], [3]),
                        FusedOp("activation", FusedActivationAttrs("relu"))]
    kernel = FullyConnectedKernelGpuGemvSg()
    for variant in kernel.tune_variants(params):
        assert "#define SG_NATIVE 0" in kernel.kernel_data(params, variant).kernels[0].source
    expect = np.maximum(fc_ref(x, w, b) + r, 0.0)
    for variant, out in run_every_variant(engine, kernel, params, [x, w, b, r]):
        try:
            assert_close(out, expect, rtol=1e-4, atol=1e-4)
        except AssertionError as err:
            raise AssertionError(f"variant {variant}: {err}") from None


def test_sg_selection_follows_the_device():
    """ResNet-50's FC (1 x 2048 -> 1000): the sub-group GEMV on a GPU with sub-groups (its source built for native
    sub-group collectives), the work-group GEMV on one without (explain says why), and never the emulated one by
    choice."""
    assert selector.select(_params(1, 2048, 1000, GPU_SG))[0].name == SG
    (kc,) = FullyConnectedKernelGpuGemvSg().kernel_data(_params(1, 2048, 1000, GPU_SG)).kernels
    assert "#define SG_NATIVE 1" in kc.source and "sub_group_reduce_add" in kc.source
    plain = _params(1, 2048, 1000, GPU_LIKE)
    assert selector.select(plain)[0].name == "fully_connected_gpu_gemv"
    reasons = {v.kernel: v.reason for v in selector.explain(plain)}
    assert "no sub-groups" in (reasons[SG] or "")
    emulated = _params(1, 2048, 1000, dataclasses.replace(GPU_LIKE, subgroup_emulation=True))
    assert selector.select(emulated)[0].name == "fully_connected_gpu_gemv"


def test_sg_variant_that_does_not_fit_is_refused():
    """An emulated variant whose rows do not split evenly over its sub-groups raises ValueError naming it."""
    caps = dataclasses.replace(GPU_LIKE, subgroup_emulation=True)
    with pytest.raises(ValueError, match="not a multiple"):
        FullyConnectedKernelGpuGemvSg().kernel_data(_params(1, 64, 64, caps), {"lws": 128, "rows": 4})
