"""convolution_cpu_packed (packed-panel GEMM, LLVM-IR micro-kernel) vs an independent float64 convolution.

Direct runs on NaN-poisoned physical buffers (conv_harness.py): plain and blocked data, padded input and output,
groups whose channel counts straddle the 16-row weight panels, pixel counts that end inside a tile, fused ops on the
in-place path and on the temporary path; the generated machine code (vector FMAs, accumulators kept in registers);
the selector's choice in a network.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Padding
from tests.cpu.conv_harness import CASES, assert_loop_fmas_in_registers, run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

KERNEL = "convolution_cpu_packed"
FSV16, OSV16 = Format.b_fs_yx_fsv16, Format.os_iyx_osv16


@pytest.fixture(autouse=True, params=["pixel-vectors", "channel-vector-rows", "channel-vector-rows-second"])
def small_output_form(request, monkeypatch):
    """Every test three times: padded-grid and strided 1×1 layers through the pixel-vector GEMM (OC_ROWS_MAX_PIXELS
    and its _WIDE form 0, OC_ROWS_GRID_MIN_LANES above 1), and through channel-vector row tiles wherever they apply
    (cpu_conv_oc.oc_row_tiles, any output size), in the main tile and the second one (ALT_TILE 0 / 1)."""
    from kernel_selector.kernels.convolution import cpu_conv_oc as mod

    monkeypatch.setattr(mod, "ALT_TILE", int(request.param.endswith("second")))
    pixels = request.param == "pixel-vectors"
    monkeypatch.setattr(mod, "OC_ROWS_MAX_PIXELS", 0 if pixels else 1 << 30)
    monkeypatch.setattr(mod, "OC_ROWS_MAX_PIXELS_WIDE", 0 if pixels else 1 << 30)
    monkeypatch.setattr(mod, "OC_ROWS_GRID_MIN_LANES", 2.0 if pixels else 0.0)
    return request.param

LAYOUTS = [  # (data format, output format, padded)
    (Format.bfyx, Format.bfyx, False),
    (Format.bfyx, Format.bfyx, True),
    (Format.byxf, Format.bfyx, False),
    (FSV16, FSV16, False),
    (FSV16, FSV16, True),
]

MORE_CASES = [
    ((1, 12, 6, 7), 20, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), 4),  # 5 output channels per group: panels shared
    ((2, 70, 9, 8), 37, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),  # long K, OC tail, 72 pixels (tile tail)
    ((1, 34, 11, 13), 51, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), 1),  # 143 pixels in place (1x1 direct)
    ((1, 48, 5, 5), 96, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 3),
    ((2, 10, 13, 11), 12, (3, 3), (2, 3), (2, 1), (2, 1), (1, 2), 1),  # stride phases with dilation
]


@pytest.mark.parametrize("case", CASES + MORE_CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-g{c[7]}")
@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda v: f"{v[0].value}-{v[1].value}-pad{int(v[2])}")
def test_packed_matches_reference(rng, case, lay):
    shape, oc, k, stride, dil, pad, pad_end, groups = case
    xfmt, ofmt, padded = lay
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc))
    xpad = Padding((0, 0, 1, 2), (0, 0, 0, 1)) if padded else Padding()
    opad = Padding((0, 0, 2, 1), (0, 0, 1, 1)) if padded else Padding()
    got, _ = run_direct(KERNEL, x, w, b, stride, dil, pad, pad_end, groups, xfmt=xfmt, wfmt=OSV16, ofmt=ofmt,
                        xpad=xpad, opad=opad)
    assert_close(got, conv_ref(x, w, b, stride, dil, pad, pad_end, groups), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rshape", [(2, 24, 6, 5), (1, 24, 1, 5)], ids=["same-shape", "broadcast-y"])
def test_packed_fused_residual(rng, rshape):
    """The residual sum + relu on the in-place path (operand pixel-contiguous) and on the temporary path (an
    operand broadcast over y is not)."""
    x = f32(rng.standard_normal((2, 40, 6, 5)))
    w = f32(rng.standard_normal((24, 40, 1, 1)))
    res = f32(rng.standard_normal(rshape))
    fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    assert_close(got, np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), 1) + res, 0), rtol=1e-4,
                 atol=1e-4)


@pytest.mark.parametrize("func,a,b,np_fn", [
    ("hard_swish", 0.0, 0.0, lambda v: v * np.clip(v + 3, 0, 6) / 6),
    ("clamp", -0.5, 0.75, lambda v: np.clip(v, -0.5, 0.75)),
])
def test_packed_fused_activation_with_bias(rng, func, a, b, np_fn):
    x = f32(rng.standard_normal((1, 16, 9, 6)))
    w = f32(rng.standard_normal((20, 16, 3, 3))) * 0.2
    bias = f32(rng.standard_normal(20))
    got, _ = run_direct(KERNEL, x, w, bias, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": func, "a": a, "b": b})])
    assert_close(got, np_fn(conv_ref(x, w, bias, (1, 1), (1, 1), (1, 1), (1, 1), 1)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("indirect", [False, True], ids=["strided-b", "koff-rows"])
def test_micro_kernel_keeps_accumulators_in_vector_registers(indirect):
    """The micro-kernel's loop issues MR x NV vector FMAs per k step (a multiple, if LLVM unrolls it) on the widest
    registers the host has and moves no vector register to or from the stack (issue 16: FMAs on ymm/zmm, no
    spills in the inner loop), in both B forms. Compiled here without numba's cache, whose code cannot be
    inspected."""
    from kernel_selector.common import cpu_microkernel as mk

    micro, micro_rows = mk.micro_kernel, mk.micro_kernel_rows

    def tile(a, b, c, bias, res, clamp, k, n):  # pragma: no cover - numba
        micro(a, 0, b, 0, n, c, 0, n, k, n, 0, mk.MR, bias, 0, res, 0, n, clamp, 3)

    def tile_rows(a, b, c, bias, res, clamp, k, n):  # pragma: no cover - numba
        koff = np.arange(k) * n
        micro_rows(a, 0, b, 0, koff, 0, c, 0, n, k, n, 0, mk.MR, bias, 0, res, 0, n, clamp, 3)

    assert_loop_fmas_in_registers(tile_rows if indirect else tile, mk.MR * mk.NV)


def test_packed_selected_in_network_with_packed_weights(cpu_engine, rng):
    """No forcing: a dense convolution on the CPU engine runs this kernel; the layout optimizer packs its weights."""
    x = f32(rng.standard_normal((1, 32, 6, 6)))
    w = f32(rng.standard_normal((16, 32, 3, 3)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    topo.add(cl.Data("w", w))
    topo.add(cl.Convolution("conv", "x", weights="w", pad=(1, 1)))
    topo.add(cl.Activation("relu", "conv", "relu"))
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions()))
    net.poison()
    got = net.run({"x": x})["relu"]
    assert_close(got, np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0), rtol=1e-4, atol=1e-4)
    node = net.program.nodes["conv"]
    assert node.impl.kernel_name == KERNEL
    assert node.dependencies[1].layout().format == OSV16


@pytest.mark.parametrize("k,pad", [((1, 1), (0, 0)), ((3, 3), (1, 1))])
def test_packed_writes_a_concat_slice_in_place(rng, k, pad):
    """An output padded in f only (a concatenation's slice: SqueezeNet's expand layers) takes the tiles in place;
    the channels around the slice stay untouched."""
    x = f32(rng.standard_normal((2, 24, 7, 9)))
    w = f32(rng.standard_normal((20, 24) + k))
    b = f32(rng.standard_normal(20))
    res = f32(rng.standard_normal((2, 20, 7, 9)))
    fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), pad, pad, 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, opad=Padding((0, 3, 0, 0), (0, 5, 0, 0)), fused=fused, residual=res)
    ref = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), pad, pad, 1) + res, 0)
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


def _check_residual_relu_and_relu(rng, x, w, b, stride, pad):
    """The kernel with a residual sum and relu fused, then with relu alone, each against the float64 reference."""
    ref = conv_ref(x, w, b, stride, (1, 1), pad, pad, 1)
    res = f32(rng.standard_normal(ref.shape))
    fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]
    got, _ = run_direct(KERNEL, x, w, b, stride, (1, 1), pad, pad, 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    assert_close(got, np.maximum(ref + res, 0), rtol=1e-4, atol=1e-4)
    got, _ = run_direct(KERNEL, x, w, b, stride, (1, 1), pad, pad, 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": "relu"})])
    assert_close(got, np.maximum(ref, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("scratch", ["whole-batch", "one-image"])
@pytest.mark.parametrize("k,stride,pad", [((1, 1), (1, 1), (0, 0)), ((3, 3), (1, 1), (1, 1)),
                                          ((3, 3), (2, 2), (1, 1)), ((1, 1), (2, 2), (0, 0)),
                                          ((5, 3), (3, 2), (2, 1))],
                         ids=["direct", "grid", "phases", "im2col", "phases-3x2"])
def test_packed_batch_in_one_region_or_per_image(rng, monkeypatch, scratch, k, stride, pad):
    """A batch of 3 runs as one GEMM region (each image its own scratch slot), or image by image when the
    scratch budget holds one image: both equal the reference, with a residual sum and relu fused."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    if scratch == "one-image":
        monkeypatch.setattr(mod, "SCRATCH_BYTES", 1)
    x = f32(rng.standard_normal((3, 20, 9, 7)))
    w = f32(rng.standard_normal((24, 20) + k))
    b = f32(rng.standard_normal(24))
    _check_residual_relu_and_relu(rng, x, w, b, stride, pad)


