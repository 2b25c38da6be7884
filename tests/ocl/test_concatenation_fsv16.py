"""concatenation_b_fs_yx_fsv16 (feature concatenation of blocked data, one enqueue) vs numpy.concatenate.

Padded b_fs_yx_fsv16 buffers through run_kernel_padded (input padding and block tails NaN, output padding and
block tail must keep their sentinel), batch 2, odd spatial sizes, a last input whose channel count is not a
multiple of 16, one to four inputs; each case asserts the selector picks the fast kernel on its own. The kernel
must refuse inputs that would split a slice (a non-last input with a channel count not a multiple of 16).
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params, selector
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "concatenation_b_fs_yx_fsv16"
NO_PAD = ((0, 0, 0, 0), (0, 0, 0, 0))

CASES = [
    # (N, H, W), channels per input, paddings per input, output padding
    ((2, 5, 11), (32, 16, 21), (((0, 0, 1, 0), (0, 0, 0, 2)), NO_PAD, ((1, 0, 0, 1), (0, 0, 1, 0))),
     ((0, 0, 1, 1), (0, 0, 1, 1))),
    ((1, 7, 9), (64, 128, 32, 32), (NO_PAD,) * 4, NO_PAD),                       # GoogLeNet inception (3a)
    ((2, 3, 17), (16, 7), (NO_PAD, ((0, 0, 2, 2), (0, 0, 2, 2))), ((1, 0, 0, 0), (0, 0, 0, 3))),
    ((1, 3, 4), (19,), (NO_PAD,), NO_PAD),                                      # one input: a copy
    # slices that mix inputs (lane by lane): ShuffleNet's 24 + 112, a 20 + 16 whose slice 1 holds both, three
    # inputs inside one slice, padded inputs and output
    ((2, 4, 9), (24, 112), (NO_PAD, NO_PAD), NO_PAD),
    ((1, 3, 3), (20, 16), (((0, 0, 1, 0), (0, 0, 0, 1)), NO_PAD), ((0, 0, 1, 1), (0, 0, 1, 1))),
    ((2, 5, 10), (3, 5, 7, 17), (NO_PAD, ((1, 0, 1, 2), (0, 0, 2, 0)), NO_PAD, NO_PAD), ((0, 0, 0, 2), (1, 0, 0, 0))),
]


def _layout(n, c, h, w, pad):
    return Layout(DataType.f32, Format.b_fs_yx_fsv16, (n, c, h, w), Padding(*pad))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_fsv16_concatenation_matches_numpy(engine, rng, case):
    (n, h, w), chans, pads, out_pad = case
    arrays = [f32(rng.standard_normal((n, c, h, w))) for c in chans]
    inputs = [_layout(n, c, h, w, p) for c, p in zip(chans, pads)]
    output = _layout(n, sum(chans), h, w, out_pad)
    params = Params("concatenation", engine.kind, inputs, output, typed_attrs("concatenation", {"axis": 1}),
                    layer_id="cat", device=engine.info)
    kern, kd = selector.select(params)
    assert kern.name == FAST and len(kd.kernels) == 1  # chosen on its own; one enqueue for every input
    out = run_kernel_padded(engine, "concatenation", inputs, output, {"axis": 1}, arrays, kernel=FAST)
    assert_close(out, np.concatenate(arrays, axis=1).astype(np.float64), rtol=0, atol=0)


def test_fsv16_concatenation_copies_lanes_only_where_a_slice_mixes_inputs(engine):
    """Slice-aligned inputs compile the float8 copy (CAT_LANES 0), a first input of 20 channels the lane copy."""
    def lanes(chans):
        ins = [_layout(1, c, 3, 3, NO_PAD) for c in chans]
        params = Params("concatenation", "ocl", ins, _layout(1, sum(chans), 3, 3, NO_PAD),
                        typed_attrs("concatenation", {"axis": 1}), device=engine.info)
        kern, kd = selector.select(params)
        assert kern.name == FAST
        return "#define CAT_LANES 1" in kd.kernels[0].source

    assert not lanes((32, 16, 7)) and lanes((20, 16))


def test_fsv16_concatenation_in_a_network(engine, rng):
    """Two fsv16 reorders concatenated (not in place: a blocked axis cannot be padded) run the fast kernel."""
    xs = [f32(rng.standard_normal((2, c, 5, 7))) for c in (48, 24)]
    t = cl.Topology()
    for i, x in enumerate(xs):
        t.add(cl.InputLayout(f"h{i}", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
        t.add(cl.Reorder(f"x{i}", f"h{i}", cl.Format.b_fs_yx_fsv16))
    t.add(cl.Concatenation("cat", ["x0", "x1"], axis=1))
    t.add(cl.Reorder("out", "cat", cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, t, cpu_tier()))
    assert net.program.node("cat").impl.kernel_name == FAST
    net.poison()
    out = net.run({"h0": xs[0], "h1": xs[1]})["out"]
    assert_close(out, np.concatenate(xs, axis=1).astype(np.float64), rtol=0, atol=0)
