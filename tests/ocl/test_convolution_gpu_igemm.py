"""convolution_gpu_igemm (implicit GEMM, batch folded into N) vs the float64 reference.

Forced through the gpu tier on the test device: shapes at every tile edge (OC not a multiple of MWG, batch·OH·OW not
a multiple of NWG, C/groups·KH·KW not a multiple of KWG), batches whose pixels share a tile, strides, dilation,
asymmetric pads, groups; every tuning tile on one tail-heavy shape; padded input (NaN in the halo, never read) and
padded output (its padding untouched); bias, a fused residual sum and relu; and the choice on a described GPU.
Shapes are small: the kernel also runs under Oclgrind (tests/oclgrind).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from kernel_selector.kernels.convolution.convolution_kernel_gpu_igemm import TILES, ConvolutionKernelGpuIgemm
from tests.helpers import assert_close, f32, run_single
from tests.ocl.test_convolution_gpu import _run_params
from tests.references import activation_ref, conv_ref

IGEMM = "convolution_gpu_igemm"

# (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups, bias
CASES = [
    ((1, 3, 9, 11), 8, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1, True),      # K = 27: one partial K step
    ((1, 19, 7, 7), 70, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), 1, True),     # 1x1, OC 64 + 6, N = 49
    ((3, 5, 13, 13), 33, (5, 5), (2, 2), (1, 1), (2, 1), (1, 2), 1, False),   # batch 3 shares tiles, stride 2
    ((2, 16, 11, 9), 8, (3, 3), (1, 1), (2, 2), (2, 2), (2, 2), 1, True),     # dilation 2
    ((1, 3, 13, 13), 8, (7, 7), (2, 2), (1, 1), (3, 3), (3, 3), 1, True),     # 7x7/2 stem
    ((2, 18, 8, 10), 24, (3, 3), (1, 1), (1, 1), (1, 0), (0, 1), 3, True),    # groups 3, C/g 6, OC/g 8
    ((1, 40, 5, 6), 130, (1, 1), (2, 2), (1, 1), (0, 0), (0, 0), 1, True),    # 1x1/2, OC past one 128 tile
]


def _options() -> cl.BuildOptions:
    return cl.BuildOptions(kernel_tier="gpu", force_implementations={"conv": IGEMM})


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[7]}")
def test_igemm_matches_reference(ocl_engine, rng, case):
    shape, oc, k, stride, dil, pad, pad_end, groups, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc)) if bias else None
    prim = cl.Convolution("conv", "x", weights="w", bias="b" if bias else None, stride=stride, dilation=dil,
                          pad=pad, pad_end=pad_end, groups=groups)
    out = run_single(ocl_engine, prim, {"x": x}, {"w": w} | ({"b": b} if bias else {}), options=_options())
    assert_close(out, conv_ref(x, w, b, stride, dil, pad, pad_end, groups), rtol=1e-4, atol=1e-4)


def _params(caps, shape, oc, k, xpad=None, opad=None, groups=1, stride=1):
    f = DataType.f32
    pad = k // 2
    oh, ow = ((shape[2] + 2 * pad - k) // stride + 1, (shape[3] + 2 * pad - k) // stride + 1)
    xl = Layout(f, Format.bfyx, shape, xpad) if xpad else Layout(f, Format.bfyx, shape)
    ol = Layout(f, Format.bfyx, (shape[0], oc, oh, ow), opad) if opad else Layout(f, Format.bfyx,
                                                                               (shape[0], oc, oh, ow))
    return Params("convolution", "ocl", [xl, Layout(f, Format.oiyx, (oc, shape[1] // groups, k, k)),
                                         Layout(f, Format.bfyx, (oc,))], ol,
                  ConvolutionAttrs(stride=(stride, stride), pad=(pad, pad), pad_end=(pad, pad), groups=groups),
                  caps=caps, kernel_tier="gpu")


def test_every_tile_at_its_edges(ocl_engine, rng):
    """Each tile of TILES that fits the device on a shape with tails in M, N and K, batch 2 (N spans images)."""
    kernel = ConvolutionKernelGpuIgemm()
    shape, oc = (2, 7, 6, 11), 37
    params = _params(ocl_engine.info.caps, shape, oc, 3)
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, 7, 3, 3)))
    b = f32(rng.standard_normal(oc))
    expect = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    variants = kernel.tune_variants(params)
    assert variants[0] == kernel.default_variant(params) and len(variants) >= 3
    for v in variants:
        out = _run_params(ocl_engine, kernel, params, v, [x, w, b])
        try:
            assert_close(out, expect, rtol=1e-4, atol=1e-4)
        except AssertionError as err:
            raise AssertionError(f"tile {v}: {err}") from None


def test_padded_input_and_output(ocl_engine, rng):
    """Reads through the pitches and INPUT0_OFFSET (NaN in the input's padding: bounds checks never read it),
    writes through OUTPUT_GET_INDEX (a sentinel in the output's padding survives); groups 2."""
    kernel = ConvolutionKernelGpuIgemm()
    x = f32(rng.standard_normal((2, 8, 7, 9)))
    w = f32(rng.standard_normal((12, 4, 3, 3)))
    b = f32(rng.standard_normal(12))
    params = _params(ocl_engine.info.caps, x.shape, 12, 3, Padding((0, 1, 2, 1), (0, 0, 1, 3)),
                     Padding((0, 0, 1, 2), (0, 2, 0, 1)), groups=2)
    assert kernel.validate(params) is None
    out = _run_params(ocl_engine, kernel, params, None, [x, w, b])
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 2), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("with_sum", [False, True], ids=["relu", "sum+relu"])
def test_fused_sum_and_relu(ocl_engine, rng, with_sum):
    """prepare_primitive_fusing folds the residual sum and the relu into the epilogue; K = 8·9 = 72 >= 64, so the
    gpu tier picks this kernel on any device (not forced: a forced node hosts no fused ops)."""
    x = f32(rng.standard_normal((2, 8, 9, 10)))
    w = f32(rng.standard_normal((20, 8, 3, 3)))
    b = f32(rng.standard_normal(20))
    y = f32(rng.standard_normal((2, 20, 9, 10)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1), pad_end=(1, 1)))
    expect = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    last, feeds = "conv", {"x": x}
    if with_sum:
        topo.add(cl.InputLayout("y", cl.Layout(cl.DataType.f32, cl.Format.bfyx, y.shape)))
        topo.add(cl.Eltwise("sum", inputs=("conv", "y"), mode="sum"))
        last, feeds, expect = "sum", feeds | {"y": y}, expect + y
    topo.add(cl.Activation("relu", last, func="relu"))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="gpu")))
    node = net.program.node("conv")
    assert node.impl.kernel_name == IGEMM and len(node.fused_ops) == 1 + with_sum
    net.poison()
    assert_close(net.run(feeds)["relu"], activation_ref(expect, "relu", None, None), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch, c, oc, hw, k, want", [
    (8, 256, 64, 56, 1, (16, 4)),     # ResNet-50 1x1 reduce at batch 8: 1 x 392 tiles of 64 x 64
    (1, 64, 64, 56, 3, (16, 4)),      # res2 3x3 at batch 1: 1 x 49 tiles of 64 x 64, 48 wanted
    (1, 128, 128, 28, 3, (8, 4)),     # res3 3x3 at batch 1: 2 x 13 of 64 x 64 too few, 4 x 25 of 32 x 32
    (1, 512, 512, 7, 3, (8, 2)),      # res5 3x3 at batch 1: N = 49, the smallest default tile
])
def test_default_tile_follows_occupancy(batch, c, oc, hw, k, want):
    """On a described GPU (32 compute units) the default is the largest of the first DEFAULT_TILES with 1.5
    work-groups per compute unit (48), else the smallest of them."""
    params = _params(GPU_LIKE, (batch, c, hw, hw), oc, k)
    assert selector.select(params)[0].name == IGEMM
    v = ConvolutionKernelGpuIgemm().default_variant(params)
    assert (v["tx"], v["wpt"]) == want


def test_tiles_are_checked_against_the_device():
    """A tile whose loads do not divide among its work-items, or that needs more local memory than half the
    device's, is refused with the reason; none of TILES is refused on a described GPU."""
    kernel = ConvolutionKernelGpuIgemm()
    params = _params(GPU_LIKE, (1, 16, 8, 8), 16, 3)
    assert all(kernel.variant_reason(params, v) is None for v in TILES)
    assert "multiples" in kernel.variant_reason(params, {"tx": 16, "ty": 16, "wpt": 1, "kwg": 4})
    with pytest.raises(ValueError, match="local memory"):
        kernel.kernel_data(params, {"tx": 16, "ty": 16, "wpt": 8, "kwg": 64})
    tiny = replace(GPU_LIKE, local_mem_bytes=1024)
    assert "no tile fits" in kernel.validate(_params(tiny, (1, 16, 8, 8), 16, 3))