@pytest.mark.parametrize("nopack", [0, 1000], ids=["always-pack", "never-pack"])
@pytest.mark.parametrize("k,stride,pad", [((1, 1), (1, 1), (0, 0)), ((3, 3), (1, 1), (1, 1)),
                                          ((3, 3), (2, 2), (1, 1)), ((1, 1), (2, 2), (0, 0))],
                         ids=["direct", "grid", "phases", "im2col"])
def test_packed_and_in_place_b_agree(rng, monkeypatch, nopack, k, stride, pad):
    """Every B form (strided in place, rows through koff, packed panels) on 40 output channels (5 row tiles) and a
    K above one KC block (288 = 32 · 3 · 3 rows) and 2 groups of 20 channels: each equals the reference with bias
    and relu."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    monkeypatch.setattr(mod, "NOPACK_TILES", nopack)
    x = f32(rng.standard_normal((2, 64, 9, 11)))
    w = f32(rng.standard_normal((40, 32) + k))
    b = f32(rng.standard_normal(40))
    got, _ = run_direct(KERNEL, x, w, b, stride, (1, 1), pad, pad, 2, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": "relu"})])
    assert_close(got, np.maximum(conv_ref(x, w, b, stride, (1, 1), pad, pad, 2), 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("k_in,oc", [(576, 144), (37, 21), (3, 16)], ids=["se-squeeze", "odd", "k3"])
def test_one_pixel_gemv(rng, k_in, oc):
    """A 1x1 convolution of 1x1 images (batch 3): the GEMV path, with bias, relu, a residual sum and a second
    clamp fused, then a per-channel product and hard_sigmoid in the chain (the SE gate's shape), vs float64."""
    x = f32(rng.standard_normal((3, k_in, 1, 1)))
    w = f32(rng.standard_normal((oc, k_in, 1, 1)) / np.sqrt(k_in))
    b = f32(rng.standard_normal(oc))
    res = f32(rng.standard_normal((3, oc, 1, 1)))
    fused = [("activation", {"func": "relu"}), ("eltwise", {"mode": "sum"}),
             ("activation", {"func": "clamp", "a": -0.5, "b": 2.0})]
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    ref = np.clip(np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1), 0) + res, -0.5, 2.0)
    assert_close(got, ref, rtol=1e-4, atol=1e-4)
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=[("activation", {"func": "hard_sigmoid", "a": 0.2, "b": 0.5})])
    ref = np.clip(0.2 * conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1) + 0.5, 0, 1)
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


