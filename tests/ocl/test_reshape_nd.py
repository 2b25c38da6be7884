"""reshape to and from rank 5-6 (row-major bfyx): ShuffleNet's channel shuffle chain, any input format."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single


@pytest.mark.parametrize("shape,new_shape,fmt", [
    ((2, 12, 3, 4), (2, 3, 4, 3, 4), cl.Format.bfyx),
    ((2, 20, 3, 4), (2, 4, 5, 3, 4), cl.Format.b_fs_yx_fsv16),   # from a blocked rank-4 input
    ((4, 6, 5), (2, 2, 3, 2, 5, 1), cl.Format.byxf),
    ((2, 3, 4, 3, 4), (2, 12, 3, 4), cl.Format.bfyx),              # rank 5-6 inputs are bfyx only
    ((2, 3, 2, 2, 3, 2), (6, -1, 3, 2, 2), cl.Format.bfyx),
], ids=str)
def test_reshape_rank5_6(engine, rng, shape, new_shape, fmt):
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, cl.Reshape("r", "x", shape=new_shape), {"x": x}, fmt=fmt)
    assert_close(out, np.reshape(x.astype(np.float64), new_shape), rtol=0, atol=0)
