"""Bad input, sizes: tensor sizes are Python integers (an int64 product of (65536,)*4 wraps to 0 and would let a tiny
buffer through), a layout larger than the device's max allocation is refused before anything is allocated, and
zero-size weights name their primitive. Part of the bad-input catalogue (tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl

F32 = cl.DataType.f32


def test_layout_sizes_do_not_wrap_around():
    lay = cl.Layout(F32, cl.Format.bfyx, (65536,) * 4)
    assert lay.count() == 2**64 and lay.buffer_size == 2**64 and lay.bytes == 2**66
    assert cl.Layout(F32, cl.Format.bfyx, (2, 3, 4, 65536, 65536, 65536)).dims4 == (2, 3, 4, 2**48)


def test_a_layout_past_the_max_allocation_is_refused_at_build_naming_primitive_and_bytes():
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, cl.Format.bfyx, (65536,) * 4)), cl.Activation("r", "x"))
    with pytest.raises(cl.DeviceError, match=rf"input_layout 'x': output .* needs {2**66} bytes, more than the "
                                             r"device's max allocation of \d+ bytes"):
        cl.Program(cl.Engine("cpu"), topo)


def test_zero_size_weights_name_the_primitive():
    with pytest.raises(cl.ShapeError, match=r"data 'w'.*\(0, 3, 3, 3\)"):
        cl.Topology(cl.InputLayout("data", cl.Layout(F32, cl.Format.bfyx, (1, 3, 8, 8))),
                    cl.Data("w", np.zeros((0, 3, 3, 3), np.float32)),
                    cl.Convolution("conv1", "data", weights="w"))
