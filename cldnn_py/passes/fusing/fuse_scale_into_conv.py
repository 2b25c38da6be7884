"""Fold a per-channel constant scale (and shift) that follows a convolution into its weights and bias.

Covers the Scale primitive (y = x·s + t) and an Eltwise prod or sum with a per-channel Data operand, the forms a
Caffe Scale layer takes: conv(x, W)·s + t = conv(x, W·s) + (b·s + t). Needs Data weights (and bias), Data
operands holding one value per output channel, and the convolution's only user to be the scale.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...ops import EltwiseAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import new_data, per_channel, sole_user


def fuse_scale_into_conv(program: ProgramGraph, node: ProgramNode) -> bool:
    """Apply the rule to ``node`` (a Scale, or an eltwise prod/sum); True when it folded."""
    if node.kind not in ("scale", "eltwise") or node.id in program.forced_impls:
        return False
    deps = node.dependencies
    conv = next((d for d in deps if d.kind == "convolution"), None)
    if conv is None or sole_user(conv) is not node or conv.fused_ops or conv.constant \
            or conv.id in program.forced_impls or node.layout().shape != conv.layout().shape:
        return False
    out = conv.layout()
    c, rank = out.shape[1], out.rank
    if node.kind == "scale":
        if deps[0] is not conv:
            return False
        s = per_channel(deps[1], c, rank)
        t = per_channel(deps[2], c, rank) if len(deps) > 2 else np.zeros(c)
    else:
        a = node.primitive.attrs()
        assert isinstance(a, EltwiseAttrs)
        if len(deps) != 2 or a.mode.value not in ("prod", "sum") or a.coefficients not in (None, (1.0, 1.0)):
            return False
        other = per_channel(deps[1] if deps[0] is conv else deps[0], c, rank)
        s, t = (other, np.zeros(c)) if a.mode.value == "prod" else (np.ones(c) if other is not None else None,
                                                                       other)
    w = conv.dependencies[1]
    if s is None or t is None or w.kind != "data":
        return False
    has_bias = len(conv.dependencies) > 2
    if has_bias and conv.dependencies[2].kind != "data":
        return False
    wa = w.primitive.array.astype(np.float64)  # type: ignore[attr-defined]
    ba = conv.dependencies[2].primitive.array.reshape(-1).astype(np.float64) if has_bias else np.zeros(c)  # type: ignore[attr-defined]
    wnode = new_data(program, conv, f"{conv.id}__w_{node.id}", wa * s.reshape(-1, *([1] * (wa.ndim - 1))))
    bnode = new_data(program, conv, f"{conv.id}__b_{node.id}", ba * s + t)
    for d in conv.dependencies[1:]:
        d.users = [u for u in d.users if u is not conv]
    conv.dependencies = [conv.dependencies[0], wnode, bnode]
    conv.primitive = dataclasses.replace(conv.primitive, weights=wnode.id, bias=bnode.id)  # type: ignore[call-arg]
    for d in node.dependencies:
        if d is not conv:
            d.users = [u for u in d.users if u is not node]
    node.dependencies = [conv]
    program.fuse(node, conv)
    return True
