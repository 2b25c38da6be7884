"""gemm_ref: batched matrix product (numpy matmul semantics, transposes, alpha/beta, broadcast C), one work-item
per output element, any data format, ranks 1-6."""

from __future__ import annotations

from cldnn_py.ops import GemmAttrs, gemm_shapes
from cldnn_py.ops.elementwise import float_literal

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params
from ...selector import register
from ..nd_index import MAX_RANK, nd_check, nd_jit


def _idx6(name: str, coords: list[str]) -> str:
    """``NAME_IDX6(...)`` of logical coordinates (expressions), padded with zeros to six."""
    return f"{name}_IDX6({', '.join(coords + ['0'] * (MAX_RANK - len(coords)))})"


def _batch_coords(shape: tuple[int, ...], nb: int) -> list[str]:
    """Coordinates of an operand's batch dimensions ``shape`` (aligned to the right of the ``nb`` output batch
    dimensions ``bc0 ..``); a broadcast dimension (size 1) reads index 0."""
    off = nb - len(shape)
    return [f"bc{j + off}" if s > 1 else "0" for j, s in enumerate(shape)]


def gemm_index_jit(params: Params) -> JitConstants:
    """``GEMM_M/K/N``, ``GEMM_BATCH``, ``GEMM_BATCH_COORDS(z)`` (sets ``bc0 ..`` from the flat batch index z) and
    the element macros ``A_INDEX(m, k)``, ``B_INDEX(k, n)``, ``C_INDEX(m, n)``, ``OUT_INDEX(m, n)``."""
    a, b = params.inputs[0].shape, params.inputs[1].shape
    ta, tb = bool(params.attrs_as(GemmAttrs).transpose_a), bool(params.attrs_as(GemmAttrs).transpose_b)
    batch, m, k, n, out = gemm_shapes(a, b, ta, tb)
    nb = len(batch)
    j = JitConstants({"GEMM_M": m, "GEMM_K": k, "GEMM_N": n, "GEMM_BATCH": _prod(batch)})
    stmts, stride = [], 1
    for i in reversed(range(nb)):
        if batch[i] > 1:
            stmts.append(f"bc{i} = (z) / {stride} % {batch[i]};")
        stride *= batch[i]
    j.add("GEMM_BATCH_COORDS(z)", " ".join(stmts))
    bcs = [f"bc{i}" for i in range(nb)]
    ac = ["(k)"] if len(a) == 1 else _batch_coords(a[:-2], nb) + (["(k)", "(m)"] if ta else ["(m)", "(k)"])
    bcd = ["(k)"] if len(b) == 1 else _batch_coords(b[:-2], nb) + (["(n)", "(k)"] if tb else ["(k)", "(n)"])
    oc = bcs + (["(m)"] if len(a) > 1 else []) + (["(n)"] if len(b) > 1 else [])
    if not oc:
        oc = ["0"]
    j.add("A_INDEX(m, k)", _idx6("INPUT0", ac))
    j.add("B_INDEX(k, n)", _idx6("INPUT1", bcd))
    j.add("OUT_INDEX(m, n)", _idx6("OUTPUT", oc))
    if len(params.inputs) > 2:
        c = params.inputs[2].shape
        off = len(oc) - len(c)
        j.add("C_INDEX(m, n)", _idx6("INPUT2", [oc[i + off] if s > 1 else "0" for i, s in enumerate(c)]))
    return j


def _prod(shape: tuple[int, ...]) -> int:
    out = 1
    for s in shape:
        out *= s
    return out


@register
class GemmKernelRef(KernelBase):
    """Reference gemm (clDNN ``gemm_ref``): y[.., m, n] = alpha · Σ_k op(A)[.., m, k] · op(B)[.., k, n]
    + beta · C[broadcast].

    Inputs: INPUT0 A, INPUT1 B, INPUT2 C (optional); each of rank 1-6 in any format up to rank 4 (plain unpadded
    bfyx for rank 5-6), read through its ``IDX6`` macro with the batch coordinates broadcast (numpy ``matmul``
    rules, see :func:`cldnn_py.primitives.gemm.gemm_shapes`). gws = (N, M, batch); each work-item accumulates its
    K products in float with two partial sums (even and odd k).
    """

    name = "gemm_ref"
    primitive = "gemm"
    n_data_inputs = None

    def validate(self, params: Params) -> str | None:
        """Two or three inputs, ranks <= 6 (5-6 plain bfyx), inner dimensions that match."""
        if len(params.inputs) not in (2, 3):
            return f"expected 2 or 3 inputs, got {len(params.inputs)}"
        bad = nd_check(params.inputs, params.output)
        if bad:
            return bad
        try:
            gemm_shapes(params.inputs[0].shape, params.inputs[1].shape, bool(params.attrs_as(GemmAttrs).transpose_a),
                        bool(params.attrs_as(GemmAttrs).transpose_b))
        except ValueError as e:
            return str(e)
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, their IDX6 macros, the gemm index macros, ALPHA, BETA and HAS_C."""
        j = super().jit_constants(params)
        for i, x in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", x))
        j.update(nd_jit("OUTPUT", params.output))
        j.update(gemm_index_jit(params))
        a = params.attrs_as(GemmAttrs)
        j.update({"ALPHA": float_literal(a.alpha), "BETA": float_literal(a.beta),
                  "HAS_C": len(params.inputs) > 2})
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (N, M, batch)."""
        batch, m, _, n, _ = gemm_shapes(params.inputs[0].shape, params.inputs[1].shape,
                                        params.attrs_as(GemmAttrs).transpose_a, params.attrs_as(GemmAttrs).transpose_b)
        return (n, m, _prod(batch)), None
