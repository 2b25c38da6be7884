"""Gemm indexing shared by the OpenCL gemm kernels: sizes, batch coordinates and element macros as jit constants."""

from __future__ import annotations

from cldnn_py.ops import GemmAttrs, gemm_shapes

from ..jitter import JitConstants
from ..params import Params
from .nd_index import MAX_RANK


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
    j = JitConstants({"GEMM_M": m, "GEMM_K": k, "GEMM_N": n, "GEMM_BATCH": prod(batch)})
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


def prod(shape: tuple[int, ...]) -> int:
    """The product of ``shape`` (1 for ())."""
    out = 1
    for s in shape:
        out *= s
    return out
