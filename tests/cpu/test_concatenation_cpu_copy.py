"""concatenation_cpu_copy (block copies on strided views of the physical buffers) vs an independent float64
``np.concatenate`` of the logical inputs.

Run directly on NaN-poisoned physical buffers (input padding and fsv16 block tails NaN, output interior NaN, output
padding / block tail a sentinel that must survive): b_fs_yx_fsv16 along features (aligned, last input with a
tail), along y and b with a channel tail; plain formats with odd channel counts and every axis; padded inputs and
outputs; rank 2 and 5; integer types; the selector's choice (the copy for SqueezeNet-like concats, the reference
where the copy rejects); one network run on the CPU engine end to end.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector.params import Params
from kernel_selector.selector import selector
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import assert_close, f32, typed_attrs

FAST = "concatenation_cpu_copy"
REF = "concatenation_cpu_ref"
FSV16 = Format.b_fs_yx_fsv16
NOPAD = Padding()


def shapes_along(base, axis, sizes):
    """One shape per size: ``base`` with its ``axis`` entry replaced."""
    out = []
    for s in sizes:
        shape = list(base)
        shape[axis] = s
        out.append(tuple(shape))
    return out


CASES = [
    # format, base shape, axis, sizes along the axis, input paddings (one per input), output padding
    (FSV16, (1, 0, 5, 7), 1, (16, 32), None, NOPAD),                                    # SqueezeNet fire
    (FSV16, (2, 0, 3, 4), 1, (16, 16, 5), None, NOPAD),                                 # last input with a tail
    (FSV16, (2, 0, 3, 4), 1, (32, 19), None, Padding((0, 0, 1, 2), (1, 0, 2, 1))),     # padded output, tail
    (FSV16, (1, 0, 6, 5), 1, (16, 16),
     [Padding((0, 0, 1, 1), (0, 0, 1, 1)), Padding((1, 0, 0, 2), (0, 0, 2, 0))], Padding((0, 0, 1, 1), (0, 0, 1, 1))),
    (FSV16, (2, 19, 0, 4), 2, (3, 1, 2), None, Padding((0, 0, 1, 0), (0, 0, 0, 1))),   # along y, channel tail
    (FSV16, (0, 21, 3, 2), 0, (1, 2), [Padding((0, 0, 0, 1), (0, 0, 0, 0)), NOPAD], NOPAD),  # along b
    (FSV16, (1, 5, 4, 0), 3, (3, 4), None, NOPAD),                                      # along x, C < 16
    (Format.bfyx, (2, 0, 4, 5), 1, (3, 7, 1), None, NOPAD),                             # odd channel counts
    (Format.bfyx, (2, 0, 3, 4), 1, (5, 9),
     [Padding((0, 1, 1, 0), (0, 2, 0, 1)), NOPAD], Padding((1, 2, 0, 1), (0, 3, 1, 2))),  # padded f too
    (Format.bfyx, (0, 3, 2, 5), 0, (1, 3), None, NOPAD),
    (Format.bfyx, (2, 3, 0, 5), 2, (2, 5), None, Padding((0, 0, 1, 1), (0, 0, 1, 1))),
    (Format.bfyx, (2, 3, 4, 0), 3, (3, 1, 6), None, NOPAD),
    (Format.byxf, (2, 0, 3, 4), 1, (5, 3), [NOPAD, Padding((0, 1, 1, 0), (0, 0, 0, 1))], Padding((0, 1, 0, 0))),
    (Format.yxfb, (2, 3, 0, 4), 2, (2, 3), None, NOPAD),
    (Format.fyxb, (0, 3, 2, 2), 0, (3, 2), None, Padding((1, 0, 0, 0), (2, 0, 0, 0))),
    (Format.bfyx, (4, 0), 1, (10, 7), None, NOPAD),                                     # rank 2
    (Format.bfyx, (2, 3, 2, 0, 3), 3, (2, 4), None, NOPAD),                             # rank 5, an inner axis
    (Format.bfyx, (2, 3, 2, 3, 0), 4, (1, 3), None, NOPAD),                             # rank 5, the last axis
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].value}-{c[1]}-axis{c[2]}-{c[3]}")
def test_copy_matches_numpy(cpu_engine, rng, case):
    fmt, base, axis, sizes, in_pads, out_pad = case
    shapes = shapes_along(base, axis, sizes)
    arrays = [f32(rng.standard_normal(s)) for s in shapes]
    pads = in_pads or [NOPAD] * len(shapes)
    ins = [Layout(DataType.f32, fmt, s, p) for s, p in zip(shapes, pads)]
    out_shape = list(base)
    out_shape[axis] = sum(sizes)
    out = Layout(DataType.f32, fmt, tuple(out_shape), out_pad)
    got, chosen = run_kernel(cpu_engine, "concatenation", ins, out, {"axis": axis}, arrays, FAST)
    assert chosen == FAST
    assert not np.isnan(got).any()
    expected = np.concatenate([a.astype(np.float64) for a in arrays], axis=axis)
    assert_close(got, expected, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8])
@pytest.mark.parametrize("fmt", [Format.bfyx, FSV16])
def test_copy_integer_types(rng, dtype, fmt):
    """Integer data through the kernel's fn on raw uint8 buffers (the harness poisons with NaN, floats only):
    the output's padding and block tail keep a sentinel byte pattern."""
    shapes = [(1, 16, 3, 4), (1, 3, 3, 4)]
    arrays = [rng.integers(0, 100, s).astype(dtype) for s in shapes]
    dt = DataType.from_numpy(np.dtype(dtype))
    ins = [Layout(dt, fmt, s) for s in shapes]
    out = Layout(dt, fmt, (1, 19, 3, 4), Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    params = Params("concatenation", "cpu", ins, out, typed_attrs("concatenation", {"axis": 1}), [], "concatenation")
    kernel, kd = selector.select(params)
    assert kernel.name == FAST
    bufs = [lay.to_physical(a).view(np.uint8).copy() for lay, a in zip(ins, arrays)]
    obuf = np.full(out.bytes, 0x5A, np.uint8)
    sentinel = obuf.view(dtype)[0]
    kd.kernels[0].fn(*bufs, obuf)
    mask = out.to_physical(np.ones(out.shape, dtype)) == 0
    assert mask.any() and (obuf.view(dtype)[mask] == sentinel).all()
    np.testing.assert_array_equal(out.from_physical(obuf.view(dtype)), np.concatenate(arrays, axis=1))


def _params(fmt, shapes, axis, out_fmt=None):
    ins = [Layout(DataType.f32, fmt, s) for s in shapes]
    out_shape = list(shapes[0])
    out_shape[axis % len(out_shape)] = sum(s[axis] for s in shapes)
    return Params("concatenation", "cpu", ins, Layout(DataType.f32, out_fmt or fmt, tuple(out_shape)),
                  typed_attrs("concatenation", {"axis": axis}),
                  [], "concatenation")


def _verdict(params, name):
    return next(v for v in selector.explain(params) if v.kernel == name)


@pytest.mark.parametrize("shapes", [[(1, 64, 55, 55), (1, 64, 55, 55)], [(1, 128, 27, 27), (1, 128, 27, 27)],
                                    [(1, 192, 13, 13), (1, 192, 13, 13)], [(1, 256, 13, 13), (1, 256, 13, 13)]])
def test_selector_picks_copy_for_squeezenet_concats(shapes):
    for fmt in (FSV16, Format.bfyx):
        params = _params(fmt, shapes, 1)
        assert selector.select(params)[0].name == FAST
        assert _verdict(params, FAST).reason is None


@pytest.mark.parametrize("fmt, shapes, axis, out_fmt, words", [
    (FSV16, [(1, 16, 3, 3), (1, 5, 3, 3), (1, 16, 3, 3)], 1, None, "starts at feature 21"),  # unaligned middle
    (FSV16, [(4, 10), (4, 7)], -1, None, "not a multiple of 16"),                             # rank 2 FC outputs
    (FSV16, [(1, 16, 3, 3), (1, 16, 3, 3)], 1, Format.bfyx, "format"),                         # mixed formats
])
def test_selector_falls_back_to_ref_where_copy_rejects(fmt, shapes, axis, out_fmt, words):
    params = _params(fmt, shapes, axis, out_fmt)
    v = _verdict(params, FAST)
    assert v.reason is not None and words in v.reason
    assert selector.select(params)[0].name == REF


def test_rejected_case_still_correct_through_ref(cpu_engine, rng):
    """The unaligned fsv16 concat the copy rejects runs the reference, with the right result."""
    shapes = [(1, 16, 3, 3), (1, 5, 3, 3), (1, 16, 3, 3)]
    arrays = [f32(rng.standard_normal(s)) for s in shapes]
    ins = [Layout(DataType.f32, FSV16, s) for s in shapes]
    out = Layout(DataType.f32, FSV16, (1, 37, 3, 3))
    got, chosen = run_kernel(cpu_engine, "concatenation", ins, out, {"axis": 1}, arrays, REF)
    assert chosen == REF
    assert_close(got, np.concatenate([a.astype(np.float64) for a in arrays], axis=1), rtol=0, atol=0)


def test_network_squeezenet_like_fire_concat(cpu_engine, rng):
    """Two 1x1 / 3x3-like branches reordered to b_fs_yx_fsv16 and concatenated on features, through Network."""
    a = f32(rng.standard_normal((1, 16, 5, 7)))
    b = f32(rng.standard_normal((1, 32, 5, 7)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("a", cl.Layout(cl.DataType.f32, Format.bfyx, a.shape)),
             cl.InputLayout("b", cl.Layout(cl.DataType.f32, Format.bfyx, b.shape)),
             cl.Reorder("a16", "a", FSV16),
             cl.Reorder("b16", "b", FSV16),
             cl.Activation("ra", "a16", "relu"),
             cl.Activation("rb", "b16", "relu"),
             cl.Concatenation("cat", ["ra", "rb"], axis=1),
             cl.Activation("out", "cat", "abs"))
    net = cl.Network(cpu_engine, topo)
    net.poison()
    got = net.run({"a": a, "b": b})["out"]
    expected = np.abs(np.concatenate([np.maximum(a, 0), np.maximum(b, 0)], axis=1).astype(np.float64))
    assert_close(got, expected, rtol=0, atol=0)
    kernels = {e.id: (e.kernel, e.status) for e in net.get_profiling_info()}
    assert kernels["cat"] == (FAST, "EXECUTED")
