"""f16 storage in convolution_b_fs_yx_fsv16 and reorder_bfyx_to_fsv16 (issue 18): forced, half inputs, weights, bias
and output (values rounded to half first, so the float64 reference sees what the kernel read), in both vector forms
(VEC16 and two float8, forced through the DeviceCaps), over the shapes where its code paths split (zero halo and
bounds-checked border rows, channel tails, stride, dilation, 1x1, depthwise, groups, block-diagonal weights, a plain
first-layer input, a plain narrow-head output), every loop order at its edge blocks, mixed f32 / f16 tensors, fused
ops with a half operand, and a small network built with ``inference_precision="f16"``. Output padding is poisoned and
checked untouched (tests/ocl/padded.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, FusedEltwiseAttrs, ReorderAttrs
from cldnn_py.passes.densify_grouped_convolutions import dense_weights
from kernel_selector import FusedOp, Params
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded
from tests.references import conv_ref

F16, F32 = DataType.f16, DataType.f32
FSV16, BFYX = Format.b_fs_yx_fsv16, Format.bfyx
KERNEL = "convolution_b_fs_yx_fsv16"

CASES = [
    # (N, C, H, W), OC, K, stride, dilation, pad, groups, block_diagonal, input halo, input format, output format
    ((1, 16, 9, 11), 32, 3, 1, 1, 1, 1, 1, True, FSV16, FSV16),
    ((1, 19, 7, 9), 21, 3, 1, 1, 1, 1, 1, False, FSV16, FSV16),     # C and OC tails, border rows
    ((2, 8, 11, 13), 16, 3, 2, 1, 1, 1, 1, False, FSV16, FSV16),    # stride 2, batch 2
    ((1, 16, 9, 10), 16, 3, 1, 2, 2, 1, 1, False, FSV16, FSV16),    # dilation 2
    ((1, 40, 6, 17), 24, 1, 1, 1, 0, 1, 1, True, FSV16, FSV16),     # 1x1
    ((1, 32, 8, 9), 32, 3, 1, 1, 1, 32, 1, False, FSV16, FSV16),    # depthwise
    ((1, 32, 5, 6), 64, 3, 1, 1, 1, 2, 1, True, FSV16, FSV16),      # groups of 16 in, 32 out
    ((1, 24, 6, 7), 48, 3, 2, 1, 1, 1, 3, False, FSV16, FSV16),     # block-diagonal, border path
    ((1, 3, 8, 10), 18, 3, 1, 1, 1, 1, 1, False, BFYX, FSV16),      # plain first-layer input (INPUT_PLAIN)
    ((1, 16, 6, 7), 3, 3, 1, 1, 1, 1, 1, True, FSV16, BFYX),        # plain narrow-head output (OUTPUT_PLAIN)
]


def _conv(engine, case, rng, dtypes=(F16, F16, F16, F16), vec=8):
    """(layouts, output layout, attrs, f32 arrays, caps with native float vector ``vec``, pad_fill: 0 where the
    input padding holds the halo, else NaN) of a CASES row; weights scaled so outputs stay O(1)."""
    shape, oc, k, s, d, pad, groups, bd, halo, in_fmt, out_fmt = case
    c = shape[1]
    x = rng.standard_normal(shape).astype(np.float32)
    wg = (rng.standard_normal((oc, c // (groups * bd), k, k)) / np.sqrt(k * k * c / (groups * bd))).astype(np.float32)
    w = dense_weights(wg, bd).astype(np.float32) if bd > 1 else wg
    b = rng.standard_normal(oc).astype(np.float32)
    in_pad = Padding((0, 0, pad * d, pad * d), (0, 0, pad * d, pad * d)) if halo else Padding()
    oh = (shape[2] + 2 * pad - d * (k - 1) - 1) // s + 1
    ow = (shape[3] + 2 * pad - d * (k - 1) - 1) // s + 1
    lays = [Layout(dtypes[0], in_fmt, shape, in_pad), Layout(dtypes[1], Format.os_iyx_osv16, w.shape),
            Layout(dtypes[2], BFYX, (oc,))]
    lout = Layout(dtypes[3], out_fmt, (shape[0], oc, oh, ow), Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    attrs = ConvolutionAttrs(stride=(s, s), dilation=(d, d), pad=(pad, pad), pad_end=(pad, pad), groups=groups,
                             block_diagonal=bd)
    caps = dataclasses.replace(engine.info.caps, native_vector_width_float=vec)
    return lays, lout, attrs, [x, w, b], caps, 0.0 if halo else np.nan


def _ref(attrs, vals):
    """The float64 convolution of the (float64) values the kernel read; block-diagonal weights are dense."""
    x, w, b = vals
    bd = attrs.block_diagonal
    return conv_ref(x, w, b, attrs.stride, attrs.dilation, attrs.pad, attrs.pad_end, attrs.groups if bd == 1 else 1)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("vec", [8, 16])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[6]}-bd{c[7]}-"
                                                      f"{c[9].value}-{c[10].value}")
def test_conv_fsv16_half(ocl_engine, rng, case, vec):
    lays, lout, attrs, arrays, caps, fill = _conv(ocl_engine, case, rng, vec=vec)
    out, vals = run_kernel_half(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), arrays,
                                kernel=KERNEL, caps=caps, pad_fill=fill)
    assert out.dtype == np.float16
    assert_half_close(out, _ref(attrs, vals))


@pytest.mark.parametrize("case", [CASES[1], CASES[3]], ids=["tails-checked", "dilated"])
def test_conv_fsv16_half_tuning_variants(ocl_engine, rng, case):
    """Each loop order at the narrowest and widest block (auto-tuning may pick any variant)."""
    lays, lout, attrs, arrays, caps, fill = _conv(ocl_engine, case, rng)
    variants = ConvolutionKernelBFsYxFsv16().tune_variants(Params("convolution", "ocl", lays, lout, attrs, caps=caps))
    edge = {min(v["block"] for v in variants), max(v["block"] for v in variants)}
    picked = [v for v in variants if v["block"] in edge]
    assert {v["loop_order"] for v in picked} == {0, 1, 2}
    for v in picked:
        out, vals = run_kernel_half(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), arrays,
                                    kernel=KERNEL, caps=caps, pad_fill=fill, variant=v)
        try:
            assert_half_close(out, _ref(attrs, vals))
        except AssertionError as err:
            raise AssertionError(f"variant {v}: {err}") from None


@pytest.mark.parametrize("oc_blocks", [2, 4])
def test_conv_fsv16_half_oc_blocks(ocl_engine, rng, oc_blocks):
    """VEC16 with OC_BLOCKS 2 and 4: one work-item loads several output slices' half weights."""
    case = ((1, 16, 5, 9), 64, 1, 1, 1, 0, 1, 1, True, FSV16, FSV16)
    lays, lout, attrs, arrays, caps, fill = _conv(ocl_engine, case, rng, vec=16)
    out, vals = run_kernel_half(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), arrays,
                                kernel=KERNEL, caps=caps, pad_fill=fill,
                                variant={"block": 4, "loop_order": 0, "oc_blocks": oc_blocks})
    assert_half_close(out, _ref(attrs, vals))


