"""convolution_b_fs_yx_fsv16 with input channels past the whole 16-channel slices run as a loop (IC_REM_ROLLED: 24
= 16 + 8 input channels, 1x1 and 3x3, batch 2, an output channel tail) under Oclgrind: clean log, float64
reference."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.references import conv_ref

pytestmark = pytest.mark.oclgrind


@pytest.mark.parametrize("k", [1, 3])
def test_channel_remainder_loop_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, k):
    x = f32(rng.standard_normal((2, 24, 4, 5)))
    w, b = f32(rng.standard_normal((20, 24, k, k)) * 0.2), f32(rng.standard_normal(20))
    p = k // 2
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Data("w_oiyx", w), cl.Reorder("w", "w_oiyx", cl.Format.os_iyx_osv16), cl.Data("b", b),
                       cl.Reorder("xb", "x", cl.Format.b_fs_yx_fsv16),
                       cl.Convolution("c", "xb", weights="w", bias="b", pad=(p, p)),
                       cl.Reorder("out", "c", cl.Format.bfyx))
    opts = cl.BuildOptions(kernel_tier="cpu", tuning="off", force_implementations={"c": "convolution_b_fs_yx_fsv16"})
    net = cl.Network(cl.Program(oclgrind_engine, topo, opts))
    net.poison()
    got = net.run({"x": x})["out"]
    oclgrind_log.assert_clean()
    assert_close(got, conv_ref(x, w, b, (1, 1), (1, 1), (p, p), (p, p), 1), rtol=1e-4, atol=1e-4)
