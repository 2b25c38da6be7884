"""GPU-tier convolutions (convolution_gpu_direct, convolution_gpu_depthwise) vs the float64 reference.

Forced through the gpu tier (``BuildOptions(kernel_tier="gpu")``) on the test device with shapes at tile edges
(outputs not multiples of the 8x8 / 16x8 work-group, output channels not multiples of the OC block, input channels
not multiples of the slice), stride 2, dilation 2, asymmetric pads, groups 2, depthwise; fused relu and a fused
residual sum; every tuning variant's edges on one shape; and the selection on a described GPU (no device needed).
Shapes are small: these kernels also run under Oclgrind.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from kernel_selector.kernels.convolution.convolution_kernel_gpu_depthwise import ConvolutionKernelGpuDepthwise
from kernel_selector.kernels.convolution.convolution_kernel_gpu_direct import ConvolutionKernelGpuDirect
from kernel_selector.kernels.convolution.convolution_kernel_gpu_igemm import ConvolutionKernelGpuIgemm
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import SENTINEL, padding_mask
from tests.references import activation_ref, conv_ref

DIRECT = "convolution_gpu_direct"
DEPTHWISE = "convolution_gpu_depthwise"
IGEMM = "convolution_gpu_igemm"

# (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups, bias
DIRECT_CASES = [
    ((1, 3, 9, 11), 8, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1, True),      # C=3 (one slice of 3)
    ((1, 19, 7, 7), 17, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), 1, True),     # 1x1, C 16+3, OC tail
    ((2, 5, 13, 13), 33, (5, 5), (2, 2), (1, 1), (2, 1), (1, 2), 1, False),   # stride 2, asymmetric pads, batch 2
    ((1, 16, 11, 9), 8, (3, 3), (1, 1), (2, 2), (2, 2), (2, 2), 1, True),     # dilation 2
    ((1, 3, 13, 13), 8, (7, 7), (2, 2), (1, 1), (3, 3), (3, 3), 1, True),     # 7x7/2 stem
    ((1, 16, 8, 10), 18, (3, 3), (1, 1), (1, 1), (1, 0), (0, 1), 2, True),    # groups 2, OCg 9
    ((1, 24, 12, 18), 8, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1, False),  # OW 18: 16x8 tile, x tail
]

# (N, C, H, W), (KH, KW), stride, dilation, pad, pad_end, bias
DEPTHWISE_CASES = [
    ((1, 24, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), True),
    ((1, 24, 13, 13), (3, 3), (2, 2), (1, 1), (0, 1), (1, 0), False),
    ((2, 24, 10, 7), (5, 5), (1, 1), (2, 2), (4, 3), (3, 4), True),
    ((1, 24, 17, 18), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), True),        # 16x8 work-group, tails in x and y
]


def gpu_options(kernel: str) -> cl.BuildOptions:
    return cl.BuildOptions(kernel_tier="gpu", force_implementations={"conv": kernel})


def _run(engine, rng, shape, oc, k, stride, dil, pad, pad_end, groups, bias, kernel):
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc)) if bias else None
    prim = cl.Convolution("conv", "x", weights="w", bias="b" if bias else None, stride=stride, dilation=dil,
                          pad=pad, pad_end=pad_end, groups=groups)
    data = {"w": w} | ({"b": b} if bias else {})
    out = run_single(engine, prim, {"x": x}, data, options=gpu_options(kernel))
    assert_close(out, conv_ref(x, w, b, stride, dil, pad, pad_end, groups), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", DIRECT_CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[7]}")
def test_direct_matches_reference(ocl_engine, rng, case):
    _run(ocl_engine, rng, *case, DIRECT)


@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=lambda c: f"{c[0]}-k{c[1]}-s{c[2]}-d{c[3]}")
def test_depthwise_matches_reference(ocl_engine, rng, case):
    shape, k, stride, dil, pad, pad_end, bias = case
    _run(ocl_engine, rng, shape, shape[1], k, stride, dil, pad, pad_end, shape[1], bias, DEPTHWISE)


@pytest.mark.parametrize("kernel, c, oc, groups", [(DIRECT, 5, 17, 1), (DEPTHWISE, 24, 24, 24)])
@pytest.mark.parametrize("with_sum", [False, True], ids=["relu", "sum+relu"])
def test_fused_sum_and_relu(ocl_engine, rng, monkeypatch, kernel, c, oc, groups, with_sum):
    """prepare_primitive_fusing folds the residual sum and the relu into the convolution's epilogue (the kernel is
    not forced: a forced node hosts no fused ops; the gpu tier selects it on its own, convolution_gpu_igemm set
    aside for the direct kernel's case: it is ahead of the direct kernel on every shape)."""
    monkeypatch.setattr(ConvolutionKernelGpuIgemm, "validate", lambda self, params: "set aside by the test")
    x = f32(rng.standard_normal((1, c, 9, 10)))
    w = f32(rng.standard_normal((oc, c // groups, 3, 3)))
    b = f32(rng.standard_normal(oc))
    y = f32(rng.standard_normal((1, oc, 9, 10)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.Convolution("conv", "x", weights="w", bias="b", pad=(1, 1), pad_end=(1, 1), groups=groups))
    expect = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), groups)
    last, feeds = "conv", {"x": x}
    if with_sum:
        topo.add(cl.InputLayout("y", cl.Layout(cl.DataType.f32, cl.Format.bfyx, y.shape)))
        topo.add(cl.Eltwise("sum", inputs=("conv", "y"), mode="sum"))
        last, feeds, expect = "sum", feeds | {"y": y}, expect + y
    topo.add(cl.Activation("relu", last, func="relu"))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="gpu")))
    node = net.program.node("conv")
    assert node.impl.kernel_name == kernel and len(node.fused_ops) == 1 + with_sum
    net.poison()
    assert_close(net.run(feeds)["relu"], activation_ref(expect, "relu", None, None), rtol=1e-4, atol=1e-4)


