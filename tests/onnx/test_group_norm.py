"""GroupNormalization vs onnxruntime: version 18 (per-group scale/bias) and 21 (per-channel), ranks 2-5, groups of
one channel and one group of all channels, scale/bias as initializers and as graph inputs, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import cldnn_py as cl
from cldnn_py.errors import ShapeError
from tests.onnx.ort_compare import build, compare, declare, randf32


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("as_inputs", [False, True])
@pytest.mark.parametrize("opset", [18, 21])
@pytest.mark.parametrize("shape,groups,eps", [((2, 6, 3, 4), 3, 1e-5), ((1, 4, 5), 2, 1e-2), ((2, 4), 4, 1e-5),
                                              ((1, 6, 2, 3, 2), 1, 1e-3), ((3, 8, 2, 2), 2, 0.5)])
def test_group_normalization(engine, rng, opset, shape, groups, eps, as_inputs):
    x = randf32(rng, *shape) * 3 + 1
    n = shape[1] if opset >= 21 else groups
    scale, bias = randf32(rng, n), randf32(rng, n)
    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=groups, epsilon=eps)
    feeds = {"x": x, "s": scale, "b": bias} if as_inputs else {"x": x}
    m = build([node], feeds, {} if as_inputs else {"s": scale, "b": bias}, ["y"], opset)
    compare(engine, m, feeds, atol=1e-4)


@pytest.mark.parametrize("opset,groups,n,match", [(21, 4, 6, "num_groups dividing the 6 channels: got 4"),
                                                  (21, 2, 2, r"scale shape: expected \(6,\).*got \(2,\)"),
                                                  (18, 2, 6, r"scale shape: expected \(2,\).*got \(6,\)")])
def test_group_normalization_errors(opset, groups, n, match):
    x = np.zeros((1, 6, 2, 2), np.float32)
    m = build([helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=groups, name="gn")],
              {"x": x}, {"s": np.ones(n, np.float32), "b": np.zeros(n, np.float32)}, ["y"], opset)
    with pytest.raises(ShapeError, match=f"GroupNormalization 'gn': {match}"):
        cl.load_onnx(declare(m, [x]))
