"""fully_connected_gemv (the fast GEMV kernel) vs a float64 numpy reference: batch 1 and 3, M not a multiple of
the 8 rows per work-item, rank-2 and rank-4 inputs, with and without bias, a fused relu, AlexNet FC6 size, and
the fallback to fully_connected_ref when K % 8 != 0 or the input is not bfyx."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.ocl.networks import fc_network, run_poisoned
from tests.references import fc_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "fully_connected_gemv"


CASES = [
    # input shape, M, bias, relu
    ((1, 64), 13, True, False),
    ((3, 64), 13, True, False),
    ((3, 4, 2, 3), 21, False, False),   # rank 4, K = 24
    ((1, 40), 8, True, True),
    ((3, 2, 16), 19, True, True),       # rank 3, K = 32
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-bias{int(c[2])}-relu{int(c[3])}")
def test_gemv_matches_reference(engine, rng, case):
    shape, m, bias, relu = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m)) if bias else None
    net, out = fc_network(engine, x, w, b, relu)
    node = net.program.node("fc")
    assert node.impl.kernel_name == FAST
    if relu:
        assert len(node.fused_ops) == 1
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, b, relu), rtol=1e-4, atol=1e-4)


def test_gemv_alexnet_fc6(engine, rng):
    """AlexNet FC6: 9216 -> 4096, batch 1, bias and fused relu."""
    x = f32(rng.standard_normal((1, 256, 6, 6)))
    w = f32(rng.standard_normal((4096, 9216)) * 0.01)
    b = f32(rng.standard_normal(4096))
    net, out = fc_network(engine, x, w, b, relu=True)
    assert net.program.node("fc").impl.kernel_name == FAST
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, b, relu=True), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape, fmt", [((2, 20), cl.Format.bfyx), ((2, 16, 2, 2), cl.Format.byxf)],
                         ids=["k20", "byxf"])
def test_gemv_falls_back_to_ref(engine, rng, shape, fmt):
    """K % 8 != 0 or a non-bfyx input (without the layout optimizer): the reference kernel runs, still correct.
    With the optimizer, a non-bfyx input is reordered to bfyx so the fast kernel runs."""
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((9, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(9))
    net, out = fc_network(engine, x, w, b, fmt=fmt, optimize=False)
    assert net.program.node("fc").impl.kernel_name == "fully_connected_ref"
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, b), rtol=1e-4, atol=1e-4)
    net, out = fc_network(engine, x, w, b, fmt=fmt)
    assert net.program.node("fc").impl.kernel_name == ("fully_connected_ref" if shape[1:] == (20,) else FAST)
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, b), rtol=1e-4, atol=1e-4)