def _fq(step, zp=128.0):
    """The four activations a QDQ pair (uint8, scale ``step``) becomes, and their float64 meaning."""
    ops = [("activation", {"func": "linear", "a": 1.0 / step, "b": zp}), ("activation", {"func": "round"}),
           ("activation", {"func": "clamp", "a": 0.0, "b": 255.0}),
           ("activation", {"func": "linear", "a": step, "b": -zp * step})]
    return ops, lambda v: (np.clip(np.rint(v / step + zp), 0, 255) - zp) * step


FQ_CASES = {  # name: (x shape, oc, kernel, stride, pad, chain, residual?) ; chain as ops of _fq / relu
    "1x1-in-place-fq": ((1, 40, 9, 7), 24, (1, 1), (1, 1), (0, 0), ["fq1"], False),
    "3x3-grid-relu-fq": ((1, 16, 11, 9), 20, (3, 3), (1, 1), (1, 1), ["relu", "fq1"], False),
    "3x3-strided-fq": ((1, 24, 13, 12), 32, (3, 3), (2, 2), (1, 1), ["fq1"], False),
    "1x1-long-k-residual-block": ((1, 300, 6, 7), 40, (1, 1), (1, 1), (0, 0), ["fq1", "sum", "relu", "fq2"], True),
    "1x1-one-pixel-gemv": ((2, 64, 1, 1), 36, (1, 1), (1, 1), (0, 0), ["fq1", "sum", "fq2"], True),
    "fq-then-tanh-rest": ((1, 16, 5, 6), 16, (1, 1), (1, 1), (0, 0), ["fq1", "tanh"], False),
}


