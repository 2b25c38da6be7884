"""softmax vs a float64 numpy reference: every axis (negative too), ranks 1-4, large inputs (stability), formats."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, cpu_tier, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.ocl.softmax_cases import CASES, GENERAL, softmax_general_ref
from tests.references import softmax_ref

# every case in bfyx plus one other format, alternating, to keep the number of Program builds down
_OTHER = [cl.Format.b_fs_yx_fsv16, cl.Format.byxf]
PARAMS = [(c, f) for i, c in enumerate(CASES) for f in (cl.Format.bfyx, _OTHER[i % 2])]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("case", "fmt"), PARAMS, ids=[f"{c[0]}-axis{c[1]}-{f.value}" for c, f in PARAMS])
def test_softmax_matches_reference(engine, rng, case, fmt):
    shape, axis = case
    x = f32(rng.standard_normal(shape) * 4)
    out = run_single(engine, cl.Softmax("sm", "x", axis=axis), {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx)
    assert_close(out, softmax_ref(x, axis), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("axis", [1, 3])
def test_softmax_is_numerically_stable(engine, rng, axis):
    """Logits around ±100 and spread by 50 overflow exp() in float32 unless the row maximum is subtracted."""
    shape = (2, 6, 3, 5)
    x = f32(rng.standard_normal(shape) * 50 + rng.choice([-100.0, 100.0], size=shape))
    out = run_single(engine, cl.Softmax("sm", "x", axis=axis), {"x": x})
    ref = softmax_ref(x, axis)
    assert_close(out, ref, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, rtol=1e-5)


@pytest.mark.parametrize("axis", [1, 2])
def test_softmax_padded_buffers(engine, rng, axis):
    """Padded input and output: the row loops read and write interiors only (padding holds NaN)."""
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x = f32(rng.standard_normal(shape) * 3)
    out = run_kernel_padded(engine, "softmax", [lin], lout, {"axis": axis}, [x])
    assert_close(out, softmax_ref(x, axis), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("case", GENERAL, ids=lambda c: f"{c[0]}-axis{c[1]}-log{int(c[2])}-c2d{int(c[3])}-"
                         f"{c[4].value}")
def test_softmax_log_and_coerce_2d(engine, rng, case):
    shape, axis, log, coerce, fmt = case
    x = f32(rng.standard_normal(shape) * 5)
    prim = cl.Softmax("sm", "x", axis=axis, log=log, coerce_2d=coerce)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx if fmt != cl.Format.bfyx else None)
    assert_close(out, softmax_general_ref(x, axis, log, coerce), rtol=1e-4, atol=1e-5)


def test_log_softmax_stays_finite_where_softmax_underflows(engine, rng):
    """Logits 200 apart: exp underflows to 0 in float32, but log-softmax is just x - max (about -200)."""
    x = f32(rng.standard_normal((3, 6)) + np.array([0, -200, -150, 0, -300, 5], np.float32))
    out = run_single(engine, cl.Softmax("sm", "x", axis=1, log=True), {"x": x})
    assert np.isfinite(out).all()
    assert_close(out, softmax_general_ref(x, 1, log=True), rtol=1e-5, atol=1e-4)


def test_log_softmax_padded_buffers(engine, rng):
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((1, 0, 2, 1), (0, 1, 1, 2)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 0), (1, 0, 0, 3)))
    x = f32(rng.standard_normal(shape) * 3)
    out = run_kernel_padded(engine, "softmax", [lin], lout, {"axis": 1, "log": True, "coerce_2d": True}, [x])
    assert_close(out, softmax_general_ref(x, 1, log=True, coerce_2d=True), rtol=1e-4, atol=1e-5)


ROWS = [
    # shape, axis, log, coerce_2d: the normalized axes are the trailing ones (softmax_rows)
    ((1, 3, 21, 21), -1, False, False),      # attention scores: rows of 21 (2 float8 + 5)
    ((2, 1000), 1, False, False),            # a classifier
    ((4, 5), 1, True, False),                # rows shorter than one float8, log-softmax
    ((2, 3, 4, 5), 1, False, True),          # coerce_2d from axis 1: rows of 60
    ((2, 3, 2, 2, 17), 4, True, False),      # rank 5
]


@pytest.mark.parametrize("case", ROWS, ids=lambda c: f"{c[0]}-axis{c[1]}-log{int(c[2])}-c2d{int(c[3])}")
def test_softmax_rows_on_contiguous_rows(ocl_engine, rng, case):
    """Trailing axes of unpadded bfyx: softmax_rows is chosen on the CPU tier (unforced), poisoned output, float64
    reference; large logits for the stability of the row maximum."""
    shape, axis, log, coerce = case
    x = f32(rng.standard_normal(shape) * 30)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Softmax("sm", "x", axis=axis, log=log, coerce_2d=coerce))
    net = cl.Network(cl.Program(ocl_engine, topo, cpu_tier()))
    assert net.program.node("sm").impl.kernel_name == "softmax_rows"
    net.poison()
    out = net.run({"x": x})["sm"]
    assert_close(out, softmax_general_ref(x, axis, log, coerce), rtol=1e-4, atol=1e-6)


def test_softmax_rows_leaves_inner_axes_to_the_reference(ocl_engine):
    """An axis with axes after it: the rows are strided, softmax_rows refuses (the reference runs)."""
    from kernel_selector import Params, selector
    from tests.helpers import typed_attrs

    lay = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (2, 5, 3, 4))
    params = Params("softmax", "ocl", [lay], lay, typed_attrs("softmax", {"axis": 1}))
    verdicts = {v.kernel: v.reason for v in selector.explain(params)}
    assert "not the trailing axes" in verdicts["softmax_rows"] and verdicts["softmax_ref"] is None
