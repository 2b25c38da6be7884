"""Fold an element-wise sum into the convolution that produces one of its inputs (the ResNet shortcut).

``sum(conv(x), other)`` becomes one convolution kernel that reads ``other`` in its epilogue: one full tensor write
and read saved. Both inputs must have the output's shape (no broadcasting) and there are no coefficients. When both
inputs are convolutions, the one later in execution order hosts (the residual branch, as in clDNN).

The rule runs twice (``fusing.RULES``): before ``fuse_activation`` (conv + bias → sum → relu: the sum, then the relu)
and after it, for a convolution that already carries a fused chain and a sum whose own activations were fused into
it: a QDQ model's ``conv → fake quantization → Add → Relu → fake quantization`` (ResNet-50 quantized by onnxruntime:
16 eltwise kernels, 2.7 ms of its 73 ms on PoCL) becomes one convolution whose epilogue applies, in order, its chain,
the sum, and the sum's activations. Every convolution kernel applies its fused ops in list order.
"""

from __future__ import annotations

from ...ops import EltwiseAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import can_host, fuse_eltwise_into, sole_user


def fuse_eltwise_sum(program: ProgramGraph, elt: ProgramNode) -> bool:
    """Apply the rule to ``elt``; True when it fused."""
    if elt.kind != "eltwise" or len(elt.dependencies) != 2:
        return False
    a = elt.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    if a.mode.value != "sum" or (a.coefficients is not None and any(c != 1.0 for c in a.coefficients)):
        return False
    out = elt.layout()
    if any(d.layout().shape != out.shape or d.layout().dtype != out.dtype for d in elt.dependencies):
        return False
    pos = {n.id: i for i, n in enumerate(program.order)}
    if any(op.kind != "activation" or op.dep_indices for op in elt.fused_ops):
        return False  # only the sum's own activations move with it (no operand to re-index)
    hosts = [d for d in elt.dependencies if d.kind == "convolution" and can_host(program, d)
             and sole_user(d) is elt]
    if not hosts or elt.dependencies[0] is elt.dependencies[1]:
        return False
    host = max(hosts, key=lambda n: pos[n.id])
    other = elt.dependencies[1] if elt.dependencies[0] is host else elt.dependencies[0]
    fuse_eltwise_into(program, elt, host, other)
    return True
