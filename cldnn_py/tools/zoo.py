"""The model zoo: the nine real network graphs the ``onnx`` wheel ships, turned into ordinary models.

``onnx/backend/test/data/light/`` holds real ImageNet graphs (AlexNet, ResNet-50, VGG-19, GoogLeNet, Inception-v2,
SqueezeNet, DenseNet-121, ShuffleNet, ZFNet-512; opset 9, IR version 3) whose weights the graph itself makes with
``ConstantOfShape`` (every weight is the constant 0.02, the "light" trick that keeps the files small). A network
with constant weights computes nothing worth comparing, so ``make_model`` rewrites each graph into an ordinary model:

* every float parameter (a ``ConstantOfShape`` output or a float initializer, including the few real tensors the
  light files keep) becomes an initializer with seeded random values chosen by the role of its consumer:
  convolution and Gemm weights He-normal (std sqrt(2 / fan_in), He et al. 2015), biases N(0, 0.02);
  BatchNormalization scale U(0.5, 1), bias N(0, 0.05), mean N(0, 0.05), variance U(0.5, 1.5); the Caffe "Scale"
  layers the graphs express as Unsqueeze → Mul / Add get U(0.5, 1) / N(0, 0.05), and the BN before such a layer
  gets scale 1 and bias 0 (Caffe's BN has no affine part). The last BatchNormalization of a residual branch (a BN
  that feeds a Sum/Add of activations, the deeper one when both inputs are BNs) has its scale multiplied by
  ``RESIDUAL_SCALE`` so that ResNet and ShuffleNet activations do not grow block after block. The classifier (the
  last Conv/Gemm) is multiplied by a per-model ``CLASSIFIER_GAIN`` that brings the logits std near 1.
  The role is found by following the tensor through Reshape / Unsqueeze to the op that consumes it; a parameter
  of any other role raises ``ValueError``. The values depend on ``seed`` only, not on ``batch``.
* the ``__SHAPE`` initializers and the ``ConstantOfShape`` nodes go, unused initializers go (two Caffe2 graphs
  keep a data-queue blob), and the graph has a single input: the image, (batch, 3, 224, 224) float32.
* ``batch`` > 1: the graph input and outputs get the batch dimension, and every Reshape of an activation whose
  target shape is a constant starting with 1 (the batch of the original graphs: flatten before the classifier,
  ShuffleNet's channel shuffle) gets ``batch`` as its first dimension.
* IR version 10 (IR 3 would require every initializer to be listed as a graph input; onnxruntime 1.31 reads at
  most IR 13), opset 9 as in the originals. The model passes ``onnx.checker.check_model(full_check=True)``.

With these statistics the pre-softmax logits of an N(0, 1) input have a standard deviation between 0.7 and 1.6
for every model and seeds 0-2, with intermediate activations of RMS 0.05-10 (``python -m cldnn_py.tools.zoo
--check`` prints the logits statistics, with onnxruntime).

API: ``MODELS``, ``make_model(name, seed=0, batch=1)``, ``input_name(name)``, ``input_shape(name, batch=1)``,
``logits_name(name)``, ``with_outputs(model, names)``, ``save(name, out_dir, seed, batch)``; command line:
``python -m cldnn_py.tools.zoo --out DIR [--models ...] [--seed S] [--batch N] [--check]``. Uses onnx and numpy only
(onnxruntime only for ``--check``).
"""

from __future__ import annotations

import argparse
import functools
import os
import pathlib
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

# short name → file stem under onnx/backend/test/data/light/
SOURCES: dict[str, str] = {
    "alexnet": "light_bvlc_alexnet",
    "resnet50": "light_resnet50",
    "vgg19": "light_vgg19",
    "googlenet": "light_inception_v1",
    "inception_v2": "light_inception_v2",
    "squeezenet": "light_squeezenet",
    "densenet121": "light_densenet121",
    "shufflenet": "light_shufflenet",
    "zfnet512": "light_zfnet512",
}
MODELS: tuple[str, ...] = tuple(SOURCES)

IR_VERSION = 10
# Gain of the classifier (the last Conv/Gemm: weight and bias) per model, measured once over seeds 0-2 on N(0,1)
# inputs so that the logits std is about 1; without it the std ranges from 0.13 (GoogLeNet, Inception-v2,
# DenseNet: their activations shrink through pooling and BN) to 6 (AlexNet, VGG-19). The ops after the classifier
# (Relu, GlobalAveragePool, Reshape) are positively homogeneous, so the logits scale by exactly this factor.
CLASSIFIER_GAIN: dict[str, float] = {
    "alexnet": 0.2, "resnet50": 1.0, "vgg19": 0.25, "googlenet": 6.0, "inception_v2": 6.0, "squeezenet": 0.5,
    "densenet121": 4.0, "shufflenet": 0.7, "zfnet512": 0.5,
}
RESIDUAL_SCALE = 0.2  # scale factor of the last BatchNormalization of a residual branch
_PASS_THROUGH = ("Reshape", "Unsqueeze")  # a weight reaches its consumer through these (folded at import)


