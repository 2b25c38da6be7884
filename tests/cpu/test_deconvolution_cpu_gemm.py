"""deconvolution_cpu_gemm (packed-panel GEMM + col2im gather) vs an independent float64 transposed convolution
(tests/references.py deconv_ref), on NaN-poisoned physical buffers; and the selector's choice in a network."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.cpu_engine import aligned_bytes
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import DeconvolutionAttrs
from kernel_selector.params import Params
from kernel_selector.selector import candidates, selector
from tests.helpers import assert_close, f32
from tests.references import deconv_ref

KERNEL = "deconvolution_cpu_gemm"

CASES = [  # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, output_padding, groups
    ((1, 8, 5, 6), 1, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1),  # DBNet's k = s upsampling to 1 channel
    ((2, 6, 4, 5), 5, (4, 4), (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), 1),  # UNet's k4 s2 p1
    ((1, 4, 5, 4), 6, (3, 3), (2, 1), (2, 1), (1, 0), (0, 2), (1, 0), 2),  # groups, dilation, output padding
    ((1, 20, 3, 3), 17, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (0, 0), 1),  # OC·KH·KW not a multiple of 16
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-g{c[8]}")
@pytest.mark.parametrize("opad", [False, True])
def test_deconv_gemm_matches_reference(rng, case, opad):
    shape, oc, k, stride, dil, pad, pad_end, out_pad, groups = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((shape[1], oc // groups) + k))
    b = f32(rng.standard_normal(oc))
    ref = deconv_ref(x, w, b, stride, dil, pad, pad_end, out_pad, groups)
    attrs = DeconvolutionAttrs(stride=stride, dilation=dil, pad=pad, pad_end=pad_end, output_padding=out_pad,
                               groups=groups)
    lays = [Layout(DataType.f32, Format.bfyx, x.shape), Layout(DataType.f32, Format.oiyx, w.shape),
            Layout(DataType.f32, Format.bfyx, b.shape)]
    out = Layout(DataType.f32, Format.bfyx, ref.shape, Padding((0, 0, 1, 2), (0, 0, 2, 1)) if opad else Padding())
    p = Params("deconvolution", "cpu", lays, out, attrs, [])
    kern = next(c for c in candidates("deconvolution") if c.name == KERNEL)
    assert kern.validate(p) is None, kern.validate(p)
    bufs = []
    for lay, arr in zip(lays, (x, w, b)):
        buf = aligned_bytes(lay.bytes)
        buf[:] = lay.to_physical(arr).view(np.uint8)
        bufs.append(buf)
    ob = aligned_bytes(out.bytes)
    ob.view(np.float32)[:] = np.nan
    kern.kernel_data(p).kernels[0].fn(*bufs, ob)
    flat = ob.view(np.float32)
    if opad:
        mask = out.to_physical(np.ones(out.shape, np.float32)) == 0
        assert np.isnan(flat[mask]).all(), "wrote into the padding"
    assert_close(out.from_physical(flat).astype(np.float64), ref, rtol=1e-4, atol=1e-4)
    assert selector.select(p)[0].name == KERNEL


def test_deconv_gemm_in_network(cpu_engine, rng):
    x = f32(rng.standard_normal((1, 8, 6, 6)))
    w = f32(rng.standard_normal((8, 4, 2, 2)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    topo.add(cl.Data("w", w))
    topo.add(cl.Deconvolution("up", "x", weights="w", stride=(2, 2)))
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions()))
    net.poison()
    got = net.run({"x": x})["up"]
    assert_close(got, deconv_ref(x, w, None, (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1), rtol=1e-4, atol=1e-4)
    assert net.program.nodes["up"].impl.kernel_name == KERNEL
