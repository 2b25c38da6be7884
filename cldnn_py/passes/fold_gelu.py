"""fold_gelu: GELU spelled out as x · 0.5 · (1 + erf(x / √2)) becomes one Activation gelu node.

Why: ONNX had no Gelu before opset 20, so transformers exported earlier (torch.onnx, timm, HuggingFace BERT / ViT)
spell GELU as Div √2 (or Mul 1/√2) → Erf → Add 1 → Mul x → Mul 0.5 (or with the 0.5 applied to x or to the sum
first). Five nodes per MLP block; as one activation it fuses into the kernel that produces x (the fully connected
layer and its bias) in prepare_primitive_fusing. onnxruntime's GeluFusion and OpenVINO's GeluFusion transformations
find the same forms.

The pattern, from a node X: y = X / c (c = √2) or X · c (c = 1/√2), e = erf(y), t = e + 1, then the product of X,
t and 0.5 in any of the three groupings ((X·t)·0.5, (t·0.5)·X, t·(X·0.5); operands in either order). Constants are
one-element Data within 1e-6 relative of their value; every intermediate node has the pattern's user as its only
user, is not a network output and has no forced implementation. The last node keeps its id and becomes
``Activation(gelu)`` of X.
"""

from __future__ import annotations

import math

from ..ops import ActivationFunc, EltwiseMode
from ..pass_manager import BasePass
from ..primitives import Activation
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, remove_node, topological_order
from .fusing.common import sole_user
from .patterns import float_sources, is_activation, is_eltwise, other_operand, scalar_operand

SQRT2 = math.sqrt(2.0)


def _near(value: float | None, want: float) -> bool:
    """``value`` is within 1e-6 relative of ``want``."""
    return value is not None and abs(value - want) <= 1e-6 * abs(want)


def _scaled_input(y: ProgramNode, x: ProgramNode) -> bool:
    """y = x / √2 or x · (1/√2) (x the dividend / either factor)."""
    if is_eltwise(y, EltwiseMode.div):
        return y.dependencies[0] is x and _near(scalar_operand(y, x), SQRT2)
    return is_eltwise(y, EltwiseMode.prod) and _near(scalar_operand(y, x), 1.0 / SQRT2)


def _times(node: ProgramNode | None, one: ProgramNode) -> ProgramNode | None:
    """The other factor when ``node`` is a product with ``one``, else None."""
    if node is None or not is_eltwise(node, EltwiseMode.prod):
        return None
    return other_operand(node, one)


def match(x: ProgramNode) -> tuple[list[ProgramNode], ProgramNode] | None:
    """(nodes to remove, last node) of the GELU pattern from X, or None."""
    for y in {id(u): u for u in x.users}.values():
        if not _scaled_input(y, x):
            continue
        e = sole_user(y)
        if e is None or not is_activation(e, ActivationFunc.erf):
            continue
        t = sole_user(e)
        if t is None or not is_eltwise(t, EltwiseMode.sum) or not _near(scalar_operand(t, e), 1.0):
            continue
        m1 = sole_user(t)
        f = _times(m1, t)
        if m1 is None or f is None:
            continue
        inner = [y, e, t]
        if f is x:  # (x·t)·0.5
            m2 = sole_user(m1)
            if m2 is not None and _near(scalar_operand(m2, m1) if _times(m2, m1) is not None else None, 0.5):
                return inner + [m1], m2
        elif _near(scalar_operand(m1, t), 0.5):  # (t·0.5)·x
            m2 = sole_user(m1)
            if _times(m2, m1) is x and m2 is not None:
                return inner + [m1], m2
        elif sole_user(f) is m1 and _times(f, x) is not None and _near(scalar_operand(f, x), 0.5):  # t·(x·0.5)
            return inner + [f], m1
    return None


class FoldGelu(BasePass):
    """Replaces decomposed GELUs (Div √2, Erf, Add 1, Mul x, Mul 0.5) by Activation gelu."""

    name = "fold_gelu"

    def run(self, program: ProgramGraph) -> None:
        """Every non-constant floating-point node in order as X; see the module docstring."""
        changed = False
        for x in float_sources(program, self):
            found = match(x)
            if found is None:
                continue
            inner, last = found
            if any(n.id in program.forced_impls for n in inner + [last]) or last.layout().shape != x.layout().shape:
                continue
            self._fold(program, x, inner, last)
            changed = True
        if changed:
            program.order = topological_order(program.nodes)

    @staticmethod
    def _fold(program: ProgramGraph, x: ProgramNode, inner: list[ProgramNode], last: ProgramNode) -> None:
        """Remove the inner nodes and the constants only they read; the last node becomes Activation gelu of X."""
        consts = [d for n in inner + [last] for d in n.dependencies if d.kind == "data"]
        for n in inner:
            program.removed[n.id] = (n.kind, "")  # OPTIMIZED_OUT in profiling
            remove_node(program.nodes, n)
        for dep in last.dependencies:
            dep.users = [u for u in dep.users if u is not last]
        last.dependencies = [x]
        x.users.append(last)
        last.primitive = Activation(last.id, x.id, func=ActivationFunc.gelu)
        last.output_layout = last.primitive.calc_output_layout([x.layout()])
        for c in {id(c): c for c in consts}.values():
            if not c.users and not c.is_output and program.nodes.get(c.id) is c:
                remove_node(program.nodes, c)