def light_dir() -> pathlib.Path:
    """The folder of the light models inside the installed ``onnx`` wheel."""
    import onnx

    return pathlib.Path(os.path.dirname(onnx.__file__)) / "backend" / "test" / "data" / "light"


def source_path(name: str) -> pathlib.Path:
    """Path of the original light model of ``name`` (one of ``MODELS``). Raises ValueError for an unknown name."""
    if name not in SOURCES:
        raise ValueError(f"unknown zoo model {name!r}; known: {', '.join(MODELS)}")
    return light_dir() / f"{SOURCES[name]}.onnx"


@functools.cache
def _source(name: str) -> Any:
    import onnx

    return onnx.load(str(source_path(name)))


def _image_input(model: Any) -> Any:
    inits = {t.name for t in model.graph.initializer}
    images = [i for i in model.graph.input if i.name not in inits]
    if len(images) != 1:
        raise ValueError(f"{model.graph.name}: expected one non-initializer input, found {[i.name for i in images]}")
    return images[0]


def input_name(name: str) -> str:
    """Name of the image input of zoo model ``name`` (e.g. ``"data_0"``, ``"gpu_0/data_0"``)."""
    return _image_input(_source(name)).name


def input_shape(name: str, batch: int = 1) -> tuple[int, ...]:
    """Shape of the image input of zoo model ``name`` at ``batch``: (batch, 3, 224, 224)."""
    dims = [d.dim_value for d in _image_input(_source(name)).type.tensor_type.shape.dim]
    return (batch, *dims[1:])


def logits_name(name: str) -> str:
    """The pre-softmax logits of zoo model ``name``: the input of the Softmax that makes the graph output, or the
    graph output itself when the graph ends without a Softmax (DenseNet-121 ends with its classifier conv)."""
    g = _source(name).graph
    out = g.output[0].name
    for node in g.node:
        if node.op_type == "Softmax" and node.output[0] == out:
            return node.input[0]
    return out


def with_outputs(model: Any, names: Iterable[str]) -> Any:
    """A copy of ``model`` with the tensors ``names`` added to the graph outputs (float32, shape left to the
    runtime), e.g. to ask onnxruntime for the logits beside the probabilities."""
    import onnx
    from onnx import TensorProto, helper

    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, None))
    return m


# ---------------------------------------------------------------------------------------------------------------
# graph analysis


def _consumers(graph: Any) -> dict[str, list[tuple[Any, int]]]:
    out: dict[str, list[tuple[Any, int]]] = {}
    for node in graph.node:
        for k, t in enumerate(node.input):
            if t:
                out.setdefault(t, []).append((node, k))
    return out


def _attr(node: Any, key: str, default: Any) -> Any:
    from onnx import helper

    for a in node.attribute:
        if a.name == key:
            return helper.get_attribute_value(a)
    return default


def _roles(graph: Any, params: dict[str, tuple[int, ...]], consumers: dict[str, list[tuple[Any, int]]]
           ) -> dict[str, tuple[str, Any]]:
    """{param: (role, consumer node)}: the op that finally consumes each parameter (through Reshape/Unsqueeze)."""
    table = {("Conv", 1): "conv_w", ("Conv", 2): "bias", ("Gemm", 1): "gemm_w", ("Gemm", 2): "bias",
             ("BatchNormalization", 1): "bn_scale", ("BatchNormalization", 2): "bn_bias",
             ("BatchNormalization", 3): "bn_mean", ("BatchNormalization", 4): "bn_var",
             ("Mul", 0): "scale", ("Mul", 1): "scale", ("Add", 0): "shift", ("Add", 1): "shift"}
    roles: dict[str, tuple[str, Any]] = {}
    for p in params:
        t, found = p, set()
        frontier = [t]
        while frontier:
            t = frontier.pop()
            for node, k in consumers.get(t, []):
                if node.op_type in _PASS_THROUGH and k == 0:
                    frontier.append(node.output[0])
                elif (node.op_type, k) in table:
                    found.add((table[node.op_type, k], node.name or node.output[0]))
                    roles[p] = (table[node.op_type, k], node)
                else:
                    raise ValueError(f"{graph.name}: parameter {p!r} is input {k} of {node.op_type} "
                                     f"'{node.name or node.output[0]}', a role the zoo does not know")
        if len(found) > 1:
            raise ValueError(f"{graph.name}: parameter {p!r} has several roles: {sorted(found)}")
    return roles


