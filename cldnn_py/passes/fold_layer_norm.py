"""fold_layer_norm: a LayerNorm written out in elementwise nodes becomes one MVN node.

Why: ONNX had no LayerNormalization before opset 17, so transformers exported at opset 11-16 (timm, torch.onnx,
HuggingFace) spell it as ReduceMean → Sub → Pow 2 → ReduceMean → Add ε → Sqrt → Div → Mul γ → Add β. Nine nodes per
norm: on the ViT-Tiny benchmark model that was 9 kernels per LayerNorm, three full passes over the activations and
two reduce kernels. OpenVINO's MVNFusion transformation finds the same pattern (and its x·rsqrt and reciprocal
forms) and emits MVN; onnxruntime's LayerNormFusion does the same for its fused kernel.

The pattern, from a node X (non-constant):

- m = reduce mean of X over trailing axes A (keep_dims), d = X − m;
- s = square(d) (Activation square, which Pow 2 imports as, or d · d), v = reduce mean of s over A (keep_dims);
- e = v + ε (ε a one-element constant; absent: ε = 0), r = sqrt(e);
- y = d / r, or d · reciprocal(r);
- then optionally y · γ and + β with constant γ / β (either operand order) that keep X's shape.

Every intermediate node must have only the users the pattern gives it (d: exactly s and y) and be neither a network
output nor a node with a forced implementation; the last node keeps its id and becomes ``MVN(X, axes=A, epsilon=ε,
scale=γ, bias=β)``. Only trailing axes are folded: the row kernels (``mvn_rows``, ``mvn_cpu_rows``) cover them; the
decomposed form over other axes runs as fast as ``mvn_ref`` would.
"""

from __future__ import annotations

from ..ops import ActivationFunc, EltwiseMode, ReduceAttrs, ReduceMode
from ..pass_manager import BasePass
from ..primitives import MVN
from ..program_graph import ProgramGraph
from ..program_node import ProgramNode, remove_node, topological_order
from .fusing.common import sole_user
from .patterns import float_sources, is_activation, is_eltwise, other_operand, scalar


def _mean_axes(node: ProgramNode, x: ProgramNode) -> tuple[int, ...] | None:
    """The sorted non-negative axes when ``node`` is a keep_dims mean of ``x`` over its trailing axes, else None."""
    if node.kind != "reduce" or node.dependencies != [x]:
        return None
    a = node.primitive.attrs()
    assert isinstance(a, ReduceAttrs)
    rank = x.layout().rank
    if a.mode != ReduceMode.mean or not a.keep_dims or not a.axes:
        return None
    axes = tuple(sorted({int(ax) % rank for ax in a.axes}))
    return axes if axes == tuple(range(rank - len(axes), rank)) else None


class LayerNormMatch:
    """One matched pattern: X, the axes, ε, γ / β nodes (or None), the nodes to remove and the last node."""

    def __init__(self, x: ProgramNode, axes: tuple[int, ...], eps: float, gamma: ProgramNode | None,
                 beta: ProgramNode | None, inner: list[ProgramNode], last: ProgramNode,
                 eps_node: ProgramNode | None) -> None:
        self.x, self.axes, self.eps, self.gamma, self.beta = x, axes, eps, gamma, beta
        self.inner, self.last, self.eps_node = inner, last, eps_node


def _affine(y: ProgramNode, mode: EltwiseMode, shape: tuple[int, ...]) -> tuple[ProgramNode, ProgramNode] | None:
    """(next, constant operand) when y's only user is ``y ∘ c`` of ``mode`` with a constant c and X's shape."""
    nxt = sole_user(y)
    if nxt is None or not is_eltwise(nxt, mode) or nxt.layout().shape != shape:
        return None
    c = other_operand(nxt, y)
    if c is None or not c.constant:
        return None
    return nxt, c