MIXES = [(F32, F16, F32, F16), (F16, F32, F16, F32), (F32, F32, F32, F16), (F16, F16, F16, F32)]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("vec", [8, 16])
@pytest.mark.parametrize("dtypes", MIXES, ids=lambda t: "-".join(d.value for d in t))
@pytest.mark.parametrize("case", [CASES[1], CASES[8], CASES[9]], ids=["tails", "plain-in", "plain-out"])
def test_conv_fsv16_mixed_precision(ocl_engine, rng, case, dtypes, vec):
    """Input, weights, bias and output each f32 or f16 (f16 weights with f32 activations, the reverse, f32 -> f16)."""
    lays, lout, attrs, arrays, caps, fill = _conv(ocl_engine, case, rng, dtypes, vec)
    vals = [a.astype(lay.dtype.numpy) for a, lay in zip(arrays, lays)]
    out = run_kernel_padded(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), vals, kernel=KERNEL,
                            caps=caps, pad_fill=fill)
    assert out.dtype == lout.dtype.numpy
    ref = _ref(attrs, [v.astype(np.float64) for v in vals])
    assert_half_close(out, ref, rtol=2e-3 if lout.dtype == F16 else 2e-5)


@pytest.mark.parametrize("operand_fmt", [FSV16, BFYX])
def test_conv_fsv16_half_fused_ops(ocl_engine, rng, operand_fmt):
    """A fused residual sum with a half operand (FUSED_OPS8: one half8 load in fsv16, a lane gather in bfyx), then
    relu, into a half output with a channel tail."""
    case = CASES[1]
    lays, lout, attrs, arrays, caps, fill = _conv(ocl_engine, case, rng)
    res = rng.standard_normal(lout.shape).astype(np.float16)
    lres = Layout(F16, operand_fmt, lout.shape, Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    params = Params("convolution", "ocl", lays, lout, attrs, caps=caps)
    params.fused_ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [lres], [3]),
                        FusedOp("activation", FusedActivationAttrs("relu"))]
    (kc,) = ConvolutionKernelBFsYxFsv16().kernel_data(params).kernels
    vals = [a.astype(np.float16) for a in arrays]
    mems = []
    for lay, v in zip([*lays, lres], [*vals, res]):
        mems.append(ocl_engine.allocate(lay))
        ocl_engine.write_buffer(mems[-1].buffer, lay.to_physical(v))
    out_mem = ocl_engine.allocate(lout)
    ocl_engine.write_buffer(out_mem.buffer, np.full(lout.buffer_size, np.nan, np.float16))
    knl = ocl_engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out_mem.buffer)
    ocl_engine.enqueue_kernel(knl, kc.gws, kc.lws).wait()
    raw = np.empty(lout.buffer_size, np.float16)
    ocl_engine.read_buffer(out_mem.buffer, raw)
    ref = np.maximum(_ref(attrs, [v.astype(np.float64) for v in vals]) + res.astype(np.float64), 0)
    assert_half_close(lout.from_physical(raw), ref)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("dt_in,dt_out", [(F32, F16), (F16, F16), (F16, F32)])
