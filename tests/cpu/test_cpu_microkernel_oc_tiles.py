"""The channel-vector micro-kernel (kernel_selector/common/cpu_microkernel_oc.py) called directly, one tile at a time,
in the tile shapes the engine builds: 7 pixels × 32 channels (two weight panels, AVX-512: its 7-pixel rows stored
as masked 8-lane vectors), 7 × 16 (the last panel of an odd count), 4 × 16 in 8-float vectors (AVX2; LLVM runs it on
this host too). Each tile is checked against a float64 product on NaN-poisoned output rows that are longer than the
tile, so a lane written past the tile's pixels or a row past ``oc_hi`` shows as a changed NaN."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from tests.helpers import f32

SHAPES = [(7, 2, 16), (7, 1, 16), (4, 2, 8)]  # (pixels, vectors, lanes)


def _kernel(mr: int, nv: int, w: int):
    from kernel_selector.common import cpu_microkernel_oc as mo

    micro = mo.make_micro_kernel_oc(mr, nv, w)

    @numba.njit
    def tile(x, x_off, sak, npx, wt, w_off, k, c, c_off, ldc, oc_lo, oc_hi, bias, res, r_off, ldr, clamp,
             flags):  # pragma: no cover - numba
        micro(x, x_off, sak, npx, wt, w_off, k, c, c_off, ldc, oc_lo, oc_hi, bias, 0, res, r_off, ldr, clamp, flags)

    return tile


@pytest.mark.parametrize("mr,nv,w", SHAPES, ids=[f"{m}px-{v}x{w}" for m, v, w in SHAPES])
@pytest.mark.parametrize("npx,rows", [("whole", "all"), ("edge", "all"), ("whole", "some")])
def test_one_tile_matches_float64_and_writes_only_its_cells(rng, mr, nv, w, npx, rows):
    """Bias, a residual and relu (flags 2: the clamp after the residual, to [0, inf)) on one tile of K = 37 over
    os_iyx_osv16 panels (a tile of more than 16 channels reads the next panel, K · 16 floats on); an edge tile has
    fewer pixels than the tile, ``rows`` "some" stores only rows 3 .. 2/3 of the tile. Every other cell of the
    NaN-poisoned output, the next pixels of each row included, stays NaN."""
    tile = _kernel(mr, nv, w)
    k, tc = 37, nv * w
    n_panels = -(-tc // 16)
    ldx, ldc = 50, 23  # input row pitch; output row pitch (longer than the tile: the lanes past it are checked)
    n = mr if npx == "whole" else mr - 2
    lo, hi = (0, tc) if rows == "all" else (3, 2 * tc // 3)
    x = f32(rng.standard_normal(k * ldx + 8))
    wts = f32(rng.standard_normal((n_panels * 16, k)))  # output channel, input channel
    wp = wts.reshape(n_panels, 16, k).transpose(0, 2, 1).copy().ravel()  # os_iyx_osv16 panels
    bias = f32(rng.standard_normal(n_panels * 16))
    res = f32(rng.standard_normal(tc * ldc + 16))
    clamp = np.zeros(16, np.float32)
    clamp[3] = np.inf  # flags 2: the clamp after the residual, to [0, inf): relu
    x_off, c_off = 5, 2
    c = np.full(tc * ldc + 16, np.nan, np.float32)
    tile(x, x_off, ldx, n, wp, 0, k, c, c_off, ldc, lo, hi, bias, res, c_off, ldc, clamp, 2)
    xs = x.astype(np.float64)[x_off:x_off + k * ldx].reshape(k, ldx)[:, :n]
    want = np.full_like(c, np.nan, dtype=np.float64)
    for j in range(lo, hi):
        o = c_off + j * ldc
        want[o:o + n] = np.maximum(wts[j].astype(np.float64) @ xs + bias[j] + res[o:o + n], 0)
    assert np.array_equal(np.isnan(c), np.isnan(want)), "cells outside the tile written, or tile cells not written"
    ok = ~np.isnan(want)
    np.testing.assert_allclose(c[ok], want[ok], rtol=1e-5, atol=1e-5)


def test_row_lanes_pads_odd_rows_only_with_wide_vectors():
    """row_lanes: 7 pixels take an 8-lane vector with 16-float vectors (one masked store), stay 7 with 8-float ones;
    powers of two are kept."""
    from kernel_selector.common.cpu_microkernel_oc import row_lanes

    assert row_lanes(7, 16) == 8 and row_lanes(5, 16) == 8 and row_lanes(8, 16) == 8 and row_lanes(4, 16) == 4
    assert row_lanes(7, 8) == 7 and row_lanes(3, 8) == 3


def test_tile_shape_check_refuses_straddling_vectors():
    """A tile whose vectors neither divide a 16-row panel nor make whole panels (3 × 8 = 24 channels), or whose
    pixels exceed a vector, is refused at construction."""
    from kernel_selector.common.cpu_microkernel_oc import make_micro_kernel_oc

    with pytest.raises(ValueError, match="weight panel"):
        make_micro_kernel_oc(4, 3, 8)
    with pytest.raises(ValueError, match="fit one vector"):
        make_micro_kernel_oc(9, 1, 8)
