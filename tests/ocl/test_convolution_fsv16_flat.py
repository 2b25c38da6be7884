"""convolution_b_fs_yx_fsv16's FLAT form (a 1x1 stride-1 convolution over the OH * OW pixels as one row) vs the
float64 numpy reference: every pixel block size and loop order on a map whose size no block divides, y-padded input
(its padding NaN: a flat read past the interior shows), padded and plain (bfyx) outputs, a channel tail, batch 2,
fused residual sums whose operand is addressed by each pixel's (y, x), and the cases that must keep rows. The kernel
tests select for the device's caps with an 8-wide native vector (the form FLAT belongs to, which a device whose
native vector is 16 wide takes too when its registers are narrow), so they run on any OpenCL device."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import (
    ConvolutionKernelBFsYxFsv16,
    flat,
    row_pixels,
)
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded
from tests.references import conv_ref

FAST = "convolution_b_fs_yx_fsv16"
F32 = DataType.f32


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: an OpenCL kernel's variant."""
    return ocl_engine


def _layouts(n, c, oc, h, w, x_pad=((0, 0, 1, 0), (0, 0, 2, 0)), out_fmt=Format.b_fs_yx_fsv16,
             out_pad=((0, 0, 1, 1), (0, 0, 1, 1))):
    xl = Layout(F32, Format.b_fs_yx_fsv16, (n, c, h, w), Padding(*x_pad))
    wl = Layout(F32, Format.os_iyx_osv16, (oc, c, 1, 1))
    bl = Layout(F32, Format.bfyx, (oc,))
    ol = Layout(F32, out_fmt, (n, oc, h, w), Padding(*out_pad) if out_pad else Padding())
    return [xl, wl, bl], ol


def _caps8(engine):
    """The engine's caps with an 8-wide native float vector: the two-float8 form of the kernel."""
    return replace(engine.info.caps, native_vector_width_float=8)


def _params(engine, inputs, output):
    return Params("convolution", engine.kind, inputs, output, typed_attrs("convolution", {}), device=engine.info,
                  caps=_caps8(engine))


def _data(rng, n, c, oc, h, w):
    return (f32(rng.standard_normal((n, c, h, w))), f32(rng.standard_normal((oc, c, 1, 1))),
            f32(rng.standard_normal(oc)))


def _is_flat(engine, inputs, output) -> bool:
    return flat(_params(engine, inputs, output))


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("block", [3, 4, 5, 6])
@pytest.mark.parametrize("loop_order", [0, 1, 2])
def test_flat_blocks_and_loop_orders(engine, rng, block, loop_order):
    """2 x 37 -> 24 channels on 5 x 7 (35 pixels: every block size leaves a shifted last block), y-padded input,
    output padded for a following 3x3: every variant correct, nothing written into the padding."""
    inputs, output = _layouts(2, 37, 24, 5, 7)
    if not _is_flat(engine, inputs, output):
        pytest.skip("FLAT is for 8-wide vector devices (VEC16 keeps rows)")
    x, w, b = _data(rng, 2, 37, 24, 5, 7)
    variant = {"block": block, "loop_order": loop_order, "oc_blocks": 1}
    out = run_kernel_padded(engine, "convolution", inputs, output, {}, [x, w, b], kernel=FAST, variant=variant,
                            caps=_caps8(engine))
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1), rtol=1e-4, atol=1e-4)


def test_flat_tiles_the_map_not_the_rows(engine):
    """The work-items span OH * OW pixels in one gws row: 7 x 7 at P = 5 is 10 blocks (50 pixels computed for 49),
    where rows of 7 take 2 blocks each (56)."""
    inputs, output = _layouts(1, 64, 32, 7, 7, x_pad=((0, 0, 0, 0), (0, 0, 0, 0)), out_pad=None)
    params = _params(engine, inputs, output)
    if not flat(params):
        pytest.skip("FLAT is for 8-wide vector devices (VEC16 keeps rows)")
    k = ConvolutionKernelBFsYxFsv16()
    assert row_pixels(params) == 49
    (kc,) = k.kernel_data(params, {"block": 5, "loop_order": 0, "oc_blocks": 1}).kernels
    assert "#define FLAT 1" in kc.source
    assert kc.gws[1] == 1 and kc.gws[0] * k.row_blocks(params, 5) * 5 >= 49


