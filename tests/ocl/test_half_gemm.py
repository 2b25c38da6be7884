"""f16 storage in the OpenCL gemm kernels (issue 18): gemm_ref (padded byxf and b_fs_yx_fsv16 operands with 18
channels, transposes, alpha/beta and a broadcast C), gemm_tiled (its blocking variants; an f16 output only with
one K block, f16 operands with an f32 output in K blocks), gemm_gpu_tiled (every tile variant, transposes, batch
broadcast), each forced with half operands and output and mixed (f32 A with f16 B, f16 in with f32 out), vs float64
references on the half-rounded random values."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops import gemm_shapes
from kernel_selector import Params, selector
from kernel_selector.common.gpu_tile import tile_variants
from kernel_selector.kernels.gemm.gemm_kernel_tiled import GemmKernelTiled
from tests.helpers import typed_attrs
from tests.ocl.half import HALF_RTOL, assert_half_close
from tests.ocl.padded import run_kernel_padded
from tests.references import gemm_ref

F16, F32 = cl.DataType.f16, cl.DataType.f32
BFYX = cl.Format.bfyx
# (A, B, C, output) storage
MIXES = [(F16, F16, F16, F16), (F32, F16, F32, F16), (F16, F16, F16, F32)]
MIX_IDS = ["all16", "b16-out16", "in16-out32"]


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: f16 storage is an OpenCL-kernel feature."""
    return ocl_engine


def run_gemm(engine, lays, lout, arrays, kernel, attrs, **kw):
    """Round ``arrays`` to their layouts' storage, run ``kernel`` forced on poisoned buffers, check the output dtype
    and compare with gemm_ref of the rounded values (half tolerance for an f16 output, 1e-4 for f32)."""
    vals = [a.astype(lay.dtype.numpy) for a, lay in zip(arrays, lays)]
    out = run_kernel_padded(engine, "gemm", lays, lout, attrs, vals, kernel=kernel, **kw)
    assert out.dtype == lout.dtype.numpy
    f64 = [v.astype(np.float64) for v in vals]
    ref = gemm_ref(f64[0], f64[1], f64[2] if len(f64) > 2 else None, attrs.get("transpose_a", False),
                   attrs.get("transpose_b", False), attrs.get("alpha", 1.0), attrs.get("beta", 1.0))
    assert_half_close(out, ref, rtol=HALF_RTOL if lout.dtype == F16 else 1e-4)


def randn(rng, *shapes):
    """Seeded random float32 arrays of ``shapes``."""
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
def test_gemm_ref_half_padded_formats(engine, rng, dts):
    """gemm_ref: A byxf and B b_fs_yx_fsv16 (18 channels: a partial slice), both padded, a padded C column and a
    padded byxf output; alpha 2, beta -1."""
    sa, sb = (2, 18, 5, 7), (2, 18, 7, 3)
    a, b, c = randn(rng, sa, sb, (5, 1))
    lays = [cl.Layout(dts[0], cl.Format.byxf, sa, cl.Padding((0, 1, 2, 1), (1, 0, 1, 2))),
            cl.Layout(dts[1], cl.Format.b_fs_yx_fsv16, sb, cl.Padding((1, 0, 0, 1), (0, 0, 2, 0))),
            cl.Layout(dts[2], BFYX, (5, 1), cl.Padding((1, 0, 0, 0), (0, 2, 0, 0)))]
    lout = cl.Layout(dts[3], cl.Format.byxf, (2, 18, 5, 3), cl.Padding((0, 1, 1, 0), (1, 0, 0, 1)))
    run_gemm(engine, lays, lout, [a, b, c], "gemm_ref", {"alpha": 2.0, "beta": -1.0})


@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
def test_gemm_ref_half_transposed_broadcast(engine, rng, dts):
    """gemm_ref: both operands transposed, batch broadcast (3, 1) x (1, 2), C broadcast over the batch."""
    a, b, c = randn(rng, (3, 1, 9, 6), (1, 2, 5, 9), (1, 1, 6, 5))
    lays = [cl.Layout(dt, BFYX, x.shape) for dt, x in zip(dts, (a, b, c))]
    attrs = {"transpose_a": True, "transpose_b": True, "alpha": 0.7, "beta": 0.3}
    run_gemm(engine, lays, cl.Layout(dts[3], BFYX, (3, 2, 6, 5)), [a, b, c], "gemm_ref", attrs)


