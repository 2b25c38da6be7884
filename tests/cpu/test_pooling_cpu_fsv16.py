"""pooling_cpu_fsv16 (numba row pooling on b_fs_yx_fsv16 / plain data) and pooling_cpu_planes (separable passes
over bordered bfyx planes) vs an independent float64 numpy pooling.

Run directly on NaN-poisoned physical buffers (padded inputs and outputs, channel tails that must stay untouched),
every mode with pads, asymmetric pads, strides, dilation, ceil mode, global pooling, batch 2, fused activation and
a fused residual; the selector's unforced choice is asserted; one network run on the CPU engine end to end.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import assert_close, f32

FAST = "pooling_cpu_fsv16"
PLANES = "pooling_cpu_planes"
FSV16 = Format.b_fs_yx_fsv16
M = cl.PoolingMode


PATHS = ["row-kernel", "grid", "rows", "plane-passes"]
"""pooling_cpu_planes' forms: the IR row kernel (cpu_pooling_rows, where use_row_kernel takes the window), the flat
grids (where use_pool_grid takes it), the numba row loops, the plane passes."""


def take_path(monkeypatch, planes, path):
    """Make pooling_cpu_planes take ``path`` (one of PATHS) where the window allows it, whatever the rules say."""
    monkeypatch.setattr(planes, "ROW_KERNEL", path == "row-kernel")
    monkeypatch.setattr(planes, "ROW_KERNEL_LIMITS", None)
    monkeypatch.setattr(planes, "ROWS_MIN_W", {"grid": 0, "rows": 1}.get(path, 10**6))
    monkeypatch.setattr(planes, "POOL_GRID", path == "grid")


def out_len(size, ext, s, pb, pe, ceil):
    """ONNX output extent (ceil mode: the last window must start inside the input or its begin pad)."""
    span = size + pb + pe - ext
    o = (-(-span // s) if ceil else span // s) + 1
    return o - 1 if ceil and (o - 1) * s >= size + pb else o


def pool64(x, mode, k, s, pb, pe, d, ceil):
    """Window by window in float64 over the taps o*s - pb + t*d; average divides by the taps inside
    [-pb, size + pe) (``average``) or by the valid taps (``average_no_padding``)."""
    x = x.astype(np.float64)
    n, c, h, w = x.shape
    oh = out_len(h, (k[0] - 1) * d[0] + 1, s[0], pb[0], pe[0], ceil)
    ow = out_len(w, (k[1] - 1) * d[1] + 1, s[1], pb[1], pe[1], ceil)
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        ys = [i * s[0] - pb[0] + t * d[0] for t in range(k[0])]
        vy = [y for y in ys if 0 <= y < h]
        for j in range(ow):
            xs = [j * s[1] - pb[1] + t * d[1] for t in range(k[1])]
            vx = [v for v in xs if 0 <= v < w]
            win = x[:, :, vy][:, :, :, vx].reshape(n, c, -1)
            if mode == M.max:
                out[:, :, i, j] = win.max(-1)
            elif mode == M.average_no_padding:
                out[:, :, i, j] = win.mean(-1)
            else:
                cnt = sum(y < h + pe[0] for y in ys) * sum(v < w + pe[1] for v in xs)
                out[:, :, i, j] = win.sum(-1) / cnt
    return out


CASES = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, dilation, ceil, in padding, out padding
    (M.max, (2, 19, 13, 15), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False,
     Padding((0, 0, 1, 2), (1, 0, 2, 1)), Padding((0, 0, 1, 1), (0, 0, 1, 1))),     # ResNet pool1-like, halo
    (M.max, (1, 37, 11, 23), (3, 3), (2, 2), (0, 0), (0, 0), (1, 1), True,
     Padding(), Padding((0, 0, 2, 2), (0, 0, 2, 2))),                                # ceil, C % 16 == 5
    (M.max, (1, 5, 12, 13), (3, 3), (2, 3), (2, 1), (1, 2), (1, 1), True,
     Padding((0, 0, 0, 1), (0, 0, 0, 0)), Padding()),                                # asymmetric pads, C < 16
    (M.average, (2, 19, 11, 9), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), True,
     Padding((0, 0, 2, 1), (0, 0, 1, 2)), Padding((0, 0, 1, 0), (0, 0, 0, 1))),     # count_include_pad, ceil
    (M.average, (1, 3, 11, 10), (3, 2), (2, 3), (1, 0), (2, 1), (2, 3), False, Padding(), Padding()),  # dilation
    (M.average_no_padding, (2, 33, 12, 17), (3, 3), (3, 2), (2, 1), (1, 2), (2, 2), True,
     Padding((0, 0, 1, 1), (0, 0, 1, 1)), Padding((0, 0, 1, 2), (0, 0, 2, 1))),     # ceil tail past pad_end
    (M.average, (1, 32, 8, 8), (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), False, Padding(), Padding()),  # no tail
    (M.max, (2, 24, 9, 21), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False,
     Padding((0, 0, 1, 1), (0, 0, 1, 1)), Padding()),                                # inception's stride 1, halo
    (M.average, (1, 16, 7, 19), (3, 2), (1, 1), (1, 0), (1, 1), (1, 1), False,
     Padding(), Padding((0, 0, 0, 1), (0, 0, 1, 0))),                               # 2-wide, right pad only
    (M.max, (1, 16, 6, 17), (2, 4), (2, 3), (0, 2), (0, 2), (1, 2), False, Padding(), Padding()),  # wide, dilated
]


def _planes_reason(engine, lin, lout, prim):
    from kernel_selector.params import Params
    from kernel_selector.selector import candidates

    p = Params("pooling", "cpu", [lin], lout, prim.attrs(), layer_id="pool", device=engine.info)
    (k,) = [c for c in candidates("pooling") if c.name == PLANES]
    return k.validate(p)


def _run(engine, x, fmt, mode, k, s, pb, pe, d, ceil, in_pad, out_pad, glob=False, fused=None, operands=None,
         kernel=None):
    """Run ``kernel`` (default: the planes kernel on bfyx, else the row kernel); the unforced choice must be the
    planes kernel on bfyx and the row kernel otherwise."""
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, dilation=d, ceil_mode=ceil,
                      global_pooling=glob)
    lin = Layout(DataType.f32, fmt, x.shape, in_pad)
    lout = prim.calc_output_layout([lin]).with_(padding=out_pad)
    best = PLANES if fmt == Format.bfyx and _planes_reason(engine, lin, lout, prim) is None else FAST
    if kernel == PLANES and best != PLANES:
        kernel = FAST  # refused by the planes kernel (its reason is tested below): the row kernel's case
    out, chosen = run_kernel(engine, "pooling", [lin], lout, prim.attrs(), [x], kernel or best, fused, operands)
    assert chosen == best
    return out


@pytest.mark.parametrize("fmt,kernel", [(FSV16, FAST), (Format.bfyx, FAST), (Format.bfyx, PLANES)],
                         ids=lambda v: getattr(v, "value", v))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}-d{c[6]}-c{int(c[7])}")
def test_pooling_matches_reference(cpu_engine, rng, fmt, kernel, case):
    mode, shape, k, s, pb, pe, d, ceil, in_pad, out_pad = case
    x = f32(rng.standard_normal(shape))
    out = _run(cpu_engine, x, fmt, mode, k, s, pb, pe, d, ceil, in_pad, out_pad, kernel=kernel)
    assert_close(out, pool64(x, mode, k, s, pb, pe, d, ceil))


@pytest.mark.parametrize("fmt", [FSV16, Format.bfyx, Format.byxf], ids=lambda f: f.value)
@pytest.mark.parametrize("mode", [M.max, M.average])
@pytest.mark.parametrize("halo", [True, False])
def test_global_pooling(cpu_engine, rng, fmt, mode, halo):
    """ResNet-50's head: the whole (here 7x9) plane of every channel, input with or without a halo, then relu."""
    x = f32(rng.standard_normal((2, 35, 7, 9)))
    pad = Padding((0, 0, 1, 0), (0, 0, 0, 1)) if halo else Padding()
    out = _run(cpu_engine, x, fmt, mode, (1, 1), (1, 1), (0, 0), (0, 0), (1, 1), False, pad, Padding(), glob=True,
               fused=[FusedOp("activation", FusedActivationAttrs("relu"))])
    x64 = x.astype(np.float64)
    ref = x64.max(axis=(2, 3), keepdims=True) if mode == M.max else x64.mean(axis=(2, 3), keepdims=True)
    ref = np.maximum(ref, 0)
    assert_close(out, ref)


