"""AlexNet (Krizhevsky, Sutskever & Hinton 2012) built with the cldnn_py Topology API, then run and profiled.

The graph is Caffe's ``bvlc_alexnet`` deploy net: input 1x3x227x227; five convolutions, of which conv2, conv4
and conv5 are split into two groups like the original two-GPU model; LRN after conv1 and conv2 (size 5,
alpha 1e-4, beta 0.75, k 2 as in the paper); three 3x3/2 max pools; FC 9216 -> 4096 -> 4096 -> 1000; softmax.
Dropout is the identity at inference and is left out. The weights are seeded He-normal (or loaded from an
``.npz`` whose keys are the Data ids), so the classes mean nothing; the point is the engine.

    python examples/alexnet.py [--weights alexnet.npz] [--runs 10] [--device cl:0:0]

``build()`` is importable (tests/e2e/test_alexnet.py compares it with onnxruntime).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

import cldnn_py as cl

INPUT_SHAPE = (3, 227, 227)
OUTPUTS = ["logits", "prob"]  # "logits": fc8, before the softmax; "prob": the softmax. Build with these outputs.


class WeightStore:
    """Hands out ``cl.Data`` primitives by id: the caller's array when ``given`` (shape checked), otherwise seeded
    He-normal (He et al. 2015, std sqrt(2 / fan_in), which keeps activations O(1) through ReLUs) for weights and
    a small normal for biases. ``used`` collects every array handed out, in order."""

    def __init__(self, given: dict[str, np.ndarray] | None, seed: int) -> None:
        self.given = given
        self.rng = np.random.default_rng(seed)
        self.used: dict[str, np.ndarray] = {}

    def data(self, name: str, shape: tuple[int, ...], fan_in: int | None = None, std: float = 0.01) -> cl.Data:
        """A Data primitive ``name`` of ``shape``. Raises KeyError / ValueError for a missing / misshapen given
        array."""
        if self.given is not None:
            if name not in self.given:
                raise KeyError(f"weights: '{name}' of shape {shape} is missing")
            arr = np.asarray(self.given[name], dtype=np.float32)
            if arr.shape != shape:
                raise ValueError(f"weights: '{name}' has shape {arr.shape}, expected {shape}")
        else:
            scale = np.float32(np.sqrt(2.0 / fan_in) if fan_in else std)
            arr = scale * self.rng.standard_normal(shape, dtype=np.float32)
        self.used[name] = arr
        return cl.Data(name, arr)


def build(batch: int = 1, weights: dict[str, np.ndarray] | None = None,
          seed: int = 0) -> tuple[cl.Topology, dict[str, np.ndarray]]:
    """The AlexNet Topology for the input "data" (batch, 3, 227, 227), f32 bfyx.

    Returns (topology, weights by Data id): "conv1_w" (96, 3, 11, 11), "conv1_b" (96,), ... "conv5_b",
    "fc6_w" (4096, 9216), "fc6_b", ..., "fc8_w" (1000, 4096), "fc8_b". With ``weights`` those arrays are used
    (KeyError if one is missing, ValueError for a wrong shape); otherwise they are drawn from ``seed``.
    Outputs: "prob" (batch, 1000); "logits" too when built with ``cl.BuildOptions(outputs=OUTPUTS)``.
    """
    ws = WeightStore(weights, seed)
    topo = cl.Topology(cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (batch, *INPUT_SHAPE))))

    def conv_relu(i: int, x: str, cin: int, cout: int, k: int, stride: int = 1, pad: int = 0,
                  groups: int = 1) -> str:
        name = f"conv{i}"
        topo.add(ws.data(name + "_w", (cout, cin // groups, k, k), fan_in=cin // groups * k * k),
                 ws.data(name + "_b", (cout,)),
                 cl.Convolution(name, x, weights=name + "_w", bias=name + "_b", stride=(stride, stride),
                                pad=(pad, pad), groups=groups),
                 cl.Activation(f"relu{i}", name, "relu"))
        return f"relu{i}"

    def norm(i: int, x: str) -> str:
        topo.add(cl.LRN(f"norm{i}", x, size=5, alpha=1e-4, beta=0.75, k=2.0))
        return f"norm{i}"

    def pool(i: int, x: str) -> str:
        topo.add(cl.Pooling(f"pool{i}", x, mode="max", kernel=(3, 3), stride=(2, 2)))
        return f"pool{i}"

    def fc(i: int, x: str, cin: int, cout: int, name: str | None = None) -> str:
        name = name or f"fc{i}"
        topo.add(ws.data(f"fc{i}_w", (cout, cin), fan_in=cin), ws.data(f"fc{i}_b", (cout,)),
                 cl.FullyConnected(name, x, weights=f"fc{i}_w", bias=f"fc{i}_b"))
        return name

    x = pool(1, norm(1, conv_relu(1, "data", 3, 96, k=11, stride=4)))            # 96 x 55 x 55 -> 27 x 27
    x = pool(2, norm(2, conv_relu(2, x, 96, 256, k=5, pad=2, groups=2)))         # 256 x 27 x 27 -> 13 x 13
    x = conv_relu(3, x, 256, 384, k=3, pad=1)                                    # 384 x 13 x 13
    x = conv_relu(4, x, 384, 384, k=3, pad=1, groups=2)                          # 384 x 13 x 13
    x = pool(5, conv_relu(5, x, 384, 256, k=3, pad=1, groups=2))                 # 256 x 13 x 13 -> 6 x 6
    topo.add(cl.Activation("relu6", fc(6, x, 256 * 6 * 6, 4096), "relu"))        # FC flattens (N, 9216)
    topo.add(cl.Activation("relu7", fc(7, "relu6", 4096, 4096), "relu"))
    fc(8, "relu7", 4096, 1000, name="logits")
    topo.add(cl.Softmax("prob", "logits", axis=1))
    return topo, ws.used


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # examples/ is a folder of scripts
    from example_runner import run_example

    run_example(__doc__ or "", build, INPUT_SHAPE, OUTPUTS)
