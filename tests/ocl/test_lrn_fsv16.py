"""lrn_b_fs_yx_fsv16 (blocked LRN across channels) vs the float64 numpy reference (tests/references.py).

Padded b_fs_yx_fsv16 buffers (run_kernel_padded: input padding and block tails hold NaN, which must not reach any
window sum; the output's padding and block tail must keep their sentinel), channel counts that are not multiples
of 16 (window reaching into the neighbouring slices and past the last channel), batch 2, odd widths that leave a
partial pixel block, even and odd sizes. Each case asserts the selector picks the fast kernel on its own.
"""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params, selector
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded
from tests.references import lrn_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "lrn_b_fs_yx_fsv16"

CASES = [
    # shape, size, alpha, beta, k, input padding (lower, upper), output padding
    ((2, 37, 5, 7), 5, 0.5, 0.75, 2.0, ((0, 0, 1, 2), (1, 0, 2, 1)), ((0, 0, 2, 2), (0, 0, 2, 2))),  # AlexNet
    ((1, 64, 3, 9), 5, 1.0, 0.75, 1.0, ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 1, 1), (0, 0, 1, 1))),  # GoogLeNet
    ((2, 20, 3, 5), 4, 0.9, 0.6, 1.0, ((0, 0, 1, 0), (0, 0, 0, 1)), ((0, 0, 0, 0), (0, 0, 0, 0))),   # even size
    ((1, 5, 4, 3), 9, 1.0, 1.0, 0.5, ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),    # C < size
    ((1, 33, 2, 6), 1, 2.0, 0.5, 1.5, ((0, 0, 0, 1), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),   # size 1
    ((1, 48, 3, 2), 33, 0.8, 0.7, 1.2, ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),  # reach 16
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-n{c[1]}")
def test_fsv16_lrn_matches_reference(engine, rng, case):
    shape, size, alpha, beta, k, in_pad, out_pad = case
    x = f32(rng.standard_normal(shape) * 2)
    attrs = {"size": size, "alpha": alpha, "beta": beta, "k": k}
    lin = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding(*in_pad))
    lout = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding(*out_pad))
    params = Params("lrn", engine.kind, [lin], lout, typed_attrs("lrn", attrs), layer_id="lrn", device=engine.info)
    kern, kd = selector.select(params)
    assert kern.name == FAST  # chosen on its own, not forced
    assert f"#define BETA_075 {int(beta == 0.75)}" in kd.kernels[0].source  # the sqrt form for beta 0.75
    out = run_kernel_padded(engine, "lrn", [lin], lout, attrs, [x], kernel=FAST)
    assert_close(out, lrn_ref(x, size, alpha, beta, k), rtol=1e-4, atol=1e-5)


def test_fsv16_lrn_in_a_network(engine, rng):
    """Reorder(fsv16) -> LRN -> Reorder(bfyx): the program selects the fast kernel; outputs poisoned first."""
    x = f32(rng.standard_normal((2, 21, 5, 9)) * 2)
    t = cl.Topology()
    t.add(cl.InputLayout("x_host", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    t.add(cl.Reorder("x", "x_host", cl.Format.b_fs_yx_fsv16))
    t.add(cl.LRN("lrn", "x", size=5, alpha=0.6, beta=0.75, k=1.0))
    t.add(cl.Reorder("out", "lrn", cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, t, cpu_tier()))
    assert net.program.node("lrn").impl.kernel_name == FAST
    net.poison()
    assert_close(net.run({"x_host": x})["out"], lrn_ref(x, 5, 0.6, 0.75, 1.0), rtol=1e-4, atol=1e-5)


def test_fsv16_lrn_rejects_a_window_past_the_neighbours():
    """size 35 reaches 17 channels to each side: the reason names it, lrn_ref runs it."""
    lay = Layout(DataType.f32, Format.b_fs_yx_fsv16, (1, 40, 2, 2))
    params = Params("lrn", "ocl", [lay], lay, typed_attrs("lrn", {"size": 35, "alpha": 1.0, "beta": 0.75, "k": 1.0}))
    verdicts = {v.kernel: v.reason for v in selector.explain(params)}
    assert "size 35" in verdicts[FAST] and verdicts["lrn_ref"] is None