@pytest.mark.parametrize("fmt", [FSV16, Format.bfyx], ids=lambda f: f.value)
@pytest.mark.parametrize("rfmt", [Format.bfyx, FSV16], ids=lambda f: f.value)
@pytest.mark.parametrize("path", PATHS)
def test_fused_residual_and_activation(cpu_engine, rng, monkeypatch, rfmt, fmt, path):
    """Fused eltwise sum with a residual of the output's shape (plain or blocked, padded), then a clamp; on bfyx
    through the planes kernel's IR row kernel, flat grids, rows and plane passes."""
    from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes

    take_path(monkeypatch, planes, path)
    x = f32(rng.standard_normal((2, 21, 9, 8)))
    r = f32(rng.standard_normal((2, 21, 5, 4)))
    rlay = Layout(DataType.f32, rfmt, r.shape, Padding((0, 0, 1, 0), (0, 0, 0, 1)))
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("sum")),
             FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.0))]
    out = _run(cpu_engine, x, fmt, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False,
               Padding((0, 0, 1, 1), (0, 0, 1, 1)), Padding((0, 0, 1, 1), (0, 0, 1, 1)), fused=fused,
               operands=[(rlay, r)])
    ref = np.clip(pool64(x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False) + r, -0.5, 1.0)
    assert_close(out, ref)


