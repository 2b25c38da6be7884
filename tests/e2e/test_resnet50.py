"""ResNet-50 v1.5 (examples/resnet50.py) on cldnn_py vs the same network as ONNX on onnxruntime, same weights
and input. One inference: with reference kernels it takes seconds."""

from __future__ import annotations

import pytest

from tests.e2e.common import compare_with_onnxruntime, load_example
from tests.e2e.onnx_models import resnet50_onnx


@pytest.mark.network
def test_resnet50_matches_onnxruntime(engine, rng):
    compare_with_onnxruntime(engine, rng, load_example("resnet50"), resnet50_onnx)