@pytest.mark.parametrize("name", list(FQ_CASES))
def test_packed_fake_quantization_in_registers(rng, name):
    """QDQ chains (linear, round, clamp, linear) in the micro-kernel's register epilogue, before and after a
    residual sum (split_chain takes them: flags 8 / 16), on the in-place, grid, strided, long-K (KC blocks) and GEMV
    paths, and followed by an op it leaves to the chain pass: every output within one quantization step of the
    float64 reference and nearly all on the same step."""
    from cldnn_py.layout import Layout
    from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
    from kernel_selector.kernels.convolution.convolution_kernel_cpu_packed import split_chain
    from kernel_selector.params import FusedOp

    shape, oc, k, stride, pad, chain, has_res = FQ_CASES[name]
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k) / np.sqrt(shape[1] * k[0] * k[1]))
    bias = f32(rng.standard_normal(oc) * 0.1)
    ref = conv_ref(x, w, bias, stride, (1, 1), pad, pad, 1)
    res = f32(rng.standard_normal(ref.shape) * 0.5) if has_res else None
    fq1, fq1_ref = _fq(0.011)
    fq2, fq2_ref = _fq(0.017, zp=0.0)
    fused, expected = [], ref
    for part in chain:
        if part == "fq1":
            fused += fq1
            expected = fq1_ref(expected)
        elif part == "fq2":
            fused += fq2
            expected = fq2_ref(expected)
        elif part == "sum":
            fused.append(("eltwise", {"mode": "sum"}))
            expected = expected + res
        else:
            fused.append(("activation", {"func": part}))
            expected = np.maximum(expected, 0) if part == "relu" else np.tanh(expected)
    got, _ = run_direct(KERNEL, x, w, bias, stride, (1, 1), pad, pad, 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    if "tanh" in chain:
        assert_close(got, expected, rtol=1e-4, atol=2e-2)  # a flipped step moves tanh by < one step
    else:
        step = 0.017 if "fq2" in chain else 0.011
        steps = np.abs(np.rint(got / step) - np.rint(expected / step))
        assert steps.max() <= 1 and (steps == 0).mean() >= 0.99, (steps.max(), (steps == 0).mean())
        assert np.abs(got / step - np.rint(got / step)).max() < 1e-3  # on the quantization grid: rounded
    ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [Layout(DataType.f32, Format.bfyx, ref.shape)], [3])
           if kind == "eltwise" else FusedOp("activation", FusedActivationAttrs(**a)) for kind, a in fused]
    _, flags, res_at, rest = split_chain(ops, Layout(DataType.f32, Format.bfyx, ref.shape))
    assert flags & 8  # the first fake quantization always runs in registers
    if name == "1x1-long-k-residual-block":  # the whole QDQ residual block does
        assert res_at == 4 and flags & 16 and flags & 2 and not rest
    if "tanh" in chain:
        assert [op.act().func for op in rest] == ["tanh"]


