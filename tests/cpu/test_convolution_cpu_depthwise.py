"""convolution_cpu_depthwise (flat grids and register-accumulator rows for strides 1 and 2 along x, stride phases,
channels-last rows, and clipped row taps for strides above 4) vs an independent float64 convolution, on NaN-poisoned
buffers (conv_harness.py): strides, dilation, asymmetric pads, padded input and
output, fused chains; and the layout optimizer keeping a depthwise layer in bfyx on the CPU engine."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Padding
from tests.cpu.conv_harness import run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

KERNEL = "convolution_cpu_depthwise"

CASES = [  # (N, C, H, W), (KH, KW), stride, dilation, pad, pad_end
    ((1, 5, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((2, 7, 12, 10), (3, 3), (2, 2), (1, 1), (1, 1), (0, 0)),
    ((1, 4, 13, 17), (5, 5), (1, 2), (1, 1), (2, 2), (2, 1)),
    ((1, 3, 10, 9), (3, 3), (1, 1), (2, 2), (2, 2), (2, 2)),
    ((1, 6, 7, 7), (3, 3), (1, 1), (1, 1), (0, 0), (0, 0)),
    ((1, 3, 11, 9), (3, 3), (2, 3), (2, 1), (1, 0), (2, 1)),  # stride phases with dilation
    ((1, 2, 17, 16), (3, 3), (5, 6), (1, 1), (1, 1), (1, 1)),  # strides above 4: the clipped row taps
    # 16 or more channels on small planes, channel counts off 16
    ((2, 21, 7, 7), (5, 5), (1, 1), (1, 1), (2, 2), (2, 2)),
    ((1, 37, 14, 13), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),
    ((1, 16, 9, 8), (3, 3), (2, 3), (2, 1), (1, 0), (2, 1)),
    # rows of several register segments (32 columns on AVX2) and a shorter last one, strides 1 and 2
    ((1, 3, 6, 75), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1)),
    ((1, 2, 7, 83), (3, 3), (2, 2), (1, 1), (1, 1), (0, 1)),
]


@pytest.fixture(params=["grid", "vector-rows", "planes", "channels-last"])
def form(request, monkeypatch):
    """Force one of the kernel's four forms for every shape: whole planes as one flat grid (cpu_depthwise_grid) or
    the register-accumulator rows (cpu_depthwise_vec), both for strides 1 and 2 along x (the others fall to the
    planes), the stride-phase planes, or channels-last rows (cpu_depthwise_cl.use_channels_last)."""
    from kernel_selector.kernels.convolution import convolution_kernel_cpu_depthwise as dw
    from kernel_selector.kernels.convolution import cpu_depthwise_cl as mod

    monkeypatch.setattr(dw, "USE_VECTOR_ROWS", request.param in ("grid", "vector-rows"))
    monkeypatch.setattr(dw, "GRID_FORM", "on" if request.param == "grid" else "off")
    if request.param == "channels-last":
        monkeypatch.setattr(mod, "CL_MIN_CHANNELS", 0)
        monkeypatch.setattr(mod, "CL_MAX_PIXELS", 1 << 30)
    else:
        monkeypatch.setattr(mod, "CL_MIN_CHANNELS", 1 << 30)
    return request.param


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-k{c[1]}-s{c[2]}-d{c[3]}")
@pytest.mark.parametrize("padded", [False, True])
def test_depthwise_matches_reference(rng, form, case, padded):
    shape, k, stride, dil, pad, pad_end = case
    c = shape[1]
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((c, 1) + k))
    b = f32(rng.standard_normal(c))
    xpad = Padding((0, 0, 1, 2), (0, 0, 0, 1)) if padded else Padding()
    opad = Padding((0, 0, 2, 1), (0, 0, 1, 1)) if padded else Padding()
    got, chosen = run_direct(KERNEL, x, w, b, stride, dil, pad, pad_end, c, xfmt=Format.bfyx, wfmt=Format.oiyx,
                             ofmt=Format.bfyx, xpad=xpad, opad=opad)
    assert chosen == KERNEL
    assert_close(got, conv_ref(x, w, b, stride, dil, pad, pad_end, c), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("c", [6, 20])
@pytest.mark.parametrize("opad", [Padding(), Padding((0, 0, 1, 0), (0, 0, 0, 2))], ids=["dense", "padded-out"])
def test_depthwise_fused_residual_and_activation(rng, form, c, opad):
    x = f32(rng.standard_normal((2, c, 8, 9)))
    w = f32(rng.standard_normal((c, 1, 3, 3)))
    res = f32(rng.standard_normal((2, c, 8, 9)))
    fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "hard_swish"})]
    got, _ = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), c, xfmt=Format.bfyx, wfmt=Format.oiyx,
                        ofmt=Format.bfyx, fused=fused, residual=res, opad=opad)
    v = conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), c) + res
    assert_close(got, v * np.clip(v + 3, 0, 6) / 6, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_depthwise_fused_activations_both_forms(rng, form, bias):
    """hard_swish then clamp after the taps (on the channels-last rows before they are transposed out, or on the
    planes), with and without bias, batch 2, a padded output."""
    c = 40
    x = f32(rng.standard_normal((2, c, 9, 8)))
    w = f32(rng.standard_normal((c, 1, 5, 5)))
    b = f32(rng.standard_normal(c)) if bias else None
    fused = [("activation", {"func": "hard_swish"}), ("activation", {"func": "clamp", "a": -0.2, "b": 4.0})]
    got, _ = run_direct(KERNEL, x, w, b, (2, 1), (1, 1), (2, 2), (1, 2), c, xfmt=Format.bfyx, wfmt=Format.oiyx,
                        ofmt=Format.bfyx, fused=fused, opad=Padding((0, 1, 1, 0), (0, 2, 0, 1)))
    v = conv_ref(x, w, b, (2, 1), (1, 1), (2, 2), (1, 2), c)
    assert_close(got, np.clip(v * np.clip(v + 3, 0, 6) / 6, -0.2, 4.0), rtol=1e-5, atol=1e-5)


def test_depthwise_channels_last_chosen_for_small_planes():
    """use_channels_last: many channels on 7×7 / 8×8 outputs only."""
    from kernel_selector.kernels.convolution.cpu_depthwise_cl import use_channels_last

    assert use_channels_last(576, 7, 7) and use_channels_last(288, 8, 8)
    assert not use_channels_last(240, 14, 14) and not use_channels_last(16, 7, 7)


def test_depthwise_block_stays_bfyx_in_network(cpu_engine, rng):
    """1x1 -> depthwise 3x3 -> 1x1 (a MobileNetV2 block) on the CPU engine: no blocked layout, no reorder, the
    depthwise kernel and the packed GEMM."""
    x = f32(rng.standard_normal((1, 8, 10, 10)))
    w1 = f32(rng.standard_normal((24, 8, 1, 1)))
    wd = f32(rng.standard_normal((24, 1, 3, 3)))
    w2 = f32(rng.standard_normal((8, 24, 1, 1)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    for name, arr in (("w1", w1), ("wd", wd), ("w2", w2)):
        topo.add(cl.Data(name, arr))
    topo.add(cl.Convolution("c1", "x", weights="w1"))
    topo.add(cl.Activation("r1", "c1", "relu"))
    topo.add(cl.Convolution("dw", "r1", weights="wd", pad=(1, 1), groups=24))
    topo.add(cl.Convolution("c2", "dw", weights="w2"))
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions()))
    net.poison()
    got = net.run({"x": x})["c2"]
    h = np.maximum(conv_ref(x, w1, None, (1, 1), (1, 1), (0, 0), (0, 0), 1), 0)
    h = conv_ref(h, wd, None, (1, 1), (1, 1), (1, 1), (1, 1), 24)
    assert_close(got, conv_ref(h, w2, None, (1, 1), (1, 1), (0, 0), (0, 0), 1), rtol=1e-4, atol=1e-4)
    nodes = net.program.nodes
    assert nodes["dw"].impl.kernel_name == KERNEL
    assert nodes["c1"].impl.kernel_name == nodes["c2"].impl.kernel_name == "convolution_cpu_packed"
    assert all(n.layout().format != Format.b_fs_yx_fsv16 for n in nodes.values())


@pytest.mark.parametrize("stride", [1, 2])
def test_row_micro_kernel_keeps_sums_in_vector_registers(stride):
    """The depthwise row micro-kernel's tap loop issues DW_VECTORS vector FMAs per tap (a multiple, if LLVM unrolls
    it) on the host's widest registers and moves none of them to or from the stack (cpu_microkernel_dw)."""
    from kernel_selector.common import cpu_microkernel_dw as dwk
    from tests.cpu.conv_harness import assert_loop_fmas_in_registers

    row = dwk.dw_row_s1_4 if stride == 1 else dwk.dw_row_s2_4

    def segment(x, w, c, bias, res, clamp, k, n):  # pragma: no cover - numba
        toff = np.arange(k) * n
        row(x, 0, toff, k, w, 0, c, 0, n, bias[0])

    assert_loop_fmas_in_registers(segment, dwk.DW_VECTORS)