@pytest.mark.parametrize("fmt", [FSV16, Format.bfyx], ids=lambda f: f.value)
def test_fused_broadcast_prod_and_gelu(cpu_engine, rng, fmt):
    """A per-channel (1, C, 1, 1) operand broadcast by the epilogue's zero pitches, then gelu."""
    x = f32(rng.standard_normal((1, 18, 6, 6)))
    sc = f32(rng.standard_normal((1, 18, 1, 1)))
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("prod")), FusedOp("activation", FusedActivationAttrs("gelu"))]
    out = _run(cpu_engine, x, fmt, M.average, (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), False, Padding(),
               Padding(), fused=fused, operands=[(Layout(DataType.f32, Format.bfyx, sc.shape), sc)])
    from scipy.special import erf

    v = pool64(x, M.average, (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), False) * sc
    assert_close(out, 0.5 * v * (1 + erf(v / np.sqrt(2))))


def test_network_fsv16_pool_relu(cpu_engine, rng):
    """A network: input -> reorder to b_fs_yx_fsv16 -> max pool -> relu (fused) -> back to bfyx."""
    x = f32(rng.standard_normal((2, 20, 10, 11)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Reorder("xr", "x", FSV16))
    topo.add(cl.Pooling("pool", "xr", mode=M.max, kernel=(3, 3), stride=(2, 2), pad=(1, 1)))
    topo.add(cl.Activation("act", "pool", "relu"))
    topo.add(cl.Reorder("out", "act", cl.Format.bfyx))
    net = cl.Network(cl.Program(cpu_engine, topo))
    assert net.program.node("pool").impl.kernel_name == FAST
    net.poison()
    got = net.run({"x": x})["out"]
    ref = np.maximum(pool64(x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False), 0)
    assert_close(got, ref)


def test_rejects_mixed_formats(cpu_engine):
    """Output format differing from the input's is left to the reference."""
    from kernel_selector.params import Params
    from kernel_selector.selector import candidates

    prim = cl.Pooling("pool", "x", kernel=(2, 2), stride=(2, 2))
    lin = Layout(DataType.f32, FSV16, (1, 16, 4, 4))
    lout = prim.calc_output_layout([lin]).with_(format=Format.bfyx)
    p = Params("pooling", "cpu", [lin], lout, prim.attrs(), layer_id="pool", device=cpu_engine.info)
    (k,) = [c for c in candidates("pooling") if c.name == FAST]
    assert "differs" in (k.validate(p) or "")


@pytest.mark.parametrize("mode", [M.max, M.average])
@pytest.mark.parametrize("glob", [True, False])
def test_blocked_to_bfyx_one_pixel(cpu_engine, rng, mode, glob):
    """A b_fs_yx_fsv16 input (35 channels: a channel tail; a halo that is NaN) pooled to one pixel per plane
    straight into bfyx (one_pixel_plain): a global pooling, or a 7x9 window over the 7x9 plane (GoogLeNet's head)."""
    x = f32(rng.standard_normal((2, 35, 7, 9)))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=(7, 9), stride=(1, 1), global_pooling=glob)
    lin = Layout(DataType.f32, FSV16, x.shape, Padding((0, 0, 1, 0), (0, 0, 0, 1)))
    lout = prim.calc_output_layout([lin]).with_(format=Format.bfyx)
    out, chosen = run_kernel(cpu_engine, "pooling", [lin], lout, prim.attrs(), [x], FAST)
    assert chosen == FAST
    x64 = x.astype(np.float64)
    assert_close(out, x64.max(axis=(2, 3), keepdims=True) if mode == M.max else x64.mean(axis=(2, 3), keepdims=True))


