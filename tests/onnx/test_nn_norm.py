"""BatchNormalization, InstanceNormalization, LayerNormalization and LRN converters vs onnxruntime: every
claimed version, constant and run-time statistics, ranks 2-5, LayerNormalization's axis and its Mean / InvStdDev
outputs, a non-bfyx path, and the refusals (training_mode, spatial=0)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from tests.onnx.nn_util import check, model, randn

pytest.importorskip("onnxruntime")


def _stats(rng, c):
    return {"s": randn(rng, (c,)), "b": randn(rng, (c,)), "mean": randn(rng, (c,)),
            "var": np.abs(randn(rng, (c,))) + np.float32(0.1)}


@pytest.mark.parametrize("opset,shape,const", [(7, (2, 3, 4, 5), True), (9, (3, 4), True),
                                               (14, (2, 3, 5), False), (15, (1, 2, 3, 2, 4), False)], ids=str)
def test_batch_normalization(engine, rng, opset, shape, const):
    st = _stats(rng, shape[1])
    names = ["s", "b", "mean", "var"]
    attrs = {"epsilon": 1e-3}
    if const:
        m = model("BatchNormalization", opset, [("x", shape)] + names, attrs, st)
        feeds = {"x": randn(rng, shape)}
    else:
        m = model("BatchNormalization", opset, [("x", shape)] + [(n, (shape[1],)) for n in names], attrs)
        feeds = {"x": randn(rng, shape)} | st
    check(engine, m, feeds, rtol=1e-4, atol=1e-5)


def test_batch_normalization_non_bfyx(engine, rng):
    st = _stats(rng, 18)
    m = model("BatchNormalization", 15, [("x", (1, 18, 3, 4)), "s", "b", "mean", "var"], {}, st)
    check(engine, m, {"x": randn(rng, (1, 18, 3, 4))}, fmt=cl.Format.b_fs_yx_fsv16, rtol=1e-4, atol=1e-5)


def test_batch_normalization_refusals(rng):
    st = _stats(rng, 3)
    m = model("BatchNormalization", 15, [("x", (2, 3, 4)), "s", "b", "mean", "var"], {"training_mode": 1}, st,
              out_shape=[2, 3, 4])
    with pytest.raises(cl.UnsupportedError, match="training_mode=1"):
        load_onnx(m)
    m = model("BatchNormalization", 7, [("x", (2, 3, 4)), "s", "b", "mean", "var"], {"spatial": 0}, st,
              out_shape=[2, 3, 4])
    with pytest.raises(cl.UnsupportedError, match="spatial=0"):
        load_onnx(m)


@pytest.mark.parametrize("opset,shape,const,fmt", [
    (7, (2, 3, 4, 5), True, None), (22, (2, 3, 7), False, None), (22, (1, 2, 3, 2, 4), True, None),
    (11, (2, 18, 4, 3), True, cl.Format.b_fs_yx_fsv16)], ids=str)
def test_instance_normalization(engine, rng, opset, shape, const, fmt):
    c = shape[1]
    s, b = randn(rng, (c,)), randn(rng, (c,))
    x = randn(rng, shape, 3.0) + np.float32(1.0)
    if const:
        m = model("InstanceNormalization", opset, [("x", shape), "s", "b"], {"epsilon": 1e-3}, {"s": s, "b": b})
        feeds = {"x": x}
    else:
        m = model("InstanceNormalization", opset, [("x", shape), ("s", (c,)), ("b", (c,))])
        feeds = {"x": x, "s": s, "b": b}
    check(engine, m, feeds, fmt=fmt, rtol=1e-4, atol=1e-4)


LAYER = [
    # x shape, axis, scale shape, bias shape (None: omitted), outputs, constant scale/bias
    ((2, 3, 4, 5), -1, (5,), (5,), ("y",), True),
    ((2, 3, 4, 5), 1, (3, 4, 5), (3, 4, 5), ("y", "mean", "inv_std"), False),
    ((2, 3, 4, 5), 2, (1, 5), None, ("y", "", "inv_std"), True),     # broadcast scale, no bias, skip Mean
    ((3, 4), 0, (3, 4), (4,), ("y", "mean"), False),
    ((2, 3, 2, 3, 4), -2, (3, 4), (3, 4), ("y", "mean", "inv_std"), True),   # rank 5
]


@pytest.mark.parametrize("case", LAYER, ids=lambda c: f"{c[0]}-axis{c[1]}-{'-'.join(o for o in c[4] if o)}")
def test_layer_normalization(engine, rng, case):
    shape, axis, ss, bs, outs, const = case
    inputs, inits, feeds = [("x", shape)], {}, {"x": randn(rng, shape, 2.0) - np.float32(0.5)}
    for name, s in (("s", ss), ("b", bs)):
        if s is None:
            continue
        arr = randn(rng, s)
        if const:
            inits[name] = arr
            inputs.append(name)
        else:
            feeds[name] = arr
            inputs.append((name, s))
    m = model("LayerNormalization", 17, inputs, {"axis": axis, "epsilon": 1e-3}, inits, outputs=outs)
    check(engine, m, feeds, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opset,shape,attrs,fmt", [
    (7, (2, 7, 4, 5), {"size": 3}, None),
    (13, (1, 9, 3, 4), {"size": 5, "alpha": 2e-3, "beta": 0.6, "bias": 1.5}, None),
    (13, (1, 18, 3, 4), {"size": 5, "alpha": 1e-2, "beta": 0.9, "bias": 2.0}, cl.Format.byxf),
], ids=str)
def test_lrn(engine, rng, opset, shape, attrs, fmt):
    m = model("LRN", opset, [("x", shape)], attrs)
    check(engine, m, {"x": randn(rng, shape, 2.0)}, fmt=fmt, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape,size", [((1, 9, 3, 4), 4), ((2, 6, 5), 5), ((1, 7, 2, 2, 3), 2)], ids=str)
def test_lrn_even_size_and_other_ranks(engine, rng, shape, size):
    """onnxruntime takes odd sizes and 4-D inputs only (and onnx.reference's LRN loops over the batch instead of
    the channels), so the ONNX spec's formula in float64 is the judge: the window
    [c - floor((size-1)/2), c + ceil((size-1)/2)] is asymmetric for an even size."""
    alpha, beta, bias = 1e-2, 0.7, 1.2
    m = model("LRN", 13, [("x", shape)], {"size": size, "alpha": alpha, "beta": beta, "bias": bias})

    def spec(m, feeds):
        x = feeds["x"].astype(np.float64)
        c = x.shape[1]
        sq = np.stack([(x[:, max(0, i - (size - 1) // 2):min(c, i + -(-(size - 1) // 2) + 1)] ** 2).sum(axis=1)
                       for i in range(c)], axis=1)
        return [x / (bias + alpha / size * sq) ** beta]

    check(engine, m, {"x": randn(rng, shape, 2.0)}, rtol=1e-4, atol=1e-5, reference=spec)
