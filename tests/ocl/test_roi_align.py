"""roi_align vs the float64 reference (tests/references.py, ONNX RoiAlign): random RoIs (partly outside the image,
reversed, tiny), sampling ratios 0-3, avg and max, half_pixel and output_half_pixel, channel counts that are not a
multiple of 16, bfyx / byxf / b_fs_yx_fsv16 feature maps, rois fed at run time or constant, padded buffers, batch
indices outside the batch (zeros), degenerate and NaN RoIs (zeros, no read outside), f16 storage, and a Program
build that refuses mismatched batch indices naming the primitive (the shape and constructor errors are in
tests/unit/test_primitives.py)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, run_topology
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded
from tests.references import roi_align_ref

F32, F16, I32 = cl.DataType.f32, cl.DataType.f16, cl.DataType.i32
BFYX, BYXF, FSV16 = cl.Format.bfyx, cl.Format.byxf, cl.Format.b_fs_yx_fsv16


def random_rois(rng, n_rois, h, w, scale):
    """(n_rois, 4) float32 [x1, y1, x2, y2] in image coordinates (feature map / scale): corners from 30% before the
    map to its far edge, sizes from slightly negative (reversed) to 90% of the map, so many reach past the border."""
    lo = rng.uniform(-0.3, 1.0, (n_rois, 2)) * (w, h) / scale
    size = rng.uniform(-0.1, 0.9, (n_rois, 2)) * (w, h) / scale
    return np.concatenate([lo, lo + size], axis=1).astype(np.float32)


def run_roi_align(engine, prim, x, rois, batch, fmt=BFYX, const_rois=False):
    """The primitive on x (reordered to ``fmt``), rois (a run-time input, or Data with ``const_rois``) and batch
    indices (Data), outputs poisoned before the run."""
    topo = cl.Topology(cl.InputLayout("x_host", cl.Layout(F32, BFYX, x.shape)), cl.Reorder(prim.input, "x_host", fmt))
    feeds = {"x_host": x}
    if const_rois:
        topo.add(cl.Data(prim.rois, rois))
    else:
        topo.add(cl.InputLayout(prim.rois, cl.Layout(F32, BFYX, rois.shape)))
        feeds[prim.rois] = rois
    topo.add(cl.Data(prim.batch_indices, batch), prim)
    return run_topology(engine, topo, feeds)[prim.id]


CASES = [
    # x shape, rois, out (h, w), sampling_ratio, spatial_scale, mode, coordinate mode, format
    ((2, 5, 8, 9), 7, (3, 2), 2, 0.5, "avg", "half_pixel", BFYX),
    ((2, 5, 8, 9), 7, (3, 2), 0, 0.5, "avg", "output_half_pixel", BYXF),
    ((1, 19, 6, 7), 5, (2, 3), 0, 1.0, "max", "half_pixel", FSV16),
    ((3, 3, 7, 5), 6, (4, 4), 3, 0.25, "max", "output_half_pixel", BFYX),
    ((2, 17, 5, 6), 4, (1, 1), 1, 1.0, "avg", "half_pixel", FSV16),
    ((1, 2, 9, 4), 5, (2, 5), 0, 0.0625, "max", "output_half_pixel", BYXF),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-r{c[1]}-{c[2]}-s{c[3]}-{c[5]}-{c[6]}-{c[7].value}")
def test_roi_align_matches_reference(engine, rng, case):
    shape, n_rois, (oh, ow), sr, scale, mode, ctm, fmt = case
    x = rng.standard_normal(shape).astype(np.float32)
    rois = random_rois(rng, n_rois, shape[2], shape[3], scale)
    batch = rng.integers(0, shape[0], n_rois).astype(np.int32)
    prim = cl.RoiAlign("ra", "x", "rois", "bi", output_height=oh, output_width=ow, sampling_ratio=sr,
                       spatial_scale=scale, mode=mode, coordinate_transformation_mode=ctm)
    out = run_roi_align(engine, prim, x, rois, batch, fmt, const_rois=sr == 3)
    assert_close(out, roi_align_ref(x, rois, batch, oh, ow, sr, scale, mode, ctm))


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_edge_rois(engine, rng, mode):
    """A batch index outside [0, N) gives zeros (both sides); a zero-size or reversed RoI with adaptive sampling has
    no samples (zeros) in half_pixel; NaN and infinite corners give zeros; an RoI entirely outside the map, and one
    hugging the last row and column (the border clamp)."""
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    rois = np.array([[1, 1, 4, 3], [0, 0, 5, 5], [2, 2, 2, 2], [4, 3, 1, 1], [np.nan, 0, 3, 3], [0, 0, np.inf, 3],
                     [20, 20, 30, 30], [4.6, 3.7, 6.9, 5.9], [-2.5, -1.8, 1.2, 0.4]], np.float32)
    batch = np.array([-1, 2, 0, 1, 0, 1, 0, 1, 0], np.int32)
    for ctm in ("half_pixel", "output_half_pixel"):
        prim = cl.RoiAlign("ra", "x", "rois", "bi", output_height=2, output_width=3, sampling_ratio=0, mode=mode,
                           coordinate_transformation_mode=ctm)
        out = run_roi_align(engine, prim, x, rois, batch)
        ref = roi_align_ref(x, rois, batch, 2, 3, 0, 1.0, mode, ctm)
        assert_close(out, ref)
        assert (out[:2] == 0).all() and (out[4:7] == 0).all()
        if ctm == "half_pixel":
            assert (out[2:4] == 0).all()


def test_roi_align_padded_buffers(engine, rng):
    """Padded blocked feature map, padded rois and batch indices, padded byxf output: reads and writes go through
    GET_INDEX only (padded.py fills the inputs' padding with NaN / INT_MAX and checks the output's survives)."""
    x = rng.standard_normal((2, 19, 5, 6)).astype(np.float32)
    rois = random_rois(rng, 3, 5, 6, 0.5)
    batch = np.array([1, 0, 1], np.int32)
    prim = cl.RoiAlign("ra", "x", "rois", "bi", output_height=3, output_width=2, sampling_ratio=2, spatial_scale=0.5)
    lays = [cl.Layout(F32, FSV16, x.shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2))),
            cl.Layout(F32, BFYX, rois.shape, cl.Padding((1, 1, 0, 0), (0, 2, 0, 0))),
            cl.Layout(I32, BFYX, batch.shape, cl.Padding((2, 0, 0, 0), (1, 0, 0, 0)))]
    lout = prim.calc_output_layout(lays).with_(format=BYXF, padding=cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    out = run_kernel_padded(engine, "roi_align", lays, lout, prim.attrs(), [x, rois, batch])
    assert_close(out, roi_align_ref(x, rois, batch, 3, 2, 2, 0.5))


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_half(ocl_engine, rng, mode):
    """f16 storage of the feature map, the rois and the output (computed in float): within half rounding of the
    float64 reference of the half values."""
    x = rng.standard_normal((1, 18, 6, 7)).astype(np.float32)
    rois = random_rois(rng, 4, 6, 7, 0.5)
    batch = np.zeros(4, np.int32)
    prim = cl.RoiAlign("ra", "x", "rois", "bi", output_height=2, output_width=3, sampling_ratio=0, spatial_scale=0.5,
                       mode=mode)
    lays = [cl.Layout(F32, FSV16, x.shape, cl.Padding((0, 0, 1, 0), (0, 0, 0, 1))), cl.Layout(F32, BFYX, rois.shape),
            cl.Layout(I32, BFYX, batch.shape)]
    out, (xv, rv, _) = run_kernel_half(ocl_engine, "roi_align", lays, prim.calc_output_layout(lays), prim.attrs(),
                                       [x, rois, batch], kernel="roi_align_ref")
    assert out.dtype == np.float16
    assert_half_close(out, roi_align_ref(xv, rv, batch, 2, 3, 0, 0.5, mode))


def test_roi_align_bad_input_at_build(engine):
    """Through the public API: the Program build refuses mismatched batch indices, naming the primitive."""
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, (1, 3, 4, 4))),
                       cl.InputLayout("rois", cl.Layout(F32, BFYX, (3, 4))),
                       cl.Data("bi", np.zeros(2, np.int32)), cl.RoiAlign("ra", "x", "rois", "bi"))
    with pytest.raises(cl.ShapeError, match=r"roi_align 'ra': batch_indices 'bi' shape: expected \(3,\)"):
        cl.Program(engine, topo)
