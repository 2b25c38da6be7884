"""reduce_flat_vec8 (the trailing axes of an unpadded bfyx tensor: the whole tensor to one value, or one value per
row) vs float64 numpy on fresh random data: every mode, ranks 1-6, sizes that are and are not multiples of 8, rows
not 32-byte aligned, NaN propagation of max/min, f16 storage, a padded output; and that the selector prefers it (CPU
tier) over reduce_ref only where it applies."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from kernel_selector import Params, selector
from tests.helpers import typed_attrs
from tests.ocl.padded import run_kernel_padded

K = "reduce_flat_vec8"
NP = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def _params(engine, shape, axes, mode, fmt=cl.Format.bfyx, keep_dims=False):
    prim = cl.Reduce("r", "x", mode=mode, axes=axes, keep_dims=keep_dims)
    lin = cl.Layout(cl.DataType.f32, fmt, shape)
    lout = prim.calc_output_layout([lin])
    return lin, lout, prim


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("shape", [(5,), (3, 7), (1, 16, 9, 13), (2, 3, 4, 5, 6), (1, 2, 3, 2, 3, 5)])
@pytest.mark.parametrize("mode", ["sum", "mean", "max", "min"])
def test_reduce_flat_matches_numpy(ocl_engine, rng, shape, mode):
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    lin, lout, prim = _params(ocl_engine, shape, (), mode)
    out = run_kernel_padded(ocl_engine, "reduce", [lin], lout, prim.attrs(), [x], kernel=K)
    ref = NP[mode](x.astype(np.float64))
    np.testing.assert_allclose(out.reshape(-1)[0], ref, rtol=1e-5, atol=1e-5 * np.abs(x).sum() / x.size)


@pytest.mark.parametrize("shape", [(1, 32, 5, 7), (2, 16, 3, 3), (1, 72, 5, 7), (2, 3, 4, 5)])
@pytest.mark.parametrize("mode", ["sum", "max", "min"])
def test_whole_blocked_tensor_to_one_value(ocl_engine, rng, shape, mode):
    """A b_fs_yx_fsv16 input (a DynamicQuantizeLinear's min / max between blocked convolutions) reduced to one
    value: whole 16-channel slices read as one flat row; with a channel tail (72, 3) the padding lanes, which the
    harness fills with NaN (any read of one would show in max, min and sum), are skipped."""
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    lin, lout, prim = _params(ocl_engine, shape, (), mode, cl.Format.b_fs_yx_fsv16)
    out = run_kernel_padded(ocl_engine, "reduce", [lin], lout, prim.attrs(), [x], kernel=K)
    ref = NP[mode](x.astype(np.float64))
    np.testing.assert_allclose(out.reshape(-1)[0], ref, rtol=1e-5, atol=1e-5 * np.abs(x).sum() / x.size)


@pytest.mark.parametrize("mode", ["max", "min"])
@pytest.mark.parametrize("where", [0, 8, 99])  # in the float8 part (first, later) or the tail
def test_nan_propagates(ocl_engine, rng, mode, where):
    x = rng.standard_normal(100).astype(np.float32)
    x[where] = np.nan
    lin, lout, prim = _params(ocl_engine, (100,), (0,), mode)
    out = run_kernel_padded(ocl_engine, "reduce", [lin], lout, prim.attrs(), [x], kernel=K)
    assert np.isnan(out).all()


def test_half_storage_and_a_padded_output(ocl_engine, rng):
    x = (rng.standard_normal((2, 5, 7)) * 10).astype(np.float16)
    prim = cl.Reduce("r", "x", mode="max", axes=(), keep_dims=True)
    lin = cl.Layout(cl.DataType.f16, cl.Format.bfyx, x.shape)
    lout = prim.calc_output_layout([lin]).with_(dtype=cl.DataType.f32, padding=cl.Padding((0, 0, 1, 0), (0, 0, 2, 1)))
    out = run_kernel_padded(ocl_engine, "reduce", [lin], lout, prim.attrs(), [x], kernel=K)
    assert out.reshape(-1)[0] == x.astype(np.float64).max()


def test_selected_only_where_it_applies(ocl_engine):
    def best(shape, axes, fmt=cl.Format.bfyx, tier="cpu"):
        lin, lout, prim = _params(ocl_engine, shape, axes, "max", fmt)
        p = Params(kind="reduce", engine="ocl", inputs=[lin], output=lout, attrs=typed_attrs("reduce", prim.attrs()),
                   layer_id="r", device=ocl_engine.info, caps=ocl_engine.info.caps, kernel_tier=tier)
        return selector.explain(p)[0].kernel

    assert best((1, 16, 9, 13), ()) == K
    assert best((2, 16, 9, 13), (0, 2, 3)) == "reduce_ref"  # channels kept between reduced axes
    assert best((1, 16, 9, 13), (0, 2, 3)) == K  # ... unless the batch is 1: rows per channel
    assert best((1, 16, 9, 13), (2, 3)) == K  # trailing axes: one row per channel
    assert best((1, 16, 9, 13), (), cl.Format.b_fs_yx_fsv16) == K  # whole slices: every element once, reordered
    assert best((1, 24, 9, 13), (), cl.Format.b_fs_yx_fsv16) == K  # a channel tail: its padding lanes skipped
    assert best((1, 16, 9, 13), (2, 3), cl.Format.b_fs_yx_fsv16) == "reduce_ref"  # rows: not contiguous
    assert best((1, 16, 9, 13), (), tier="gpu") == "reduce_ref"  # one work-item: never on a GPU


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("shape, axes, keep", [((1, 197, 21), (-1,), True), ((2, 3, 4, 5), (2, 3), False),
                                               ((3, 8, 16), (2,), True), ((1, 5, 1, 7), (1, 3), True)],
                         ids=["tokens-21", "two-axes", "aligned-rows", "size-one-axes-between"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max", "min"])
def test_reduce_trailing_rows(ocl_engine, rng, shape, axes, keep, mode):
    """One work-item per row (a LayerNorm's ReduceMean over the last axis): rows of 21 floats are not 32-byte
    aligned; chosen on its own on the CPU tier; poisoned output, float64 reference."""
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, shape)),
                       cl.Reduce("r", "x", mode=mode, axes=axes, keep_dims=keep))
    net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    assert net.program.node("r").impl.kernel_name == K
    net.poison()
    out = net.run({"x": x})["r"]
    ref = NP[mode](x.astype(np.float64), axis=tuple(a % len(shape) for a in axes), keepdims=keep)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