TILED_VARIANTS = [{"tile": t, "k_block": kb, "row_group": rg}
                  for t in (1, 3, 6) for kb, rg in ((0, 0), (7, 1), (16, 3))]


@pytest.mark.parametrize("dts", MIXES, ids=MIX_IDS)
def test_gemm_tiled_half_variants(engine, rng, dts):
    """gemm_tiled on a batched, transposed-A product with N % 16 == 8 and a column C, over its blocking variants:
    with an f32 output every variant (K blocks of 7 and 16 keep partial sums in the output); with an f16 output the
    one-K-block variants, and the others are refused (their partial sums would be rounded to half)."""
    a, b, c = randn(rng, (2, 40, 23), (2, 40, 24), (23, 1))
    lays = [cl.Layout(dt, BFYX, x.shape) for dt, x in zip(dts, (a, b, c))]
    lout = cl.Layout(dts[3], BFYX, (2, 23, 24))
    attrs = {"transpose_a": True, "alpha": 1.5, "beta": -0.5}
    params = Params("gemm", "ocl", lays, lout, typed_attrs("gemm", attrs), layer_id="y", device=engine.info)
    for variant in TILED_VARIANTS:
        v = {key: x for key, x in variant.items() if x}
        if dts[3] == F16 and v.get("k_block"):
            with pytest.raises(ValueError, match="rounded to half"):
                GemmKernelTiled().kernel_data(params, v)
            continue
        run_gemm(engine, lays, lout, [a, b, c], "gemm_tiled", attrs, variant=v)


def test_gemm_tiled_half_output_long_k_goes_to_ref(engine, rng):
    """K = 700 (K blocks of 512): with f16 operands and an f32 output gemm_tiled runs (partial sums in f32); with
    an f16 output it is refused with the reason, and gemm_ref is chosen."""
    a, b = randn(rng, (20, 700), (700, 16))
    lays = [cl.Layout(F16, BFYX, a.shape), cl.Layout(F16, BFYX, b.shape)]
    run_gemm(engine, lays, cl.Layout(F32, BFYX, (20, 16)), [a, b], "gemm_tiled", {})
    half_out = Params("gemm", "ocl", lays, cl.Layout(F16, BFYX, (20, 16)), typed_attrs("gemm", {}), layer_id="y",
                      device=engine.info, caps=engine.info.caps, kernel_tier="cpu")
    reasons = {v.kernel: v.reason for v in selector.explain(half_out)}
    assert "rounded to half" in (reasons["gemm_tiled"] or "")
    assert selector.select(half_out)[0].name == "gemm_ref"


GPU_CASES = [
    # A shape, B shape, C shape or None, transpose_a, transpose_b
    ((17, 33), (33, 65), (1, 65), False, False),
    ((33, 17), (9, 33), None, True, True),
    ((3, 1, 17, 9), (1, 2, 17, 5), None, True, False),
]


@pytest.mark.parametrize("dts", MIXES[:2], ids=MIX_IDS[:2])
@pytest.mark.parametrize("case", GPU_CASES, ids=lambda c: f"{c[0]}x{c[1]}-t{int(c[3])}{int(c[4])}")
def test_gemm_gpu_tiled_half_every_tile(engine, rng, case, dts):
    """gemm_gpu_tiled (gpu tier): M, N, K at tile edges, transposes, batch broadcast, every tile variant."""
    sa, sb, sc, ta, tb = case
    arrays = randn(rng, sa, sb, *([sc] if sc else []))
    lays = [cl.Layout(dt, BFYX, x.shape) for dt, x in zip(dts, arrays)]
    attrs = {"transpose_a": ta, "transpose_b": tb, "alpha": 1.25, "beta": 0.5}
    lout = cl.Layout(dts[3], BFYX, gemm_shapes(sa, sb, ta, tb)[4])
    variants = tile_variants(engine.info.caps)
    assert len(variants) > 1
    for variant in variants:
        run_gemm(engine, lays, lout, arrays, "gemm_gpu_tiled", attrs, variant=variant, kernel_tier="gpu")
