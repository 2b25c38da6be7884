"""The row geometry shared by the row-wise MVN kernels (``mvn_rows`` on OpenCL, ``mvn_cpu_rows`` on the CPU engine):
the normalized axes are the trailing axes of a contiguous tensor, so each row is ``row_length`` adjacent elements,
and a scale or bias operand is either one value per row element or one value per row."""

from __future__ import annotations

from cldnn_py.ops import MVNAttrs, mvn_scale_offset

from ..params import Params
from .nd_reduce import normalize_axes

NONE, PER_ELEMENT, PER_ROW = 0, 1, 2
"""Operand modes: absent; ``operand[i]`` for row element i; ``operand[row % mod]`` for the whole row."""


def first_axis(params: Params) -> int:
    """The first normalized axis k (the normalized axes are k..rank-1 once :func:`rows_reason` is None)."""
    x = params.inputs[0]
    return min(normalize_axes(params.attrs_as(MVNAttrs).axes, x.rank))


def row_length(params: Params) -> int:
    """Elements per row: the product of the normalized axes' sizes."""
    x = params.inputs[0]
    n = 1
    for s in x.shape[first_axis(params):]:
        n *= s
    return n


def operand_mode(x_shape: tuple[int, ...], k: int, t_shape: tuple[int, ...], offset: int) -> tuple[int, int] | None:
    """(mode, mod) of a scale/bias of shape ``t_shape`` whose dimension 0 aligns with input axis ``offset``, for rows
    over axes k..; None when it varies within a row in another way (then the reference kernel runs).

    Broadcast to the input's rank, the operand is PER_ELEMENT when it is 1 on axes < k and the input's size on every
    axis >= k (mod = the row length), PER_ROW when it is 1 on axes >= k and, on axes < k, 1 up to some axis a and the
    input's size from a on (mod = the product of sizes a..k-1; a scalar: mod 1)."""
    rank = len(x_shape)
    full = [1] * offset + list(t_shape) + [1] * (rank - offset - len(t_shape))
    if len(full) != rank:
        return None
    if all(s == 1 for s in full[:k]) and all(full[i] == x_shape[i] for i in range(k, rank)):
        n = 1
        for s in x_shape[k:]:
            n *= s
        return PER_ELEMENT, n
    if any(s != 1 for s in full[k:]):
        return None
    a = k
    while a > 0 and full[a - 1] == x_shape[a - 1]:
        a -= 1
    if any(s != 1 for s in full[:a]):
        return None
    mod = 1
    for s in x_shape[a:k]:
        mod *= s
    return PER_ROW, mod


def operand_modes(params: Params) -> list[tuple[int, int] | None]:
    """[(mode, mod) of scale, (mode, mod) of bias]; (NONE, 1) for an absent operand, None for an unsupported one."""
    a = params.attrs_as(MVNAttrs)
    x = params.inputs[0]
    k = first_axis(params)
    out: list[tuple[int, int] | None] = []
    n = 1
    for flag in ("has_scale", "has_bias"):
        if not getattr(a, flag):
            out.append((NONE, 1))
            continue
        t = params.inputs[n]
        n += 1
        out.append(operand_mode(x.shape, k, t.shape, mvn_scale_offset(a.scale_axis, x.rank, t.rank)))
    return out


def rows_reason(params: Params) -> str | None:
    """Why the row kernels cannot run this MVN (input count, axes not trailing, a scale/bias that varies within a row
    other than per element, a statistics result), or None."""
    a = params.attrs_as(MVNAttrs)
    want = 1 + int(bool(a.has_scale)) + int(bool(a.has_bias))
    if len(params.inputs) != want:
        return f"expected {want} inputs (x[, scale][, bias]), got {len(params.inputs)}"
    x = params.inputs[0]
    try:
        axes = normalize_axes(a.axes, x.rank)
    except ValueError as e:
        return str(e)
    if tuple(axes) != tuple(range(x.rank - len(axes), x.rank)):
        return f"normalized axes {tuple(axes)} are not the trailing axes of rank {x.rank} (rows not contiguous)"
    if a.result != "normalized":
        return f"result {a.result!r}: the statistics outputs run mvn_ref"
    if params.output.shape != x.shape:
        return f"output shape {params.output.shape} differs from the input's {x.shape}"
    for name, m in zip(("scale", "bias"), operand_modes(params)):
        if m is None:
            return f"the {name} varies within a row other than per element"
    return None
