"""permute of rank 5-6 tensors (unpadded bfyx) vs an index-loop reference: DepthToSpace / SpaceToDepth chains."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.references import permute_ref


@pytest.mark.parametrize("shape,order", [
    ((2, 3, 2, 4, 3), (0, 2, 4, 1, 3)),
    ((1, 2, 2, 3, 2, 3), (0, 1, 4, 2, 5, 3)),       # DepthToSpace (DCR) chain
    ((2, 2, 3, 2, 3, 2), (0, 3, 5, 1, 2, 4)),       # SpaceToDepth chain
    ((3, 2, 2, 2, 2), (4, 3, 2, 1, 0)),
], ids=str)
def test_permute_rank5_6(engine, rng, shape, order):
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, cl.Permute("p", "x", order=order), {"x": x})
    assert_close(out, permute_ref(x, order), rtol=0, atol=0)


def test_permute_rank6_int32(engine, rng):
    x = rng.integers(-2**30, 2**30, size=(2, 1, 3, 2, 2, 3), dtype=np.int32)
    out = run_single(engine, cl.Permute("p", "x", order=(5, 0, 3, 1, 4, 2)), {"x": x})
    np.testing.assert_array_equal(out, np.transpose(x, (5, 0, 3, 1, 4, 2)))
