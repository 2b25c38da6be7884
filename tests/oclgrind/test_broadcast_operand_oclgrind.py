"""The kernels this session's int8 work changed, under Oclgrind: a convolution whose epilogue reads a one-element
and a per-channel operand (fuse_eltwise_operand, FUSED_OPS8's broadcast reads and the GPU tier's scalar FUSED_OPS; a
channel tail of 12 outputs). Clean log and correct results."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.passes.test_fuse_eltwise_operand import _net

pytestmark = pytest.mark.oclgrind


@pytest.mark.parametrize("tier", ["cpu", "gpu"])
def test_broadcast_operands_in_the_convolution_epilogue_are_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, tier):
    t, feeds, ref = _net(rng, 12)
    net = cl.Network(cl.Program(oclgrind_engine, t, cl.BuildOptions(kernel_tier=tier)))
    net.poison()
    got = net.run(feeds)["relu"]
    status = {p.id: p.kernel for p in net.get_profiling_info() if p.status == "FUSED"}
    assert status.get("add") == "fused into conv", status
    oclgrind_log.assert_clean()
    np.testing.assert_allclose(got, ref(feeds["s"]), rtol=1e-5, atol=1e-5)

