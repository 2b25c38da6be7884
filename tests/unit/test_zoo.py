"""cldnn_py.tools.zoo without a device: the light graphs become ordinary, seeded, batchable ONNX models."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from cldnn_py.tools import zoo


def test_models_and_sources():
    assert zoo.MODELS == ("alexnet", "resnet50", "vgg19", "googlenet", "inception_v2", "squeezenet",
                          "densenet121", "shufflenet", "zfnet512")
    for name in zoo.MODELS:
        assert zoo.source_path(name).is_file()
        assert zoo.input_shape(name, 3) == (3, 3, 224, 224)
    assert zoo.input_name("resnet50") == "gpu_0/data_0"
    assert zoo.logits_name("densenet121") == "fc6_1"  # ends without a Softmax
    with pytest.raises(ValueError, match="unknown zoo model 'lenet'"):
        zoo.make_model("lenet")
    with pytest.raises(ValueError, match="batch"):
        zoo.make_model("squeezenet", batch=0)


@pytest.mark.parametrize("name", ["shufflenet", "densenet121"])
def test_ordinary_model(name):
    m = zoo.make_model(name, seed=3, batch=2)  # checker (full) runs inside
    g = m.graph
    assert [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] == [9]
    assert not [n for n in g.node if n.op_type == "ConstantOfShape"]
    assert [i.name for i in g.input] == [zoo.input_name(name)]
    assert [d.dim_value for d in g.input[0].type.tensor_type.shape.dim] == [2, 3, 224, 224]
    used = {t for n in g.node for t in n.input}
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    assert set(inits) <= used and not [t for t in inits if t.endswith("__SHAPE")]
    floats = [v for v in inits.values() if v.dtype == np.float32]
    assert all(np.isfinite(v).all() for v in floats)
    assert len({float(v.flat[0]) for v in floats if v.size > 8}) > 10  # random, not the constant 0.02
    # the batch reaches constant Reshape targets of activations (ShuffleNet's channel shuffle)
    for n in g.node:
        if n.op_type == "Reshape" and n.input[1] in inits:
            assert inits[n.input[1]][0] == 2
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    assert [d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim][0] == 2


def test_seed_decides_weights_batch_does_not():
    def weights(seed, batch):
        m = zoo.make_model("squeezenet", seed=seed, batch=batch, check=False)
        return {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}

    a, b, c = weights(0, 1), weights(0, 4), weights(1, 1)
    assert a.keys() == b.keys() == c.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)


def test_weight_statistics():
    """He-normal convolution weights, BatchNorm variance in [0.5, 1.5], residual BN scale reduced."""
    m = zoo.make_model("resnet50", seed=0, check=False)
    w = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    conv = w["gpu_0/res3_0_branch2b_w_0"]  # 128 x 128 x 3 x 3
    assert abs(conv.std() / np.sqrt(2.0 / (128 * 9)) - 1) < 0.02
    var = w["gpu_0/res3_0_branch2b_bn_riv_0"]
    assert var.min() >= 0.5 and var.max() <= 1.5
    assert 0.5 <= w["gpu_0/res3_0_branch2b_bn_s_0"].min() and w["gpu_0/res3_0_branch2b_bn_s_0"].max() <= 1.0
    # branch2c ends the residual branch: scaled down; branch1 (projection shortcut) is not
    assert w["gpu_0/res3_0_branch2c_bn_s_0"].max() <= zoo.RESIDUAL_SCALE
    assert w["gpu_0/res3_0_branch1_bn_s_0"].min() >= 0.5


def test_main_writes_files(tmp_path, capsys):
    assert zoo.main(["--out", str(tmp_path), "--models", "squeezenet", "--batch", "2", "--seed", "5"]) == 0
    path = tmp_path / "squeezenet_b2_s5.onnx"
    assert path.is_file() and str(path) in capsys.readouterr().out
    onnx.checker.check_model(str(path))
