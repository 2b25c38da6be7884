"""Fold a constant bias added after a fully connected layer into the layer's bias, through a reshape if there is one.

ONNX's MatMul has no bias: ``MatMul(x, W) + b`` is two nodes, and the importer turns a MatMul of a rank-3 x into
Reshape → FullyConnected → Reshape (so the transformer's every linear layer was FullyConnected → Reshape → Eltwise
sum, one more kernel and a full tensor write and read). ``fc(x) + b`` (or ``reshape(fc(x)) + b``) becomes the
fully connected layer with bias b (plus its own bias, if any): one kernel, the sum in its epilogue (OpenVINO's
FullyConnectedBiasFusion).

Needs: the eltwise is a sum of two inputs without coefficients; one input is the fully connected layer (or a
reshape whose only input is it) that has the eltwise (or the reshape) as its only user; the other is a Data node of
M values (the layer's outputs), broadcast along the last axis only (shape (M,) or (1, ..., 1, M)); the reshape
keeps M as its last axis, so a flat position keeps its output channel; the sum's output has the shape of its input.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...ops import EltwiseAttrs
from ...program_graph import ProgramGraph
from ...program_node import ProgramNode
from .common import new_data, sole_user


def _fc_behind(node: ProgramNode, program: ProgramGraph) -> ProgramNode | None:
    """The fully connected layer that produces ``node`` (itself, or through a reshape), used only on that path."""
    fc = node.dependencies[0] if node.kind == "reshape" and len(node.dependencies) == 1 else node
    if fc.kind != "fully_connected" or fc.constant or fc.fused_ops or fc.id in program.forced_impls:
        return None
    if fc is not node and sole_user(fc) is not node:
        return None
    return fc


def _row_bias(node: ProgramNode, m: int, rank: int) -> np.ndarray | None:
    """The M values of a Data node broadcast along the last axis of a rank-``rank`` tensor, else None."""
    if node.kind != "data":
        return None
    a = node.primitive.array  # type: ignore[attr-defined]
    if a.size != m or a.ndim > rank or a.dtype.kind != "f" or a.shape[-1] != m:
        return None
    return a.reshape(-1).astype(np.float64)


def fuse_bias_into_fc(program: ProgramGraph, elt: ProgramNode) -> bool:
    """Apply the rule to ``elt``; True when it folded."""
    if elt.kind != "eltwise" or len(elt.dependencies) != 2:
        return False
    a = elt.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    if a.mode.value != "sum" or a.coefficients not in (None, (1.0, 1.0)):
        return False
    for src, other in (elt.dependencies, elt.dependencies[::-1]):
        fc = _fc_behind(src, program)
        if fc is None or sole_user(src) is not elt or src.layout().shape != elt.layout().shape:
            continue
        m = fc.layout().shape[-1]
        if src.layout().shape[-1] != m:
            continue
        b = _row_bias(other, m, elt.layout().rank)
        has_bias = len(fc.dependencies) > 2
        if b is None or (has_bias and fc.dependencies[2].kind != "data"):
            continue
        old = fc.dependencies[2].primitive.array.reshape(-1).astype(np.float64) if has_bias else 0.0  # type: ignore[attr-defined]
        bnode = new_data(program, fc, f"{fc.id}__b_{elt.id}", (old + b).astype(np.float32))
        for d in fc.dependencies[2:]:
            d.users = [u for u in d.users if u is not fc]
        fc.dependencies = fc.dependencies[:2] + [bnode]
        fc.primitive = dataclasses.replace(fc.primitive, bias=bnode.id)  # type: ignore[call-arg]
        other.users = [u for u in other.users if u is not elt]
        elt.dependencies = [src]
        program.fuse(elt, src)
        return True
    return False
