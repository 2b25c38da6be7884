"""The CPU engine's gather copies vs independent numpy references, bit for bit: pad_cpu_copy (numpy.pad in every
mode; negative pads as a crop first), tile_cpu_copy (numpy.tile), broadcast_cpu_copy (numpy.broadcast_to). Run
forced on physical buffers whose input padding / block tails are poisoned and whose output interior is poisoned
(an unwritten element shows) while the output's padding holds a sentinel that must survive. bfyx / byxf /
b_fs_yx_fsv16, padding on either side, every axis, rank 2-5, odd sizes, batch > 1, f32 (NaN payloads, -0.0, inf
copied exactly) and i32 / i8 / u8; each run also checks the selector picks the fast kernel unforced."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import typed_attrs

BFYX, BYXF, FSV16 = Format.bfyx, Format.byxf, Format.b_fs_yx_fsv16
F32, I32, I8, U8 = DataType.f32, DataType.i32, DataType.i8, DataType.u8
Z4 = (0, 0, 0, 0)


def lay(fmt, shape, lo=Z4, hi=Z4, dt=F32):
    """A Layout with lower / upper padding."""
    return Layout(dt, fmt, shape, Padding(lo, hi))


def data(rng, shape, dt):
    """Fresh random data avoiding the poison values; f32 with a NaN payload, -0.0 and inf mixed in."""
    if dt != F32:
        lo = -100 if np.iinfo(dt.numpy).min < 0 else 0
        return rng.integers(lo, 100, shape).astype(dt.numpy)
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    specials = np.array([0x7FC01234, 0x80000000, 0x7F800000], np.uint32).view(np.float32)
    pos = rng.choice(flat.size, size=min(3, flat.size), replace=False)
    flat[pos] = specials[:len(pos)]
    return x


def run(engine, kind, x_lay, out_lay, attrs, x, kernel):
    """Run ``kernel`` forced on poisoned buffers (the harness); returns (logical output, the selector's unforced
    pick)."""
    return run_kernel(engine, kind, [x_lay], out_lay, attrs, [x], kernel)


def assert_bits(got, ref):
    """Bit-exact equality (NaN payloads and -0.0 included)."""
    ref = np.ascontiguousarray(ref, dtype=got.dtype)
    assert got.shape == ref.shape
    if got.dtype == np.float32:
        got, ref = got.view(np.uint32), ref.view(np.uint32)
    np.testing.assert_array_equal(got, ref)


def reason(kind, x_lay, out_lay, attrs, kernel, fused=()):
    """The kernel's validate() verdict."""
    params = Params(kind, "cpu", [x_lay], out_lay, typed_attrs(kind, attrs), list(fused), kind)
    return next(c for c in candidates(kind) if c.name == kernel).validate(params)


def out_like(x_lay, shape, lo=Z4, hi=Z4, fmt=None):
    return lay(fmt or x_lay.format, shape, lo, hi, x_lay.dtype)