@pytest.mark.parametrize("extra", [0.0, 1e9], ids=["grid-copied-out", "row-panels"])
@pytest.mark.parametrize("shape,oc,k,stride,dil,pad,groups", [
    ((2, 3, 23, 37), 20, (3, 3), (2, 2), (1, 1), (0, 0), 1),  # a first layer: stride phases, rows of 18 = 16 + 2
    ((1, 16, 9, 33), 24, (3, 3), (1, 1), (1, 1), (1, 1), 1),  # rows of 33: three panels, the last of 1 column
    ((1, 3, 20, 21), 16, (7, 7), (2, 2), (1, 1), (3, 3), 1),
    ((1, 12, 11, 17), 20, (3, 5), (1, 1), (2, 1), (2, 2), 2),  # dilation, 2 groups sharing a weight panel
    ((1, 8, 6, 7), 16, (3, 3), (1, 1), (1, 1), (1, 1), 1),  # rows narrower than a panel
], ids=["phases", "rows-33", "7x7s2", "dilated-groups", "narrow"])
@pytest.mark.parametrize("chain", ["relu", "hard_swish"], ids=["register-epilogue", "chain-pass"])
def test_packed_grid_rows_in_place_or_copied(rng, monkeypatch, extra, shape, oc, k, stride, dil, pad, groups,
                                             chain):
    """The padded grid's two ways out (ROW_PANELS_EXTRA): the GEMM writing the output rows itself (row panels,
    no panel spans two rows; the rest of the chain in :func:`output_chain`) or the grid scratch copied out. Both
    equal the reference on a padded output (the harness checks its padding stays NaN) and on a plain one, with
    relu in registers or hard_swish after them."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    monkeypatch.setattr(mod, "ROW_PANELS_EXTRA", extra)
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc))
    ref = conv_ref(x, w, b, stride, dil, pad, pad, groups)
    want = np.maximum(ref, 0) if chain == "relu" else ref * np.clip(ref + 3, 0, 6) / 6
    for opad in (Padding(), Padding((0, 2, 1, 3), (0, 1, 2, 1))):
        got, _ = run_direct(KERNEL, x, w, b, stride, dil, pad, pad, groups, xfmt=Format.bfyx, wfmt=OSV16,
                            ofmt=Format.bfyx, opad=opad, fused=[("activation", {"func": chain})])
        assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("extra", [0.0, 1e9], ids=["im2col", "row-panels"])
@pytest.mark.parametrize("shape,oc,stride", [((2, 16, 12, 37), 24, (1, 1)), ((1, 8, 17, 40), 16, (2, 2))],
                         ids=["3x3", "3x3s2-phases"])
@pytest.mark.parametrize("chain", ["swish-sum", "sum-relu"])
def test_packed_grid_row_panels_with_residual_chain(rng, monkeypatch, extra, shape, oc, stride, chain):
    """A residual in the chain (YOLO's bottleneck: conv, SiLU, + shortcut; ResNet's conv + sum + relu) on the
    padded grid's row panels (the tiles read the operand at the output's own pixels) equals the reference, as it
    does through the im2col patch matrix (row panels off: the grid then refuses an eltwise); the output is a
    channel slice of a larger buffer (feature padding, NaN-poisoned)."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    monkeypatch.setattr(mod, "ROW_PANELS_EXTRA", extra)
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], 3, 3)))
    b = f32(rng.standard_normal(oc))
    ref = conv_ref(x, w, b, stride, (1, 1), (1, 1), (1, 1), 1)
    res = f32(rng.standard_normal(ref.shape))
    if chain == "swish-sum":
        fused = [("activation", {"func": "swish", "a": 1.0}), ("eltwise", {"mode": "sum"})]
        want = ref / (1 + np.exp(-ref)) + res
    else:
        fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]
        want = np.maximum(ref + res, 0)
    got, _ = run_direct(KERNEL, x, w, b, stride, (1, 1), (1, 1), (1, 1), 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, opad=Padding((0, 2, 0, 0), (0, 3, 0, 0)), fused=fused, residual=res)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_packed_grid_row_panels_chosen_by_width():
    """Row panels where they cost at most ROW_PANELS_EXTRA times the grid's panels: wide rows yes, 7-wide no."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod
    from kernel_selector.kernels.convolution.cpu_conv_grid import grid_geometry

    def rows(oh, ow, k):
        return mod.row_panels(oh, ow, grid_geometry(oh, ow, k, k, 1, 1, 1)[2]) > 0

    assert rows(112, 112, 3) and rows(56, 56, 3) and rows(28, 28, 3)
    assert not rows(7, 7, 3)


@pytest.mark.parametrize("hw,k,stride", [((8, 8), (1, 1), (1, 1)), ((16, 12), (1, 1), (2, 2)),
                                         ((7, 7), (1, 1), (1, 1))],
                         ids=["direct-64px", "im2col-192px", "direct-49px-unaligned"])
def test_streaming_stores_and_prefetch(rng, monkeypatch, hw, k, stride):
    """Non-temporal C stores (STREAM_MIN_BYTES lowered to 0: every aligned call streams) and B prefetched a panel
    ahead give the reference's results, with bias and a residual sum and relu fused in registers, in place B
    (NOPACK_TILES) and packed B; rows of 64 and 192 pixels stream (64-byte aligned), rows of 49 do not; with a
    chain that reads C back nothing streams."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as mod

    monkeypatch.setattr(mod, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(mod, "use_channel_vectors", lambda *a: False)  # the pixel-vector GEMM's tiles
    monkeypatch.setattr(mod, "use_oc_rows", lambda *a: False)
    decisions = []
    rule = mod.stream_ok
    monkeypatch.setattr(mod, "stream_ok", lambda *a: decisions.append(rule(*a)) or decisions[-1])
    x = f32(rng.standard_normal((2, 24, hw[0] * stride[0], hw[1] * stride[1])))
    w = f32(rng.standard_normal((40, 24) + k))
    b = f32(rng.standard_normal(40))
    for nopack in (0, 1000):
        monkeypatch.setattr(mod, "NOPACK_TILES", nopack)
        decisions.clear()
        _check_residual_relu_and_relu(rng, x, w, b, stride, (0, 0))
        assert decisions and any(decisions) == (hw[0] * hw[1] % 16 == 0)


def test_stream_ok_rules():
    """Alignment of the buffer, the offset and both pitches; the size floor; a chain after the tiles."""
    from kernel_selector.kernels.convolution.convolution_kernel_cpu_packed import STREAM_MIN_BYTES, stream_ok

    big = STREAM_MIN_BYTES // 4 // 64 + 1  # rows of 64 floats: enough of them to pass the floor
    out = np.empty(64 * big + 64, np.float32)
    start = (-out.ctypes.data // 4) % 16  # first 64-byte aligned float
    aligned = out[start:]
    rows = np.array([0, 64 * big, 64, 0, 1], np.int64)
    assert stream_ok(aligned, rows, 0, big, 64, 1, False)
    assert not stream_ok(aligned, rows, 0, big, 64, 1, True)  # the chain reads C back
    assert not stream_ok(aligned, rows, 0, 2, 64, 1, False)  # small
    assert not stream_ok(out[start + 1:], rows, 0, big, 64, 1, False)  # buffer off a line
    for i, v in ((0, 8), (2, 72), (1, 64 * big + 8)):
        r = rows.copy()
        r[i] = v
        assert not stream_ok(aligned, r, 1 if i == 1 else 0, big, 64, 1, False)


@pytest.mark.parametrize("shape,oc,k,stride", [
    ((2, 24, 9, 11), 40, (1, 1), (1, 1)),   # 1x1 in place: the pixel-vector GEMM or channel-vector tiles
    ((2, 48, 1, 1), 20, (1, 1), (1, 1)),    # a 1x1 image: the GEMV
    ((1, 16, 10, 10), 32, (3, 3), (1, 1)),  # the padded grid, channel-vector row tiles
    ((1, 8, 20, 37), 24, (3, 3), (2, 2)),   # stride phases
    ((1, 12, 18, 40), 20, (3, 3), (1, 1)),  # the grid's row panels (20 channels fill 0.625 of the lanes)
], ids=["1x1", "gemv", "oc-rows", "phases", "row-panels"])
@pytest.mark.parametrize("chain", ["silu", "silu-sum", "relu-silu", "hswish", "hswish-sum"])
def test_packed_silu_in_registers(rng, shape, oc, k, stride, chain):
    """A SiLU (swish, a = 1) or a HardSwish after the convolution runs in the micro-kernels' register epilogue
    (flags & SILU / HSWISH, the GEMV's numba epilogue likewise), before a residual sum: the float64 references
    x / (1 + e^-x) and x * clip(x + 3, 0, 6) / 6 on every path."""
    from cldnn_py.layout import Layout
    from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
    from kernel_selector.common.cpu_microkernel import HSWISH, SILU
    from kernel_selector.kernels.convolution.convolution_kernel_cpu_packed import split_chain
    from kernel_selector.params import FusedOp

    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k) * 0.3)
    b = f32(rng.standard_normal(oc))
    pad = (k[0] // 2, k[1] // 2)
    ref = conv_ref(x, w, b, stride, (1, 1), pad, pad, 1)
    res = f32(rng.standard_normal(ref.shape))
    silu = ("activation", {"func": "swish", "a": 1.0})
    hswish = ("activation", {"func": "hard_swish"})
    fused = {"silu": [silu], "silu-sum": [silu, ("eltwise", {"mode": "sum"})],
             "relu-silu": [("activation", {"func": "relu"}), silu], "hswish": [hswish],
             "hswish-sum": [hswish, ("eltwise", {"mode": "sum"})]}[chain]
    base = np.maximum(ref, 0) if chain == "relu-silu" else ref
    act = base * np.clip(base + 3, 0, 6) / 6 if "hswish" in chain else base / (1 + np.exp(-base))
    want = act + (res if chain.endswith("-sum") else 0)
    ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [Layout(DataType.f32, Format.bfyx, ref.shape)], [3])
           if kind == "eltwise" else FusedOp("activation", FusedActivationAttrs(**a)) for kind, a in fused]
    _, flags, _, rest = split_chain(ops, Layout(DataType.f32, Format.bfyx, ref.shape))
    assert flags & (HSWISH if "hswish" in chain else SILU) and not any(op.kind == "activation" for op in rest)
    got, _ = run_direct(KERNEL, x, w, b, stride, (1, 1), pad, pad, 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, fused=fused, residual=res)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("plain", [True, False], ids=["plain-plane", "stride-phases"])
