"""Layout without a device: physical placement of every element for every Format (with and without padding),
pitches, block tails, round trips, and the errors of Layout, Padding and DataType.from_numpy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Format, Layout, Padding
from kernel_selector.jitter import tensor_jit

F32 = cl.DataType.f32


def _ceil_to(n: int, m: int) -> int:
    return -(-n // m) * m


def expected_offset(fmt: Format, dims: tuple[int, int, int, int], pad: Padding,
                    b: int, f: int, y: int, x: int) -> int:
    """Offset of logical (b, f, y, x), written out per format from docs/formats.md (not from Layout.pitches).

    ``dims`` are the logical (B, F, Y, X); padding widens each dimension, the blocked one is rounded up to 16.
    """
    lo, hi = pad.lower, pad.upper
    pb, pf, py, px = (d + lo[i] + hi[i] for i, d in enumerate(dims))
    cb, cf, cy, cx = b + lo[0], f + lo[1], y + lo[2], x + lo[3]
    if fmt in (Format.bfyx, Format.oiyx):
        return ((cb * pf + cf) * py + cy) * px + cx
    if fmt == Format.byxf:
        return ((cb * py + cy) * px + cx) * pf + cf
    if fmt == Format.yxfb:
        return ((cy * px + cx) * pf + cf) * pb + cb
    if fmt == Format.fyxb:
        return ((cf * py + cy) * px + cx) * pb + cb
    if fmt == Format.b_fs_yx_fsv16:
        fs = _ceil_to(pf, 16) // 16
        return (((cb * fs + cf // 16) * py + cy) * px + cx) * 16 + cf % 16
    if fmt == Format.os_iyx_osv16:
        return ((((cb // 16) * pf + cf) * py + cy) * px + cx) * 16 + cb % 16
    raise AssertionError(f"test does not know format {fmt}")


def expected_buffer_size(fmt: Format, dims: tuple[int, int, int, int], pad: Padding) -> int:
    """Padded extent product, the blocked dimension rounded up to 16."""
    ext = [d + lo + hi for d, lo, hi in zip(dims, pad.lower, pad.upper)]
    if fmt == Format.b_fs_yx_fsv16:
        ext[1] = _ceil_to(ext[1], 16)
    if fmt == Format.os_iyx_osv16:
        ext[0] = _ceil_to(ext[0], 16)
    return int(np.prod(ext))


def legal_padding(fmt: Format) -> Padding:
    """A padding on every dimension the format allows (not the blocked one)."""
    lower, upper = [1, 2, 1, 3], [2, 1, 3, 1]
    if fmt.block is not None:
        i = "bfyx".index(fmt.block[0])
        lower[i] = upper[i] = 0
    return Padding(tuple(lower), tuple(upper))


SHAPES = [(2, 19, 3, 5), (17, 3, 2, 4), (3, 18, 4), (5, 7), (11,)]
FORMATS = list(Format)


def _unique(shape: tuple[int, ...]) -> np.ndarray:
    """Distinct non-zero values, so each element can be found in the physical buffer."""
    return (np.arange(int(np.prod(shape)), dtype=np.float32) + 1).reshape(shape)


@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.value)
def test_every_element_sits_at_its_offset(fmt, shape, padded):
    pad = legal_padding(fmt) if padded else Padding()
    lay = Layout(F32, fmt, shape, pad)
    a = _unique(shape)
    phys = lay.to_physical(a)
    assert phys.shape == (lay.buffer_size,)
    assert lay.buffer_size == expected_buffer_size(fmt, lay.dims4, pad)
    a4 = a.reshape(lay.dims4)
    seen = np.zeros(phys.shape, dtype=bool)
    for b, f, y, x in itertools.product(*(range(d) for d in lay.dims4)):
        off = expected_offset(fmt, lay.dims4, pad, b, f, y, x)
        assert phys[off] == a4[b, f, y, x], f"{lay}: ({b},{f},{y},{x}) not at offset {off}"
        seen[off] = True
    assert (phys[~seen] == 0).all(), "padding and block tails must be zero"


@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.value)
def test_pitches_predict_the_offset(fmt, padded):
    """offset = Σ coord·pitch over plain dims + (c // 16)·pitch + c % 16 for the blocked dim (clDNN pitches)."""
    pad = legal_padding(fmt) if padded else Padding()
    lay = Layout(F32, fmt, (18, 19, 3, 5), pad)
    p = lay.pitches
    blk = fmt.block
    for b, f, y, x in itertools.product(*(range(d) for d in lay.dims4)):
        off = 0
        for d, c, lo in zip("bfyx", (b, f, y, x), pad.lower):
            c += lo
            off += (c // blk[1]) * p[d] + c % blk[1] if blk and blk[0] == d else c * p[d]
        assert off == expected_offset(fmt, lay.dims4, pad, b, f, y, x)


def test_pitches_of_plain_formats_by_hand():
    pad = Padding((0, 1, 2, 1), (0, 0, 1, 2))   # padded extents: b 2, f 4, y 7, x 8
    assert Layout(F32, Format.bfyx, (2, 3, 4, 5), pad).pitches == {"x": 1, "y": 8, "f": 56, "b": 224}
    assert Layout(F32, Format.byxf, (2, 3, 4, 5), pad).pitches == {"f": 1, "x": 4, "y": 32, "b": 224}
    assert Layout(F32, Format.yxfb, (2, 3, 4, 5), pad).pitches == {"b": 1, "f": 2, "x": 8, "y": 64}
    fsv = Layout(F32, Format.b_fs_yx_fsv16, (2, 19, 4, 5), Padding((0, 0, 2, 1), (0, 0, 1, 2)))
    assert fsv.pitches == {"x": 16, "y": 128, "f": 896, "b": 1792}   # f: between 16-feature slices


@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.value)
def test_round_trip(fmt, shape, padded, rng):
    lay = Layout(F32, fmt, shape, legal_padding(fmt) if padded else Padding())
    a = rng.standard_normal(shape).astype(np.float32)
    phys = lay.to_physical(a)
    back = lay.from_physical(phys)
    assert back.shape == shape and back.dtype == np.float32
    np.testing.assert_array_equal(back, a)
    # from_physical ignores whatever the padding and tails hold
    holes = lay.to_physical(np.ones(shape, np.float32)) == 0
    phys[holes] = np.nan
    np.testing.assert_array_equal(lay.from_physical(phys), a)


@pytest.mark.parametrize("dtype", [cl.DataType.i32, cl.DataType.u8, cl.DataType.f16, cl.DataType.i64])
def test_round_trip_keeps_dtype(dtype, rng):
    lay = Layout(dtype, Format.b_fs_yx_fsv16, (2, 19, 2, 3), Padding((1, 0, 0, 1), (0, 0, 2, 0)))
    a = rng.integers(0, 100, size=lay.shape).astype(dtype.numpy)
    phys = lay.to_physical(a)
    assert phys.dtype == dtype.numpy
    back = lay.from_physical(phys)
    assert back.dtype == dtype.numpy
    np.testing.assert_array_equal(back, a)


def test_fsv16_with_19_features_has_a_zero_tail(rng):
    lay = Layout(F32, Format.b_fs_yx_fsv16, (2, 19, 3, 4))
    assert lay.padded_dims == (2, 32, 3, 4) and lay.buffer_size == 2 * 32 * 3 * 4
    a = rng.uniform(1, 2, size=lay.shape).astype(np.float32)   # never zero
    blocks = lay.to_physical(a).reshape(2, 2, 3, 4, 16)        # b, feature slice, y, x, 16 features
    assert (blocks[:, 1, :, :, 3:] == 0).all()                 # features 19..31
    assert (blocks[:, 1, :, :, :3] != 0).all()
    np.testing.assert_array_equal(blocks[:, 0], a[:, :16].transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(blocks[:, 1, :, :, :3], a[:, 16:].transpose(0, 2, 3, 1))


def test_os_iyx_osv16_with_19_outputs_has_a_zero_tail(rng):
    lay = Layout(F32, Format.os_iyx_osv16, (19, 3, 2, 2))
    a = rng.uniform(1, 2, size=lay.shape).astype(np.float32)
    blocks = lay.to_physical(a).reshape(2, 3, 2, 2, 16)        # o slice, i, y, x, 16 outputs
    assert (blocks[1, ..., 3:] == 0).all()
    np.testing.assert_array_equal(blocks[1, ..., :3], a[16:].transpose(1, 2, 3, 0))


def test_dims4_adds_trailing_ones():
    assert Layout(F32, Format.bfyx, (7,)).dims4 == (7, 1, 1, 1)
    assert Layout(F32, Format.bfyx, (2, 3)).dims4 == (2, 3, 1, 1)
    assert Layout(F32, Format.bfyx, (2, 3, 4)).dims4 == (2, 3, 4, 1)
    lay = Layout(F32, Format.byxf, (2, 3, 4, 5))
    assert lay.rank == 4 and lay.count() == 120 and lay.bytes == 480


@pytest.mark.parametrize("shape", [(), (1, 2, 3, 4, 5, 6, 7), (2, 0, 3), (3, -1)], ids=str)
def test_bad_shapes_raise_shape_error(shape):
    with pytest.raises(cl.ShapeError, match="rank 1-6 with positive sizes"):
        Layout(F32, Format.bfyx, shape)


@pytest.mark.parametrize("fmt,pad", [
    (Format.b_fs_yx_fsv16, Padding((0, 1, 0, 0), (0, 0, 0, 0))),
    (Format.b_fs_yx_fsv16, Padding((0, 24, 0, 0), (0, 8, 0, 0))),
    (Format.os_iyx_osv16, Padding((1, 0, 0, 0), (0, 0, 0, 0))),
], ids=["fsv16-lower-f", "fsv16-lower-f-1.5-blocks", "osv16-lower-o"])
def test_padding_a_blocked_dimension_by_part_of_a_block_is_refused(fmt, pad):
    with pytest.raises(cl.ShapeError, match=f"{fmt.value} pads its blocked dimension .* only by whole blocks"):
        Layout(F32, fmt, (16, 16, 2, 2), pad)


def test_whole_slices_of_feature_padding_place_the_data_after_them():
    """An in-place concatenation's second input: 20 channels after 16, 12 more after (48 in all, 3 slices)."""
    lay = Layout(F32, Format.b_fs_yx_fsv16, (2, 20, 3, 4), Padding((0, 16, 0, 0), (0, 12, 0, 0)))
    whole = Layout(F32, Format.b_fs_yx_fsv16, (2, 48, 3, 4))
    assert lay.padded_dims == whole.padded_dims and lay.pitches == whole.pitches
    assert lay.buffer_size == whole.buffer_size == 2 * 48 * 12
    x = np.random.default_rng(3).standard_normal(lay.shape).astype(np.float32)
    mine = whole.from_physical(lay.to_physical(x))  # the 48-channel tensor the concatenation's users read
    np.testing.assert_array_equal(mine[:, 16:36], x)
    assert not mine[:, :16].any() and not mine[:, 36:].any()
    # the jitter's offset of element (0, 0, 0, 0) is one slice in
    assert int(tensor_jit("OUTPUT", lay)["OUTPUT_OFFSET"]) == lay.pitches["f"] == 3 * 4 * 16
    assert lay.pads_blocked_dim and not whole.pads_blocked_dim
    halo = lay.with_(padding=Padding((0, 16, 1, 0), (0, 12, 0, 2)))
    assert halo.without_blocked_padding().padding == Padding((0, 0, 1, 0), (0, 0, 0, 2))
    assert not Layout(F32, Format.bfyx, (2, 20, 3, 4), Padding((0, 1, 0, 0))).pads_blocked_dim  # f is not blocked


def test_upper_feature_padding_rounds_the_last_slice_up():
    lay = Layout(F32, Format.b_fs_yx_fsv16, (1, 16, 2, 2), Padding((0, 0, 0, 0), (0, 2, 0, 0)))
    assert lay.padded_dims == (1, 32, 2, 2)


@pytest.mark.parametrize("lower,upper", [((0, 0, 0), (0, 0, 0, 0)), ((0, 0, 0, 0), (0, -1, 0, 0))])
def test_bad_padding_is_refused(lower, upper):
    with pytest.raises(cl.ShapeError, match="Padding needs 4 non-negative values"):
        Padding(lower, upper)


def test_layout_needs_enum_members():
    with pytest.raises(cl.DTypeError, match="needs a DataType and a Format"):
        Layout(F32, "bfyx", (1, 2))  # type: ignore[arg-type]
    with pytest.raises(cl.DTypeError):
        Layout("f32", Format.bfyx, (1, 2))  # type: ignore[arg-type]


def test_from_numpy_maps_supported_dtypes():
    assert cl.DataType.from_numpy(np.float32) is cl.DataType.f32
    assert cl.DataType.from_numpy(np.dtype("float16")) is cl.DataType.f16
    assert cl.DataType.from_numpy(np.int32) is cl.DataType.i32
    assert cl.DataType.from_numpy(np.uint8) is cl.DataType.u8


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.bool_])
def test_from_numpy_rejects_unsupported_dtypes_clearly(dtype):
    with pytest.raises(cl.DTypeError) as err:
        cl.DataType.from_numpy(dtype)
    msg = str(err.value)
    assert str(np.dtype(dtype)) in msg and "float32" in msg, msg   # names the bad dtype and what is supported


