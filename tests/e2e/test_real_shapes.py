"""The real-shapes models (cldnn_py.tools.real_shapes: MobileNetV3-small, a YOLOv8n backbone + neck + head, a
DBNet head, a CRNN text recognizer, a ViT-Tiny-style transformer) on cldnn_py vs onnxruntime, at 64x64 (the CRNN
32x64) and batch 1 so that each case stays short.

Each model is written to tests/.generated/ (git-ignored) with a seed from the test's ``rng``, imported from the
file, built on the engine, run on poisoned buffers with an N(0, 1) input, and its output compared with
onnxruntime's (2 threads): max|ours - ort| / max|ort| <= 1e-4. For MobileNetV3 the pre-softmax logits are compared
too (requested as an extra output on both sides), since the softmax of 1000 small logits is nearly flat.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import cldnn_py as cl
from cldnn_py.tools import real_shapes, zoo
from tests.e2e.onnx_models import ort_session

RTOL = 1e-4
SIZE = 64


def _rel(ours: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(ours.astype(np.float64) - ref).max() / np.abs(ref).max())


# Built with PoCL's optimizer off (-cl-opt-disable, tests/conftest.py), as four of the zoo networks are: their build
# is half the time (20 s and 12 s optimized, most of it compiling); the other three build optimized, as users do.
UNOPTIMIZED = ("yolo_neck", "vit_tiny")


@pytest.mark.network
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.unoptimized_build] if n in UNOPTIMIZED else [])
                                  for n in real_shapes.MODELS])
def test_real_shapes_model_matches_onnxruntime(engine, rng, generated_dir, name):
    seed = int(rng.integers(1000))
    path = real_shapes.save(name, generated_dir, seed=seed, batch=1, size=SIZE)
    inp, logits = real_shapes.input_name(name), real_shapes.logits_name(name)
    x = rng.standard_normal(real_shapes.input_shape(name, 1, SIZE)).astype(np.float32)
    outputs = sorted({"output", logits})

    net = cl.Network(engine, cl.load_onnx(str(path)), cl.BuildOptions(outputs=outputs))
    net.poison()
    ours = net.run({inp: x})
    sess = ort_session(zoo.with_outputs(onnx.load(str(path)), outputs))
    ref = dict(zip(outputs, sess.run(outputs, {inp: x}), strict=True))

    for out in outputs:
        assert ours[out].shape == ref[out].shape, out
        assert np.isfinite(ours[out]).all(), f"{name} {out}: NaN/inf in our output (unwritten poison?)"
        err = _rel(ours[out], ref[out])
        print(f"{name} {out}: max rel error {err:.2e}")
        assert err <= RTOL, f"{name} {out}: relative error {err:.3g} > {RTOL:g}"


def test_model_shapes_and_names():
    """Shapes, names and determinism without a device."""
    assert real_shapes.MODELS == ("mobilenet_v3", "yolo_neck", "dbnet_head", "crnn", "vit_tiny")
    expected = {"mobilenet_v3": (2, 1000), "yolo_neck": (2, 144, 84), "dbnet_head": (2, 1, 64, 64),
                "crnn": (16, 2, 97), "vit_tiny": (2, 1000)}
    for name in real_shapes.MODELS:
        m = real_shapes.make_model(name, seed=1, batch=2, size=SIZE)
        assert m.ir_version == real_shapes.IR_VERSION and m.opset_import[0].version == 13
        assert [i.name for i in m.graph.input] == ["input"] and [o.name for o in m.graph.output] == ["output"]
        dims = tuple(d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim)
        assert dims == expected[name], name
        height = real_shapes.CRNN_HEIGHT if name == "crnn" else real_shapes.default_size(name)
        assert real_shapes.input_shape(name, 2) == (2, 3, height, real_shapes.default_size(name))
        again = real_shapes.make_model(name, seed=1, batch=2, size=SIZE)
        assert again.SerializeToString() == m.SerializeToString()
    with pytest.raises(ValueError, match="unknown real-shapes model"):
        real_shapes.make_model("lenet")
    with pytest.raises(ValueError, match="multiple of 32"):
        real_shapes.make_model("dbnet_head", size=100)
