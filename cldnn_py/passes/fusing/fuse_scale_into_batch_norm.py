"""Fold a per-channel constant multiply or add that follows a BatchNorm into the BatchNorm's scale and shift.

Caffe-born graphs (DenseNet, Inception-v2) express BatchNorm + Scale as BatchNormalization → Mul(γ) → Add(β);
each of those is a full pass over the tensor. With y = bn(x)·s: scale' = scale·s, shift' = shift·s; with
y = bn(x) + t: shift' = shift + t. Needs the statistics and the operand to be Data holding one value per channel
(shape (C,), (C, 1, 1) or (1, C, 1, 1)), and the BatchNorm's only user to be the eltwise.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...ops import BatchNormAttrs, EltwiseAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import new_data, per_channel, sole_user


def fuse_scale_into_batch_norm(program: ProgramGraph, elt: ProgramNode) -> bool:
    """Apply the rule to ``elt`` (an eltwise prod or sum); True when it folded."""
    if elt.kind != "eltwise" or len(elt.dependencies) != 2 or elt.id in program.forced_impls:
        return False
    a = elt.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    mode = a.mode.value
    if mode not in ("prod", "sum") or a.coefficients not in (None, (1.0, 1.0)):
        return False
    bn = next((d for d in elt.dependencies if d.kind == "batch_norm"), None)
    if bn is None or sole_user(bn) is not elt or bn.id in program.forced_impls or bn.fused_ops:
        return False
    other = elt.dependencies[1] if elt.dependencies[0] is bn else elt.dependencies[0]
    out = bn.layout()
    if elt.layout().shape != out.shape or out.rank < 2:
        return False
    c = out.shape[1]
    val = per_channel(other, c, out.rank)
    stats = bn.dependencies[1:]
    if val is None or any(s.kind != "data" for s in stats):
        return False
    p = bn.primitive
    battrs = p.attrs()
    assert isinstance(battrs, BatchNormAttrs)
    arrays = [s.primitive.array.reshape(-1).astype(np.float64) for s in stats]  # type: ignore[attr-defined]
    mean, var = arrays[0], arrays[1]
    rest = iter(arrays[2:])
    scale = next(rest) if battrs.has_scale else np.ones(c)
    shift = next(rest) if battrs.has_shift else np.zeros(c)
    if mode == "prod":
        scale, shift = scale * val, shift * val
    else:
        shift = shift + val
    for s in stats:
        s.users = [u for u in s.users if u is not bn]
    ids = [new_data(program, bn, f"{bn.id}__{n}", v).id for n, v in (("mean", mean), ("var", var),
                                                                    ("scale", scale), ("shift", shift))]
    bn.dependencies = [bn.dependencies[0]] + [program.nodes[i] for i in ids]
    bn.primitive = dataclasses.replace(p, mean=ids[0], variance=ids[1], scale=ids[2],  # type: ignore[call-arg]
                                       shift=ids[3])
    other.users = [u for u in other.users if u is not elt]
    elt.dependencies = [bn]
    program.fuse(elt, bn)
    return True