@pytest.mark.parametrize("case", [
    ((2, 10, 13, 11), 12, (3, 3), (2, 3), (2, 1), (2, 1), (1, 2)),  # strides 2 and 3, dilation, asymmetric pads
    ((1, 3, 15, 15), 16, (7, 7), (2, 2), (1, 1), (3, 3), (3, 3)),   # a stem's 7x7 stride 2
], ids=["3x3-s2x3-d2", "7x7-s2"])
def test_strided_row_tiles_plain_plane_or_phases(rng, monkeypatch, small_output_form, case, plain):
    """Strided k×k layers on channel-vector row tiles read one zero-bordered plane per channel at (SY, SX) steps
    (OC_ROWS_PLAIN_GRID, cpu_conv_grid.plain_grid_offsets) or the SY·SX stride phases: the same outputs."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_packed as packed

    monkeypatch.setattr(packed, "OC_ROWS_PLAIN_GRID", plain)
    shape, oc, k, stride, dil, pad, pad_end = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1]) + k))
    b = f32(rng.standard_normal(oc))
    got, _ = run_direct(KERNEL, x, w, b, stride, dil, pad, pad_end, 1, xfmt=Format.bfyx, wfmt=OSV16,
                        ofmt=Format.bfyx, xpad=Padding((0, 0, 1, 2), (0, 0, 0, 1)))
    assert_close(got, conv_ref(x, w, b, stride, dil, pad, pad_end, 1), rtol=1e-4, atol=1e-4)


def test_plain_grid_offsets():
    """Channel c, tap (ky, kx) at c·Hp·Wp + ky·dy·Wp + kx·dx, channels outer, kx inner."""
    from kernel_selector.kernels.convolution.cpu_conv_grid import plain_grid_offsets

    offs = plain_grid_offsets(2, 2, 3, 2, 1, 9, 10)
    want = [c * 90 + ky * 2 * 10 + kx for c in range(2) for ky in range(2) for kx in range(3)]
    assert offs.dtype == np.int64 and offs.tolist() == want
