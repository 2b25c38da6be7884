"""Layout.to_logical: physical buffer contents written straight into a caller's logical array (one strided copy),
for every format, padding and block tail; the same result as from_physical; Layout.is_plain."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl

F = cl.Format
PADS = [cl.Padding(), cl.Padding((0, 0, 1, 2), (0, 0, 2, 1)), cl.Padding((1, 0, 0, 1), (0, 0, 1, 0)),
        cl.Padding((0, 16, 1, 0), (0, 3, 0, 1))]  # features by a whole slice (an in-place concatenation's input)


@pytest.mark.parametrize("fmt", [F.bfyx, F.byxf, F.yxfb, F.fyxb, F.b_fs_yx_fsv16, F.os_iyx_osv16])
@pytest.mark.parametrize("shape", [(2, 19, 5, 7), (3, 16, 4, 4), (1, 33, 1, 3), (17, 5, 3, 3), (2, 5, 3)])
def test_to_logical_inverts_to_physical(rng, fmt, shape):
    for pad in PADS:
        try:
            lay = cl.Layout(cl.DataType.f32, fmt, shape, pad)
        except cl.ShapeError:  # padding of a blocked dimension by a part of a block
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        phys = lay.to_physical(x)
        out = np.full(shape, np.nan, np.float32)
        assert lay.to_logical(phys, out) is out
        np.testing.assert_array_equal(out, x)
        np.testing.assert_array_equal(lay.from_physical(phys), x)
        assert lay.is_plain == (fmt in (F.bfyx,) and pad.is_zero)


def test_to_logical_refuses_a_wrong_out():
    lay = cl.Layout(cl.DataType.f32, F.b_fs_yx_fsv16, (1, 20, 3, 3))
    with pytest.raises(cl.ShapeError, match=r"C-contiguous array of \(1, 20, 3, 3\)"):
        lay.to_logical(np.zeros(lay.buffer_size, np.float32), np.zeros((1, 20, 3, 6), np.float32)[..., ::2])