def match(x: ProgramNode) -> LayerNormMatch | None:
    """The LayerNorm pattern starting at X (see the module docstring), or None."""
    shape = x.layout().shape
    for m in {id(u): u for u in x.users}.values():
        axes = _mean_axes(m, x)
        d = sole_user(m) if axes else None
        if axes is None or d is None or not is_eltwise(d, EltwiseMode.sub) or d.dependencies != [x, m] or d.is_output:
            continue
        users = list({id(u): u for u in d.users}.values())
        if len(users) != 2 or d.layout().shape != shape:
            continue
        for s, y in (users, users[::-1]):
            found = _tail(x, axes, m, d, s, y, shape)
            if found is not None:
                return found
    return None


def _tail(x: ProgramNode, axes: tuple[int, ...], m: ProgramNode, d: ProgramNode, s: ProgramNode, y: ProgramNode,
          shape: tuple[int, ...]) -> LayerNormMatch | None:
    """The rest of the pattern after d = X − mean, with s the square and y the division."""
    squares = (is_activation(s, ActivationFunc.square) and s.dependencies == [d]) or \
        (is_eltwise(s, EltwiseMode.prod) and s.dependencies == [d, d])
    v = sole_user(s) if squares else None
    if v is None or _mean_axes(v, s) != axes:
        return None
    e = sole_user(v)
    eps, eps_node, inner = 0.0, None, [m, d, s, v]
    if e is not None and is_eltwise(e, EltwiseMode.sum):
        c = other_operand(e, v)
        val = scalar(c) if c is not None else None
        if val is None:
            return None
        eps, eps_node = val, c
        inner.append(e)
        e = sole_user(e)
    if e is None or not is_activation(e, ActivationFunc.sqrt) or eps < 0:
        return None
    inner.append(e)
    r_user = sole_user(e)
    rec = r_user if r_user is not None and is_activation(r_user, ActivationFunc.reciprocal) else None
    if rec is None and is_eltwise(y, EltwiseMode.div) and y.dependencies == [d, e] and r_user is y:
        pass
    elif rec is not None and is_eltwise(y, EltwiseMode.prod) and sole_user(rec) is y and other_operand(y, d) is rec:
        inner.append(rec)
    else:
        return None
    if y.layout().shape != shape:
        return None
    last, gamma, beta = y, None, None
    scaled = _affine(last, EltwiseMode.prod, shape)
    if scaled is not None:
        inner.append(last)
        last, gamma = scaled
    shifted = _affine(last, EltwiseMode.sum, shape)
    if shifted is not None:
        inner.append(last)
        last, beta = shifted
    return LayerNormMatch(x, axes, eps, gamma, beta, inner, last, eps_node)


class FoldLayerNorm(BasePass):
    """Replaces decomposed LayerNorms (ReduceMean … Sqrt, Div, Mul γ, Add β) by MVN nodes."""

    name = "fold_layer_norm"

    def run(self, program: ProgramGraph) -> None:
        """Every non-constant node in order as X; see the module docstring."""
        changed = False
        for x in float_sources(program, self):
            found = match(x)
            if found is None or any(n.id in program.forced_impls for n in found.inner + [found.last]):
                continue
            self._fold(program, found)
            changed = True
        if changed:
            program.order = topological_order(program.nodes)

    @staticmethod
    def _fold(program: ProgramGraph, f: LayerNormMatch) -> None:
        """Remove the inner nodes (and an ε constant no one else reads); the last node becomes the MVN."""
        for n in f.inner:
            program.removed[n.id] = (n.kind, "")  # OPTIMIZED_OUT in profiling
            remove_node(program.nodes, n)
        if f.eps_node is not None and not f.eps_node.users and not f.eps_node.is_output:
            remove_node(program.nodes, f.eps_node)
        last = f.last
        for dep in last.dependencies:
            dep.users = [u for u in dep.users if u is not last]
        deps = [f.x] + [n for n in (f.gamma, f.beta) if n is not None]
        last.dependencies = deps
        for dep in deps:
            dep.users.append(last)
        last.primitive = MVN(last.id, f.x.id, axes=f.axes, epsilon=f.eps,
                             scale=f.gamma.id if f.gamma is not None else None,
                             bias=f.beta.id if f.beta is not None else None)
        last.output_layout = last.primitive.calc_output_layout([d.layout() for d in deps])
