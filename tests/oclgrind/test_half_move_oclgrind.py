"""The f16 forms of the data-movement kernels under the Oclgrind simulator (DESIGN §4 rule 7; issue 18): every case
of tests/ocl/test_half_data_movement.py (each copy kernel and GPU-tier twin on padded half buffers, blocked ones with
channel tails), gather, scatter and both resize kernels, each forced: a clean log (no out-of-bounds access, no
uninitialized read, in particular none through vload_half8 / vstore_half8_rte), and the float64 reference.

A file of its own beside test_kernels_oclgrind.py: that file runs every kernel's f32 case through a Topology, these
run the f16 templates directly on padded buffers (tests/ocl/padded.py)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.gather import Gather
from cldnn_py.primitives.resize import Resize
from cldnn_py.primitives.scatter import Scatter
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded
from tests.ocl.test_half_data_movement import COPIES, GPU_COPIES, assert_bits_equal, half_data, layouts
from tests.references import resize_ref

pytestmark = pytest.mark.oclgrind

F16, F32, I32 = cl.DataType.f16, cl.DataType.f32, cl.DataType.i32
BFYX, FSV16 = cl.Format.bfyx, cl.Format.b_fs_yx_fsv16
CASES = [(*c, "cpu") for c in COPIES] + [(*c, "gpu") for c in GPU_COPIES]


@pytest.mark.parametrize(("kernel", "prim", "shape", "out_shape", "fmt", "out_fmt", "ref", "tier"), CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_half_copy_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, kernel, prim, shape, out_shape, fmt,
                                     out_fmt, ref, tier):
    x = half_data(rng, shape)
    lin, lout = layouts(shape, out_shape, fmt, out_fmt)
    out, (xv,) = run_kernel_half(oclgrind_engine, prim.type_name, [lin], lout, prim.attrs(), [x], kernel=kernel,
                                 kernel_tier=tier)
    oclgrind_log.assert_clean()
    assert_bits_equal(out, ref(xv))


@pytest.mark.parametrize(("kernel", "tier"), [("gather_ref", "cpu"), ("gather_gpu_wg", "gpu")])
def test_half_gather_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, kernel, tier):
    x, idx = half_data(rng, (3, 4, 5)), np.array([3, -4, 2], dtype=np.int32)
    lays = [cl.Layout(F32, BFYX, x.shape), cl.Layout(I32, BFYX, idx.shape)]
    out, (xv, _) = run_kernel_half(oclgrind_engine, "gather", lays, cl.Layout(F32, BFYX, (3, 3, 5)),
                                   Gather("p", "x", "i", axis=1).attrs(), [x, idx], kernel=kernel, kernel_tier=tier)
    oclgrind_log.assert_clean()
    assert_bits_equal(out, np.take(xv, idx, axis=1))


def test_half_scatter_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    flat, u = rng.integers(0, x.size, (5,)).astype(np.int32), rng.standard_normal(5).astype(np.float32)
    lays = [cl.Layout(F32, BFYX, x.shape), cl.Layout(I32, BFYX, flat.shape), cl.Layout(F32, BFYX, u.shape)]
    out, (xv, _, uv) = run_kernel_half(oclgrind_engine, "scatter", lays, lays[0],
                                       Scatter("p", "x", "i", "u", reduction="add").attrs(), [x, flat, u],
                                       kernel="scatter_ref")
    oclgrind_log.assert_clean()
    ref = xv.reshape(-1).copy()
    np.add.at(ref, flat, uv)
    assert_half_close(out, ref.reshape(x.shape))


@pytest.mark.parametrize("kernel", ["resize_ref", "resize_b_fs_yx_fsv16"])
@pytest.mark.parametrize("dt_in", [F16, F32])
def test_half_resize_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, kernel, dt_in):
    """Linear x2-ish on 18 channels (a block tail), half output, half or f32 input."""
    x = rng.standard_normal((1, 18, 3, 4)).astype(dt_in.numpy)
    sizes = (1, 18, 5, 7)
    lin = cl.Layout(dt_in, FSV16, x.shape, cl.Padding((0, 0, 1, 0), (0, 0, 0, 1)))
    lout = cl.Layout(F16, FSV16, sizes, cl.Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    attrs = Resize("p", "x", sizes=sizes, mode="linear").attrs()
    out = run_kernel_padded(oclgrind_engine, "resize", [lin], lout, attrs, [x], kernel=kernel)
    oclgrind_log.assert_clean()
    assert_half_close(out, resize_ref(x.astype(np.float64), sizes, mode="linear"))