def _residual_bns(graph: Any, const: set[str]) -> set[str]:
    """Names of the BatchNormalization nodes that end a residual branch: a BN feeding a Sum/Add of activations;
    when both summands are BN outputs (a projection shortcut), the one farther from the graph input."""
    depth: dict[str, int] = {}
    producer: dict[str, Any] = {}
    for node in graph.node:
        d = 1 + max((depth.get(t, 0) for t in node.input if t and t not in const), default=0)
        for o in node.output:
            depth[o] = d
            producer[o] = node
    out: set[str] = set()
    for node in graph.node:
        if node.op_type not in ("Sum", "Add"):
            continue
        acts = [t for t in node.input if t and t not in const]
        if len(acts) < 2:
            continue
        bns = [t for t in acts if t in producer and producer[t].op_type == "BatchNormalization"]
        if bns:
            out.add(producer[max(bns, key=lambda t: depth[t])].output[0])
    return out


def _caffe_bns(graph: Any, const: set[str], consumers: dict[str, list[tuple[Any, int]]]) -> set[str]:
    """Outputs of the BatchNormalization nodes followed by a Caffe "Scale" layer (a Mul by a constant): in Caffe
    the BN has no affine part (scale 1, bias 0; the light files keep exactly these values where they keep real
    tensors) and the Scale layer carries it."""
    out = set()
    for node in graph.node:
        if node.op_type != "BatchNormalization":
            continue
        users = consumers.get(node.output[0], [])
        if len(users) == 1 and users[0][0].op_type == "Mul" and any(t in const for t in users[0][0].input):
            out.add(node.output[0])
    return out


# ---------------------------------------------------------------------------------------------------------------
# the rewrite


def _generate(role: str, shape: tuple[int, ...], node: Any, rng: np.random.Generator, residual: bool
              ) -> np.ndarray:
    size = int(np.prod(shape)) if shape else 1
    if role == "conv_w":
        fan_in = size // shape[0]
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in))
    if role == "gemm_w":
        fan_in = size // shape[0] if _attr(node, "transB", 0) else shape[0]
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in))
    if role == "bias":
        return rng.normal(0.0, 0.02, shape).astype(np.float32)
    if role in ("bn_bias", "bn_mean", "shift"):
        return rng.normal(0.0, 0.05, shape).astype(np.float32)
    if role in ("bn_scale", "scale"):
        v = rng.uniform(0.5, 1.0, shape)
        return (v * RESIDUAL_SCALE if residual else v).astype(np.float32)
    if role == "bn_var":
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)
    raise AssertionError(role)


def make_model(name: str, seed: int = 0, batch: int = 1, check: bool = True) -> Any:
    """Zoo model ``name`` (one of ``MODELS``) as an ordinary opset-9 ONNX model with seeded random weights.

    Args:
        name: short model name, e.g. ``"resnet50"``.
        seed: seed of the weights (the same seed gives the same weights at every batch).
        batch: batch size of the image input (and of the batch dimension of constant Reshape targets).
        check: run ``onnx.checker.check_model(full_check=True)`` on the result (about 4 s for VGG-19's 575 MB;
            callers that check the model again anyway, such as ``load_onnx``, may pass False).
    Returns:
        An ``onnx.ModelProto`` (IR version 10) with one input ``input_name(name)`` of shape
        ``input_shape(name, batch)``, the original graph outputs, and every weight as an initializer.
    Raises:
        ValueError: unknown name, batch < 1, or a parameter whose role the zoo does not know.
    """
    import onnx
    from onnx import helper, numpy_helper

    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    src = _source(name)
    m = onnx.ModelProto()
    m.CopyFrom(src)
    g = m.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}

    # Parameters: ConstantOfShape outputs (shape from their __SHAPE initializer) and float initializers.
    params: dict[str, tuple[int, ...]] = {}
    cos_nodes = []
    for node in g.node:
        if node.op_type == "ConstantOfShape":
            if node.input[0] not in inits:
                raise ValueError(f"{g.name}: ConstantOfShape '{node.output[0]}' has a non-constant shape")
            params[node.output[0]] = tuple(int(d) for d in inits[node.input[0]])
            cos_nodes.append(node)
    for t, v in inits.items():
        if v.dtype == np.float32:
            params[t] = v.shape
    consumers = _consumers(g)
    params = {p: s for p, s in params.items() if p in consumers}  # unused initializers go below

    const = set(inits) | set(params)
    for node in g.node:  # constant-derived tensors (e.g. Unsqueeze / Reshape of a weight)
        if all((not t) or t in const for t in node.input):
            const.update(node.output)
    roles = _roles(g, params, consumers)
    residual = _residual_bns(g, const)
    caffe_bn = _caffe_bns(g, const, consumers)

    classifier = [n for n in g.node if n.op_type in ("Conv", "Gemm")][-1]
    rng = np.random.default_rng(seed)
    values: dict[str, np.ndarray] = {}
    for p in sorted(params):  # sorted: the values do not depend on node order details
        role, node = roles[p]
        if role in ("bn_scale", "bn_bias") and node.output[0] in caffe_bn:
            values[p] = np.full(params[p], 1.0 if role == "bn_scale" else 0.0, np.float32)
        else:
            values[p] = _generate(role, params[p], node, rng, node.output[0] in residual)
        if node is classifier:
            values[p] *= np.float32(CLASSIFIER_GAIN[name])

    # Constant Reshape targets of activations: the leading 1 is the batch.
    for node in g.node:
        if node.op_type == "Reshape" and node.input[0] not in const and node.input[1] in inits:
            shape = inits[node.input[1]].copy()
            if shape.size and shape[0] == 1:
                shape[0] = batch
                inits[node.input[1]] = shape

    image = _image_input(src)
    kept = [n for n in g.node if n.op_type != "ConstantOfShape"]
    del g.node[:]
    g.node.extend(kept)
    consumers = _consumers(g)
    del g.initializer[:]
    for p in list(values) + [t for t in inits if t not in values]:
        if p in consumers:  # filled in place: from_array + extend would copy VGG-19's 575 MB twice more
            arr = values[p] if p in values else inits[p]
            t = g.initializer.add()
            t.name = p
            t.data_type = helper.np_dtype_to_tensor_dtype(arr.dtype)
            t.dims.extend(arr.shape)
            t.raw_data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    dims = [d.dim_value for d in image.type.tensor_type.shape.dim]
    del g.input[:]
    g.input.append(helper.make_tensor_value_info(image.name, image.type.tensor_type.elem_type, [batch, *dims[1:]]))
    for out in g.output:
        d0 = out.type.tensor_type.shape.dim
        if len(d0):
            d0[0].dim_value = batch
    del g.value_info[:]
    m.ir_version = IR_VERSION
    m.producer_name = "cldnn_py.tools.zoo"
    m.doc_string = f"{SOURCES[name]} with seeded random weights (seed {seed}, batch {batch})"
    if check:
        onnx.checker.check_model(m, full_check=True)
    return m


