"""gemm_gpu_tiled (GPU-tier work-group tiled gemm) vs float64 numpy, forced in the gpu tier: M, N, K of 1, 17, 33,
65 (tile edges), batch 1 and 3 with broadcast, transposes, alpha/beta with C, every tile variant; and the selection
for a 64x64 @ 64x64 MatMul on the described GPU_LIKE device."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import GemmAttrs
from cldnn_py.primitives.gemm import Gemm
from kernel_selector import Params, selector
from kernel_selector.common.gpu_tile import TILE_VARIANTS
from kernel_selector.device_caps import GPU_LIKE
from kernel_selector.kernels.gemm.gemm_kernel_gpu_tiled import GemmKernelGpuTiled
from tests.helpers import assert_close, f32
from tests.references import gemm_ref

NAME = "gemm_gpu_tiled"


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about an OpenCL kernel."""
    return ocl_engine


def run_gemm(engine, a, b, c=None, ta=False, tb=False, alpha=1.0, beta=1.0, tuning=None):
    """A, B [, C] -> gemm 'y' forced to gemm_gpu_tiled in the gpu tier; returns (output, kernel name)."""
    topo = cl.Topology()
    feeds = {"a": a, "b": b} | ({"c": c} if c is not None else {})
    for name, arr in feeds.items():
        topo.add(cl.InputLayout(name, cl.Layout(cl.DataType.f32, cl.Format.bfyx, arr.shape)))
    topo.add(Gemm("y", inputs=list(feeds), transpose_a=ta, transpose_b=tb, alpha=alpha, beta=beta))
    opts = cl.BuildOptions(kernel_tier="gpu", force_implementations={"y": NAME})
    net = cl.Network(cl.Program(engine, topo, opts))
    net.poison()
    return net.run(feeds)["y"], net.program.node("y").impl.kernel_name


CASES = [
    # A shape, B shape, C shape or None, transpose_a, transpose_b, alpha, beta
    ((1, 1), (1, 1), None, False, False, 1.0, 1.0),
    ((17, 33), (33, 65), None, False, False, 1.0, 1.0),
    ((65, 17), (17, 33), (1, 33), False, False, 0.5, 2.0),
    ((33, 65), (17, 33), (65, 1), True, True, 1.0, -0.5),
    ((3, 17, 33), (3, 17, 33), (3, 17, 17), False, True, 1.5, 0.25),
    ((3, 1, 17, 9), (1, 2, 17, 5), None, True, False, 1.0, 1.0),
    ((33,), (3, 33, 17), None, False, False, 1.0, 1.0),
    ((2, 17, 1), (1, 65), None, False, False, 1.0, 1.0),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}-c{c[2]}-t{int(c[3])}{int(c[4])}")
def test_gemm_gpu_tiled_matches_reference(engine, rng, case):
    sa, sb, sc, ta, tb, alpha, beta = case
    a, b = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb))
    c = f32(rng.standard_normal(sc)) if sc is not None else None
    out, kernel = run_gemm(engine, a, b, c, ta, tb, alpha, beta)
    assert kernel == NAME
    assert_close(out, gemm_ref(a, b, c, ta, tb, alpha, beta), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("variant", TILE_VARIANTS, ids=lambda v: "{tx}x{ty}x{wpt}-k{kwg}".format(**v))
def test_gemm_gpu_tiled_variants(engine, rng, variant):
    """Each tile variant (kernel_data(params, variant)) on a batched, transposed-B product with edges in M, N, K
    and a column C: all correct."""
    a, b = f32(rng.standard_normal((2, 33, 17))), f32(rng.standard_normal((2, 19, 17)))
    c = f32(rng.standard_normal((33, 1)))
    lay = [cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape) for x in (a, b, c)]
    out_l = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 33, 19))
    attrs = GemmAttrs(transpose_b=True, alpha=1.5, beta=-0.5)
    params = Params("gemm", "ocl", lay, out_l, attrs, layer_id="y", device=engine.info, caps=GPU_LIKE,
                    kernel_tier="gpu")
    mems = []
    for lo, arr in zip(lay, (a, b, c)):
        mems.append(engine.allocate(lo))
        engine.write_buffer(mems[-1].buffer, lo.to_physical(arr))
    out = engine.allocate(out_l)
    (kc,) = GemmKernelGpuTiled().kernel_data(params, variant).kernels
    engine.write_buffer(out.buffer, np.full(out_l.buffer_size, np.nan, dtype=np.float32))
    knl = engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
    engine.enqueue_kernel(knl, kc.gws, kc.lws).wait()
    raw = np.empty(out_l.buffer_size, dtype=np.float32)
    engine.read_buffer(out.buffer, raw)
    assert_close(out_l.from_physical(raw), gemm_ref(a, b, c, False, True, 1.5, -0.5), rtol=1e-4, atol=1e-4)


def _matmul_params(m: int, k: int, n: int) -> Params:
    a, b = Layout(DataType.f32, Format.bfyx, (m, k)), Layout(DataType.f32, Format.bfyx, (k, n))
    out = Layout(DataType.f32, Format.bfyx, (m, n))
    return Params("gemm", "ocl", [a, b], out, GemmAttrs(), caps=GPU_LIKE, kernel_tier="gpu")


def test_gpu_like_selects_gemm_gpu_tiled():
    """A 64x64 @ 64x64 MatMul on the described GPU: the tiled GPU kernel, not gemm_ref nor the cpu-tier gemm_tiled."""
    params = _matmul_params(64, 64, 64)
    assert selector.select(params)[0].name == NAME
