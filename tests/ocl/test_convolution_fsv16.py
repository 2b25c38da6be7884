"""convolution_b_fs_yx_fsv16 (blocked direct convolution) vs the float64 numpy reference (tests/references.py).

The kernel runs only on b_fs_yx_fsv16 data with os_iyx_osv16 weights; the topologies here build that with Reorder
primitives (what the layout pass will insert later) and assert the fast kernel was the one selected. Padded
buffers are exercised directly: with a halo the kernel reads without bounds checks (the padding must be zero),
without it (or with too little) it checks bounds and must never read the padding (filled with NaN).
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs
from kernel_selector import DONT_USE_IF_HAVE_SOMETHING_ELSE, Params, selector
from kernel_selector.common.block import choose_block
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import (
    ConvolutionKernelBFsYxFsv16,
    needs_checks,
)
from tests.helpers import assert_close, cpu_tier, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded
from tests.ocl.zero_halo import run_zero_halo
from tests.references import activation_ref, conv_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


FAST = "convolution_b_fs_yx_fsv16"


def fsv16_topology(x_shape, w, b, out: bool = True, **conv) -> cl.Topology:
    """bfyx input → Reorder(b_fs_yx_fsv16); Data weights → Reorder(os_iyx_osv16); conv; (``out``) Reorder back
    to bfyx."""
    t = cl.Topology()
    t.add(cl.InputLayout("x_host", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x_shape)))
    t.add(cl.Reorder("x", "x_host", cl.Format.b_fs_yx_fsv16))
    t.add(cl.Data("w_oiyx", w))
    t.add(cl.Reorder("w", "w_oiyx", cl.Format.os_iyx_osv16))
    if b is not None:
        t.add(cl.Data("b", b))
    t.add(cl.Convolution("conv", "x", weights="w", bias="b" if b is not None else None, **conv))
    if out:
        t.add(cl.Reorder("out", "conv", cl.Format.bfyx))
    return t


CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups, bias
    ((1, 3, 9, 11), 24, (3, 3), (1, 1), (1, 1), (1, 1), None, 1, True),        # C < 16, OC tail 8
    ((2, 19, 10, 13), 40, (3, 3), (2, 2), (1, 1), (1, 1), None, 1, True),      # C 16 + 3, 3x3/2, batch 2
    ((1, 32, 12, 17), 16, (1, 1), (1, 1), (1, 1), (0, 0), None, 1, True),      # 1x1
    ((1, 20, 9, 9), 8, (1, 1), (2, 2), (1, 1), (0, 0), None, 1, False),        # 1x1/2, one partial slice
    ((2, 24, 7, 9), 40, (1, 1), (1, 1), (1, 1), (0, 0), None, 1, True),        # 1x1, 16 + 8 (IC_REM_ROLLED)
    ((1, 3, 29, 30), 32, (7, 7), (2, 2), (1, 1), (3, 3), None, 1, True),       # first layer 7x7/2 pad 3
    ((1, 16, 12, 14), 20, (3, 3), (1, 1), (2, 2), (2, 2), None, 1, True),      # dilation 2
    ((1, 17, 8, 11), 16, (3, 2), (1, 2), (1, 1), (0, 1), (2, 0), 1, True),     # asymmetric pads and kernel
    ((1, 16, 5, 3), 16, (3, 3), (1, 1), (1, 1), (1, 1), None, 1, True),        # output row narrower than P
    ((1, 64, 8, 9), 32, (3, 3), (1, 1), (1, 1), (1, 1), None, 2, True),        # groups: 32 -> 16 per group
    ((1, 24, 9, 10), 24, (3, 3), (1, 1), (1, 1), (1, 1), None, 24, True),      # depthwise, channel tail
    ((1, 32, 11, 11), 32, (3, 3), (2, 2), (1, 1), (1, 1), None, 32, False),    # depthwise 3x3/2
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[7]}")
def test_fsv16_convolution_matches_reference(engine, rng, case):
    shape, oc, k, stride, dil, pad, pad_end, groups, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc)) if bias else None
    topo = fsv16_topology(shape, w, b, stride=stride, dilation=dil, pad=pad, pad_end=pad_end, groups=groups)
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    assert net.program.node("conv").impl.kernel_name == FAST
    net.poison()
    out = net.run({"x_host": x})["out"]
    assert_close(out, conv_ref(x, w, b, stride, dil, pad, pad_end or pad, groups), rtol=1e-4, atol=1e-4)


def test_fsv16_matches_reference_kernel_in_one_network(engine, rng):
    """The same convolution through convolution_ref (bfyx, oiyx) and the fast kernel, side by side."""
    x = f32(rng.standard_normal((1, 21, 13, 12)))
    w = f32(rng.standard_normal((33, 21, 3, 3)))
    b = f32(rng.standard_normal(33))
    topo = fsv16_topology(x.shape, w, b, stride=(1, 1), pad=(1, 1))
    topo.add(cl.Convolution("conv_ref", "x_host", weights="w_oiyx", bias="b", pad=(1, 1)))
    program = cl.Program(engine, topo, cpu_tier(outputs=["out", "conv_ref"],
                                             force_implementations={"conv_ref": "convolution_ref"}))
    assert program.node("conv").impl.kernel_name == FAST
    assert program.node("conv_ref").impl.kernel_name == "convolution_ref"
    net = cl.Network(program)
    net.poison()
    outs = net.run({"x_host": x})
    assert_close(outs["out"], outs["conv_ref"].astype(np.float64), rtol=1e-4, atol=1e-4)


# ----- fused ops ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("oc, operand_fmt, acts", [
    (32, cl.Format.b_fs_yx_fsv16, ("relu",)),                    # ResNet: conv + shortcut + relu, float8 operand
    (20, cl.Format.bfyx, ("relu_negative_slope", "logistic")),   # gathered operand, lane-by-lane activation
    (24, None, ("hard_sigmoid",)),                               # activation only, channel tail
])
def test_fsv16_fused_eltwise_and_activations(engine, rng, oc, operand_fmt, acts):
    """prepare_primitive_fusing folds the sum and activations into the convolution; the fast kernel applies them
    in its epilogue (FUSED_OPS8)."""
    x = f32(rng.standard_normal((1, 19, 9, 13)))
    w = f32(rng.standard_normal((oc, 19, 3, 3)))
    b = f32(rng.standard_normal(oc))
    y = f32(rng.standard_normal((1, oc, 9, 13)) * 5)
    last = "conv"
    expect = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    prims = []
    if operand_fmt is not None:
        prims.append(cl.InputLayout("y_host", cl.Layout(cl.DataType.f32, cl.Format.bfyx, y.shape)))
        if operand_fmt != cl.Format.bfyx:
            prims.append(cl.Reorder("y", "y_host", operand_fmt))
        prims.append(cl.Eltwise("sum", inputs=(last, "y" if operand_fmt != cl.Format.bfyx else "y_host"),
                                mode="sum"))
        last = "sum"
        expect = expect + y
    for i, func in enumerate(acts):
        a = {"relu_negative_slope": 0.1, "hard_sigmoid": 0.2}.get(func)
        prims.append(cl.Activation(f"act{i}", last, func=func, a=a, b=0.5 if func == "hard_sigmoid" else None))
        last = f"act{i}"
        expect = activation_ref(expect, func, a, 0.5 if func == "hard_sigmoid" else None)
    prims.append(cl.Reorder("out", last, cl.Format.bfyx))
    topo = fsv16_topology(x.shape, w, b, pad=(1, 1), out=False)
    for prim in prims:
        topo.add(prim)
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    node = net.program.node("conv")
    assert node.impl.kernel_name == FAST and len(node.fused_ops) == len(acts) + (operand_fmt is not None)
    net.poison()
    feeds = {"x_host": x} | ({"y_host": y} if operand_fmt is not None else {})
    assert_close(net.run(feeds)["out"], expect, rtol=1e-4, atol=1e-4)


# ----- padded buffers -----------------------------------------------------------------------------------------


def _layouts(x_shape, w_shape, oc, out_hw, x_pad, out_pad):
    f = DataType.f32
    xl = Layout(f, Format.b_fs_yx_fsv16, x_shape, Padding(*x_pad))
    wl = Layout(f, Format.os_iyx_osv16, w_shape)
    bl = Layout(f, Format.bfyx, (oc,))
    ol = Layout(f, Format.b_fs_yx_fsv16, (x_shape[0], oc) + out_hw, Padding(*out_pad))
    return [xl, wl, bl], ol


def _attrs(stride, pad, dilation=(1, 1)):
    return {"stride": stride, "dilation": dilation, "pad": pad, "pad_end": pad, "groups": 1}


def _checks(engine, inputs, output, attrs) -> tuple[bool, bool]:
    params = Params("convolution", engine.kind, inputs, output, typed_attrs("convolution", attrs))
    _, kd = selector.select(params, FAST)
    src = kd.kernels[0].source
    assert (f"#define CHECK_Y {int(needs_checks(params)[0])}" in src
            and f"#define CHECK_X {int(needs_checks(params)[1])}" in src)
    return needs_checks(params)


@pytest.mark.parametrize("x_pad, conv_pad, expect_checks", [
    (((0, 0, 1, 2), (0, 0, 2, 1)), (0, 0), (False, False)),  # padded buffer, no conv padding: halo never read
    (((0, 0, 0, 1), (0, 0, 1, 0)), (1, 1), (True, True)),    # too little padding for pad 1: bounds checks
])
def test_fsv16_reads_no_padding_it_does_not_need(engine, rng, x_pad, conv_pad, expect_checks):
    """run_kernel_padded fills the input padding and block tails with NaN: they must never be read, and the
    output's padding and block tail (OC = 20) must keep their sentinel."""
    x = f32(rng.standard_normal((1, 18, 9, 10)))
    w = f32(rng.standard_normal((20, 18, 3, 3)))
    b = f32(rng.standard_normal(20))
    oh, ow = 9 + 2 * conv_pad[0] - 2, 10 + 2 * conv_pad[1] - 2
    inputs, output = _layouts(x.shape, w.shape, 20, (oh, ow), x_pad, ((0, 0, 1, 2), (0, 0, 2, 1)))
    attrs = _attrs((1, 1), conv_pad)
    assert _checks(engine, inputs, output, attrs) == expect_checks
    out = run_kernel_padded(engine, "convolution", inputs, output, attrs, [x, w, b], kernel=FAST)
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), conv_pad, conv_pad, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape, oc, k, stride, pad, dil", [
    ((1, 19, 11, 16), 24, 3, 1, 1, 1),   # 3x3 pad 1
    ((1, 3, 21, 22), 16, 7, 2, 3, 1),    # first layer 7x7/2 pad 3, halo rows/cols beyond pad_end unused
    ((1, 16, 10, 13), 16, 3, 1, 2, 2),   # dilation 2 pad 2
])
def test_fsv16_reads_zero_halo_without_checks(engine, rng, shape, oc, k, stride, pad, dil):
    """The fast path: the input buffer's padding holds the convolution's zero halo; no bounds checks compiled."""
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], k, k)))
    b = f32(rng.standard_normal(oc))
    oh = (shape[2] + 2 * pad - dil * (k - 1) - 1) // stride + 1
    ow = (shape[3] + 2 * pad - dil * (k - 1) - 1) // stride + 1
    x_pad = ((0, 0, pad, pad + 1), (0, 0, pad, pad))
    inputs, output = _layouts(shape, w.shape, oc, (oh, ow), x_pad, ((0, 0, 1, 1), (0, 0, 0, 3)))
    attrs = _attrs((stride, stride), (pad, pad), (dil, dil))
    assert _checks(engine, inputs, output, attrs) == (False, False)
    out = run_zero_halo(engine, inputs, output, attrs, [x, w, b])
    assert_close(out, conv_ref(x, w, b, (stride, stride), (dil, dil), (pad, pad), (pad, pad), 1),
                 rtol=1e-4, atol=1e-4)


