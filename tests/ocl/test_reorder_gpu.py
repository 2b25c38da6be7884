"""reorder_gpu_wg (GPU tier) vs numpy: format pairs incl. b_fs_yx_fsv16 and weight formats, odd shapes, data type
conversion as reorder_ref, padded buffers, and the selection on the described GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Layout
from kernel_selector.common.convert import convert
from tests.helpers import f32, run_topology
from tests.ocl.gpu_move import gpu, gpu_like_choice, run_gpu_padded

F = cl.Format
DT = cl.DataType
K = "reorder_gpu_wg"
PAIRS = [(F.bfyx, F.b_fs_yx_fsv16), (F.b_fs_yx_fsv16, F.bfyx), (F.byxf, F.yxfb), (F.fyxb, F.b_fs_yx_fsv16),
         (F.bfyx, F.byxf)]


def _run(engine, x: np.ndarray, src, dst, dtype=None, mode=None) -> np.ndarray:
    """x (bfyx) -> reorder to src -> reorder 'r' (forced gpu kernel) to dst -> back to bfyx; every reorder is
    of the gpu tier."""
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DT.from_numpy(x.dtype), F.bfyx, x.shape)))
    topo.add(cl.Reorder("xs", "x", src))
    kw = {"convert_mode": mode} if mode else {}
    topo.add(cl.Reorder("r", "xs", dst, dtype, **kw))
    topo.add(cl.Reorder("out", "r", F.bfyx))
    return run_topology(engine, topo, {"x": x}, gpu({"xs": K, "r": K, "out": K}))["out"]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s.value}-{d.value}" for s, d in PAIRS])
@pytest.mark.parametrize("shape", [(2, 19, 3, 5), (1, 1, 1, 1), (3, 17, 7, 33)])
def test_reorder_gpu_formats(ocl_engine, rng, src, dst, shape):
    x = f32(rng.standard_normal(shape))
    np.testing.assert_array_equal(_run(ocl_engine, x, src, dst), x)


@pytest.mark.parametrize("shape", [(37,), (3, 21), (2, 17, 6)])
def test_reorder_gpu_lower_ranks(ocl_engine, rng, shape):
    x = f32(rng.standard_normal(shape))
    np.testing.assert_array_equal(_run(ocl_engine, x, F.bfyx, F.b_fs_yx_fsv16), x)


@pytest.mark.parametrize(("to", "mode"), [(DT.i8, "round"), (DT.u8, "truncate"), (DT.i32, "round"),
                                          (DT.i8, "bool"), (DT.f32, "round")])
def test_reorder_gpu_conversion(ocl_engine, rng, to, mode):
    x = f32(rng.uniform(-300, 300, (2, 5, 3, 7)))
    x.flat[:6] = [0.5, 1.5, -2.5, 0.0, 127.5, -128.5]
    out = _run(ocl_engine, x, F.bfyx, F.bfyx, to, mode)
    np.testing.assert_array_equal(out, convert(x, to.numpy, mode))


@pytest.mark.parametrize(("src", "dst"), [(F.bfyx, F.oiyx), (F.oiyx, F.os_iyx_osv16), (F.os_iyx_osv16, F.bfyx)])
def test_reorder_gpu_weight_formats(ocl_engine, rng, src, dst):
    x = f32(rng.standard_normal((19, 5, 3, 3)))
    lin = Layout(DT.f32, src, x.shape)
    lout = Layout(DT.f32, dst, x.shape)
    out = run_gpu_padded(ocl_engine, "reorder", [lin], lout, {"format": dst}, [x], K)
    np.testing.assert_array_equal(out, x)


def test_reorder_gpu_padded(ocl_engine, rng):
    x = f32(rng.standard_normal((2, 19, 5, 6)))
    pad = cl.Padding
    lin = Layout(DT.f32, F.b_fs_yx_fsv16, x.shape, pad((1, 0, 1, 2), (0, 0, 2, 1)))
    lout = Layout(DT.f32, F.bfyx, x.shape, pad((0, 1, 2, 1), (1, 2, 0, 3)))
    out = run_gpu_padded(ocl_engine, "reorder", [lin], lout, {"format": F.bfyx}, [x], K)
    np.testing.assert_array_equal(out, x)


def test_reorder_gpu_selected_on_described_gpu():
    lin = Layout(DT.f32, F.bfyx, (1, 3, 224, 224))
    lout = Layout(DT.f32, F.b_fs_yx_fsv16, (1, 3, 224, 224))
    assert gpu_like_choice("reorder", [lin], lout, {"format": F.b_fs_yx_fsv16}) == K