def test_direct_tuning_variant_edges(ocl_engine, rng):
    """Each OC block and slice width at the smallest and largest work-group tile on one tail-heavy shape."""
    kernel = ConvolutionKernelGpuDirect()
    shape, oc = (1, 19, 9, 17), 9
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, 19, 3, 3)))
    b = f32(rng.standard_normal(oc))
    expect = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    f = DataType.f32
    params = Params("convolution", "ocl", [Layout(f, Format.bfyx, shape), Layout(f, Format.oiyx, w.shape),
                                           Layout(f, Format.bfyx, (oc,))],
                    Layout(f, Format.bfyx, (1, oc, 9, 17)), ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1)),
                    caps=ocl_engine.info.caps, kernel_tier="gpu")
    variants = kernel.tune_variants(params)
    assert variants[0] == kernel.default_variant(params)
    picks = [v for v in variants if (v["tx"], v["ty"]) in ((8, 8), (32, 8)) and v["ics"] in (16, 1)]
    for v in picks[:6]:
        out = _run_params(ocl_engine, kernel, params, v, [x, w, b])
        try:
            assert_close(out, expect, rtol=1e-4, atol=1e-4)
        except AssertionError as err:
            raise AssertionError(f"variant {v}: {err}") from None


def _run_params(engine, kernel, params, variant, arrays):
    """Run one kernel's variant; input padding holds NaN (read by mistake, it shows), the output's interior is
    poisoned with NaN and its padding holds a sentinel that must survive."""
    kd = kernel.kernel_data(params, variant)
    mems = []
    for lay, arr in zip(params.inputs, arrays):
        mem = engine.allocate(lay)
        phys = lay.to_physical(arr)
        phys[padding_mask(lay)] = np.nan
        engine.write_buffer(mem.buffer, phys)
        mems.append(mem)
    out = engine.allocate(params.output)
    phys = np.full(params.output.buffer_size, np.nan, dtype=np.float32)
    mask = padding_mask(params.output)
    phys[mask] = SENTINEL
    engine.write_buffer(out.buffer, phys)
    for k in kd.kernels:
        bound = engine.bind(k, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(bound, k.gws, k.lws).wait()
    raw = np.empty(params.output.buffer_size, dtype=np.float32)
    engine.read_buffer(out.buffer, raw)
    assert (raw[mask] == SENTINEL).all(), "the kernel wrote into the output's padding"
    return params.output.from_physical(raw)


@pytest.mark.parametrize("kernel, groups", [(ConvolutionKernelGpuDirect(), 1), (ConvolutionKernelGpuDepthwise(), 8)])
def test_padded_input_and_output(ocl_engine, rng, kernel, groups):
    """Both read and write through the GET_INDEX macros: padded buffers (NaN in the input's padding, which the
    bounds checks never read; the output's padding left alone)."""
    f = DataType.f32
    x = f32(rng.standard_normal((1, 8, 7, 9)))
    w = f32(rng.standard_normal((8, 8 // groups, 3, 3)))
    b = f32(rng.standard_normal(8))
    xl = Layout(f, Format.bfyx, x.shape, Padding((0, 1, 2, 1), (0, 0, 1, 3)))
    ol = Layout(f, Format.bfyx, (1, 8, 7, 9), Padding((0, 0, 1, 2), (0, 2, 0, 1)))
    params = Params("convolution", "ocl", [xl, Layout(f, Format.oiyx, w.shape), Layout(f, Format.bfyx, (8,))], ol,
                    ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1), groups=groups),
                    caps=ocl_engine.info.caps, kernel_tier="gpu")
    assert kernel.validate(params) is None
    out = _run_params(ocl_engine, kernel, params, None, [x, w, b])
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), groups), rtol=1e-4, atol=1e-4)


