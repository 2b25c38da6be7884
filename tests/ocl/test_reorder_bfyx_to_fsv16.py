"""reorder_bfyx_to_fsv16 (the input reorder to blocked data) vs the input itself and test_reorder's independent
physical layout (numpy transposes).

Padded buffers through run_kernel_padded (input padding NaN, output padding and block tail keep their sentinel),
channel counts 3 (the network input), 16 + 5 and 40, batch 2, widths narrower and wider than the pixel block.
Every case asserts the selector picks the kernel on its own.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params, selector
from tests.helpers import cpu_tier, f32, typed_attrs
from tests.ocl.networks import run_reorder_raw
from tests.ocl.padded import run_kernel_padded
from tests.references import physical_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "reorder_bfyx_to_fsv16"
NO_PAD = ((0, 0, 0, 0), (0, 0, 0, 0))

CASES = [
    # (N, C, H, W), input padding, output padding
    ((1, 3, 9, 13), NO_PAD, ((0, 0, 3, 3), (0, 0, 2, 2))),              # ResNet-50 input with the conv1 halo
    ((2, 21, 5, 7), ((1, 0, 1, 2), (0, 0, 2, 1)), ((0, 0, 1, 0), (1, 0, 0, 2))),
    ((2, 40, 3, 19), NO_PAD, NO_PAD),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}")
def test_matches_input(engine, rng, case):
    shape, in_pad, out_pad = case
    x = f32(rng.standard_normal(shape))
    lin = Layout(DataType.f32, Format.bfyx, shape, Padding(*in_pad))
    lout = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, Padding(*out_pad))
    params = Params("reorder", engine.kind, [lin], lout, typed_attrs("reorder", {}), layer_id="r", device=engine.info)
    assert selector.select(params)[0].name == FAST  # chosen on its own, not forced
    out = run_kernel_padded(engine, "reorder", [lin], lout, {}, [x], kernel=FAST)
    np.testing.assert_array_equal(out, x)


def test_raw_buffer_in_a_network(engine, rng):
    """InputLayout (bfyx) -> Reorder(fsv16) in a Program: the raw buffer is numpy's own blocking, the block tail
    of the last slice stays zero."""
    x = f32(rng.standard_normal((2, 19, 4, 11)))
    out, raw = run_reorder_raw(engine, x, Format.bfyx, Format.b_fs_yx_fsv16, options=cpu_tier())
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(raw, physical_ref(x, Format.b_fs_yx_fsv16))
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    t.add(cl.Reorder("r", "x", cl.Format.b_fs_yx_fsv16))
    assert cl.Program(engine, t, cpu_tier()).node("r").impl.kernel_name == FAST
