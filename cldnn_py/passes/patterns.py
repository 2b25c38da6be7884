"""Node tests shared by the passes that recognise a decomposed operation (fold_layer_norm, fold_gelu): the nodes a
fold starts from, what kind of node it is, the value of a one-element constant (a node's single user:
``fusing.common.sole_user``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..ops import ActivationAttrs, ActivationFunc, EltwiseAttrs, EltwiseMode
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode


def float_sources(program: ProgramGraph, pass_: Any) -> Iterator[ProgramNode]:
    """The nodes a fold may start from, in execution order: still in the graph (earlier folds remove nodes), not
    constant, not Data, of a floating-point type; sets ``pass_.node`` to each (the pass manager names it in errors)."""
    for x in list(program.order):
        if program.nodes.get(x.id) is not x or x.constant or x.kind == "data":
            continue
        pass_.node = x.id
        if x.layout().dtype.numpy.kind == "f":
            yield x


def is_eltwise(node: ProgramNode, mode: EltwiseMode) -> bool:
    """``node`` is a two-input eltwise of ``mode`` without coefficients."""
    if node.kind != "eltwise" or len(node.dependencies) != 2:
        return False
    a = node.primitive.attrs()
    assert isinstance(a, EltwiseAttrs)
    return a.mode == mode and a.coefficients is None


def is_activation(node: ProgramNode, func: ActivationFunc) -> bool:
    """``node`` is an activation of ``func``."""
    if node.kind != "activation":
        return False
    a = node.primitive.attrs()
    assert isinstance(a, ActivationAttrs)
    return a.func == func


def scalar(node: ProgramNode | None) -> float | None:
    """The value of a one-element floating-point Data node, else None."""
    arr = getattr(node.primitive, "array", None) if node is not None else None
    if node is None or node.kind != "data" or arr is None or arr.size != 1 or arr.dtype.kind != "f":
        return None
    return float(arr.reshape(-1)[0])


def other_operand(node: ProgramNode, one: ProgramNode) -> ProgramNode | None:
    """The operand of a two-input node that is not ``one`` (None when both or neither are)."""
    a, b = node.dependencies
    if a is one and b is not one:
        return b
    if b is one and a is not one:
        return a
    return None


def scalar_operand(node: ProgramNode, one: ProgramNode) -> float | None:
    """The value of the one-element constant that ``node`` combines with ``one``, else None."""
    return scalar(other_operand(node, one))