# ----- pad -----------------------------------------------------------------------------------------------------
PAD = [  # (input layout, pads begin, pads end, output lower / upper padding)
    (lay(BFYX, (3, 5)), (1, 2), (2, 3), Z4, Z4),                                  # rank 2, both axes
    (lay(BFYX, (4, 3)), (1, 5), (6, 2), Z4, Z4),                                  # pads beyond the input
    (lay(BFYX, (2, 7, 9)), (0, 0, 3), (0, 0, 4), (0, 1, 0, 0), (0, 0, 2, 0)),     # innermost axis only
    (lay(BFYX, (3, 4, 5)), (2, 0, 0), (1, 0, 0), Z4, Z4),                         # batch only: whole-plane rows
    (lay(BFYX, (2, 19, 5, 6), (0, 1, 1, 2), (1, 0, 2, 1)), (0, 3, 2, 0), (1, 2, 1, 0), (0, 0, 1, 1), (0, 0, 0, 2)),
    (lay(BYXF, (2, 5, 4, 3)), (1, 2, 1, 2), (2, 1, 2, 1), (0, 0, 1, 0), (0, 0, 0, 1)),  # every axis, channels last
    (lay(FSV16, (2, 19, 3, 4), (0, 0, 1, 0), (0, 0, 0, 1)), (0, 2, 0, 3), (0, 11, 1, 1), Z4, Z4),  # f crosses slices
    (lay(BFYX, (2, 3, 2, 3, 5)), (0, 1, 1, 0, 2), (1, 0, 1, 2, 3), Z4, Z4),     # rank 5
]
MODES = ["constant", "reflect", "edge", "wrap"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", range(len(PAD)))
def test_pad_copy(cpu_engine, rng, case, mode):
    xl, begin, end, olo, ohi = PAD[case]
    shape = tuple(n + b + e for n, b, e in zip(xl.shape, begin, end))
    ol = out_like(xl, shape, olo, ohi)
    x = data(rng, xl.shape, F32)
    value = float(rng.standard_normal())
    attrs = {"pads_begin": begin, "pads_end": end, "mode": mode, "value": value}
    got, pick = run(cpu_engine, "pad", xl, ol, attrs, x, "pad_cpu_copy")
    kw = {"constant_values": np.float32(value)} if mode == "constant" else {}
    assert_bits(got, np.pad(x, list(zip(begin, end)), mode=mode, **kw))
    assert pick == "pad_cpu_copy"


def cropped_pad(x, begin, end, mode, **kw):
    """ONNX Pad with negative pads: crop first, then numpy.pad the rest."""
    crop = tuple(slice(max(0, -b), n - max(0, -e)) for n, b, e in zip(x.shape, begin, end))
    return np.pad(x[crop], [(max(0, b), max(0, e)) for b, e in zip(begin, end)], mode=mode, **kw)


NEG = [  # (input layout, pads begin, pads end): crops on some axes, pads on others
    (lay(BFYX, (3, 6, 7)), (-1, 2, -2), (1, -3, 1)),
    (lay(BYXF, (2, 5, 6, 7), (0, 0, 1, 1), (0, 0, 1, 0)), (0, -1, 2, -3), (-1, 1, -2, 2)),
    (lay(BFYX, (2, 3, 4, 9)), (0, 0, 0, -2), (0, 0, 0, -3)),                        # a crop of every row
]


@pytest.mark.parametrize("mode", ["constant", "edge"])
@pytest.mark.parametrize("case", range(len(NEG)))
def test_pad_copy_negative_pads(cpu_engine, rng, case, mode):
    xl, begin, end = NEG[case]
    ol = out_like(xl, tuple(n + b + e for n, b, e in zip(xl.shape, begin, end)))
    x = data(rng, xl.shape, F32)
    attrs = {"pads_begin": begin, "pads_end": end, "mode": mode, "value": -2.5}
    got, pick = run(cpu_engine, "pad", xl, ol, attrs, x, "pad_cpu_copy")
    kw = {"constant_values": np.float32(-2.5)} if mode == "constant" else {}
    assert_bits(got, cropped_pad(x, begin, end, mode, **kw))
    assert pick == "pad_cpu_copy"


def test_pad_copy_axis_wholly_outside(cpu_engine, rng):
    """Constant mode where an output axis reads nothing of the input: that axis is all value."""
    xl = lay(BFYX, (2, 3, 4))
    begin, end = (0, 1, -1), (0, -3, 2)
    ol = out_like(xl, (2, 1, 5))
    x = data(rng, xl.shape, F32)
    got, _ = run(cpu_engine, "pad", xl, ol, {"pads_begin": begin, "pads_end": end, "value": 3.0}, x, "pad_cpu_copy")
    assert_bits(got, np.full((2, 1, 5), 3.0, np.float32))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dt", [I32, I8, U8])
def test_pad_copy_integers(cpu_engine, rng, dt, mode):
    xl = lay(BFYX, (2, 5, 3, 7), (0, 1, 0, 1), (0, 0, 1, 0), dt=dt)
    begin, end = (1, 0, 2, 3), (0, 2, 1, 4)
    ol = out_like(xl, (3, 7, 6, 14))
    x = data(rng, xl.shape, dt)
    value = -3.7  # C cast of int(value): -3, wrapped for u8 (253)
    got, pick = run(cpu_engine, "pad", xl, ol, {"pads_begin": begin, "pads_end": end, "mode": mode,
                                                "value": value}, x, "pad_cpu_copy")
    kw = {"constant_values": np.array(-3).astype(dt.numpy)} if mode == "constant" else {}
    assert_bits(got, np.pad(x, list(zip(begin, end)), mode=mode, **kw))
    assert pick == "pad_cpu_copy"


# ----- tile ----------------------------------------------------------------------------------------------------
TILE = [  # (input layout, repeats, output lower / upper padding)
    (lay(BFYX, (3, 5)), (2, 3), Z4, Z4),                                          # rank 2
    (lay(BFYX, (2, 3, 1)), (1, 2, 7), Z4, (0, 0, 1, 0)),                          # size-1 innermost: broadcast run
    (lay(BFYX, (2, 3, 4, 5), (0, 1, 1, 0), (1, 0, 0, 2)), (2, 1, 3, 1), (1, 0, 0, 1), Z4),
    (lay(BFYX, (1, 1, 2, 3)), (3, 2, 1, 1), Z4, Z4),                              # leading axes only
    (lay(BYXF, (2, 3, 2, 3)), (1, 2, 2, 3), Z4, (0, 0, 1, 0)),
    (lay(FSV16, (2, 19, 3, 5)), (1, 2, 1, 3), (0, 0, 1, 0), Z4),                  # f crosses slices
    (lay(BFYX, (2, 1, 2, 3, 2)), (1, 3, 1, 2, 2), Z4, Z4),                        # rank 5
]


@pytest.mark.parametrize("case", range(len(TILE)))
def test_tile_copy(cpu_engine, rng, case):
    xl, reps, olo, ohi = TILE[case]
    ol = out_like(xl, tuple(n * r for n, r in zip(xl.shape, reps)), olo, ohi)
    x = data(rng, xl.shape, F32)
    got, pick = run(cpu_engine, "tile", xl, ol, {"repeats": reps}, x, "tile_cpu_copy")
    assert_bits(got, np.tile(x, reps))
    assert pick == "tile_cpu_copy"


@pytest.mark.parametrize("dt", [I32, I8, U8])
def test_tile_copy_integers(cpu_engine, rng, dt):
    xl = lay(BFYX, (2, 3, 5), (0, 1, 1, 0), (0, 0, 1, 0), dt=dt)
    reps = (2, 3, 2)
    x = data(rng, xl.shape, dt)
    got, pick = run(cpu_engine, "tile", xl, out_like(xl, (4, 9, 10)), {"repeats": reps}, x, "tile_cpu_copy")
    assert_bits(got, np.tile(x, reps))
    assert pick == "tile_cpu_copy"


# ----- broadcast -----------------------------------------------------------------------------------------------
BROADCAST = [  # (input layout, output layout)
    (lay(BFYX, (3, 1)), lay(BFYX, (2, 3, 5))),                                    # rank 2 -> 3
    (lay(BFYX, (5,)), lay(BFYX, (2, 3, 4, 5))),                                   # rank 1 -> 4: whole rows
    (lay(BFYX, (1, 4, 1, 1)), lay(BFYX, (2, 4, 3, 5), (0, 0, 1, 0), (0, 1, 0, 2))),  # a value per channel plane
    (lay(BFYX, (2, 1, 3, 1), (0, 1, 1, 1), (1, 0, 0, 1)), lay(BFYX, (2, 4, 3, 5))),
    (lay(BYXF, (2, 1, 3, 4)), lay(BYXF, (2, 5, 3, 4), (0, 0, 0, 1), Z4)),
    (lay(FSV16, (1, 19, 1, 1)), lay(FSV16, (2, 19, 3, 3))),
    (lay(BFYX, (2, 1, 3, 1, 4)), lay(BFYX, (2, 3, 3, 2, 4))),                     # rank 5
    (lay(BFYX, (3, 4)), lay(BFYX, (2, 3, 4))),                                    # nothing but a new axis
]


@pytest.mark.parametrize("case", range(len(BROADCAST)))
def test_broadcast_copy(cpu_engine, rng, case):
    xl, ol = BROADCAST[case]
    x = data(rng, xl.shape, F32)
    got, pick = run(cpu_engine, "broadcast", xl, ol, {"shape": ol.shape}, x, "broadcast_cpu_copy")
    assert_bits(got, np.broadcast_to(x, ol.shape))
    assert pick == "broadcast_cpu_copy"


@pytest.mark.parametrize("dt", [I32, I8, U8])
def test_broadcast_copy_integers(cpu_engine, rng, dt):
    xl = lay(BFYX, (3, 1, 5), (0, 0, 1, 0), (0, 1, 0, 0), dt=dt)
    ol = lay(BFYX, (2, 3, 4, 5), dt=dt)
    x = data(rng, xl.shape, dt)
    got, pick = run(cpu_engine, "broadcast", xl, ol, {"shape": ol.shape}, x, "broadcast_cpu_copy")
    assert_bits(got, np.broadcast_to(x, ol.shape))
    assert pick == "broadcast_cpu_copy"


# ----- what validate() refuses ---------------------------------------------------------------------------------
def test_copy_kernels_refuse():
    relu = FusedOp("activation", typed_attrs("activation", {"func": "relu"}))
    x, xi = lay(BFYX, (1, 2, 3, 3)), lay(BFYX, (1, 2, 3, 3), dt=I32)
    pad = {"pads_begin": (0, 0, 1, 1), "pads_end": (0, 0, 1, 1)}
    p_out = lay(BFYX, (1, 2, 5, 5))
    assert "fused" in reason("pad", x, p_out, pad, "pad_cpu_copy", [relu])
    assert "data types differ" in reason("pad", x, lay(BFYX, (1, 2, 5, 5), dt=I32), pad, "pad_cpu_copy")
    assert "has no i32 value" in reason("pad", xi, lay(BFYX, (1, 2, 5, 5), dt=I32), {**pad, "value": float("nan")},
                                        "pad_cpu_copy")
    assert reason("pad", x, p_out, {**pad, "value": float("nan")}, "pad_cpu_copy") is None  # a float NaN is fine
    assert "is not the output" in reason("pad", x, lay(BFYX, (1, 2, 5, 4)), pad, "pad_cpu_copy")
    assert "is not the output" in reason("tile", x, lay(BFYX, (1, 2, 6, 4)), {"repeats": (1, 1, 2, 1)},
                                         "tile_cpu_copy")
    assert "fused" in reason("tile", x, lay(BFYX, (1, 2, 6, 3)), {"repeats": (1, 1, 2, 1)}, "tile_cpu_copy", [relu])
    assert "does not broadcast" in reason("broadcast", x, lay(BFYX, (1, 3, 3, 3)), {"shape": (1, 3, 3, 3)},
                                          "broadcast_cpu_copy")
    assert "data types differ" in reason("broadcast", x, lay(BFYX, (2, 2, 3, 3), dt=I8), {"shape": (2, 2, 3, 3)},
                                         "broadcast_cpu_copy")
