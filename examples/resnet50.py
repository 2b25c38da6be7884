"""ResNet-50 (He, Zhang, Ren & Sun 2016) built with the cldnn_py Topology API, then run and profiled.

ResNet-50 v1.5: like v1 (post-activation bottlenecks, BatchNorm after every convolution, projection shortcuts where
the shape changes), but a down-sampling block strides in its 3x3 convolution instead of its first 1x1, as in
torchvision and most deployed ResNet-50s. Stem: 7x7/2 conv, BN, ReLU, 3x3/2 max pool (pad 1); stages of
[3, 4, 6, 3] bottlenecks of width 64, 128, 256, 512 (output 4x the width); global average pool; FC 2048 -> 1000;
softmax. Ids follow Caffe's ResNet-50 (``res2a_branch2a``, ``bn2a_branch2a``, ...). Weights are seeded He-normal
with BatchNorm statistics chosen to keep activations O(1), or come from an ``.npz`` keyed by the Data ids.

    python examples/resnet50.py [--weights resnet50.npz] [--runs 10] [--device cl:0:0]

``build()`` is importable (tests/e2e/test_resnet50.py compares it with onnxruntime).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

import cldnn_py as cl

INPUT_SHAPE = (3, 224, 224)
OUTPUTS = ["logits", "prob"]  # "logits": fc1000, before the softmax; "prob": the softmax. Build with these outputs.
STAGES = [(3, 64), (4, 128), (6, 256), (3, 512)]  # (bottleneck blocks, width) of res2 .. res5


class WeightStore:
    """Hands out ``cl.Data`` primitives by id: the caller's array when ``given`` (shape checked), otherwise drawn
    from ``seed``. ``used`` collects every array handed out, in order."""

    def __init__(self, given: dict[str, np.ndarray] | None, seed: int) -> None:
        self.given = given
        self.rng = np.random.default_rng(seed)
        self.used: dict[str, np.ndarray] = {}

    def data(self, name: str, shape: tuple[int, ...], draw) -> cl.Data:
        """A Data primitive ``name`` of ``shape``; ``draw(rng, shape)`` makes the array when none is given.
        Raises KeyError / ValueError for a missing / misshapen given array."""
        if self.given is not None:
            if name not in self.given:
                raise KeyError(f"weights: '{name}' of shape {shape} is missing")
            arr = np.asarray(self.given[name], dtype=np.float32)
            if arr.shape != shape:
                raise ValueError(f"weights: '{name}' has shape {arr.shape}, expected {shape}")
        else:
            arr = np.asarray(draw(self.rng, shape), dtype=np.float32)
        self.used[name] = arr
        return cl.Data(name, arr)


def he_normal(fan_in: int, centered: bool = False):
    """He et al. 2015: N(0, 2 / fan_in), which keeps the activations' scale through ReLUs. ``centered`` makes
    every output filter sum to zero, so the positive mean of ReLU outputs does not pile up as an input-independent
    offset (a trained net's BatchNorm removes it; random statistics cannot)."""

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        w = np.float32(np.sqrt(2.0 / fan_in)) * rng.standard_normal(shape, dtype=np.float32)
        return w - w.mean(axis=tuple(range(1, len(shape))), keepdims=True) if centered else w

    return draw


def uniform(lo: float, hi: float):
    """U(lo, hi)."""
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def normal(std: float):
    """N(0, std²)."""
    return lambda rng, shape: np.float32(std) * rng.standard_normal(shape, dtype=np.float32)


# BatchNorm statistics, y = (x - mean) / sqrt(var + eps) * scale + shift, chosen so that with centered He-normal
# filters the activations stay O(1) through all 16 blocks (rms 1-2 at every stage, logits std ~1.3). The last BN of
# a residual branch gets a smaller scale, as zero-init-gamma training leaves it, so the sums do not grow.
BN_DRAW = {"mean": normal(0.1), "var": uniform(0.3, 0.8), "scale": uniform(0.5, 1.0), "shift": normal(0.1)}
BN_DRAW_BRANCH_END = {**BN_DRAW, "scale": uniform(0.2, 0.5)}


def build(batch: int = 1, weights: dict[str, np.ndarray] | None = None,
          seed: int = 0) -> tuple[cl.Topology, dict[str, np.ndarray]]:
    """The ResNet-50 v1.5 Topology for the input "data" (batch, 3, 224, 224), f32 bfyx.

    Returns (topology, weights by Data id): for every convolution ``<conv>_w`` (OC, C, KH, KW) (no bias: the
    BatchNorm after it has a shift); for every BatchNorm ``<bn>_mean``, ``_var``, ``_scale``, ``_shift`` (C,);
    "fc1000_w" (1000, 2048), "fc1000_b" (1000,). With ``weights`` those arrays are used (KeyError if one is missing,
    ValueError for a wrong shape); otherwise they are drawn from ``seed``. Outputs: "prob" (batch, 1000); "logits"
    too when built with ``cl.BuildOptions(outputs=OUTPUTS)``.
    """
    ws = WeightStore(weights, seed)
    topo = cl.Topology(cl.InputLayout("data", cl.Layout(cl.DataType.f32, cl.Format.bfyx, (batch, *INPUT_SHAPE))))

    def conv_bn(conv: str, bn: str, x: str, cin: int, cout: int, k: int, stride: int = 1,
                relu: bool = True) -> str:
        """conv (no bias) -> BatchNorm [-> ReLU]; returns the last id."""
        topo.add(ws.data(conv + "_w", (cout, cin, k, k), he_normal(cin * k * k, centered=True)),
                 cl.Convolution(conv, x, weights=conv + "_w", stride=(stride, stride), pad=(k // 2, k // 2)))
        draws = BN_DRAW_BRANCH_END if bn.endswith("branch2c") else BN_DRAW
        topo.add(*(ws.data(f"{bn}_{s}", (cout,), draws[s]) for s in ("mean", "var", "scale", "shift")))
        topo.add(cl.BatchNorm(bn, conv, mean=bn + "_mean", variance=bn + "_var", scale=bn + "_scale",
                              shift=bn + "_shift", epsilon=1e-5))
        if not relu:
            return bn
        topo.add(cl.Activation(conv + "_relu", bn, "relu"))
        return conv + "_relu"

    def bottleneck(name: str, x: str, cin: int, width: int, stride: int) -> str:
        """1x1 (width) -> 3x3/stride (width) -> 1x1 (4 width), plus the shortcut, summed, ReLU."""
        y = conv_bn(f"res{name}_branch2a", f"bn{name}_branch2a", x, cin, width, 1)
        y = conv_bn(f"res{name}_branch2b", f"bn{name}_branch2b", y, width, width, 3, stride)
        y = conv_bn(f"res{name}_branch2c", f"bn{name}_branch2c", y, width, 4 * width, 1, relu=False)
        if stride != 1 or cin != 4 * width:  # projection shortcut: 1x1/stride conv + BN
            x = conv_bn(f"res{name}_branch1", f"bn{name}_branch1", x, cin, 4 * width, 1, stride, relu=False)
        topo.add(cl.Eltwise(f"res{name}", [x, y], mode="sum"), cl.Activation(f"res{name}_relu", f"res{name}", "relu"))
        return f"res{name}_relu"

    x = conv_bn("conv1", "bn_conv1", "data", 3, 64, 7, stride=2)                         # 64 x 112 x 112
    topo.add(cl.Pooling("pool1", x, mode="max", kernel=(3, 3), stride=(2, 2), pad=(1, 1)))  # 64 x 56 x 56
    x, cin = "pool1", 64
    for stage, (blocks, width) in enumerate(STAGES, start=2):                            # -> 2048 x 7 x 7
        for b in range(blocks):
            stride = 2 if b == 0 and stage > 2 else 1
            x = bottleneck(f"{stage}{'abcdef'[b]}", x, cin, width, stride)
            cin = 4 * width
    topo.add(cl.Pooling("pool5", x, mode="average", global_pooling=True))                # 2048 x 1 x 1
    topo.add(ws.data("fc1000_w", (1000, 2048), normal(np.sqrt(1 / 2048))),  # no ReLU after it: std 1/sqrt(K)
             ws.data("fc1000_b", (1000,), normal(0.01)),
             cl.FullyConnected("logits", "pool5", weights="fc1000_w", bias="fc1000_b"),  # flattens (N, 2048)
             cl.Softmax("prob", "logits", axis=1))
    return topo, ws.used


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # examples/ is a folder of scripts
    from example_runner import run_example

    run_example(__doc__ or "", build, INPUT_SHAPE, OUTPUTS)