def test_rank5_is_row_major_bfyx_only():
    lay = Layout(F32, Format.bfyx, (2, 3, 4, 5, 6))
    assert lay.dims4 == (2, 3, 4, 30) and lay.buffer_size == 720
    a = np.arange(720, dtype=np.float32).reshape(2, 3, 4, 5, 6)
    np.testing.assert_array_equal(lay.to_physical(a), a.reshape(-1))
    np.testing.assert_array_equal(lay.from_physical(lay.to_physical(a)), a)
    with pytest.raises(cl.ShapeError, match="rank 5 tensors need format bfyx"):
        Layout(F32, Format.b_fs_yx_fsv16, (2, 3, 4, 5, 6))


def test_plain_layout_round_trip_copies_the_input():
    """The plain (unpadded bfyx) fast path: to_physical is a new C-order array (the device copy may run after the
    caller reuses theirs), a non-contiguous or other-dtype input is converted, and a wrong size is refused."""
    import numpy as np
    import pytest

    from cldnn_py.layout import DataType, Format, Layout

    rng = np.random.default_rng(3)
    lay = Layout(DataType.f32, Format.bfyx, (2, 3, 4, 5))
    x = rng.standard_normal((2, 3, 5, 4)).transpose(0, 1, 3, 2)  # float64, not C-contiguous
    phys = lay.to_physical(x)
    assert phys.dtype == np.float32 and phys.shape == (120,) and not np.shares_memory(phys, x)
    np.testing.assert_array_equal(phys, x.astype(np.float32).reshape(-1))
    np.testing.assert_array_equal(lay.from_physical(phys), x.astype(np.float32))
    x32 = x.astype(np.float32)
    assert not np.shares_memory(lay.to_physical(x32), x32)
    with pytest.raises(ValueError):
        lay.to_physical(np.zeros((2, 3, 4, 4), np.float32))
