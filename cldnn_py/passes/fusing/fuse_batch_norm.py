"""Fold an inference BatchNorm into the convolution before it, at build time.

y = (conv(x, W) + b - mean) / sqrt(var + eps) * scale + shift = conv(x, W·k) + (b - mean)·k + shift with
k = scale / sqrt(var + eps) per output channel. Needs the weights, bias and statistics to be Data, and the
convolution's only user to be the BatchNorm. The new weights and bias are new Data nodes; the BatchNorm's users
read the convolution (its id resolves to the convolution).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...ops import BatchNormAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import new_data, sole_user


def _data(node: ProgramNode) -> np.ndarray | None:
    return node.primitive.array.astype(np.float64) if node.kind == "data" else None  # type: ignore[attr-defined]


def fuse_batch_norm(program: ProgramGraph, bn: ProgramNode) -> bool:
    """Apply the rule to ``bn`` if it is a BatchNorm after a foldable convolution; True when it fused."""
    if bn.kind != "batch_norm" or not bn.dependencies:
        return False
    conv = bn.dependencies[0]
    if conv.kind != "convolution" or sole_user(conv) is not bn or conv.fused_ops or conv.constant \
            or conv.id in program.forced_impls:
        return False
    stats = [_data(d) for d in bn.dependencies[1:]]
    w = _data(conv.dependencies[1])
    bias = _data(conv.dependencies[2]) if len(conv.dependencies) > 2 else None
    if w is None or any(s is None for s in stats) or (len(conv.dependencies) > 2 and bias is None):
        return False
    attrs = bn.primitive.attrs()
    assert isinstance(attrs, BatchNormAttrs)
    it = iter(stats)
    mean, var = next(it).reshape(-1), next(it).reshape(-1)  # type: ignore[union-attr]
    scale = next(it).reshape(-1) if attrs.has_scale else np.ones_like(mean)  # type: ignore[union-attr]
    shift = next(it).reshape(-1) if attrs.has_shift else np.zeros_like(mean)  # type: ignore[union-attr]
    k = scale / np.sqrt(var + attrs.epsilon)
    new_w = (w * k.reshape(-1, *([1] * (w.ndim - 1)))).astype(np.float32)
    new_b = (((bias.reshape(-1) if bias is not None else 0.0) - mean) * k + shift).astype(np.float32)
    wnode = new_data(program, conv, f"{conv.id}__w_{bn.id}", new_w)
    bnode = new_data(program, conv, f"{conv.id}__b_{bn.id}", new_b)
    wid, bid = wnode.id, bnode.id
    for d in conv.dependencies[1:]:
        d.users = [u for u in d.users if u is not conv]
    conv.dependencies = [conv.dependencies[0], wnode, bnode]
    conv.primitive = dataclasses.replace(conv.primitive, weights=wid, bias=bid)  # type: ignore[call-arg]
    program.fuse(bn, conv)
    return True
