"""mvn vs float64 numpy: instance norm (per-channel scale/bias), layer norm over trailing axes (numpy-aligned
scale/bias), non-contiguous axes, mean-only, the mean / inv_std_dev results, ranks 1-6, formats, padded buffers."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.mvn import MVN
from tests.helpers import assert_close, f32, run_single
from tests.ocl.mvn_cases import CASES
from tests.ocl.padded import run_kernel_padded
from tests.references import mvn_ref


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-axes{c[1]}-{c[6].value}")
def test_mvn_matches_reference(engine, rng, case):
    shape, axes, ss, bs, sax, nv, fmt = case
    x = f32(rng.standard_normal(shape) * 3 + 1.5)
    inputs, data = {"x": x}, {}
    scale = f32(rng.standard_normal(ss)) if ss else None
    bias = f32(rng.standard_normal(bs)) if bs else None
    if scale is not None:
        inputs["s"] = scale   # non-constant: read from an InputLayout, reordered to fmt like x
    if bias is not None:
        data["b"] = bias
    prim = MVN("mvn", "x", axes=axes, epsilon=1e-3, normalize_variance=nv, scale="s" if ss else None,
               bias="b" if bs else None, scale_axis=sax)
    out = run_single(engine, prim, inputs, data, fmt=fmt if len(shape) <= 4 else cl.Format.bfyx,
                     out_fmt=cl.Format.bfyx if fmt != cl.Format.bfyx else None)
    assert_close(out, mvn_ref(x, axes, 1e-3, nv, scale, bias, sax), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("result", ["mean", "inv_std_dev"])
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.byxf])
def test_mvn_statistics(engine, rng, result, fmt):
    x = f32(rng.standard_normal((2, 3, 4, 5)) * 2 + 0.5)
    prim = MVN("mvn", "x", axes=(2, 3), epsilon=1e-2, result=result)
    out = run_single(engine, prim, {"x": x}, fmt=fmt)
    assert out.shape == (2, 3, 1, 1)
    assert_close(out, mvn_ref(x, (2, 3), 1e-2, result=result), rtol=1e-4, atol=1e-5)


def test_mvn_padded_buffers(engine, rng):
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    ls = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4, 3), cl.Padding((1, 0, 0, 0), (0, 2, 0, 0)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x, s = f32(rng.standard_normal(shape) * 3), f32(rng.standard_normal((4, 3)))
    attrs = MVN("m", "x", axes=(1, 2, 3), epsilon=1e-5, scale="s").attrs()
    out = run_kernel_padded(engine, "mvn", [lin, ls], lout, attrs, [x, s])
    assert_close(out, mvn_ref(x, (1, 2, 3), 1e-5, scale=s), rtol=1e-4, atol=1e-4)


def test_mvn_shape_errors():
    lay = lambda *s: cl.Layout(cl.DataType.f32, cl.Format.bfyx, s)  # noqa: E731
    with pytest.raises(cl.ShapeError, match="mvn 'm': axes"):
        MVN("m", "x", axes=(4,)).calc_output_layout([lay(2, 3, 4, 5)])
    with pytest.raises(cl.ShapeError, match="'s' shape broadcastable to the input's trailing axes"):
        MVN("m", "x", axes=(3,), scale="s").calc_output_layout([lay(2, 3, 4, 5), lay(4)])
    with pytest.raises(cl.ShapeError, match="broadcastable to input axes from 1"):
        MVN("m", "x", axes=(2, 3), scale="s", scale_axis=1).calc_output_layout([lay(2, 3, 4, 5), lay(4)])
    with pytest.raises(cl.TopologyError, match="result must be one of"):
        MVN("m", "x", axes=(1,), result="variance")
    with pytest.raises(cl.TopologyError, match="axes must not be empty"):
        MVN("m", "x")
    assert MVN("m", "x", axes=(-1, 1), result="mean").calc_output_layout([lay(2, 3, 4, 5)]).shape == (2, 1, 4, 1)
