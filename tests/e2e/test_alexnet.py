"""AlexNet (examples/alexnet.py) on cldnn_py vs the same network as ONNX on onnxruntime, same weights and input."""

from __future__ import annotations

import pytest

from tests.e2e.common import compare_with_onnxruntime, load_example
from tests.e2e.onnx_models import alexnet_onnx


@pytest.mark.network
def test_alexnet_matches_onnxruntime(engine, rng):
    compare_with_onnxruntime(engine, rng, load_example("alexnet"), alexnet_onnx)
