"""pooling_b_fs_yx_fsv16 (blocked pooling) vs the float64 numpy reference (tests/references.py).

Padded b_fs_yx_fsv16 buffers are exercised directly (run_kernel_padded: the input's padding and block tails hold
NaN and must never win or leak, the output's padding and block tail must keep their sentinel), with channel counts
that are not multiples of 16, batch 2, odd spatial sizes, every mode, pads, ceil mode, dilation and global pooling;
each case asserts the selector picks the fast kernel on its own. A topology checks fused ops and the selection
inside a Program.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params, selector
from kernel_selector.kernels.pooling.pooling_kernel_b_fs_yx_fsv16 import pool_block
from tests.helpers import assert_close, cpu_tier, f32
from tests.ocl.padded import run_kernel_padded
from tests.references import pool_dilated_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "pooling_b_fs_yx_fsv16"
M = cl.PoolingMode

CASES = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, dilation, ceil, in padding (lower, upper), out padding
    (M.max, (2, 19, 13, 15), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False,
     ((0, 0, 1, 2), (1, 0, 2, 1)), ((0, 0, 1, 1), (0, 0, 1, 1))),            # ResNet-50 pool1 shape, halo NaN
    (M.max, (2, 37, 11, 23), (3, 3), (2, 2), (0, 0), (0, 0), (1, 1), True,
     ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 2, 2), (0, 0, 2, 2))),            # GoogLeNet/SqueezeNet ceil pool
    (M.max, (1, 40, 9, 9), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False,
     ((0, 0, 1, 1), (0, 0, 1, 1)), ((0, 0, 0, 0), (0, 0, 0, 0))),            # inception 3x3/1 pool, 8-lane tail
    (M.max, (1, 5, 12, 13), (3, 3), (2, 3), (2, 1), (1, 2), (1, 1), True,
     ((0, 0, 0, 1), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),            # asymmetric pads, C < 16
    (M.average, (2, 19, 11, 9), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), True,
     ((0, 0, 2, 1), (0, 0, 1, 2)), ((0, 0, 1, 0), (0, 0, 0, 1))),            # count_include_pad
    (M.average, (1, 3, 11, 10), (3, 2), (2, 3), (1, 0), (2, 1), (2, 3), False,
     ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),            # dilation
    (M.average_no_padding, (2, 33, 12, 17), (3, 3), (3, 2), (2, 1), (1, 2), (2, 2), True,
     ((0, 0, 1, 1), (0, 0, 1, 1)), ((0, 0, 1, 2), (0, 0, 2, 1))),            # ceil tail past pad_end, dilation
    (M.average_no_padding, (1, 21, 31, 29), (5, 5), (1, 1), (0, 0), (0, 0), (1, 1), False,
     ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),            # wide rows: several blocks per row
]


def _run(engine, x, mode, k, s, pb, pe, d, ceil, in_pad, out_pad, global_pooling=False):
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, dilation=d, ceil_mode=ceil,
                      global_pooling=global_pooling)
    lin = Layout(DataType.f32, Format.b_fs_yx_fsv16, x.shape, Padding(*in_pad))
    lout = prim.calc_output_layout([lin]).with_(padding=Padding(*out_pad))
    params = Params("pooling", engine.kind, [lin], lout, prim.attrs(), layer_id="pool", device=engine.info)
    assert selector.select(params)[0].name == FAST  # chosen on its own, not forced
    return run_kernel_padded(engine, "pooling", [lin], lout, prim.attrs(), [x], kernel=FAST)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}-d{c[6]}-ceil{int(c[7])}")
def test_fsv16_pooling_matches_reference(engine, rng, case):
    mode, shape, k, s, pb, pe, d, ceil, in_pad, out_pad = case
    x = f32(rng.standard_normal(shape))
    out = _run(engine, x, mode, k, s, pb, pe, d, ceil, in_pad, out_pad)
    assert_close(out, pool_dilated_ref(x, mode, k, s, pb, pe, d, ceil))


@pytest.mark.parametrize("mode", [M.max, M.average_no_padding])
def test_fsv16_global_pooling(engine, rng, mode):
    """ResNet-50 / GoogLeNet head: the whole 7x7 (here 7x9) plane of every channel."""
    x = f32(rng.standard_normal((2, 35, 7, 9)))
    out = _run(engine, x, mode, (1, 1), (1, 1), (0, 0), (0, 0), (1, 1), False,
               ((0, 0, 1, 0), (0, 0, 0, 1)), ((0, 0, 0, 0), (0, 0, 0, 0)), global_pooling=True)
    x64 = x.astype(np.float64)
    ref = x64.max(axis=(2, 3), keepdims=True) if mode == M.max else x64.mean(axis=(2, 3), keepdims=True)
    assert_close(out, ref)


def test_pool_block():
    """Whole rows up to max_block pixels; wider rows in blocks of 4..max_block recomputing the fewest pixels."""
    assert [pool_block(w) for w in (1, 3, 4)] == [1, 3, 4] and pool_block(56) == 4
    assert [pool_block(w, 7) for w in (5, 7)] == [5, 7]
    assert pool_block(56, 7) == 7 and pool_block(13, 7) == 7 and pool_block(12, 7) == 6 and pool_block(27, 7) == 7


def test_fsv16_pooling_fused_activations_in_a_network(engine, rng):
    """Reorder(fsv16) -> max pool -> relu_negative_slope (float8 form) -> hard_sigmoid (lane by lane): the pool
    is the fast kernel and carries both activations (eltwise ops fuse only into convolutions)."""
    x = f32(rng.standard_normal((2, 21, 9, 11)) * 4)
    t = cl.Topology()
    t.add(cl.InputLayout("x_host", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    t.add(cl.Reorder("x", "x_host", cl.Format.b_fs_yx_fsv16))
    t.add(cl.Pooling("pool", "x", mode=M.max, kernel=(3, 3), stride=(2, 2), pad=(1, 1)))
    t.add(cl.Activation("act0", "pool", func="relu_negative_slope", a=0.1))
    t.add(cl.Activation("act1", "act0", func="hard_sigmoid", a=0.2, b=0.5))
    t.add(cl.Reorder("out", "act1", cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, t, cpu_tier()))
    node = net.program.node("pool")
    assert node.impl.kernel_name == FAST
    assert net.program.node("act1") is node and len(node.fused_ops) == 2
    net.poison()
    out = net.run({"x_host": x})["out"]
    ref = pool_dilated_ref(x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    ref = np.clip(0.2 * np.where(ref >= 0, ref, 0.1 * ref) + 0.5, 0, 1)
    assert_close(out, ref)
