"""mvn_gpu_wg (GPU tier, forced) vs the float64 MVN reference of test_mvn.py: instance / layer norm, scale and bias,
non-contiguous axes, mean only, statistics results, ranks 1-6, groups longer than the work-group, padded buffers
and each tuning variant; GPU_LIKE selection."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.primitives.mvn import MVN
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import assert_close, f32, run_single, typed_attrs
from tests.ocl.gpu_tier import run_gpu_padded
from tests.ocl.mvn_cases import CASES
from tests.references import mvn_ref

K = "mvn_gpu_wg"
GPU = cl.BuildOptions(kernel_tier="gpu", force_implementations={"mvn": K})


@pytest.fixture
def engine(ocl_engine):
    return ocl_engine


ALL = CASES + [((1, 19, 7, 9), (1, 2, 3), (19,), (19,), 1, True, cl.Format.bfyx),   # group of 1197 > 256
               ((2, 3, 5, 5), (2, 3), None, None, None, True, cl.Format.bfyx)]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c[0]}-axes{c[1]}-{c[6].value}")
def test_matches_reference(engine, rng, case):
    shape, axes, ss, bs, sax, nv, fmt = case
    x = f32(rng.standard_normal(shape) * 3 + 1.5)
    inputs, data = {"x": x}, {}
    scale = f32(rng.standard_normal(ss)) if ss else None
    bias = f32(rng.standard_normal(bs)) if bs else None
    if scale is not None:
        inputs["s"] = scale
    if bias is not None:
        data["b"] = bias
    prim = MVN("mvn", "x", axes=axes, epsilon=1e-3, normalize_variance=nv, scale="s" if ss else None,
               bias="b" if bs else None, scale_axis=sax)
    out = run_single(engine, prim, inputs, data, fmt=fmt if len(shape) <= 4 else cl.Format.bfyx,
                     out_fmt=cl.Format.bfyx if fmt != cl.Format.bfyx else None, options=GPU)
    assert_close(out, mvn_ref(x, axes, 1e-3, nv, scale, bias, sax), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("result", ["mean", "inv_std_dev"])
def test_statistics(engine, rng, result):
    x = f32(rng.standard_normal((2, 3, 17, 19)) * 2 + 0.5)
    out = run_single(engine, MVN("mvn", "x", axes=(2, 3), epsilon=1e-2, result=result), {"x": x}, options=GPU)
    assert out.shape == (2, 3, 1, 1)
    assert_close(out, mvn_ref(x, (2, 3), 1e-2, result=result), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("lws", [64, 256])
def test_padded_buffers_and_variants(engine, rng, monkeypatch, lws):
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    ls = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4, 3), cl.Padding((1, 0, 0, 0), (0, 2, 0, 0)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x, s = f32(rng.standard_normal(shape) * 3), f32(rng.standard_normal((4, 3)))
    attrs = MVN("m", "x", axes=(1, 2, 3), epsilon=1e-5, scale="s").attrs()
    out = run_gpu_padded(monkeypatch, engine, "mvn", [lin, ls], lout, attrs, [x, s], kernel=K, variant={"lws": lws})
    assert_close(out, mvn_ref(x, (1, 2, 3), 1e-5, scale=s), rtol=1e-4, atol=1e-4)


def test_selected_on_described_gpu():
    lay = Layout(DataType.f32, Format.bfyx, (1, 64, 28, 28))
    p = Params("mvn", "ocl", [lay], lay, typed_attrs("mvn", {"axes": (2, 3)}), caps=GPU_LIKE, kernel_tier="gpu")
    k, kd = selector.select(p)
    assert k.name == K and kd.kernels[0].lws == (256,) and kd.kernels[0].gws == (64 * 256,)