def _zoo_params(c, oc, hw, k, stride, groups=1):
    f = DataType.f32
    pad = k // 2
    o = (hw + 2 * pad - k) // stride + 1
    return Params("convolution", "ocl", [Layout(f, Format.bfyx, (1, c, hw, hw)),
                                         Layout(f, Format.oiyx, (oc, c // groups, k, k)),
                                         Layout(f, Format.bfyx, (oc,))],
                  Layout(f, Format.bfyx, (1, oc, o, o)),
                  ConvolutionAttrs(stride=(stride, stride), pad=(pad, pad), pad_end=(pad, pad), groups=groups),
                  caps=GPU_LIKE, kernel_tier="gpu")


@pytest.mark.parametrize("c, oc, hw, k, stride, groups, want", [
    (64, 64, 56, 3, 1, 1, IGEMM),           # ResNet-50 res2 3x3
    (256, 64, 56, 1, 1, 1, IGEMM),          # ResNet-50 1x1 reduce
    (512, 512, 14, 3, 2, 1, IGEMM),         # ResNet-50 3x3/2
    (3, 64, 224, 7, 2, 1, IGEMM),           # ResNet-50 stem 7x7/2
    (32, 32, 112, 3, 1, 32, DEPTHWISE),     # MobileNet depthwise 3x3
    (512, 512, 14, 3, 2, 512, DEPTHWISE),   # MobileNet depthwise 3x3/2
])
def test_described_gpu_selects_the_gpu_kernels(c, oc, hw, k, stride, groups, want):
    params = _zoo_params(c, oc, hw, k, stride, groups)
    assert selector.select(params)[0].name == want
    verdicts = {v.kernel: v for v in selector.explain(params)}
    if want == DEPTHWISE:  # the dense kernels refuse depthwise; the depthwise kernel refuses dense convolutions
        assert verdicts[DIRECT].reason is not None and verdicts[IGEMM].reason is not None
    else:
        assert verdicts[DEPTHWISE].reason is not None and verdicts[DIRECT].reason is None


def test_cpu_tier_leaves_them_out():
    params = _zoo_params(64, 64, 56, 3, 1)
    params.kernel_tier = "cpu"
    verdicts = {v.kernel: v for v in selector.explain(params)}
    assert verdicts[DIRECT].reason is not None and "gpu tier" in verdicts[DIRECT].reason


def test_direct_local_memory_fits_half_of_the_device():
    kernel = ConvolutionKernelGpuDirect()
    from kernel_selector.kernels.convolution.convolution_kernel_gpu_direct import local_bytes
    params = _zoo_params(3, 64, 224, 7, 2)
    for v in kernel.tune_variants(params):
        assert local_bytes(params, v["tx"], v["ty"], v["ocb"], v["ics"]) <= GPU_LIKE.local_mem_bytes // 2
        assert v["tx"] * v["ty"] <= GPU_LIKE.max_work_group_size
    assert ConvolutionKernelGpuDepthwise().tune_variants(_zoo_params(32, 32, 112, 3, 1, 32))[0]["xb"] == 1