# ----- selection ------------------------------------------------------------------------------------------------


def _explain(engine, x_fmt, w_fmt, groups=1, c=32, oc=32):
    f = DataType.f32
    inputs = [Layout(f, x_fmt, (1, c, 8, 8)), Layout(f, w_fmt, (oc, c // groups, 3, 3))]
    params = Params("convolution", engine.kind, inputs, Layout(f, x_fmt, (1, oc, 6, 6)),
                    ConvolutionAttrs(groups=groups))
    return {v.kernel: v for v in selector.explain(params)}


def test_fsv16_selection_and_rejections(engine):
    fs, os16, oiyx = Format.b_fs_yx_fsv16, Format.os_iyx_osv16, Format.oiyx
    v = _explain(engine, fs, os16)
    assert v[FAST].reason is None and v[FAST].priority < DONT_USE_IF_HAVE_SOMETHING_ELSE
    assert v["convolution_ref"].reason is not None  # the reference takes plain weights only
    v = _explain(engine, fs, oiyx)
    assert "os_iyx_osv16" in v[FAST].reason and v["convolution_ref"].reason is None
    assert "at most 8 channels" in _explain(engine, Format.bfyx, os16)[FAST].reason  # bfyx: a first layer only
    assert "multiples of 16" in _explain(engine, fs, os16, groups=4)[FAST].reason   # 8 channels per group
    assert _explain(engine, fs, os16, groups=2)[FAST].reason is None                 # 16 per group
    assert _explain(engine, fs, os16, groups=32)[FAST].reason is None                # depthwise


def test_choose_block():
    assert choose_block(3) == 3 and choose_block(6) == 6
    assert choose_block(56) == 6 and choose_block(14) == 5 and choose_block(7) == 4
    assert all(3 <= choose_block(w) <= 6 for w in range(7, 300))


@pytest.mark.parametrize("x_shape, oc, k, stride, pad, groups, want", [
    ((1, 128, 56, 56), 128, 3, 2, 1, 1, (4, 2)),    # ResNet-50's 3x3/2: P 4, channel by channel
    ((1, 256, 14, 14), 256, 3, 1, 1, 1, (5, 2)),    # 3x3 stride 1: P up to 5
    ((1, 512, 7, 7), 512, 3, 1, 1, 1, (4, 2)),      # a 7-wide row: 4 (8 computed) beats 5 (10)
    ((1, 32, 27, 27), 96, 5, 1, 2, 1, (4, 2)),      # 5x5: P 4
    ((1, 64, 56, 56), 256, 1, 1, 0, 1, (6, 0)),     # 1x1 keeps P 6 and LOOP_ORDER 0 (FLAT here)
    ((1, 64, 28, 28), 64, 3, 1, 1, 64, (6, 0)),     # depthwise: LOOP_ORDER 0 only, the general P
])
def test_priority_rules_for_filters_wider_than_1x1(engine, x_shape, oc, k, stride, pad, groups, want):
    """Without a tuning cache: LOOP_ORDER 2 and P <= 4 (5 for a 3x3 stride-1 filter) for filters wider than 1x1 on
    two-float8 devices (convolution_kernel_b_fs_yx_fsv16.SPATIAL_BLOCK_LIMIT); 1x1 and depthwise as before. Selected
    for the engine's caps with an 8-wide native vector (that form on any device; a 16-wide device with narrow
    registers takes it too)."""
    from dataclasses import replace

    from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import vec16

    oh = (x_shape[2] + 2 * pad - k) // stride + 1
    inputs, output = _layouts(x_shape, (oc, x_shape[1] // groups, k, k), oc, (oh, oh),
                              ((0, 0, pad, pad), (0, 0, pad, pad)), ((0, 0, 0, 0), (0, 0, 0, 0)))
    attrs = {**_attrs((stride, stride), (pad, pad)), "groups": groups}
    params = Params("convolution", engine.kind, inputs, output, typed_attrs("convolution", attrs),
                    device=engine.info, caps=replace(engine.info.caps, native_vector_width_float=8),
                    kernel_tier="cpu")
    assert not vec16(params)
    narrow16 = Params("convolution", engine.kind, inputs, output, typed_attrs("convolution", attrs),
                      device=engine.info, caps=replace(engine.info.caps, native_vector_width_float=16),
                      device_caps={"registers": "narrow"}, kernel_tier="cpu")
    assert ConvolutionKernelBFsYxFsv16().default_variant(narrow16) == ConvolutionKernelBFsYxFsv16().default_variant(
        params)
    kern, kd = selector.select(params, FAST)
    v = kern.default_variant(params)
    assert (v["block"], v["loop_order"]) == want