def test_blocked_to_bfyx_refusals(cpu_engine, monkeypatch):
    """fsv16 -> bfyx only for one pixel a plane with its channels contiguous, no fused ops, and ONE_PIXEL_PLAIN."""
    from kernel_selector.kernels.pooling import pooling_kernel_cpu_fsv16 as fsv
    from kernel_selector.params import Params

    k = fsv.PoolingKernelCpuFsv16()
    prim = cl.Pooling("pool", "x", global_pooling=True)
    lin = Layout(DataType.f32, FSV16, (1, 20, 5, 5))
    lout = prim.calc_output_layout([lin]).with_(format=Format.bfyx)

    def why(out, ops=()):
        return k.validate(Params("pooling", "cpu", [lin], out, prim.attrs(), list(ops), "pool", cpu_engine.info))

    assert why(lout) is None
    assert "one output pixel" in (why(lout.with_(padding=Padding((0, 0, 1, 0), (0, 0, 0, 0)))) or "")
    assert "fused ops" in (why(lout, [FusedOp("activation", FusedActivationAttrs("relu"))]) or "")
    monkeypatch.setattr(fsv, "ONE_PIXEL_PLAIN", False)
    assert "differs" in (why(lout) or "")


def test_blocked_region_ends_in_global_pooling(cpu_engine, rng, monkeypatch):
    """conv -> conv -> global average pooling -> softmax: the last convolution's region goes blocked (the pooling
    reads it and writes bfyx, passes/reorder_inputs.pool_reads_blocked); with ONE_PIXEL_PLAIN off that convolution
    writes bfyx (it reads the first one's blocked output); both match the float64 reference."""
    from kernel_selector.kernels.pooling import pooling_kernel_cpu_fsv16 as fsv

    x = f32(rng.standard_normal((2, 32, 13, 13)))
    w1, w2 = f32(rng.standard_normal((32, 32, 3, 3)) / 17), f32(rng.standard_normal((40, 32, 1, 1)) / 6)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    topo.add(cl.Data("w1", w1), cl.Data("w2", w2), cl.Convolution("c1", "x", weights="w1", pad=(1, 1)),
             cl.Convolution("c2", "c1", weights="w2"), cl.Pooling("gap", "c2", mode=M.average, global_pooling=True),
             cl.Softmax("prob", "gap", axis=1))
    from tests.references import conv_ref

    y = conv_ref(conv_ref(x.astype(np.float64), w1, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), w2, None, (1, 1),
                 (1, 1), (0, 0), (0, 0), 1).mean(axis=(2, 3), keepdims=True)
    ref = np.exp(y - y.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    for on in (True, False):
        monkeypatch.setattr(fsv, "ONE_PIXEL_PLAIN", on)
        net = cl.Network(cl.Program(cpu_engine, topo))
        fmts = [net.program.node(i).layout().format for i in ("c1", "c2", "gap")]
        assert fmts == [FSV16, FSV16 if on else Format.bfyx, Format.bfyx], fmts  # off: c2 reads blocked, writes bfyx
        assert net.program.node("gap").impl.kernel_name == (FAST if on else PLANES)
        net.poison()
        assert_close(net.run({"x": x})["prob"], ref, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("shape,k,s,pb,glob", [
    ((1, 64, 112, 112), (3, 3), (2, 2), (1, 1), False),   # ResNet pool1
    ((1, 192, 28, 28), (3, 3), (1, 1), (1, 1), False),    # Inception branch pooling
    ((1, 832, 7, 7), (2, 2), (2, 2), (0, 0), False),      # GoogLeNet 2x2 stride 2
    ((1, 1024, 7, 7), (7, 7), (1, 1), (0, 0), True),      # global
])
def test_planes_kernel_is_chosen_on_network_shapes(cpu_engine, shape, k, s, pb, glob):
    prim = cl.Pooling("pool", "x", mode=M.max, kernel=k, stride=s, pad=pb, pad_end=pb, global_pooling=glob)
    lin = Layout(DataType.f32, Format.bfyx, shape)
    assert _planes_reason(cpu_engine, lin, prim.calc_output_layout([lin]), prim) is None


def test_planes_kernel_refuses_sparse_windows(cpu_engine):
    """A dilated window with strides whose bordered plane is far larger than its taps is left to the row kernel."""
    prim = cl.Pooling("pool", "x", mode=M.average, kernel=(3, 2), stride=(2, 3), pad=(1, 0), pad_end=(2, 1),
                      dilation=(2, 3))
    lin = Layout(DataType.f32, Format.bfyx, (1, 3, 11, 10))
    assert "separable passes read" in (_planes_reason(cpu_engine, lin, prim.calc_output_layout([lin]), prim) or "")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}-d{c[6]}-c{int(c[7])}")
def test_planes_kernel_both_max_paths(cpu_engine, rng, monkeypatch, case, path):
    """Every case through the IR row kernel and the flat grids (where they take it), the row-by-row max pooling
    (whatever the width) and the plane passes (none), whatever ROWS_MIN_W would choose for its width."""
    from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes

    take_path(monkeypatch, planes, path)
    mode, shape, k, s, pb, pe, d, ceil, in_pad, out_pad = case
    x = f32(rng.standard_normal(shape))
    out = _run(cpu_engine, x, Format.bfyx, mode, k, s, pb, pe, d, ceil, in_pad, out_pad, kernel=PLANES)
    assert_close(out, pool64(x, mode, k, s, pb, pe, d, ceil))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("stride", [1, 2])
def test_planes_max_skips_nan_on_both_paths(cpu_engine, rng, monkeypatch, path, stride):
    """Max pooling skips NaN inputs (a window of NaN and padding only gives -inf), on both paths."""
    from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes

    take_path(monkeypatch, planes, path)
    x = f32(rng.standard_normal((1, 3, 13, 14)))
    x[0, 0, ::3, :] = np.nan  # whole rows, among them a window's first row
    x[0, 1, :, 1::4] = np.nan
    x[0, 2, :2, :2] = np.nan  # with pad 1: the corner window sees NaN and padding only
    s = (stride, stride)
    out = _run(cpu_engine, x, Format.bfyx, M.max, (3, 3), s, (1, 1), (1, 1), (1, 1), False, Padding(),
               Padding(), kernel=PLANES)
    xm = np.where(np.isnan(x), -np.inf, x)
    assert_close(out, pool64(xm, M.max, (3, 3), s, (1, 1), (1, 1), (1, 1), False))


def test_rows_are_chosen_for_wide_max_poolings():
    from kernel_selector.kernels.pooling.pooling_kernel_cpu_planes import ROWS_MIN_W, row_passes

    def choice(w, k, s, mode=0, whole=False):
        ow = (w - k) // s + 1
        dims = np.array([1, 64, w, w, ow, ow, 0, 0], np.int64)
        win = np.array([k, k, s, s, 0, 0, 0, 0, 1, 1], np.int64)
        return row_passes(dims, win, whole, mode)

    assert choice(112, 3, 2) and choice(ROWS_MIN_W, 3, 2) and choice(28, 3, 1) and choice(111, 9, 3)
    assert not choice(ROWS_MIN_W - 1, 2, 2)  # GoogLeNet's 7-wide 2x2 stride 2: row loops too short
    assert not choice(112, 112, 1, whole=True)  # global
    # average: strided windows whose output rows are at least ROWS_MIN_W wide (AVG_ROWS), both average modes
    assert choice(112, 3, 2, mode=1) and choice(2 * ROWS_MIN_W, 2, 2, mode=2)
    assert not choice(2 * ROWS_MIN_W - 1, 2, 2, mode=1) and not choice(56, 3, 1, mode=1)


def test_fsv16_max_skips_nan(cpu_engine, rng):
    """b_fs_yx_fsv16 max pooling through the IR pixel micro-kernel: an input NaN never wins (``a > m ? a : m`` from
    -inf), in interior and border pixels alike; a window of NaN only gives -inf."""
    x = f32(rng.standard_normal((1, 20, 9, 13)))
    x[0, 0, ::3, :] = np.nan
    x[0, 3, :, 1::4] = np.nan
    x[0, 17, :3, :3] = np.nan
    out = _run(cpu_engine, x, FSV16, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False, Padding(), Padding())
    ref = pool64(np.where(np.isnan(x), -np.inf, x), M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False)
    assert np.isneginf(ref).any()
    assert_close(out, ref)


def test_pixel_micro_kernel_needs_a_pixel():
    from kernel_selector.common.cpu_microkernel_pool_fsv16 import make_pool_pixels

    with pytest.raises(ValueError, match="at least one pixel"):
        make_pool_pixels(0, True)
