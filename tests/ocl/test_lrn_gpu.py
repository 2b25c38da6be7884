"""lrn_gpu_wg (GPU tier, forced) vs the float64 LRN reference: window sizes (even, 1, larger than C), ranks 2-4,
formats, shapes with work-group tails, padded buffers; GPU_LIKE selection."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import assert_close, f32, run_single, typed_attrs
from tests.ocl.gpu_tier import run_gpu_padded
from tests.ocl.lrn_cases import CASES
from tests.references import lrn_ref

K = "lrn_gpu_wg"
GPU = cl.BuildOptions(kernel_tier="gpu", force_implementations={"lrn": K})


@pytest.fixture
def engine(ocl_engine):
    return ocl_engine


ALL = CASES + [((1, 19, 7, 9), 5, 0.5, 0.75, 2.0), ((2, 3, 5, 5), 3, 0.9, 0.6, 1.0), ((1, 4, 3, 40), 5, 1, 0.75, 1)]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c[0]}-n{c[1]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_matches_reference(engine, rng, case, fmt):
    shape, size, alpha, beta, k = case
    x = f32(rng.standard_normal(shape) * 2)
    prim = cl.LRN("lrn", "x", size=size, alpha=alpha, beta=beta, k=k)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx, options=GPU)
    assert_close(out, lrn_ref(x, size, alpha, beta, k), rtol=1e-4, atol=1e-5)


def test_padded_buffers(engine, rng, monkeypatch):
    shape = (2, 13, 3, 4)
    lin = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((1, 2, 0, 1), (0, 3, 2, 1)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 1, 0)))
    x = f32(rng.standard_normal(shape) * 2)
    attrs = {"size": 5, "alpha": 0.7, "beta": 0.75, "k": 1.0}
    out = run_gpu_padded(monkeypatch, engine, "lrn", [lin], lout, attrs, [x], kernel=K)
    assert_close(out, lrn_ref(x, 5, 0.7, 0.75, 1.0), rtol=1e-4, atol=1e-5)


def test_selected_on_described_gpu():
    lay = Layout(DataType.f32, Format.bfyx, (1, 96, 55, 55))
    p = Params("lrn", "ocl", [lay], lay, typed_attrs("lrn", {"size": 5}), caps=GPU_LIKE, kernel_tier="gpu")
    k, kd = selector.select(p)
    assert k.name == K and kd.kernels[0].lws == (32, 8, 1) and kd.kernels[0].gws == (64, 56, 96)
