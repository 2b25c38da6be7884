"""ShuffleChannels (both engines) vs explicit channel indexing on fresh data, bfyx and blocked inputs, poisoned
outputs, and its errors. The pass that creates it from ONNX's chain: tests/passes/test_fold_channel_shuffle.py."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.errors import ShapeError, TopologyError
from tests.helpers import f32


def shuffle_ref(x: np.ndarray, g: int) -> np.ndarray:
    """Channel shuffle by explicit indexing: y[:, c] = x[:, (c % g) * (C / g) + c // g]."""
    c = x.shape[1]
    return np.stack([x[:, (k % g) * (c // g) + k // g] for k in range(c)], axis=1)


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
@pytest.mark.parametrize("shape, group", [((1, 12, 5, 3), 3), ((2, 40, 4, 4), 4), ((1, 34, 2, 7), 2)])
def test_shuffle_channels_matches_reference(engine, rng, fmt, shape, group):
    x = f32(rng.standard_normal(shape))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reorder("xr", "x", format=fmt), cl.ShuffleChannels("s", "xr", group=group),
                       cl.Reorder("out", "s", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, topo))
    net.poison()
    np.testing.assert_array_equal(net.run({"x": x})["out"], shuffle_ref(x, group))


def test_shuffle_channels_errors():
    with pytest.raises(TopologyError, match="'s'.*group"):
        cl.ShuffleChannels("s", "x", group=0)
    prim = cl.ShuffleChannels("s", "x", group=3)
    with pytest.raises(ShapeError, match="'s'"):
        prim.calc_output_layout([cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 10, 2, 2))])


FSV16_CASES = [
    # shape, group, input padding (lower, upper), output padding (lower, upper)
    ((1, 48, 5, 11), 3, ((0, 0, 0, 0), (0, 0, 0, 0)), ((0, 0, 1, 1), (0, 0, 1, 1))),   # ShuffleNet: padded output
    ((2, 40, 3, 9), 4, ((0, 0, 1, 2), (0, 0, 2, 0)), ((0, 0, 0, 0), (0, 0, 0, 0))),    # channel tail, padded input
    ((3, 34, 2, 17), 17, ((1, 0, 0, 1), (0, 0, 1, 0)), ((0, 0, 2, 0), (1, 0, 0, 3))),  # batch 3, x past 2 blocks
]


@pytest.mark.parametrize("case", FSV16_CASES, ids=lambda c: f"{c[0]}-g{c[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_fsv16_kernel_on_padded_buffers(ocl_engine, rng, case, dtype):
    """shuffle_channels_b_fs_yx_fsv16 on padded blocked buffers (NaN or INT_MAX in the input's padding, a sentinel in
    the output's that must survive), every channel and pixel tail; selected on its own in the cpu tier."""
    from cldnn_py.layout import DataType, Format, Layout, Padding
    from tests.ocl.padded import run_kernel_padded

    shape, group, ipad, opad = case
    dt = DataType.f32 if dtype == np.float32 else DataType.i32
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    xl = Layout(dt, Format.b_fs_yx_fsv16, shape, Padding(*ipad))
    ol = Layout(dt, Format.b_fs_yx_fsv16, shape, Padding(*opad))
    out = run_kernel_padded(ocl_engine, "shuffle_channels", [xl], ol, {"group": group}, [x])
    np.testing.assert_array_equal(out, shuffle_ref(x, group))


def test_fsv16_kernel_is_the_cpu_tier_choice(ocl_engine):
    """Blocked in and out: the fsv16 kernel, ahead of the reference; a bfyx output: the reference."""
    from cldnn_py.layout import DataType, Format, Layout
    from kernel_selector import Params, selector
    from tests.helpers import typed_attrs

    lay = Layout(DataType.f32, Format.b_fs_yx_fsv16, (1, 48, 4, 4))
    params = Params("shuffle_channels", "ocl", [lay], lay, typed_attrs("shuffle_channels", {"group": 3}),
                    caps=ocl_engine.info.caps, kernel_tier="cpu")
    assert selector.select(params)[0].name == "shuffle_channels_b_fs_yx_fsv16"
    plain = Layout(DataType.f32, Format.bfyx, (1, 48, 4, 4))
    params = Params("shuffle_channels", "ocl", [lay], plain, typed_attrs("shuffle_channels", {"group": 3}),
                    caps=ocl_engine.info.caps, kernel_tier="cpu")
    assert selector.select(params)[0].name == "shuffle_channels_ref"
