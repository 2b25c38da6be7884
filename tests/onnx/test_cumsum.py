"""CumSum vs onnxruntime: float32 (Gemm with a triangular matrix) and int32/int64 (exact Pad/Eltwise scan), every
axis incl. negative, exclusive and reverse, lengths 1 to 9 (powers of two and not), ranks 1-5, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.errors import ShapeError
from cldnn_py.frontend.onnx_ops.cumsum import triangle
from tests.onnx.ort_compare import build, compare, declare, randf32

SHAPES_AXES = [((5,), 0), ((3, 4), 0), ((3, 4), -1), ((2, 8, 3), 1), ((2, 3, 9), 2), ((1, 1, 3), -3),
               ((2, 3, 2, 2, 3), 1), ((2, 2, 1, 2, 7), 4), ((4, 1), 1)]
FLAGS = [(0, 0), (1, 0), (0, 1), (1, 1)]
# every (exclusive, reverse) pair on one shape, and each shape once with the pairs in turn: each pair meets several
# ranks and axes without the full product (each case builds its own programs: PoCL compile time)
CASES = [((3, 4), -1, *f) for f in FLAGS] + [(sh, ax, *FLAGS[i % 4]) for i, (sh, ax) in enumerate(SHAPES_AXES)]


def _model(x, axis, exclusive, reverse, axis_dtype=np.int64, out_type=TensorProto.FLOAT):
    node = helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)
    return build([node], {"x": x}, {"axis": np.array(axis, axis_dtype)}, ["y"], 14, out_types={"y": out_type})


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("shape,axis,exclusive,reverse", CASES)
def test_cumsum_float(engine, rng, shape, axis, exclusive, reverse):
    x = randf32(rng, *shape)
    compare(engine, _model(x, axis, exclusive, reverse), {"x": x}, atol=1e-5)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("dtype,elem", [(np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)])
@pytest.mark.parametrize("shape,axis,exclusive,reverse", CASES)
def test_cumsum_int_exact(engine, rng, shape, axis, exclusive, reverse, dtype, elem):
    """Values near 2^24, where float32 sums would round: the integer scan is exact."""
    x = (rng.integers(-5, 6, shape) + (1 << 24)).astype(dtype)
    compare(engine, _model(x, axis, exclusive, reverse, np.int32, elem), {"x": x}, atol=0)


def test_triangle():
    x = np.array([1.0, 2.0, 4.0], np.float32)
    assert (x @ triangle(3, False, False)).tolist() == [1, 3, 7]
    assert (x @ triangle(3, True, False)).tolist() == [0, 1, 3]
    assert (x @ triangle(3, False, True)).tolist() == [7, 6, 4]
    assert (x @ triangle(3, True, True)).tolist() == [6, 4, 0]


def test_cumsum_axis_out_of_range():
    x = np.zeros((2, 3), np.float32)
    m = build([helper.make_node("CumSum", ["x", "axis"], ["y"], name="cs")], {"x": x},
              {"axis": np.array(2, np.int64)}, ["y"], 14)
    with pytest.raises(ShapeError, match=r"CumSum 'cs': axis: expected one value in \[-2, 1\], got \[2\]"):
        cl.load_onnx(declare(m, [x]))