@pytest.mark.parametrize("shape", [(2, 20, 3, 11), (1, 16, 2, 5)], ids=["c20", "c16"])
def test_reorder_bfyx_to_fsv16_half(ocl_engine, rng, shape, dt_in, dt_out):
    """Bit-exact: f32 -> f16 rounds to nearest even (numpy's cast), overflows to inf, keeps half subnormals."""
    x = (rng.standard_normal(shape) * 300).astype(np.float32)
    x.flat[:6] = [70000.0, -65520.0, 65519.0, 1e-9, 6.1e-5 / 3, -3e-6]
    xin = x.astype(dt_in.numpy)
    lin = Layout(dt_in, BFYX, shape, Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    lout = Layout(dt_out, FSV16, shape, Padding((0, 0, 0, 1), (0, 0, 1, 1)))
    attrs = dataclasses.asdict(ReorderAttrs(format=FSV16, dtype=dt_out))
    out = run_kernel_padded(ocl_engine, "reorder", [lin], lout, attrs, [xin], kernel="reorder_bfyx_to_fsv16")
    assert out.dtype == dt_out.numpy
    np.testing.assert_array_equal(out, xin.astype(dt_out.numpy))


def test_network_in_f16_runs_the_blocked_kernels(ocl_engine, rng):
    """``inference_precision="f16"``: a first layer on the f32 network input and a second convolution run
    convolution_b_fs_yx_fsv16 in f16, within half rounding of the float64 reference."""
    x = rng.standard_normal((1, 3, 12, 13)).astype(np.float32)
    w1 = (rng.standard_normal((20, 3, 3, 3)) / 5).astype(np.float32)
    w2 = (rng.standard_normal((18, 20, 3, 3)) / 13).astype(np.float32)
    b1, b2 = rng.standard_normal(20).astype(np.float32), rng.standard_normal(18).astype(np.float32)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, x.shape)), cl.Data("w1", w1), cl.Data("b1", b1),
                       cl.Data("w2", w2), cl.Data("b2", b2),
                       cl.Convolution("c1", "x", weights="w1", bias="b1", pad=(1, 1), pad_end=(1, 1)),
                       cl.Activation("r1", "c1", func="relu"),
                       cl.Convolution("c2", "r1", weights="w2", bias="b2", pad=(1, 1), pad_end=(1, 1)),
                       cl.Reorder("out", "c2", format=BFYX))
    prog = cl.Program(ocl_engine, topo, cl.BuildOptions(inference_precision="f16", kernel_tier="cpu"))
    net = cl.Network(prog)
    net.poison()
    out = net.run({"x": x})["out"]
    for nid in ("c1", "c2"):
        assert prog.node(nid).layout().dtype == F16
        assert prog.node(nid).impl.kernel_name == KERNEL
    h1 = np.maximum(conv_ref(x, w1, b1, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0)
    ref = conv_ref(h1, w2, b2, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    assert_half_close(out.astype(np.float32), ref, rtol=5e-3)  # two layers of half rounding
