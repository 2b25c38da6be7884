"""Direct runs of the CPU convolution kernels on physical buffers, the shape cases, and the micro-kernels' machine
code check, shared by the CPU convolution kernels' tests."""

from __future__ import annotations

import numpy as np

from cldnn_py.cpu_engine import aligned_bytes
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates, selector

FSV16 = Format.b_fs_yx_fsv16
NO_PAD = Padding()


def run_direct(kernel, x, w, b, stride, dil, pad, pad_end, groups, *, xfmt, wfmt, ofmt, xpad=NO_PAD,
               opad=NO_PAD, fused=(), residual=None, rfmt=Format.bfyx):
    """Check ``kernel`` validates for these layouts, run its fn on NaN-poisoned physical buffers; returns (the
    logical output in float64, the name of the kernel the selector picks)."""
    oc = w.shape[0]
    oh = (x.shape[2] + pad[0] + pad_end[0] - dil[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
    ow = (x.shape[3] + pad[1] + pad_end[1] - dil[1] * (w.shape[3] - 1) - 1) // stride[1] + 1
    lays = [Layout(DataType.f32, xfmt, x.shape, xpad), Layout(DataType.f32, wfmt, w.shape)]
    arrays = [x, w]
    if b is not None:
        lays.append(Layout(DataType.f32, Format.bfyx, b.shape))
        arrays.append(b)
    out = Layout(DataType.f32, ofmt, (x.shape[0], oc, oh, ow), opad)
    ops = []
    extra = []
    for kind, attrs in fused:
        if kind == "eltwise":
            rl = Layout(DataType.f32, rfmt, residual.shape)
            ops.append(FusedOp("eltwise", FusedEltwiseAttrs(**attrs), [rl], [len(lays) + len(extra)]))
            extra.append((rl, residual))
        else:
            ops.append(FusedOp("activation", FusedActivationAttrs(**attrs)))
    attrs = ConvolutionAttrs(stride=stride, dilation=dil, pad=pad, pad_end=pad_end, groups=groups)
    params = Params("convolution", "cpu", lays, out, attrs, ops)
    verdicts = {v.kernel: v for v in selector.explain(params)}
    assert verdicts[kernel].reason is None, str(verdicts[kernel])
    kd = next(k for k in candidates("convolution") if k.name == kernel).kernel_data(params)
    bufs = []
    for lay, arr in zip(lays, arrays):
        buf = aligned_bytes(lay.bytes)
        phys = lay.to_physical(arr)
        if lay.format == FSV16 and not lay.padding.is_zero:  # padding is a zero halo; block tails are garbage
            phys = np.where(lay.to_physical(np.ones(arr.shape, np.float32)) == 0, 0.0, phys).astype(np.float32)
        buf[:] = phys.view(np.uint8)
        bufs.append(buf)
    obuf = aligned_bytes(out.bytes)
    obuf.view(np.float32)[:] = np.nan
    for rl, arr in extra:
        rb = aligned_bytes(rl.bytes)
        rb[:] = rl.to_physical(arr).view(np.uint8)
        bufs.append(rb)
    kd.kernels[0].fn(*bufs[:len(lays)], obuf, *bufs[len(lays):])
    flat = obuf.view(np.float32)
    if not out.padding.is_zero:  # the padding must be left alone
        mask = out.to_physical(np.ones(out.shape, np.float32)) == 0
        assert np.isnan(flat[mask]).all(), "the kernel wrote into the output's padding"
    return out.from_physical(flat).astype(np.float64), selector.select(params)[0].name


CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups
    ((1, 3, 9, 11), 5, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),
    ((2, 20, 10, 9), 18, (3, 2), (2, 1), (1, 1), (0, 1), (2, 0), 1),
    ((1, 17, 13, 12), 33, (3, 3), (1, 1), (2, 2), (2, 2), (2, 2), 1),
    ((1, 24, 7, 7), 24, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 24),  # depthwise, channel tail
    ((1, 8, 12, 10), 32, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 2),  # 16 output channels per group
    ((1, 3, 15, 15), 16, (7, 7), (2, 2), (1, 1), (3, 3), (3, 3), 1),
    ((1, 32, 5, 19), 16, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), 1),
]


def assert_loop_fmas_in_registers(py_fn, per_step):
    """Compile ``py_fn(x, w, c, bias, res, clamp, k, n)`` (float32 1-D arrays, int64 k and n) without numba's cache
    and check its machine code: the loop with the most vector FMAs issues a multiple of ``per_step`` of them on the
    host's widest registers, and moves none of those registers to or from the stack (no spills)."""
    import re

    import numba

    from kernel_selector.common import cpu_microkernel as mk

    fn = numba.njit(cache=False, fastmath=True)(py_fn)
    f32a = numba.float32[::1]
    sig = (f32a, f32a, f32a, f32a, f32a, f32a, numba.int64, numba.int64)
    fn.compile(sig)
    asm = fn.inspect_asm(sig)
    reg = {16: "zmm", 8: "ymm"}.get(mk.W, "xmm")
    blocks = re.split(r"\n\.LBB\S+:", asm)
    body = max(blocks, key=lambda t: len(re.findall(r"vfmadd\w*ps", t)))  # the k loop
    fmas = re.findall(rf"vfmadd\w*ps\s+[^\n]*%{reg}", body)
    assert fmas and len(fmas) % per_step == 0, body[:2000]
    spills = [ln for ln in body.splitlines() if "rsp" in ln and reg in ln]
    assert not spills, spills