def test_flat_plain_output_head(engine, rng):
    """A narrow head (OC 5, bfyx output with padding) from the flat form: only the real channels written."""
    inputs, output = _layouts(1, 21, 5, 6, 9, out_fmt=Format.bfyx, out_pad=((0, 0, 1, 2), (0, 0, 0, 1)))
    if not _is_flat(engine, inputs, output):
        pytest.skip("FLAT is for 8-wide vector devices (VEC16 keeps rows)")
    x, w, b = _data(rng, 1, 21, 5, 6, 9)
    out = run_kernel_padded(engine, "convolution", inputs, output, {}, [x, w, b], kernel=FAST, caps=_caps8(engine))
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", [
    ((0, 0, 0, 1), (0, 0, 0, 0), (1, 1), (0, 0)),   # x-padded input: pixels of a row are not contiguous
    ((0, 0, 0, 0), (0, 0, 0, 0), (2, 2), (0, 0)),   # stride 2
    ((0, 0, 0, 0), (0, 0, 0, 0), (1, 1), (1, 1)),   # a padded 1x1
], ids=["x-padded", "strided", "padded-conv"])
def test_rows_where_flat_does_not_apply(engine, rng, case):
    lo, hi, stride, pad = case
    xl = Layout(F32, Format.b_fs_yx_fsv16, (1, 20, 6, 8), Padding(lo, hi))
    attrs = {"stride": stride, "pad": pad}
    oh, ow = ((6 + 2 * pad[0] - 1) // stride[0] + 1, (8 + 2 * pad[1] - 1) // stride[1] + 1)
    inputs = [xl, Layout(F32, Format.os_iyx_osv16, (16, 20, 1, 1)), Layout(F32, Format.bfyx, (16,))]
    output = Layout(F32, Format.b_fs_yx_fsv16, (1, 16, oh, ow))
    params = Params("convolution", engine.kind, inputs, output, typed_attrs("convolution", attrs),
                    device=engine.info, caps=_caps8(engine))
    assert not flat(params)
    x, w, b = f32(rng.standard_normal((1, 20, 6, 8))), f32(rng.standard_normal((16, 20, 1, 1))), \
        f32(rng.standard_normal(16))
    out = run_kernel_padded(engine, "convolution", inputs, output, attrs, [x, w, b], kernel=FAST, caps=_caps8(engine))
    assert_close(out, conv_ref(x, w, b, stride, (1, 1), pad, pad, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("operand_fmt", [Format.b_fs_yx_fsv16, Format.bfyx])
def test_flat_fused_residual_and_relu(engine, rng, operand_fmt):
    """conv 1x1 + shortcut + relu (ResNet's block end) on 2 x 9 x 11: the residual operand (blocked, or gathered
    from bfyx) is read at each pixel's (y, x), which the flat epilogue computes from the flat index. The blocked
    operand also feeds a 3x3 convolution, so prepare_padding pads its buffer: a flat index taken for (0, x) would
    read the wrong pixels there."""
    x = f32(rng.standard_normal((2, 24, 9, 11)))
    w = f32(rng.standard_normal((40, 24, 1, 1)))
    b = f32(rng.standard_normal(40))
    y = f32(rng.standard_normal((2, 40, 9, 11)) * 3)
    t = cl.Topology()
    t.add(cl.InputLayout("x_host", cl.Layout(F32, Format.bfyx, x.shape)))
    t.add(cl.Reorder("x", "x_host", Format.b_fs_yx_fsv16))
    t.add(cl.Data("w_oiyx", w), cl.Reorder("w", "w_oiyx", Format.os_iyx_osv16), cl.Data("b", b))
    t.add(cl.Convolution("conv", "x", weights="w", bias="b"))
    t.add(cl.InputLayout("y_host", cl.Layout(F32, Format.bfyx, y.shape)))
    operand = "y_host"
    ws = f32(rng.standard_normal((16, 40, 3, 3)))
    if operand_fmt != Format.bfyx:
        t.add(cl.Reorder("y", "y_host", operand_fmt))
        operand = "y"
        t.add(cl.Data("ws_oiyx", ws), cl.Reorder("ws", "ws_oiyx", Format.os_iyx_osv16))
        t.add(cl.Convolution("side", "y", weights="ws", pad=(1, 1)), cl.Reorder("side_out", "side", Format.bfyx))
    t.add(cl.Eltwise("sum", inputs=("conv", operand), mode="sum"))
    t.add(cl.Activation("relu", "sum", func="relu"), cl.Reorder("out", "relu", Format.bfyx))
    net = cl.Network(cl.Program(engine, t, cpu_tier()))
    if operand_fmt != Format.bfyx:
        assert not net.program.node("y").layout().padding.is_zero
    node = net.program.node("conv")
    assert node.impl.kernel_name == FAST and len(node.fused_ops) == 2
    if "#define FLAT 1" not in node.impl.kernels[0].source:
        pytest.skip("FLAT is for 8-wide vector devices (VEC16 keeps rows)")
    net.poison()
    expect = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1) + y, 0)
    got = net.run({"x_host": x, "y_host": y})
    assert_close(got["out"], expect, rtol=1e-4, atol=1e-4)
    if operand_fmt != Format.bfyx:
        assert_close(got["side_out"], conv_ref(y, ws, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
