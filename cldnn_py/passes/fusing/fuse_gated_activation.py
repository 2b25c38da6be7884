"""Rewrite x · sigmoid(x) as swish (SiLU) and x · hard_sigmoid(x) as hard_swish: one activation instead of an
activation and a multiply, which then fuses into the producer of x like any activation.

ONNX before opset 14 has neither SiLU nor HardSwish, so exporters write YOLO's SiLU as ``Mul(x, Sigmoid(x))`` and
MobileNetV3's HardSwish as ``Mul(x, HardSigmoid(x))`` (alpha 1/6, beta 1/2). As two nodes, x has two users, so
nothing fuses into the convolution that produces it, and each costs a full pass over the tensor (YOLOv8n-style at
320x320 on PoCL: 58 activation_ref kernels, 5.6 ms of 26 ms). OpenVINO's SwishFusion and HSwishFusion
transformations do the same.

Needs: an eltwise prod of exactly two inputs, one of them an activation (logistic, or hard_sigmoid with alpha 1/6
and beta 1/2) of the other, with that multiply as its only user and not a network output, and no coefficients.
"""

from __future__ import annotations

from ...ops import ActivationAttrs, EltwiseAttrs
from ...primitives import Activation
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode, remove_node
from .common import sole_user

_HARD_SIGMOID_OF_HARD_SWISH = (1.0 / 6.0, 0.5)


def _gated(act: ProgramNode) -> tuple[str, float] | None:
    """(function, a) of the single activation equal to x · act(x), or None."""
    a = act.primitive.attrs()
    if not isinstance(a, ActivationAttrs):
        return None
    if a.func.value == "logistic":
        return "swish", 1.0
    if a.func.value == "hard_sigmoid" and abs(a.a - _HARD_SIGMOID_OF_HARD_SWISH[0]) < 1e-6 \
            and abs(a.b - _HARD_SIGMOID_OF_HARD_SWISH[1]) < 1e-6:
        return "hard_swish", 0.0
    return None


def fuse_gated_activation(program: ProgramGraph, node: ProgramNode) -> bool:
    """Apply the rule to ``node`` (an eltwise prod); True when it rewrote it."""
    if node.kind != "eltwise" or len(node.dependencies) != 2:
        return False
    a = node.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    if a.mode.value != "prod" or a.coefficients not in (None, (1.0, 1.0)):
        return False
    for act, x in (node.dependencies, node.dependencies[::-1]):
        if act.kind != "activation" or act.dependencies != [x] or act is x or act.is_output \
                or sole_user(act) is not node or act.id in program.forced_impls:
            continue
        gated = _gated(act)
        if gated is None or act.layout().shape != node.layout().shape:
            continue
        func, alpha = gated
        remove_node(program.nodes, act)
        program.removed[act.id] = (act.kind, "")  # OPTIMIZED_OUT in profiling
        x.users = [u for u in x.users if u is not node] + [node]
        node.dependencies = [x]
        node.primitive = Activation(node.id, x.id, func=func, a=alpha)
        return True
    return False
