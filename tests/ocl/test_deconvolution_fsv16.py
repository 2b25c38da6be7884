"""deconvolution_b_fs_yx_fsv16 vs the float64 scatter reference: UNet/DBNet heads (2x2 stride 2, one output
channel), FCN-style 4x4 stride 2 pad 1, odd strides, dilation, output padding, channel counts with block tails; the
node is checked to run this kernel, its output poisoned first."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.deconvolution import Deconvolution
from tests.helpers import assert_close, f32
from tests.references import deconv_ref

KERNEL = "deconvolution_b_fs_yx_fsv16"

CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, output_padding, bias
    ((1, 16, 5, 6), 16, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), True),
    ((1, 16, 4, 9), 1, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), True),
    ((2, 37, 3, 4), 20, (4, 4), (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), False),
    ((1, 5, 3, 5), 7, (3, 2), (3, 2), (1, 1), (1, 0), (2, 1), (2, 1), True),
    ((1, 4, 4, 3), 3, (2, 3), (2, 1), (2, 3), (0, 2), (1, 0), (0, 0), True),
    ((1, 3, 2, 2), 18, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (0, 0), True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}")
def test_deconv_fsv16_matches_reference(ocl_engine, rng, case):
    shape, oc, k, stride, dil, pad, pad_end, out_pad, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((shape[1], oc) + k))
    b = f32(rng.standard_normal(oc)) if bias else None
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reorder("xb", "x", format=cl.Format.b_fs_yx_fsv16), cl.Data("w", w))
    if bias:
        topo.add(cl.Data("b", b))
    topo.add(Deconvolution("d", "xb", weights="w", bias="b" if bias else None, stride=stride, dilation=dil, pad=pad,
                           pad_end=pad_end, output_padding=out_pad),
             cl.Reorder("out", "d", format=cl.Format.bfyx))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    net.poison()
    out = net.run({"x": x})["out"]
    assert net.program.node("d").impl.kernel_name == KERNEL
    assert_close(out, deconv_ref(x, w, b, stride, dil, pad, pad_end, out_pad, 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", [CASES[1], CASES[3], CASES[4]], ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}")
def test_deconv_fsv16_writes_a_plain_output(ocl_engine, rng, case):
    """OUTPUT_PLAIN: blocked input, bfyx output (a narrow head), only the real channels written; the output's
    padding (poisoned) stays untouched; against the float64 reference."""
    import dataclasses

    from cldnn_py.layout import DataType, Format, Layout, Padding
    from cldnn_py.ops import DeconvolutionAttrs
    from tests.ocl.padded import run_kernel_padded

    shape, oc, k, stride, dil, pad, pad_end, out_pad, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((shape[1], oc) + k))
    b = f32(rng.standard_normal(oc))
    ref = deconv_ref(x, w, b, stride, dil, pad, pad_end, out_pad, 1)
    attrs = DeconvolutionAttrs(stride=stride, dilation=dil, pad=pad, pad_end=pad_end, output_padding=out_pad)
    lays = [Layout(DataType.f32, Format.b_fs_yx_fsv16, shape), Layout(DataType.f32, Format.bfyx, w.shape),
            Layout(DataType.f32, Format.bfyx, (oc,))]
    lout = Layout(DataType.f32, Format.bfyx, ref.shape, Padding((1, 0, 1, 0), (0, 0, 0, 2)))
    out = run_kernel_padded(ocl_engine, "deconvolution", lays, lout, dataclasses.asdict(attrs), [x, w, b],
                            kernel=KERNEL)
    assert_close(out, ref, rtol=1e-4, atol=1e-4)