def save(name: str, out_dir: str | os.PathLike[str], seed: int = 0, batch: int = 1) -> pathlib.Path:
    """Write ``make_model(name, seed, batch)`` to ``out_dir/<name>_b<batch>_s<seed>.onnx`` and return the path."""
    import onnx

    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}_b{batch}_s{seed}.onnx"
    onnx.save(make_model(name, seed, batch), str(path))
    return path


def logits_stats(name: str, seed: int = 0, batch: int = 1, input_seed: int = 0) -> dict[str, float]:
    """Run zoo model ``name`` with onnxruntime on an N(0, 1) input: {"std", "max_abs"} of the logits and
    "top2_gap" (the smallest gap between the two largest logits over the batch). Needs onnxruntime."""
    import onnxruntime as ort

    model = with_outputs(make_model(name, seed, batch), [logits_name(name)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(input_seed).standard_normal(input_shape(name, batch)).astype(np.float32)
    (logits,) = sess.run([logits_name(name)], {input_name(name): x})
    flat = logits.reshape(batch, -1).astype(np.float64)
    top = np.sort(flat, axis=1)[:, -2:]
    return {"std": float(flat.std()), "max_abs": float(np.abs(flat).max()),
            "top2_gap": float((top[:, 1] - top[:, 0]).min())}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cldnn_py.tools.zoo --out DIR [--models M ...] [--seed S] [--batch N] [--check]``."""
    ap = argparse.ArgumentParser(prog="python -m cldnn_py.tools.zoo",
                                 description="Write the onnx wheel's light network graphs as ordinary models with "
                                             "seeded random weights.")
    ap.add_argument("--out", help="output folder (keep it out of git, e.g. tests/.generated)")
    ap.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS), metavar="NAME",
                    help=f"models to write (default: all of {', '.join(MODELS)})")
    ap.add_argument("--seed", type=int, default=0, help="seed of the weights (default 0)")
    ap.add_argument("--batch", type=int, default=1, help="batch size (default 1)")
    ap.add_argument("--check", action="store_true",
                    help="run each model with onnxruntime on an N(0,1) input and print the logits statistics")
    args = ap.parse_args(argv)
    if not args.out and not args.check:
        ap.error("give --out DIR and/or --check")
    for name in args.models:
        if args.out:
            print(f"{name}: {save(name, args.out, args.seed, args.batch)}")
        if args.check:
            s = logits_stats(name, args.seed, args.batch)
            print(f"{name}: logits std {s['std']:.3f}, max |logit| {s['max_abs']:.3f}, "
                  f"top-2 gap {s['top2_gap']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
